"""``daikifu validate``, ``daikifu convert`` and ``daikifu variant import`` from the command line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from daikifu.cli import main
from daikifu.formats.kif import read_kif
from daikifu.formats.lsn import read_games
from daikifu.formats.reading import read_record

DATA = Path(__file__).resolve().parent / "data"

VALID = """[Variant "shogi"]
[Sente "Alice"]
[Gote "Bob"]

1. P-c4 P-g6 2. Bxh8+ Sxh8 {the silver recaptures}
3. B*e5 *
"""
# ply 5: Sente's bishop was exchanged on move 2, so "Bxb8" names no piece on the board
INVALID = """[Variant "shogi"]

1. P-c4 P-g6
2. Bxh8+ Sxh8 3. Bxb8 *
"""


def run(*args, input=None):
    return CliRunner().invoke(main, list(args), input=input, catch_exceptions=False)


@pytest.fixture
def records(tmp_path):
    (tmp_path / "valid.lsn").write_text(VALID, encoding="utf-8")
    (tmp_path / "invalid.lsn").write_text(INVALID, encoding="utf-8")
    return tmp_path


def test_validate_valid_file_exits_0(records):
    result = run("validate", str(records / "valid.lsn"))
    assert result.exit_code == 0, result.output
    assert "valid, 5 plies" in result.output


def test_validate_reports_the_exact_place_of_the_first_bad_move(records):
    result = run("validate", "--json", str(records / "invalid.lsn"))
    assert result.exit_code == 1
    verdict, = json.loads(result.stdout)
    assert verdict["status"] == "invalid" and verdict["ply_count"] == 4
    error, = verdict["errors"]
    # line 4 is "2. Bxh8+ Sxh8 3. Bxb8 *": "Bxb8" starts in column 18
    assert (error["line"], error["column"], error["ply"], error["move"]) == (4, 18, 5, "Bxb8")
    assert "no B" in error["message"] and error["suggestions"]


def test_validate_mixed_files_and_text_output(records):
    result = run("validate", str(records / "valid.lsn"), str(records / "invalid.lsn"))
    assert result.exit_code == 1
    assert "invalid.lsn:4:18, game 1, ply 5, move 'Bxb8'" in result.output


def test_validate_reads_standard_input():
    result = run("validate", "-", input=VALID)
    assert result.exit_code == 0


def test_format_is_recognised_by_content_not_name(tmp_path):
    kif = DATA / "real" / "kif" / "jkf_chudan.kif"
    disguised = tmp_path / "looks-like.lsn"
    disguised.write_bytes(kif.read_bytes())
    result = run("validate", "--json", str(disguised))
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)[0]["ply_count"] == 3


def test_convert_lsn_to_kif_and_back_keeps_the_moves(records, tmp_path):
    out = tmp_path / "game.kif"
    assert run("convert", str(records / "valid.lsn"), "--to", "kif", "-o", str(out)).exit_code == 0
    kif_game, = read_kif(out.read_bytes())
    lsn_game, = read_games(VALID)
    assert kif_game.mainline_moves() == lsn_game.mainline_moves()
    back = run("convert", str(out), "--to", "lsn")
    assert back.exit_code == 0
    assert next(read_games(back.stdout)).mainline_moves() == lsn_game.mainline_moves()


def test_convert_to_json(records):
    result = run("convert", str(records / "valid.lsn"), "--to", "json")
    game, = json.loads(result.stdout)
    assert [m["move"] for m in game["moves"]][:3] == ["P-c4", "P-g6", "Bxh8+"]
    assert game["moves"][3]["captures"] == ["h8"]


def test_convert_json_flag_is_to_json(records):
    assert run("convert", str(records / "valid.lsn"), "--json").output == run("convert", str(records / "valid.lsn"), "--to", "json").output
    both = run("convert", str(records / "valid.lsn"), "--json", "--to", "kif")
    assert both.exit_code == 2 and "contradict" in both.output
    neither = run("convert", str(records / "valid.lsn"))
    assert neither.exit_code == 2 and "--to lsn" in neither.output


def test_convert_several_games_to_kif_writes_one_stream_and_to_ki2_needs_a_pattern(records, tmp_path):
    both = tmp_path / "both.lsn"
    both.write_text(VALID + "\n" + VALID.replace("Alice", "Carol"), encoding="utf-8")
    # KIF holds several games as lishogi's exports write them, each followed by two blank lines
    result = run("convert", str(both), "--to", "kif", "-o", str(tmp_path / "x.kif"))
    assert result.exit_code == 0 and "wrote 2 games to" in result.output
    text = (tmp_path / "x.kif").read_text(encoding="utf-8")
    assert text.count("#KIF") == 2 and "\n\n\n#KIF" in text
    games = list(read_record(text.encode("utf-8"), name="x.kif"))
    assert [g.headers["Sente"] for g in games] == ["Alice", "Carol"] and all(g.valid for g in games)
    result = run("convert", str(both), "--to", "kif", "--encoding", "cp932", "-o", str(tmp_path / "sjis.kif"))
    data = (tmp_path / "sjis.kif").read_bytes()
    assert result.exit_code == 0 and b"\r\n\r\n\r\n#KIF" in data and b"\r\n\n" not in data  # one line end
    assert [g.headers["Sente"] for g in read_record(data, name="sjis.kif")] == ["Alice", "Carol"]
    # KI2 holds one: nothing is written without {n}
    result = CliRunner().invoke(main, ["convert", str(both), "--to", "ki2", "-o", str(tmp_path / "x.ki2")])
    assert result.exit_code == 1 and "{n}" in result.output and "nothing written" in result.output
    assert not (tmp_path / "x.ki2").exists()
    result = run("convert", str(both), "--to", "ki2", "-o", str(tmp_path / "g-{n}.ki2"))
    assert result.exit_code == 0
    assert (tmp_path / "g-1.ki2").exists() and (tmp_path / "g-2.ki2").exists()


def test_convert_invalid_game_warns_and_exits_1(records):
    result = CliRunner().invoke(main, ["convert", str(records / "invalid.lsn"), "--to", "lsn"])
    assert result.exit_code == 1
    assert "warning" in result.stderr and "Bxb8" in result.stderr


# --- variant import --------------------------------------------------------------------------------


@pytest.fixture
def dai_page(tmp_path):
    seed = DATA / "seeds" / "000_bd72b228147d2619.txt"
    line = re.search(r"files=15[^\n]*", seed.read_text(encoding="utf-8")).group(0)
    page = tmp_path / "dai.html"
    page.write_text(f"<html><head><title>Dai Kagamigi</title></head><body><p>Rules</p>"
                    f"<div class='idiagram'>{line}</div></body></html>", encoding="utf-8")
    return page


def test_variant_import_reports_what_it_cannot_map(dai_page, tmp_path):
    out = tmp_path / "v" / "dai-import.toml"
    out.parent.mkdir()
    result = CliRunner().invoke(main, ["variant", "import", str(dai_page), "--slug", "dai-import", "-o", str(out)])
    assert result.exit_code == 0, result.output
    assert "F3SW" in result.stderr  # the Wrestler's malformed string is reported, not repaired
    assert "incomplete" in result.stderr
    listing = run("--variants-dir", str(out.parent), "variants", "--json")
    entry = next(v for v in json.loads(listing.stdout) if v["slug"] == "dai-import")
    assert entry["status"] == "incomplete"


def test_variant_import_with_a_piece_override_is_playable(dai_page, tmp_path):
    out = tmp_path / "v" / "dai-import.toml"
    out.parent.mkdir()
    result = run("variant", "import", str(dai_page), "--slug", "dai-import", "--piece", "W=F3sW", "-o", str(out))
    assert result.exit_code == 0
    perft = run("--variants-dir", str(out.parent), "perft", "dai-import", "1", "--json")
    bundled = run("perft", "dai-kagamigi", "1", "--json")
    assert json.loads(perft.stdout)["nodes"] == json.loads(bundled.stdout)["nodes"]


def test_variant_import_without_a_definition_is_a_one_line_error(tmp_path):
    page = tmp_path / "empty.html"
    page.write_text("<html><body>No diagram here.</body></html>", encoding="utf-8")
    result = CliRunner().invoke(main, ["variant", "import", str(page)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output and len(result.output.strip().splitlines()) == 1
