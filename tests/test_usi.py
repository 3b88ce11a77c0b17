"""USI moves and positions for every variant (replay/usi.py): standard USI on the 9x9 board,
lishogi's convention (file numbers, rank letters, from-mid-to double moves) on larger boards."""

from __future__ import annotations

import random
import re

import pytest

from daikifu import replay
from daikifu.replay import Board, Move, load_variant
from daikifu.replay.squares import parse_square
from daikifu.replay.usi import (UsiError, board_from_usi, format_usi_position, move_to_usi, parse_usi_move,
                                parse_usi_position, parse_usi_square, usi_square, usi_to_move)

from position_support import position_text

PLAYABLE = [v for v in replay.list_variants() if v.playable]
DAI = "dai-kagamigi"  # 15x15, with Lion Dogs (double moves, igui)


def sq(name: str) -> int:
    return parse_square(name)


def test_shogi_squares_are_standard_usi():
    rules = Board("shogi").rules
    # USI counts files from the first player's right and ranks from the top (the second player)
    assert usi_square(rules, sq("a1")) == "9i"
    assert usi_square(rules, sq("i9")) == "1a"
    assert usi_square(rules, sq("c3")) == "7g"
    assert parse_usi_square(rules, "5e") == sq("e5")
    for bad in ("0a", "10a", "5j", "e5", "5", ""):
        with pytest.raises(UsiError):
            parse_usi_square(rules, bad)


def test_large_board_squares_follow_lishogi():
    rules = Board(DAI).rules
    assert usi_square(rules, sq("a1")) == "15o"
    assert usi_square(rules, sq("o15")) == "1a"
    assert parse_usi_square(rules, "12l") == sq("d4")
    with pytest.raises(UsiError, match="off the 15x15 board"):
        parse_usi_square(rules, "16a")


def test_shogi_opening_moves():
    board = Board("shogi")
    # the moves of a well-known opening, as every USI engine writes them
    text = "position startpos moves 7g7f 3c3d 8h2b+ 3a2b B*4e"
    end = board_from_usi(board.rules, text)
    assert [move_to_usi(board, m) for m in end.move_stack] == text.split()[3:]
    assert end.move_stack[0] == Move(sq("c3"), sq("c4"))
    assert end.move_stack[2].promotion is True
    assert end.move_stack[4] == Move(None, sq("f5"), (), None, "B")
    assert format_usi_position(board.rules, None, end.move_stack) == text


def test_declined_promotion_is_written_without_a_mark():
    # a Silver entering the zone may promote or not: without '+' it declines
    board = Board("shogi", position_text({"e5": "K", "e9": "k", "d6": "S"}, 9, 9))
    move = usi_to_move(board, "6d6c")
    assert move.promotion is False
    assert move_to_usi(board, move) == "6d6c"
    assert usi_to_move(board, "6d6c+").promotion is True


def test_sfen_position_and_errors():
    sfen = "4k4/9/9/9/9/9/9/9/4K4 b G 1"
    start, moves = parse_usi_position(None, f"sfen {sfen} moves G*5b")
    assert start == sfen and moves == ["G*5b"]
    board = board_from_usi(Board("shogi").rules, f"position sfen {sfen} moves G*5b")
    assert board.is_check()
    assert format_usi_position(board.rules, sfen, board.move_stack) == f"position sfen {sfen} moves G*5b"
    with pytest.raises(UsiError) as err:
        board_from_usi(board.rules, "position startpos moves 7g7f 7g7f")
    assert err.value.index == 1 and "illegal" in err.value.reason
    with pytest.raises(UsiError, match="not a USI position"):
        parse_usi_position(None, "startpos 7g7f")
    with pytest.raises(UsiError, match="bad SFEN"):
        board_from_usi(board.rules, "position sfen 9/9 b - 1")


