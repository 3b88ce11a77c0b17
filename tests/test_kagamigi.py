"""Dai Kagamigi and Chu Kagamigi: promotion, demotion, Lion-type moves and drops.

Expectations come from the rules dossier (docs/rules/variants.md §2 and §3): promotion zone of
5 ranks (Dai) / 4 ranks (Chu), compulsory promotion where a piece would be stuck (Dai) or on the
furthest rank (Chu, the page's literal rule), the Lion Dog's up-to-three steps on a line with a
capture on each, the Soaring Eagle's lion power on the forward diagonals, shogi's drop rules.
"""

from __future__ import annotations

import pytest

from daikifu.replay import Board, Move, load_variant
from daikifu.replay.position import format_position
from daikifu.replay.squares import parse_square as sq
from daikifu.replay.perft import perft

from position_support import legal

DAI = load_variant("dai-kagamigi")
CHU = load_variant("chu-kagamigi")


def position(variant, pieces: dict, turn: str = "b", hands: str = "-") -> str:
    """A position string from {"e5": "P", "h15": "k", ...} (upper case = first player)."""
    cells = {}
    for name, token in pieces.items():
        piece = variant.piece(token)
        cells[sq(name)] = (piece.index, 0 if token.upper() == token else 1)
    text = format_position(variant, lambda f, r: cells.get((r + 3) * 32 + f + 3),
                           [[0] * (len(variant.pieces) + 1)] * 2, 0 if turn == "b" else 1, 1)
    board_part = text.split()[0]
    return f"{board_part} {turn} {hands} 1"


def board(variant, pieces, turn="b", hands="-", **options):
    return Board(variant, position(variant, pieces, turn, hands), options=options or None)


def move(text: str, promotion=None) -> Move:
    """Move from squares: 'e10-e11', or with kills 'h8-h9-h10' (the middle squares are kills)."""
    names = text.split("-")
    squares = [sq(n) for n in names]
    return Move(squares[0], squares[-1], tuple(squares[1:-1]), promotion)


# --- promotion -----------------------------------------------------------------------------------

KINGS = {"h1": "K", "h15": "k"}


def test_dai_promotion_is_optional_on_entering_the_zone():
    b = board(DAI, {**KINGS, "e10": "P"})
    assert legal(b, move("e10-e11", True))
    assert legal(b, move("e10-e11", False))
    assert not legal(b, move("e10-e11", None))  # the choice must be made


def test_dai_promotion_is_optional_when_leaving_the_zone():
    b = board(DAI, {**KINGS, "e11": "S"})
    assert legal(b, move("e11-d10", True))
    assert legal(b, move("e11-d10", False))
    b = board(DAI, {**KINGS, "e9": "S"})  # outside the zone both before and after
    assert legal(b, move("e9-e10", None))
    assert not legal(b, move("e9-e10", True))


@pytest.mark.parametrize("piece, start, end", [("P", "e14", "e15"), ("L", "e12", "e15"),
                                               ("N", "e12", "d14"), ("N", "e13", "f15")])
def test_dai_promotion_is_compulsory_where_the_piece_would_be_stuck(piece, start, end):
    b = board(DAI, {**KINGS, start: piece})
    assert legal(b, move(f"{start}-{end}", True))
    assert not legal(b, move(f"{start}-{end}", False))
    assert "compulsory" in b.illegal_reason(move(f"{start}-{end}", False))


def test_dai_knight_entering_rank_13_may_decline():
    b = board(DAI, {**KINGS, "e11": "N"})
    assert legal(b, move("e11-d13", False))


def test_dai_second_player_promotes_in_ranks_1_to_5():
    b = board(DAI, {**KINGS, "e6": "p"}, turn="w")
    assert legal(b, move("e6-e5", True)) and legal(b, move("e6-e5", False))
    b = board(DAI, {**KINGS, "e2": "p"}, turn="w")
    assert legal(b, move("e2-e1", True)) and not legal(b, move("e2-e1", False))


def test_dai_rook_may_decline_on_the_last_rank_but_chu_rook_must_promote():
    b = board(DAI, {**KINGS, "e10": "R"})
    assert legal(b, move("e10-e15", False))
    c = board(CHU, {"a1": "K", "l12": "k", "e9": "R"})
    assert legal(c, move("e9-e12", True))
    assert not legal(c, move("e9-e12", False))
    assert legal(c, move("e9-e11", False))  # rank 11 is in the zone but not the furthest rank
    stuck_only = board(CHU, {"a1": "K", "l12": "k", "e9": "R"}, **{"forced-promotion": "stuck"})
    assert legal(stuck_only, move("e9-e12", False))


