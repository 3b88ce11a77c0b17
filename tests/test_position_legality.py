"""Position legality (replay.legality) for every way a position comes in: the check itself, random
and corrupted shogi positions judged against python-shogi, every reader's start position, the
commands' --position, the archive, and the relaxations for compositions.

The shogi referee is independent of daikifu: python-shogi plays the legal games and says whether
the side not to move is in check (``was_suicide``); the piece counts, the Pawns per file and the
pieces on their last ranks are counted here from python-shogi's board, against the shogi set of
40 pieces.
"""

from __future__ import annotations

import json
import random

import pytest
import shogi
from click.testing import CliRunner

from daikifu.cli import main
from daikifu.formats.game import Game
from daikifu.formats.reading import read_record, write_record
from daikifu.replay import Board, compile_rules, load_variant
from daikifu.replay.legality import ImpossiblePositionError, check_position, position_problems
from daikifu.replay.variant import VariantError, variant_from_dict

SHOGI = compile_rules(load_variant("shogi"))
START = SHOGI.start
NIFU = "lnsgkgsnl/1r5b1/ppppppppp/9/P8/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"


def kinds(text: str, rules=SHOGI, allow=None) -> list[str]:
    return [p.kind for p in position_problems(rules, text, allow) if not p.relaxed]


# --- the check ---------------------------------------------------------------------------------


def test_the_issue_positions_are_refused_and_the_rule_named():
    assert kinds(NIFU) == ["piece-count", "nifu"]  # 19 Pawns, two of Sente's on file a
    assert kinds(START.replace(" - ", " 9P ")) == ["piece-count"]  # 27 Pawns
    assert kinds(START.replace(" - ", " R ")) == ["piece-count"]  # three Rooks
    message = next(p.message for p in position_problems(SHOGI, START.replace(" - ", " 9P ")))
    assert message.startswith("27 Pawns (P)")
    assert kinds(START) == []


def test_promoted_pieces_count_as_their_base_and_hands_count():
    # 18 Pawns on the board and a promoted one: 19; a promoted Rook is a third Rook
    board_full = "lnsgkgsnl/1r5b1/ppppppppp/9/9/4+P4/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
    problem, = position_problems(SHOGI, board_full)
    assert problem.kind == "piece-count" and "19 Pawns (P, +P)" in problem.message
    assert kinds("4k4/9/9/9/9/9/9/9/4K4 b 2R 1") == []
    assert kinds("4k4/9/9/9/+R8/9/9/9/4K4 b 2R 1") == ["piece-count"]
    assert kinds("4k4/9/9/9/9/9/9/9/4K4 b +R 1") == ["hand-piece"]  # a hand holds unpromoted pieces


def test_a_type_over_its_own_start_pieces_is_refused_even_when_its_group_fits():
    # a Dragon is in the start position and is also what a Wazir promotes to: two Wazirs and a
    # Dragon fit the six start pieces a Wazir or a Dragon may have been, but only one can be a Wazir
    v = variant_from_dict({
        "slug": "shared-promotion", "name": "Shared promotion", "files": 5, "ranks": 5,
        "start": "kdddd/5/5/5/A3K b - 1", "rules": {"drops": True, "promotion_zone": 1},
        "pieces": [{"id": "K", "name": "King", "betza": "K", "royal": True},
                   {"id": "A", "name": "Wazir", "betza": "W", "promotes": "D"},
                   {"id": "D", "name": "Dragon", "betza": "K"}]})
    rules = compile_rules(v)
    problem, = position_problems(rules, "k4/5/5/A1D2/A3K b - 1")
    assert problem.kind == "piece-count" and problem.message == "2 Wazirs (A), on the board and in hand: the game has 1"
    assert problem.squares == ["a1", "a2"]
    assert kinds("k4/5/5/A1D2/4K b - 1", rules) == []


def test_nifu_counts_unpromoted_pawns_of_one_side():
    assert kinds("4k4/9/9/4P4/9/4P4/9/9/4K4 b - 1") == ["nifu"]
    assert kinds("4k4/9/9/4+P4/9/4P4/9/9/4K4 b - 1") == []  # a Tokin is no Pawn
    assert kinds("4k4/9/9/4p4/9/4P4/9/9/4K4 b - 1") == []  # one of each side


