"""Engine analysis in a real browser (headless Chromium, real HaChu): a Chu game's score graph and
best line from the stored analysis, and the analysis board's engine toggle (serve --engine).

What the page shows is compared with the archive's stored rows and with a board replayed by the
rules core, never with values written into the test.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest

from daikifu.archive.analysis import analyse_games
from daikifu.archive.store import Archive
from daikifu.formats.styles import move_style, move_text
from daikifu.replay.engine import find_engine
from daikifu.replay.notation import notations
from daikifu.web.engine import ENGINE_MOVETIME

from test_browser_analysis import ready, until
from test_engine import _import, _short_game

pytestmark = pytest.mark.browser
PLIES = 12


@pytest.fixture(scope="module")
def engine_server(tmp_path_factory):
    assert find_engine() is not None, "no engine found: install hachu (scripts/test does, as root)"
    directory = tmp_path_factory.mktemp("engine")
    db = directory / "a.db"
    _import(db, _short_game(directory, PLIES))
    with Archive(db) as archive:
        run = analyse_games(archive, [1], depth=1)
    assert run.analysed == PLIES + 1 and not run.failures
    from werkzeug.serving import make_server

    from daikifu.web import create_app
    app = create_app(db, config={"DAIKIFU_ENGINE": find_engine()})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_port}", db
    server.shutdown()
    thread.join(5)


def _stored_scores(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return conn.execute("SELECT count(*) FROM engine_analysis").fetchone()[0]


def test_the_score_graph_and_the_best_line_of_a_chu_game(page, engine_server):
    url, db = engine_server
    page.goto(f"{url}/games/1?ply=0")
    until(page, "!document.querySelector('#engine-analysis').hidden")
    points = page.eval_on_selector(".score-graph .score-line", "e => e.getAttribute('points').trim().split(/\\s+/).length")
    assert points == _stored_scores(db) == PLIES + 1
    # one ply on: the move played beside the engine's line from the position before it
    page.click("#btn-forward")
    until(page, "document.querySelector('#engine-best').textContent.includes('Played')")
    text = page.text_content("#engine-best")
    with Archive(db, readonly=True) as archive:
        game = archive.load_game(1)
        start = game.start_board()
        row = archive.conn.execute("SELECT pv FROM engine_analysis WHERE hash = ?", (start.zobrist,)).fetchone()
    first_line = row[0].split()
    board = start.copy()
    expected = []
    for uci in first_line:
        move = board.parse_uci(uci)
        expected.append(notations(board)[move])
        board.push(move)
    assert " ".join(expected) in text, text
    played = notations(start)[game.mainline_moves()[0]]
    assert f"Played {played}" in text


def test_the_engine_toggle_shows_the_engines_line_for_a_position_played_on_the_board(page, engine_server):
    url, db = engine_server
    page.goto(f"{url}/games/1?ply={PLIES}")
    ready(page)
    page.check("#engine-toggle")
    until(page, "document.querySelector('#engine-line').dataset.source == 'archive'")  # stored: from the archive
    # a move of the analysis board: a position the archive has not analysed
    page.focus("#analysis-moves")
    page.keyboard.press("ArrowDown")
    first = page.eval_on_selector("#analysis-moves", "s => s.options[s.selectedIndex].textContent")
    page.keyboard.press("Enter")
    page.wait_for_selector("#move-list .analysis-move")
    # the answer's bound is the default setting's search time (well under the 3 s the page must
    # answer in); the wait is long so that a loaded machine does not fail the test by its clock
    assert ENGINE_MOVETIME <= 1000
    until(page, "document.querySelector('#engine-line').dataset.source == 'engine'", seconds=30)
    text = page.text_content("#engine-line")
    with Archive(db, readonly=True) as archive:
        game = archive.load_game(1)
    board = game.start_board()
    for move in game.mainline_moves():
        board.push(move)
    # the analysis board's list writes the moves in the page's style (the variant's own)
    style, here = move_style(game.variant), board.copy(stack=False)
    board.push(next(m for m in board.legal_moves() if move_text(here, m, style) == first))
    # the engine's first move, as the page writes it, is a legal move of that position
    shown_line = text.split("· ", 1)[1].split()
    assert shown_line and shown_line[0] in set(notations(board).values()), text
    assert "HaChu" in text


def test_a_lishogi_games_own_analysis_on_its_page(page, tmp_path):
    """A game whose record carried lishogi's [%eval]s: the panel shows them, named lishogi, a mate
    as #N, without any engine having run."""
    from werkzeug.serving import make_server

    from daikifu.formats.lsn import read_game, write_game
    from daikifu.web import create_app
    game = read_game(_short_game(tmp_path, 4).read_text(encoding="utf-8"))
    game.headers["Site"] = "https://lishogi.org/abcdefgh"
    texts = ["0.35", "-1.2", "mate3", "mate-2"]
    for text, node in zip(texts, game.mainline()):
        node.comment = f"[%eval {text}] note"
    path = tmp_path / "lishogi.lsn"
    path.write_text(write_game(game), encoding="utf-8")
    db = tmp_path / "a.db"
    _import(db, path)
    server = make_server("127.0.0.1", 0, create_app(db), threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        page.goto(f"http://127.0.0.1:{server.server_port}/games/1?ply=0")
        until(page, "!document.querySelector('#engine-analysis').hidden")
        assert page.text_content("#engine-source") == "By lishogi"
        assert page.eval_on_selector_all("#move-list .eval", "es => es.map(e => e.textContent)") == \
            ["+0.35", "-1.20", "#3", "#-2"]
        for ply, shown in enumerate(["+0.35", "-1.20", "#3", "#-2"], start=1):
            page.click("#btn-forward")
            until(page, f"document.querySelector('#engine-best').textContent.includes('{shown} (lishogi)')")
            assert f"Score {shown} (lishogi)" in page.text_content("#engine-best"), ply
    finally:
        page.goto("about:blank")  # (nothing of the page still asking the server as it stops)
        server.shutdown()
        thread.join(5)
