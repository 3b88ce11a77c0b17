"""The web layer under faults (issue 15): a locked archive is 503 "busy", every over-limit body
413, the import token bound to a session, unknown Host names refused, read-only opening leaves no
file beside the archive, a hostile record answered without a 500."""

from __future__ import annotations

import io
import json
import sqlite3
from pathlib import Path

import pytest
from lxml import html

from daikifu.archive.store import Archive, make_record
from daikifu.formats.lsn import read_game
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


# --- long games: a window of the main line, pages of moves, cached ---------------------------------

CYCLE = ["K-e2", "K-e8", "K-e1", "K-e9"]


def _long_game(plies: int) -> str:
    """Kings stepping to and fro for ``plies`` plies, an alternative to ply 5 (with a comment)
    and one to ply 30."""
    words = []
    for ply in range(1, plies + 1):
        move = CYCLE[(ply - 1) % 4]
        words.append(f"{(ply + 1) // 2}. {move}" if ply % 2 else move)
        if ply == 5:
            words.append("{the king comes back} (3. K-d2 {or aside})")
        if ply == 30:
            words.append("(15... K-d8 16. K-e1)")
    return '[Variant "shogi"]\n[Event "long"]\n\n' + " ".join(words) + " *\n"


@pytest.fixture
def long_app(tmp_path):
    path = tmp_path / "long.db"
    with Archive(path) as a:
        rec = make_record(read_game(_long_game(60)), "lsn")
        a.add_record(rec, a.start_import("test"))
    return create_app(path, config={"DAIKIFU_LONG_GAME": 20, "DAIKIFU_WINDOW": 10})


def _data(response) -> dict:
    page = html.fromstring(response.data)
    return json.loads(page.xpath("//script[@id='game-data']/text()")[0])


def _full_nodes(app) -> dict:
    """Node id -> node data of the whole game, built without a window."""
    from daikifu.web.games import build_view
    with app.app_context():
        a = Archive(app.config["DAIKIFU_DB"], readonly=True)
        try:
            row, game = a.game(1), a.load_game(1)
        finally:
            a.close()
    data = build_view(game, row)["data"]
    return dict(enumerate(data["nodes"]))


def test_a_long_game_page_holds_a_window_numbered_as_the_whole_game(long_app):
    client = long_app.test_client()
    full = _full_nodes(long_app)  # (in LSN: the pages below ask for the algebraic style)
    first = _data(client.get("/games/1?style=algebraic"))
    # plies 0 to 10, and the alternative to ply 5: numbered after the 60 plies of the main line
    assert first["window"] == [0, 10] and first["ids"] == list(range(11)) + [61] and first["plies"] == 60
    assert first["nodes"][-1]["m"] == "K-d2" and first["nodes"][-1]["p"] == 4
    middle = _data(client.get("/games/1?style=algebraic&ply=30"))
    assert middle["window"] == [25, 35]
    ids = middle["ids"]
    assert ids == list(range(25, 36)) + [62, 63]  # the alternative to ply 30 follows the one to ply 5
    for node_id, node in zip(ids, middle["nodes"]):
        if node_id <= 60:
            expected = dict(full[node_id])
            if node_id == 25:
                expected["p"] = None  # the window's root: its parent is on another page
        else:  # the same move of the same alternative in the whole tree
            expected = next(n for k, n in full.items() if k > 60 and n["m"] == node["m"] and n["d"] == node["d"])
            expected = dict(expected, p=node["p"])
        assert node == expected
    assert middle["nodes"][11]["p"] == 29 and middle["nodes"][12]["p"] == 62
    # the alternative's node is a permalink of its own, shown in the window around its branch
    variation = ids[11]
    page = client.get(f"/games/1?style=algebraic&node={variation}")
    assert page.status_code == 200 and _data(page)["current"] == variation
    assert html.fromstring(page.data).xpath("//input[@id='position-string']/@value")[0] == middle["nodes"][11]["pos"]


def test_a_long_game_refuses_plies_and_nodes_it_does_not_have(long_app):
    client = long_app.test_client()
    assert client.get("/games/1?ply=61").status_code == 400
    assert client.get("/games/1?node=500").status_code == 400
    assert client.get("/games/1?ply=60").status_code == 200


def test_the_json_of_a_game_comes_in_parts(long_app):
    from daikifu.formats.jsonexport import game_to_dict

    client = long_app.test_client()
    whole = game_to_dict(read_game(_long_game(60)))["moves"]
    part = client.get("/api/games/1?moves_from=21&moves_count=10").get_json()
    assert part["moves"] == whole[20:30] and part["moves_from"] == 21 and part["moves_next"] == 31
    last = client.get("/api/games/1?moves_from=51&moves_count=10").get_json()
    assert last["moves"] == whole[50:] and last["moves_next"] is None
    assert client.get("/api/games/1").get_json()["moves"] == whole  # up to 1000 plies: all of them
    assert client.get("/api/games/1?moves_from=0").status_code == 400


def test_game_pages_are_the_same_from_the_cache(long_app):
    client = long_app.test_client()
    assert client.get("/games/1?ply=40").data == client.get("/games/1?ply=40").data
    assert client.get("/api/games/1").data == client.get("/api/games/1").data


def test_serve_allow_host_adds_names_to_the_local_ones(db, monkeypatch):
    from click.testing import CliRunner
    from flask import Flask

    from daikifu.cli import main
    apps = []
    monkeypatch.setattr(Flask, "run", lambda app, **kw: apps.append(app))
    result = CliRunner().invoke(main, ["serve", "--db", str(db), "--allow-host", "Shogi.Example"])
    assert result.exit_code == 0, result.output
    client = apps[0].test_client()
    assert client.get("/", headers={"Host": "shogi.example"}).status_code == 200
    assert client.get("/", headers={"Host": "localhost:5000"}).status_code == 200
    assert client.get("/", headers={"Host": "evil.example"}).status_code == 400


