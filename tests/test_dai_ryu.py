"""Dai-Ryu Shogi: zone-dependent moves, promotion in zone 4, drops (pawns without nifu), setup.

Expectations come from the rules dossier (docs/rules/variants.md §4) and the Dai-Ryu page
(tests/data/seeds/002_...): a 9x16 board in four zones of four ranks counted from each player's own
side; a piece moves with the powers of the zone it moves from (zone 2 adds to zone 1, zone 3 to
zone 2); reconstruction (§4.5): zone 4 = promotion zone, where unpromoted pieces use their zone-3
moves; promoted pieces = zone-3 moves everywhere; drops anywhere, pawns even on a file with a pawn;
no pawn-drop mate.  Setup §4.3, the second army rotated 180 degrees.
"""

from __future__ import annotations

import pytest

from daikifu.replay import FIRST, SECOND, Board, Move, load_variant
from daikifu.replay.squares import parse_square, square, square_name
from daikifu.replay.perft import divide as perft_divide, perft

from position_support import legal, position_text

VARIANT = load_variant("dai-ryu-shogi")
FILES, RANKS = 9, 16
LETTERS = "abcdefghi"


# --- helpers -------------------------------------------------------------------------------------


def sq(name: str) -> int:
    return parse_square(name, FILES, RANKS)


def position(pieces: dict, turn: str = "b", hands: str = "-") -> str:
    """A position string from {"e5": "R", "e12": "r", "e2": "+R"} (upper case = first player)."""
    return position_text(pieces, FILES, RANKS, turn, hands)


def board(pieces: dict, turn: str = "b", hands: str = "-", **options) -> Board:
    return Board(VARIANT, position(pieces, turn, hands), options=options or None)


def destinations(b: Board, origin: str) -> set:
    """Names of the squares the piece on ``origin`` can legally move to."""
    return {square_name(m.to_square) for m in b.legal_moves() if m.from_square == sq(origin)}


def reach(pieces: dict, origin: str, turn: str = "b") -> set:
    """Where the piece on ``origin`` can move in the position made of ``pieces``."""
    return destinations(board(pieces, turn), origin)


def step(origin: str, *offsets) -> set:
    """Squares one leap away from ``origin`` by each (dx, dy) offset, on the board only."""
    f, r = LETTERS.index(origin[0]), int(origin[1:]) - 1
    return {f"{LETTERS[f + dx]}{r + dy + 1}" for dx, dy in offsets
            if 0 <= f + dx < FILES and 0 <= r + dy < RANKS}


def slide(origin: str, *directions, blocked: set = frozenset()) -> set:
    """Squares reached by sliding from ``origin`` along each direction until the edge (or a
    square in ``blocked``, which is included: a capture)."""
    f0, r0 = LETTERS.index(origin[0]), int(origin[1:]) - 1
    out = set()
    for dx, dy in directions:
        f, r = f0 + dx, r0 + dy
        while 0 <= f < FILES and 0 <= r < RANKS:
            out.add(f"{LETTERS[f]}{r + 1}")
            if f"{LETTERS[f]}{r + 1}" in blocked:
                break
            f, r = f + dx, r + dy
    return out


ORTH = ((0, 1), (1, 0), (0, -1), (-1, 0))
DIAG = ((1, 1), (1, -1), (-1, -1), (-1, 1))
KING_STEPS = ORTH + DIAG
# Kings in corners, out of the way of the pieces under test (first player a1, second player i16).
KINGS = {"a1": "K", "i16": "k"}


def move(text: str, promotion=None) -> Move:
    a, b = text.split("-")
    return Move(sq(a), sq(b), (), promotion)


def drop(piece: str, to: str) -> Move:
    return Move(None, sq(to), (), None, piece)


# --- setup ---------------------------------------------------------------------------------------


