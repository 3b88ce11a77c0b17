"""The analysis board in a real browser (headless Chromium; fixtures in conftest.py).

What the browser marks and plays is compared with the rules core (``Board.legal_moves``, a move
played on a :class:`replay.Board`), never with squares written into the test.
"""

from __future__ import annotations

import time
from urllib.parse import urlencode

import pytest

from daikifu.archive.store import Archive
from daikifu.formats.lsn import read_game
from daikifu.formats.styles import move_text
from daikifu.replay.notation import notations
from daikifu.replay import Board
from daikifu.replay.squares import square_name

from position_support import position_text
from test_browser import a_game, expected, shown

pytestmark = pytest.mark.browser

MARKS_JS = "els => els.map(e => e.dataset.sq)"


def open_position(page, live_server, variant: str, position: str) -> None:
    page.goto(f"{live_server}/positions?" + urlencode({"variant": variant, "position": position}))
    ready(page)


def until(page, expression: str, seconds: float = 10) -> None:
    """Wait until the JavaScript ``expression`` is true on the page.  (Playwright's own
    wait_for_function polls with eval, which the page's Content-Security-Policy refuses.)"""
    deadline = time.monotonic() + seconds
    while not page.evaluate(expression):
        assert time.monotonic() < deadline, f"still false after {seconds} s: {expression}"
        page.wait_for_timeout(25)


def ready(page) -> None:
    """Wait until the legal moves of the position shown are loaded."""
    until(page, "document.querySelector('#analysis-moves').options.length > 0")


def click_square(page, square: str, board: str = "#position-board") -> None:
    """Click the middle of a square, wherever the board is drawn (a piece or not)."""
    x, y = page.eval_on_selector(f'{board} rect.sq[data-sq="{square}"]',
                                 "e => { const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }")
    page.mouse.click(x, y)


def marked(page, *kinds: str) -> set[str]:
    """Squares marked as a next stop (quiet move, capture, the piece's own square)."""
    kinds = kinds or ("an-move", "an-capture", "an-self")
    return set(page.eval_on_selector_all(", ".join(f".analysis-marks .{k}" for k in kinds), MARKS_JS))


def stored(db, variant: str, plies: int, min_plies: int = 40):
    """A stored game of ``variant`` and the rules core's board after its first ``plies`` plies."""
    gid = a_game(db, variant, min_plies=min_plies)
    with Archive(db, readonly=True) as a:
        game = a.load_game(gid)
    board = game.start_board()
    for move in game.mainline_moves()[:plies]:
        board.push(move)
    return gid, game, board


def stops(move) -> list[str]:
    return [square_name(sq) for sq in (*move.kills, move.to_square)]


def test_the_lion_dog_shows_the_moves_of_the_rules_core_stop_by_stop(page, live_server):
    pieces = {"h1": "K", "h15": "k", "e5": "!LD", "e6": "p", "e7": "p", "f6": "g", "d5": "P", "f4": "n"}
    position = position_text(pieces, 15, 15)
    board = Board("dai-kagamigi", position)
    moves = [stops(m) for m in board.legal_moves() if m.from_square == board.squares_of("!LD", 0)[0]]
    open_position(page, live_server, "dai-kagamigi", position)
    click_square(page, "e5")
    first = {s[0] for s in moves}
    assert marked(page) == first
    enemies = {square_name(sq) for sq in board.pieces(1)}
    assert marked(page, "an-capture") == first & enemies  # captures are told apart from quiet moves
    assert marked(page, "an-self") == {"e5"}  # pass or igui: back to its own square
    status = page.text_content("#analysis-status")  # the marks in words too
    assert status.startswith("!LD on e5: moves to ") and all(sq in status for sq in first - {"e5"})
    for stop in sorted(first):
        if not any(len(s) > 1 and s[0] == stop for s in moves):
            continue
        page.keyboard.press("Escape")
        click_square(page, "e5")
        click_square(page, stop)
        assert marked(page) == {s[1] for s in moves if len(s) > 1 and s[0] == stop}, stop
        assert marked(page, "an-step") == {stop}


def test_a_double_capture_in_two_clicks(page, live_server):
    pieces = {"h1": "K", "h15": "k", "e5": "!LD", "e6": "p", "e7": "p", "e8": "P"}
    position = position_text(pieces, 15, 15)
    open_position(page, live_server, "dai-kagamigi", position)
    click_square(page, "e5")
    click_square(page, "e6")
    assert "e7" in marked(page, "an-capture")
    click_square(page, "e7")
    board = Board("dai-kagamigi", position)
    move = next(m for m in board.legal_moves() if stops(m) == ["e6", "e7"])
    board.push(move)
    until(page, "document.querySelector('#position-string').textContent.includes(' w ')")
    assert shown(page, "#position-board") == expected(board)
    assert page.text_content("#position-string").strip() == board.position()
    assert page.locator("#analysis-lines .analysis-move").first.text_content() == "!LDxe6xe7"
    # the position search followed: the address and the search form name the new position
    until(page, "location.search.includes('w')")
    assert page.input_value(".position-form input[name=position]") == board.position()


