"""``daikifu serve`` and ``daikifu upgrade``, and the read-only archive the viewer uses."""

from __future__ import annotations

import json
import sqlite3

import pytest
from click.testing import CliRunner
from flask import Flask

from daikifu.archive import schema
from daikifu.cli import main
from daikifu.archive.store import Archive, ArchiveError

from archive_support import SAMPLE


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert "Traceback" not in result.output
    return result


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "games.db"
    assert run("import", SAMPLE / "shogi.lsn", "--db", path).exit_code == 0
    return path


def test_every_command_has_help_with_an_example_and_all_but_serve_have_json():
    for name, command in main.commands.items():
        commands = command.commands.items() if hasattr(command, "commands") else [(None, command)]
        for sub, _ in commands:
            args = [name] + ([sub] if sub else [])
            result = run(*args, "--help")
            assert result.exit_code == 0, args
            assert "Example" in result.output, args
            if name != "serve":
                assert "--json" in result.output, args


def test_serve_listens_on_localhost_read_only_by_default(db, monkeypatch):
    calls = []
    monkeypatch.setattr(Flask, "run", lambda app, **kw: calls.append((app, kw)))
    result = run("serve", "--db", db)
    assert result.exit_code == 0, result.output
    (app, kw), = calls
    assert kw["host"] == "127.0.0.1" and kw["port"] == 5000
    assert app.config["DAIKIFU_ALLOW_IMPORT"] is False
    assert "read-only" in result.output


def test_serve_options(db, monkeypatch):
    calls = []
    monkeypatch.setattr(Flask, "run", lambda app, **kw: calls.append((app, kw)))
    result = run("serve", "--db", db, "--port", 8123, "--allow-import", "--max-upload", 4096,
                 "--limit", "comment=100", "--limit", "depth=5")
    assert result.exit_code == 0, result.output
    (app, kw), = calls
    assert kw["port"] == 8123
    assert app.config["DAIKIFU_ALLOW_IMPORT"] is True and app.config["MAX_CONTENT_LENGTH"] == 4096
    limits = app.config["DAIKIFU_READ_LIMITS"]
    assert (limits.max_comment, limits.max_depth, limits.max_line) == (100, 5, 4 << 20)
    assert run("serve", "--db", db, "--limit", "size=5").exit_code == 2


def test_serve_refuses_a_missing_archive_without_creating_it(tmp_path, monkeypatch):
    monkeypatch.setattr(Flask, "run", lambda app, **kw: pytest.fail("must not start"))
    missing = tmp_path / "nothing.db"
    result = run("serve", "--db", missing)
    assert result.exit_code == 1
    assert "no archive at" in result.output
    assert not missing.exists()


def test_read_only_archive_cannot_write(db):
    with Archive(db, readonly=True) as a:
        assert a.count() == 12
        with pytest.raises(sqlite3.OperationalError, match="readonly"):
            a.conn.execute("DELETE FROM games")
    with Archive(db) as a:
        assert a.count() == 12


def _set_version(path, version):
    con = sqlite3.connect(path)
    con.execute("UPDATE meta SET value = ? WHERE key = 'schema_version'", (str(version),))
    con.commit()
    con.close()


def test_read_only_archive_refuses_another_schema_version(db):
    _set_version(db, schema.SCHEMA_VERSION + 1)
    with pytest.raises(ArchiveError, match="newer"):
        Archive(db, readonly=True)


def test_upgrade_reports_the_version(db):
    result = run("upgrade", "--db", db)
    assert result.exit_code == 0
    assert f"schema version {schema.SCHEMA_VERSION}, up to date" in result.output
    data = json.loads(run("upgrade", "--db", db, "--json").output)
    assert data == {"db": str(db), "schema_version": schema.SCHEMA_VERSION, "was": schema.SCHEMA_VERSION}


def test_upgrade_refuses_a_missing_archive(tmp_path):
    result = run("upgrade", "--db", tmp_path / "none.db")
    assert result.exit_code == 1 and "no archive at" in result.output


@pytest.mark.parametrize("args", [["show", "99999999999999999999999"],
                                  ["search", "--game", "99999999999999999999999", "--ply", "1"],
                                  ["explore", "--game", "99999999999999999999999", "--ply", "1"]])
def test_game_ids_beyond_sqlite_integers_are_no_game(db, args):
    result = run(*args, "--db", db)
    assert result.exit_code == 1 and "no game 99999999999999999999999" in result.output


def test_a_limit_beyond_sqlite_integers_means_all(db):
    result = run("games", "--db", db, "--limit", "99999999999999999999999", "--json")
    assert result.exit_code == 0 and len(json.loads(result.output)) == 12
