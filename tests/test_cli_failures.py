"""The command line under faults (issue 24): an import waits for another writer and gives up
in one line, two imports at once both finish, the summary adds up, one exit code per kind of
failure, directories and empty files in ``validate``."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from daikifu.archive.importer import import_paths
from daikifu.archive.store import Archive
from daikifu.cli import main

SAMPLE = Path(__file__).parent.parent / "data" / "sample"
GAME = '[Variant "shogi"]\n[Event "{event}"]\n\n1. P-{a}4 P-{b}6 *\n'


def run(*args):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def games_file(path: Path, n: int, first: int = 0) -> Path:
    """``n`` different shogi games (each its pair of pawn moves; at most 81 in all, from the
    ``first``)."""
    pairs = [(a, b) for a in "abcdefghi" for b in "abcdefghi"][first:first + n]
    path.write_text("\n".join(GAME.format(event=f"game {a}{b}", a=a, b=b) for a, b in pairs), encoding="utf-8")
    return path


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "games.db"
    Archive(path).close()
    return path


class Holder:
    """Another program's write transaction on the archive, as a long import holds it."""

    def __init__(self, path):
        self.conn = sqlite3.connect(path, isolation_level=None)
        self.conn.execute("BEGIN IMMEDIATE")

    def release(self, *_):
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")


# --- waiting for another writer -----------------------------------------------------------------


def test_an_import_waits_for_the_writer_and_stores_everything(tmp_path, db):
    record = games_file(tmp_path / "a.lsn", 5)
    holder = Holder(db)
    waits = []

    def busy(waited):  # the other writer finishes while the import waits
        waits.append(waited)
        holder.release()

    with Archive(db) as archive:
        summary = import_paths(archive, [str(record)], wait=60, on_busy=busy)
    assert waits and summary.imported == 5
    with Archive(db) as archive:
        assert archive.stats()["games"] == 5


def test_an_import_that_cannot_get_the_archive_exits_1_in_one_line_and_stores_nothing(tmp_path, db):
    a, b = games_file(tmp_path / "a.lsn", 3), games_file(tmp_path / "b.lsn", 2, 3)
    holder = Holder(db)
    try:
        result = CliRunner().invoke(main, ["import", str(a), str(b), "--db", str(db), "--wait", "1.5"])
    finally:
        holder.release()
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "archive busy" in result.stderr
    last = [line for line in result.stderr.splitlines() if line.startswith("Error")]
    assert len(last) == 1 and "a.lsn" in last[0] and "b.lsn" in last[0] and "Traceback" not in result.output
    with Archive(db) as archive:
        assert archive.stats()["games"] == 0
        assert archive.imports() == []