def test_promotion_follows_the_promotion_table():
    b = board(DAI, {**KINGS, "e10": "KR", "k10": "PH", "c10": "DV", "m10": "DSP"})
    expected = {"e10": ("e11", "CS"), "k10": ("k11", "GD"), "c10": ("c11", "SW"), "m10": ("m11", "SO")}
    for origin, (target, promoted) in expected.items():
        m = move(f"{origin}-{target}", True)
        if not legal(b, m):  # the Kirin leaps, the others step: pick any promoting move
            m = next(x for x in b.legal_moves() if x.from_square == sq(origin) and x.promotion)
        b.push(m)
        assert b.piece_at(m.to_square).id == promoted
        b.pop()


# --- demotion and hands --------------------------------------------------------------------------


def test_chu_captured_promoted_piece_goes_to_hand_unpromoted():
    b = board(CHU, {"a1": "K", "l12": "k", "e5": "R", "e8": "dk"})
    b.play(move("e5-e8"))
    assert b.hand(0) == {"R": 1}


def test_dai_has_no_hands():
    b = board(DAI, {**KINGS, "e5": "R", "e8": "dk"})
    b.play(move("e5-e8"))
    assert b.hand(0) == {}
    assert not any(m.drop for m in b.legal_moves())


# --- Lion Dog ------------------------------------------------------------------------------------


def test_lion_dog_captures_twice_on_a_line():
    b = board(DAI, {**KINGS, "h8": "!LD", "h9": "p", "h10": "p"})
    m = move("h8-h9-h10")  # capture h9 on the way, capture h10 and stop there
    assert legal(b, m)
    b.push(m)
    assert b.piece_at(sq("h10")).id == "!LD"
    assert b.piece_at(sq("h9")) is None and b.piece_at(sq("h8")) is None


def test_lion_dog_three_steps_capturing_and_back_one():
    b = board(DAI, {**KINGS, "h8": "!LD", "h9": "p", "h10": "p"})
    assert legal(b, move("h8-h9-h10-h11"))  # two captures on the way, ends on the empty h11
    # three steps where the last goes back: ends on h9, both victims gone
    m = Move(sq("h8"), sq("h9"), (sq("h10"),))
    assert legal(b, m)
    b.push(m)
    assert b.piece_at(sq("h10")) is None and b.piece_at(sq("h9")).id == "!LD"


def test_lion_dog_igui_and_pass():
    b = board(DAI, {**KINGS, "h8": "!LD", "h9": "p"})
    igui = move("h8-h9-h8")
    assert legal(b, igui)
    b.push(igui)
    assert b.piece_at(sq("h8")).id == "!LD" and b.piece_at(sq("h9")) is None
    b.pop()
    assert legal(b, move("h8-h8"))  # pass: step to an empty neighbour and back
    passes = [m for m in b.legal_moves() if m.is_pass]
    assert len(passes) == 1


def test_lion_dog_is_blocked_by_own_pieces_and_does_not_jump():
    b = board(DAI, {**KINGS, "h8": "!LD", "i9": "P", "h9": "P"})
    assert not legal(b, move("h8-j10"))
    assert not legal(b, move("h8-h10"))
    assert not legal(b, move("h8-h11"))
    assert legal(b, move("h8-h5"))  # three steps straight back over empty squares


def test_lion_dog_reaches_three_squares_only():
    b = board(DAI, {**KINGS, "h8": "!LD"})
    assert legal(b, move("h8-k11")) and not legal(b, move("h8-l12"))


def test_pass_forbidden_option_keeps_igui():
    b = board(DAI, {**KINGS, "h8": "!LD", "h9": "p"}, **{"pass": "forbidden"})
    assert not legal(b, move("h8-h8"))
    assert legal(b, move("h8-h9-h8"))
    assert legal(b, move("h8-h9-h10"))


def test_second_player_lion_dog_moves_downwards_too():
    b = board(DAI, {**KINGS, "h8": "!ld", "h7": "P", "h6": "P"}, turn="w")
    assert legal(b, move("h8-h7-h6"))
    assert legal(b, move("h8-h7-h8"))


# --- Soaring Eagle -------------------------------------------------------------------------------


# kings off the Soaring Eagle's rook lines (h-file, rank 8)
CORNER_KINGS = {"a1": "K", "o15": "k"}


def test_soaring_eagle_lion_power_on_the_forward_diagonals():
    b = board(DAI, {**CORNER_KINGS, "h8": "SE", "i9": "p", "j10": "p"})
    assert legal(b, move("h8-i9-j10"))  # double capture
    assert legal(b, move("h8-i9-h8"))  # igui
    assert legal(b, move("h8-h8"))  # pass, via the empty g9
    assert not legal(b, move("h8-k11"))  # no forward-diagonal slide beyond two squares


def test_soaring_eagle_has_no_lion_power_straight_forward_in_the_prose_reading():
    b = board(DAI, {**KINGS, "h8": "SE", "h9": "p", "h10": "p"})
    assert not legal(b, move("h8-h9-h10"))
    assert not legal(b, move("h8-h9-h8"))
    assert legal(b, move("h8-h9"))  # an ordinary rook capture