def test_board_and_zones():
    b = Board(VARIANT)
    assert (b.rules.files, b.rules.ranks) == (9, 16)
    assert b.rules.rules["zones"] == [4, 4, 4, 4]
    assert b.rules.rules["promotion_zone"] == 4


@pytest.mark.parametrize("knights", ["adjacent", "shogi-files"])
def test_start_position_is_rotation_symmetric(knights):
    b = Board(VARIANT, options={"knights": knights})
    pieces = b.pieces()
    assert len(b.pieces(FIRST)) == len(b.pieces(SECOND)) == 30  # "30 pieces, including their King"
    for s, p in pieces.items():
        f, r = LETTERS.index(square_name(s)[0]), int(square_name(s)[1:]) - 1
        other = b.piece_at(square(FILES - 1 - f, RANKS - 1 - r))
        assert other is not None and other.id == p.id and other.colour != p.colour, square_name(s)


def test_start_position_rows_as_the_page_lists_them():
    b = Board(VARIANT)

    def row(rank):
        return [getattr(b.piece_at(sq(f"{f}{rank}")), "id", ".") for f in LETTERS]

    assert row(1) == ["C", "S", "G", "PT", "K", "PT", "G", "S", "C"]
    assert row(2) == ["L", "B", "R", "LW", "CW", "RW", "B", "R", "L"]
    assert row(3) == [".", ".", ".", "N", "RVW", "N", ".", ".", "."]  # knights flank the RVW
    assert row(4) == ["P"] * 9
    # the second player's army reads left to right from its own side: rotated, not mirrored
    assert row(15) == ["L", "R", "B", "RW", "CW", "LW", "R", "B", "L"]
    assert all(b.piece_at(sq(f"{f}{r}")) is None for f in LETTERS for r in range(5, 13))
    assert b.royal_square(FIRST) == sq("e1") and b.royal_square(SECOND) == sq("e16")


def test_knights_on_the_shogi_files_option():
    b = Board(VARIANT, options={"knights": "shogi-files"})
    assert b.piece_at(sq("b3")).id == b.piece_at(sq("h3")).id == "N"
    assert b.piece_at(sq("e3")).id == "RVW"
    assert b.piece_at(sq("d3")) is None and b.piece_at(sq("f3")) is None
    assert b.piece_at(sq("b14")).id == "N" and b.piece_at(sq("h14")).id == "N"


def test_start_moves_counted_by_hand():
    # Every piece stands in zone 1.  Pawns: 9 single steps.  Knights d3/f3 (ffN): c5 e5 / e5 g5.
    # Lances a2/i2: one square each (a3, i3) before their own pawns.  Bishop b2 (F): a3, c3;
    # g2: h3 (f3 holds a Knight).  Rooks c2 (W): c3; h2: h3.  Everything else is boxed in.
    assert len(Board(VARIANT).legal_moves()) == 9 + 4 + 2 + 3 + 2 == 20
    # Knights b3/h3: a5 c5 / g5 i5.  RVW e3 steps sideways (d3, f3).  LW d2: d3; CW e2: d3, f3;
    # RW f2: f3.  Bishop b2: a3 c3; g2: f3 (h3 holds a Knight).  Rook c2: c3; h2 boxed in.
    shogi_files = Board(VARIANT, options={"knights": "shogi-files"})
    assert len(shogi_files.legal_moves()) == 9 + 4 + 2 + 3 + (2 + 1 + 2 + 1) + 1 == 25


def test_no_square_is_dead_for_any_piece():
    """Reconstruction §4.5 item 2: zone-4 moves = zone-3 moves, so no piece is ever immobile."""
    rules = Board(VARIANT).rules
    assert all(not dead for dead in rules.dead)


# --- zone-dependent moves ------------------------------------------------------------------------


def test_first_player_rook_steps_in_zone_1_and_slides_from_zone_2():
    assert reach({**KINGS, "e4": "R"}, "e4") == step("e4", *ORTH)
    assert reach({**KINGS, "e5": "R"}, "e5") == slide("e5", *ORTH)
    assert reach({**KINGS, "e9": "R"}, "e9") == slide("e9", *ORTH) | step("e9", *DIAG)


