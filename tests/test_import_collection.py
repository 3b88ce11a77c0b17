"""Garbage collection during an import: the command line, in a process of its own, turns the
automatic collector off (it would traverse the rule tables again and again) and the importer then
collects reference cycles itself every few seconds; called from Python nothing changes."""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys

import pytest
from click.testing import CliRunner

from daikifu.archive import importer
from daikifu.archive.importer import import_paths
from daikifu.archive.store import Archive
from daikifu.cli import main

from archive_support import ROOT, SAMPLE


@pytest.fixture
def collector_restored():
    enabled = gc.isenabled()
    yield
    if enabled:
        gc.enable()
    else:
        gc.disable()


def _count_collections(monkeypatch) -> list:
    calls = []
    real = gc.collect
    monkeypatch.setattr(importer.gc, "collect", lambda *a: calls.append(a) or real(*a))
    return calls


def test_with_the_collector_off_the_importer_collects_cycles_itself(tmp_path, monkeypatch, collector_restored):
    monkeypatch.setattr(importer, "COLLECT_SECONDS", 0.0)
    calls = _count_collections(monkeypatch)
    gc.disable()
    with Archive(tmp_path / "a.db") as archive:
        summary = import_paths(archive, [str(SAMPLE / "shogi.lsn"), str(SAMPLE / "kyoomagi.lsn")])
    assert summary.games == 24 and len(calls) == summary.games  # a collection after each game here
    assert not gc.isenabled(), "the caller's setting is left as it was"


def test_with_the_collector_on_the_importer_leaves_it_alone(tmp_path, monkeypatch):
    monkeypatch.setattr(importer, "COLLECT_SECONDS", 0.0)
    calls = _count_collections(monkeypatch)
    assert gc.isenabled()
    with Archive(tmp_path / "a.db") as archive:
        import_paths(archive, [str(SAMPLE / "shogi.lsn")])
    assert calls == [] and gc.isenabled()


def test_import_called_from_python_keeps_automatic_collection(tmp_path):
    result = CliRunner().invoke(main, ["import", "--db", str(tmp_path / "a.db"), "--json", str(SAMPLE / "shogi.lsn")])
    assert result.exit_code == 0, result.output
    assert gc.isenabled()


def test_workers_collect_as_usual(collector_restored):
    gc.disable()
    importer._worker_init()
    assert gc.isenabled()


def test_import_in_a_process_of_its_own(tmp_path):
    """``python -m daikifu import``: the collector is off there, the games are stored all the same
    (and the process ends normally, with the archive closed)."""
    db = tmp_path / "a.db"
    code = ("import gc, sys\nfrom daikifu import cli\nfrom daikifu.archive import importer\n"
            "seen = []\norig = importer.import_paths\n"
            "def spy(*a, **k):\n    seen.append(gc.isenabled())\n    return orig(*a, **k)\n"
            "importer.import_paths = spy\n"
            "import atexit\natexit.register(lambda: print('collector on during import:', seen, file=sys.stderr))\n"
            f"sys.argv = ['daikifu', 'import', '--db', {str(db)!r}, '--json', {str(SAMPLE / 'shogi.lsn')!r}]\n"
            "cli.run()\n")
    env = dict(os.environ, DAIKIFU_CACHE_DIR="off")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["imported"] == 12
    assert "collector on during import: [False]" in proc.stderr
    with Archive(db) as archive:
        assert archive.conn.execute("SELECT count(*) FROM games").fetchone()[0] == 12
