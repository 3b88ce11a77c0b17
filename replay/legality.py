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
  not where promotion is never compulsory, ``promotion_forced = "never"``);
* ``piece-count``: more pieces of a kind than the game has: a promoted piece counts as the piece it
  promoted from, and pieces in hand count (shogi: two unpromoted Pawns on a file and ``9P`` in
  hand are 27 Pawns of 18); with drops both sides' pieces are counted together (a captured piece
  changes sides), without drops each side's against its own start position;
* ``hand-piece``: a piece in hand that no capture could have put there (a promoted piece, which
  returns to the hand unpromoted, or a royal piece);
* ``nifu`` and ``drop-cap``: more unpromoted pieces of a side in a region than a drop cap allows
  (``drop_nifu``: two unpromoted Pawns of a side on a file), where no move of those pieces ever
  leaves its region (a shogi Pawn never leaves its file), so that only drops, which the cap
  forbids, could have put them there.

>>> [p.kind for p in position_problems(rules, "lnsgkgsnl/1r5b1/ppppppppp/9/P8/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1")]
['piece-count', 'nifu']

A composition (a mating problem, a study) may break some of these on purpose: the variant file's
``[rules] allow_impossible`` (a list of the names above, or ``true`` for all), a game's
``AllowImpossible`` tag or a command's ``--allow-impossible`` relax them.  A relaxed problem is
still reported, marked ``relaxed``, so that what was let through is shown;
:func:`check_position` raises :class:`ImpossiblePositionError` for the others.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .board import Board
from .generators import PatternGenerator
from .position import PositionError, parse_position
from .rules import Ruleset, drop_region
from .squares import STRIDE, square_file, square_name, square_rank
from .variant import POSITION_RULES

__all__ = ["PositionProblem", "position_problems", "check_position", "ImpossiblePositionError", "relaxed_rules",
           "POSITION_RULES"]

SIDES = ("Sente", "Gote")


@dataclass
class PositionProblem:
    """One reason a position is impossible: ``kind`` (see the module docstring), a sentence, and
    the squares it concerns (by name)."""

    kind: str
    message: str
    squares: list = field(default_factory=list)
    relaxed: bool = False  # the rule is relaxed for this position (a composition): shown, not refused

    def as_dict(self) -> dict:
        return {"kind": self.kind, "message": self.message, "squares": list(self.squares), "relaxed": self.relaxed}

    def __str__(self) -> str:
        return f"{self.kind}: {self.message}" + (" (allowed)" if self.relaxed else "")


class ImpossiblePositionError(PositionError):
    """A position that breaks a rule of its variant that is not relaxed; ``problems`` holds every
    problem found (:class:`PositionProblem`), the relaxed ones marked."""

    def __init__(self, problems: list[PositionProblem]):
        self.problems = problems
        refused = [p for p in problems if not p.relaxed]
        super().__init__("impossible position: " + "; ".join(str(p) for p in refused))


def relaxed_rules(rules: Ruleset, allow=None) -> frozenset:
    """The position rules relaxed for ``rules``: the variant file's ``allow_impossible`` and
    ``allow`` (True: all of them; else names of :data:`POSITION_RULES`)."""
    out = set()
    for given in (rules.rules.get("allow_impossible", []), allow):
        if given is True:
            return frozenset(POSITION_RULES)
        if given:
            unknown = set(given) - set(POSITION_RULES)
            if unknown:
                raise ValueError(f"unknown position rule {sorted(unknown)[0]!r}: expected one of "
                                 f"{', '.join(POSITION_RULES)}")
            out.update(given)
    return frozenset(out)


def check_position(rules: Ruleset, text: str, allow=None) -> list[PositionProblem]:
    """Raise :class:`ImpossiblePositionError` (a :class:`PositionError`, whose message names each
    rule broken) when ``text`` is not a possible position of ``rules``; else return the problems
    that were relaxed (``allow`` as for :func:`relaxed_rules`), to be shown.

    >>> from daikifu.replay import compile_rules, load_variant
    >>> check_position(compile_rules(load_variant("shogi")), "4k4/9/9/9/9/9/9/9/4K4 b 19P 1")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    daikifu.replay.legality.ImpossiblePositionError: impossible position: piece-count: 19 Pawns (P), ...
    """
    problems = position_problems(rules, text, allow)
    if any(not p.relaxed for p in problems):
        raise ImpossiblePositionError(problems)
    return problems