def test_second_player_rook_steps_in_its_zone_1_and_slides_from_its_zone_2():
    assert reach({**KINGS, "e13": "r"}, "e13", turn="w") == step("e13", *ORTH)
    assert reach({**KINGS, "e12": "r"}, "e12", turn="w") == slide("e12", *ORTH)
    # its zone 3 is ranks 5-8: the Rook adds diagonal steps
    assert reach({**KINGS, "e8": "r"}, "e8", turn="w") == slide("e8", *ORTH) | step("e8", *DIAG)
    # rank 8 is zone 2 for the first player: no diagonal steps there
    assert reach({**KINGS, "e8": "R"}, "e8") == slide("e8", *ORTH)


def test_moves_change_when_the_piece_crosses_into_the_next_zone():
    b = board({**KINGS, "e4": "R", "e13": "r"})
    assert sq("e7") not in {m.to_square for m in b.legal_moves() if m.from_square == sq("e4")}
    b.play(move("e4-e5"))  # first player's Rook into zone 2
    assert destinations(b, "e13") == step("e13", *ORTH)  # second player's Rook still in its zone 1
    b.play(move("e13-e12"))  # second player's Rook into its zone 2
    assert destinations(b, "e5") == slide("e5", *ORTH, blocked={"e12"})
    b.play(move("a1-b1"))
    assert destinations(b, "e12") == slide("e12", *ORTH, blocked={"e5"})


@pytest.mark.parametrize("piece, origin, expected_offsets", [
    # Pawn: fW / fWfF / WfF (a first-zone Gold)
    ("P", "e3", [(0, 1)]),
    ("P", "e6", [(0, 1), (1, 1), (-1, 1)]),
    ("P", "e10", [(0, 1), (1, 1), (-1, 1), (1, 0), (-1, 0), (0, -1)]),
    # Knight: ffN / ffN + bbN / all eight
    ("N", "e3", [(1, 2), (-1, 2)]),
    ("N", "e6", [(1, 2), (-1, 2), (1, -2), (-1, -2)]),
    ("N", "e10", [(1, 2), (-1, 2), (1, -2), (-1, -2), (2, 1), (-2, 1), (2, -1), (-2, -1)]),
    # Bishop zone 1: one diagonal step
    ("B", "e3", list(DIAG)),
    # Left Warrior zone 1: straight forward and back, straight left, both right diagonals
    ("LW", "e3", [(0, 1), (0, -1), (-1, 0), (1, 1), (1, -1)]),
    ("RW", "e3", [(0, 1), (0, -1), (1, 0), (-1, 1), (-1, -1)]),
    ("CW", "e3", [(1, 1), (-1, 1), (1, 0), (-1, 0), (0, -1)]),
    ("RVW", "e3", [(0, 1), (1, 0), (-1, 0), (1, -1), (-1, -1)]),
    ("C", "e3", [(0, 1), (0, -1), (1, 1), (-1, 1)]),
    ("S", "e3", [(0, 1)] + list(DIAG)),
    ("G", "e3", list(ORTH) + [(1, 1), (-1, 1)]),
    ("PT", "e3", [(0, 1), (1, 0), (-1, 0)] + list(DIAG)),
])
def test_step_moves_by_zone(piece, origin, expected_offsets):
    for colour in (FIRST, SECOND):
        if colour == FIRST:
            b = board({**KINGS, origin: piece})
            where, offsets = origin, expected_offsets
        else:  # the same piece of the second player on the rotated square, moving down the board
            f, r = LETTERS.index(origin[0]), int(origin[1:])
            where = f"{LETTERS[FILES - 1 - f]}{RANKS + 1 - r}"
            b = board({**KINGS, where: piece.lower()}, turn="w")
            offsets = [(-dx, -dy) for dx, dy in expected_offsets]
        assert destinations(b, where) == step(where, *offsets), (piece, where)


