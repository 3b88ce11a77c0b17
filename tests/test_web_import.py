"""The import page and /api/import: off unless allowed, check writes nothing, add stores games
once (then duplicates), errors shown in place, hostile text escaped, size limit, form token."""

from __future__ import annotations

import io
import re
import sqlite3
from pathlib import Path

import pytest
from lxml import html

from daikifu.archive.store import Archive
from daikifu.formats.kif import write_kif
from daikifu.formats.lsn import read_games
from daikifu.web import create_app

from format_support import NOT_A_RECORD

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample" / "shogi.lsn"


@pytest.fixture(scope="module")
def sample_games() -> list[str]:
    """The texts of the first two games of the shogi sample file."""
    text = SAMPLE.read_text(encoding="utf-8")
    starts = [m.start() for m in re.finditer(r'^\[Variant ', text, re.M)]
    return [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)])][:2]


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "import.db"
    Archive(path).close()  # an empty archive
    return path


def _client(db, **kwargs):
    return create_app(db, allow_import=True, **kwargs).test_client()


def _games(db) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT id, status, digest, sente_id FROM games ORDER BY id").fetchall()


def _token(client) -> str:
    page = html.fromstring(client.get("/import").data)
    return page.xpath("//form[contains(@class, 'check-form')]//input[@name='token']/@value")[0]


def _post(client, **fields):
    fields.setdefault("token", _token(client))
    return client.post("/import", data=fields)


def _broken(text: str) -> tuple[str, int, int]:
    """The record with its fifth Sente move replaced by an impossible one, and that move's line
    and column (1-based), found in the text itself."""
    m = re.search(r"(?<=\b5\. )\S+", text)
    bad = text[:m.start()] + "S-z9" + text[m.end():]
    line = bad.count("\n", 0, m.start()) + 1
    column = m.start() - (bad.rfind("\n", 0, m.start()) + 1) + 1
    return bad, line, column


def test_disabled_by_default(db, sample_games):
    client = create_app(db).test_client()
    assert client.get("/import").status_code == 404
    r = client.post("/import", data={"action": "add", "record": sample_games[0]})
    assert r.status_code == 404 and b"--allow-import" in r.data
    r = client.post("/api/import", json={"text": sample_games[0], "action": "add"})
    assert r.status_code == 404 and r.get_json()["error"]["status"] == 404
    assert not html.fromstring(client.get("/variants").data).xpath("//nav/a[normalize-space()='Import']")
    assert _games(db) == []


def test_check_writes_nothing_and_add_stores_then_reports_duplicate(db, sample_games):
    client = _client(db)
    r = _post(client, action="check", record=sample_games[0])
    assert r.status_code == 200
    page = html.fromstring(r.data)
    assert page.xpath("//li[contains(@class, 'game')]/@data-status") == ["valid"]
    assert _games(db) == []
    # the add form carries the text back unchanged
    carried = page.xpath("//form[contains(@class, 'add-form')]//input[@name='record']/@value")[0]
    assert carried.replace("\r\n", "\n") == sample_games[0].replace("\r\n", "\n")

    r = _post(client, action="add", record=carried, name="first.lsn")
    stored = _games(db)
    assert len(stored) == 1 and stored[0][1] == "valid"
    game_id = stored[0][0]
    page = html.fromstring(r.data)
    assert page.xpath("//li/@data-verdict") == ["imported"]
    assert f"/games/{game_id}" in page.xpath("//li//a/@href")
    expected = next(read_games(sample_games[0])).headers["Sente"]
    assert stored[0][3] is not None and expected in page.text_content()
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT file, imported, finished IS NOT NULL FROM imports").fetchall() == [
            ("web import: first.lsn", 1, 1)]

    r = _post(client, action="add", record=carried)
    assert html.fromstring(r.data).xpath("//li/@data-verdict") == ["duplicate"]
    assert len(_games(db)) == 1
    # checking again names the stored game
    r = _post(client, action="check", record=carried)
    assert f"/games/{game_id}" in html.fromstring(r.data).xpath("//li//a/@href")


def test_invalid_record_shows_error_in_place_and_is_stored_only_when_asked(db, sample_games):
    client = _client(db)
    bad, line, column = _broken(sample_games[0])
    page = html.fromstring(_post(client, action="check", record=bad).data)
    assert page.xpath("//li/@data-status") == ["invalid"]
    assert page.xpath("string(//dd[@class='field-line'])") == str(line)
    assert page.xpath("string(//dd[@class='field-column'])") == str(column)
    assert page.xpath("string(//dd[@class='field-move'])") == "S-z9"
    marked = page.xpath("//pre[@class='record-context']/span[contains(@class, 'error-line')]")
    assert [m.get("data-line") for m in marked] == [str(line)]
    shown = marked[0].text_content()[len(str(line)):]
    assert shown == bad.splitlines()[line - 1]
    caret = page.xpath("//pre[@class='record-context']/span[@class='caret']")[0]
    assert caret.text_content().index("^") == column - 1 and shown[column - 1:].startswith("S-z9")

    r = _post(client, action="add", record=bad)
    assert html.fromstring(r.data).xpath("//li/@data-verdict") == ["skipped"]
    assert _games(db) == []
    _post(client, action="add", record=bad, store_invalid="1")
    assert [g[1] for g in _games(db)] == ["invalid"]


