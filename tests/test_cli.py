"""The ``daikifu`` command line, run in-process with click's CliRunner."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from daikifu.cli import main
from daikifu.replay.notation import move_notation, notations, parse_move
from daikifu.replay import Board, list_variants
from daikifu.replay.describe import describe, direction_phrase
from daikifu.replay.variant import bundled_directory

SQUARE = re.compile(r"[a-p]\d{1,2}\Z")
SHOGI_START = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
COMMANDS = [["variants"], ["variant", "show"], ["moves"], ["perft"], ["demo"]]


def run(*args, env=None):
    result = CliRunner().invoke(main, [str(a) for a in args], env=env)
    assert "Traceback" not in result.output
    return result


def run_json(*args, env=None):
    result = run(*args, "--json", env=env)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def user_variant(directory: Path, slug: str, name: str, extra: str = "") -> Path:
    """A copy of the bundled shogi file with another slug and name (and extra TOML appended)."""
    text = (bundled_directory() / "shogi.toml").read_text(encoding="utf-8")
    text = re.sub(r'(?m)^slug = ".*"$', f'slug = "{slug}"', text)
    text = re.sub(r'(?m)^name = ".*"$', f'name = "{name}"', text, count=1)
    text = re.sub(r'(?m)^aliases = \[.*\]$', "aliases = []", text, count=1)
    path = directory / f"{slug}.toml"
    path.write_text(text + extra, encoding="utf-8")
    return path


LION_VARIANT = """\
format = 1
slug = "lion-test"
name = "Lion Test"
status = "playable"
files = 5
ranks = 5
start = "4k/2p2/2p2/2(LN)2/K4 b - 1"

[rules]
promotion_zone = 0
drops = false

[[pieces]]
id = "K"
name = "King"
betza = "K"
royal = true

[[pieces]]
id = "LN"
name = "Lion"
betza = "KmcavK"

[[pieces]]
id = "P"
name = "Pawn"
betza = "fW"
"""

RECONSTRUCTED_EXTRA = """
[options.stalemate]
description = "What a side with no legal move gets."
default = "loss"

[options.stalemate.choices.loss]
description = "It loses, as in shogi."
rules = { stalemate = "loss" }

[options.stalemate.choices.draw]
description = "A draw."
rules = { stalemate = "draw" }

