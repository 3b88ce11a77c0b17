"""Targeted tests of the shogi rules: promotion, drops, check, hashing, repetition, game end.

Positions are written from the first player's (Sente's) point of view with USI squares and
SFEN pieces; ``side`` parametrises each test so that it also runs on the position turned 180
degrees with the colours swapped (``flip_sfen``/``flip_usi``), i.e. for the second player.
"""

from __future__ import annotations

import random

import pytest

from daikifu.replay import FIRST, SECOND, Board, IllegalMoveError, Outcome

from shogi_helpers import flip_sfen, flip_usi, perft, play_usi, raw_move, sfen, to_usi

SIDES = [FIRST, SECOND]
KINGS = {"5i": "K", "5a": "k"}


def setup(side: int, pieces: dict, hands: str = "-", turn: str = "b") -> Board:
    """A board with ``pieces`` (written for Sente) as given, or flipped when ``side`` is SECOND."""
    text = sfen(pieces, turn, hands)
    return Board("shogi", position=text if side == FIRST else flip_sfen(text))


def u(side: int, usi: str) -> str:
    """A USI move written for Sente, turned for ``side``."""
    return usi if side == FIRST else flip_usi(usi)


def usi_set(board: Board) -> set:
    return {to_usi(m) for m in board.legal_moves()}


def generated(board: Board, usi: str, promotion) -> list:
    """Generated moves written ``usi`` (without suffix) with the given promotion flag."""
    base = raw_move(usi, promotion)
    return [m for m in board.legal_moves() if m == base]


def assert_illegal(board: Board, move, reason_part: str) -> None:
    before = (board.position(), board.zobrist, len(board.move_stack))
    assert move not in board.legal_moves()
    assert not board.is_legal(move)
    reason = board.illegal_reason(move)
    assert reason is not None and reason_part in reason, reason
    with pytest.raises(IllegalMoveError) as info:
        board.play(move)
    assert info.value.reason == reason
    assert (board.position(), board.zobrist, len(board.move_stack)) == before


# --- promotion -------------------------------------------------------------------------------


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("pieces, move", [
    ({"4d": "S"}, "4d4c"),  # entering the zone
    ({"4c": "S"}, "4c4b"),  # within the zone
    ({"4c": "S"}, "4c5d"),  # leaving the zone (silver's backward diagonal)
    ({"2b": "R"}, "2b2h"),  # leaving the zone far
    ({"8h": "B"}, "8h3c"),  # entering from afar
    ({"1e": "L"}, "1e1b"),  # lance to the second-to-last rank: may stay unpromoted
    ({"2e": "N"}, "2e1c"),  # knight to the third-to-last rank: may stay unpromoted
    ({"4d": "P"}, "4d4c"),  # pawn entering
    ({"4c": "P"}, "4c4b"),  # pawn within
    ({"4c": "S", "3b": "n"}, "4c3b"),  # capturing in the zone
])
def test_optional_promotion(side, pieces, move):
    board = setup(side, {**KINGS, **pieces})
    usi = u(side, move)
    assert len(generated(board, usi, True)) == 1
    assert len(generated(board, usi, False)) == 1
    assert not generated(board, usi, None)
    for promotion in (True, False):
        m = raw_move(usi, promotion)
        assert board.illegal_reason(m) is None
        board.play(m)
        square = raw_move(usi).to_square
        piece = board.piece_at(square)
        assert piece.colour == side
        assert piece.id.startswith("+") == promotion
        board.pop()
    # a move that can promote must say whether it does
    assert_illegal(board, raw_move(usi, None), "promotion must be chosen")


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("pieces, move", [
    ({"4e": "S"}, "4e4d"),  # outside the zone
    ({"3c": "G"}, "3c3b"),  # gold never promotes
    ({"4c": "+S"}, "4c4b"),  # already promoted
    ({"5h": "+R"}, "5h5c"),  # already promoted, entering the zone
])
def test_no_promotion_possible(side, pieces, move):
    board = setup(side, {"9i": "K", "1a": "k", **pieces})
    usi = u(side, move)
    assert len(generated(board, usi, None)) == 1
    assert not generated(board, usi, True) and not generated(board, usi, False)
    assert_illegal(board, raw_move(usi, True), "cannot promote")
    assert_illegal(board, raw_move(usi, False), "cannot promote")


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("pieces, move", [
    ({"3b": "P"}, "3b3a"),  # pawn to the last rank
    ({"3b": "P", "3a": "n"}, "3b3a"),  # ... capturing
    ({"1e": "L"}, "1e1a"),  # lance to the last rank
    ({"2c": "N"}, "2c1a"),  # knight to the last rank
    ({"2d": "N"}, "2d1b"),  # knight to the second-to-last rank
    ({"2d": "N", "3b": "g"}, "2d3b"),  # ... capturing
])
def test_forced_promotion(side, pieces, move):
    board = setup(side, {**KINGS, **pieces})
    usi = u(side, move)
    assert [m.promotion for m in board.legal_moves() if to_usi(m).rstrip("+") == usi] == [True]
    assert_illegal(board, raw_move(usi, False), "promotion is compulsory here")
    assert_illegal(board, raw_move(usi, None), "promotion must be chosen")
    board.play(raw_move(usi, True))
    assert board.piece_at(raw_move(usi).to_square).id.startswith("+")