def test_several_games_are_stored_together(db, sample_games):
    client = _client(db)
    bad, _, _ = _broken(sample_games[1])
    r = _post(client, action="add", record=sample_games[0] + "\n" + bad)
    page = html.fromstring(r.data)
    assert page.xpath("//li/@data-verdict") == ["imported", "skipped"]
    assert [g[1] for g in _games(db)] == ["valid"]


def test_hostile_text_is_escaped(db, sample_games):
    client = _client(db)
    hostile = '<script>alert("x")</script><img src=x onerror=alert(1)>'
    text = re.sub(r'\[Sente "[^"]*"\]', '[Sente "' + hostile.replace('"', "'") + '"]', sample_games[0])
    text = text.replace("\n\n", "\n{" + hostile + "}\n", 1)
    bad, _, _ = _broken(text)
    for action in ("check", "add"):
        r = _post(client, action=action, record=bad, name=hostile)
        assert b"<script>" not in r.data and b"<img" not in r.data
        page = html.fromstring(r.data)
        assert not page.xpath("//script") and not page.xpath("//img")
        assert "alert" in page.text_content()  # shown as text


def test_upload_kif_file(db, sample_games):
    client = _client(db)
    game = next(read_games(sample_games[0]))
    data = write_kif(game, "cp932")
    r = client.post("/import", data={"token": _token(client), "action": "add",
                                     "file": (io.BytesIO(data), "game.kif")},
                    content_type="multipart/form-data")
    assert html.fromstring(r.data).xpath("//li/@data-verdict") == ["imported"]
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT source_format, ply_count FROM games").fetchall() == [
            ("kif", len(game.mainline_moves()))]


def test_oversize_upload_gets_a_clear_413(db, sample_games):
    client = create_app(db, allow_import=True, max_upload=2048).test_client()
    token = _token(client)
    r = client.post("/import", data={"token": token, "action": "check", "record": "x" * 5000})
    assert r.status_code == 413
    assert "2,048 bytes" in html.fromstring(r.data).text_content()
    r = client.post("/import", data={"token": token, "action": "add",
                                     "file": (io.BytesIO(b"[" * 5000), "big.lsn")}, content_type="multipart/form-data")
    assert r.status_code == 413
    r = client.post("/api/import", json={"text": "x" * 5000})
    assert r.status_code == 413 and "2,048" in r.get_json()["error"]["message"]
    assert _games(db) == []


def test_bad_or_missing_token_is_refused(db, sample_games):
    client = _client(db)
    for token in ("", "0" * 64):
        r = client.post("/import", data={"token": token, "action": "add", "record": sample_games[0]})
        assert r.status_code == 400 and b"token" in r.data
    assert _games(db) == []
    # the token belongs to the application: another one's is refused
    other = _token(_client(db))
    assert client.post("/import", data={"token": other, "action": "add", "record": sample_games[0]}).status_code == 400


def test_bad_parameters_give_400(db):
    client = _client(db)
    assert _post(client, action="check", record="   ").status_code == 400
    assert _post(client, action="delete", record="x").status_code == 400
    assert client.post("/api/import", data={"text": "x"}).status_code == 400  # not JSON
    assert client.post("/api/import", json={"text": 5}).status_code == 400
    assert client.post("/api/import", json=["x"]).status_code == 400


def test_api_check_and_add(db, sample_games):
    client = _client(db)
    bad, line, column = _broken(sample_games[1])
    r = client.post("/api/import", json={"text": sample_games[0] + "\n" + bad, "name": "two.lsn"})
    data = r.get_json()
    assert r.status_code == 200 and data["format"] == "lsn"
    assert [g["status"] for g in data["games"]] == ["valid", "invalid"]
    err = data["games"][1]["error"]
    assert (err["move"], err["column"]) == ("S-z9", column)
    assert _games(db) == []
    data = client.post("/api/import", json={"text": sample_games[0], "action": "add"}).get_json()
    assert data["counts"]["imported"] == 1
    assert data["games"][0]["url"] == f"/games/{_games(db)[0][0]}"
    data = client.post("/api/import", json={"text": sample_games[0], "action": "add"}).get_json()
    assert data["counts"]["duplicates"] == 1 and data["games"][0]["verdict"] == "duplicate"


def test_every_format_and_not_a_record(db):
    """The page reads through the one pipeline: a CSA upload in EUC-JP, a KI2 paste, and text that
    is no record gets the pipeline's own message."""
    client = _client(db)
    real = Path(__file__).parent / "data" / "real"
    r = client.post("/import", data={"token": _token(client), "action": "add",
                                     "file": (io.BytesIO((real / "csa/jkf_2005_YAMADA_GPS.csa").read_bytes()),
                                              "game.csa")},
                    content_type="multipart/form-data")
    assert html.fromstring(r.data).xpath("//li/@data-verdict") == ["imported"]
    data = client.post("/api/import", json={"text": "▲７六歩　△３四歩\n", "name": "g.ki2"}).get_json()
    assert data["format"] == "ki2" and data["games"][0]["plies"] == 2
    data = client.post("/api/import", json={"text": "Tenjiku, move 1: P 7l-7k\n", "name": "notes.txt"}).get_json()
    assert data["format"] is None and data["games"][0]["status"] == "unreadable"
    assert data["games"][0]["error"]["message"] == f"notes.txt: {NOT_A_RECORD}"
    page = _post(client, record="Tenjiku, move 1: P 7l-7k\n", name="notes.txt")
    assert "not a record in a format daikifu reads" in page.get_data(as_text=True)
    with sqlite3.connect(db) as conn:
        assert conn.execute("SELECT source_format, sente_id IS NOT NULL FROM games").fetchall() == [("csa", 1)]
