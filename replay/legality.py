"""Why a position set up by hand could not occur in a game (the board editor's checks).

>>> from daikifu.replay import compile_rules, load_variant
>>> rules = compile_rules(load_variant("shogi"))
>>> [p.kind for p in position_problems(rules, "4k4/4K4/9/9/9/9/9/9/9 b - 1")]
['kings-adjacent', 'not-to-move-in-check']
>>> position_problems(rules, rules.start)
[]

A position string that cannot be read at all gives one problem of kind ``syntax``.  The other
kinds (each with the squares concerned):

* ``royals``: a side with more royal pieces than it can ever have: one for each piece of its start
  position that is royal or promotes to a royal type (Chu Shogi: the King and the Drunk Elephant,
  whose promotion, the Crown Prince, is royal);
* ``no-royal``: a side without a royal piece in a variant that has one (the game would be over);
* ``kings-adjacent``: the two sides' royal pieces stand next to each other (only where a move may
  not leave the last royal piece attacked, ``royal_loss = "checkmate"``, with one royal a side);
* ``not-to-move-in-check``: the side that has just moved left its royal piece attacked (the
  squares are the royal piece's and its attackers'; likewise);
* ``dead-piece``: a piece on a square from which it could never move, which it could only have
  reached by a move that had to promote it there (or by a drop, which the rules forbid there;
  not where promotion is never compulsory, ``promotion_forced = "never"``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .board import Board
from .position import PositionError, parse_position
from .rules import Ruleset
from .squares import square_file, square_name, square_rank

__all__ = ["PositionProblem", "position_problems"]

SIDES = ("Sente", "Gote")


@dataclass
class PositionProblem:
    """One reason a position is impossible: ``kind`` (see the module docstring), a sentence, and
    the squares it concerns (by name)."""

    kind: str
    message: str
    squares: list = field(default_factory=list)

    def as_dict(self) -> dict:
        return {"kind": self.kind, "message": self.message, "squares": list(self.squares)}


def position_problems(rules: Ruleset, text: str) -> list[PositionProblem]:
    """Everything that makes ``text`` impossible as a position of ``rules`` (empty: possible)."""
    try:
        parsed = parse_position(rules, text)
    except PositionError as exc:
        return [PositionProblem("syntax", f"not a position string of {rules.variant.name}: {exc}")]
    royals: list[list[int]] = [[], []]
    for sq, (t, colour) in parsed.pieces.items():
        if rules.royal[t * 2 + colour]:
            royals[colour].append(sq)
    out = []
    for colour in (0, 1):
        most = _most_royals(rules, colour)
        if len(royals[colour]) > most:
            names = ", ".join(square_name(sq) for sq in sorted(royals[colour]))
            out.append(PositionProblem("royals", f"{SIDES[colour]} has {len(royals[colour])} royal pieces "
                                       f"({names}); at most {most} {'is' if most == 1 else 'are'} possible",
                                       [square_name(sq) for sq in royals[colour]]))
    if out:
        return out
    has_royal = any(rules.royal[t.index * 2] for t in rules.types)
    for colour in (0, 1):
        if has_royal and not royals[colour]:
            out.append(PositionProblem("no-royal", f"{SIDES[colour]} has no royal piece: the game would be over"))
    if rules.royal_capture or len(royals[0]) != 1 or len(royals[1]) != 1:
        # moving into check is legal, or a royal may be left attacked while another remains
        out.extend(_dead_pieces(rules, parsed))
        return out
    if royals[0] and royals[1]:
        a, b = royals[0][0], royals[1][0]
        if max(abs(square_file(a) - square_file(b)), abs(square_rank(a) - square_rank(b))) == 1:
            out.append(PositionProblem("kings-adjacent", f"the royal pieces on {square_name(a)} and {square_name(b)} "
                                       "stand next to each other", [square_name(a), square_name(b)]))
    board = Board(rules)
    try:
        board.set_position(text, allow_exposed=True)
    except PositionError as exc:  # what the board itself refuses (pieces in hand without drops ...)
        return out + [PositionProblem("syntax", f"not a position of {rules.variant.name}: {exc}")]
    out.extend(_exposed(board, royals))
    out.extend(_dead_pieces(rules, parsed))
    return out


def _exposed(board: Board, royals: list[list[int]]) -> list[PositionProblem]:
    """The side not to move in check: its royal piece and the pieces attacking it."""
    victim = board.turn ^ 1
    if not royals[victim] or not board.is_attacked(royals[victim][0], board.turn):
        return []
    royal = royals[victim][0]
    attackers = sorted({m.from_square for m in board.pseudo_legal_moves()
                        if m.from_square is not None and royal in board.captured_squares(m)})
    names = ", ".join(f"{board.piece_at(sq).id} on {square_name(sq)}" for sq in attackers)
    mover = SIDES[board.turn]
    return [PositionProblem("not-to-move-in-check",
                            f"{SIDES[victim]} is in check but {mover} is to move: {SIDES[victim]}'s royal piece on "
                            f"{square_name(royal)} could be captured" + (f" (by {names})" if names else ""),
                            [square_name(royal), *(square_name(sq) for sq in attackers)])]


def _most_royals(rules: Ruleset, colour: int) -> int:
    """How many royal pieces ``colour`` can ever have: its start position's pieces that are royal
    or promote to a royal type."""
    start = rules.parsed_start()
    return max(1, sum(1 for t, c in start.pieces.values()
                      if c == colour and (rules.royal[t * 2] or rules.royal[rules.promote[t * 2]])))


def _dead_pieces(rules: Ruleset, parsed) -> list[PositionProblem]:
    """Promotable pieces on squares from which they could never move: arriving there promotes."""
    if not rules.forced_stuck:
        return []
    out = []
    for sq, (t, colour) in sorted(parsed.pieces.items()):
        code = t * 2 + colour
        if sq in rules.dead[code] and rules.promote[code]:
            pid = rules.types[t - 1].id
            out.append(PositionProblem("dead-piece", f"{SIDES[colour]}'s {pid} on {square_name(sq)} could never move "
                                       "from there: a move to that square must promote it", [square_name(sq)]))
    return out