# --- captures go to hand unpromoted ----------------------------------------------------------


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("victim, in_hand", [
    ("+r", "R"), ("+b", "B"), ("+s", "S"), ("+n", "N"), ("+l", "L"), ("+p", "P"),
    ("r", "R"), ("g", "G"), ("p", "P"),
])
@pytest.mark.parametrize("capturer, move", [("R", "2h2d"), ("+R", "2h2d"), ("+B", "4f2d")])
def test_captured_piece_goes_to_hand_unpromoted(side, victim, in_hand, capturer, move):
    start = {**KINGS, move[:2]: capturer, "2d": victim}
    board = setup(side, start, hands="P")
    before = board.position()
    zobrist = board.zobrist
    board.play(raw_move(u(side, move)))
    assert board.hand(side) == ({"P": 1, in_hand: 1} if in_hand != "P" else {"P": 2})
    assert board.hand(side ^ 1) == {}
    # the position string and a fresh board agree
    assert Board("shogi", position=board.position()).zobrist == board.zobrist
    # the piece comes back promoted on pop
    board.pop()
    assert board.position() == before and board.zobrist == zobrist
    assert str(board.piece_at(raw_move(u(side, move)).to_square)) == (victim if side == FIRST else victim.swapcase())


@pytest.mark.parametrize("side", SIDES)
def test_captured_promoted_piece_can_be_dropped_unpromoted(side):
    board = setup(side, {**KINGS, "2h": "R", "2d": "+r", "8d": "p"})
    play_usi(board, u(side, "2h2d"), u(side, "5a4a"))
    drops = {m.drop for m in board.legal_moves() if m.drop}
    assert drops == {"R"}
    board.play(raw_move(u(side, "R*5e")))
    assert board.piece_at(raw_move(u(side, "R*5e")).to_square).id == "R"


# --- drops -----------------------------------------------------------------------------------


@pytest.mark.parametrize("side", SIDES)
def test_nifu(side):
    # own unpromoted pawn on file 5, own tokin on file 4, enemy pawn on file 3
    board = setup(side, {**KINGS, "5g": "P", "4c": "+P", "3c": "p"}, hands="P")
    drops = {to_usi(m) for m in board.legal_moves() if m.drop == "P"}
    assert drops and not any(usi[2] == "5" for usi in drops)
    for ok in ("P*4e", "P*3e", "P*4d", "P*9b"):
        assert u(side, ok) in drops
    assert_illegal(board, raw_move(u(side, "P*5e")), "unpromoted P")
    assert_illegal(board, raw_move(u(side, "P*5b")), "unpromoted P")


@pytest.mark.parametrize("side", SIDES)
def test_nifu_after_pawn_promotes(side):
    board = setup(side, {**KINGS, "5d": "P"}, hands="P")
    assert_illegal(board, raw_move(u(side, "P*5f")), "unpromoted P")
    play_usi(board, u(side, "5d5c+"), u(side, "5a4a"))
    board.play(raw_move(u(side, "P*5f")))  # the tokin no longer counts


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("piece, dead_ranks, live_rank", [("P", "a", "b"), ("L", "a", "b"), ("N", "ab", "c")])
def test_no_drop_on_dead_squares(side, piece, dead_ranks, live_rank):
    board = setup(side, {"5i": "K", "1i": "k"}, hands=piece)
    drops = {to_usi(m) for m in board.legal_moves() if m.drop}
    for rank in dead_ranks:
        for f in range(1, 10):
            usi = u(side, f"{piece}*{f}{rank}")
            assert usi not in drops
            assert_illegal(board, raw_move(usi), "could never move")
    for f in range(1, 10):
        assert u(side, f"{piece}*{f}{live_rank}") in drops
    expected = 81 - 2 - 9 * len(dead_ranks)
    assert len(drops) == expected


