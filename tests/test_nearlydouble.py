"""Gilman's Shogi-set Nearlydouble Variants (13x12): the expectations come from the rules dossier,
docs/rules/variants.md, section 6 (and section 1 for the common shogi conventions).

Squares are named from the first player's side (a1 = first player's lower left). Every test of a
piece is run for both players: the second player's position is the first player's rotated by 180
degrees (file x -> m..a, rank r -> 13 - r), with the colours swapped.
"""

from __future__ import annotations

import pytest

from daikifu.replay.position import PositionError

from daikifu.replay import Board, IncompleteVariantError, load_variant
from daikifu.replay.squares import FILE_LETTERS, parse_square, square_file, square_name, square_rank
from daikifu.replay.perft import perft

from position_support import position_text

FILES, RANKS = 13, 12
PLAYABLE = ["handy-mitregi", "kyoomagi", "planetary-shogi", "nearlydouble-chogi", "pashtun-shogi",
            "pacifier-shogi"]
# Both Kings stand out of the way in every test position (m1 and a12 are each other's rotation).
KINGS = {"m1": "K", "a12": "k"}


# --- helpers ------------------------------------------------------------------------------------


def rot(name: str) -> str:
    """The square a 180-degree rotation takes ``name`` to (f1 <-> h12)."""
    sq = parse_square(name, FILES, RANKS)
    return f"{FILE_LETTERS[FILES - 1 - square_file(sq)]}{RANKS - square_rank(sq)}"


def position(pieces: dict, turn: str = "b", hands: str = "-") -> str:
    """A position string for a 13x12 board from {square name: piece ID} (lower case = second player)."""
    return position_text(pieces, FILES, RANKS, turn, hands)


def both_sides(variant: str, pieces: dict, hands: str = "-", options=None):
    """Yield (board, to_square) for the first player and for the rotated second player.

    ``pieces`` is written for the first player to move (upper case = the mover). ``to_square``
    converts a square name of that picture into the board's square for the side being tested.
    Positions where the piece already attacks the other king cannot occur in a game and are skipped.
    """
    v = load_variant(variant)
    first = dict(KINGS, **pieces)
    second = {rot(n): p.swapcase() for n, p in first.items()}
    hands2 = "-" if hands == "-" else hands.swapcase()
    for text, at in ((position(first, "b", hands), lambda n: parse_square(n, FILES, RANKS)),
                     (position(second, "w", hands2), lambda n: parse_square(rot(n), FILES, RANKS))):
        try:
            board = Board(v, text, options)
        except PositionError:
            continue
        yield board, at


def targets(board: Board, origin: int) -> set:
    """Squares the piece on ``origin`` can move to (any promotion choice)."""
    return {m.to_square for m in board.legal_moves() if m.from_square == origin}


def captures(board: Board, origin: int) -> set:
    return {t for t in targets(board, origin) if board.piece_at(t) is not None}


def check_targets(variant, pieces, origin, expected, expected_captures=None, options=None):
    """The piece on ``origin`` reaches exactly ``expected`` (and captures exactly
    ``expected_captures``, when given), for both players."""
    for board, at in both_sides(variant, pieces, options=options):
        got = targets(board, at(origin))
        assert got == {at(n) for n in expected}, (board.turn, sorted(map(square_name, got)))
        if expected_captures is not None:
            got_c = captures(board, at(origin))
            assert got_c == {at(n) for n in expected_captures}, (board.turn, sorted(map(square_name, got_c)))


def squares(spec: str) -> set:
    """'f3-f12' -> {f3, ..., f12}; 'c4-e4' -> {c4, d4, e4}; 'e3 g5' -> {e3, g5}."""
    out = set()
    for part in spec.split():
        if "-" in part:
            a, b = part.split("-")
            if a[0] == b[0]:  # along a file
                out |= {f"{a[0]}{r}" for r in range(int(a[1:]), int(b[1:]) + 1)}
            else:  # along a rank
                assert a[1:] == b[1:]
                files = FILE_LETTERS[FILE_LETTERS.index(a[0]):FILE_LETTERS.index(b[0]) + 1]
                out |= {f"{f}{a[1:]}" for f in files}
        else:
            out.add(part)
    return out