def test_two_imports_started_together_both_store_all_their_games(tmp_path):
    """Ten times two ``daikifu import`` processes on one new archive, committing after every game
    so that they take the write lock in turns."""
    a, b = games_file(tmp_path / "a.lsn", 30), games_file(tmp_path / "b.lsn", 30, 30)
    env = {**os.environ, "DAIKIFU_COMMIT_SECONDS": "0"}
    for round_ in range(10):
        path = tmp_path / f"together{round_}.db"
        procs = [subprocess.Popen([sys.executable, "-m", "daikifu", "import", str(f), "--db", str(path)],
                                  env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                 for f in (a, b)]
        outputs = [p.communicate(timeout=300) for p in procs]
        assert [p.returncode for p in procs] == [0, 0], outputs
        with Archive(path) as archive:
            assert archive.stats()["games"] == 60


# --- the summary adds up ------------------------------------------------------------------------


def test_the_import_summary_adds_up_to_the_games_stored(tmp_path, db):
    run("import", games_file(tmp_path / "first.lsn", 1), "--db", db)  # 1. P-a4 P-a6
    record = tmp_path / "mixed.lsn"
    record.write_text(
        GAME.format(event="duplicate", a="a", b="a")
        + '\n[Variant "shogi"]\n\n1. P-a4 P-a6 2. P-b4 *\n'  # a stored game's line and one move: a prefix duplicate
        + GAME.format(event="new", a="c", b="c")
        + '\n[Variant "shogi"]\n\n1. P-a5 *\n', encoding="utf-8")  # invalid
    result = run("import", record, "--db", db)
    counts = {}
    for line in result.output.splitlines():
        name, _, value = line.strip().partition(":")
        if value and name in ("stored", "new", "prefix duplicates", "invalid", "duplicates"):
            counts[name] = int(value.split()[0])
    with Archive(db) as archive:
        in_archive = archive.stats()["games"] - 1
    assert counts["stored"] == in_archive == 3
    assert counts["stored"] == counts["new"] + counts["prefix duplicates"] + counts["invalid"]
    assert (counts["new"], counts["prefix duplicates"], counts["invalid"], counts["duplicates"]) == (1, 1, 1, 1)


# --- statistics: players and first moves --------------------------------------------------------

HANDICAP = "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"  # gote gives a lance


def stats_game(sente, gote, result, moves="1. P-c4 P-c6", start=None):
    tags = f'[Variant "shogi"]\n[Sente "{sente}"]\n[Gote "{gote}"]\n[Result "{result}"]\n'
    if start:
        tags += f'[SetUp "1"]\n[SFEN "{start}"]\n'
    return f"{tags}\n{moves} {result}\n"


def test_stats_rate_no_placeholder_names_and_count_first_moves_from_the_start_only(tmp_path, db):
    import json

    record = tmp_path / "stats.lsn"
    record.write_text("\n".join([
        stats_game("Taro", "Hanako", "1-0"),
        stats_game("Hanako", "Taro", "0-1", "1. P-g4 P-c6"),
        stats_game("sente", "gote", "1-0", "1. P-c4 P-g6"),
        stats_game("先手", "後手", "0-1", "1. P-c4 P-a6"),
        stats_game("shitate", "uwate", "1-0", "1. P-c4 P-b6"),
        stats_game("Black", "White", "1-0", "1. P-c4 P-d6"),
        stats_game("player0", "?", "1-0", "1. P-c4 P-e6"),
        stats_game("Taro", "Hanako", "1-0", "1. P-c4 P-f6", start=HANDICAP),
        stats_game("Hanako", "Taro", "1-0", "1. P-c4 P-h6", start=HANDICAP),
    ]), encoding="utf-8")
    assert run("import", record, "--db", db).exit_code == 0
    report = json.loads(run("stats", "--db", db, "--json").output)
    assert sorted(p["player"] for p in report["players"]) == ["Hanako", "Taro"]
    (shogi,) = report["variants"]
    assert shogi["games"] == 9
    # from the start position: P-c4 in 6 games, P-g4 in 1; the two handicap games are no first moves
    assert sorted((m["games"], m["move"]) for m in shogi["first_moves"]) == [(1, "P-g4"), (6, "P-c4")]


# --- files: directories, missing, empty, not a record; one exit status per kind -----------------


def test_validate_reads_a_directory_as_import_does(tmp_path, db):
    folder = tmp_path / "records"
    (folder / "sub").mkdir(parents=True)
    games_file(folder / "a.lsn", 2)
    games_file(folder / "sub" / "b.lsn", 3, 2)
    (folder / "notes.txt").write_text("nothing to see here\n", encoding="utf-8")
    result = run("validate", folder)
    assert result.exit_code == 0, result.output
    assert "Is a directory" not in result.output and "5 games, 5 valid, 0 invalid" in result.output
    assert "skipped: 1 file" in result.output
    summary = run("import", folder, "--db", db)
    assert summary.exit_code == 0 and "stored:            5" in summary.output


def test_a_missing_file_is_exit_status_2_in_validate_and_import(tmp_path, db):
    for args in (["validate", tmp_path / "nope.lsn"], ["import", tmp_path / "nope.lsn", "--db", db]):
        result = run(*args)
        assert result.exit_code == 2 and "nope.lsn" in result.output and "does not exist" in result.output


@pytest.mark.parametrize("content, says", [(b"", "the file is empty"), (b" \n\n\t\n", "only white space")])
def test_an_empty_file_says_it_is_empty_in_validate_and_import(tmp_path, db, content, says):
    empty = tmp_path / "empty.kif"
    empty.write_bytes(content)
    result = run("validate", empty)
    assert result.exit_code == 2 and says in result.output and "not a record" not in result.output
    result = run("import", empty, "--db", db)
    assert result.exit_code == 2 and says in result.output


def test_not_a_record_names_every_format_read_from_the_registry(tmp_path):
    from daikifu.formats.reading import FORMATS

    other = tmp_path / "notes.txt"
    other.write_text("nothing to see here\n", encoding="utf-8")
    result = run("validate", other)
    assert result.exit_code == 2 and "not a record in a format daikifu reads" in result.output
    for fmt in FORMATS.values():
        assert fmt.title in result.output
    assert "Chu Shogi server" in result.output and "ChuShogiLite" in result.output and "Jocly" in result.output


def test_an_import_that_meets_a_bad_file_goes_on_and_reports_it(tmp_path, db):
    good_before, good_after = games_file(tmp_path / "a.lsn", 2), games_file(tmp_path / "c.lsn", 2, 2)
    bad = tmp_path / "b.kif"
    bad.write_text("nothing to see here\n", encoding="utf-8")
    result = run("import", good_before, bad, good_after, "--db", db)
    assert result.exit_code == 2
    assert "stored:            4" in result.output and "b.kif: not a record" in result.output


# --- an unknown variant: one verdict everywhere -------------------------------------------------

PYCHESS_KYOTO = ('[Event "casual"]\n[Site "pychess"]\n[Variant "Kyotoshogi"]\n[White "a"]\n[Black "b"]\n'
               '[Result "*"]\n\n1. P7g7f *\n')


def test_an_unknown_variant_is_one_verdict_in_validate_import_and_the_web(tmp_path, db):
    import json

    from daikifu.web import create_app

    record = tmp_path / "kyoto.pgn"
    record.write_text(PYCHESS_KYOTO, encoding="utf-8")
    result = run("validate", record)
    assert result.exit_code == 1 and "game 1 (Kyotoshogi): invalid" in result.output
    assert "Kyoto Shogi is not a variant daikifu knows" in result.output
    (checked,) = json.loads(run("validate", "--json", record).output)
    summary = json.loads(run("import", record, "--db", db, "--json").output)
    assert summary["invalid"] == 1 and summary["imported"] + summary["prefixes"] == 0
    with Archive(db) as archive:
        assert archive.stats()["valid"] == 0
        (stored,) = archive.games(status="all")
    page = create_app(db, allow_import=True).test_client().post(
        "/api/import", json={"text": PYCHESS_KYOTO, "action": "check"}).get_json()
    (seen,) = page["games"]
    assert checked["variant"] == stored["variant"] == seen["variant"] == "Kyotoshogi"
    assert checked["status"] == stored["status"] == seen["status"] == "invalid"
    assert checked["errors"][0]["message"] == stored["error"]["message"] == seen["error"]["message"]


def deep_jkf(path: Path) -> Path:
    """A JKF record whose forks are nested 100,000 deep (its reader gave RecursionError)."""
    n = 100_000
    path.write_text('{"header": {}, "moves": [{}, {"move": {"from": {"x": 7, "y": 7}, "to": {"x": 7, "y": 6}, '
                    '"color": 0, "piece": "FU"}, "forks": ' + "[" * n + "]" * n + "}]}", encoding="utf-8")
    return path


def test_a_reader_that_fails_on_a_file_costs_that_file_only(tmp_path, db):
    """JKF nested 100,000 deep: whatever its reader makes of it, the import reports the file and
    stores the games of the next one, in one process and with workers."""
    deep = deep_jkf(tmp_path / "deep.jkf")
    good = games_file(tmp_path / "ok.lsn", 3)
    for jobs in ("1", "2"):
        path = tmp_path / f"deep{jobs}.db"
        result = CliRunner().invoke(main, ["import", str(deep), str(good), "--db", str(path), "--jobs", jobs])
        assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
        assert "Traceback" not in result.output
        with Archive(path) as archive:
            files = {Path(i["file"]).name: i for i in archive.imports()}
            assert files["ok.lsn"]["imported"] == 3 and files["ok.lsn"]["finished"]
        if result.exit_code:  # the reader refused or failed on the deep file: said in one line
            assert result.exit_code == 2 and "deep.jkf" in result.output


def test_validate_goes_on_past_a_file_its_reader_fails_on(tmp_path):
    deep = deep_jkf(tmp_path / "deep.jkf")
    good = games_file(tmp_path / "ok.lsn", 3)
    result = CliRunner().invoke(main, ["validate", str(deep), str(good)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    assert "3 games, 3 valid" in result.output or "4 games, 3 valid" in result.output
    if "4 games" not in result.output:  # the deep file was not read as a game: said in one line
        assert result.exit_code == 2 and "deep.jkf" in result.output