@pytest.mark.parametrize("side", SIDES)
def test_drop_only_on_empty_squares_and_from_hand(side):
    board = setup(side, {**KINGS, "5e": "p"}, hands="G")
    assert_illegal(board, raw_move(u(side, "G*5e")), "not empty")
    assert_illegal(board, raw_move(u(side, "S*4e")), "no S in hand")
    assert_illegal(board, raw_move(u(side, "G*4e"), True), "no origin, captures or promotion")


# A pawn dropped on 1b checks the king on 1a; the gold on 2c guards 1b and 2b; the knight on 2a
# blocks the king's last square.
UCHIFUZUME = {"5i": "K", "1a": "k", "2a": "n", "2c": "G"}


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("extra, why", [
    ({}, "plain"),
    ({"2b": "s"}, "a silver on 2b cannot take sideways"),
    ({"2b": "g", "5e": "B"}, "the gold on 2b could take the pawn but is pinned by the bishop on 5e"),
    ({"3a": "s", "3b": "g"}, "neither reaches 1b"),
])
def test_pawn_drop_mate_is_illegal(side, extra, why):
    board = setup(side, {**UCHIFUZUME, **extra}, hands="P")
    assert_illegal(board, raw_move(u(side, "P*1b")), "may not give checkmate")
    assert u(side, "P*1c") in usi_set(board)  # other pawn drops are fine


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("pieces, why", [
    ({"5i": "K", "1a": "k", "2c": "G"}, "the king escapes to 2a"),
    ({"5i": "K", "1a": "k", "2a": "n"}, "the king takes the unguarded pawn"),
    ({**UCHIFUZUME, "2b": "g"}, "the gold on 2b takes the pawn"),
    ({**UCHIFUZUME, "9b": "r"}, "the rook on 9b takes the pawn from afar"),
    ({**UCHIFUZUME, "2b": "g", "5e": "B", "4d": "p"}, "the gold on 2b is not pinned (4d blocks)"),
])
def test_pawn_drop_check_that_is_not_mate_is_legal(side, pieces, why):
    board = setup(side, pieces, hands="P")
    usi = u(side, "P*1b")
    assert usi in usi_set(board), why
    assert board.illegal_reason(raw_move(usi)) is None
    board.play(raw_move(usi))
    assert board.is_check() and not board.is_checkmate() and board.outcome() is None


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("piece", ["G", "S", "L", "R"])
def test_non_pawn_drop_mate_is_legal(side, piece):
    board = setup(side, UCHIFUZUME, hands=piece + "P")
    drop = u(side, f"{piece}*1b")
    assert drop in usi_set(board)
    board.play(raw_move(drop))
    assert board.is_check() and board.is_checkmate()
    assert board.outcome() == Outcome("checkmate", side)


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("move", ["1c1b", "1c1b+"])
def test_pawn_move_mate_is_legal(side, move):
    board = setup(side, {**UCHIFUZUME, "1c": "P"})
    board.play(raw_move(u(side, move), move.endswith("+")))
    assert board.is_checkmate()
    assert board.outcome() == Outcome("checkmate", side)
    assert board.outcome().result() == ("1-0" if side == FIRST else "0-1")


# --- check -----------------------------------------------------------------------------------


@pytest.mark.parametrize("side", SIDES)
def test_pinned_piece_may_not_leave_the_line(side):
    board = setup(side, {"5i": "K", "5h": "G", "5a": "r", "1a": "k"})
    assert_illegal(board, raw_move(u(side, "5h4h")), "leaves the mover's royal piece in check")
    assert_illegal(board, raw_move(u(side, "5h6g")), "leaves the mover's royal piece in check")
    assert u(side, "5h5g") in usi_set(board)  # along the line is fine


@pytest.mark.parametrize("side", SIDES)
def test_king_may_not_move_into_check(side):
    board = setup(side, {"5i": "K", "4a": "r", "1a": "k", "7f": "n"})
    assert_illegal(board, raw_move(u(side, "5i4h")), "leaves the mover's royal piece in check")
    assert_illegal(board, raw_move(u(side, "5i6h")), "leaves the mover's royal piece in check")  # knight
    assert usi_set(board) == {u(side, m) for m in ("5i5h", "5i6i")}


