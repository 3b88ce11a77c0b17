"""The web viewer in a real browser (headless Chromium driven by Playwright; fixtures in conftest.py).

The boards the browser shows are compared with boards replayed independently by the rules core:
the viewer redraws pieces from per-ply changes in JavaScript, so these tests are what check the
JavaScript.  Screenshots of a 15x15 and a 9x16 game are written to ``$DAIKIFU_SCREENSHOTS`` (or a
temporary directory) for a person to look at.
"""

from __future__ import annotations

import os
import re
import urllib.parse
from pathlib import Path

import pytest

from daikifu.archive.store import Archive
from daikifu.replay.notation import parse_move
from daikifu.replay import Board, load_variant
from daikifu.replay.squares import square_name

pytestmark = pytest.mark.browser

PIECES_JS = """els => els.map(e => e.dataset.sq + ' ' + e.dataset.piece + ' '
                                   + (e.classList.contains('gote') ? 'gote' : 'sente')).sort()"""


def shown(page, board_selector: str = "#board") -> list[str]:
    """The pieces drawn in the page's board: 'square piece-id side', sorted."""
    return page.eval_on_selector_all(f"{board_selector} g.pieces use", PIECES_JS)


def expected(board: Board) -> list[str]:
    return sorted(f"{square_name(sq)} {p.id} {'sente' if p.colour == 0 else 'gote'}"
                  for sq, p in board.pieces().items())


def replayed(db, game_id: int) -> list[Board]:
    """The board after every ply of a stored game's main line, replayed by the rules core."""
    with Archive(db, readonly=True) as a:
        game = a.load_game(game_id)
    board = game.start_board()
    boards = [board.copy(stack=False)]
    for move in game.mainline_moves():
        board.push(move)
        boards.append(board.copy(stack=False))
    return boards


def a_game(db, variant: str, min_plies: int = 40) -> int:
    with Archive(db, readonly=True) as a:
        return a.conn.execute("SELECT id FROM games WHERE variant = ? AND status = 'valid' AND ply_count >= ? "
                              "AND start IS NULL ORDER BY id", (variant, min_plies)).fetchone()[0]


def current(page) -> int:
    return int(page.get_attribute("#move-list .move.current", "data-ply"))


def at_ply(page, boards, ply: int, address: bool = True) -> None:
    """The board, the move-list highlight, the counter and (after stepping) the address all show
    ``ply``."""
    page.wait_for_function(f"document.querySelector('#move-list .move.current').dataset.ply == '{ply}'")
    assert shown(page) == expected(boards[ply])
    assert page.input_value("#position-string") == boards[ply].position()
    assert current(page) == ply
    assert re.search(rf"\bPly {ply} of {len(boards) - 1}\b", page.text_content("#ply-label"))
    if address:
        assert urllib.parse.parse_qs(urllib.parse.urlparse(page.url).query).get("ply") == [str(ply)]


def test_stepping_with_keys_buttons_clicks_and_the_slider(page, live_server, browser_archive):
    gid = a_game(browser_archive, "dai-kagamigi")
    boards = replayed(browser_archive, gid)
    end = len(boards) - 1
    page.goto(f"{live_server}/games/{gid}")
    at_ply(page, boards, 0, address=False)
    for ply in (1, 2, 3):
        page.keyboard.press("ArrowRight")
        at_ply(page, boards, ply)
    page.keyboard.press("ArrowLeft")
    at_ply(page, boards, 2)
    page.click("#btn-forward")
    page.click("#btn-forward")
    at_ply(page, boards, 4)
    page.click("#btn-back")
    at_ply(page, boards, 3)
    page.keyboard.press("End")
    at_ply(page, boards, end)
    page.keyboard.press("ArrowRight")  # nothing after the end
    at_ply(page, boards, end)
    page.keyboard.press("Home")
    at_ply(page, boards, 0)
    page.click("#btn-end")
    at_ply(page, boards, end)
    page.click("#btn-start")
    at_ply(page, boards, 0)
    page.click('#move-list .move[data-ply="17"]')
    at_ply(page, boards, 17)
    page.eval_on_selector("#ply-slider", "(s, v) => { s.value = v; s.dispatchEvent(new Event('input', "
                          "{bubbles: true})); }", "25")
    at_ply(page, boards, 25)
    # the current move is scrolled into view and is the only one marked
    assert page.eval_on_selector_all("#move-list .move.current", "els => els.length") == 1


def test_the_last_move_is_highlighted_while_stepping(page, live_server, browser_archive):
    gid = a_game(browser_archive, "dai-kagamigi")
    with Archive(browser_archive, readonly=True) as a:
        moves = a.load_game(gid).mainline_moves()
    page.goto(f"{live_server}/games/{gid}?ply=5")
    page.keyboard.press("ArrowRight")
    page.wait_for_function("document.querySelector('#move-list .move.current').dataset.ply == '6'")
    move = moves[5]
    to = page.eval_on_selector_all("#board g.highlights .hl-to", "els => els.map(e => e.dataset.sq)")
    assert to == [square_name(move.to_square)]
    if move.from_square is not None:
        origin = page.eval_on_selector_all("#board g.highlights .hl-from", "els => els.map(e => e.dataset.sq)")
        assert origin == [square_name(move.from_square)]