def test_lion_double_moves_igui_and_pass():
    board = Board(DAI, position_text({"h1": "K", "h15": "k", "h8": "!LD", "h9": "p", "h10": "p"}, 15, 15))
    # h8 is file 15-7 = 8, rank letter 15-8 -> 'h'; lishogi's from-mid-to
    double = Move(sq("h8"), sq("h10"), (sq("h9"),))
    assert move_to_usi(board, double) == "8h8g8f"
    assert usi_to_move(board, "8h8g8f") == double
    igui = Move(sq("h8"), sq("h8"), (sq("h9"),))
    assert move_to_usi(board, igui) == "8h8g8h"
    assert usi_to_move(board, "8h8g8h") == igui
    # a step through an empty square is the same move as the jump; from-empty-from is a pass
    empty = Board(DAI, position_text({"h1": "K", "h15": "k", "h8": "!LD"}, 15, 15))
    assert usi_to_move(empty, "8h8g8f") == Move(sq("h8"), sq("h10"))
    assert usi_to_move(empty, "8h8g8h") == Move(sq("h8"), sq("h8"))
    # lishogi writes a pass through the square stepped on, and refuses it without
    assert move_to_usi(empty, Move(sq("h8"), sq("h8"))) == "8h9i8h"
    with pytest.raises(UsiError, match="pass is written through"):
        usi_to_move(empty, "8h8h")
    # the square stepped through must be one a two-step move can pass
    with pytest.raises(UsiError, match="cannot reach"):
        usi_to_move(empty, "8h8f8e")


def test_bad_move_texts_are_refused_with_a_reason():
    rules = Board("shogi").rules
    for text in ("7g", "7g7f++", "X*5e", "P*0e", "7g-7f", "x" * 100, ""):
        with pytest.raises(UsiError):
            parse_usi_move(rules, text)


@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
def test_every_legal_move_round_trips(variant):
    """Random games: the USI form of every legal move reads back as that very move."""
    rng = random.Random(11)
    board = Board(load_variant(variant.slug))
    for _ in range(12):
        moves = board.legal_moves()
        if not moves:
            break
        for move in moves:
            assert usi_to_move(board, move_to_usi(board, move)) == move
        board.push(rng.choice(moves))


def test_a_game_with_a_lion_pass_is_written_lishogis_way_and_reads_back():
    board = Board("chu-shogi", "12/12/12/12/12/6+O5/12/12/12/12/12/12 b")
    lion = board.rules  # written without a board in hand: format_usi_position replays the moves
    moves = [Move(sq("g7"), sq("g7"))]  # the promoted Kirin passes
    text = format_usi_position(lion, board.position(), moves)
    assert text.endswith("moves 6f7g6f")
    again = board_from_usi(lion, text)
    assert again.move_stack == moves


def test_a_line_with_passes_is_written_so_that_it_reads_back():
    """Each move of a USI position line is written in its position: a Lion's pass goes through
    a square it steps to (``6f5e6f``), which is the only way lishogi's reader accepts it."""
    rng = random.Random(3)
    board = Board("chu-shogi")
    moves = []
    for ply in range(60):
        legal = board.legal_moves()
        passes = [m for m in legal if m.is_pass]
        move = passes[0] if passes and ply % 5 == 0 else rng.choice(legal)
        moves.append(move)
        board.push(move)
    assert any(m.is_pass for m in moves)
    text = format_usi_position(Board("chu-shogi").rules, None, moves)
    assert board_from_usi("chu-shogi", text).move_stack == moves


def test_a_usi_record_error_names_squares_as_usi_does():
    from daikifu.formats.reading import read_record
    (game,) = read_record(b"position startpos moves 7g7f 4a4b 8h2b\n", name="s.usi")
    (error,) = game.errors
    assert error.ply == 3 and error.move == "8h2b" and "the B on 8h " in error.message
    assert not re.search(r"\b[a-i][1-9]\b", error.message)  # no algebraic square beside the USI ones