# --- the variant files --------------------------------------------------------------------------


@pytest.mark.parametrize("slug", PLAYABLE)
def test_board_and_array(slug):
    """13x12, 39 pieces a side (1 K, 2 R, 2 B, 4 each of G/S/N/L, 18 P), left-right symmetric,
    the second player's array the first player's rotated; the array is marked reconstructed."""
    v = load_variant(slug)
    assert (v.files, v.ranks) == (13, 12)
    assert v.reconstructed and "reconstructed" in v.summary
    b = Board(v)
    for colour in (0, 1):
        counts = {}
        for p in b.pieces(colour).values():
            counts[p.id] = counts.get(p.id, 0) + 1
        assert counts == {"K": 1, "R": 2, "B": 2, "G": 4, "S": 4, "N": 4, "L": 4, "P": 18}
    assert b.piece_at(parse_square("g1", FILES, RANKS)).id == "K"
    for sq, p in b.pieces(0).items():
        name = square_name(sq)
        mirror = f"{FILE_LETTERS[FILES - 1 - square_file(sq)]}{square_rank(sq) + 1}"
        assert b.piece_at(parse_square(mirror, FILES, RANKS)) == p
        assert b.piece_at(parse_square(rot(name), FILES, RANKS)) == (p.id, 1)
    assert all(square_rank(sq) < 4 for sq in b.pieces(0))


@pytest.mark.parametrize("slug", PLAYABLE)
def test_promotions_and_rules(slug):
    """Rook -> Marshal RN, Bishop -> Cardinal BN; S/N/L/P analogues each promote to their own type
    moving as the Gold-analogue; Gold-analogue and King do not promote. 4-rank zone, forced only
    when stuck, drops, stalemate a draw."""
    v = load_variant(slug)
    assert (v.piece("+R").name, v.piece("+R").betza) == ("Marshal", "RN")
    assert (v.piece("+B").name, v.piece("+B").betza) == ("Cardinal", "BN")
    assert v.piece("R").promotes == "+R" and v.piece("B").promotes == "+B"
    gold = v.piece("G")
    assert gold.promotes is None and v.piece("K").promotes is None and v.piece("K").royal
    for pid in "SNLP":
        promoted = v.piece(v.piece(pid).promotes)
        assert promoted.id == "+" + pid
        assert (promoted.betza, promoted.generators) == (gold.betza, gold.generators)
    r = v.rules
    assert r["promotion_zone"] == 4 and r["promotion_forced"] == "stuck" and r["drops"]
    assert r["drop_no_dead_squares"] and r["stalemate"] == "draw"
    caps = {"handy-mitregi", "nearlydouble-chogi", "pashtun-shogi", "pacifier-shogi"}
    assert r["drop_caps"] == ([{"pieces": ["P"], "per": "file", "max": 2}] if slug in caps else [])
    assert r["drop_nifu"] == []


def test_piece_names_follow_the_dossier():
    names = {slug: [load_variant(slug).piece(pid).name for pid in "GSNLP"] for slug in PLAYABLE}
    assert names["handy-mitregi"] == ["Gnu", "Mitre", "Handyman", "Wing", "Wazchick"]
    assert names["kyoomagi"] == ["Carpenter", "Kangaroo", "Helmrider", "Kyoo-horse", "Helm"]
    assert names["planetary-shogi"][0:2] == ["Venus", "Mars"]
    assert names["planetary-shogi"][3:] == ["Comet", "Asteroid"]
    assert names["nearlydouble-chogi"] == ["Goldsow", "Silverboar", "Catapchick", "Sowon", "Wazchick"]
    assert names["pashtun-shogi"][0:2] == ["Goldpashtun", "Silverpashtun"]
    assert names["pashtun-shogi"][3:] == ["Lance", "Wazchick"]
    assert names["pacifier-shogi"] == ["Goldpacifier", "Silverpacifier", "Helmpacifier", "Lance",
                                       "Pointpacifier"]
    # inferred names are flagged
    assert "low" in load_variant("handy-mitregi").piece("G").provenance
    assert "inferred" in load_variant("planetary-shogi").piece("G").provenance