def test_a_permalink_opens_at_its_ply_and_flip_turns_the_board(page, live_server, browser_archive):
    gid = a_game(browser_archive, "dai-ryu-shogi")
    boards = replayed(browser_archive, gid)
    page.goto(f"{live_server}/games/{gid}?ply=12")
    at_ply(page, boards, 12)

    def y_of(square):
        return page.eval_on_selector(f'#board g.squares [data-sq="{square}"]', "e => e.getBoundingClientRect().y")

    assert y_of("a1") > y_of("a16")  # Sente at the bottom
    page.click("#btn-flip")
    page.wait_for_function("document.querySelector('#btn-flip').getAttribute('aria-pressed') == 'true'")
    assert y_of("a1") < y_of("a16")  # Gote at the bottom
    assert shown(page) == expected(boards[12])  # the same pieces
    page.keyboard.press("ArrowRight")
    at_ply(page, boards, 13)
    page.keyboard.press("f")  # the key turns it back
    page.wait_for_function("document.querySelector('#btn-flip').getAttribute('aria-pressed') == 'false'")
    assert y_of("a1") > y_of("a16")


def test_search_from_a_ply_and_follow_an_explorer_move(page, live_server, browser_archive):
    gid = a_game(browser_archive, "dai-kagamigi")
    boards = replayed(browser_archive, gid)
    page.goto(f"{live_server}/games/{gid}?ply=0")
    page.keyboard.press("ArrowRight")
    page.keyboard.press("ArrowRight")
    at_ply(page, boards, 2)
    page.click("#search-position")
    page.wait_for_selector("#matches")
    assert shown(page, "#position-board") == expected(boards[2])
    games = page.eval_on_selector_all("#matches .match a", "els => els.map(e => e.getAttribute('href'))")
    assert any(href.endswith(f"/games/{gid}?ply=2") for href in games)
    # follow the most played move: the next page shows the board after it
    link = page.locator("#explorer .explorer-move a.explorer-link").first
    text = link.text_content().strip()
    board = boards[2].copy(stack=False)
    board.push(parse_move(board, text))
    link.click()
    page.wait_for_function(f"!location.search.includes('game={gid}')")
    page.wait_for_selector("#position-board")
    assert shown(page, "#position-board") == expected(board)


def test_a_variant_page_shows_the_setup_and_every_piece(page, live_server):
    variant = load_variant("dai-ryu-shogi")
    page.goto(f"{live_server}/variants/dai-ryu-shogi")
    start = Board(variant)
    setup = page.locator("svg g.pieces").first
    assert setup.is_visible()
    assert len(page.eval_on_selector_all("svg g.pieces use", "e => e")) >= len(start.pieces())
    text = page.text_content("main")
    for piece in variant.pieces:
        assert piece.name in text
    assert page.locator(".reconstructed").count() > 0  # reconstructed parts are flagged


@pytest.mark.parametrize("variant, shape", [("dai-kagamigi", (15, 15)), ("dai-ryu-shogi", (9, 16))])
def test_screenshots_of_large_boards_are_readable(page, live_server, browser_archive, tmp_path, variant, shape):
    gid = a_game(browser_archive, variant)
    page.goto(f"{live_server}/games/{gid}?ply=30")
    board = page.locator("#board-wrap svg").first
    box = board.bounding_box()
    files, ranks = shape
    # the whole board is on screen beside the move list, and a square is big enough to read a label
    assert box["x"] >= 0 and box["x"] + box["width"] <= 1400
    assert box["width"] / (files + 1) >= 28 and box["height"] / (ranks + 1) >= 28
    out = Path(os.environ.get("DAIKIFU_SCREENSHOTS") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"viewer-{variant}.png"
    page.screenshot(path=str(path), full_page=False)
    assert path.stat().st_size > 20_000


def test_kanji_or_piece_ids_on_the_pieces(page, live_server, browser_archive):
    shogi = load_variant("shogi")
    kanji = {p.id: p.kanji for p in shogi.pieces if p.kanji}
    gid = a_game(browser_archive, "shogi", min_plies=20)
    page.goto(f"{live_server}/games/{gid}?ply=20")

    def labels():
        return dict(page.eval_on_selector_all(
            "#board symbol[data-piece]",  # (the upright mode's symbols, ids ending -su, -gd ..., aside)
            "els => els.filter(s => /\\d$/.test(s.id)).map(s => [s.dataset.piece, s.querySelector('text').textContent])"))

    assert labels() == {pid: kanji.get(pid, pid) for pid in labels()}
    assert page.is_visible("#btn-labels")
    page.keyboard.press("l")
    page.wait_for_function("document.querySelector('#btn-labels').getAttribute('aria-pressed') == 'true'")
    assert all(pid == text for pid, text in labels().items())
    page.reload()  # the browser remembers the choice
    page.wait_for_function("document.querySelector('#btn-labels').dataset.mode == 'id'")
    assert all(pid == text for pid, text in labels().items())
    page.click("#btn-labels")  # IDs upright, then kanji again
    page.wait_for_function("document.querySelector('#btn-labels').dataset.mode == 'upright'")
    page.click("#btn-labels")
    page.wait_for_function("document.querySelector('#btn-labels').dataset.mode == 'kanji'")
    assert labels() == {pid: kanji.get(pid, pid) for pid in labels()}
    # a variant without kanji has the button too: IDs upright first, then turned with the piece
    page.goto(f"{live_server}/games/{a_game(browser_archive, 'dai-kagamigi')}")
    assert page.is_visible("#btn-labels")
    page.wait_for_function("document.querySelector('#btn-labels').dataset.mode == 'upright'")