@pytest.mark.parametrize("side", SIDES)
def test_check_must_be_answered(side):
    # the rook on 5a checks down the file: block with a gold drop, or step aside
    board = setup(side, {"5i": "K", "5a": "r", "1a": "k", "9i": "L", "3h": "S"}, hands="G")
    assert board.is_check() and not board.is_checkmate()
    blocks = {u(side, f"G*5{r}") for r in "bcdefgh"}
    king = {u(side, m) for m in ("5i4i", "5i6i", "5i4h", "5i6h")}
    assert usi_set(board) == blocks | king
    assert_illegal(board, raw_move(u(side, "5i5h")), "leaves the mover's royal piece in check")
    assert_illegal(board, raw_move(u(side, "3h4g")), "leaves the mover's royal piece in check")
    assert_illegal(board, raw_move(u(side, "G*4e")), "leaves the mover's royal piece in check")


# --- hashing ---------------------------------------------------------------------------------


def test_transposition_same_hash_and_position():
    a, b = Board("shogi"), Board("shogi")
    play_usi(a, "7g7f", "3c3d", "2g2f", "4c4d")
    play_usi(b, "2g2f", "4c4d", "7g7f", "3c3d")
    assert a.position() == b.position()
    assert a.zobrist == b.zobrist
    assert a.zobrist != Board("shogi").zobrist


def test_transposition_with_captures_and_drops():
    # bishop exchange, then the bishops are dropped in the other order
    a, b = Board("shogi"), Board("shogi")
    opening = ["7g7f", "3c3d", "8h2b+", "3a2b"]
    play_usi(a, *opening, "B*5e", "B*5d", "2g2f", "8c8d")
    play_usi(b, *opening, "2g2f", "8c8d", "B*5e", "B*5d")
    assert a.position() == b.position()
    assert a.zobrist == b.zobrist
    # the hash of a fresh board from the position string is the incremental one
    assert Board("shogi", position=a.position()).zobrist == a.zobrist


def test_hash_depends_on_side_to_move_and_hands():
    position = sfen({**KINGS, "2c": "G"}, "b", "P")
    base = Board("shogi", position=position)
    others = [
        sfen({**KINGS, "2c": "G"}, "w", "P"),
        sfen({**KINGS, "2c": "G"}, "b", "p"),
        sfen({**KINGS, "2c": "G"}, "b", "2P"),
        sfen({**KINGS, "2c": "G"}, "b", "-"),
        sfen({**KINGS, "2c": "g"}, "b", "P"),
        sfen({**KINGS, "2c": "+P"}, "b", "P"),
    ]
    hashes = {Board("shogi", position=p).zobrist for p in others}
    assert base.zobrist not in hashes and len(hashes) == len(others)
    # the move number is not part of the position
    assert Board("shogi", position=position.rsplit(" ", 1)[0] + " 37").zobrist == base.zobrist
    assert -(1 << 63) <= base.zobrist < (1 << 63)


@pytest.mark.parametrize("seed", range(4))
def test_push_pop_restores_position_and_hash(seed):
    rng = random.Random(seed)
    board = Board("shogi")
    trail = []
    for _ in range(120):
        moves = board.legal_moves()
        if not moves:
            break
        trail.append((board.position(), board.zobrist, board.repetitions(), len(moves)))
        # prefer captures, drops and promotions so that hands fill up
        weights = [1 + 5 * (m.drop is not None or m.promotion is True
                            or (m.drop is None and board.piece_at(m.to_square) is not None)) for m in moves]
        board.push(rng.choices(moves, weights)[0])
        assert Board("shogi", position=board.position()).zobrist == board.zobrist
    assert any(board.hands[0]) or any(board.hands[1])
    while board.move_stack:
        board.pop()
        assert (board.position(), board.zobrist, board.repetitions(), len(board.legal_moves())) == trail.pop()
    assert board.position() == Board("shogi").position()


# --- repetition and game end -----------------------------------------------------------------


def test_fourfold_repetition_is_a_draw():
    board = Board("shogi")
    cycle = ["5i5h", "5a5b", "5h5i", "5b5a"]
    assert board.repetitions() == 1
    for n in range(2, 5):
        for usi in cycle:
            assert board.outcome() is None
            play_usi(board, usi)
        assert board.repetitions() == n
        assert board.position().split()[:3] == Board("shogi").position().split()[:3]
    assert board.is_fourfold_repetition()
    assert board.outcome() == Outcome("repetition", None)
    assert board.outcome().result() == "1/2-1/2"
    board.pop()
    assert board.outcome() is None


def test_repetition_needs_the_same_side_to_move():
    # the kings come back in five plies: the same placement, but the other side to move
    board = Board("shogi", position=sfen(KINGS))
    play_usi(board, "5i5h", "5a5b", "5h4i", "5b5a", "4i5i")
    assert board.position().split()[0] == sfen(KINGS).split()[0]
    assert board.repetitions() == 1
    play_usi(board, "5a5b", "5i5h", "5b5a", "5h5i")
    assert board.repetitions() == 2


