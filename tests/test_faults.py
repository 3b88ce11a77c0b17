"""Faults (issue 15), in the slow suite: an import killed at random moments leaves a sound
archive that a re-run completes to exactly the clean import; two imports at once and reads during
an import; a 10 MB comment refused at once, or read in linear memory when the limit is raised."""

from __future__ import annotations

import os
import random
import signal
import sqlite3
import subprocess
import sys
import threading
import time
import tracemalloc
from pathlib import Path

import pytest

from daikifu.formats.limits import ReadLimits
from daikifu.formats.lsn import read_games

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parent.parent
SAMPLE = ROOT / "data" / "sample"


def _import(db: Path, *paths: Path) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "daikifu", "import", *map(str, paths), "--db", str(db)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _digests(db: Path) -> set:
    with sqlite3.connect(db) as conn:
        return {r[0] for r in conn.execute("SELECT digest FROM games")}


def _sound(db: Path) -> None:
    """Integrity, no orphan rows, no half-stored game."""
    with sqlite3.connect(db) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert conn.execute("SELECT count(*) FROM positions WHERE game_id NOT IN (SELECT id FROM games)").fetchone()[0] == 0
        assert conn.execute("SELECT count(*) FROM annotations WHERE game_id NOT IN (SELECT id FROM games)").fetchone()[0] == 0
        half = conn.execute("SELECT g.id FROM games g WHERE g.status != 'invalid' AND g.ply_count + 1 != "
                            "(SELECT count(*) FROM positions p WHERE p.game_id = g.id)").fetchall()
        assert half == []


def test_an_import_killed_at_any_moment_leaves_a_sound_archive_that_a_rerun_completes(tmp_path):
    clean = tmp_path / "clean.db"
    assert _import(clean, SAMPLE).wait(300) == 0
    expected = _digests(clean)
    rng = random.Random("kill")
    for trial in range(6):
        db = tmp_path / f"killed-{trial}.db"
        for _ in range(2):  # killed twice, at random moments (some during the schema's creation)
            proc = _import(db, SAMPLE)
            time.sleep(rng.uniform(0.05, 2.5))
            proc.send_signal(signal.SIGKILL)
            proc.wait(30)
            if db.exists():
                _sound(db)
        assert _import(db, SAMPLE).wait(300) == 0
        _sound(db)
        assert _digests(db) == expected


def test_two_imports_at_once_and_reads_meanwhile(tmp_path):
    from daikifu.web import create_app

    db = tmp_path / "both.db"
    first = _import(db, SAMPLE / "shogi.lsn")
    assert first.wait(120) == 0  # the archive exists: the viewer can open it
    client = create_app(db).test_client()
    statuses = []
    stop = threading.Event()

    def read():
        while not stop.is_set():
            statuses.append(client.get("/api/games?per_page=5").status_code)

    reader = threading.Thread(target=read)
    reader.start()
    a, b = _import(db, SAMPLE / "dai-kagamigi.lsn", SAMPLE / "chu-kagamigi.lsn"), _import(db, SAMPLE / "kyoomagi.lsn")
    try:
        assert a.wait(300) == 0 and b.wait(300) == 0
    finally:
        stop.set()
        reader.join(30)
    clean = tmp_path / "clean.db"
    assert _import(clean, *(SAMPLE / f for f in ("shogi.lsn", "dai-kagamigi.lsn", "chu-kagamigi.lsn",
                                                 "kyoomagi.lsn"))).wait(300) == 0
    assert _digests(db) == _digests(clean)
    _sound(db)
    assert statuses and all(s == 200 for s in statuses)


def test_a_10_mb_comment_is_refused_at_once_or_read_in_linear_memory():
    body = ("ab " * 33 + "\n") * 106_000  # 10.6 MB in lines of 100 characters
    text = '[Variant "shogi"]\n\n1. P-c4 {' + body + "} P-c6 *\n"
    game = next(read_games(text))
    assert not game.valid and "over the limit" in game.errors[0].message
    assert (game.errors[0].line, game.errors[0].column) == (3, 9)
    tracemalloc.start()
    try:
        game = next(read_games(text, limits=ReadLimits(max_comment=20_000_000)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert game.valid and game.next().comment == body.strip()
    assert peak < 10 * len(text)


def test_an_over_long_line_in_a_file_is_read_in_pieces(tmp_path):
    path = tmp_path / "line.lsn"
    path.write_text('[Variant "shogi"]\n\n1. P-c4 ' + "$1 " * 3_000_000 + "*\n"
                    + '\n[Variant "shogi"]\n\n1. P-c4 P-c6 *\n', encoding="utf-8")
    tracemalloc.start()
    try:
        with open(path, encoding="utf-8") as fh:
            games = list(read_games(fh, limits=ReadLimits(max_line=1 << 20)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert [g.valid for g in games] == [False, True]
    assert games[0].errors[0].line == 3 and "over the limit" in games[0].errors[0].message
    assert peak < 3 * (1 << 20) * 4 + os.path.getsize(path) // 4  # pieces of the line, not all of it