# --- Kyoomagi: Helmrider, crooked Helmrider (Kyoo-horse), Helm -----------------------------------


def test_helmrider_rides_the_two_forward_knight_lines():
    # f1: (+1,+2) repeated -> g3 h5 i7 j9 k11; (-1,+2) repeated -> e3 d5 c7 b9 a11
    check_targets("kyoomagi", {"f1": "N"}, "f1", squares("g3 h5 i7 j9 k11 e3 d5 c7 b9 a11"))


def test_helmrider_stops_at_the_first_occupied_landing_square():
    # an enemy on h5 is captured and ends that line; an own piece on d5 ends the other before it
    # pieces on squares it leaps over (f2, g2, f3, g4) do not matter
    pieces = {"f1": "N", "h5": "p", "d5": "P", "f2": "P", "g2": "p", "f3": "P", "g4": "p"}
    check_targets("kyoomagi", pieces, "f1", squares("g3 h5 e3"), expected_captures={"h5"})


def test_kyoo_horse_zigzags_up_two_files():
    # starting (+1,+2): g3 f5 g7 f9 g11; starting (-1,+2): e3 f5 e7 f9 e11
    check_targets("kyoomagi", {"f1": "L"}, "f1", squares("g3 f5 g7 f9 g11 e3 e7 e11"))


def test_kyoo_horse_is_blocked_on_an_intermediate_landing_square():
    # f5 lies on both zig-zags: an enemy there is captured and nothing beyond it is reachable
    check_targets("kyoomagi", {"f1": "L", "f5": "p"}, "f1", squares("g3 e3 f5"), expected_captures={"f5"})
    # an own piece on g3 closes the line that starts right; the one that starts left is untouched
    check_targets("kyoomagi", {"f1": "L", "g3": "P"}, "f1", squares("e3 f5 e7 f9 e11"))
    # squares it only passes over (f2, f3, f4, g4, e4) do not block
    pieces = {"f1": "L", "f2": "P", "f3": "p", "f4": "P", "g4": "p", "e4": "P"}
    check_targets("kyoomagi", pieces, "f1", squares("g3 f5 g7 f9 g11 e3 e7 e11"))


def test_kyoo_horse_does_not_ride_straight():
    # unlike the Helmrider it may not repeat the same leap: h5 (via g3) is not reachable
    for board, at in both_sides("kyoomagi", {"f1": "L"}):
        assert at("h5") not in targets(board, at("f1"))


def test_helm_and_carpenter_kangaroo():
    check_targets("kyoomagi", {"f4": "P"}, "f4", squares("e6 g6"))
    check_targets("kyoomagi", {"f4": "G"}, "f4", squares("e6 g6 d5 h5 d3 h3 e2 g2 f6 f2 d4 h4"))
    check_targets("kyoomagi", {"f4": "S"}, "f4", squares("e6 g6 d5 h5 d3 h3 e2 g2 d6 h6 d2 h2"))


# --- Planetary Shogi: two-stage moves -------------------------------------------------------------


def test_comet_slides_at_least_two_then_steps():
    # from f1 the first stage lands on f3 .. f12 (at least 2 squares), then one Wazir step:
    # straight on or back along the f-file (f2 .. f12) or sideways onto the e- and g-files (ranks 3-12)
    check_targets("planetary-shogi", {"f1": "L"}, "f1", squares("f2-f12 e3-e12 g3-g12"))


def test_comet_captures_straight_ahead_only_from_three_squares():
    # enemy on f4: slide to f3 (2 squares), then step onto f4
    check_targets("planetary-shogi", {"f1": "L", "f4": "p"}, "f1", squares("f2 e3 g3 f4"),
                  expected_captures={"f4"})
    # enemy on f3: the first stage cannot end on it, and a 1-square first stage is too short
    check_targets("planetary-shogi", {"f1": "L", "f3": "p"}, "f1", set())


