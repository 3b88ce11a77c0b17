"""No move after the end of the game.

Where moving into check is legal (Chu and Dai Shogi: ``royal_loss = "capture"``), a game ends
though moves could still be made: when a side has lost its last royal piece (the King, and the
Crown Prince if it has one), or when the bare-royal rule ends it (``bare_royal = "loses"``, as
lishogi decides it: a King left alone loses, unless it can take back at once and bare the other
King in turn).  The board notes the end in ``Board.ended`` at the move that ends the game, and
every reader refuses a move played after it: an error that names the file, game, line, column,
ply and move text and says where and how the game ended; lenient reading keeps the game up to
its end, marked truncated, as it keeps the moves before any other bad move.

The games below are written square by square from a set-up position (``a1`` is the first
player's lower left); each is written by daikifu's own writers (LSN, lishogi's KIF, USI: the
formats that hold Chu Shogi; CSA and KI2 hold 9x9 shogi only) with one move more than the game
has, and read back.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from click.testing import CliRunner

from daikifu.cli import main
from daikifu.formats.game import MOVE_AFTER_END, Game
from daikifu.formats.reading import read_record, write_record
from daikifu.replay import FIRST, Board, Move, compile_rules, load_variant
from daikifu.replay.board import Outcome
from daikifu.replay.notation import move_notation
from daikifu.replay.position import PositionError
from daikifu.replay.squares import parse_square

from manifest_support import REAL
from position_support import position_text

CHU = load_variant("chu-shogi")


def mv(a: str, b: str, promotion=None) -> Move:
    return Move(parse_square(a), parse_square(b), (), promotion)


def chu(pieces: dict, turn: str = "b") -> str:
    return position_text(pieces, 12, 12, turn)


# Sente's Rooks take Gote's King, then its Crown Prince (a promoted Drunk Elephant): Gote has no
# royal piece left after ply 3; ply 4, a Silver's step, comes after the end.
ROYAL_CAPTURE = (
    chu({"a1": "K", "e2": "R", "h3": "R", "e12": "k", "h12": "+de", "a12": "g", "b12": "s"}),
    [mv("e2", "e12", False), mv("a12", "a11"), mv("h3", "h12", False)],
    mv("b12", "b11"),
)
# Sente's Rook takes Gote's last Gold: Gote's King is bare, and Sente keeps a King, a Gold and a
# Silver out of its reach, so the game is over after ply 3; ply 4, the King's step, comes after.
BARE_KING = (
    chu({"a1": "K", "e2": "R", "b1": "G", "c1": "S", "l12": "k", "e11": "g"}),
    [mv("b1", "b2"), mv("l12", "l11"), mv("e2", "e11", False)],
    mv("l11", "l12"),
)


def played(start: str, moves: list) -> Board:
    board = Board(CHU, start)
    for move in moves:
        board.play(move)
    return board


# --- the board --------------------------------------------------------------------------------


def test_taking_the_king_and_then_the_crown_prince_ends_the_game():
    start, moves, _ = ROYAL_CAPTURE
    board = Board(CHU, start)
    board.play(moves[0])
    assert board.ended is None  # the Crown Prince is still a royal piece
    board.play(moves[1])
    board.play(moves[2])
    assert board.ended == Outcome("royal-capture", FIRST) == board.outcome()
    board.pop()
    assert board.ended is None and board.outcome() is None


def test_a_bare_king_ends_the_game():
    start, moves, _ = BARE_KING
    board = played(start, moves[:2])
    assert board.ended is None
    board.play(moves[2])
    assert board.ended == Outcome("bare-royal", FIRST) == board.outcome()


def test_a_bare_king_that_can_take_back_plays_on_and_the_lone_kings_draw():
    # lishogi's exception: the Gold that bares Gote's King stands next to it, so the game goes on;
    # the King takes it, and two lone Kings are a draw
    board = played(chu({"a1": "K", "e9": "G", "e12": "k", "e11": "g"}),
                   [mv("e9", "e10"), mv("e12", "f12"), mv("e10", "e11", False)])
    assert board.ended is None
    board.play(mv("f12", "e11"))
    assert board.ended == Outcome("bare-royal", None) == board.outcome()


def test_a_pawn_left_on_the_last_rank_can_bare_its_own_king():
    # a Pawn that stays unpromoted on the last rank can never move again and does not count:
    # Sente's last piece that counts, it leaves Sente's King bare
    board = Board(CHU, chu({"a1": "K", "c11": "P", "l12": "k", "k10": "g", "j10": "g"}))
    board.play(mv("c11", "c12", False))
    assert board.ended == Outcome("bare-royal", 1) == board.outcome()
    board.pop()
    board.play(mv("c11", "c12", True))
    assert board.ended is None


def test_a_king_burned_by_the_fire_demon_ends_a_tenjiku_game():
    # a burn is a kill of the move: the King burned, Gote has no royal piece left
    board = Board(load_variant("tenjiku-shogi"), position_text({"a1": "K", "e5": "FD", "f10": "k", "a14": "p"}, 16, 16))
    burn = next(m for m in board.legal_moves() if m.to_square == parse_square("e9") and parse_square("f10") in m.kills)
    board.play(burn)
    assert board.ended == Outcome("royal-capture", FIRST)


def test_a_game_over_in_its_start_position_has_ended_before_any_move():
    board = Board(CHU, chu({"a1": "K", "b1": "G", "c1": "S", "l12": "k"}))
    assert board.ended == Outcome("bare-royal", FIRST)


def test_a_mating_problem_without_the_attackers_king_has_not_ended():
    # a Chu mating problem gives the attacker no King: the game goes on
    board = Board(CHU, chu({"a1": "R", "b1": "G", "l12": "k", "k12": "g"}))
    board.play(mv("a1", "a2"))
    board.play(mv("k12", "k11"))
    assert board.ended is None


def test_ended_follows_the_position_on_random_endgames():
    """At every ply of random play in random Chu endgames (moving into check is legal, so Kings
    are taken), ``ended`` is what a board set up from the same position says, up to the first
    end: None before it, the end from it on; taking moves back clears it again."""
    rules = compile_rules(CHU)
    rng = random.Random(24)
    names = [f"{f}{r}" for f in "abcdefghijkl" for r in range(1, 13)]
    kinds = ["G", "S", "R", "P", "P", "L", "DE", "GB", "C"]
    ends = set()
    for _ in range(60):
        squares = rng.sample(names, 10)
        pieces = {squares.pop(): "K", squares.pop(): "k"}
        for case in (str.upper, str.lower):
            for _ in range(rng.randint(1, 4)):
                pieces[squares.pop()] = case(rng.choice(kinds))
        try:
            board = Board(rules, chu(pieces, rng.choice("bw")))
        except PositionError:
            continue
        if board.ended is not None:
            continue
        end = None
        while board.ply < 80:
            fresh = Board(rules, board.position())
            if end is None:
                if not board.royal_squares(board.turn):  # both sides started with a King
                    end = Outcome("royal-capture", board.turn ^ 1)
                elif fresh.ended is not None:
                    end = fresh.ended
                if end is not None:
                    end_ply = board.ply
                    ends.add(end.termination)
            assert board.ended == end, board.position()
            moves = board.legal_moves()
            if not moves or (end is not None and board.ply > end_ply + 2):
                break
            board.push(rng.choice(moves))
        while board.ply:
            board.pop()
            assert board.ended == (end if end is not None and board.ply >= end_ply else None)
    assert ends == {"royal-capture", "bare-royal"}


# --- the readers ------------------------------------------------------------------------------


def record(game: tuple, fmt: str, extra: bool) -> bytes:
    start, moves, after = game
    return write_record(Game.from_moves(CHU, moves + [after] * extra, start=start), fmt)


def read_one(data: bytes, fmt: str, **kwargs) -> Game:
    (game,) = read_record(data, name=f"game.{fmt}", **kwargs)
    return game


FORMATS = ("lsn", "kif", "usi")
GAMES = {"royal-capture": (ROYAL_CAPTURE, "royal capture"), "bare-king": (BARE_KING, "bare King")}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", GAMES)
def test_the_games_up_to_their_end_are_valid(fmt, name):
    game = read_one(record(GAMES[name][0], fmt, extra=False), fmt)
    assert game.valid and not game.errors, [str(e) for e in game.errors]
    assert game.variant.slug == "chu-shogi" and len(game.mainline_moves()) == 3


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", GAMES)
def test_a_move_after_the_end_is_an_error_at_its_ply(fmt, name):
    (start, moves, after), how = GAMES[name]
    data = record((start, moves, after), fmt, extra=True)
    game = read_one(data, fmt)
    assert not game.valid
    (error,) = [e for e in game.errors if e.kind == "error"]
    assert error.code == MOVE_AFTER_END
    assert (error.file, error.game, error.ply) == (f"game.{fmt}", 1, 4)
    assert error.expected == f"no move: the game ended at ply 3 by {how}"
    # the line and column are where the record writes the move, and the move is its text there
    line = data.decode("utf-8").splitlines()[error.line - 1]
    assert line[error.column - 1:].startswith(error.move) and error.move.strip()
    assert f"ply 4, move {error.move!r}: a move after the end of the game" in str(error)


@pytest.mark.parametrize("fmt", FORMATS)
def test_lenient_reading_keeps_the_game_up_to_its_end_marked_truncated(fmt):
    game = read_one(record(ROYAL_CAPTURE, fmt, extra=True), fmt, lenient=True)
    assert game.valid
    assert game.mainline_moves() == ROYAL_CAPTURE[1]
    assert game.headers["ImportStatus"] == "truncated"
    assert [e.code for e in game.errors if e.kind == "warning"] == [MOVE_AFTER_END]


def test_validate_calls_a_record_with_a_move_after_the_end_invalid(tmp_path):
    path = tmp_path / "after-end.lsn"
    path.write_bytes(record(BARE_KING, "lsn", extra=True))
    result = CliRunner().invoke(main, ["validate", str(path)])
    assert result.exit_code == 1
    assert "ply 4" in result.output and "the game ended at ply 3 by bare King" in result.output


def test_a_variation_after_the_end_is_an_error_too():
    start, moves, after = ROYAL_CAPTURE
    game = Game.from_moves(CHU, moves, start=start)
    text = write_record(game, "lsn").decode("utf-8")
    # the last move again as a variation of itself, with one more move
    last = text.rstrip().rsplit(" ", 2)[-2]
    board = played(start, moves)
    varied = text.replace(f" {last} ", f" {last} ({last} {move_notation(board, after)}) ", 1)
    (back,) = read_record(varied.encode(), name="v.lsn")
    assert [e.code for e in back.errors] == [MOVE_AFTER_END]


@pytest.mark.parametrize("name", GAMES)
def test_an_lsn_termination_claim_of_the_end_is_checked_against_the_final_position(name):
    (start, moves, _), _how = GAMES[name]
    termination = "royal-capture" if name == "royal-capture" else "bare-royal"
    game = Game.from_moves(CHU, moves, start=start)
    game.headers["Termination"] = termination
    (right,) = read_record(write_record(game, "lsn"), name="end.lsn")
    assert right.valid and not right.errors, [str(e) for e in right.errors]
    # the same claim one ply early: the position does not show it, and the reader says so
    early = Game.from_moves(CHU, moves[:-1], start=start)
    early.headers["Termination"] = termination
    (wrong,) = read_record(write_record(early, "lsn"), name="early.lsn")
    assert wrong.valid  # a claim is never a reason to reject the game
    [warning] = wrong.errors
    assert warning.kind == "warning" and warning.ply == 2
    assert warning.message == f"Termination says {termination} but the final position shows no end of game"


@pytest.mark.parametrize("path", sorted(p.name for p in (REAL / "chu").iterdir() if p.suffix != ".fsy"))
def test_the_real_chu_records_stay_valid(path):
    games = list(read_record((REAL / "chu" / path).read_bytes(), name=path))
    assert games and all(g.valid for g in games), [str(e) for g in games for e in g.errors]


SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample"


@pytest.mark.parametrize("name", ["chu-shogi.lsn", "dai-shogi.lsn"])
def test_self_play_samples_end_where_the_game_ends(name):
    """The self-play samples of the variants where moving into check is legal stop at the end:
    no ply after it, and a game whose Termination is a royal capture ends with one."""
    games = list(read_record((SAMPLE / name).read_bytes(), name=name))
    assert games
    for game in games:
        assert game.valid, [str(e) for e in game.errors]
        board = game.start_board()
        for move in game.mainline_moves():
            assert board.ended is None
            board.play(move)
        termination = game.headers["Termination"]
        if termination in ("royal-capture", "bare-royal"):
            assert board.ended is not None and board.ended.termination == termination
            assert board.ended.result() == game.result