def test_a_cap_whose_pieces_change_file_is_not_a_position_rule():
    # a Pawn that captures diagonally leaves its file: two on a file can come from play
    v = variant_from_dict({
        "slug": "side-pawns", "name": "Side pawns", "files": 5, "ranks": 5, "start": "k4/ppppp/5/PPPPP/K4 b - 1",
        "rules": {"drops": True, "drop_nifu": ["P"], "promotion_zone": 1},
        "pieces": [{"id": "K", "name": "King", "betza": "K", "royal": True},
                   {"id": "P", "name": "Pawn", "betza": "mfWcfF", "promotes": "+P"},
                   {"id": "+P", "name": "Tokin", "betza": "WfF"}]})
    rules = compile_rules(v)
    assert kinds("k4/p4/P4/P4/K4 b - 1", rules) == []


def test_without_drops_each_side_is_counted_against_its_own_pieces():
    chu = compile_rules(load_variant("chu-shogi"))
    # Gote's Lion (on g10) turned into a Sente Lion: Sente has two, Gote none
    swapped = chu.start.replace("(dk)(fk)(ln)(dk)", "(dk)(fk)(LN)(dk)")
    assert swapped != chu.start
    problems = [p for p in position_problems(chu, swapped) if p.kind == "piece-count"]
    assert len(problems) == 1 and problems[0].message.startswith("Sente has 2 Lions (LN)")
    assert sorted(problems[0].squares) == ["f3", "g10"]


def test_check_position_raises_naming_each_rule_and_returns_what_it_relaxed():
    with pytest.raises(ImpossiblePositionError) as err:
        check_position(SHOGI, NIFU)
    assert "piece-count:" in str(err.value) and "nifu:" in str(err.value)
    assert [p.kind for p in err.value.problems] == ["piece-count", "nifu"]
    relaxed = check_position(SHOGI, NIFU, allow=["piece-count", "nifu"])
    assert [(p.kind, p.relaxed) for p in relaxed] == [("piece-count", True), ("nifu", True)]
    assert check_position(SHOGI, NIFU, allow=True)
    with pytest.raises(ValueError):
        check_position(SHOGI, NIFU, allow=["no-such-rule"])


def test_shogi_relaxes_the_missing_king_of_a_mating_problem():
    tsume = "4k4/9/4P4/9/9/9/9/9/9 b G 1"  # the attacker has no King, as in tsume shogi
    problem, = position_problems(SHOGI, tsume)
    assert problem.kind == "no-royal" and problem.relaxed
    assert check_position(SHOGI, tsume) == [problem]


def test_a_variant_file_relaxes_named_rules_and_refuses_unknown_ones():
    base = {"slug": "relaxed", "name": "Relaxed", "files": 3, "ranks": 3, "start": "k2/3/2K b - 1",
            "rules": {"drops": True, "allow_impossible": ["piece-count"]},
            "pieces": [{"id": "K", "name": "King", "betza": "K", "royal": True},
                       {"id": "G", "name": "Gold", "betza": "WfF"}]}
    rules = compile_rules(variant_from_dict(base))
    problems = position_problems(rules, "k2/3/2K b G 1")
    assert [(p.kind, p.relaxed) for p in problems] == [("piece-count", True)]
    base["rules"]["allow_impossible"] = ["nifu", "everything"]
    with pytest.raises(VariantError, match="allow_impossible"):
        variant_from_dict(base)


# --- random and corrupted shogi positions, against the referee --------------------------------

FULL_SET = {shogi.PAWN: 18, shogi.LANCE: 4, shogi.KNIGHT: 4, shogi.SILVER: 4, shogi.GOLD: 4, shogi.BISHOP: 2,
            shogi.ROOK: 2, shogi.KING: 2}
BASE = {shogi.PROM_PAWN: shogi.PAWN, shogi.PROM_LANCE: shogi.LANCE, shogi.PROM_KNIGHT: shogi.KNIGHT,
        shogi.PROM_SILVER: shogi.SILVER, shogi.PROM_BISHOP: shogi.BISHOP, shogi.PROM_ROOK: shogi.ROOK}


