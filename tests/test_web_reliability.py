"""The web layer under faults (issue 15): a locked archive is 503 "busy", every over-limit body
413, the import token bound to a session, unknown Host names refused, read-only opening leaves no
file beside the archive, a hostile record answered without a 500."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest
from lxml import html

from daikifu.archive.store import Archive
from daikifu.web import create_app

GAME = '[Variant "shogi"]\n\n1. P-c4 P-c6 *\n'


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "archive.db"
    a = Archive(path)
    a.close()
    return path


def _client(db, **kwargs):
    return create_app(db, allow_import=True, **kwargs).test_client()


def _token(client) -> str:
    page = html.fromstring(client.get("/import").data)
    return page.xpath("//form[contains(@class, 'check-form')]//input[@name='token']/@value")[0]


def test_an_add_while_another_program_writes_answers_503_busy(db):
    client = _client(db, busy_timeout=0.2)
    token = _token(client)
    writer = sqlite3.connect(db, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")  # as a long 'daikifu import' holds it
    try:
        r = client.post("/import", data={"token": token, "action": "add", "record": GAME})
        assert r.status_code == 503 and b"archive is busy" in r.data
        assert r.headers["Retry-After"] == "5"
        r = client.post("/api/import", json={"text": GAME, "action": "add"})
        assert r.status_code == 503 and "busy" in r.get_json()["error"]["message"]
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    r = client.post("/api/import", json={"text": GAME, "action": "add"})
    assert r.status_code == 200 and r.get_json()["counts"]["imported"] == 1


def test_the_import_page_says_what_busy_means(db):
    assert b"busy" in _client(db).get("/import").data


def test_a_chunked_body_over_the_limit_is_413(db):
    client = _client(db, max_upload=4096)
    body = b'{"text": "' + b"x" * 10_000 + b'"}'
    # a chunked body has no Content-Length: the server learns its size only by reading it
    r = client.post("/api/import", input_stream=io.BytesIO(body),
                    headers={"Content-Type": "application/json", "Transfer-Encoding": "chunked"},
                    environ_overrides={"wsgi.input_terminated": True})
    assert r.status_code == 413


def test_the_import_token_belongs_to_one_session(db):
    app = create_app(db, allow_import=True)
    alice, mallory = app.test_client(), app.test_client()
    token = _token(alice)
    assert alice.post("/import", data={"token": token, "record": GAME}).status_code == 200
    _token(mallory)  # a session of her own
    assert mallory.post("/import", data={"token": token, "record": GAME}).status_code == 400
    stranger = app.test_client()  # no session at all
    assert stranger.post("/import", data={"token": token, "record": GAME}).status_code == 400


@pytest.mark.parametrize("host, status", [("localhost", 200), ("127.0.0.1:5000", 200), ("[::1]:80", 200),
                                          ("LOCALHOST.", 200), ("evil.example", 400),
                                          ("localhost.evil.example", 400), ("127.0.0.1.nip.io", 400)])
def test_only_local_host_names_are_answered(db, host, status):
    client = create_app(db).test_client()
    assert client.get("/", headers={"Host": host}).status_code == status


def test_more_host_names_can_be_allowed(db):
    client = create_app(db, allowed_hosts=("localhost", "Shogi.Example")).test_client()
    assert client.get("/", headers={"Host": "shogi.example:8080"}).status_code == 200
    assert client.get("/api/games", headers={"Host": "evil.example"}).status_code == 400
    assert create_app(db, allowed_hosts=("*",)).test_client().get(
        "/", headers={"Host": "any.example"}).status_code == 200


def test_read_only_serving_creates_no_file_beside_the_archive(db):
    before = sorted(p.name for p in db.parent.iterdir())
    client = create_app(db).test_client()
    for url in ("/", "/api/games", "/stats", "/positions"):
        assert client.get(url).status_code == 200
    assert sorted(p.name for p in db.parent.iterdir()) == before


def test_a_hostile_number_in_an_imported_record_is_no_500(db):
    text = GAME + "\n" + '[Variant "shogi"]\n\n1. P-c4 $' + "9" * 5000 + " P-c6 *\n" + "\n" + GAME
    client = _client(db)
    r = client.post("/api/import", json={"text": text, "action": "check"})
    assert r.status_code == 200
    games = r.get_json()["games"]
    assert [g["error"] is None for g in games] == [True, False, True]
    assert games[1]["error"]["line"] == 7