def test_comet_cannot_move_unless_the_two_squares_ahead_are_empty():
    for blocker in ("P", "p"):
        check_targets("planetary-shogi", {"f1": "L", "f2": blocker}, "f1", set())
        check_targets("planetary-shogi", {"f1": "L", "f3": blocker}, "f1", set())
    # sideways captures need a landing square first: enemies beside it on e1/g1/e2/g2 are safe
    pieces = {"f1": "L", "f3": "P", "e1": "p", "g1": "p", "e2": "p", "g2": "p"}
    check_targets("planetary-shogi", pieces, "f1", set())


def test_asteroid_leaps_two_then_steps():
    # jump to f6, then f7, e6, g6 or back to f5; no plain step
    check_targets("planetary-shogi", {"f4": "P"}, "f4", squares("f7 e6 g6 f5"))


def test_asteroid_captures_on_the_square_it_jumped_over():
    check_targets("planetary-shogi", {"f4": "P", "f5": "p"}, "f4", squares("f7 e6 g6 f5"),
                  expected_captures={"f5"})


def test_asteroid_first_stage_must_end_on_an_empty_square():
    for blocker in ("P", "p"):
        check_targets("planetary-shogi", {"f4": "P", "f6": blocker}, "f4", set())


def test_venus_steps_or_leaps_then_steps():
    # plain Wazir step, or jump to f6 then a Wazir step (f7, e6, g6, f5)
    check_targets("planetary-shogi", {"f4": "G"}, "f4", squares("f5 e4 g4 f3 f7 e6 g6"))
    # with f6 occupied only the plain step remains (an enemy on f6 cannot be captured)
    for blocker in ("P", "p"):
        check_targets("planetary-shogi", {"f4": "G", "f6": blocker}, "f4", squares("f5 e4 g4 f3"))


def test_mars_steps_or_leaps_diagonally_then_steps():
    # plain Ferz step; or jump to d6 / h6, then a Ferz step: c7 e7 c5 e5 / g7 i7 g5 i5
    check_targets("planetary-shogi", {"f4": "S"}, "f4", squares("e5 g5 e3 g3 c7 e7 c5 g7 i7 i5"))
    # d6 occupied: that branch is gone (c7, e7, c5 unreachable; e5 still a plain step)
    check_targets("planetary-shogi", {"f4": "S", "d6": "p"}, "f4", squares("e5 g5 e3 g3 g7 i7 i5"))


def test_planetary_knight_steps_or_leaps_like_a_handyman_then_steps():
    # plain Wazir step; or jump to e7 / g7 (1,3), then a Wazir step:
    # (+-1,+4) e8 g8, (+-1,+2) e6 g6, (0,+3) f7, (+-2,+3) d7 h7
    check_targets("planetary-shogi", {"f4": "N"}, "f4", squares("f5 e4 g4 f3 e8 g8 e6 g6 f7 d7 h7"))


# --- Pacifier Shogi: long moves, captures on the first step only ------------------------------------


def test_pointpacifier():
    check_targets("pacifier-shogi", {"f4": "P", "f8": "p"}, "f4", squares("f5-f7"), expected_captures=set())
    check_targets("pacifier-shogi", {"f4": "P", "f5": "p"}, "f4", {"f5"}, expected_captures={"f5"})


def test_goldpacifier():
    # Rook moves and forward Bishop moves that never capture, Gold captures on the first square
    pieces = {"f4": "G", "f1": "p", "b4": "p", "i7": "p", "f9": "p"}
    expected = squares("f5-f8 f2-f3 c4-e4 g4-m4 e5 d6 c7 b8 a9 g5 h6")
    check_targets("pacifier-shogi", pieces, "f4", expected, expected_captures=set())
    pieces = {"f4": "G", "f5": "p", "f3": "p", "e4": "p", "g4": "p", "e5": "p", "g5": "p", "e3": "p"}
    # e3 is a backward diagonal: the Gold-analogue neither moves nor captures there
    check_targets("pacifier-shogi", pieces, "f4", squares("f5 f3 e4 g4 e5 g5"),
                  expected_captures=squares("f5 f3 e4 g4 e5 g5"))