@pytest.mark.parametrize("side", SIDES)
@pytest.mark.parametrize("in_check_at_start", [False, True])
def test_perpetual_check_loses(side, in_check_at_start):
    # the rook checks from 1i and 2i in turn; the king steps between 1a and 2a.  The repeated
    # position is either the one before a check or the one after it.
    if in_check_at_start:
        board = setup(side, {"9i": "K", "1i": "R", "1a": "k"}, turn="w")
        cycle = [u(side, m) for m in ("1a2a", "1i2i", "2a1a", "2i1i")]
    else:
        board = setup(side, {"9i": "K", "2i": "R", "1a": "k"})
        cycle = [u(side, m) for m in ("2i1i", "1a2a", "1i2i", "2a1a")]
    for _ in range(3):
        for usi in cycle:
            assert board.outcome() is None
            play_usi(board, usi)
            # after each of the attacker's moves the defender is in check, and only then
            assert board.is_check() == (board.turn != side)
    assert board.repetitions() == 4
    assert board.perpetual_checker() == side
    assert board.outcome() == Outcome("perpetual-check", side ^ 1)
    assert board.outcome().result() == ("0-1" if side == FIRST else "1-0")


@pytest.mark.parametrize("side", SIDES)
def test_repetition_with_checks_by_one_side_only_now_and_then_is_a_draw(side):
    # as above, but one rook move of the cycle does not check (the rook goes to 3i, not 1i)
    board = setup(side, {"9i": "K", "2i": "R", "1a": "k"})
    cycle = [u(side, m) for m in ("2i3i", "1a2a", "3i2i", "2a1a")]
    for _ in range(3):
        play_usi(board, *cycle)
    assert board.repetitions() == 4
    assert board.perpetual_checker() is None
    assert board.outcome() == Outcome("repetition", None)


@pytest.mark.parametrize("side", SIDES)
def test_checkmate_outcome(side):
    board = setup(side, UCHIFUZUME, hands="G")
    assert board.outcome() is None and not board.is_checkmate()
    play_usi(board, u(side, "G*1b"))
    assert board.is_checkmate()
    assert board.legal_moves() == []
    assert board.outcome() == Outcome("checkmate", side)


@pytest.mark.parametrize("side", SIDES)
def test_stalemate_loses(side):
    # the king on 1a has no move and is not in check; shogi counts that as a loss
    board = setup(side, {"5i": "K", "1a": "k", "2b": "P", "1c": "G"}, turn="w")
    assert not board.is_check() and board.legal_moves() == []
    assert board.is_stalemate() and not board.is_checkmate()
    assert board.outcome() == Outcome("stalemate", side)


def test_start_position_perft_2_by_side():
    # a sanity check of the flip helpers: the start position flipped is the start position with
    # the second player to move, and has the same number of moves
    start = Board("shogi")
    flipped = Board("shogi", position=flip_sfen(start.position()))
    assert flipped.position().split()[0] == start.position().split()[0]
    assert perft(flipped, 2) == 900


def test_taking_back_restores_initial_moves():
    """A move taken back gives the piece its initial-only moves again (a variant whose Pawn has
    an initial double step, ``ifnD``); and a long line taken back move by move passes through
    the same positions, hashes and legal moves as on the way out."""
    import tomllib
    from importlib.resources import files

    from daikifu.replay import compile_rules
    from daikifu.replay.variant import variant_from_dict

    data = tomllib.loads(files("daikifu.replay").joinpath("variants/shogi.toml").read_text(encoding="utf-8"))
    data["slug"], data["name"] = "initial-step", "Initial Step"
    [pawn] = [p for p in data["pieces"] if p["id"] == "P"]
    pawn["betza"] = "fWifnD"
    board = Board(compile_rules(variant_from_dict(data), {}))
    assert board.rules.uses_initial
    rng = random.Random(5)
    seen = []
    for _ in range(40):
        legal = board.legal_moves()
        if not legal:
            break
        seen.append((board.position(), board.zobrist, sorted(map(str, legal))))
        board.push(rng.choice(legal))
    assert "c3c5" in seen[0][2]  # the double step is there at the start
    while seen:
        board.pop()
        position, zobrist, legal = seen.pop()
        assert (board.position(), board.zobrist, sorted(map(str, board.legal_moves()))) == (position, zobrist, legal)