def referee(board: shogi.Board) -> set:
    """The rules a python-shogi position breaks, worked out without daikifu."""
    broken = set()
    counts = dict.fromkeys(FULL_SET, 0)
    pawns_on_file: dict = {}
    for sq in shogi.SQUARES:
        piece = board.piece_at(sq)
        if piece is None:
            continue
        t, colour = piece.piece_type, piece.color
        counts[BASE.get(t, t)] += 1
        row = sq // 9  # 0: rank a, the top (Gote's side)
        own_row = row if colour == shogi.BLACK else 8 - row  # 0: the owner's last rank
        if (t in (shogi.PAWN, shogi.LANCE) and own_row == 0) or (t == shogi.KNIGHT and own_row <= 1):
            broken.add("dead-piece")
        if t == shogi.PAWN:
            key = (colour, sq % 9)
            pawns_on_file[key] = pawns_on_file.get(key, 0) + 1
    for colour in (shogi.BLACK, shogi.WHITE):
        for t, n in board.pieces_in_hand[colour].items():
            counts[t] += n
    if any(counts[t] > most for t, most in FULL_SET.items()):
        broken.add("piece-count")
    if any(n > 1 for n in pawns_on_file.values()):
        broken.add("nifu")
    if board.was_suicide():  # the side not to move is attacked
        broken.add("not-to-move-in-check")
        a, b = board.king_squares
        if max(abs(a % 9 - b % 9), abs(a // 9 - b // 9)) == 1:
            broken.add("kings-adjacent")
    return broken


def corrupt(board: shogi.Board, rng: random.Random, how: int) -> shogi.Board:
    """A copy of ``board`` with one rule broken on purpose (others may break with it)."""
    bad = shogi.Board(board.sfen())
    empty = [sq for sq in shogi.SQUARES if bad.piece_at(sq) is None]
    colour = rng.choice((shogi.BLACK, shogi.WHITE))
    if how == 0:  # a second unpromoted Pawn on a file that has one
        files = [sq % 9 for sq in shogi.SQUARES
                 if bad.piece_at(sq) is not None and bad.piece_at(sq).piece_type == shogi.PAWN
                 and bad.piece_at(sq).color == colour]
        options = [sq for sq in empty if sq % 9 in files and 1 <= sq // 9 <= 7]
        if options:
            bad.set_piece_at(rng.choice(options), shogi.Piece(shogi.PAWN, colour))
            return bad
        how = 1
    if how == 1:  # pieces in hand beyond the set
        t = rng.choice([shogi.PAWN, shogi.LANCE, shogi.KNIGHT, shogi.SILVER, shogi.GOLD, shogi.BISHOP, shogi.ROOK])
        bad.add_piece_into_hand(t, colour, FULL_SET[t] + 1 - rng.randrange(FULL_SET[t] // 2 + 1))
        return bad
    if how == 2:  # a Pawn, Lance or Knight where it could never move
        t = rng.choice([shogi.PAWN, shogi.LANCE, shogi.KNIGHT])
        rows = (0, 1) if t == shogi.KNIGHT else (0,)
        rows = rows if colour == shogi.BLACK else tuple(8 - r for r in rows)
        options = [sq for sq in empty if sq // 9 in rows]
        bad.set_piece_at(rng.choice(options), shogi.Piece(t, colour))
        return bad
    # the side to move in check handed the move to the other side: its royal could be taken
    bad.turn ^= 1
    return bad


def shogi_positions(games: int, seed: int):
    """(legal positions of python-shogi's random games, positions in check met on the way)."""
    rng = random.Random(seed)
    legal, checks = [], []
    for _ in range(games):
        board = shogi.Board()
        for _ in range(rng.randrange(20, 120)):
            moves = list(board.legal_moves)
            if not moves:
                break
            captures = [m for m in moves if board.piece_at(m.to_square) is not None]
            board.push(rng.choice(captures) if captures and rng.random() < 0.6 else rng.choice(moves))
            if board.is_check():
                checks.append(shogi.Board(board.sfen()))
        legal.append(shogi.Board(board.sfen()))
    return legal, checks, rng


def run_referee_comparison(games: int, corrupted: int, seed: int) -> int:
    legal, checks, rng = shogi_positions(games, seed)
    judged = 0
    for board in legal:
        assert referee(board) == set(), board.sfen()
        assert kinds(board.sfen()) == [], board.sfen()
        judged += 1
    for n in range(corrupted):
        how = n % 4
        source = rng.choice(checks) if how == 3 and checks else rng.choice(legal)
        bad = corrupt(source, rng, how if how < 3 or source.is_check() else 1)
        expected = referee(bad)
        assert expected, bad.sfen()  # every corruption breaks a rule
        found = kinds(bad.sfen())
        assert set(found) == expected, (bad.sfen(), found, expected)
        judged += 1
    return judged


def test_random_and_corrupted_shogi_positions_against_python_shogi():
    assert run_referee_comparison(games=12, corrupted=80, seed=1) >= 90


@pytest.mark.slow
def test_a_thousand_random_and_corrupted_shogi_positions():
    assert run_referee_comparison(games=200, corrupted=800, seed=24) == 1000


# --- every reader's start position, the commands and the archive -------------------------------

FIVE_ROOKS = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 3R 1"


def game_from(start: str, moves=("c3c4", "g7g6")) -> Game:
    board = Board(SHOGI, start)
    played = []
    for text in moves:
        move = board.parse_uci(text)
        board.push(move)
        played.append(move)
    return Game.from_moves("shogi", played, start=start)


@pytest.mark.parametrize("fmt", ["lsn", "kif", "ki2", "csa", "jkf", "usi", "json"])
def test_every_reader_refuses_an_impossible_start(fmt):
    data = write_record(game_from(FIVE_ROOKS), fmt)
    (game,) = read_record(data, fmt=fmt, name=f"five-rooks.{fmt}")
    errors = [e for e in game.errors if e.kind == "error"]
    assert len(errors) == 1 and not game.valid
    assert errors[0].message.startswith("impossible start position: piece-count: 5 Rooks (R)")
    assert errors[0].file == f"five-rooks.{fmt}"


def test_a_jkf_hand_with_three_rooks_is_refused():
    # the fault campaign's case: 飛三 in Sente's hand, two Rooks on the board: five Rooks in play
    text = write_record(game_from(FIVE_ROOKS), "jkf").decode("utf-8")
    data = json.loads(text)
    assert data["initial"]["data"]["hands"][0].get("HI") == 3
    (game,) = read_record(text.encode("utf-8"), name="rooks.jkf")
    assert not game.valid and "5 Rooks" in game.errors[0].message


def test_the_allow_impossible_tag_lets_a_composition_through_and_says_what():
    text = write_record(game_from(NIFU, ("c3c4", "c7c6")), "lsn").decode("utf-8")
    (game,) = read_record(text.encode("utf-8"), name="nifu.lsn")
    assert not game.valid
    tagged = text.replace("[Variant", '[AllowImpossible "nifu, piece-count"]\n[Variant', 1)
    (game,) = read_record(tagged.encode("utf-8"), name="nifu.lsn")
    assert game.valid
    warning, = [e.message for e in game.warnings() if "allowed" in e.message]
    assert "piece-count:" in warning and "nifu:" in warning
    (game,) = read_record(tagged.replace("nifu, piece-count", "nifu").encode("utf-8"), name="nifu.lsn")
    assert not game.valid and "piece-count" in game.errors[0].message and "nifu" not in game.errors[0].message


def invoke(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_the_commands_position_is_checked_and_may_be_let_through():
    result = invoke("moves", "shogi", "-p", NIFU)
    assert result.exit_code == 2 and "nifu: Sente has 2 unpromoted P on file a" in result.output
    result = invoke("perft", "shogi", "1", "-p", START.replace(" - ", " R "))
    assert result.exit_code == 2 and "piece-count: 3 Rooks" in result.output
    result = invoke("moves", "shogi", "-p", "4k4/4R4/9/9/9/9/9/9/4K4 b - 1")
    assert result.exit_code == 2 and "not-to-move-in-check" in result.output
    result = invoke("perft", "shogi", "1", "-p", NIFU, "--allow-impossible", "--json")
    assert result.exit_code == 0 and json.loads(result.stdout)["nodes"] == 31
    assert "allowed: nifu:" in result.stderr


def test_the_archive_stores_an_impossible_start_as_invalid(tmp_path):
    (tmp_path / "nifu.lsn").write_bytes(write_record(game_from(NIFU, ("c3c4", "c7c6")), "lsn"))
    db = tmp_path / "a.db"
    result = invoke("import", "--db", db, tmp_path / "nifu.lsn", "--json")
    assert result.exit_code in (0, 1), result.output
    assert json.loads(result.stdout)["invalid"] == 1
    assert json.loads(invoke("games", "--db", db, "--json").stdout) == []  # no valid game
    rows = json.loads(invoke("games", "--db", db, "--status", "invalid", "--json").stdout)
    assert len(rows) == 1 and rows[0]["status"] == "invalid"