def test_silverpacifier():
    # Bishop moves and forward Rook moves that never capture, Silver captures on the first square
    pieces = {"f4": "S", "f7": "p", "i7": "p", "c1": "p", "b8": "p", "j1": "p"}
    expected = squares("f5 f6 g5 h6 e5 d6 c7 e3 d2 g3 h2 i1")
    check_targets("pacifier-shogi", pieces, "f4", expected, expected_captures=set())
    pieces = {"f4": "S", "f5": "p", "e5": "p", "g5": "p", "e3": "p", "g3": "p", "e4": "p", "f3": "p"}
    check_targets("pacifier-shogi", pieces, "f4", squares("f5 e5 g5 e3 g3"),
                  expected_captures=squares("f5 e5 g5 e3 g3"))


def test_helmpacifier():
    # rides like a Helmrider but captures only with its first leap
    check_targets("pacifier-shogi", {"f1": "N", "h5": "p", "b9": "p"}, "f1", squares("g3 e3 d5 c7"),
                  expected_captures=set())
    check_targets("pacifier-shogi", {"f1": "N", "g3": "p"}, "f1", squares("g3 e3 d5 c7 b9 a11"),
                  expected_captures={"g3"})


# --- the other pieces ---------------------------------------------------------------------------


@pytest.mark.parametrize("slug, pid, expected", [
    ("handy-mitregi", "G", "e6 g6 d5 h5 d3 h3 e2 g2 e7 g7 c5 i5 c3 i3 e1 g1"),  # Gnu NC
    ("handy-mitregi", "S", "e5 d6 c7 b8 a9 g5 h6 i7 j8 k9 l10 m11"),  # Mitre fB
    ("handy-mitregi", "N", "e6 g6 e7 g7"),  # Handyman ffNffC
    ("handy-mitregi", "P", "f5 f6"),  # Wazchick fWfD
    ("nearlydouble-chogi", "G", "f5 e4 g4 f3 e5 g5 f6"),  # Goldsow WfFfD
    ("nearlydouble-chogi", "S", "e5 g5 e3 g3 f5 d6 h6"),  # Silverboar FfWfA
    ("nearlydouble-chogi", "N", "e6 g6 f7"),  # Catapchick ffNfH
    ("nearlydouble-chogi", "L", "f5-f12 e4 g4 f3"),  # Sowon fRsWbW
    ("pashtun-shogi", "G", "f5 e4 g4 f3 e5 g5 f6 d4 h4 f2 d6 h6"),  # Goldpashtun WfFDfA
    ("pashtun-shogi", "S", "e5 g5 e3 g3 f5 d6 h6 d2 h2 f6"),  # Silverpashtun FfWAfD
    ("pashtun-shogi", "N", "e6 g6 d7 h7"),  # ffNffZ
])
def test_piece_moves_on_an_empty_board(slug, pid, expected):
    check_targets(slug, {"f4": pid}, "f4", squares(expected))


# --- two-square moves: leaping (default) or stepping ------------------------------------------------


@pytest.mark.parametrize("slug", ["handy-mitregi", "nearlydouble-chogi", "pashtun-shogi"])
def test_wazchick_two_square_move_leaps_or_steps(slug):
    check_targets(slug, {"f4": "P", "f5": "P"}, "f4", {"f6"})
    check_targets(slug, {"f4": "P", "f5": "P"}, "f4", set(), options={"two-square": "stepping"})
    check_targets(slug, {"f4": "P"}, "f4", {"f5", "f6"}, options={"two-square": "stepping"})


