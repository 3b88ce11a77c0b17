"""Dai Mitregi: drop caps, Leaping and Stepping, compulsory promotion, the promoting King, options.

Expectations come from the rules dossier (docs/rules/variants.md §5) and the Dai Mitregi page
(tests/data/seeds/003_...):

* caps on the player's own unpromoted pieces: 2 Wazchicks and 2 Wings per file, 2 Goldmemsahibs
  per group of alternate files, 16 Fearlesses and 2 each of Bishop, Mitre, Camel, Hump, Goldboar
  and Silversahib per square colour; promoted pieces do not count;
* Leaping: two-cell moves jump; Stepping: they are blocked by a piece on the cell in between;
* promotion in the four ranks of the enemy camp, compulsory where the piece would have no move
  (Wazchick, Fearless, Wing, Mitre: last rank; Helm: last 2; Hump: last 3), and no drops there;
* the King promotes to the Grandpasha (KAD Leaping, K2 Stepping), which is royal;
* the reconstructed 16x12 array (§5.4), 16 ranks as an option; stalemate is a draw.
"""

from __future__ import annotations

from collections import Counter

import pytest

from daikifu.replay import FIRST, SECOND, Board, Move, load_variant
from daikifu.replay.squares import parse_square, square, square_file, square_name, square_rank
from daikifu.replay.perft import divide as perft_divide, perft

from position_support import legal, position_text

VARIANT = load_variant("dai-mitregi")
FILES = 16
LETTERS = "abcdefghijklmnop"
STEPPING = {"movement": "stepping"}


# --- helpers -------------------------------------------------------------------------------------


def sq(name: str) -> int:
    return parse_square(name)


def position(pieces: dict, turn: str = "b", hands: str = "-", ranks: int = 12) -> str:
    """A position string from {"e5": "WZ", "e12": "wz", "e2": "+WZ"} (upper case = first player)."""
    return position_text(pieces, FILES, ranks, turn, hands)


def board(pieces: dict, turn: str = "b", hands: str = "-", **options) -> Board:
    ranks = int(options.get("ranks", 12))
    return Board(VARIANT, position(pieces, turn, hands, ranks), options=options or None)


def move(text: str, promotion=None) -> Move:
    a, b = text.split("-")
    return Move(sq(a), sq(b), (), promotion)


def drop(piece: str, to: str) -> Move:
    return Move(None, sq(to), (), None, piece)


def destinations(b: Board, origin: str) -> set:
    return {square_name(m.to_square) for m in b.legal_moves() if m.from_square == sq(origin)}


def colour(name: str) -> int:
    """Square colour: a1 is colour 0."""
    s = sq(name)
    return (square_file(s) + square_rank(s)) % 2


# Kings tucked away in the corners; they are on no file or colour used by the cap tests below
# unless a test says so (a1 is colour 0, p12 is colour 1).
KINGS = {"a1": "K", "p12": "k"}


# --- setup ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("options", [{}, {"ranks": "16"}, STEPPING, {"ranks": "16", **STEPPING}])
def test_start_position_is_rotation_symmetric_with_60_pieces_a_side(options):
    b = Board(VARIANT, options=options)
    ranks = int(options.get("ranks", 12))
    assert (b.rules.files, b.rules.ranks) == (16, ranks)
    assert len(b.pieces(FIRST)) == len(b.pieces(SECOND)) == 60
    for s, p in b.pieces().items():
        other = b.piece_at(square(FILES - 1 - square_file(s), ranks - 1 - square_rank(s)))
        assert other is not None and other.id == p.id and other.colour != p.colour, square_name(s)
    # four-rank camps: the first player on ranks 1-4, the second on the last four
    assert {square_rank(s) + 1 for s in b.pieces(FIRST)} == {1, 2, 3, 4}
    assert {square_rank(s) + 1 for s in b.pieces(SECOND)} == {ranks - 3, ranks - 2, ranks - 1, ranks}