def test_zone_2_warriors_and_generals_slide():
    assert reach({**KINGS, "e6": "LW"}, "e6") == slide("e6", (0, 1), (0, -1), (-1, 0), (1, 1), (1, -1))
    assert reach({**KINGS, "e6": "G"}, "e6") == slide("e6", *ORTH, (1, 1), (-1, 1))
    assert reach({**KINGS, "e6": "L"}, "e6") == slide("e6", (0, 1), (1, 1), (-1, 1))
    # zone 3: the Lance adds one step in every other direction
    assert reach({**KINGS, "e10": "L"}, "e10") == (
        slide("e10", (0, 1), (1, 1), (-1, 1)) | step("e10", *KING_STEPS))


def test_unpromoted_piece_in_zone_4_moves_as_in_zone_3():
    """Reconstruction §4.5 item 2 (a piece that declined promotion, or was dropped there)."""
    assert reach({**KINGS, "e14": "R"}, "e14") == slide("e14", *ORTH) | step("e14", *DIAG)
    assert reach({**KINGS, "e14": "P"}, "e14") == step("e14", *ORTH, (1, 1), (-1, 1))
    assert reach({**KINGS, "e3": "r"}, "e3", turn="w") == slide("e3", *ORTH) | step("e3", *DIAG)


@pytest.mark.parametrize("origin", ["e2", "e6", "e10", "e14"])
def test_promoted_pieces_keep_zone_3_powers_everywhere(origin):
    assert reach({**KINGS, origin: "+R"}, origin) == slide(origin, *ORTH) | step(origin, *DIAG)
    assert reach({**KINGS, origin: "+P"}, origin) == step(origin, *ORTH, (1, 1), (-1, 1))
    assert reach({**KINGS, origin: "+N"}, origin) == step(
        origin, (1, 2), (-1, 2), (1, -2), (-1, -2), (2, 1), (-2, 1), (2, -1), (-2, -1))
    # the second player's promoted piece, on the mirrored ranks
    mirrored = f"e{RANKS + 1 - int(origin[1:])}"
    assert reach({**KINGS, mirrored: "+b"}, mirrored, turn="w") == (
        slide(mirrored, *DIAG) | step(mirrored, *ORTH))


# --- promotion -----------------------------------------------------------------------------------


def test_promotion_is_optional_on_entering_zone_4():
    b = board({**KINGS, "e12": "R"})
    assert legal(b, move("e12-e13", True))
    assert legal(b, move("e12-e13", False))
    assert not legal(b, move("e12-e13", None))  # the choice must be made
    assert not legal(board({**KINGS, "e11": "R"}), move("e11-e12", True))  # zone 3: no promotion


def test_promotion_is_optional_within_and_on_leaving_zone_4():
    b = board({**KINGS, "e14": "S"})
    assert legal(b, move("e14-e15", True)) and legal(b, move("e14-e15", False))
    assert legal(b, move("e14-d13", True)) and legal(b, move("e14-d13", False))
    b = board({**KINGS, "e13": "G"})
    assert legal(b, move("e13-e12", True)) and legal(b, move("e13-e12", False))


def test_promotion_is_never_compulsory():
    # a Pawn or Lance reaching the last rank still has zone-3 moves (sideways, back)
    assert legal(board({**KINGS, "e15": "P"}), move("e15-e16", False))
    # (the second king on c16 stays out of the zone-3 Lance's forward diagonals)
    assert legal(board({"a1": "K", "c16": "k", "e12": "L"}), move("e12-e16", False))
    assert legal(board({**KINGS, "e14": "N"}), move("e14-d16", False))


def test_second_player_promotes_in_ranks_1_to_4():
    b = board({**KINGS, "e5": "p"}, turn="w")
    assert legal(b, move("e5-e4", True)) and legal(b, move("e5-e4", False))
    b.play(move("e5-e4", True))
    assert b.piece_at(sq("e4")).id == "+P"