def test_silverboar_and_goldsow_stepping():
    pieces = {"f4": "S", "e5": "P", "g5": "p"}  # the Silverboar's fA passes over e5 / g5
    check_targets("nearlydouble-chogi", pieces, "f4", squares("g5 e3 g3 f5 d6 h6"))
    check_targets("nearlydouble-chogi", pieces, "f4", squares("g5 e3 g3 f5"), options={"two-square": "stepping"})
    pieces = {"f4": "+P", "f5": "P"}  # a promoted Wazchick moves as the Goldsow and follows the option
    check_targets("nearlydouble-chogi", pieces, "f4", squares("e4 g4 f3 e5 g5 f6"))
    check_targets("nearlydouble-chogi", pieces, "f4", squares("e4 g4 f3 e5 g5"), options={"two-square": "stepping"})


def test_goldpashtun_stepping_blocks_backward_and_sideways_leaps_too():
    pieces = {"f4": "G", "f3": "P", "e4": "p", "e5": "P"}
    check_targets("pashtun-shogi", pieces, "f4", squares("e4 g4 g5 f5 f6 f2 d4 h4 d6 h6"))
    check_targets("pashtun-shogi", pieces, "f4", squares("e4 g4 g5 f5 f6 h4 h6"),
                  options={"two-square": "stepping"})


def test_two_square_option_only_where_there_are_two_square_moves():
    for slug in ("handy-mitregi", "nearlydouble-chogi", "pashtun-shogi"):
        opt = load_variant(slug).options["two-square"]
        assert opt.default == "leaping" and set(opt.choices) == {"leaping", "stepping"}
    for slug in ("kyoomagi", "planetary-shogi", "pacifier-shogi"):
        assert "two-square" not in load_variant(slug).options


# --- drops: file caps ---------------------------------------------------------------------------------


def drop_squares(board: Board, pid: str) -> set:
    return {m.to_square for m in board.legal_moves() if m.drop == pid}


@pytest.mark.parametrize("slug", ["handy-mitregi", "nearlydouble-chogi", "pashtun-shogi", "pacifier-shogi"])
def test_no_third_unpromoted_pawn_analogue_on_a_file(slug):
    # Wazchicks (Pointpacifiers in Pacifier Shogi): c has two own -> no drop on c;
    # d has one -> drops allowed; e has two of the opponent's; f has one own and a promoted one
    pieces = {"c2": "P", "c6": "P", "d2": "P", "e5": "p", "e7": "p", "f2": "P", "f3": "+P"}
    for board, at in both_sides(slug, pieces, hands="P"):
        drops = drop_squares(board, "P")
        for rank in range(1, 12):  # the last rank is closed to Wazchicks anyway
            for f, allowed in (("c", False), ("d", True), ("e", True), ("f", True)):
                sq = at(f"{f}{rank}")
                if board.piece_at(sq) is None:
                    assert (sq in drops) == allowed, (slug, board.turn, square_name(sq))
        assert "most unpromoted" in board.illegal_reason(board.parse_uci(f"P*{square_name(at('c4'))}"))


@pytest.mark.parametrize("slug", ["kyoomagi", "planetary-shogi"])
def test_no_file_cap_in_kyoomagi_and_planetary(slug):
    pieces = {"f2": "P", "f3": "P", "f5": "P"}
    for board, at in both_sides(slug, pieces, hands="P"):
        assert at("f7") in drop_squares(board, "P")


# --- forced promotion and squares closed to drops ------------------------------------------------------

DEAD_RANKS = [
    # (variant, piece, how many last ranks it can never move from)
    ("handy-mitregi", "P", 1), ("handy-mitregi", "L", 1), ("handy-mitregi", "S", 1),
    ("handy-mitregi", "N", 2), ("handy-mitregi", "G", 0),
    ("kyoomagi", "P", 2), ("kyoomagi", "N", 2), ("kyoomagi", "L", 2), ("kyoomagi", "S", 0),
    ("planetary-shogi", "P", 2), ("planetary-shogi", "L", 2),
    ("planetary-shogi", "S", 0), ("planetary-shogi", "N", 0),
    ("nearlydouble-chogi", "P", 1), ("nearlydouble-chogi", "N", 2), ("nearlydouble-chogi", "L", 0),
    ("nearlydouble-chogi", "S", 0),
    ("pashtun-shogi", "P", 1), ("pashtun-shogi", "L", 1), ("pashtun-shogi", "N", 2),
    ("pashtun-shogi", "S", 0),
    ("pacifier-shogi", "P", 1), ("pacifier-shogi", "L", 1), ("pacifier-shogi", "N", 2),
    ("pacifier-shogi", "S", 0),
]


