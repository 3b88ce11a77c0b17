"""The shogi player's view in a real browser (headless Chromium; fixtures in conftest.py):
screenshots at 1400 and 390 px of a Dai Kagamigi, a Chu Shogi and a shogi game, every label at
least 9 px tall on screen, no Latin ID upside down in upright mode, the analysis beside the board
in the first screenful at 1400x900, the piece card never over the piece, the game list usable on
a phone.  Screenshots go to ``$DAIKIFU_SCREENSHOTS`` (or a temporary directory).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from test_browser import a_game

pytestmark = pytest.mark.browser

GAMES = [("dai-kagamigi", 30), ("chu-shogi", 30), ("shogi", 20)]
SIZES = {"1400": {"width": 1400, "height": 900}, "390": {"width": 390, "height": 844}}

# the smallest piece label and coordinate on screen, in CSS px: a symbol's text size is in the
# symbol's units (100 a piece), a piece is cell - 2 * inset of the board's units, and the board is
# drawn at its rendered width over its viewBox width
LABELS_JS = """svg => {
  const cell = +svg.dataset.cell, piece = cell - 2 * Math.round(cell * 0.04);
  const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
  const used = new Set([...svg.querySelectorAll('g.pieces use')].map(u => u.getAttribute('href').slice(1)));
  const labels = [...used].map(id => +document.getElementById(id).querySelector('text').getAttribute('font-size')
                                        * piece / 100 * scale);
  const coords = +svg.querySelector('g.coords').getAttribute('font-size') * scale;
  return {label: Math.min(...labels), coord: coords, scale: scale};
}"""

# pieces whose text is turned: a <use> turned by 180 degrees, in the upright mode there are none
TURNED_JS = "svg => [...svg.querySelectorAll('g.pieces use')].filter(u => (u.getAttribute('transform') || '').includes('rotate')).length"


def _page(chromium, size):
    context = chromium.new_context(viewport=SIZES[size])
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.set_default_timeout(10_000)
    return context, page, errors


def _screens(tmp_path: Path) -> Path:
    out = Path(os.environ.get("DAIKIFU_SCREENSHOTS") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    return out


def _set_mode(page, mode: str) -> None:
    for _ in range(3):
        if page.get_attribute("#btn-labels", "data-mode") == mode:
            return
        page.click("#btn-labels")
    assert page.get_attribute("#btn-labels", "data-mode") == mode


@pytest.mark.parametrize("size", sorted(SIZES))
@pytest.mark.parametrize("variant, ply", GAMES)
def test_every_label_is_readable_and_upright_ids_are_never_turned(chromium, live_server, browser_archive, tmp_path,
                                                                  variant, ply, size):
    context, page, errors = _page(chromium, size)
    try:
        gid = a_game(browser_archive, variant)
        page.goto(f"{live_server}/games/{gid}?ply={ply}")
        modes = ["kanji", "id", "upright"] if variant != "dai-kagamigi" else ["upright", "id"]
        for mode in modes:
            _set_mode(page, mode)
            sizes = page.eval_on_selector("#board", LABELS_JS)
            assert sizes["label"] >= 9 and sizes["coord"] >= 9, (mode, sizes)
            if mode == "upright":
                assert page.eval_on_selector("#board", TURNED_JS) == 0
                page.click("#btn-forward")  # pieces the viewer draws itself stay upright too
                page.click("#btn-flip")
                assert page.eval_on_selector("#board", TURNED_JS) == 0
                page.click("#btn-flip")
                page.click("#btn-back")
            else:
                assert page.eval_on_selector("#board", TURNED_JS) > 0  # the second player's pieces
        page.screenshot(path=str(_screens(tmp_path) / f"view-{variant}-{size}.png"))
    finally:
        context.close()
    assert not errors


@pytest.mark.parametrize("variant, ply", GAMES)
def test_the_analysis_is_beside_the_board_in_the_first_screenful(chromium, live_server, browser_archive, variant, ply):
    context, page, errors = _page(chromium, "1400")
    try:
        page.goto(f"{live_server}/games/{a_game(browser_archive, variant)}?ply={ply}")
        board = page.locator("#board").bounding_box()
        panel = page.locator("#analysis").bounding_box()
        legal = page.locator("#analysis-moves").bounding_box()
        assert panel["x"] >= board["x"] + board["width"]  # beside it, not under it
        assert panel["y"] < 900 and legal["y"] + legal["height"] <= 900
        width = page.evaluate("document.documentElement.scrollWidth")
        assert width <= 1400  # and nothing runs off the page's right
    finally:
        context.close()
    assert not errors


def test_the_piece_card_never_covers_the_piece(chromium, live_server, browser_archive):
    context, page, errors = _page(chromium, "1400")
    try:
        page.goto(f"{live_server}/games/{a_game(browser_archive, 'shogi')}?ply=0")
        for square in ("i1", "a1", "e1"):
            piece = page.locator(f"#board g.pieces use[data-sq='{square}']")
            box = piece.bounding_box()
            page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
            page.wait_for_selector("#piece-info:not([hidden])")
            card = page.locator("#piece-info").bounding_box()
            overlap_x = min(box["x"] + box["width"], card["x"] + card["width"]) - max(box["x"], card["x"])
            overlap_y = min(box["y"] + box["height"], card["y"] + card["height"]) - max(box["y"], card["y"])
            assert overlap_x <= 0 or overlap_y <= 0, (square, box, card)
            page.mouse.move(0, 0)
            page.wait_for_selector("#piece-info", state="hidden")
    finally:
        context.close()
    assert not errors


def test_the_game_list_is_usable_at_390_px(chromium, live_server, tmp_path):
    context, page, errors = _page(chromium, "390")
    try:
        page.goto(f"{live_server}/")
        # the page itself does not run wider than the screen, and every cell of a game is on it:
        # the players, the result, the plies (the list once lost everything after the Sente column)
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        row = page.locator("#game-list tbody tr").first
        for cls in ("sente", "gote", "result", "plies", "variant"):
            box = row.locator(f"td.{cls}").bounding_box()
            assert box and 0 <= box["x"] and box["x"] + box["width"] <= 390, cls
        page.screenshot(path=str(_screens(tmp_path) / "game-list-390.png"))
    finally:
        context.close()
    assert not errors


def test_the_editor_palette_finds_pieces_by_id_and_name(chromium, live_server):
    context, page, errors = _page(chromium, "1400")
    try:
        page.goto(f"{live_server}/positions?edit=1&variant=chu-shogi")
        page.fill("#palette-search", "lion")  # the Lion and the promoted Kirin, which is a Lion
        page.wait_for_function("document.querySelectorAll('.palette-type:not([hidden])').length == 2")
        shown = page.eval_on_selector_all(".palette-type", "els => els.filter(e => e.offsetParent).map(e => e.dataset.piece)")
        assert sorted(shown) == ["+KR", "LN"]
        page.fill("#palette-search", "fk")
        shown = page.eval_on_selector_all(".palette-type", "els => els.filter(e => e.offsetParent).map(e => e.dataset.piece)")
        assert shown == ["FK"]
        page.fill("#palette-search", "zzz")
        assert page.is_visible("#palette-none")
        page.fill("#palette-search", "")
        assert page.eval_on_selector_all(".palette-type", "els => els.filter(e => e.offsetParent).length") == 39
    finally:
        context.close()
    assert not errors