[[provenance]]
topic = "setup"
choice = "Copied from shogi for the test."
source = "the test suite"
confidence = "low"
alternative = "Anything else."
reconstructed = true
"""


# --- help ----------------------------------------------------------------------------------------


def test_group_help_lists_commands():
    result = run("--help")
    assert result.exit_code == 0
    for name in ("variants", "variant", "moves", "perft", "demo", "--variants-dir"):
        assert name in result.output


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_has_help_with_example_and_json(command):
    result = run(*command, "--help")
    assert result.exit_code == 0, result.output
    assert "Example" in result.output
    assert "--json" in result.output


def test_module_entry_point_runs():
    out = subprocess.run([sys.executable, "-m", "daikifu", "--help"], capture_output=True, text=True,
                         cwd=Path(__file__).resolve().parents[1], check=True)
    assert "Usage:" in out.stdout and "perft" in out.stdout


# --- variants ------------------------------------------------------------------------------------


def test_variants_text():
    result = run("variants")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0].split() == ["SLUG", "NAME", "BOARD", "STATUS", "NOTES"]
    shogi = next(line for line in lines if line.startswith("shogi "))
    assert "Shogi" in shogi and "9x9" in shogi and "playable" in shogi


def test_variants_json_lists_every_variant():
    data = run_json("variants")
    assert [v["slug"] for v in data] == [v.slug for v in list_variants()]
    shogi = next(v for v in data if v["slug"] == "shogi")
    assert shogi["name"] == "Shogi"
    assert (shogi["files"], shogi["ranks"], shogi["board"]) == (9, 9, "9x9")
    assert shogi["status"] == "playable" and shogi["playable"] is True
    assert shogi["reconstructed"] is False
    assert shogi["pieces"] == 14


def test_variants_marks_reconstructed(tmp_path):
    user_variant(tmp_path, "rebuilt", "Rebuilt Shogi", RECONSTRUCTED_EXTRA)
    result = run("--variants-dir", tmp_path, "variants")
    row = next(line for line in result.output.splitlines() if line.startswith("rebuilt "))
    assert "parts reconstructed" in row
    shogi_row = next(line for line in result.output.splitlines() if line.startswith("shogi "))
    assert "reconstructed" not in shogi_row
    data = run_json("--variants-dir", tmp_path, "variants")
    assert next(v for v in data if v["slug"] == "rebuilt")["reconstructed"] is True


def test_variants_dir_adds_a_user_variant(tmp_path):
    user_variant(tmp_path, "my-shogi", "My Shogi")
    data = run_json("--variants-dir", tmp_path, "variants")
    mine = next(v for v in data if v["slug"] == "my-shogi")
    assert mine["name"] == "My Shogi" and mine["board"] == "9x9"
    assert len(run_json("--variants-dir", tmp_path, "moves", "my-shogi")) == 30
    # found by display name too, and not known without the directory
    assert run("--variants-dir", tmp_path, "perft", "My Shogi", 1).exit_code == 0
    assert run("moves", "my-shogi").exit_code == 2


def test_variants_env_var_adds_a_user_variant(tmp_path):
    user_variant(tmp_path, "env-shogi", "Env Shogi")
    data = run_json("variants", env={"DAIKIFU_VARIANTS": str(tmp_path)})
    assert "env-shogi" in [v["slug"] for v in data]


def test_user_file_overrides_bundled_variant(tmp_path):
    user_variant(tmp_path, "shogi", "Shogi (house rules)")
    data = run_json("--variants-dir", tmp_path, "variants")
    assert [v["name"] for v in data if v["slug"] == "shogi"] == ["Shogi (house rules)"]


def test_variants_dir_must_exist(tmp_path):
    result = run("--variants-dir", tmp_path / "missing", "variants")
    assert result.exit_code == 2
    assert "does not exist" in result.output


def test_broken_user_variant_file_is_reported_not_fatal(tmp_path):
    (tmp_path / "broken.toml").write_text('slug = "broken"\nname = "Broken"\n', encoding="utf-8")
    user_variant(tmp_path, "fine", "Fine Shogi")
    result = run("--variants-dir", tmp_path, "variants")
    assert result.exit_code == 0
    assert re.search(r"^fine +Fine Shogi", result.output, re.M)
    warning = next(line for line in result.output.splitlines() if line.startswith("warning: not loaded:"))
    assert "broken.toml" in warning and "missing required key" in warning
    missing = run("--variants-dir", tmp_path, "moves", "broken")
    assert missing.exit_code == 2 and "broken.toml" in missing.output


SUBVARIANT_EXTRA = """
[options.handicap]
description = "Handicap games."
default = "even"
subvariant = true

[options.handicap.choices.even]
description = "No handicap."