@pytest.mark.parametrize("slug, pid, dead", DEAD_RANKS)
def test_no_drop_where_the_piece_could_never_move(slug, pid, dead):
    closed = set(range(RANKS - dead + 1, RANKS + 1))
    for board, at in both_sides(slug, {}, hands=pid):
        drops = drop_squares(board, pid)
        for f in "abcdefghijkl":  # not m: m1 holds a King
            for rank in range(1, RANKS + 1):
                sq = at(f"{f}{rank}")
                if board.piece_at(sq) is None:
                    assert (sq in drops) == (rank not in closed), (board.turn, square_name(sq))


@pytest.mark.parametrize("slug, pid, dead", DEAD_RANKS)
def test_promotion_is_forced_only_where_the_piece_could_never_move(slug, pid, dead):
    """From every square of the f-file the piece is moved into the zone (ranks 9-12): promotion is
    compulsory on the dead ranks and optional elsewhere."""
    closed = set(range(RANKS - dead + 1, RANKS + 1))
    promotes = load_variant(slug).piece(pid).promotes is not None
    seen = set()
    for origin in range(5, RANKS - dead + 1):
        for board, at in both_sides(slug, {f"f{origin}": pid}):
            flags = {}
            for m in board.legal_moves():
                if m.from_square == at(f"f{origin}") and m.promotion is not None:
                    dest = square_rank(at(square_name(m.to_square))) + 1  # rank in the first player's picture
                    flags.setdefault(dest, set()).add(m.promotion)
            for rank, got in flags.items():
                assert got == ({True} if rank in closed else {True, False}), (origin, rank, board.turn)
            seen |= set(flags)
    if not promotes:  # the Gold-analogue
        assert seen == set()
        return
    assert closed <= seen, "the test never reached a dead rank"
    assert {9, 10} <= seen


def test_comet_and_asteroid_on_rank_11_have_no_move():
    """Dossier 6.2: both need the square two ahead, so neither can move from rank 11."""
    for pid in ("L", "P"):
        check_targets("planetary-shogi", {"f11": pid}, "f11", set())


# --- Nearlydouble Symgi: incomplete -----------------------------------------------------------------


def test_symgi_is_known_but_refuses_to_play():
    v = load_variant("nearlydouble-symgi")
    assert not v.playable and (v.files, v.ranks) == (13, 12)
    assert v.piece("WA").betza == "WA" and v.piece("P").name == "Wazchick" and v.piece("P").betza == "fWfD"
    with pytest.raises(IncompleteVariantError) as info:
        Board(v)
    message = str(info.value)
    for needed in ("Symgi", "array", "nearlydouble-symgi", "--variants-dir", "DAIKIFU_VARIANTS"):
        assert needed in message


# --- perft ------------------------------------------------------------------------------------------