# --- reading limits of the import endpoints -------------------------------------------------------

LONG_COMMENT = GAME + '\n[Variant "shogi"]\n\n1. P-c4 {' + "x" * 200 + "} P-c6 *\n"  # game 2, line 7, column 9


@pytest.mark.parametrize("limits", [["comment=100"], {"comment": 100}, {"max_comment": 100}, "comment=100"])
def test_api_import_applies_the_configured_reading_limits_with_a_located_error(db, limits):
    client = _client(db, config={"DAIKIFU_READ_LIMITS": limits})
    r = client.post("/api/import", json={"text": LONG_COMMENT, "action": "add"})
    assert r.status_code == 200
    data = r.get_json()
    first, second = data["games"]
    assert first["status"] == "valid" and second["status"] == "invalid"
    error = second["error"]
    assert (error["line"], error["column"], error["game"]) == (7, 9, 2)
    assert error["message"] == "a comment of 200 characters, over the limit of 100"
    assert data["counts"]["imported"] == 1 and data["counts"]["invalid"] == 1
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM games").fetchone()[0] == 1


def test_the_import_page_shows_a_game_over_a_reading_limit_in_place(db):
    from daikifu.formats.limits import ReadLimits
    client = _client(db, read_limits=ReadLimits(max_comment=100))
    r = client.post("/import", data={"token": _token(client), "action": "check", "record": LONG_COMMENT})
    assert r.status_code == 200
    page = html.fromstring(r.data)
    text = page.text_content()
    assert "7:9, game 2" in text and "over the limit of 100" in text
    # the default limits (1 MiB for a comment) read the same record as two valid games
    r = _client(db).post("/api/import", json={"text": LONG_COMMENT})
    assert [g["status"] for g in r.get_json()["games"]] == ["valid", "valid"]


def test_a_bad_reading_limit_fails_when_the_application_is_made(db):
    with pytest.raises(ValueError, match="unknown limit 'size'"):
        create_app(db, config={"DAIKIFU_READ_LIMITS": ["size=5"]})
    with pytest.raises(ValueError, match="positive whole number"):
        create_app(db, read_limits=["comment=-1"])


# --- malformed and over-limit chunked bodies on a real server (issue 24) ------------------------


@pytest.fixture
def served(db):
    """(host, port) of Werkzeug's development server (what ``daikifu serve`` runs) on a
    read-only viewer of the archive, with a 4 KB upload limit."""
    import threading

    from werkzeug.serving import make_server

    server = make_server("127.0.0.1", 0, create_app(db, max_upload=4096), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[:2]
    finally:
        server.shutdown()
        thread.join()


def _exchange(address, head: bytes, body: bytes) -> bytes:
    """Send a request and keep the connection open, as a keep-alive client does: the answer,
    read up to the server's end of the connection.  A server
    that keeps the connection open makes the read time out, which fails the test."""
    import socket

    with socket.create_connection(address, timeout=20) as sock:
        sock.sendall(head + body)
        data = b""
        while True:
            part = sock.recv(65536)
            if not part:
                return data
            data += part


CHUNKED_HEAD = (b"POST /api/import HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                b"Transfer-Encoding: chunked\r\n\r\n")


@pytest.mark.parametrize("method, path", [("GET", "/"), ("POST", "/api/import"), ("GET", "/api/stats")])
def test_a_malformed_chunk_size_is_400_and_the_connection_closed(served, method, path):
    head = (f"{method} {path} HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\n\r\n").encode()
    answer = _exchange(served, head, b"zz\r\nhello\r\n0\r\n\r\n")
    status = answer.split(b"\r\n", 1)[0]
    assert status.startswith(b"HTTP/1.1 400"), answer[:200]
    assert b"chunks cannot be read" in answer


def test_after_a_413_for_a_chunked_body_the_server_closes_the_connection(served):
    # 8 KB in 1 KB chunks, and the connection left open (no final chunk): Werkzeug's drain of
    # the rest of the body used to block on it until the client gave up
    body = b"".join(b"400\r\n" + b"x" * 1024 + b"\r\n" for _ in range(8))
    answer = _exchange(served, CHUNKED_HEAD, body)
    assert answer.startswith(b"HTTP/1.1 413"), answer[:200]
    assert b"at most 4,096 bytes" in answer


def test_a_record_its_reader_fails_on_is_said_not_a_500(db):
    """JKF nested 100,000 deep (its reader gave RecursionError): the page says the file could
    not be read, whatever the reader makes of it, and nothing is stored."""
    n = 100_000
    deep = ('{"header": {}, "moves": [{}, {"move": {"from": {"x": 7, "y": 7}, "to": {"x": 7, "y": 6}, '
            '"color": 0, "piece": "FU"}, "forks": ' + "[" * n + "]" * n + "}]}")
    client = _client(db, max_upload=1_000_000)
    for action in ("check", "add"):
        r = client.post("/api/import", json={"text": deep, "name": "deep.jkf", "action": action})
        assert r.status_code == 200, r.get_json()
        (game,) = r.get_json()["games"]
        assert game["status"] in ("unreadable", "invalid") and "deep.jkf" in game["error_text"]
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT count(*) FROM games WHERE status != 'invalid'").fetchone()[0] == 0