def test_start_army_matches_the_page():
    army = Counter(p.id for p in Board(VARIANT).pieces(FIRST).values())
    # 16 Wazchicks and 16 Fearlesses fill the "Pawn ranks"
    assert army["WZ"] == army["FL"] == 16
    # two each of the Mitregi pieces and their forward-only forms
    assert all(army[pid] == 2 for pid in ("R", "WG", "B", "MI", "N", "HL", "CA", "HU"))
    # 12 central pieces: 5 unbound Pig/Raj types once, the 3 bound ones twice, and the King
    assert all(army[pid] == 1 for pid in ("GSW", "SSW", "SBR", "SMS", "GSH", "K"))
    assert all(army[pid] == 2 for pid in ("GBR", "SSH", "GMS"))
    assert sum(army.values()) == 60


def test_bound_pairs_cover_both_colours_and_both_file_groups():
    b = Board(VARIANT)
    for pid in ("B", "MI", "CA", "HU", "GBR", "SSH"):
        squares = [square_name(s) for s, p in b.pieces(FIRST).items() if p.id == pid]
        assert sorted(colour(n) for n in squares) == [0, 1], pid
    fearless = [square_name(s) for s, p in b.pieces(FIRST).items() if p.id == "FL"]
    assert Counter(colour(n) for n in fearless) == {0: 8, 1: 8}
    gms = [s for s, p in b.pieces(FIRST).items() if p.id == "GMS"]
    assert sorted(square_file(s) % 2 for s in gms) == [0, 1]
    # the King at the end of a middle file (h1), the opponent's rotated onto i12
    assert b.royal_square(FIRST) == sq("h1") and b.royal_square(SECOND) == sq("i12")


def test_start_moves_counted_by_hand():
    # Leaping: Wazchicks 16 x 2 (one or two cells up); Fearlesses jump two cells diagonally
    # over the Wazchicks (files a, b, o, p have one way, the other twelve two): 28; Camels
    # c2/n2 two jumps each (b5 d5 / m5 o5); Silvermemsahib j2 jumps to h2; King h1: h2, i2;
    # Goldsow i1: i2, h2; Goldsahib j1: i2, k2.
    assert len(Board(VARIANT).legal_moves()) == 32 + 28 + 4 + 1 + 2 + 2 + 2 == 71
    # Stepping: the Fearlesses are blocked by the Wazchicks in front; the Silvermemsahib's
    # two-cell step j2-h2 passes the empty i2, so it stays.
    assert len(Board(VARIANT, options=STEPPING).legal_moves()) == 32 + 0 + 4 + 1 + 2 + 2 + 2 == 43
    assert len(Board(VARIANT, options={"ranks": "16"}).legal_moves()) == 71


# --- drop caps -----------------------------------------------------------------------------------


def test_wazchick_cap_two_per_file():
    b = board({**KINGS, "e4": "WZ"}, hands="(WZ)")
    assert legal(b, drop("WZ", "e6"))  # one on the file: below the cap
    b = board({**KINGS, "e4": "WZ", "e7": "WZ"}, hands="(WZ)")
    assert not legal(b, drop("WZ", "e6"))
    assert "file" in b.illegal_reason(drop("WZ", "e6"))
    assert legal(b, drop("WZ", "f6"))  # another file
    b = board({**KINGS, "e4": "WZ", "e7": "+WZ"}, hands="(WZ)")  # a promoted one does not count
    assert legal(b, drop("WZ", "e6"))
    b = board({**KINGS, "e4": "WZ", "e9": "wz"}, hands="(WZ)")  # the opponent's do not count
    assert legal(b, drop("WZ", "e6"))


def test_wing_cap_two_per_file():
    b = board({**KINGS, "a2": "WG"}, hands="(WG)")
    assert legal(b, drop("WG", "a5"))
    b = board({**KINGS, "a2": "WG", "a3": "WG"}, hands="(WG)")
    assert not legal(b, drop("WG", "a5"))
    assert legal(b, drop("WG", "b5"))
    b = board({**KINGS, "a2": "WG", "a3": "+WG"}, hands="(WG)")
    assert legal(b, drop("WG", "a5"))


