"""What every page of the viewer shares: security headers, error pages, no server paths, read-only."""

from __future__ import annotations

import pytest

from daikifu.archive.store import Archive
from daikifu.web import SECURITY_HEADERS, create_app

from archive_support import sample_archive


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    return sample_archive(tmp_path_factory.mktemp("web_app"), ("shogi.lsn",))


@pytest.fixture(scope="module")
def client(db):
    return create_app(db).test_client()


@pytest.mark.parametrize("url", ["/", "/games/1", "/positions", "/stats", "/variants", "/variants/shogi",
                                 "/api/games", "/api/variants", "/nowhere", "/api/nowhere"])
def test_every_answer_carries_the_security_headers(client, url):
    r = client.get(url)
    for name, value in SECURITY_HEADERS.items():
        assert r.headers.get(name) == value, (url, name)
    assert "script-src 'self'" in r.headers["Content-Security-Policy"]
    assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]


def test_no_page_has_an_inline_script(client):
    from lxml import html
    for url in ("/", "/games/1", "/positions?variant=shogi", "/stats", "/variants/shogi"):
        doc = html.fromstring(client.get(url).data)
        for script in doc.iter("script"):
            assert script.get("src") or script.get("type") == "application/json", (url, html.tostring(script)[:80])
        for el in doc.iter():
            assert not any(k.startswith("on") for k in el.attrib), (url, el.tag, dict(el.attrib))


def test_no_server_paths_in_pages_or_json(client, db):
    root = str(db.parent.parent)
    for url in ("/games/1", "/api/games/1", "/api/variants", "/api/variants/shogi", "/variants"):
        body = client.get(url).get_data(as_text=True)
        assert root not in body, url
        assert "/data/sample/" not in body and "replay/variants/" not in body, url
    assert client.get("/api/variants/shogi").get_json()["path"] == "shogi.toml"


def test_unknown_urls_and_methods_are_plain_error_pages(client):
    r = client.get("/games/999999")
    assert r.status_code == 404 and b"Traceback" not in r.data and b"no game 999999" in r.data
    r = client.post("/games/1")
    assert r.status_code == 405
    assert client.post("/api/games").get_json()["error"]["status"] == 405


def test_an_archive_that_cannot_be_opened_is_a_503_page(tmp_path):
    client = create_app(tmp_path / "missing.db").test_client()
    r = client.get("/")
    assert r.status_code == 503 and b"cannot be opened" in r.data and str(tmp_path).encode() not in r.data
    assert client.get("/api/games").get_json()["error"]["status"] == 503
    assert not (tmp_path / "missing.db").exists()


def test_the_viewer_writes_nothing(client, db):
    before = db.stat().st_mtime_ns, Archive(db, readonly=True).count()
    for url in ("/", "/games/1", "/positions?game=1&ply=3", "/stats", "/api/explore?game=1&ply=0"):
        assert client.get(url).status_code == 200, url
    assert client.post("/import").status_code == 404
    assert (db.stat().st_mtime_ns, Archive(db, readonly=True).count()) == before
