"""The archive: the SQLite store (archive/store.py), the importer (archive/importer.py) and the
commands import, games, show and export (archive/commands.py).

Game records are generated (archive/sample.py: seeded random legal games) and imported into
databases under tmp_path; the KIF checks use the real records in tests/data/real/kif/.
"""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from daikifu.cli import main
from daikifu.archive.importer import sniff
from record_builders import random_record, random_records, write_records
from daikifu.archive.store import Archive, ArchiveError, digest_of, make_record
from daikifu.archive.schema import SCHEMA_VERSION
from daikifu.formats.game import Game
from daikifu.formats.lsn import read_games, write_game


ROOT = Path(__file__).resolve().parents[1]
KIF_DIR = Path(__file__).resolve().parent / "data" / "real" / "kif"
VARIANTS = ["shogi", "chu-kagamigi", "dai-kagamigi", "dai-ryu-shogi"]


def run(*args, input=None, env=None):
    result = CliRunner().invoke(main, [str(a) for a in args], input=input, env=env)
    assert "Traceback" not in result.output, result.output
    return result


def run_json(*args, **kw):
    result = run(*args, "--json", **kw)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def lsn_file(path: Path, games) -> Path:
    write_records(games, path)
    return path


def few_games(n_per_variant=3, seed=0, plies=(20, 60), comments=0.05):
    out = []
    for v in VARIANTS:
        out.extend(random_records(v, n_per_variant, seed=seed, plies=plies, comments=comments))
    return out


def positions_per_game(db: Path) -> dict:
    con = sqlite3.connect(db)
    try:
        return dict(con.execute("SELECT game_id, count(*) FROM positions GROUP BY game_id"))
    finally:
        con.close()