def test_wazchick_and_wing_caps_are_separate():
    b = board({**KINGS, "e4": "WZ", "e5": "WZ"}, hands="(WG)")
    assert legal(b, drop("WG", "e2"))


def test_goldmemsahib_cap_two_per_group_of_alternate_files():
    # files c and e are in the same group (a, c, e, ...); d is in the other (b, d, f, ...)
    b = board({**KINGS, "c2": "GMS"}, hands="(GMS)")
    assert legal(b, drop("GMS", "e6"))
    b = board({**KINGS, "c2": "GMS", "g3": "GMS"}, hands="(GMS)")
    assert not legal(b, drop("GMS", "e6"))
    assert not legal(b, drop("GMS", "c6"))
    assert legal(b, drop("GMS", "d6"))
    b = board({**KINGS, "c2": "GMS", "g1": "+GMS"}, hands="(GMS)")  # g1: attacks no king
    assert legal(b, drop("GMS", "e6"))


def test_fearless_cap_sixteen_per_square_colour():
    colour_0 = [f"{LETTERS[f]}{r}" for r in (3, 5) for f in range(FILES) if (f + r - 1) % 2 == 0]
    assert len(colour_0) == 16 and all(colour(n) == 0 for n in colour_0)
    b = board({**KINGS, **{n: "FL" for n in colour_0[:15]}}, hands="(FL)")
    assert legal(b, drop("FL", "e7"))  # e7 is colour 0: the 16th
    b = board({**KINGS, **{n: "FL" for n in colour_0}}, hands="(FL)")
    assert colour("e7") == 0 and colour("f7") == 1
    assert not legal(b, drop("FL", "e7"))
    assert "colour" in b.illegal_reason(drop("FL", "e7"))
    assert legal(b, drop("FL", "f7"))
    b = board({**KINGS, **{n: "FL" for n in colour_0[:15]}, colour_0[15]: "+FL"}, hands="(FL)")
    assert legal(b, drop("FL", "e7"))


@pytest.mark.parametrize("pid", ["B", "MI", "CA", "HU", "GBR", "SSH"])
def test_two_per_square_colour_caps(pid):
    # d2 and f4 are colour 0, e7 too; e6 is colour 1
    assert colour("d2") == colour("f4") == colour("e7") == 0 and colour("e6") == 1
    b = board({**KINGS, "d2": pid}, hands=f"({pid})")
    assert legal(b, drop(pid, "e7"))
    b = board({**KINGS, "d2": pid, "f4": pid}, hands=f"({pid})")
    assert not legal(b, drop(pid, "e7"))
    assert "colour" in b.illegal_reason(drop(pid, "e7"))
    assert legal(b, drop(pid, "e6"))
    b = board({**KINGS, "d2": pid, "f4": f"+{pid}"}, hands=f"({pid})")
    assert legal(b, drop(pid, "e7"))


def test_two_per_colour_caps_count_each_type_on_its_own():
    # two Bishops on colour 0 do not stop a Mitre (or a Camel ...) being dropped there
    b = board({**KINGS, "d2": "B", "f4": "B"}, hands="(MI)(CA)")
    assert legal(b, drop("MI", "e7"))
    assert legal(b, drop("CA", "e7"))


def test_uncapped_pieces_may_be_dropped_freely():
    b = board({**KINGS, "e2": "R", "e3": "R", "e4": "R"}, hands="R(GSW)")
    assert legal(b, drop("R", "e6"))
    assert legal(b, drop("GSW", "e7"))


def test_a_promoted_piece_returns_to_hand_as_what_it_was():
    b = board({**KINGS, "e5": "R", "e8": "+wz", "f8": "+fl"})
    b.play(move("e5-e8"))
    assert b.hand(FIRST) == {"WZ": 1}
    b.play(move("p12-p11"))
    b.play(move("e8-f8"))
    assert b.hand(FIRST) == {"WZ": 1, "FL": 1}


# --- Leaping and Stepping ------------------------------------------------------------------------


