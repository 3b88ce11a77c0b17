"""Self-play (replay/selfplay.py), the ``generate`` command and the sample archive in data/sample/."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner

from daikifu.cli import main
from daikifu.formats.commands import selfplay_lsn
from daikifu.replay.selfplay import (ADJUDICATION_MARGIN, DATE, ENGINES, EVENT, MATE, PAIRINGS, Searcher, adjudicate,
                              generate_games, piece_values, play_game)
from daikifu.formats.lsn import read_games
from daikifu.replay import Board, IncompleteVariantError, Move, compile_rules, list_variants, load_variant, square_name
from daikifu.replay.squares import parse_square as sq

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample"
REAL_ENDINGS = ("checkmate", "stalemate", "repetition", "perpetual-check", "royal-capture", "bare-royal")


@pytest.fixture(scope="module")
def cli():
    return main


def run(cli, *args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert "Traceback" not in result.output, result.output
    return result


def engine_move(slug: str, position: str, engine=ENGINES[0], seed: int = 1):
    board = Board(slug, position)
    move = Searcher(board.rules).choose(board, board.legal_moves(), engine, random.Random(seed))
    return board, move


def check_game(g, max_plies: int) -> None:
    """A generated game reads back valid, and its ending is a real one or the documented adjudication."""
    text = selfplay_lsn(g)
    back = list(read_games(text))
    assert len(back) == 1
    game = back[0]
    assert game.valid and not game.errors, [str(e) for e in game.errors]
    assert game.mainline_moves() == g.moves
    h = game.headers
    assert h["Event"] == EVENT and h["Date"] == DATE and h["Termination"] == g.termination
    assert int(h["PlyCount"]) == len(g.moves)
    board = game.end().board()
    outcome = board.outcome()
    if g.termination in REAL_ENDINGS:
        assert outcome is not None and outcome.termination == g.termination
        assert outcome.result() == game.result
        if g.termination == "checkmate":  # the board's fast test agrees with generating every move
            assert not board.has_legal_move() and not board.legal_moves()
    else:
        assert g.termination == "adjudication"
        assert outcome is None and len(g.moves) == max_plies
        values = piece_values(board.rules)
        start = Board(board.rules)
        result, rule = adjudicate(board, values, max(values.material(start, 0), values.material(start, 1)))
        assert result == game.result and h["Adjudication"] == rule
    # every move was legal for the side that played it: its royal piece was never left attacked
    # (where moving into check is illegal); and the game did not go on after it was over (a royal
    # captured, a bare royal)
    replay = Board(board.rules)
    for m in g.moves:
        assert replay.outcome() is None, (replay.ply, replay.outcome())
        mover = replay.turn
        replay.play(m)
        king = replay.royal_square(mover)
        assert king is None or replay.rules.royal_capture or not replay.is_attacked(king, mover ^ 1)


# --- piece values --------------------------------------------------------------------------------


def test_values_come_from_mobility():
    v = piece_values(compile_rules(load_variant("shogi")))
    assert v.mobility["P"] == 1 and v.mobility["G"] == 6 and v.mobility["+P"] == 6
    assert v.value["K"] == 0 and v.unit == v.value["P"]
    assert v.value["P"] < v.value["N"] < v.value["S"] < v.value["G"] < v.value["B"] < v.value["R"] < v.value["+R"]
    # promotion bonus: a quarter of what promotion adds; in drop variants a capture also fills the hand
    assert v.value["P"] == 1 + 1 + (6 - 1) / 4
    assert v.capture["+R"] == v.value["+R"] + v.value["R"]


def test_values_for_every_playable_variant():
    for variant in list_variants():
        if not variant.playable:
            continue
        v = piece_values(compile_rules(variant))
        royal = [p.id for p in variant.pieces if p.royal]
        assert all(v.value[pid] == 0 for pid in royal)
        assert all(v.value[p.id] >= 1 for p in variant.pieces if not p.royal), variant.slug
        assert v.unit > 0


# --- choosing moves ------------------------------------------------------------------------------


# Sente: K e1, R b2, S d4; Gote: k e9, r b7 (free to take), p d5 (also free, worth less)
FREE_ROOK = "4k4/9/1r7/9/3p5/3S5/9/1R7/4K4 b - 1"
# Sente: K e1, R b2; Gote: k e9, s c8, p b7: the pawn is defended, Rxb7 loses the rook
DEFENDED_PAWN = "4k4/2s6/1p7/9/9/9/9/1R7/4K4 b - 1"
# Sente: K e1, G b7, S c7; Gote: k a9: G-b8 is checkmate
MATE_IN_ONE = "k8/9/1GS6/9/9/9/9/9/4K4 b - 1"


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.name)
def test_prefers_a_free_capture_of_a_valuable_piece(engine):
    for seed in range(5):
        board, move = engine_move("shogi", FREE_ROOK, engine, seed)
        assert board.piece_at(move.to_square).id == "R", move


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.name)
def test_does_not_hang_a_rook_for_a_pawn(engine):
    for seed in range(5):
        board, move = engine_move("shogi", DEFENDED_PAWN, engine, seed)
        assert board.captured_squares(move) == [], move


@pytest.mark.parametrize("engine", ENGINES, ids=lambda e: e.name)
def test_plays_checkmate_in_one(engine):
    for seed in range(5):
        board, move = engine_move("shogi", MATE_IN_ONE, engine, seed)
        board.push(move)
        assert board.is_checkmate(), move


# Tenjiku Shogi: Sente K a1 in check from the Rook on a10, G h8; Gote k p16, Fire Demon c2: the
# King's steps to b1 and b2 leave the Rook's file but end next to the Fire Demon, which burns it
BURNING_ESCAPE = "15k/16/16/16/16/16/r15/16/7G8/16/16/16/16/16/2(fd)13/K15 b - 1"


def test_a_king_step_next_to_an_enemy_fire_demon_scores_as_a_lost_game():
    board = Board("tenjiku-shogi", BURNING_ESCAPE)
    scored = Searcher(board.rules).score_moves(board, board.legal_moves(), ENGINES[0], random.Random(1))
    lost = {square_name(m.to_square) for score, _extra, m in scored if score <= -MATE}
    assert lost == {"b1", "b2"}


def test_reply_search_sees_what_the_opponent_takes():
    board = Board("shogi", FREE_ROOK)
    searcher = Searcher(board.rules)
    values = searcher.values
    quiet = Move(sq("e1"), sq("f1"))  # leaves the rook on b2 to the gote rook, which promotes taking it
    assert searcher.reply_loss(board, quiet) == values.capture["R"] + values.value["+R"] - values.value["R"]
    assert searcher.reply_loss(board, Move(sq("b2"), sq("b7"), (), True)) < values.capture["R"]


# Sente: K a1, R i8; Gote: k e9, g b3, s c3: Gote threatens G-b2 checkmate
MATE_THREAT = "4k4/8R/9/9/9/9/1gs6/9/K8 b - 1"


@pytest.mark.parametrize("engine", [e for e in ENGINES if e.width > 0], ids=lambda e: e.name)
def test_searching_engines_do_not_allow_mate_in_one(engine):
    board = Board("shogi", MATE_THREAT)
    searcher = Searcher(board.rules)
    assert searcher.reply_loss(board, Move(sq("i8"), sq("i7"), (), False)) == MATE
    for seed in range(5):
        move = searcher.choose(board, board.legal_moves(), engine, random.Random(seed))
        board.push(move)
        for reply in board.legal_moves():
            board.push(reply)
            assert not board.is_checkmate(), (move, reply)
            board.pop()
        board.pop()


def test_the_mate_test_agrees_with_generating_every_move():
    for position in (MATE_IN_ONE, FREE_ROOK):
        board = Board("shogi", position)
        for m in board.legal_moves():
            board.push(m)
            if board.is_check():
                assert board.has_legal_move() == bool(board.legal_moves()), m
            board.pop()


# --- games ---------------------------------------------------------------------------------------


def test_same_arguments_same_bytes_and_seeds_differ():
    a = "".join(selfplay_lsn(g) for g in generate_games("shogi", 3, seed=11, max_plies=80))
    b = "".join(selfplay_lsn(g) for g in generate_games("shogi", 3, seed=11, max_plies=80))
    c = "".join(selfplay_lsn(g) for g in generate_games("shogi", 3, seed=12, max_plies=80))
    assert a == b
    assert a != c
    # game n does not depend on the games before it
    assert selfplay_lsn(play_game("shogi", 11, 3, max_plies=80)) in a


def test_tags_and_pairings():
    games = generate_games("shogi", 6, seed=3, max_plies=30)
    for n, g in enumerate(games, start=1):
        h = g.headers
        a, b = PAIRINGS[n - 1]
        assert (h["Round"], h["Sente"], h["Gote"], h["Seed"]) == (str(n), ENGINES[a].name, ENGINES[b].name, "3")
        assert h["Site"] == "?"
    text = selfplay_lsn(games[0])
    assert text.startswith('[Variant "shogi"]\n[Event "daikifu self-play"]\n[Site "?"]\n[Date "2026.01.01"]\n')
    assert '[Termination "adjudication"]' in text and "[Adjudication " in text


@pytest.mark.parametrize("slug,count,seed,max_plies", [
    ("shogi", 4, 2, 400), ("chu-kagamigi", 2, 5, 400), ("dai-kagamigi", 2, 2, 400),
    ("dai-ryu-shogi", 2, 2, 400), ("dai-mitregi", 1, 2, 400), ("kyoomagi", 1, 2, 60),
    ("dai-shogi", 1, 2, 200), ("chu-shogi", 1, 3, 400), ("sho-shogi", 2, 2, 400), ("minishogi", 2, 2, 400),
])
def test_games_end_legally_and_read_back_valid(slug, count, seed, max_plies):
    for g in generate_games(slug, count, seed=seed, max_plies=max_plies):
        check_game(g, max_plies)


def test_ply_limit_adjudication():
    g = play_game("dai-kagamigi", 1, 1, max_plies=12)
    assert g.termination == "adjudication" and g.plies == 12
    check_game(g, 12)
    assert g.result == "1/2-1/2"  # no lead of 10% after twelve plies


def test_adjudication_rule():
    rules = compile_rules(load_variant("shogi"))
    values = piece_values(rules)
    start = Board(rules)
    material = values.material(start, 0)
    assert adjudicate(start, values, material)[0] == "1/2-1/2"
    # Gote without its rook: Sente leads by more than 10%
    board = Board(rules, "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1")
    assert values.value["R"] >= ADJUDICATION_MARGIN * material
    result, rule = adjudicate(board, values, material)
    assert result == "1-0" and "10%" in rule
    # the same lead held in hand counts too
    board = Board(rules, "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w R 1")
    assert adjudicate(board, values, material)[0] == "1-0"


def test_options_go_into_the_ruleset_tag():
    g = play_game("dai-kagamigi", 4, 1, options={"pass": "forbidden"}, max_plies=10)
    text = selfplay_lsn(g)
    assert '[RuleSet "pass=forbidden"]' in text
    game = next(read_games(text))
    assert game.valid and game.options["pass"] == "forbidden"


def test_incomplete_variant_is_refused():
    with pytest.raises(IncompleteVariantError, match="incomplete"):
        play_game("nearlydouble-symgi", 1, 1)
    with pytest.raises(IncompleteVariantError):
        generate_games("nearlydouble-symgi", 1)


# --- the command ---------------------------------------------------------------------------------


def test_cli_writes_lsn_to_stdout(cli):
    result = run(cli, "generate", "shogi", "--games", 2, "--seed", 5, "--max-plies", 40)
    assert result.exit_code == 0, result.output
    games = list(read_games(result.stdout))
    assert len(games) == 2 and all(g.valid for g in games)
    assert result.stdout == "".join(selfplay_lsn(g) + "\n" for g in generate_games("shogi", 2, seed=5, max_plies=40))


def test_cli_output_file_is_deterministic(cli, tmp_path):
    first, second = tmp_path / "a.lsn", tmp_path / "b.lsn"
    r1 = run(cli, "generate", "shogi", "--games", 3, "--seed", 9, "--max-plies", 60, "-o", first)
    r2 = run(cli, "generate", "shogi", "-n", 3, "-s", 9, "--max-plies", 60, "--output", second)
    assert r1.exit_code == 0 and r2.exit_code == 0, r1.output + r2.output
    assert first.read_bytes() == second.read_bytes()
    assert "Wrote 3 games of Shogi" in r1.output and "plies/s" in r1.output
    assert first.read_text(encoding="utf-8").count('[Event "daikifu self-play"]') == 3
    assert r1.output.count("game ") >= 3  # one progress line per game


def test_cli_json(cli, tmp_path):
    result = run(cli, "generate", "shogi", "--games", 2, "--seed", 4, "--max-plies", 30, "--json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    assert data["variant"] == "shogi" and data["games"] == 2 and data["seed"] == 4
    assert [g["round"] for g in data["game_list"]] == [1, 2]
    assert data["plies"] == sum(g["plies"] for g in data["game_list"])
    assert sum(data["terminations"].values()) == 2
    assert len(list(read_games(data["lsn"]))) == 2
    out = tmp_path / "g.lsn"
    result = run(cli, "generate", "shogi", "--games", 1, "--max-plies", 20, "--json", "-o", out)
    data = json.loads(result.stdout)
    assert data["output"] == str(out) and "lsn" not in data and out.exists()


def test_cli_errors(cli):
    result = run(cli, "generate", "nearlydouble-symgi")
    assert result.exit_code == 1 and "incomplete" in result.output
    result = run(cli, "generate", "no-such-variant")
    assert result.exit_code == 2 and "unknown variant" in result.output
    result = run(cli, "generate", "dai-kagamigi", "--option", "pass=sometimes")
    assert result.exit_code == 2 and "pass" in result.output
    result = run(cli, "generate", "dai-kagamigi", "--option", "pass")
    assert result.exit_code == 2 and "KEY=VALUE" in result.output


def test_cli_option(cli):
    result = run(cli, "generate", "dai-kagamigi", "--max-plies", 6, "--option", "pass=forbidden")
    assert result.exit_code == 0, result.output
    assert '[RuleSet "pass=forbidden"]' in result.stdout


# --- the sample archive --------------------------------------------------------------------------


def sample_files():
    return sorted(SAMPLE.glob("*.lsn"))


def test_sample_covers_every_playable_variant():
    stems = {p.stem for p in sample_files()}
    for v in list_variants():
        if v.playable:
            assert v.slug in stems, f"data/sample/{v.slug}.lsn is missing: run scripts/make-sample-data"
    assert "annotated" in stems
    total = sum(p.stat().st_size for p in SAMPLE.iterdir())
    assert total < 1_600_000


@pytest.mark.parametrize("path", sample_files(), ids=lambda p: p.name)
def test_sample_games_read_back_valid(path):
    games = list(read_games(path.read_text(encoding="utf-8"), file=path.name))
    assert games
    for g in games:
        assert g.valid and not g.errors, [str(e) for e in g.errors]
        if path.stem.endswith("-historical"):  # real games, as recorded (no result kept)
            assert g.headers["Source"] and g.headers["Event"] == "Historical game"
            continue
        if path.stem.endswith("-examples"):  # other programs' records, converted: their source named
            assert "github.com/" in g.headers["Source"]
            continue
        assert g.result in ("1-0", "0-1", "1/2-1/2")
        if path.stem != "annotated":
            assert g.headers["Event"] == EVENT
            assert g.headers["Termination"] in REAL_ENDINGS + ("adjudication",)
            assert int(g.headers["PlyCount"]) == len(g.mainline_moves())


def test_sample_games_are_plausible():
    endings = Counter()
    captures = 0
    for path in sample_files():
        if path.stem == "annotated" or path.stem.endswith(("-historical", "-examples")):
            continue
        for g in read_games(path.read_text(encoding="utf-8")):
            endings[g.headers["Termination"]] += 1
            captures += sum("x" in (n.notation or "") for n in g.mainline())
    games = sum(endings.values())
    assert endings["checkmate"] >= games // 2, endings
    assert captures >= 10 * games


def test_annotated_sample_has_the_promised_features():
    text = (SAMPLE / "annotated.lsn").read_text(encoding="utf-8")
    games = list(read_games(text))
    assert {g.variant.slug for g in games} >= {"dai-kagamigi", "chu-kagamigi", "dai-ryu-shogi"}
    nodes = []

    def walk(node, depth):
        for child in node.variations:
            nodes.append((child, depth + (child is not node.variations[0])))
            walk(child, depth + (child is not node.variations[0]))

    for g in games:
        walk(g, 0)
    moves = [n.move for n, _ in nodes]
    double = [n for n, _ in nodes if n.move.kills and len(n.parent.board().captured_squares(n.move)) >= 2]
    assert any(n.parent.board().piece_at(n.move.from_square).id == "!LD" for n in double)  # Lion Dog
    assert any(m.kills and m.to_square == m.from_square for m in moves)  # igui
    assert any(m.is_pass for m in moves)
    assert any(m.drop for m in moves)
    assert any(n.nags for n, _ in nodes)
    assert any(n.starting_comment for n, _ in nodes) and any(n.comment for n, _ in nodes)
    assert max(depth for _, depth in nodes) >= 2  # a variation inside a variation
    # what the writer writes back is the file itself
    from daikifu.formats.lsn import write_game
    assert "".join(write_game(g) + "\n" for g in games) == text


def test_sample_shogi_file_is_current():
    """data/sample is what scripts/make-sample-data writes (checked on the fastest variant)."""
    result = subprocess.run([sys.executable, str(ROOT / "scripts" / "make-sample-data"), "--check", "shogi"],
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr


def test_the_generate_commands_ply_limit_is_the_engines():
    from daikifu.formats import commands
    from daikifu.replay import selfplay
    assert commands.DEFAULT_MAX_PLIES == selfplay.DEFAULT_MAX_PLIES