def check_consistent(db: Path) -> list:
    """Every valid game has exactly ply_count + 1 positions, its text re-reads to ply_count moves,
    and no invalid game has positions; returns the games rows."""
    archive = Archive(db, create=False)
    try:
        con = archive.conn
        con.execute("BEGIN")  # one snapshot for the whole check
        rows = con.execute("SELECT id, ply_count, status FROM games").fetchall()
        counts = dict(con.execute("SELECT game_id, count(*) FROM positions GROUP BY game_id"))
        con.execute("COMMIT")
        for gid, plies, status in rows:
            if status == "invalid":
                assert gid not in counts
            else:
                assert counts.get(gid) == plies + 1, (gid, plies, counts.get(gid))
        for gid, plies, status in rows[:: max(1, len(rows) // 10)]:
            if status == "valid":
                assert len(archive.load_game(gid).mainline_moves()) == plies
        return rows
    finally:
        archive.close()


# --- importing generated games ------------------------------------------------------------------


def test_import_generated_games_of_several_variants(tmp_path):
    games = few_games()
    path = lsn_file(tmp_path / "games.lsn", games)
    db = tmp_path / "a.db"
    summary = run_json("import", path, "--db", db)
    assert summary["games"] == len(games) == summary["imported"] + summary["prefixes"]
    assert summary["duplicates"] == summary["invalid"] == 0
    assert summary["plies"] == sum(len(g.mainline_moves()) for g in games)
    rows = check_consistent(db)
    assert len(rows) == len(games)
    archive = Archive(db)
    stored = list(archive.games())
    assert sorted({g["variant"] for g in stored}) == sorted(VARIANTS)
    for game, row in zip(games, stored):  # stored in file order
        moves = [m.uci() for m in game.mainline_moves()]
        assert row["digest"] == digest_of(game.variant.slug, "", None, moves)
        assert row["sente"] == game.headers["Sente"] and row["date"] == game.headers["Date"]
        assert row["ply_count"] == len(moves)
        # the positions of the main line, in order, with the move played from each
        board = game.start_board()
        for ply, move in enumerate(game.mainline_moves()):
            assert (row["id"], ply) in archive.hash_matches(board.zobrist)
            nxt = archive.conn.execute("SELECT next FROM positions WHERE hash = ? AND game_id = ? AND ply = ?",
                                       (board.zobrist, row["id"], ply)).fetchone()[0]
            assert nxt == move.uci()
            board.push(move)
        assert archive.hash_matches(board.zobrist)[-1] == (row["id"], len(moves))
    # comments and NAGs: one annotations row per annotated ply, with the canonical move
    annotated = [(i, n) for i, g in enumerate(games) for n in g.mainline() if n.comment or n.nags]
    assert annotated
    count = archive.conn.execute("SELECT count(*) FROM annotations").fetchone()[0]
    assert count == len(annotated)
    imp = archive.imports()
    assert len(imp) == 1 and imp[0]["finished"] and imp[0]["imported"] + imp[0]["prefixes"] == len(games)
    assert imp[0]["format"] == "lsn"
    archive.close()


def first_moves_of(games) -> list:
    """The explorer's summary rows the games must give, worked out from the games themselves."""
    rows: dict = {}
    for g in games:
        moves = g.mainline_moves()
        key = (g.start_board().zobrist, g.variant.slug, "", "", moves[0].uci() if moves else "")
        row = rows.setdefault(key, [0, 0, 0, 0, 0, None])
        row[0] += 1
        for i, result in enumerate(("1-0", "0-1", "1/2-1/2"), start=1):
            row[i] += g.result == result
        row[4] += len(moves)
        date = g.headers.get("Date")
        if date and "?" not in date and (row[5] is None or date > row[5]):
            row[5] = date
    return sorted((*key, *row) for key, row in rows.items())


def stored_first_moves(db) -> list:
    con = sqlite3.connect(db)
    try:
        return sorted(con.execute("SELECT * FROM first_moves").fetchall())
    finally:
        con.close()


def test_first_moves_summary_and_the_upgrade_from_schema_version_1(tmp_path):
    games = few_games(4, seed=2, plies=(2, 4))
    for g in games[::4]:  # one more game per variant with the same first move, and no other
        short = Game(g.variant)
        short.add_variation(g.mainline_moves()[0])
        short.result, short.headers["Date"] = "1/2-1/2", "2030.??.??"  # the latest date, not a whole one
        games.append(short)
    path = lsn_file(tmp_path / "games.lsn", games)
    db = tmp_path / "a.db"
    assert run_json("import", path, "--db", db, "--jobs", 2)["invalid"] == 0
    expected = first_moves_of(games)
    assert len(expected) < len(games)  # some games share their first move
    assert stored_first_moves(db) == expected
    assert run_json("import", path, "--db", db)["duplicates"] == len(games)  # not counted again
    assert stored_first_moves(db) == expected
    # an archive of schema version 1 has no summary: read-only, it is refused; upgraded, it is filled
    con = sqlite3.connect(db)
    con.execute("DROP TABLE first_moves")
    con.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    with pytest.raises(ArchiveError, match="schema version 1 is older.*run 'daikifu upgrade --db "):
        Archive(db, readonly=True)
    result = run("upgrade", "--db", db)
    assert result.exit_code == 0 and f"schema version 1 -> {SCHEMA_VERSION}" in result.output
    assert stored_first_moves(db) == expected
    Archive(db, readonly=True).close()


def test_reimport_adds_nothing(tmp_path):
    games = few_games(2, seed=1)
    path = lsn_file(tmp_path / "games.lsn", games)
    db = tmp_path / "a.db"
    run_json("import", path, "--db", db)
    con = sqlite3.connect(db)
    before = [con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("games", "positions", "annotations", "players")]
    again = run_json("import", path, "--db", db)
    assert again["duplicates"] == len(games) and again["imported"] == again["prefixes"] == again["invalid"] == 0
    after = [con.execute(f"SELECT count(*) FROM {t}").fetchone()[0] for t in ("games", "positions", "annotations", "players")]
    assert after == before
    text = run("import", path, "--db", db)
    assert text.exit_code == 0
    assert f"duplicates:        {len(games)}" in text.output


def test_duplicates_and_prefix_duplicates(tmp_path):
    archive = Archive(tmp_path / "a.db")
    game = random_record("chu-kagamigi", 5, plies=(40, 40))
    gid, verdict = archive.add_game(game)
    assert verdict == "imported"
    # the same moves with other tags and comments: a duplicate, nothing stored
    other = random_record("chu-kagamigi", 5, plies=(40, 40))
    other.headers["Sente"] = "Somebody else"
    other.variations[0].comment = "a comment"
    assert archive.add_game(other) == (gid, "duplicate")
    # the first 25 moves: stored, reported as a prefix; both games point at each other
    short = Game("chu-kagamigi")
    node = short
    for m in game.mainline_moves()[:25]:
        node = node.add_variation(m)
    sid, verdict = archive.add_game(short)
    assert verdict == "prefix" and sid != gid
    assert archive.load_game(sid) == short  # a game made in Python is stored as canonical LSN
    assert archive.game(sid)["prefix_of"] == gid and archive.game(gid)["extends"] == sid
    # a longer game that continues the stored one
    long = Game("chu-kagamigi")
    node = long
    board = long.start_board()
    for m in game.mainline_moves():
        node = node.add_variation(m)
        board.push(m)
    from daikifu.replay.randomplay import random_moves
    import random
    for m in random_moves(board, 10, random.Random(3)):
        node = node.add_variation(m)
    lid, verdict = archive.add_game(long)
    assert verdict == "prefix"
    assert archive.game(lid)["extends"] == gid and archive.game(gid)["prefix_of"] == lid
    # the same moves in another variant's game are not related (different digest, no prefix)
    shogi = random_record("shogi", 5, plies=(10, 10))
    assert archive.add_game(shogi)[1] == "imported"
    # a transposition (same final position, other move order) is no prefix
    t1, t2 = Game("shogi"), Game("shogi")
    b = t1.start_board()
    a1, a2 = b.parse_uci("c3c4"), b.parse_uci("g7g6")
    c1 = b.parse_uci("g3g4")
    n = t1
    for m in (a1, a2, c1):
        n = n.add_variation(m)
    assert archive.add_game(t1)[1] == "imported"
    n = t2
    for m in (c1, a2, a1, b.parse_uci("a7a6")):
        n = n.add_variation(m)
    assert archive.add_game(t2)[1] == "imported"
    # through the importer: counted as prefix duplicates
    path = lsn_file(tmp_path / "p.lsn", [short, long])
    db2 = tmp_path / "b.db"
    run_json("import", lsn_file(tmp_path / "g.lsn", [game]), "--db", db2)
    summary = run_json("import", path, "--db", db2)
    assert summary["prefixes"] == 2 and summary["imported"] == 0
    archive.close()


BAD_GAME = """[Variant "shogi"]
[Event "Broken"]
[Sente "Alice"]
[Gote "Bob"]
[Result "1-0"]

1. P-a4 P-i6 2. B-h8+ {not legal: the bishop is blocked}
2... Sxh8 1-0
"""


def test_invalid_games_are_stored_with_their_error_and_text(tmp_path):
    good = random_record("shogi", 1, plies=(12, 12))
    text = write_game(good) + "\n" + BAD_GAME.replace("\n", "\r\n")
    path = tmp_path / "mixed.lsn"
    path.write_bytes(text.encode("utf-8"))
    db = tmp_path / "a.db"
    summary = run_json("import", path, "--db", db)
    assert summary["invalid"] == 1 and summary["imported"] == 1
    err = summary["errors"][0]
    bad_line = text[:text.index("B-h8+")].count("\n") + 1
    assert (err["line"], err["ply"], err["move"]) == (bad_line, 3, "B-h8+")
    assert err["column"] == 17 and err["file"] == str(path) and err["game"] == 2
    archive = Archive(db)
    rows = list(archive.games(status="invalid"))
    assert len(rows) == 1
    row = rows[0]
    assert row["status"] == "invalid" and row["error"]["line"] == bad_line and row["error"]["column"] == 17
    assert row["error"]["ply"] == 3 and row["error"]["move"] == "B-h8+" and row["ply_count"] == 2
    assert row["sente"] == "Alice" and row["event"] == "Broken"
    # the raw text exactly (CRLF line ends kept), and the two texts together are the file
    raw = archive.source(row["id"])
    assert raw == BAD_GAME.replace("\n", "\r\n")
    assert archive.source(1) + raw == text
    assert archive.hash_matches(archive.load_game(row["id"]).start_board().zobrist) == [(1, 0)]
    assert positions_per_game(db).keys() == {1}
    # left out of listings and searches by default
    assert [g["id"] for g in archive.games()] == [1]
    assert [g["id"] for g in archive.games(status="all")] == [1, 2]
    assert run_json("games", "--db", db) == [g for g in run_json("games", "--db", db, "--status", "valid")]
    assert len(run_json("games", "--db", db, "--status", "invalid")) == 1
    listed = run("games", "--db", db, "--status", "all")
    assert "invalid" in listed.output and "move 'B-h8+'" in listed.output
    shown = run("show", row["id"], "--db", db, "--style", "algebraic")
    assert shown.exit_code == 0 and "error:" in shown.output and "P-a4" in shown.output
    assert run_json("show", row["id"], "--db", db)["ply"] == 2
    exported = run("export", "--db", db, "--status", "invalid").output
    (again,) = list(read_games(exported))
    assert len(again.mainline_moves()) == 2 and again.headers["ImportStatus"] == "truncated"
    archive.close()
    # --skip-invalid: reported, not stored
    db2 = tmp_path / "b.db"
    out = run("import", path, "--db", db2, "--skip-invalid")
    assert out.exit_code == 0
    assert f"{path}:{bad_line}:17, game 2, ply 3, move 'B-h8+':" in out.output
    assert "not stored (--skip-invalid)" in out.output
    assert [g["status"] for g in Archive(db2).games(status="all")] == ["valid"]
    assert Archive(db2).imports()[0]["errors"][0]["move"] == "B-h8+"


def test_lenient_import_keeps_the_valid_part(tmp_path):
    path = tmp_path / "bad.lsn"
    path.write_text(BAD_GAME, encoding="utf-8")
    db = tmp_path / "a.db"
    summary = run_json("import", path, "--db", db, "--lenient")
    assert summary["invalid"] == 0 and summary["imported"] == 1
    (row,) = run_json("games", "--db", db)
    assert row["status"] == "truncated" and row["ply_count"] == 2 and row["warnings"]
    assert positions_per_game(db) == {row["id"]: 3}


def test_text_is_stored_exactly(tmp_path):
    """Every game's stored text is its text in the file: together they are the whole file."""
    games = few_games(2, seed=4, comments=0.2)
    text = "".join(write_game(g) + ("\n" if i % 2 else "\n\n\n") for i, g in enumerate(games))
    text = text.replace("\n", "\r\n", 1000)  # mixed line ends
    path = tmp_path / "g.lsn"
    path.write_bytes(text.encode("utf-8"))
    db = tmp_path / "a.db"
    run_json("import", path, "--db", db)
    archive = Archive(db)
    sources = [archive.source(g["id"]) for g in archive.games(status="all")]
    assert "".join(sources) == text
    archive.close()


def test_parallel_import_gives_the_same_archive(tmp_path):
    games = few_games(3, seed=7)
    text = "".join(write_game(g) + "\n" for g in games)
    text = text.replace("P-", "Q-", 1)  # make one game invalid (its error must keep its line)
    path = tmp_path / "g.lsn"
    path.write_text(text, encoding="utf-8")
    kif = tmp_path / "g.kif"
    kif.write_bytes(__import__("daikifu.formats.kif", fromlist=["write_kif"]).write_kif(
        random_record("shogi", 9, plies=(30, 30)), encoding="cp932"))
    results = []
    for jobs in (1, 2):
        db = tmp_path / f"j{jobs}.db"
        summary = run_json("import", path, kif, "--db", db, "--jobs", jobs)
        archive = Archive(db)
        rows = [(g["digest"], g["status"], g["ply_count"], g["source_line"], json.dumps(g["error"]))
                for g in archive.games(status="all")]
        results.append((rows, summary["errors"], summary["invalid"], summary["plies"]))
        archive.close()
        check_consistent(db)
    assert results[0] == results[1]
    assert results[0][2] == 1 and results[0][1][0]["line"] > 1


def test_positions_rows_are_the_same_for_long_and_short_games(tmp_path, monkeypatch):
    """A game's moves are split at once unless the game is very long (then taken one at a time):
    both ways store the same position rows, a game without moves included."""
    from daikifu.archive import store

    games = few_games(1, seed=5)
    text = "".join(write_game(g) + "\n" for g in games)
    text += '[Variant "Shogi"]\n[Result "*"]\n\n*\n'
    path = tmp_path / "g.lsn"
    path.write_text(text, encoding="utf-8")
    tables = []
    for split in (store._SPLIT_PLIES, 0):
        monkeypatch.setattr(store, "_SPLIT_PLIES", split)
        with Archive(tmp_path / f"s{split}.db") as archive:
            from daikifu.archive.importer import import_paths
            summary = import_paths(archive, [str(path)])
            assert summary.games == len(games) + 1 and summary.invalid == summary.duplicates == 0
            tables.append(archive.conn.execute("SELECT hash, game_id, ply, next FROM positions "
                                               "ORDER BY game_id, ply").fetchall())
    assert tables[0] == tables[1]
    assert [row[2:] for row in tables[0] if row[1] == len(games) + 1] == [(0, None)]
    assert sum(row[3] is not None for row in tables[0]) == sum(len(g.mainline_moves()) for g in games)


def test_formats_are_recognised_by_content(tmp_path):
    from daikifu.formats.kif import write_kif
    folder = tmp_path / "records"
    (folder / "sub").mkdir(parents=True)
    lsn_file(folder / "games.kif", few_games(1, seed=2))  # LSN with a KIF name
    (folder / "sub" / "game.lsn").write_bytes(write_kif(random_record("shogi", 3, plies=(16, 16)), encoding="cp932"))
    (folder / "notes.txt").write_text("nothing to see here\n", encoding="utf-8")
    (folder / ".hidden.lsn").write_text(BAD_GAME, encoding="utf-8")
    (folder / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0")
    db = tmp_path / "a.db"
    summary = run_json("import", folder, "--db", db)
    formats = {Path(f["file"]).name: f["format"] for f in summary["files"]}
    assert formats == {"games.kif": "lsn", "game.lsn": "kif"}
    assert sorted(Path(p).name for p in summary["skipped"]) == ["image.png", "notes.txt"]
    assert summary["imported"] + summary["prefixes"] == len(VARIANTS) + 1 and summary["invalid"] == 0
    assert sniff(b"\xef\xbb\xbf[Variant \"shogi\"]\n") == "lsn" and sniff(b"hello") is None


def test_import_from_standard_input(tmp_path):
    games = few_games(1, seed=3)
    text = "".join(write_game(g) + "\n" for g in games)
    db = tmp_path / "a.db"
    summary = run_json("import", "-", "--db", db, input=text)
    assert summary["imported"] + summary["prefixes"] == len(games)
    assert summary["files"][0]["file"] == "-"


def test_database_from_environment_and_errors(tmp_path, monkeypatch):
    games = few_games(1, seed=5)
    path = lsn_file(tmp_path / "g.lsn", games)
    db = tmp_path / "env.db"
    summary = run_json("import", path, env={"DAIKIFU_DB": str(db)})
    assert summary["db"] == str(db) and db.exists()
    monkeypatch.chdir(tmp_path)
    assert run_json("import", path)["duplicates"] == 0 and (tmp_path / "daikifu.db").exists()
    missing = run("games", "--db", tmp_path / "none.db")
    assert missing.exit_code == 1 and "no archive at" in missing.output and len(missing.output.splitlines()) == 1
    assert run("import", tmp_path / "nope.lsn", "--db", db).exit_code == 2
    bad = run("games", "--db", db, "--since", "last week")
    assert bad.exit_code == 2 and "date" in bad.output
    assert run("show", "999", "--db", db).exit_code == 1
    notdb = tmp_path / "not.db"
    notdb.write_text("hello", encoding="utf-8")
    out = run("games", "--db", notdb)
    assert out.exit_code == 1 and "not a daikifu archive" in out.output


# --- listing, showing, exporting ----------------------------------------------------------------


@pytest.fixture(scope="module")
def filled(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("filled")
    games = few_games(3, seed=11, comments=0.1)
    games[0].headers["Sente"], games[0].headers["Date"] = "Taro Yamada", "2021.03.04"
    games[0].result = "1-0"
    games[0].headers["Event"] = "Spring cup"
    games[0].variations[0].comment = "a famous opening trap"
    db = tmp / "a.db"
    run_json("import", lsn_file(tmp / "g.lsn", games), "--db", db)
    return db, games


def test_games_filters(filled):
    db, games = filled
    everything = run_json("games", "--db", db)
    assert len(everything) == len(games)
    assert [g["id"] for g in run_json("games", "--db", db, "--player", "taro yamada")] == [1]
    assert [g["id"] for g in run_json("games", "--db", db, "--player", "Taro*")] == [1]
    assert [g["id"] for g in run_json("games", "--db", db, "--sente", "Taro Yamada", "--result", "sente")] == [1]
    assert run_json("games", "--db", db, "--gote", "Taro Yamada") == []
    assert 1 in [g["id"] for g in run_json("games", "--db", db, "--search", "trap")]
    assert [g["id"] for g in run_json("games", "--db", db, "--search", "spring cup")] == [1]
    assert run_json("games", "--db", db, "--search", "dai-kagamigi") == []  # no FTS syntax error
    shogi = run_json("games", "--db", db, "--variant", "Shogi")
    assert len(shogi) == 3 and {g["variant"] for g in shogi} == {"shogi"}
    assert len(run_json("games", "--db", db, "--limit", "2")) == 2
    dates = sorted(g["date"] for g in everything)
    mid = dates[len(dates) // 2].replace(".", "-")
    since = run_json("games", "--db", db, "--since", mid)
    until = run_json("games", "--db", db, "--until", mid)
    assert len(since) + len(until) == len(games) + sum(d == dates[len(dates) // 2] for d in dates)
    assert all(g["date"] >= dates[len(dates) // 2] for g in since)
    year = run_json("games", "--db", db, "--since", "2021", "--until", "2021")
    assert all(g["date"].startswith("2021") for g in year) and 1 in [g["id"] for g in year]
    text = run("games", "--db", db, "--player", "Taro Yamada")
    assert text.exit_code == 0 and "Taro Yamada" in text.output and "Spring cup" in text.output
    assert "No games match." in run("games", "--db", db, "--player", "nobody").output


def test_show(filled):
    db, games = filled
    data = run_json("show", "1", "--db", db, "--ply", "2")
    game = games[0]
    board = game.start_board()
    for m in game.mainline_moves()[:2]:
        board.push(m)
    assert data["position"] == board.position() and data["hash"] == board.zobrist
    assert run_json("show", "1", "--db", db, "--ply", "2", "--style", "algebraic")["diagram"] == board.diagram()
    # a shogi game in its own style: the same cells, files 9...1 from the left, ranks 一...九 from the top
    shogi_rows, plain_rows = data["diagram"].splitlines(), board.diagram().splitlines()
    assert [r.split()[1:] for r in shogi_rows[1:10]] == [r.split()[1:] for r in plain_rows[1:10]]
    assert [r.split()[0] for r in shogi_rows[1:10]] == list("一二三四五六七八九")
    assert shogi_rows[10].split() == [str(n) for n in range(9, 0, -1)]
    assert [m["uci"] for m in data["moves"]] == [m.uci() for m in game.mainline_moves()]
    assert data["sente"] == "Taro Yamada" and data["moves"][0]["comment"] == "a famous opening trap"
    text = run("show", "1", "--db", db, "--style", "algebraic")
    assert text.exit_code == 0
    assert "Sente: Taro Yamada" in text.output and game.end().board().diagram() in text.output
    # a shogi game: the moves in Japanese by default, in LSN on asking
    assert data["style"] == "japanese" and data["moves"][0]["text"].startswith("▲")
    assert "1. " + data["moves"][0]["text"] in run("show", "1", "--db", db).output
    assert "1. " + data["moves"][0]["move"] in run("show", "1", "--db", db, "--style", "algebraic").output
    by_digest = run_json("show", data["digest"][:10], "--db", db)
    assert by_digest["id"] == 1
    assert run("show", "1", "--db", db, "--ply", "9999").exit_code == 2


def test_export_round_trip(filled, tmp_path):
    db, games = filled
    out = tmp_path / "all.lsn"
    result = run("export", "--db", db, "-o", out)
    assert result.exit_code == 0 and "wrote" in result.output
    exported = list(read_games(out.read_text(encoding="utf-8")))
    assert exported == games  # the games themselves, tags and comments included
    db2 = tmp_path / "b.db"
    run_json("import", out, "--db", db2)
    digests = lambda d: [g["digest"] for g in Archive(d).games(status="all")]  # noqa: E731
    assert digests(db2) == digests(db)
    # JSON (--format json and --json)
    data = json.loads(run("export", "--db", db, "--format", "json").output)
    assert len(data) == len(games) and data[0]["moves"][0]["uci"] == games[0].mainline_moves()[0].uci()
    assert json.loads(run("export", "--db", db, "--json", "--player", "Taro Yamada").output)[0]["tags"]
    # LSN to standard output, filtered
    text = run("export", "--db", db, "--variant", "shogi").output
    assert len(list(read_games(text))) == 3
    # KIF: one file per game
    kif = run("export", "--db", db, "--variant", "shogi", "--format", "kif", "-o", tmp_path / "g-{n}.kif")
    assert kif.exit_code == 0
    assert sorted(p.name for p in tmp_path.glob("g-*.kif")) == ["g-1.kif", "g-2.kif", "g-3.kif"]
    refused = run("export", "--db", db, "--variant", "shogi", "--format", "ki2")  # (KIF holds several)
    assert refused.exit_code == 1 and "{n}" in refused.output
    db3 = tmp_path / "c.db"
    run_json("import", *sorted(tmp_path.glob("g-*.kif")), "--db", db3)
    assert digests(db3) == [g["digest"] for g in Archive(db).games(variant="shogi")]


def test_help_has_examples():
    for cmd in ("import", "games", "show", "export"):
        out = run(cmd, "--help").output
        assert "Examples:" in out and "--db" in out and "--json" in out


# --- interruption and concurrent reading --------------------------------------------------------


@pytest.fixture(scope="module")
def big_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("big") / "big.lsn"
    plies = write_records(random_records("dai-kagamigi", 120, seed=21, plies=(150, 250)), path)
    return path, 120, plies


def _start_import(path, db, *extra):
    env = dict(os.environ, DAIKIFU_COMMIT_SECONDS="0.05", PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "daikifu", "import", str(path), "--db", str(db),
                             "--json", *extra], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)


def _count(db) -> int:
    try:
        con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return con.execute("SELECT count(*) FROM games").fetchone()[0]
        finally:
            con.close()
    except sqlite3.OperationalError:
        return 0  # not created yet


def test_killed_import_is_finished_by_a_rerun(big_file, tmp_path):
    path, n, plies = big_file
    db = tmp_path / "a.db"
    proc = _start_import(path, db)
    deadline = time.monotonic() + 60
    while _count(db) < 10 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert proc.poll() is None, "the import finished before it could be killed: make the file bigger"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    stored = _count(db)
    assert 10 <= stored < n
    check_consistent(db)
    archive = Archive(db)
    (imp,) = archive.imports()
    assert imp["finished"] is None and imp["imported"] <= stored
    archive.close()
    again = run_json("import", path, "--db", db)
    assert again["duplicates"] == stored and again["imported"] + again["prefixes"] == n - stored
    rows = check_consistent(db)
    assert len(rows) == n
    assert sum(r[1] for r in rows) == plies
    digests = [g["digest"] for g in Archive(db).games()]
    assert len(set(digests)) == n


def test_ctrl_c_commits_what_was_read(big_file, tmp_path):
    path, n, plies = big_file
    db = tmp_path / "a.db"
    proc = _start_import(path, db, "--jobs", "2")
    deadline = time.monotonic() + 60
    while _count(db) < 5 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert proc.poll() is None
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    summary = json.loads(out)
    assert summary["interrupted"] and 0 < summary["imported"] + summary["prefixes"] < n
    rows = check_consistent(db)
    assert len(rows) == summary["imported"] + summary["prefixes"]  # every game read was committed
    assert run_json("import", path, "--db", db)["duplicates"] == len(rows)
    assert len(check_consistent(db)) == n


def test_reading_while_an_import_runs(big_file, tmp_path):
    path, n, plies = big_file
    db = tmp_path / "a.db"
    proc = _start_import(path, db)
    seen = []
    try:
        while proc.poll() is None:
            if not db.exists():
                time.sleep(0.01)
                continue
            con = sqlite3.connect(db, timeout=0.2)  # a short timeout: readers must never wait
            try:
                con.execute("BEGIN")
                games = con.execute("SELECT id, ply_count FROM games").fetchall()
                counts = dict(con.execute("SELECT game_id, count(*) FROM positions GROUP BY game_id"))
                con.execute("COMMIT")
            except sqlite3.OperationalError as exc:
                if "no such table" in str(exc):
                    continue
                raise
            finally:
                con.close()
            assert all(counts.get(gid) == p + 1 for gid, p in games)  # never part of a game
            seen.append(len(games))
            time.sleep(0.02)
    finally:
        proc.wait(timeout=120)
    assert proc.returncode == 0
    assert seen == sorted(seen) and len(set(seen)) >= 3  # the reader saw the import progress
    assert _count(db) == n


# --- real KIF records ---------------------------------------------------------------------------


def test_real_kif_records_import_and_are_found_by_position(tmp_path):
    from daikifu.formats.kif import read_kif
    db = tmp_path / "kif.db"
    summary = run_json("import", KIF_DIR, "--db", db)
    files = sorted(p for p in KIF_DIR.iterdir() if p.is_file())
    # json-kifu-format's test diagram has nine Gote Pawns on a file: stored, as invalid
    assert summary["games"] == len(files) and summary["invalid"] == 1 and summary["skipped"] == []
    assert [e["message"].split(":")[0] for e in summary["errors"]] == ["impossible start position"]
    files = [p for p in files if p.name != "jkf_9fu.kif"]
    assert summary["imported"] + summary["prefixes"] + summary["duplicates"] == len(files)
    archive = Archive(db)
    checked = 0
    for path in files:
        (game,) = read_kif(path.read_bytes(), source=str(path))
        assert game.valid, path
        moves = game.mainline_moves()
        digest = make_record(game, "kif").digest
        row = archive.conn.execute("SELECT id FROM games WHERE digest = ?", (digest,)).fetchone()
        assert row is not None, path  # stored, or a duplicate of a stored game
        if len(moves) < 30:
            continue
        board = game.start_board()
        for m in moves[:30]:
            board.push(m)
        assert (row[0], 30) in archive.hash_matches(board.zobrist), path
        checked += 1
    assert checked >= 15
    assert all(f["format"] == "kif" for f in summary["files"])
    archive.close()


def test_variants_dir_reaches_the_readers_and_workers(tmp_path, monkeypatch):
    import re
    from daikifu.replay.variant import ENV_VAR, bundled_directory
    vdir = tmp_path / "variants"
    vdir.mkdir()
    text = (bundled_directory() / "shogi.toml").read_text(encoding="utf-8")
    text = re.sub(r'(?m)^slug = ".*"$', 'slug = "my-shogi"', text)
    text = re.sub(r'(?m)^name = ".*"$', 'name = "My Shogi"', text, count=1)
    text = re.sub(r'(?m)^aliases = \[.*\]$', "aliases = []", text, count=1)
    (vdir / "my-shogi.toml").write_text(text, encoding="utf-8")
    monkeypatch.setenv(ENV_VAR, str(vdir))
    games = list(random_records("my-shogi", 4, seed=1, plies=(10, 20)))
    monkeypatch.delenv(ENV_VAR)
    path = lsn_file(tmp_path / "g.lsn", games)
    unknown = run_json("import", path, "--db", tmp_path / "a.db")  # the variant is unknown here
    assert unknown["invalid"] == 4 and "my-shogi" in unknown["errors"][0]["message"]
    assert {g["variant"] for g in Archive(tmp_path / "a.db").games(status="all")} == {"my-shogi"}
    for jobs in (1, 2):
        db = tmp_path / f"j{jobs}.db"
        summary = run_json("--variants-dir", vdir, "import", path, "--db", db, "--jobs", jobs)
        assert summary["invalid"] == 0 and summary["imported"] + summary["prefixes"] == 4
    shown = run_json("--variants-dir", vdir, "show", "1", "--db", db)
    assert shown["variant"] == "my-shogi" and len(shown["moves"]) == len(games[0].mainline_moves())
    assert len(run_json("--variants-dir", vdir, "games", "--db", db, "--variant", "My Shogi")) == 4
    exported = run("--variants-dir", vdir, "export", "--db", db, "--limit", "1")
    assert exported.exit_code == 0 and '[Variant "my-shogi"]' in exported.output


@pytest.mark.parametrize("fmt", ["lsn", "kif", "ki2", "csa", "jkf", "usi", "json"])
def test_export_writes_every_format_convert_writes(filled, tmp_path, fmt):
    """export writes through convert's writers: the same choice of formats, one option
    definition, and the files it writes read back as the archive's games (their main lines)."""
    from daikifu.formats.commands import convert_command
    from daikifu.formats.reading import FORMATS, read_record
    from daikifu.archive.commands import export_command

    def choices(command, name):
        [option] = [p for p in command.params if name in p.opts]
        return list(option.type.choices)

    assert choices(export_command, "--format") == choices(convert_command, "--to")
    assert fmt in choices(export_command, "--format")
    db, games = filled
    shogi = [g for g in games if g.variant.slug == "shogi"]  # what every format holds
    one_a_file = not FORMATS[fmt].several
    out = tmp_path / (f"g-{{n}}.{fmt}" if one_a_file else f"all.{fmt}")
    result = run("export", "--db", db, "--variant", "shogi", "--format", fmt, "-o", out, "--encoding", "cp932")
    assert result.exit_code == 0, result.output
    files = sorted(tmp_path.glob(f"g-*.{fmt}")) if one_a_file else [out]
    assert [p.name for p in files] == ([f"g-{n}.{fmt}" for n in (1, 2, 3)] if one_a_file else [f"all.{fmt}"])
    read = [g for p in files for g in read_record(p.read_bytes(), name=p.name, fmt=fmt)]
    assert [g.mainline_moves() for g in read] == [g.mainline_moves() for g in shogi]
    assert all(g.valid for g in read)


def test_export_names_the_game_a_format_cannot_hold_and_leaves_no_partial_file(tmp_path):
    games = [random_record("shogi", seed=1, plies=(6, 6)), random_record("dai-kagamigi", seed=2, plies=(6, 6))]
    db = tmp_path / "mixed.db"
    run_json("import", lsn_file(tmp_path / "g.lsn", games), "--db", db)
    out = tmp_path / "all.csa"
    result = run("export", "--db", db, "--format", "csa", "-o", out)
    assert result.exit_code == 1
    assert "game 2: CSA cannot hold a game of Dai Kagamigi" in result.output
    assert not out.exists() and not list(tmp_path.glob(".*.part"))  # written whole or not at all
    assert run("export", "--db", db, "--format", "csa", "--variant", "shogi", "-o", out).exit_code == 0
    from daikifu.formats.reading import read_record
    [game] = read_record(out.read_bytes(), fmt="csa")
    assert game.valid and game.mainline_moves() == games[0].mainline_moves()


def test_a_game_imported_with_a_variant_reads_back_in_that_variant(tmp_path):
    """A record that does not name its variant (a USI line) is read with the variant the import was
    given, and so is its stored text whenever the archive reads it again."""
    from daikifu.formats.reading import write_record
    from daikifu.replay import Board
    board = Board("chu-shogi")
    for _ in range(6):  # the first legal move each time: Chu moves a shogi board cannot hold
        board.push(sorted(board.legal_moves())[0])
    game = Game.from_moves("chu-shogi", list(board.move_stack))
    usi = tmp_path / "line.usi"
    usi.write_bytes(write_record(game, "usi"))
    db = tmp_path / "a.db"
    assert run("import", "--db", db, "--variant", "chu-shogi", usi).exit_code == 0
    (row,) = run_json("games", "--db", db)
    assert row["variant"] == "chu-shogi" and row["status"] == "valid"
    with Archive(db) as archive:
        stored = archive.load_game(row["id"])
    assert stored.variant.slug == "chu-shogi" and not stored.errors
    assert stored.mainline_moves() == game.mainline_moves()