@pytest.mark.parametrize("piece, origin, blocker, beyond", [
    ("WZ", "e5", "e6", "e7"),    # Wazchick: fD
    ("GSW", "e5", "e6", "e7"),   # Goldsow: its only double move, straight forward
    ("SBR", "e5", "f6", "g7"),   # Silverboar: fA
    ("FL", "e5", "f6", "g7"),    # Fearless: fA
    ("SSW", "e5", "d4", "c3"),   # Silversow: A in all four directions, here back-left
    ("GBR", "e5", "d5", "c5"),   # Goldboar: D in all four directions, here sideways
    ("GMS", "e5", "e4", "e3"),   # Goldmemsahib: D, here backwards
    ("SMS", "e5", "f5", "g5"),   # Silvermemsahib: D
    ("GSH", "e5", "f4", "g3"),   # Goldsahib: A
    ("SSH", "e5", "e6", "e7"),   # Silversahib: fD
    ("+K", "e5", "e6", "e7"),    # Grandpasha: two cells along any line
    ("+K", "e5", "d4", "c3"),
])
def test_two_cell_moves_leap_in_leaping_and_are_blocked_in_stepping(piece, origin, blocker, beyond):
    # the blocker is the mover's own Wing, so it is no target itself
    pieces = {"a12": "k", origin: piece, blocker: "WG"}
    if piece != "+K":
        pieces["p1"] = "K"
    assert beyond in destinations(board(pieces), origin)
    assert beyond not in destinations(board(pieces, **STEPPING), origin)
    del pieces[blocker]
    assert beyond in destinations(board(pieces, **STEPPING), origin)  # free path: the step is made


def test_an_enemy_blocker_can_be_captured_but_not_passed_in_stepping():
    pieces = {**KINGS, "e5": "WZ", "e6": "wz"}
    assert destinations(board(pieces), "e5") == {"e6", "e7"}
    assert destinations(board(pieces, **STEPPING), "e5") == {"e6"}


@pytest.mark.parametrize("piece, origin, target", [("N", "e5", "f7"), ("HL", "e5", "d7"),
                                                   ("CA", "e5", "f8"), ("HU", "e5", "d8")])
def test_knight_helm_camel_hump_leap_in_both_subvariants(piece, origin, target):
    # surround the piece with its own Wings
    ring = {f"{LETTERS[4 + dx]}{5 + dy}": "WG" for dx in (-1, 0, 1) for dy in (-1, 0, 1) if dx or dy}
    pieces = {**KINGS, **ring, origin: piece}
    assert target in destinations(board(pieces), origin)
    assert target in destinations(board(pieces, **STEPPING), origin)


def test_grandpasha_moves():
    leaping = destinations(board({"a12": "k", "e5": "+K"}), "e5")
    stepping = destinations(board({"a12": "k", "e5": "+K"}, **STEPPING), "e5")
    expected = {f"{LETTERS[4 + dx * n]}{5 + dy * n}" for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                if dx or dy for n in (1, 2)}
    assert leaping == stepping == expected  # on an empty board KAD and K2 reach the same 16 cells


# --- compulsory promotion and the ranks where drops are not allowed ------------------------------


@pytest.mark.parametrize("piece, start, end", [
    ("WZ", "e11", "e12"), ("WZ", "e10", "e12"),
    ("FL", "e11", "f12"), ("FL", "e10", "g12"),
    ("WG", "e6", "e12"), ("MI", "e8", "i12"),
    ("HL", "e10", "f12"), ("HL", "e9", "d11"),
    ("HU", "e9", "f12"), ("HU", "e8", "d11"), ("HU", "e7", "f10"),
])
def test_promotion_is_compulsory_where_the_piece_would_have_no_move(piece, start, end):
    b = board({**KINGS, start: piece})
    assert legal(b, move(f"{start}-{end}", True))
    assert not legal(b, move(f"{start}-{end}", False))
    assert "compulsory" in b.illegal_reason(move(f"{start}-{end}", False))