def test_a_lion_double_capture_on_chu_shogi_in_two_clicks(page, live_server):
    pieces = {"f1": "K", "g12": "k", "e5": "LN", "e6": "p", "e7": "p"}
    position = position_text(pieces, 12, 12)
    board = Board("chu-shogi", position)
    lion = [stops(m) for m in board.legal_moves() if m.from_square == board.squares_of("LN", 0)[0]]
    open_position(page, live_server, "chu-shogi", position)
    click_square(page, "e5")
    assert marked(page) == {s[0] for s in lion}
    click_square(page, "e6")
    assert marked(page) == {s[1] for s in lion if len(s) == 2 and s[0] == "e6"}  # the second steps
    click_square(page, "e7")
    board.push(next(m for m in board.legal_moves() if stops(m) == ["e6", "e7"]))
    until(page, "document.querySelector('#position-string').textContent.includes(' w ')")
    assert shown(page, "#position-board") == expected(board)
    assert page.text_content("#position-string").strip() == board.position()
    # the position page writes Chu Shogi's moves in Japanese, as lishogi: e6 is ８七, e7 is ８六
    assert page.locator("#analysis-lines .analysis-move").first.text_content() == "▲８七・８六獅"


def test_a_drop_from_hand_on_chu_kagamigi(page, live_server):
    pieces = {"f1": "K", "f12": "k", "a4": "P", "c7": "p"}
    position = position_text(pieces, 12, 12, hands="G2Pn")
    board = Board("chu-kagamigi", position)
    open_position(page, live_server, "chu-kagamigi", position)
    page.click('#hand-sente .hand-piece[data-piece="G"]')
    drops = {square_name(m.to_square) for m in board.legal_moves() if m.drop == "G"}
    assert marked(page) == drops and len(drops) == 12 * 12 - len(pieces)
    click_square(page, "c6")
    board.push(next(m for m in board.legal_moves() if m.drop == "G" and square_name(m.to_square) == "c6"))
    until(page, "document.querySelector('#position-string').textContent.includes(' w ')")
    assert shown(page, "#position-board") == expected(board)
    assert page.text_content("#position-string").strip() == board.position()
    assert "G" not in page.text_content("#hand-sente .hand-pieces")  # the one gold left the hand


def test_promotion_is_asked_only_when_both_choices_are_legal(page, live_server):
    pieces = {"e1": "K", "e9": "k", "c6": "S", "a8": "P"}
    position = position_text(pieces, 9, 9)
    open_position(page, live_server, "shogi", position)
    click_square(page, "c6")
    click_square(page, "c7")  # into the zone: the silver may promote or not
    assert page.is_visible("#analysis-choice")
    page.click("#analysis-choice button:has-text('Do not promote')")
    until(page, "document.querySelector('#position-string').textContent.includes(' w ')")
    board = Board("shogi", position)
    board.push(board.parse_uci("c6c7="))
    assert shown(page, "#position-board") == expected(board)
    page.keyboard.press("ArrowLeft")  # back to the start, then the pawn: it must promote on the last rank
    until(page, "document.querySelector('#position-string').textContent.includes(' b ')")
    ready(page)
    click_square(page, "a8")
    click_square(page, "a9")
    until(page, "document.querySelector('#position-string').textContent.includes(' w ')")
    assert page.is_hidden("#analysis-choice")
    board = Board("shogi", position)
    board.push(board.parse_uci("a8a9+"))
    assert shown(page, "#position-board") == expected(board)