def position_problems(rules: Ruleset, text: str, allow=None) -> list[PositionProblem]:
    """Everything that makes ``text`` impossible as a position of ``rules`` (empty: possible);
    the problems of the rules relaxed (see :func:`relaxed_rules`) are marked ``relaxed``."""
    relaxed = relaxed_rules(rules, allow)
    out = _problems(rules, text)
    for p in out:
        p.relaxed = p.kind in relaxed
    return out


def _problems(rules: Ruleset, text: str) -> list[PositionProblem]:
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
    out.extend(_hand_pieces(rules, parsed))
    out.extend(_piece_counts(rules, parsed))
    out.extend(_region_caps(rules, parsed))
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


def _hand_pieces(rules: Ruleset, parsed) -> list[PositionProblem]:
    """Pieces in hand that no capture puts there: promoted or royal ones."""
    out = []
    for colour in (0, 1):
        for t, n in enumerate(parsed.hands[colour]):
            if n and t not in rules.droppable:
                pid = rules.types[t - 1].id
                why = "a captured piece returns to the hand unpromoted" if t in rules.promoted_types else \
                    "it cannot be dropped"
                out.append(PositionProblem("hand-piece", f"{SIDES[colour]} holds {pid} in hand: {why}"))
    return out


def _origins(rules: Ruleset) -> dict:
    """Type index -> the types of the start position a piece of that type may have been: itself
    and every type that promotes to it, step by step."""
    promoted_from: dict = {}
    for p in rules.types:
        target = rules.promote[p.index * 2] >> 1
        if target:
            promoted_from.setdefault(target, set()).add(p.index)
    found = {}
    for p in rules.types:
        seen, todo = {p.index}, [p.index]
        while todo:
            for b in promoted_from.get(todo.pop(), ()):
                if b not in seen:
                    seen.add(b)
                    todo.append(b)
        found[p.index] = frozenset(seen)
    return found


def _piece_counts(rules: Ruleset, parsed) -> list[PositionProblem]:
    """More pieces than the start position has: each piece must be one of the start position's
    pieces of a type it may have been (its own, or one that promotes to it), each used once."""
    start = rules.parsed_start()
    groups = [(0, 1)] if rules.drops else [(0,), (1,)]  # with drops a captured piece changes sides
    out = []
    for colours in groups:
        supply: dict = {}
        for t, c in start.pieces.values():
            if c in colours:
                supply[t] = supply.get(t, 0) + 1
        for c in colours:
            for t, n in enumerate(start.hands[c]):
                if n:
                    supply[t] = supply.get(t, 0) + n
        demand: dict = {}
        squares: dict = {}
        for sq, (t, c) in parsed.pieces.items():
            if c in colours:
                demand[t] = demand.get(t, 0) + 1
                squares.setdefault(t, []).append(sq)
        for c in colours:
            for t, n in enumerate(parsed.hands[c]):
                if n:
                    demand[t] = demand.get(t, 0) + n
        origins = _origins(rules)
        owner = "" if len(colours) == 2 else f"{SIDES[colours[0]]} has "
        # each group of types that may have been the same start pieces (a Rook and a Dragon King,
        # its promotion) is matched on its own: the groups share no start piece
        for family in _families(demand, origins):
            have = sum(demand.get(t, 0) for t in family)
            if _matched({t: demand[t] for t in family}, supply, origins) == have:
                continue
            can = sum(supply.get(b, 0) for b in set().union(*(origins[t] for t in family)))
            # name the types that are over the start pieces they alone may have been, if any
            over = {t for t in family if demand[t] > sum(supply.get(b, 0) for b in origins[t])}
            if have <= can and over:
                family = over
                have = sum(demand[t] for t in family)
                can = sum(supply.get(b, 0) for b in set().union(*(origins[t] for t in family)))
            ids = ", ".join(rules.types[t - 1].id for t in sorted(family))
            name = rules.types[min(family, key=lambda t: (t in rules.promoted_types, t)) - 1].name
            where = "on the board and in hand" if rules.drops else "on the board"
            sqs = sorted(sq for t in family for sq in squares.get(t, ()))
            out.append(PositionProblem("piece-count", f"{owner}{have} {name}s ({ids}), {where}: the game has {can}",
                                       [square_name(sq) for sq in sqs]))
    return out