@pytest.mark.parametrize("piece, start, end", [
    ("WZ", "e9", "e11"), ("FL", "e9", "f10"), ("WG", "e6", "e11"), ("MI", "e8", "h11"),
    ("HL", "e8", "d10"), ("HU", "e6", "f9"),
    ("GSW", "e11", "e12"), ("SBR", "e11", "d12"),  # Pig/Raj pieces keep a backward move
    ("R", "e6", "e12"), ("N", "e10", "f12"), ("CA", "e9", "f12"),
])
def test_promotion_is_optional_elsewhere_in_the_zone(piece, start, end):
    b = board({**KINGS, start: piece})
    assert legal(b, move(f"{start}-{end}", True))
    assert legal(b, move(f"{start}-{end}", False))
    assert not legal(b, move(f"{start}-{end}", None))


def test_no_promotion_outside_the_four_ranks_of_the_enemy_camp():
    b = board({**KINGS, "e7": "WZ"})
    assert legal(b, move("e7-e8", None))
    assert not legal(b, move("e7-e8", True))
    assert legal(board({**KINGS, "e7": "WZ"}), move("e7-e9", True))  # entering rank 9


@pytest.mark.parametrize("piece, barred, allowed", [
    ("WZ", [12], 11), ("FL", [12], 11), ("WG", [12], 11), ("MI", [12], 11),
    ("HL", [11, 12], 10), ("HU", [10, 11, 12], 9),
])
def test_no_drops_where_promotion_would_be_automatic(piece, barred, allowed):
    b = board({**KINGS}, hands=f"({piece})")
    for rank in barred:
        assert not legal(b, drop(piece, f"e{rank}"))
        assert "never move" in b.illegal_reason(drop(piece, f"e{rank}"))
    assert legal(b, drop(piece, f"e{allowed}"))
    # the second player's barred ranks are the mirror image
    b = board({**KINGS}, turn="w", hands=f"({piece.lower()})")
    for rank in barred:
        assert not legal(b, drop(piece, f"e{13 - rank}"))
    assert legal(b, drop(piece, f"e{13 - allowed}"))


def test_pig_raj_pieces_may_be_dropped_on_the_last_rank():
    b = board({**KINGS}, hands="(GSW)(SSW)(GBR)(SBR)(GMS)(SMS)(GSH)(SSH)")
    for pid in ("GSW", "SSW", "GBR", "SBR", "GMS", "SMS", "GSH", "SSH"):
        assert legal(b, drop(pid, "e12")), pid


# --- the King promotes; the Grandpasha is royal --------------------------------------------------


def test_king_may_promote_in_the_enemy_camp():
    b = board({"e8": "K", "p12": "k"})
    assert legal(b, move("e8-e9", True))
    assert legal(b, move("e8-e9", False))
    assert not legal(b, move("e8-e9", None))
    b.play(move("e8-e9", True))
    assert b.piece_at(sq("e9")).id == "+K"
    assert b.royal_square(FIRST) == sq("e9")
    b = board({"e7": "K", "p12": "k"})
    assert not legal(b, move("e7-e8", True))


def test_grandpasha_is_royal_it_may_not_move_into_check():
    b = board({"e5": "+K", "p12": "k", "g12": "r"})  # the Rook holds the g-file
    assert b.royal_square(FIRST) == sq("e5")
    assert not legal(b, move("e5-g7"))  # the leap would land on an attacked square
    assert "check" in b.illegal_reason(move("e5-g5"))
    assert legal(b, move("e5-e7"))


def test_grandpasha_can_be_checked():
    b = board({"e5": "+K", "p12": "k", "e12": "r"})
    assert b.is_check()
    assert all(sq("e5") == m.from_square for m in b.legal_moves())  # only the Grandpasha can answer


def test_grandpasha_can_be_checkmated():
    # Grandpasha on a1 (reaches a2 b1 b2, and by leaps a3 c1 c3): the Rook on a12 holds the
    # a-file, the Rook on p1 the first rank, the Bishop on l12 the long diagonal.
    b = board({"a1": "+K", "a12": "r", "p1": "r", "l12": "b", "p12": "k"})
    assert b.is_check()
    assert b.is_checkmate()
    outcome = b.outcome()
    assert outcome.termination == "checkmate" and outcome.winner == SECOND