def test_a_line_in_the_game_viewer_steps_copies_and_searches(page, live_server, browser_archive):
    gid, _, board = stored(browser_archive, "shogi", 6, min_plies=20)
    page.goto(f"{live_server}/games/{gid}?ply=6")
    ready(page)
    # keyboard only: the list of legal moves, arrow keys, Enter
    page.focus("#analysis-moves")
    page.keyboard.press("ArrowDown")
    first = page.eval_on_selector("#analysis-moves", "s => s.options[s.selectedIndex].textContent")
    page.keyboard.press("Enter")
    page.wait_for_selector("#move-list .analysis-move")
    assert page.text_content("#move-list .analysis-move") == first
    # a shogi game's page writes its moves in Japanese, the analysis board's too
    move = next(m for m in board.legal_moves() if move_text(board.copy(stack=False), m, "japanese") == first)
    line = board.copy(stack=False)
    line.push(move)
    ready(page)
    assert shown(page) == expected(line)
    assert page.input_value("#position-string") == line.position()
    assert "ply=6" in page.url  # the address stays the stored position's permalink
    page.keyboard.press("ArrowLeft")
    until(page, "document.querySelector('#move-list .move.current').dataset.node == '6'")
    page.keyboard.press("ArrowRight")  # the main line goes on: ply 7 of the game
    until(page, "document.querySelector('#move-list .move.current').dataset.node == '7'")
    page.click("#move-list .analysis-move")
    until(page, "document.querySelector('#move-list .analysis-move').classList.contains('current')")
    page.click("#analysis-copy-lsn")
    until(page, "document.querySelector('#analysis-text').value.includes('[Variant')")
    record = read_game(page.input_value("#analysis-text"))
    assert record.start == board.position() and len(record.mainline_moves()) == 1
    href = page.get_attribute("#search-position", "href")
    assert "position=" in href and "game=" not in href


def test_hovering_a_piece_shows_its_moves(page, live_server):
    page.goto(f"{live_server}/variants/dai-kagamigi")
    ready(page)
    page.hover('#board g.pieces use[data-piece="K"].sente')
    page.wait_for_selector("#piece-info:not([hidden])")
    assert "King" in page.text_content("#piece-info")
    assert page.locator("#piece-info svg.move-diagram").count() >= 1
    page.keyboard.press("Escape")
    assert page.is_hidden("#piece-info")


def test_a_move_on_the_variant_page_and_its_search_link(page, live_server):
    page.goto(f"{live_server}/variants/shogi")
    ready(page)
    click_square(page, "c3", "#board")
    assert marked(page) == {"c4"}
    click_square(page, "c4", "#board")
    page.wait_for_selector("#analysis-lines .analysis-move")
    board = Board("shogi")
    board.push(board.parse_uci("c3c4"))
    assert shown(page) == expected(board)
    href = page.get_attribute("#search-position", "href")
    assert urlencode({"position": board.position()}) in href


# --- the board editor --------------------------------------------------------------------------


def test_editor_round_trip_finds_the_games_reaching_the_position(page, live_server, browser_archive):
    gid, game, board = stored(browser_archive, "shogi", 0, min_plies=20)
    page.context.grant_permissions(["clipboard-read", "clipboard-write"])
    page.goto(f"{live_server}/positions?edit=1&variant=shogi")
    until(page, "document.querySelector('#editor-problems').textContent.includes('possible')")
    # set up the position after the game's first two moves by hand: lift each piece, put it down
    for move in game.mainline_moves()[:2]:
        assert move.drop is None and move.promotion is None and not board.piece_at(move.to_square)
        piece = board.piece_at(move.from_square)
        page.click("#editor-erase")
        click_square(page, square_name(move.from_square), "#editor-board")
        page.click(f'.palette-piece[data-piece="{piece.id}"][data-colour="{piece.colour}"]')
        click_square(page, square_name(move.to_square), "#editor-board")
        board.push(move)
    assert shown(page, "#editor-board") == expected(board)
    until(page, f"document.querySelector('#editor-problems').dataset.checked == {page.text_content('#editor-position')!r}")
    assert page.text_content("#editor-problems").strip() == "A possible position."
    page.click("#editor-copy")
    copied = page.evaluate("navigator.clipboard.readText()")
    assert copied.split()[:3] == board.position().split()[:3]  # the editor numbers its position 1
    page.goto(f"{live_server}/positions?" + urlencode({"variant": "shogi", "position": copied}))
    games = page.eval_on_selector_all("#matches .match a", "els => els.map(e => e.getAttribute('href'))")
    assert any(href.endswith(f"/games/{gid}?ply=2") for href in games)


def test_editor_explains_an_impossible_position(page, live_server):
    page.goto(f"{live_server}/positions?edit=1&variant=shogi")
    page.click("#editor-empty")
    page.click('.palette-piece[data-piece="K"][data-colour="0"]')
    page.fill("#editor-square", "e1")
    page.press("#editor-square", "Enter")  # keyboard: a square and Enter
    page.click('.palette-piece[data-piece="K"][data-colour="1"]')
    click_square(page, "e2", "#editor-board")
    position = "9/9/9/9/9/9/9/4k4/4K4 b - 1"
    until(page, f"document.querySelector('#editor-problems').dataset.checked == {position!r}")
    kinds = page.eval_on_selector_all("#editor-problems li", "els => els.map(e => e.dataset.kind)")
    assert kinds == ["kings-adjacent", "not-to-move-in-check"]
    assert set(page.eval_on_selector_all("#editor-board .hl-error", MARKS_JS)) == {"e1", "e2"}
    assert page.get_attribute("#editor-search", "aria-disabled") == "true"
    click_square(page, "e2", "#editor-board")  # the same piece again: it is taken off
    page.fill("#editor-square", "e9")
    page.press("#editor-square", "Enter")
    page.check("input[name=editor-turn][value=w]")
    position = "4k4/9/9/9/9/9/9/9/4K4 w - 1"
    until(page, f"document.querySelector('#editor-problems').dataset.checked == {position!r}")
    assert page.text_content("#editor-problems").strip() == "A possible position."
    assert page.get_attribute("#editor-search", "aria-disabled") == "false"
    assert not page.eval_on_selector_all("#editor-board .hl-error", MARKS_JS)


