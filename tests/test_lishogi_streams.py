"""lishogi's bulk exports: a multi-game KIF stream (each game followed by two blank lines) and the
NDJSON export (one JSON object a line, USI moves), read by the pipeline and imported in one pass.

The streams are built here from the lishogi Chu Shogi game of tests/data/real/chu (its KIF lines as
lishogi writes them, cut after different plies, with lishogi's header lines and ``[%clk]``/``[%eval]``
comments); the NDJSON form of each game holds the USI moves of the same plies, so both forms must
import to the same games."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from daikifu.archive.store import Archive
from daikifu.cli import main
from daikifu.formats.lishogi import looks_like_ndjson, split_kif_stream
from daikifu.formats.reading import detect_format, read_stream, read_text
from daikifu.replay.usi import move_to_usi

CHU = Path(__file__).parent / "data" / "real" / "chu" / "scalashogi_chushogi-kif1.kif"
GAMES = 1000
CLOCK = "*[%eval 0.35] [%clk 0:09:58]"  # lishogi writes evals in pawns, mates as mate3


def _source():
    lines = CHU.read_text(encoding="utf-8").splitlines()
    game = next(read_text(CHU.read_text(encoding="utf-8"), name=CHU.name))
    assert game.valid and len(game.mainline_moves()) == 129
    usi = [move_to_usi(game.rules, m) for m in game.mainline_moves()]
    # where a game may end: after a move line that is no Lion's first step (its second follows)
    ends = [k + 1 for k, line in enumerate(lines) if "一歩目" not in line]
    return lines, usi, ends


def _streams(count: int):
    """(KIF stream, NDJSON text, plies of each game) of ``count`` games as lishogi writes them."""
    lines, usi, ends = _source()
    kif, ndjson, plies = [], [], []
    for i in range(count):
        cut = ends[(i * 7) % len(ends)]
        body = lines[:cut]
        n = sum(1 for line in body if "二歩目" not in line)  # a double move is one ply on two lines
        if i % 3 == 0:
            body = body[:1] + [CLOCK] + body[1:]
        kif.append("\n".join([f"開始日時：2023/11/{1 + i % 28:02d} 12:00:00", f"先手：p{i}", f"後手：q{i}",
                              "手数----指手---------消費時間--", *body]) + "\n\n\n")
        ndjson.append(json.dumps({"id": f"g{i:07d}", "rated": False, "variant": "chushogi", "speed": "correspondence",
                                  "createdAt": 1700000000000, "status": "started",
                                  "players": {"sente": {"user": {"name": f"p{i}", "id": f"p{i}"}},
                                              "gote": {"user": {"name": f"q{i}", "id": f"q{i}"}}},
                                  "moves": " ".join(usi[:n])}))
        plies.append(n)
    return "".join(kif), "\n".join(ndjson) + "\n", plies


def test_a_kif_stream_gives_every_game_with_its_lines_in_the_file():
    kif, _, plies = _streams(30)
    assert detect_format(kif, "games.kif") == "kif"
    games = list(read_stream(io.BytesIO(kif.encode("utf-8")), name="games.kif"))
    assert [len(g.mainline_moves()) for g in games] == plies
    assert all(g.valid for g in games), [str(e) for g in games for e in g.errors][:3]
    assert [g.number for g in games] == list(range(1, 31))
    assert [g.headers["Sente"] for g in games] == [f"p{i}" for i in range(30)]
    starts = [n for n, line in enumerate(kif.splitlines(), 1) if line.startswith("開始日時")]
    assert [g.source_line for g in games] == starts
    first = next(iter(games[0].mainline()))  # the comment lishogi writes after the first move
    assert first.comment == "[%clk 0:09:58]"  # the [%eval] is data, not text
    assert first.eval.cp == 35 and first.eval.mate is None


def test_an_error_names_its_game_and_its_line_in_the_stream():
    kif, _, _ = _streams(5)
    lines = kif.splitlines()
    bad = next(n for n, line in enumerate(lines) if line.strip().startswith("2手目") and n > 40)
    lines[bad] = lines[bad].replace("2手目", "2手目　ＸＹ", 1).replace("獅子", "ZZ")
    games = list(read_text("\n".join(lines) + "\n", name="games.kif"))
    broken = [g for g in games if not g.valid]
    assert len(games) == 5 and len(broken) == 1
    error = broken[0].errors[0]
    assert error.game == broken[0].number and error.line == bad + 1 and error.file == "games.kif"


def test_variations_after_blank_lines_stay_in_their_game():
    text = ("手数----指手--\n1 ７六歩(77)\n2 ３四歩(33)\n\n\n変化：2手\n2 ８四歩(83)\n\n\n*note: x\n\n\n"
            "先手：b\n手数----指手--\n1 ２六歩(27)\n")
    assert [first for first, _ in split_kif_stream(text)] == [1, 13]
    games = list(read_text(text, name="two.kif"))
    assert len(games) == 2 and games[1].headers["Sente"] == "b" and games[1].source_line == 13


def test_ndjson_reads_lishogi_fields():
    _, nd, plies = _streams(4)
    assert looks_like_ndjson(nd) and detect_format(nd) == "ndjson"
    assert not looks_like_ndjson('{\n  "variant": "chushogi",\n  "moves": []\n}')
    assert not looks_like_ndjson('{"variant": "chushogi", "moves": []}')  # daikifu JSON on one line
    games = list(read_text(nd, name="games.ndjson"))
    assert [len(g.mainline_moves()) for g in games] == plies
    g = games[1]
    assert g.variant.slug == "chu-shogi" and g.headers["Sente"] == "p1" and g.headers["Gote"] == "q1"
    assert g.headers["Site"] == "https://lishogi.org/g0000001" and g.headers["Date"] == "2023.11.14"
    won = json.dumps({"variant": "chushogi", "moves": "", "winner": "gote", "status": "resign",
                      "players": {"sente": {"name": "guest"}, "gote": {"aiLevel": 3}}})
    game = next(read_text(won + "\n", fmt="ndjson"))
    assert game.result == "0-1" and game.headers["Sente"] == "guest" and game.headers["Gote"] == "lishogi AI level 3"


def test_ndjson_keep_alive_lines_and_the_older_start_field():
    start = "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"
    line = json.dumps({"variant": "standard", "moves": "3c3d 2g2f", "initialFen": start})
    text = "{}\n" + line + "\n{}\n" + line.replace("initialFen", "initialSfen") + "\n"
    assert detect_format(text) == "ndjson"
    games = list(read_text(text))
    assert [g.number for g in games] == [1, 2] and [g.source_line for g in games] == [2, 4]
    assert all(g.valid and g.variant.slug == "shogi" and len(g.mainline_moves()) == 2 for g in games)
    assert games[0].start == start and games[1].start == start


def test_ndjson_errors_name_line_and_column():
    _, nd, _ = _streams(3)
    lines = nd.splitlines()
    lines[1] = lines[1].replace('"moves": "', '"moves": "zz9 ', 1)
    lines.insert(2, "{not json")
    games = list(read_text("\n".join(lines) + "\n", fmt="ndjson", name="g.ndjson"))
    assert [g.valid for g in games] == [True, False, False, True]
    move_error = games[1].errors[0]
    assert move_error.line == 2 and move_error.column == lines[1].index("zz9") + 1 and move_error.ply == 1
    assert games[2].errors[0].line == 3


def _import(db, path, data=None):
    result = CliRunner().invoke(main, ["import", "--db", str(db), "--json", str(path)], input=data)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_a_thousand_game_stream_and_its_ndjson_import_to_the_same_games(tmp_path):
    kif, nd, plies = _streams(GAMES)
    (tmp_path / "games.kif").write_text(kif, encoding="utf-8")
    (tmp_path / "games.ndjson").write_text(nd, encoding="utf-8")
    first = _import(tmp_path / "a.db", tmp_path / "games.kif")
    assert first["games"] == GAMES and first["invalid"] == 0 and first["plies"] == sum(plies)
    distinct = len(set(plies))  # the same game cut after the same ply is a duplicate
    assert first["stored"] == distinct and first["duplicates"] == GAMES - distinct
    again = _import(tmp_path / "a.db", tmp_path / "games.ndjson")
    assert again["games"] == GAMES and again["stored"] == 0 and again["duplicates"] == GAMES
    alone = _import(tmp_path / "b.db", tmp_path / "games.ndjson")
    assert alone["stored"] == distinct and alone["plies"] == sum(plies)
    with Archive(tmp_path / "a.db") as a, Archive(tmp_path / "b.db") as b:
        def stored(archive):  # the first of each game in the file is the one stored
            return sorted((g["digest"], g["ply_count"], g["sente"], g["gote"], g["variant"])
                          for g in archive.games(status="all"))
        assert stored(a) == stored(b)
        assert len(stored(a)) == distinct and {p for _, p, *_ in stored(a)} == set(plies)
    # lishogi's [%clk] comment gives the archive's clock of the first move (the stored game is the
    # first of each length, and every third game has the comment)
    firsts = {}
    for i, n in enumerate(plies):
        firsts.setdefault(n, i)
    with sqlite3.connect(tmp_path / "a.db") as db:
        clocks = db.execute("SELECT count(*) FROM annotations WHERE ply = 1 AND clock = ?", ("clk 0:09:58",)).fetchone()
    assert clocks[0] == sum(1 for i in firsts.values() if i % 3 == 0) > 0


@pytest.mark.parametrize("blank", ["\n\n", "\r\n\r\n"])
def test_one_game_with_blank_lines_at_its_end_is_one_game(blank):
    text = "先手：a\n手数----指手--\n1 ７六歩(77)\n" + blank * 3
    assert len(list(read_text(text, name="one.kif"))) == 1


def test_a_kif_stream_on_standard_input_is_imported_game_by_game(tmp_path):
    kif, _, plies = _streams(20)
    done = _import(tmp_path / "a.db", "-", kif.encode("utf-8"))
    assert done["games"] == 20 and done["invalid"] == 0 and done["plies"] == sum(plies)