def test_soaring_eagle_literal_option_reads_the_string_as_written():
    pieces = {**KINGS, "h8": "SE", "h9": "p", "h10": "p"}
    b = board(DAI, pieces, **{"soaring-eagle": "literal"})
    assert legal(b, move("h8-h9-h10")) and legal(b, move("h8-h9-h8"))
    assert not legal(b, move("h8-i9"))  # the literal string has no forward-diagonal move


def test_second_player_soaring_eagle_uses_its_own_forward_diagonals():
    b = board(DAI, {**CORNER_KINGS, "h8": "se", "g7": "P", "f6": "P"}, turn="w")
    assert legal(b, move("h8-g7-f6"))
    assert not legal(b, move("h8-i9-j10"))


# --- Chu Kagamigi drops --------------------------------------------------------------------------

CHU_KINGS = {"a1": "K", "l12": "k"}


def test_chu_drop_restrictions():
    b = board(CHU, {**CHU_KINGS, "e4": "P"}, hands="PNL")

    def drop(pid, name):
        return Move(None, sq(name), (), None, pid)
    assert not legal(b, drop("P", "e6"))  # a second unpromoted pawn on the file
    assert legal(b, drop("P", "f6"))
    assert not legal(b, drop("P", "f12"))  # could never move
    assert not legal(b, drop("L", "f12"))
    assert not legal(b, drop("N", "f11")) and not legal(b, drop("N", "f12"))
    assert legal(b, drop("N", "f10"))
    assert legal(b, drop("P", "f10"))  # inside the zone, no promotion on the drop


def test_chu_promoted_pawn_does_not_count_for_nifu():
    b = board(CHU, {**CHU_KINGS, "e10": "+P"}, hands="P")
    assert legal(b, Move(None, sq("e6"), (), None, "P"))


def _drop_mate_position(protected: bool):
    # the king's other squares are taken by its own lances, which cannot capture sideways
    pieces = {"a1": "K", "e12": "k", "d12": "l", "f12": "l", "d11": "l", "f11": "l"}
    if protected:
        pieces["e10"] = "G"
    return board(CHU, pieces, hands="PG")


def test_chu_pawn_drop_mate_is_illegal():
    b = _drop_mate_position(protected=True)
    m = Move(None, sq("e11"), (), None, "P")
    assert not legal(b, m)
    assert "checkmate" in b.illegal_reason(m)


def test_chu_pawn_drop_check_that_is_not_mate_is_legal():
    b = _drop_mate_position(protected=False)  # the king can take the pawn
    assert legal(b, Move(None, sq("e11"), (), None, "P"))


def test_chu_mate_by_dropping_another_piece_is_legal():
    b = _drop_mate_position(protected=True)
    m = Move(None, sq("e11"), (), None, "G")
    assert legal(b, m)
    b.push(m)
    assert b.is_checkmate()
    assert b.outcome().winner == 0 and b.outcome().termination == "checkmate"


def test_chu_second_player_drops_mirror_the_first():
    b = board(CHU, {**CHU_KINGS, "e9": "p"}, turn="w", hands="pn")

    def drop(pid, name):
        return Move(None, sq(name), (), None, pid)
    assert not legal(b, drop("P", "e5"))
    assert not legal(b, drop("P", "f1"))
    assert not legal(b, drop("N", "f2"))
    assert legal(b, drop("N", "f3"))


# --- perft ---------------------------------------------------------------------------------------



def brute_force_count(b):
    """Legal moves found by asking the single-move check about every candidate move."""
    count = 0
    for origin in b.pieces(b.turn):
        for target in b.rules.squares:
            for promotion in (None, True, False):
                if b.illegal_reason(Move(origin, target, (), promotion)) is None:
                    count += 1
    for pid in b.hand(b.turn):
        for target in b.rules.squares:
            if b.illegal_reason(Move(None, target, (), None, pid)) is None:
                count += 1
    return count


@pytest.mark.parametrize("variant", [DAI, CHU], ids=lambda v: v.slug)
def test_perft_depth_1_and_2(variant):
    b = Board(variant)
    first = perft(b, 1)
    assert first == brute_force_count(b)
    # the start position is symmetric under rotation: the second player has as many moves
    swapped = Board(variant, variant.start.replace(" b ", " w "))
    assert perft(swapped, 1) == first
    assert perft(swapped, 2) == perft(b, 2)
    # depth 2 agrees with the single-move check on a sample of first moves
    for m in b.legal_moves()[::15]:
        b.push(m)
        assert perft(b, 1) == brute_force_count(b)
        b.pop()


@pytest.mark.slow
@pytest.mark.parametrize("variant", [DAI, CHU], ids=lambda v: v.slug)
def test_perft_depth_3(variant):
    b = Board(variant)
    swapped = Board(variant, variant.start.replace(" b ", " w "))
    assert perft(b, 3) == perft(swapped, 3)
