"""lishogi's bulk exports: a multi-game KIF stream (each game followed by two blank lines) and the
NDJSON export (one JSON object a line, USI moves), read by the pipeline and imported in one pass.

The streams are built here from the lishogi Chu Shogi game of tests/data/real/chu (its KIF lines as
lishogi writes them, cut after different plies, with lishogi's header lines and ``[%clk]``/``[%eval]``
comments); the NDJSON form of each game holds the USI moves of the same plies, so both forms must
import to the same games."""

from __future__ import annotations

import io
import json
import re
import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from daikifu.archive.store import Archive
from daikifu.cli import main
from daikifu.formats.evals import MATE_SCORE
from daikifu.formats.lishogi import looks_like_ndjson, split_kif_stream
from daikifu.formats.reading import detect_format, read_stream, read_text, write_record
from daikifu.replay.usi import move_to_usi

CHU = Path(__file__).parent / "data" / "real" / "chu" / "scalashogi_chushogi-kif1.kif"
GAMES = 1000
CLOCK = " [%clk 0:09:58]"  # after the first move's [%eval], as lishogi's older exports wrote clocks


def _score(ply: int) -> tuple:
    """lishogi's evaluation of the position after ``ply`` in these streams: (centipawns, mate),
    one of them None (a mate every 20 plies, for Sente then for Gote)."""
    if ply % 20 == 0:
        return None, (ply // 20) * (1 if ply % 40 else -1)
    return (ply * 37) % 401 - 200, None


def _eval_text(ply: int) -> str:
    """The comment lishogi's NotationDump writes: the Pawns as a Java float prints them
    (Python's shortest float text is the same for these), a mate as mateN."""
    cp, mate = _score(ply)
    return f"[%eval mate{mate}]" if mate is not None else f"[%eval {cp / 100}]"


def _analysis(ply: int, usi: list) -> dict:
    """lishogi's NDJSON analysis entry of ``ply``: the score after it; every 5th ply the engine's
    choice in the position before it (the move played and the two after it), every 25th with an
    illegal second move (cut by the rules); every 7th a judgment of the move."""
    cp, mate = _score(ply)
    entry = {"eval": cp} if mate is None else {"mate": mate}
    if ply % 5 == 0:
        entry["best"] = usi[ply - 1]
        entry["variation"] = " ".join(usi[ply - 1:ply + 2]) if ply % 25 else f"{usi[ply - 1]} 1a1a"
    if ply % 7 == 0:
        entry["judgment"] = {"name": "Mistake", "comment": "Mistake. Something else was best."}
    return entry


def _centis(ply: int) -> int:
    return 60000 - 50 * ply  # the mover's clock after ply, in centiseconds (NDJSON's clocks)


def _source():
    lines = CHU.read_text(encoding="utf-8").splitlines()
    game = next(read_text(CHU.read_text(encoding="utf-8"), name=CHU.name))
    assert game.valid and len(game.mainline_moves()) == 129
    usi = [move_to_usi(game.rules, m) for m in game.mainline_moves()]
    # where a game may end: after a move line that is no Lion's first step (its second follows)
    ends = [k + 1 for k, line in enumerate(lines) if "一歩目" not in line]
    return lines, usi, ends


def _with_evals(body: list) -> list:
    """The move lines with lishogi's comment after each move (after a Lion's second step)."""
    out, ply = [], 0
    for line in body:
        out.append(line)
        if "一歩目" not in line:
            ply += 1
            out.append("*" + _eval_text(ply) + (CLOCK if ply == 1 else ""))
    return out


def _streams(count: int):
    """(KIF stream, NDJSON text, plies of each game) of ``count`` games as lishogi writes them:
    every third game has lishogi's analysis ([%eval] comments in KIF, ``analysis`` in NDJSON),
    every tenth game of the NDJSON its ``clocks`` (a clock on every ply costs the import the
    move's text, so not every game has them, to keep the test short)."""
    lines, usi, ends = _source()
    kif, ndjson, plies = [], [], []
    for i in range(count):
        cut = ends[(i * 7) % (len(ends) // 2)]  # (the first half of the game: a shorter test)
        body = lines[:cut]
        n = sum(1 for line in body if "二歩目" not in line)  # a double move is one ply on two lines
        if i % 3 == 0:
            body = _with_evals(body)
        kif.append("\n".join([f"開始日時：2023/11/{1 + i % 28:02d} 12:00:00", f"場所：https://lishogi.org/g{i:07d}",
                              f"先手：p{i}", f"後手：q{i}", "手数----指手---------消費時間--", *body]) + "\n\n\n")
        ndjson.append(json.dumps({"id": f"g{i:07d}", "rated": False, "variant": "chushogi", "speed": "correspondence",
                                  "createdAt": 1700000000000, "status": "started",
                                  "players": {"sente": {"user": {"name": f"p{i}", "id": f"p{i}"}},
                                              "gote": {"user": {"name": f"q{i}", "id": f"q{i}"}}},
                                  "moves": " ".join(usi[:n]),
                                  **({"clocks": [_centis(p) for p in range(1, n + 1)]} if i % 10 == 0 else {}),
                                  **({"analysis": [_analysis(p, usi) for p in range(1, n + 1)]} if i % 3 == 0 else {})}))
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
    for g in games[::3]:  # the games with lishogi's analysis: every move's score kept, as data
        nodes = list(g.mainline())
        assert [(n.eval.cp, n.eval.mate) for n in nodes] == [_score(p) for p in range(1, len(nodes) + 1)]
        assert not any("[%eval" in n.comment for n in nodes)
    assert all(n.eval is None for g in games[1::3] for n in g.mainline())


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


def _expected_rows(plies_with_analysis: int, ndjson: bool) -> dict:
    """hash -> what engine_analysis holds for lishogi's analysis of the source game's positions
    after 1 .. ``plies_with_analysis`` plies: (score, mate, best, pv, cut, judgment); the best line
    (NDJSON only) in the compact form of the moves, on the position it starts from."""
    game = next(read_text(CHU.read_text(encoding="utf-8"), name=CHU.name))
    moves = game.mainline_moves()
    board = game.start_board()
    hashes = [board.zobrist]
    for move in moves:
        board.push(move)
        hashes.append(board.zobrist)
    rows = {}
    for ply in range(1, plies_with_analysis + 1):
        cp, mate = _score(ply)
        score = cp if mate is None else (MATE_SCORE - abs(mate)) * (1 if mate > 0 else -1)
        best = pv = None
        cut = 0
        nxt = ply + 1  # the engine's choice in this position is given with the next ply
        if ndjson and nxt % 5 == 0 and nxt <= plies_with_analysis:
            best = moves[ply].uci()
            pv = " ".join(m.uci() for m in moves[ply:ply + 3]) if nxt % 25 else best
            cut = 0 if nxt % 25 else 1
        judgment = "Mistake" if ndjson and ply % 7 == 0 else None
        rows.setdefault(hashes[ply], (score, mate, best, pv or "", cut, judgment))
    return rows


def _stored_rows(db) -> dict:
    with sqlite3.connect(db) as conn:
        return {h: tuple(rest) for h, *rest in conn.execute(
            "SELECT hash, score, mate, best, pv, cut, judgment FROM engine_analysis WHERE engine = 'lishogi'")}


def test_a_thousand_game_stream_and_its_ndjson_import_to_the_same_games(tmp_path):
    kif, nd, plies = _streams(GAMES)
    (tmp_path / "games.kif").write_text(kif, encoding="utf-8")
    (tmp_path / "games.ndjson").write_text(nd, encoding="utf-8")
    first = _import(tmp_path / "a.db", tmp_path / "games.kif")
    assert first["games"] == GAMES and first["invalid"] == 0 and first["plies"] == sum(plies)
    distinct = len(set(plies))  # the same game cut after the same ply is a duplicate
    assert first["stored"] == distinct and first["duplicates"] == GAMES - distinct
    alone = _import(tmp_path / "b.db", tmp_path / "games.ndjson")
    assert alone["games"] == GAMES and alone["stored"] == distinct and alone["plies"] == sum(plies)
    with Archive(tmp_path / "a.db") as a, Archive(tmp_path / "b.db") as b:
        def stored(archive):  # the first of each game in the file is the one stored
            return sorted((g["digest"], g["ply_count"], g["sente"], g["gote"], g["variant"])
                          for g in archive.games(status="all"))
        assert stored(a) == stored(b)
        assert len(stored(a)) == distinct and {p for _, p, *_ in stored(a)} == set(plies)
    # lishogi's analysis is kept as analysis: every position any game gave a score for, once, under
    # the engine "lishogi" (the KIF stream's Site is lishogi's); from NDJSON with its best lines,
    # replayed by the rules (and cut where they refuse a move), and the judgments
    analysed = max(n for i, n in enumerate(plies) if i % 3 == 0)
    assert _stored_rows(tmp_path / "a.db") == _expected_rows(analysed, ndjson=False)
    assert _stored_rows(tmp_path / "b.db") == _expected_rows(analysed, ndjson=True)
    with sqlite3.connect(tmp_path / "a.db") as db:
        comments = [c for (c,) in db.execute("SELECT comment FROM annotations WHERE comment IS NOT NULL")]
        clocks = db.execute("SELECT count(*) FROM annotations WHERE ply = 1 AND clock = ?", ("clk 0:09:58",)).fetchone()
    assert comments and not any("[%eval" in c for c in comments)  # stored as data, not kept in the text
    # lishogi's [%clk] comment gives the archive's clock of the first move (the stored game is the
    # first of each length, and every third game has the comment)
    firsts = {}
    for i, n in enumerate(plies):
        firsts.setdefault(n, i)
    assert clocks[0] == sum(1 for i in firsts.values() if i % 3 == 0) > 0
    # NDJSON's clocks reach the clock column of every ply of the games that have them
    with sqlite3.connect(tmp_path / "b.db") as db:
        got = {(s, ply): clock for s, ply, clock in db.execute(
            "SELECT p.name, a.ply, a.clock FROM annotations a JOIN games g ON g.id = a.game_id "
            "JOIN players p ON p.id = g.sente_id WHERE a.clock IS NOT NULL")}
    want = {}
    for i in (i for i in firsts.values() if i % 10 == 0):
        for ply in range(1, plies[i] + 1):
            seconds, hundredths = divmod(_centis(ply), 100)
            want[f"p{i}", ply] = f"clk 0:{seconds // 60:02d}:{seconds % 60:02d}" + (f".{hundredths:02d}" if hundredths else "")
    assert want and got == want
    _shown(tmp_path / "a.db", plies, firsts, analysed)
    # convert writes every game of the stream to one KIF file, which reads back to the same games
    # with lishogi's analysis written as lishogi writes it
    out = tmp_path / "out.kif"
    done = CliRunner().invoke(main, ["convert", str(tmp_path / "games.kif"), "--to", "kif", "-o", str(out)])
    assert done.exit_code == 0 and f"wrote {GAMES} games to" in done.output, done.output
    back = list(read_stream(io.BytesIO(out.read_bytes()), name="out.kif"))
    assert [len(g.mainline_moves()) for g in back] == plies and all(g.valid for g in back)
    assert [g.headers["Sente"] for g in back] == [f"p{i}" for i in range(GAMES)]
    assert all([(n.eval.cp, n.eval.mate) for n in g.mainline()] == [_score(p) for p in range(1, plies[i] + 1)]
               for i, g in enumerate(back) if i % 3 == 0)
    first_game = out.read_text(encoding="utf-8").split("\n\n\n")[0]
    assert [line for line in first_game.splitlines() if line.startswith("*")] == \
        ["*" + _eval_text(p) + (CLOCK if p == 1 else "") for p in range(1, plies[0] + 1)]


def _shown(db, plies, firsts, analysed):
    """The analysis on the game page (Flask's test client): the score graph's data and the
    record's own evaluations in the move list."""
    from daikifu.web import create_app
    client = create_app(db).test_client()
    with Archive(db, readonly=True) as a:
        ids = {g["sente"]: g["id"] for g in a.games(status="all")}
    longest = max(firsts.values(), key=lambda i: plies[i])
    data = client.get(f"/api/games/{ids[f'p{longest}']}/analysis").get_json()
    assert data["engine"] == "lishogi" and data["engines"] == {"lishogi": min(analysed, plies[longest])}
    for entry in data["plies"][1:analysed + 1]:
        cp, mate = _score(entry["ply"])
        assert (entry["mate"], entry["engine"]) == (mate, "lishogi")
        assert entry["score"] == cp if mate is None else entry["score"] * mate > 0
    mine = max((i for i in firsts.values() if i % 3 == 0), key=lambda i: plies[i])  # a game whose text has them
    page = client.get(f"/games/{ids[f'p{mine}']}").get_data(as_text=True)
    labels = re.findall(r'<span class="eval"[^>]*>([^<]*)</span>', page)
    assert labels == [f"#{m}" if m is not None else f"{c / 100:+.2f}"
                      for c, m in (_score(p) for p in range(1, plies[mine] + 1))]


@pytest.mark.parametrize("blank", ["\n\n", "\r\n\r\n"])
def test_one_game_with_blank_lines_at_its_end_is_one_game(blank):
    text = "先手：a\n手数----指手--\n1 ７六歩(77)\n" + blank * 3
    assert len(list(read_text(text, name="one.kif"))) == 1


def test_a_kif_stream_on_standard_input_is_imported_game_by_game(tmp_path):
    kif, _, plies = _streams(20)
    done = _import(tmp_path / "a.db", "-", kif.encode("utf-8"))
    assert done["games"] == 20 and done["invalid"] == 0 and done["plies"] == sum(plies)


@pytest.mark.parametrize("written, cp, mate", [("[%eval 0.35]", 35, None), ("[%eval -1.0]", -100, None),
                                               ("[%eval mate3]", None, 3), ("[%eval mate-2]", None, -2),
                                               ("[%eval #-4]", None, -4), ("[%eval 0.52,18]", 52, None)])
def test_eval_forms_are_read_and_written_back_as_lishogi_writes_them(written, cp, mate):
    text = f'[Variant "shogi"]\n[Result "*"]\n\n1. P-c4 {{{written} [%clk 0:01:00] fine}} P-c6 *\n'
    game = next(read_text(text, name="a.lsn"))
    node = game.next()
    assert (node.eval.cp, node.eval.mate) == (cp, mate) and node.comment == "[%clk 0:01:00] fine"
    lishogi = f"[%eval mate{mate}" if mate is not None else f"[%eval {cp / 100}"
    lishogi += ",18]" if ",18" in written else "]"  # (lishogi writes no depth; lichess's is kept)
    for fmt in ("lsn", "kif", "ki2", "csa", "jkf", "json"):  # every writer that keeps comments
        out = write_record(game, fmt).decode("utf-8")
        back = next(read_text(out, fmt=fmt))
        assert back.next().eval == node.eval and back.next().comment.endswith("fine"), fmt
        if fmt != "json":  # (JSON holds it as an object)
            assert f"{lishogi} [%clk 0:01:00]" in out or f"{lishogi} [%clk 0:01:00] fine" in out, (fmt, out)


def test_ndjson_clocks_and_analysis_problems_are_located_warnings():
    record = {"id": "abcd1234", "variant": "standard", "moves": "7g7f 3c3d 2g2f",
              "clocks": [18000, "soon", 17000, 16000],
              "analysis": [{"eval": 30}, {"eval": 10 ** 30}, 7]}  # (no number the archive could not store)
    line = json.dumps(record)
    game = next(read_text("{}\n" + line + "\n", name="x.ndjson"))
    assert game.valid and len(game.mainline_moves()) == 3  # the moves are kept
    found = {(e.ply, e.line, e.column): str(e) for e in game.errors}
    assert all(e.kind == "warning" and e.file == "x.ndjson" and e.game == 1 for e in game.errors)
    clocks, analysis = line.index('"clocks"') + 1, line.index('"analysis"') + 1
    assert set(found) == {(4, 2, clocks), (2, 2, clocks), (2, 2, analysis), (3, 2, analysis)}
    assert all("lishogi game abcd1234" in m for m in found.values())
    assert '"soon"' in found[2, 2, clocks] and "4 entries for 3 moves" in found[4, 2, clocks]
    nodes = list(game.mainline())
    assert [n.comment for n in nodes] == ["[%clk 0:03:00]", "", "[%clk 0:02:50]"]
    assert nodes[0].eval.cp == 30 and nodes[1].eval is None and nodes[2].eval is None


def test_streams_on_standard_input_validate_and_convert(tmp_path):
    kif, nd, plies = _streams(12)
    for data, fmt in ((kif, "kif"), (nd, "ndjson")):
        result = CliRunner().invoke(main, ["validate", "--json", "-"], input=data.encode("utf-8"))
        assert result.exit_code == 0, result.output
        assert [v["ply_count"] for v in json.loads(result.output)] == plies
        result = CliRunner().invoke(main, ["convert", "-", "--to", "lsn"], input=data.encode("utf-8"))
        assert result.exit_code == 0, result.output
        games = list(read_text(result.stdout, fmt="lsn"))
        assert [len(g.mainline_moves()) for g in games] == plies, fmt
        # the analysis is written as lishogi writes it, first in the move's comment
        assert [(n.eval.cp, n.eval.mate) for n in games[3].mainline()] == [_score(p) for p in range(1, plies[3] + 1)]
    empty = CliRunner().invoke(main, ["convert", "-", "--to", "lsn"], input=b"")
    assert empty.exit_code == 2 and "empty" in empty.output


def test_an_archive_analysed_before_version_3_gains_the_new_columns(tmp_path):
    from daikifu.archive.analysis import stored_analysis
    db = tmp_path / "a.db"
    kif, _, _ = _streams(4)
    (tmp_path / "g.kif").write_text(kif, encoding="utf-8")
    _import(db, tmp_path / "g.kif")
    with sqlite3.connect(db) as conn:  # back to version 2, with the table the first analyse made then
        rows = conn.execute("SELECT hash, engine, version, options, depth, movetime, reached, score, best, pv, "
                            "engine_pv, cut, cut_reason, nodes, created FROM engine_analysis").fetchall()
        conn.execute("DROP TABLE engine_analysis")
        conn.execute("CREATE TABLE engine_analysis (hash INTEGER NOT NULL, engine TEXT NOT NULL, version TEXT NOT NULL, "
                     "options TEXT NOT NULL, depth INTEGER NOT NULL, movetime INTEGER NOT NULL, reached INTEGER NOT "
                     "NULL, score INTEGER NOT NULL, best TEXT, pv TEXT NOT NULL, engine_pv TEXT NOT NULL, cut INTEGER "
                     "NOT NULL, cut_reason TEXT, nodes INTEGER, created TEXT NOT NULL, PRIMARY KEY (hash, engine, "
                     "version, options, depth, movetime)) WITHOUT ROWID")
        conn.executemany(f"INSERT INTO engine_analysis VALUES ({','.join('?' * 15)})", rows)
        conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
    assert rows
    with sqlite3.connect(db) as old:  # read as it is (a reader that does not migrate): no mate, no judgment
        found = stored_analysis(old, [r[0] for r in rows])
        assert len(found) == len(rows) and all(v["mate"] is None and v["judgment"] is None for v in found.values())
    with Archive(db) as a:  # opened to write: migrated, the rows kept
        columns = {r[1] for r in a.conn.execute("PRAGMA table_info(engine_analysis)")}
        assert {"mate", "judgment"} <= columns
        assert a.conn.execute("SELECT count(*) FROM engine_analysis").fetchone()[0] == len(rows)


def test_show_lists_the_records_evaluations(tmp_path):
    kif, _, plies = _streams(1)
    (tmp_path / "g.kif").write_text(kif, encoding="utf-8")
    _import(tmp_path / "a.db", tmp_path / "g.kif")
    result = CliRunner().invoke(main, ["show", "1", "--db", str(tmp_path / "a.db"), "--json"])
    moves = json.loads(result.output)["moves"]
    assert [(m["eval"]["cp"] if "cp" in m["eval"] else None, m["eval"].get("mate")) for m in moves] == \
        [_score(p) for p in range(1, plies[0] + 1)]
    text = CliRunner().invoke(main, ["show", "1", "--db", str(tmp_path / "a.db")]).output
    cp = _score(1)[0]
    assert f"1. {moves[0]['text']}: [eval {cp / 100:+.2f}] [%clk 0:09:58]" in text


def test_a_json_record_with_an_evaluation_out_of_bounds_is_refused_not_stored(tmp_path):
    game = next(read_text('[Variant "shogi"]\n[Result "*"]\n\n1. P-c4 {[%eval 0.5]} *\n', name="a.lsn"))
    data = json.loads(write_record(game, "json"))
    assert data["moves"][0]["eval"] == {"cp": 50}
    data["moves"][0]["eval"] = {"cp": 10 ** 30}
    (tmp_path / "big.json").write_text(json.dumps(data), encoding="utf-8")
    bad = next(read_text((tmp_path / "big.json").read_text(encoding="utf-8"), name="big.json"))
    assert not bad.valid and "whole numbers" in str(bad.errors[0])
    done = _import(tmp_path / "a.db", tmp_path / "big.json")
    assert done["invalid"] == 1