def test_promoted_piece_is_captured_into_hand_unpromoted():
    b = board({**KINGS, "e6": "R", "e10": "+r"})
    assert not legal(b, move("e6-e10", True))  # zone 2 to zone 3: no promotion
    b.play(move("e6-e10"))
    assert b.hand(FIRST) == {"R": 1}


# --- drops ---------------------------------------------------------------------------------------


def test_pawn_may_be_dropped_on_a_file_that_already_holds_a_pawn():
    b = board({**KINGS, "e4": "P", "e6": "P"}, hands="P")
    assert legal(b, drop("P", "e8"))
    # every empty square is a legal pawn drop (no nifu, no dead squares, no check involved)
    empty = {f"{f}{r}" for f in LETTERS for r in range(1, RANKS + 1)} - {"a1", "i16", "e4", "e6"}
    assert {square_name(m.to_square) for m in b.legal_moves() if m.drop == "P"} == empty


def test_any_piece_may_be_dropped_on_the_last_ranks():
    b = board({**KINGS}, hands="PNL")
    for piece in "PNL":
        assert legal(b, drop(piece, "e16"))
        assert legal(b, drop(piece, "e15"))


# Second player's King in the corner a16.  A first-player Pawn dropped on a15 stands in zone 4, so
# it moves like a Gold: it attacks a16 (straight forward), b16 (diagonally forward) and b15
# (sideways).  The Tokin on a14 guards it.
MATE_NET = {"i1": "K", "a16": "k", "a14": "+P"}


def test_pawn_drop_mate_is_illegal():
    b = board(MATE_NET, hands="PG")
    reason = b.illegal_reason(drop("P", "a15"))
    assert reason is not None and "checkmate" in reason
    assert drop("P", "a15") not in b.legal_moves()


def test_mate_by_dropping_another_piece_is_legal():
    b = board(MATE_NET, hands="PG")
    assert legal(b, drop("G", "a15"))
    b.play(drop("G", "a15"))
    assert b.is_checkmate()


def test_pawn_drop_check_that_is_not_mate_is_legal():
    b = board({"i1": "K", "a16": "k"}, hands="P")  # nothing guards a15: the King takes the Pawn
    assert legal(b, drop("P", "a15"))
    b.play(drop("P", "a15"))
    assert b.is_check() and not b.is_checkmate()


# --- perft ---------------------------------------------------------------------------------------



def second_player_first(b: Board) -> Board:
    """The start position with the second player to move.  The start is symmetric under a
    180-degree rotation with the colours swapped, so every count must match the first player's."""
    board_part, _, hands, number = b.position().split()
    return Board(b.rules, f"{board_part} w {hands} {number}")


def divide(b: Board, depth: int) -> dict:
    return {m.uci(): n for m, n in perft_divide(b, depth).items()}


@pytest.mark.parametrize("knights, first_moves", [("adjacent", 20), ("shogi-files", 25)])
def test_perft_2_from_the_start(knights, first_moves):
    b = Board(VARIANT, options={"knights": knights})
    split = divide(b, 2)
    # the camps are 8 ranks apart: no first move changes what the second player can do
    assert set(split.values()) == {first_moves}
    assert perft(b, 2) == sum(split.values()) == first_moves ** 2
    assert b.position() == Board(VARIANT, options={"knights": knights}).position()
    assert perft(second_player_first(b), 2) == first_moves ** 2


@pytest.mark.slow
@pytest.mark.parametrize("knights", ["adjacent", "shogi-files"])
def test_perft_3_from_the_start(knights):
    b = Board(VARIANT, options={"knights": knights})
    split = divide(b, 3)
    assert perft(b, 3) == sum(split.values())
    assert len(split) == len(b.legal_moves())
    assert perft(second_player_first(b), 3) == sum(split.values())
