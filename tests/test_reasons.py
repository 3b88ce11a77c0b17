"""Why a move is illegal, as data: each refusal carries an :class:`IllegalReason` code with its
message, the board's single-move check, ``play``, the USI reader and the notation reader agree
on it, and the readers that act on a refusal decide by the code."""

from __future__ import annotations

import pytest

from daikifu.replay import Board, IllegalMoveError, IllegalReason
from daikifu.replay.notation import NotationError, parse_move
from daikifu.replay.usi import UsiError, usi_to_move

from shogi_helpers import raw_move, sfen

KINGS = {"5i": "K", "5a": "k"}


def _board(pieces: dict, hands: str = "-") -> Board:
    return Board("shogi", position=sfen({**KINGS, **pieces}, "b", hands))


# (pieces, hands, USI move, promotion, the code, the message as it has always read)
CASES = [
    ({"4d": "S"}, "-", "4d4c", None, IllegalReason.PROMOTION_MUST_BE_CHOSEN,
     "the move can promote: promotion must be chosen"),
    ({"4f": "S"}, "-", "4f4e", True, IllegalReason.CANNOT_PROMOTE, "the piece cannot promote on this move"),
    ({"1b": "P"}, "-", "1b1a", False, IllegalReason.PROMOTION_COMPULSORY, "promotion is compulsory here"),
    ({"5h": "G", "5c": "r"}, "-", "5h4h", None, IllegalReason.LEAVES_ROYAL_IN_CHECK,
     "it leaves the mover's royal piece in check"),
    ({"4g": "P"}, "P", "P*4e", None, IllegalReason.DROP_CAP_REACHED,
     "the mover already has the most unpromoted P allowed on that file"),
    ({}, "-", "P*4e", None, IllegalReason.NOT_IN_HAND, "no P in hand"),
    ({"4g": "G"}, "-", "4g2e", None, IllegalReason.PIECE_CANNOT_MOVE_SO, "the G on f3 cannot make that move"),
    ({"4g": "G", "4f": "P"}, "-", "4g4f", None, IllegalReason.OWN_PIECE_ON_DESTINATION,
     "the destination holds the mover's own piece"),
    ({}, "-", "4g4f", None, IllegalReason.EMPTY_ORIGIN, "there is no piece on the origin square"),
]


@pytest.mark.parametrize("pieces, hands, usi, promotion, code, message", CASES,
                         ids=[c[4].name for c in CASES])
def test_each_refusal_has_its_code_and_its_message(pieces, hands, usi, promotion, code, message):
    board = _board(pieces, hands)
    move = raw_move(usi, promotion)
    refused = board.illegality(move)
    assert refused is not None and refused.code is code and refused.message == message
    assert str(refused) == message and board.illegal_reason(move) == message
    before = board.position()
    with pytest.raises(IllegalMoveError) as info:
        board.play(move)
    assert info.value.code is code and info.value.reason == message
    assert board.position() == before


def test_a_legal_move_has_no_reason():
    board = Board("shogi")
    move = board.legal_moves()[0]
    assert board.illegality(move) is None and board.illegal_reason(move) is None


def test_drop_mate_has_its_code():
    # a pawn dropped in front of a king that has nowhere to go, the pawn protected
    board = Board("shogi", position=sfen({"1a": "k", "2a": "n", "2b": "p", "1c": "G", "5i": "K"}, "b", "P"))
    refused = board.illegality(raw_move("P*1b"))
    assert refused is not None and refused.code is IllegalReason.DROP_MATE
    assert refused.message == "dropping P may not give checkmate"


def test_the_usi_reader_carries_the_code():
    board = _board({"1b": "P"})
    with pytest.raises(UsiError) as info:
        usi_to_move(board, "1b2a")
    assert info.value.code is IllegalReason.PIECE_CANNOT_MOVE_SO
    # no promotion written where it must be chosen: read as declined, and why that is refused
    with pytest.raises(UsiError) as info:
        usi_to_move(_board({"3d": "N"}), "3d2b")
    assert info.value.code is IllegalReason.PROMOTION_COMPULSORY
    assert info.value.reason == "illegal: promotion is compulsory here"


def test_the_notation_reader_carries_the_code_and_asks_for_the_promotion():
    board = _board({"4d": "S"})
    with pytest.raises(NotationError) as info:
        parse_move(board, "S-f7")
    assert info.value.code is IllegalReason.PROMOTION_MUST_BE_CHOSEN and info.value.expected == "'+' or '='"
    assert parse_move(board, "S-f7+").promotion is True
    # a compulsory promotion left unwritten is read as made
    assert parse_move(_board({"1b": "P"}), "P-i9").promotion is True