def _families(demand: dict, origins: dict) -> list:
    """The types present grouped by shared start types (a Rook and a Dragon King, its promotion)."""
    groups: list = []
    for t in demand:
        mine = {t}
        base = set(origins[t])
        for g in [g for g in groups if g[1] & base]:
            groups.remove(g)
            mine |= g[0]
            base |= g[1]
        groups.append((mine, base))
    return [g[0] for g in groups]


def _matched(demand: dict, supply: dict, origins: dict) -> int:
    """How many of the pieces ``demand`` (type -> count) can be given start pieces of ``supply``
    (type -> count), a piece of type t one of a type in ``origins[t]``: a maximum flow, by
    augmenting paths over the types."""
    left = dict(supply)
    used: dict = {}  # (piece type, start type) -> pieces of that type given start pieces of that one
    total = 0
    for t, n in demand.items():
        for _ in range(n):
            if not _augment(t, origins, left, used, set()):
                break
            total += 1
    return total


def _augment(t: int, origins: dict, left: dict, used: dict, seen: set) -> bool:
    for b in origins[t]:
        if b in seen:
            continue
        seen.add(b)
        if left.get(b, 0) > 0:
            left[b] -= 1
            used[(t, b)] = used.get((t, b), 0) + 1
            return True
        # start type b is used up: move one of the pieces that took it to another start type
        for (u, b2), k in list(used.items()):
            if b2 == b and k and _augment(u, origins, left, used, seen):
                used[(u, b)] -= 1
                used[(t, b)] = used.get((t, b), 0) + 1
                return True
    return False


def _region_caps(rules: Ruleset, parsed) -> list[PositionProblem]:
    """Drop caps that every position reached by play keeps: those whose pieces never leave their
    region by a move (only a drop, which the cap forbids, adds one there) and that the start
    position keeps."""
    r = rules.rules
    caps = [("nifu", [pid], "file", 1) for pid in r.get("drop_nifu", [])]
    caps += [("drop-cap", list(c["pieces"]), c["per"], c["max"]) for c in r.get("drop_caps", [])]
    out = []
    start = rules.parsed_start()
    for kind, ids, per, most in caps:
        types = {rules.type_by_id[pid].index for pid in ids}
        if not all(_stays_in_region(rules, t * 2 + c, per) for t in types for c in (0, 1)):
            continue
        if _over_cap(start, types, per, most):
            continue  # the start position itself has more
        for (colour, _region), sqs in sorted(_over_cap(parsed, types, per, most).items()):
            names = ", ".join(square_name(sq) for sq in sorted(sqs))
            what = "/".join(ids)
            if kind == "nifu":
                text = (f"{SIDES[colour]} has {len(sqs)} unpromoted {what} on file {square_name(sqs[0])[0]} ({names}): "
                        f"nifu, and a {what} never leaves its file")
            else:
                text = (f"{SIDES[colour]} has {len(sqs)} of {what} in one {per} region ({names}): a drop cap "
                        f"allows {most}, and those pieces never leave their region")
            out.append(PositionProblem(kind, text, [square_name(sq) for sq in sorted(sqs)]))
    return out


def _over_cap(parsed, types: set, per: str, most: int) -> dict:
    regions: dict = {}
    for sq, (t, c) in parsed.pieces.items():
        if t in types:
            regions.setdefault((c, drop_region(per, sq)), []).append(sq)
    return {key: sqs for key, sqs in regions.items() if len(sqs) > most}


def _stays_in_region(rules: Ruleset, code: int, per: str) -> bool:
    """Whether no move of the piece ``code`` ever takes it to another region of kind ``per``
    (worked out from its steps; a move that needs the general interpreter counts as leaving)."""
    if per == "board":
        return True
    indices = {code} if rules.zoned[code] is None else set(rules.zoned[code])
    steps = []
    for idx in indices:
        steps += [off for off, _ in rules.leaps[idx]] + [off for off, _ in rules.rays[idx]]
        for g in rules.complex[idx]:
            if not isinstance(g, PatternGenerator) or g.pattern.is_multi_leg or g.pattern.is_hopper:
                return False
            steps += [dx + dy * STRIDE for dx, dy in g.first]
    for off in steps:
        dx = (off + STRIDE // 2) % STRIDE - STRIDE // 2
        dy = (off - dx) // STRIDE
        if (per == "file" and dx) or (per == "file-parity" and dx % 2) or (per == "square-colour" and (dx + dy) % 2):
            return False
    return True