[options.handicap.choices.rook]
description = "The first player plays without the rook."
board = { start = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B7/LNSGKGSNL b - 1" }
"""


def test_subvariants_listed_and_playable(tmp_path):
    user_variant(tmp_path, "handi", "Handicap Shogi", SUBVARIANT_EXTRA)
    out = run("--variants-dir", tmp_path, "variants").output
    assert re.search(r"Handicap Shogi \(Rook\) +9x9 +playable +subvariant: --option handicap=rook", out)
    data = run_json("--variants-dir", tmp_path, "variants")
    subs = next(v for v in data if v["slug"] == "handi")["subvariants"]
    assert [s["option"] for s in subs] == ["handicap=even", "handicap=rook"]
    even = run_json("--variants-dir", tmp_path, "moves", "handi")
    rook = run_json("--variants-dir", tmp_path, "moves", "handi", "--option", "handicap=rook")
    assert len(even) == 30 and len(rook) == 30 - 6 + 1  # no rook moves; the silver may go to h2
    assert run_json("--variants-dir", tmp_path, "perft", "handi", 1, "-o", "handicap=rook")["nodes"] == 25


# --- variant show --------------------------------------------------------------------------------


def test_variant_show_text():
    result = run("variant", "show", "shogi")
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith("Shogi (shogi)")
    assert "9 files x 9 ranks" in out
    rook = next(line for line in out.splitlines() if line.split()[:2] == ["R", "Rook"])
    assert "+R" in rook and "飛" in rook
    assert "slides orthogonally" in out
    assert "steps one square diagonally or straight forward" in out  # silver
    assert "jumps to the two squares two forward and one sideways" in out  # knight
    assert "(royal)" in out
    for words in ("promotion zone: the last 3 ranks", "forced promotion:", "drops: yes", "nifu",
                  "may not give checkmate", "repetition: sennichite", "stalemate:"):
        assert words in out


def test_variant_show_json():
    data = run_json("variant", "show", "hon shogi")  # an alias
    assert data["slug"] == "shogi"
    assert len(data["pieces"]) == 14
    knight = next(p for p in data["pieces"] if p["id"] == "N")
    assert knight == {**knight, "name": "Knight", "kanji": "桂", "betza": "ffN", "promotes": "+N",
                      "moves": "jumps to the two squares two forward and one sideways"}
    assert data["rules"]["drops"] is True and data["rules"]["promotion_zone"] == 3
    assert data["options"] == {} and data["provenance"] == []


def test_variant_show_options_and_provenance(tmp_path):
    user_variant(tmp_path, "rebuilt", "Rebuilt Shogi", RECONSTRUCTED_EXTRA)
    out = run("--variants-dir", tmp_path, "variant", "show", "rebuilt").output
    assert "Options" in out and "stalemate (default: loss)" in out
    assert "loss [default]: It loses, as in shogi." in out and "draw: A draw." in out
    assert "[RECONSTRUCTED] setup (confidence: low)" in out
    assert "source: the test suite" in out and "alternative: Anything else." in out
    data = run_json("--variants-dir", tmp_path, "variant", "show", "rebuilt")
    assert data["reconstructed"] is True
    assert data["options"]["stalemate"]["default"] == "loss"
    assert set(data["options"]["stalemate"]["choices"]) == {"loss", "draw"}
    assert data["provenance"][0] == {"topic": "setup", "choice": "Copied from shogi for the test.",
                                     "source": "the test suite", "confidence": "low",
                                     "alternative": "Anything else.", "reconstructed": True}


def test_variant_show_every_bundled_variant():
    for v in list_variants():
        result = run("variant", "show", v.slug)
        assert result.exit_code == 0, result.output
        assert "(not understood" not in result.output or not v.playable
        data = run_json("variant", "show", v.slug)
        assert len(data["pieces"]) == len(v.pieces)


def test_variant_show_unknown():
    result = run("variant", "show", "no-such-game")
    assert result.exit_code == 2
    assert "unknown variant 'no-such-game'" in result.output


# --- incomplete variants -------------------------------------------------------------------------


def test_incomplete_variant_is_shown_but_not_played(tmp_path):
    (tmp_path / "sketch.toml").write_text(
        'slug = "sketch"\nname = "Sketch Shogi"\nstatus = "incomplete"\nfiles = 16\nranks = 16\n'
        'missing = "the setup is lost"\n\n[[pieces]]\nid = "K"\nname = "King"\nbetza = "K"\nroyal = true\n',
        encoding="utf-8")
    rows = run_json("--variants-dir", tmp_path, "variants")
    assert next(v for v in rows if v["slug"] == "sketch")["status"] == "incomplete"
    shown = run("--variants-dir", tmp_path, "variant", "show", "sketch")
    assert shown.exit_code == 0 and "incomplete" in shown.output and "the setup is lost" in shown.output
    for command in (["moves", "sketch"], ["perft", "sketch", "1"], ["demo", "sketch"]):
        result = run("--variants-dir", tmp_path, *command)
        assert result.exit_code == 1, command
        assert "Sketch Shogi is marked 'incomplete': the setup is lost" in result.output
        assert len(result.output.strip().splitlines()) == 1


# --- moves ---------------------------------------------------------------------------------------


def test_moves_shogi_json_fields():
    data = run_json("moves", "shogi")
    assert len(data) == 30
    for entry in data:
        assert set(entry) == {"move", "usi", "from", "to", "captures", "promote", "drop"}
        assert SQUARE.match(entry["from"]) and SQUARE.match(entry["to"])
        assert entry["captures"] == [] and entry["promote"] is None and entry["drop"] is None
    assert len({e["move"] for e in data}) == 30
    by_move = {e["move"]: e for e in data}
    assert by_move["P-c4"] == {"move": "P-c4", "usi": "7g7f", "from": "c3", "to": "c4", "captures": [],
                               "promote": None, "drop": None}
    # both golds can reach e2: the origin is written; the king's move to e2 needs none
    assert {"Gd1-e2", "Gf1-e2", "K-e2"} <= set(by_move)
    assert by_move["Gd1-e2"]["from"] == "d1"


def test_moves_usi_positions_and_check():
    data = run_json("moves", "shogi", "-p", "startpos moves 7g7f 3c3d", "--check", "8h2b+", "--check", "B-h8",
                    "--check", "2g2e")
    assert data[0] == {"move": "8h2b+", "legal": True, "reason": None, "code": None, "notation": "Bxh8+"}
    assert data[1]["legal"] is False and data[1]["notation"] is None and data[1]["reason"]
    assert data[2]["legal"] is False and "cannot make that move" in data[2]["reason"]
    assert data[2]["code"] == "piece-cannot-move-so"
    same = run_json("moves", "shogi", "-p", "position sfen lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3")
    assert {e["usi"] for e in same} == {e["usi"] for e in run_json("moves", "shogi", "-p", "startpos moves 7g7f 3c3d")}
    bad = run("moves", "shogi", "-p", "startpos moves 7g7f 7g7f")
    assert bad.exit_code == 2 and "move 2 '7g7f'" in bad.output


def test_moves_text():
    result = run("moves", "shogi")
    assert result.exit_code == 0
    lines = result.output.splitlines()
    assert lines[0] == "30 legal moves for the first player:"
    assert len(lines) == 31 and "  P-c4" in lines


def test_moves_from_position_with_drops_and_captures():
    position = "4k4/9/9/9/9/4p4/9/9/4K4 b Gp 1"  # first player holds a Gold
    data = run_json("moves", "shogi", "--position", position)
    drops = [e for e in data if e["drop"]]
    assert drops and all(e["from"] is None and e["move"] == f"G*{e['to']}" for e in drops)
    assert {"G*e5", "G*a9"} <= {e["move"] for e in drops}
    assert "G*e4" not in {e["move"] for e in drops}  # occupied


def test_moves_promotion_choice_and_capture():
    position = "4k4/9/9/4S4/9/9/9/9/4K4 b - 1"  # silver on e6, promotion zone from rank 7
    moves = {e["move"]: e for e in run_json("moves", "shogi", "-p", position)}
    assert moves["S-e7+"]["promote"] is True and moves["S-e7="]["promote"] is False
    assert moves["S-d5"]["promote"] is None
    capture = {e["move"]: e for e in run_json("moves", "shogi", "-p", "4k4/4p4/4P4/9/9/9/9/9/4K4 b - 1")}
    assert capture["Pxe8+"]["captures"] == ["e8"]
    assert "Pxe8=" in capture  # a pawn on rank 8 could still move: promotion is a choice
    forced = {e["move"] for e in run_json("moves", "shogi", "-p", "4k4/P8/9/9/9/9/9/9/4K4 b - 1")}
    assert "P-a9+" in forced and "P-a9=" not in forced


def test_moves_second_player_to_move():
    result = run("moves", "shogi", "-p", SHOGI_START.replace(" b ", " w "))
    assert result.output.startswith("30 legal moves for the second player:")


def test_moves_multi_step_notation(tmp_path):
    (tmp_path / "lion.toml").write_text(LION_VARIANT, encoding="utf-8")
    data = run_json("--variants-dir", tmp_path, "moves", "lion-test")
    moves = {e["move"]: e for e in data}
    assert moves["LNxc3xc4"]["captures"] == ["c3", "c4"] and moves["LNxc3xc4"]["to"] == "c4"
    assert moves["LNx!c3"] == {"move": "LNx!c3", "usi": "3d3c3d", "from": "c2", "to": "c2", "captures": ["c3"],
                               "promote": None, "drop": None}
    assert moves["LNc2-c2"]["captures"] == [] and moves["LNc2-c2"]["to"] == "c2"  # pass
    assert moves["LNxc3"]["captures"] == ["c3"]
    assert "LN-c1" in moves


def test_moves_disambiguation_of_multi_step_moves(tmp_path):
    (tmp_path / "lion.toml").write_text(LION_VARIANT, encoding="utf-8")
    position = "4k/5/2p2/1(LN)1(LN)1/K4 b - 1"
    # two Sente Lions where the game has one: a set-up position, let through with a warning
    result = run("--variants-dir", tmp_path, "moves", "lion-test", "-p", position, "--allow-impossible", "--json")
    assert result.exit_code == 0 and "allowed: piece-count: Sente has 2 Lions" in result.stderr
    moves = {e["move"] for e in json.loads(result.stdout)}
    assert {"LNb2xc3", "LNd2xc3", "LNb2x!c3", "LNd2x!c3", "LNb2-b2", "LNd2-d2"} <= moves
    assert "LNxc3" not in moves
    assert "LN-a3" in moves and "LNb2-a3" not in moves  # only the lion on b2 reaches a3


def test_notation_helpers_agree():
    board = Board("shogi")
    written = notations(board)
    for move, text in written.items():
        assert move_notation(board, move) == text
        assert parse_move(board, text) == move
    assert parse_move(board, "gd1-e2") == parse_move(board, "Gd1-e2")


def test_moves_errors():
    unknown = run("moves", "no-such-game")
    assert unknown.exit_code == 2 and "unknown variant 'no-such-game'" in unknown.output
    assert "known: " in unknown.output and "shogi" in unknown.output
    bad_position = run("moves", "shogi", "--position", "9/9/9 b - 1")
    assert bad_position.exit_code == 2
    assert "Invalid value for '--position'" in bad_position.output and "3 ranks given" in bad_position.output
    bad_piece = run("moves", "shogi", "-p", "4k4/9/9/9/9/9/9/9/4Q4 b - 1")
    assert bad_piece.exit_code == 2 and "no piece 'Q'" in bad_piece.output
    bad_option = run("moves", "shogi", "--option", "speed=fast")
    assert bad_option.exit_code == 2 and "has no option 'speed'" in bad_option.output
    not_pair = run("moves", "shogi", "--option", "speed")
    assert not_pair.exit_code == 2 and "is not KEY=VALUE" in not_pair.output


def test_moves_option_value_checked(tmp_path):
    user_variant(tmp_path, "rebuilt", "Rebuilt Shogi", RECONSTRUCTED_EXTRA)
    ok = run("--variants-dir", tmp_path, "moves", "rebuilt", "--option", "stalemate=draw")
    assert ok.exit_code == 0
    bad = run("--variants-dir", tmp_path, "moves", "rebuilt", "--option", "stalemate=win")
    assert bad.exit_code == 2 and "has no value 'win'" in bad.output and "loss, draw" in bad.output


def test_moves_when_the_game_is_over():
    mate = "4k4/4G4/4G4/9/9/9/9/9/4K4 w - 1"  # second player is checkmated
    result = run("moves", "shogi", "-p", mate)
    assert result.exit_code == 0
    assert "No legal moves for the second player: checkmate" in result.output
    assert run_json("moves", "shogi", "-p", mate) == []


# --- perft ---------------------------------------------------------------------------------------


def test_perft_text_and_json():
    result = run("perft", "shogi", 2)
    assert result.exit_code == 0
    assert result.output.startswith("perft(2) = 900 ")
    data = run_json("perft", "shogi", 3)
    assert data["nodes"] == 25470 and data["depth"] == 3 and data["variant"] == "shogi"
    assert data["position"] == SHOGI_START
    assert run_json("perft", "shogi", 0)["nodes"] == 1


def test_perft_divide():
    data = run_json("perft", "shogi", 2, "--divide")
    assert data["nodes"] == 900 and len(data["divide"]) == 30
    assert set(data["divide"].values()) == {30}
    assert "P-c4" in data["divide"]
    text = run("perft", "shogi", 2, "--divide").output.splitlines()
    assert re.fullmatch(r"P-c4 +30", next(line for line in text if line.startswith("P-c4")))
    assert text[-1].startswith("perft(2) = 900")


def test_perft_from_position_and_errors():
    data = run_json("perft", "shogi", 1, "-p", "4k4/9/9/9/9/9/9/9/4K4 b G 1")
    assert data["nodes"] == 5 + 79  # king moves, gold drops on every empty square
    assert run("perft", "shogi", "-1").exit_code == 2
    assert run("perft", "shogi", "deep").exit_code == 2
    assert run("perft", "nothing", 1).exit_code == 2


# --- demo ----------------------------------------------------------------------------------------


def test_demo_text():
    result = run("demo", "shogi", "--plies", 12, "--seed", 3)
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith("Shogi: 12 plies of random legal moves (seed 3")
    assert "   1. " in out and "   6. " in out
    assert "9  8  7  6  5  4  3  2  1" in out  # shogi's own style: files from the right
    assert "plies/s" in out
    algebraic = run("demo", "shogi", "--plies", 12, "--seed", 3, "--style", "algebraic").output
    assert "a  b  c  d  e  f  g  h  i" in algebraic
    # the same game, its moves written both ways: the Japanese text names the destination of each
    data = run_json("demo", "shogi", "--plies", 12, "--seed", 3, "--style", "japanese")
    assert len(data["texts"]) == len(data["moves"]) == 12 and all(t[0] in "▲△" for t in data["texts"])
    assert data["texts"][0] in out and data["moves"][0] in algebraic
    position = re.search(r"^position: (.+)$", out, re.M).group(1)
    assert position.endswith(" 13")
    assert run("moves", "shogi", "-p", position).exit_code == 0


def test_demo_json_is_reproducible():
    first = run_json("demo", "shogi", "-n", 20, "-s", 5)
    again = run_json("demo", "shogi", "-n", 20, "-s", 5)
    other = run_json("demo", "shogi", "-n", 20, "-s", 6)
    assert first["plies"] == 20 and len(first["moves"]) == 20 and len(first["uci"]) == 20
    assert first["moves"] == again["moves"] and first["position"] == again["position"]
    assert first["moves"] != other["moves"]
    board = Board("shogi")
    for text in first["moves"]:
        board.play(parse_move(board, text))
    assert board.position() == first["position"]
    assert set(first) >= {"variant", "seed", "outcome", "diagram", "plies_per_second"}


def test_demo_default_variant():
    data = run_json("demo", "--plies", 4)
    expected = "dai-kagamigi" if any(v.slug == "dai-kagamigi" and v.playable for v in list_variants()) else "shogi"
    assert data["variant"] == expected and data["plies"] == 4


def test_random_game_stops_when_the_game_ends():
    import random
    from daikifu.replay.randomplay import random_game
    board = Board("shogi", "4k4/4G4/4G4/9/9/9/9/9/4K4 w - 1")
    game = random_game(board, 10, random.Random(1))
    assert game.moves == [] and game.outcome.termination == "checkmate"
    board = Board("shogi", "4k4/9/4G4/9/9/9/9/9/4K4 b G 1")  # G*e8 mates at once
    game = random_game(board, 50, random.Random(2), capture_bias=0)
    assert board.ply == len(game.moves) <= 50
    assert game.outcome is None or board.outcome() == game.outcome


# --- describe ------------------------------------------------------------------------------------


@pytest.mark.parametrize("betza, words", [
    ("fR", "slides straight forward"),
    ("ffN", "jumps to the two squares two forward and one sideways"),
    ("sW4", "moves up to 4 squares sideways"),
    ("FfW", "steps one square diagonally or straight forward"),
    ("K", "steps one square in all eight directions"),
    ("WfF", "steps one square in any direction except diagonally backward"),
    ("RF", "slides orthogonally; steps one square diagonally"),
    ("fW", "steps one square straight forward"),
    ("mfWcfF", "steps one square straight forward without capturing; "
               "steps one square diagonally forward only to capture"),
    ("N", "jumps to any of the eight squares a knight's leap away"),
    ("flB4", "moves up to 4 squares diagonally forward-left"),
    ("iW", "steps one square orthogonally (only on its first move)"),
])
def test_describe(betza, words):
    assert describe(betza) == words


def test_describe_multi_leg():
    text = describe("mcfavF")
    assert text.startswith("steps one square diagonally forward, to an empty square or capturing, then ")
    assert "further the same way or back to its start square" in text
    assert "capture without moving or pass" in text


def test_direction_phrase_groups():
    assert direction_phrase({(0, 1), (0, -1), (1, 0), (-1, 0)}) == "orthogonally"
    assert direction_phrase({(1, 0), (-1, 0)}) == "sideways"
    assert direction_phrase({(-1, 1)}) == "diagonally forward-left"
