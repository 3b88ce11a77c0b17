"""Helpers for the XBetza tests: one piece on h8 of an otherwise (nearly) empty 15x15 board.

The reference notes (docs/rules/xbetza.md) describe every move as an offset ``(dx, dy)``
from the moving piece, for the first player moving up the board.  These helpers build a throw-away
variant holding the piece under test, put it on h8 (the centre of a 15x15 board, so rays reach 7
squares in every direction, as in the notes' tables), optionally add blockers at given offsets,
and read the generated moves back as *effects* in the same offset language::

    ((dx, dy), kills)      kills = offsets of the squares captured on the way, in path order,
                           not counting a capture on the destination (the engine's ``Move.kills``)

A null move (pass) is ``PASS = ((0, 0), ())``; igui (capture without moving) is ``((0, 0), (victim,))``.
"""

from __future__ import annotations

from pathlib import Path

from daikifu.replay.board import Board
from daikifu.replay.squares import square, square_file, square_rank
from daikifu.replay.variant import variant_from_dict

SIZE = 15
CENTRE = (7, 7)  # h8: file h = index 7, rank 8 = index 7
PASS = ((0, 0), ())

TEST_ID = "X"  # the piece under test, unless a test gives its own ID
BLOCKER_ID = "O"  # a plain piece used as an own or enemy blocker (its own moves are ignored)
KING_ID = "K"  # the royal piece every playable variant needs; it is never put on the board

REFERENCE = Path(__file__).resolve().parents[1] / "docs" / "rules" / "xbetza.md"


# --- building boards ---------------------------------------------------------------------------


def piece_token(pid: str, second_player: bool) -> str:
    """How a piece is written in a position string: bare for ``P`` or ``+P``, else ``(ID)``."""
    bare = len(pid) == 1 or (len(pid) == 2 and pid[0] == "+")
    text = pid if bare else f"({pid})"
    return text.lower() if second_player else text


def make_variant(betza: str, pid: str = TEST_ID):
    """A 15x15 variant with the piece under test, a blocker piece and an (unplaced) royal king."""
    pieces = [{"id": pid, "name": "piece under test", "betza": betza}]
    if pid == KING_ID:
        pieces[0]["royal"] = True  # the king row of Appendix A: the piece under test is the king
    else:
        pieces.append({"id": KING_ID, "name": "King", "betza": "K", "royal": True})
    if pid != BLOCKER_ID:
        pieces.append({"id": BLOCKER_ID, "name": "blocker", "betza": "W"})
    return variant_from_dict({
        "slug": "xbetza-test",
        "name": "XBetza test board",
        "files": SIZE,
        "ranks": SIZE,
        "start": "/".join([str(SIZE)] * SIZE) + " b - 1",
        "pieces": pieces,
    })


def position_string(cells: dict, second_player_to_move: bool) -> str:
    """A position string from ``{(file, rank): token}`` (files and ranks counted from 0)."""
    rows = []
    for rank in range(SIZE - 1, -1, -1):  # the top rank is written first
        row, empty = "", 0
        for f in range(SIZE):
            token = cells.get((f, rank))
            if token is None:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            row += token
        if empty:
            row += str(empty)
        rows.append(row)
    return "/".join(rows) + (" w" if second_player_to_move else " b") + " - 1"


def setup(betza: str, *, second_player: bool = False, own=(), enemy=(), pid: str = TEST_ID):
    """A board with the piece on h8 for the player to move, and blockers at offsets from it.

    ``own`` and ``enemy`` are offsets *as seen by the mover*: for the second player they are rotated
    by 180 degrees before they are put on the board, so the same setup can be used for both players.
    """
    sign = -1 if second_player else 1
    cells = {CENTRE: piece_token(pid, second_player)}
    for offsets, enemy_side in ((own, False), (enemy, True)):
        for dx, dy in offsets:
            sq = (CENTRE[0] + sign * dx, CENTRE[1] + sign * dy)
            assert sq not in cells and 0 <= sq[0] < SIZE and 0 <= sq[1] < SIZE, sq
            cells[sq] = piece_token(BLOCKER_ID, second_player != enemy_side)
    return Board(make_variant(betza, pid), position_string(cells, second_player))


def raw_effects(board: Board, second_player: bool = False, legal: bool = True) -> list:
    """Effects of the moves of the piece on h8, as a list (duplicates kept), in the mover's frame."""
    sign = -1 if second_player else 1
    origin = square(*CENTRE)

    def rel(sq):
        return (sign * (square_file(sq) - CENTRE[0]), sign * (square_rank(sq) - CENTRE[1]))

    moves = board.legal_moves() if legal else board.pseudo_legal_moves()
    return [(rel(m.to_square), tuple(rel(k) for k in m.kills)) for m in moves if m.from_square == origin]


def effects(betza: str, *, second_player: bool = False, own=(), enemy=(), pid: str = TEST_ID) -> set:
    """The set of effects of ``betza`` on h8, in the mover's own frame (see :func:`setup`)."""
    board = setup(betza, second_player=second_player, own=own, enemy=enemy, pid=pid)
    return set(raw_effects(board, second_player))


def absolute_effects(betza: str, *, second_player: bool = False, pid: str = TEST_ID) -> set:
    """Effects on an empty board in *board* offsets (not rotated for the second player)."""
    board = setup(betza, second_player=second_player, pid=pid)
    sign = -1 if second_player else 1
    return {((sign * dx, sign * dy), tuple((sign * a, sign * b) for a, b in kills))
            for (dx, dy), kills in raw_effects(board, second_player)}


# --- building expected values ------------------------------------------------------------------


def ray(dx: int, dy: int, n: int = 7) -> set:
    """The offsets of a slide in one direction, up to ``n`` steps (7 = the edge from h8)."""
    return {(dx * k, dy * k) for k in range(1, n + 1)}


def plain(*offset_sets) -> set:
    """Effects of ordinary moves (no kills on the way) to every offset given."""
    out = set()
    for offsets in offset_sets:
        out |= {((dx, dy), ()) for dx, dy in offsets}
    return out


def rotated(effect_set: set) -> set:
    """The same effects turned by 180 degrees (first player's view -> second player's board)."""
    return {((-dx, -dy), tuple((-a, -b) for a, b in kills)) for (dx, dy), kills in effect_set}


def describe(actual: set, expected: set) -> str:
    """A readable difference for assertion messages."""
    missing = sorted(expected - actual)
    extra = sorted(actual - expected)
    return f"missing {missing}; unexpected {extra}"