# Moves of the first player from the start, counted by hand from the dossier's piece moves and the
# reconstructed array (rank 2 has b2 d2 g2 j2 l2 empty, rank 3 a3 c3 e3 f3 h3 i3 k3 m3). Common to
# all: King 1 (g2), two Rooks 3 each (c3 b2 d2 / k3 j2 l2), two Bishops 1 each (f3 / h3) = 9.
#   Handy Mitregi  31 Wazchick (13x2 + 5 fD over rank 4) + 2 Wing + 12 Mitre + 6 Handyman
#                  + 18 Gnu (4+4+5+5) + 9 = 78
#   Kyoomagi       34 Helm (24 + 10) + 10 Carpenter + 10 Kangaroo + 22 Helmrider (incl. captures on
#                  f9 b9 l9 h9, each with and without promotion) + 0 Kyoo-horse + 9 = 85
#   Planetary      65 Asteroid (50 + 15) + 6 Venus + 8 Mars + 2 Knight + 0 Comet + 9 = 90
#   ND Chogi       31 Wazchick + 4 Sowon + 8 Goldsow + 12 Silverboar + 6 Catapchick + 9 = 70
#   Pashtun        31 Wazchick + 2 Lance + 12 Goldpashtun + 16 Silverpashtun + 6 Knight + 9 = 76
#   Pacifier       52 Pointpacifier + 2 Lance + 8 Goldpac. + 12 Silverpac. + 14 Helmpac. + 9 = 97
# By symmetry the second player has as many replies unless the first move reaches it:
#   HM, ND Chogi, Pashtun: the first player reaches rank 6 at most, the second rank 7: n * n.
#   Planetary: an Asteroid stepping to (x,7) stops the second player's Asteroid on (x,9), which
#     must land there (4 moves, 3 on the edge files): 90*90 - 50 = 8050.
#   Kyoomagi: a Helm landing on i6 k6 c6 e6 cuts a Helmrider line before its capture on rank 4
#     (-2 for each of 8 moves); a Helm leaving h4 l4 b4 f4 for g6 m6 a6 g6 lets the line go on
#     (+1 each); a Helmrider capturing on f9 / h9 takes 2 Helm moves, gives the Carpenter on the
#     same file a capture and covers g11, the second King's only move (-2, twice each); capturing on
#     b9 / l9 takes 2 Helm moves and lets the Kyoo-horse capture (-1, twice each):
#     85*85 - 16 + 4 - 8 - 4 = 7201.
#   Pacifier: Pointpacifier moves to ranks 5-8 shorten the facing Pointpacifier's slide (-9 per
#     file), stand on the second player's Helmpacifier lines (d8 j8 -4, c6 e6 i6 k6 -1) or open
#     them past b4 f4 h4 l4 (+2 +3 +3 +2, four moves each); Helmpacifier moves to d5/j5 (-1) and
#     e7/c7/k7/i7 (-3) shorten a Pointpacifier's slide: 97*97 - 117 - 12 + 40 - 16 = 9304.
PERFT = {
    "handy-mitregi": (78, 78 * 78),
    "kyoomagi": (85, 7201),
    "planetary-shogi": (90, 8050),
    "nearlydouble-chogi": (70, 70 * 70),
    "pashtun-shogi": (76, 76 * 76),
    "pacifier-shogi": (97, 9304),
}
PERFT_STEPPING = {"handy-mitregi": 78 - 5, "nearlydouble-chogi": 70 - 5, "pashtun-shogi": 76 - 13}


def perft_via_positions(board: Board, depth: int) -> int:
    """Sum over root moves of perft(depth - 1) from a board rebuilt from the position string."""
    total = 0
    for m in board.legal_moves():
        board.push(m)
        total += perft(Board(board.rules, board.position()), depth - 1)
        board.pop()
    return total


@pytest.mark.parametrize("slug", PLAYABLE)
def test_perft_2(slug):
    board = Board(load_variant(slug))
    depth1, depth2 = PERFT[slug]
    assert perft(board, 1) == depth1
    assert perft(board, 2) == depth2
    assert perft_via_positions(board, 2) == depth2


@pytest.mark.parametrize("slug", sorted(PERFT_STEPPING))
def test_perft_1_stepping(slug):
    # stepping: the rank-3 Wazchicks cannot pass the rank-4 ones (-5); in Pashtun Shogi also the
    # Gold/Silverpashtuns' 2-square moves over a piece (-8)
    board = Board(load_variant(slug), options={"two-square": "stepping"})
    assert perft(board, 1) == PERFT_STEPPING[slug]


@pytest.mark.slow
@pytest.mark.parametrize("slug", PLAYABLE)
def test_perft_3(slug):
    board = Board(load_variant(slug))
    assert perft(board, 3) == perft_via_positions(board, 3)