# --- the 16-rank option --------------------------------------------------------------------------


SIXTEEN = {"ranks": "16"}
KINGS_16 = {"a1": "K", "p16": "k"}


def test_sixteen_ranks_have_eight_empty_ranks_between_the_camps():
    b = Board(VARIANT, options=SIXTEEN)
    assert all(b.piece_at(square(f, r)) is None for f in range(FILES) for r in range(4, 12))
    assert b.royal_square(FIRST) == sq("h1") and b.royal_square(SECOND) == sq("i16")
    twelve = Board(VARIANT)
    for f in range(FILES):
        for r in range(4):  # the same camps
            assert b.piece_at(square(f, r)) == twelve.piece_at(square(f, r))
            assert b.piece_at(square(f, 15 - r)) == twelve.piece_at(square(f, 11 - r))


def test_sixteen_ranks_promotion_zone_is_ranks_13_to_16():
    b = board({**KINGS_16, "e12": "WZ"}, **SIXTEEN)
    assert legal(b, move("e12-e13", True)) and legal(b, move("e12-e13", False))
    b = board({**KINGS_16, "e11": "WZ"}, **SIXTEEN)
    assert legal(b, move("e11-e12", None)) and not legal(b, move("e11-e12", True))
    b = board({**KINGS_16, "e15": "WZ"}, **SIXTEEN)
    assert not legal(b, move("e15-e16", False))
    b = board({**KINGS_16, "e8": "HU"}, **SIXTEEN)
    assert legal(b, move("e8-f11", None))  # rank 11: outside the camp
    b = board({**KINGS_16}, hands="(HU)(WZ)", **SIXTEEN)
    assert not legal(b, drop("HU", "e14")) and legal(b, drop("HU", "e13"))
    assert not legal(b, drop("WZ", "e16")) and legal(b, drop("WZ", "e15"))


# --- stalemate -----------------------------------------------------------------------------------


def test_stalemate_is_a_draw():
    # King a1, not in check: a2 and b2 are held by the Rook on p2 (rank 2), b1 by the Rook on b12
    b = board({"a1": "K", "b12": "r", "p2": "r", "p12": "k"})
    assert not b.is_check()
    assert b.legal_moves() == []
    assert b.is_stalemate()
    outcome = b.outcome()
    assert outcome.termination == "stalemate" and outcome.winner is None
    assert outcome.result() == "1/2-1/2"


# --- perft ---------------------------------------------------------------------------------------



def second_player_first(b: Board) -> Board:
    """The start position with the second player to move.  The start is symmetric under a
    180-degree rotation with the colours swapped, so every count must match the first player's."""
    board_part, _, hands, number = b.position().split()
    return Board(b.rules, f"{board_part} w {hands} {number}")


def divide(b: Board, depth: int) -> dict:
    return {m.uci(): n for m, n in perft_divide(b, depth).items()}


SUBVARIANTS = [({}, 71), (STEPPING, 43), (SIXTEEN, 71), ({**SIXTEEN, **STEPPING}, 43)]
NAMES = ["leaping", "stepping", "leaping-16", "stepping-16"]


@pytest.mark.parametrize("options, first_moves", SUBVARIANTS, ids=NAMES)
def test_perft_2_from_the_start(options, first_moves):
    b = Board(VARIANT, options=options)
    split = divide(b, 2)
    # the camps are too far apart for any first move to change the second player's moves
    assert set(split.values()) == {first_moves}
    assert perft(b, 2) == sum(split.values()) == first_moves ** 2
    assert perft(second_player_first(b), 2) == first_moves ** 2


@pytest.mark.slow
@pytest.mark.parametrize("options", [o for o, _ in SUBVARIANTS], ids=NAMES)
def test_perft_3_from_the_start(options):
    b = Board(VARIANT, options=options)
    split = divide(b, 3)
    assert perft(b, 3) == sum(split.values())
    assert len(split) == len(b.legal_moves())
    assert perft(second_player_first(b), 3) == sum(split.values())
