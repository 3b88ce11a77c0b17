"""A long game in the browser: the page holds a window of the main line, and stepping past its
edges loads the page of the next ply (web/games.py, viewer.js)."""

from __future__ import annotations

import threading

import pytest
from test_browser import at_ply, replayed
from test_web_reliability import _long_game

from daikifu.archive.store import Archive, make_record
from daikifu.formats.lsn import read_game

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def long_server(tmp_path_factory):
    from werkzeug.serving import make_server

    from daikifu.web import create_app
    path = tmp_path_factory.mktemp("long") / "long.db"
    with Archive(path) as a:
        a.add_record(make_record(read_game(_long_game(60)), "lsn"), a.start_import("test"))
    server = make_server("127.0.0.1", 0, create_app(path, config={"DAIKIFU_LONG_GAME": 20, "DAIKIFU_WINDOW": 10}),
                         threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", path
    server.shutdown()
    thread.join(5)


def test_stepping_past_the_window_loads_the_next_part(page, long_server):
    url, path = long_server
    boards = replayed(path, 1)
    page.goto(f"{url}/games/1")
    at_ply(page, boards, 0, address=False)
    for ply in range(1, 12):  # ply 11 is beyond the first window (0 to 10)
        page.keyboard.press("ArrowRight")
        if ply == 11:
            page.wait_for_url("**ply=11**")
        at_ply(page, boards, ply)
    page.keyboard.press("End")
    page.wait_for_url("**ply=60**")
    at_ply(page, boards, 60)
    page.keyboard.press("Home")
    page.wait_for_url("**ply=0**")
    at_ply(page, boards, 0)
    page.goto(f"{url}/games/1?ply=30")
    at_ply(page, boards, 30)
    for ply in range(29, 24, -1):
        page.keyboard.press("ArrowLeft")
        at_ply(page, boards, ply)
    page.keyboard.press("ArrowLeft")  # the window (25 to 35) starts at 25: the page before
    page.wait_for_url("**ply=24**")
    at_ply(page, boards, 24)