# --- a phone ------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/games/{gid}?ply=10", "/positions?variant=dai-kagamigi", "/variants/dai-kagamigi",
                                  "/positions?edit=1&variant=dai-kagamigi", "/"])
def test_pages_fit_a_phone(phone, live_server, browser_archive, path):
    phone.goto(live_server + path.format(gid=a_game(browser_archive, "dai-kagamigi")))
    width = phone.evaluate("document.documentElement.clientWidth")
    assert width == 390
    assert phone.evaluate("document.documentElement.scrollWidth") <= width  # nothing sticks out sideways
    board = phone.locator("svg.board").first
    if board.count():
        # the board is drawn no smaller than its labels need (9 px): on a phone it may be wider
        # than the screen, in a box that scrolls it sideways, which itself fits the screen
        box = board.bounding_box()
        assert box["width"] >= float(board.get_attribute("data-min-width")) - 1
        frame = board.evaluate_handle("el => el.parentElement").as_element().bounding_box()
        assert frame["x"] >= 0 and frame["x"] + frame["width"] <= width


def test_analysis_by_touch_on_a_phone(phone, live_server, browser_archive):
    gid = a_game(browser_archive, "dai-kagamigi")
    phone.goto(f"{live_server}/games/{gid}?ply=0")
    ready(phone)
    board = Board("dai-kagamigi")
    move = board.legal_moves()[0]
    for square in (move.from_square, move.to_square):
        x, y = phone.eval_on_selector(f'#board rect.sq[data-sq="{square_name(square)}"]',
                                      "e => { const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }")
        phone.touchscreen.tap(x, y)
    phone.wait_for_selector("#move-list .analysis-move")
    board.push(move)
    assert shown(phone) == expected(board)


def test_igui_and_pass_are_offered(page, live_server):
    pieces = {"h1": "K", "h15": "k", "e5": "!LD", "e6": "p"}
    position = position_text(pieces, 15, 15)
    board = Board("dai-kagamigi", position)
    igui = next(m for m in board.legal_moves() if m.to_square == m.from_square and m.kills)
    passing = next(m for m in board.legal_moves() if m.is_pass)
    open_position(page, live_server, "dai-kagamigi", position)
    click_square(page, "e5")
    page.click("#analysis-choice button:has-text('Pass')")
    until(page, "document.querySelector('#position-string').textContent.includes(' w ')")
    assert page.text_content("#position-string").strip() == _after(board, passing)
    page.keyboard.press("ArrowLeft")
    ready(page)
    click_square(page, "e5")
    click_square(page, "e6")
    page.click("#analysis-choice button:has-text('igui')")
    until(page, "document.querySelector('#position-string').textContent.includes(' w ')")
    assert page.text_content("#position-string").strip() == _after(board, igui)
    assert page.locator("#analysis-lines .analysis-move").last.text_content() == "!LDx!e6"


def _after(board: Board, move) -> str:
    after = board.copy(stack=False)
    after.play(move)
    return after.position()


# --- a long game, shown a window of plies at a time ---------------------------------------------


def test_analysis_in_the_window_of_a_long_game(page, windowed_server, browser_archive):
    gid, _, board = stored(browser_archive, "dai-kagamigi", 30)
    page.goto(f"{windowed_server}/games/{gid}?ply=30")
    ready(page)
    page.focus("#analysis-moves")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    page.wait_for_selector("#move-list .analysis-move")
    ready(page)
    played = board.copy(stack=False)
    played.push(next(m for m, text in notations(board).items()
                     if text == page.text_content("#move-list .analysis-move")))
    assert shown(page) == expected(played)
    href = page.get_attribute("#search-position", "href")  # the analysed position, not a stored ply
    assert urlencode({"position": played.position()}) in href and "game=" not in href
    page.keyboard.press("ArrowLeft")
    until(page, "document.querySelector('#move-list .move.current').dataset.ply == '30'")
    assert shown(page) == expected(board)
