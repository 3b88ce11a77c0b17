"""The game list (``/``, ``/api/games``) and the game viewer (``/games/<id>``, ``/api/games/<id>``).

The archive: random Shogi games (drops), a 400-ply random Dai Kagamigi game with comments, the
hand-annotated samples (variations), a Dai Kagamigi Lion Dog double capture, a game whose tags
and comments are hostile markup, and an invalid game.  Expected answers come from the
:class:`~formats.game.Game` objects written to the files and from :class:`replay.Board`
replaying them, not from the code under test.
"""

from __future__ import annotations

import json
import re

import pytest
from lxml import etree, html

from daikifu.archive.importer import import_paths
from record_builders import random_records, write_records
from daikifu.archive.store import Archive
from daikifu.formats.game import Game
from daikifu.formats.lsn import read_games
from daikifu.formats.styles import move_style, move_text
from daikifu.replay.notation import move_notation, parse_move
from daikifu.replay import FIRST, Board, parse_square, square_name
from daikifu.web import create_app

SAMPLE = __import__("pathlib").Path(__file__).resolve().parents[1] / "data" / "sample"
SCRIPT = "<script>alert(1)</script>"
IMG = "\"'><img src=x onerror=alert(2)>"
LION_STUDY = "7k7/6g1s6/15/15/15/2n2p9/4s4r5/4p10/4(!LD)10/15/15/15/15/6G1G6/7K7 b - 1"
INVALID = """\
[Variant "shogi"]
[Event "Broken record"]
[Date "2024.03.03"]
[Sente "Ivan"]
[Gote "Vera"]
[Result "*"]

1. P-c4 P-c6 2. R-h5 *

[Variant "Martian Chess"]
[Sente "Mars"]
[Gote "Venus"]
[Result "*"]

1. P-c4 *
"""


def play(game: Game, *texts: str) -> Game:
    node, board = game, game.start_board()
    for text in texts:
        move = parse_move(board, text)
        node = node.add_variation(move)
        board.push(move)
    return game


def hostile_game() -> Game:
    game = Game("shogi")
    game.headers["Event"] = SCRIPT
    game.headers["Site"] = IMG
    game.headers["Date"] = "2024.01.02"
    game.headers["Sente"] = SCRIPT
    game.headers["Gote"] = IMG
    game.headers["Result"] = "1-0"
    game.result = "1-0"
    play(game, "P-c4", "P-c6", "P-g4")
    first = game.variations[0]
    first.comment = SCRIPT
    first.nags = [1]
    second = first.variations[0]
    alternative = first.add_variation(parse_move(play(Game("shogi"), "P-c4").end().board(), "P-g6"))
    alternative.comment = IMG
    assert second is first.variations[0]
    return game


def lion_game() -> Game:
    game = Game("dai-kagamigi", start=LION_STUDY)
    game.headers["Sente"], game.headers["Gote"] = "Lion", "Rook"
    game.headers["Date"] = "2025.06.07"
    return play(game, "!LDxe8xe9", "Rxe9")


@pytest.fixture(scope="module")
def fixture_games(tmp_path_factory):
    """(database path, {name: Game}) for the games written to the archive."""
    d = tmp_path_factory.mktemp("web_games")
    shogi = list(random_records("shogi", 6, seed=5, plies=(20, 60), comments=0.1))
    big = next(random_records("dai-kagamigi", 1, seed=11, plies=(400, 400), comments=0.05))
    big.headers["Sente"], big.headers["Gote"] = "Marathon", "Runner"
    special = {"hostile": hostile_game(), "lion": lion_game(), "big": big}
    write_records(shogi, d / "shogi.lsn")
    write_records(special.values(), d / "special.lsn")
    (d / "invalid.lsn").write_text(INVALID, encoding="utf-8")
    annotated = list(read_games((SAMPLE / "annotated.lsn").read_text(encoding="utf-8")))
    path = d / "games.db"
    with Archive(path) as a:
        summary = import_paths(a, [str(d / "shogi.lsn"), str(d / "special.lsn"), str(d / "invalid.lsn"),
                                   str(SAMPLE / "annotated.lsn")])
    assert summary.invalid == 2 and summary.imported == 6 + 3 + len(annotated), summary.as_dict()
    games = {f"shogi{i}": g for i, g in enumerate(shogi)}
    games.update(special)
    games.update({f"annotated{i}": g for i, g in enumerate(annotated)})
    return path, games


@pytest.fixture(scope="module")
def db(fixture_games):
    return fixture_games[0]


@pytest.fixture(scope="module")
def games(fixture_games):
    return fixture_games[1]


@pytest.fixture(scope="module")
def client(db):
    return create_app(db).test_client()


@pytest.fixture(scope="module")
def ids(db, games):
    """Fixture game name -> stored id (matched on the digest of the stored main line)."""
    with Archive(db, readonly=True) as a:
        rows = {r["digest"]: r["id"] for r in a.games(status="all")}
        by_players = {(r["sente"], r["gote"]): r["id"] for r in a.games(status="all")}
    from daikifu.archive.store import make_record
    out = {name: rows[make_record(g).digest] for name, g in games.items()}
    out["invalid"] = by_players[("Ivan", "Vera")]
    out["unknown"] = by_players[("Mars", "Venus")]
    return out


def get(client, url, status=200):
    r = client.get(url)
    assert r.status_code == status, (url, r.status_code, r.data[:400])
    return r


def page(client, url, status=200):
    return html.fromstring(get(client, url, status).data)


def api(client, url, status=200):
    r = get(client, url, status)
    assert r.is_json
    return r.get_json()


def board_of(response) -> etree._Element:
    """The board's <svg> in a viewer page, parsed as XML (it must be well-formed)."""
    text = response.get_data(as_text=True)
    m = re.search(r'<svg [^>]*id="board".*?</svg>', text, re.S)
    assert m, "no board"
    return etree.fromstring(m.group(0).encode())


def drawn_pieces(svg) -> dict[str, str]:
    """square -> piece token as in position strings ("P" first player, "p" second player)."""
    out = {}
    for use in svg.iter("{*}use"):
        pid = use.get("data-piece")
        out[use.get("data-sq")] = pid.lower() if "gote" in use.get("class").split() else pid
    return out


def pieces_of(board: Board) -> dict[str, str]:
    return {square_name(sq): p.id if p.colour == FIRST else p.id.lower() for sq, p in board.pieces().items()}


def board_at(game: Game, ply: int) -> Board:
    board = game.start_board()
    for move in game.mainline_moves()[:ply]:
        board.push(move)
    return board


def game_data(response) -> dict:
    doc = html.fromstring(response.data)
    return json.loads(doc.get_element_by_id("game-data").text)


def marks_of(svg) -> dict[str, set]:
    out: dict[str, set] = {}
    for rect in svg.iter("{*}rect"):
        if rect.get("class", "").startswith("hl-"):
            out.setdefault(rect.get("class"), set()).add(rect.get("data-sq"))
    return out


# --- the list -------------------------------------------------------------------------------------


def listed_ids(doc) -> list[int]:
    return [int(x) for x in doc.xpath("//table[@id='game-list']/tbody/tr/td[1]/a/text()")]


def test_the_list_counts_and_links_every_game_but_the_invalid(client, games, ids):
    doc = page(client, "/?per_page=200")
    shown = listed_ids(doc)
    assert sorted(shown) == sorted(i for name, i in ids.items() if name not in ("invalid", "unknown"))
    assert shown == sorted(shown, reverse=True)  # the default order: the latest imports first
    count = doc.get_element_by_id("game-count").text_content()
    assert f"1–{len(shown)} of {len(shown)} games" in count
    for gid in shown:
        assert doc.xpath(f"//tr/td/a[@href='/games/{gid}']")


def test_status_all_and_invalid_show_the_invalid_game_with_its_status(client, ids):
    doc = page(client, "/?status=invalid&sort=id&order=asc")
    assert listed_ids(doc) == [ids["invalid"], ids["unknown"]]
    assert doc.xpath("//tr[@class='status-invalid']/td[@class='status']//text()") == ["invalid", "invalid"]
    assert ids["invalid"] in listed_ids(page(client, "/?status=all&per_page=200"))


def test_filters_select_the_games_an_independent_look_at_the_tags_selects(client, games, ids):
    def expect(pred):
        return sorted(ids[name] for name, g in games.items() if pred(g))

    def shown(query):
        return sorted(listed_ids(page(client, "/?per_page=200&" + query)))

    assert shown("variant=shogi") == expect(lambda g: g.variant.slug == "shogi")
    assert shown("variant=Dai+Kagamigi") == expect(lambda g: g.variant.slug == "dai-kagamigi")
    player = games["shogi0"].headers["Sente"]
    assert shown(f"player={player}") == expect(lambda g: player in (g.headers.get("Sente"), g.headers.get("Gote")))
    assert shown("result=1-0") == expect(lambda g: g.result == "1-0")
    assert shown("result=draw") == expect(lambda g: g.result == "1/2-1/2")
    assert shown("since=2025&until=2025-12") == expect(lambda g: "2025" <= (g.headers.get("Date") or "") <= "2025.12~")
    assert shown("q=Marathon") == [ids["big"]]
    assert shown("q=onerror") == [ids["hostile"]]  # the site tag and a comment are searched


@pytest.mark.parametrize("sort,column", [("plies", 6), ("date", 1), ("variant", 2), ("id", 0)])
@pytest.mark.parametrize("order", ["asc", "desc"])
def test_sorting(client, sort, column, order):
    doc = page(client, f"/?per_page=200&sort={sort}&order={order}")
    cells = [td.text_content().strip() for td in doc.xpath(f"//table[@id='game-list']/tbody/tr/td[{column + 1}]")]
    if sort in ("plies", "id"):
        cells = [int(c) for c in cells]
    if sort == "variant":
        cells = [c.split()[0] for c in cells]
    present = [c for c in cells if c != ""]
    assert present == sorted(present, reverse=order == "desc")
    assert cells[:len(present)] == present  # games without a date come last


def test_pages_split_the_full_list_and_say_which_games_they_show(client):
    everything = listed_ids(page(client, "/?per_page=200&sort=id&order=asc"))
    doc = page(client, "/?per_page=3&page=2&sort=id&order=asc")
    assert listed_ids(doc) == everything[3:6]
    assert f"4–6 of {len(everything)} games" in doc.get_element_by_id("game-count").text_content()
    next_link = doc.xpath("//nav[@class='pager']/a[@rel='next']/@href")[0]
    assert "page=3" in next_link and "per_page=3" in next_link and "sort=id" in next_link
    beyond = page(client, "/?per_page=3&page=99")
    assert listed_ids(beyond) == [] and "No games on page 99" in beyond.get_element_by_id("game-count").text_content()
    assert len(api(client, "/api/games?per_page=100000")["games"]) == len(everything)  # cut to the maximum
    assert api(client, "/api/games?per_page=100000")["per_page"] == 200


def test_the_json_list_mirrors_the_page(client, games, ids):
    data = api(client, "/api/games?variant=shogi&per_page=4&page=2&sort=plies&order=asc")
    doc = page(client, "/?variant=shogi&per_page=4&page=2&sort=plies&order=asc")
    assert [g["id"] for g in data["games"]] == listed_ids(doc)
    shogi_games = [n for n, g in games.items() if g.variant.slug == "shogi" and n != "invalid"]
    assert data["total"] == len(shogi_games)
    assert (data["page"], data["per_page"], data["first"], data["last"]) == (2, 4, 5, 4 + len(data["games"]))
    assert data["filters"] == {"variant": "shogi"}
    first = data["games"][0]
    assert first["url"] == f"/games/{first['id']}"
    assert [g["ply_count"] for g in data["games"]] == sorted(g["ply_count"] for g in data["games"])


@pytest.mark.parametrize("query,word", [
    ("status=bogus", "status"), ("result=2-0", "result"), ("sort=colour", "sort"), ("order=up", "order"),
    ("page=0", "page"), ("page=abc", "page"), ("per_page=-1", "per_page"), ("since=yesterday", "date"),
    ("until=2024-13-99x", "date"), ("q=%22unclosed", "search"),
])
def test_bad_list_parameters_are_400_with_a_message(client, query, word):
    doc = page(client, "/?" + query, 400)
    assert word in doc.text_content()
    data = api(client, "/api/games?" + query, 400)
    assert word in data["error"]["message"] and data["error"]["status"] == 400


# --- the viewer -----------------------------------------------------------------------------------


@pytest.mark.parametrize("ply", [0, 1, 2, 137, 399, 400])
def test_the_board_at_ply_n_is_the_position_the_rules_core_reaches(client, games, ids, ply):
    r = get(client, f"/games/{ids['big']}?ply={ply}")
    board = board_at(games["big"], ply)
    assert drawn_pieces(board_of(r)) == pieces_of(board)
    doc = html.fromstring(r.data)
    current = doc.xpath("//*[@id='move-list']//*[contains(@class, 'move') and contains(@class, 'current')]")
    assert [int(c.get("data-ply")) for c in current] == [ply]
    assert doc.get_element_by_id("ply-label").text_content().startswith(f"Ply {ply} of 400")
    assert doc.get_element_by_id("ply-slider").get("value") == str(ply)
    assert doc.get_element_by_id("search-position").get("href") == f"/positions?game={ids['big']}&ply={ply}"
    if ply:
        marks = marks_of(board_of(r))
        move = games["big"].mainline_moves()[ply - 1]
        assert marks["hl-to"] == {square_name(move.to_square)}


def test_the_move_list_has_every_move_written_by_the_notation_writer(client, games, ids):
    doc = page(client, f"/games/{ids['big']}")
    links = doc.xpath("//*[@id='move-list']//a[contains(@class, 'move')]")
    assert [int(a.get("data-ply")) for a in links] == list(range(401))
    board = games["big"].start_board()
    for a, move in zip(links[1:], games["big"].mainline_moves()):
        assert a.text_content() == move_notation(board, move)
        assert a.get("href") == f"?ply={a.get('data-ply')}"
        board.push(move)
    for id_ in ("board", "btn-start", "btn-back", "btn-forward", "btn-end", "btn-flip", "ply-slider",
                "ply-label", "search-position", "move-list"):
        assert doc.get_element_by_id(id_) is not None


def replay_changes(data: dict, start: dict[str, str], path: list[int], forward: bool = True) -> dict[str, str]:
    """What viewer.js does: apply (or undo) each node's changes to a square -> piece map."""
    pieces = dict(start)
    for index in path:
        for square, old, new in data["nodes"][index]["c"]:
            assert pieces.get(square) == (old if forward else new), (index, square)
            value = new if forward else old
            if value is None:
                pieces.pop(square, None)
            else:
                pieces[square] = value
    return pieces


@pytest.mark.parametrize("name", ["big", "shogi1", "annotated1", "annotated2", "lion"])
def test_the_per_ply_changes_reproduce_every_position_forwards_and_backwards(client, games, ids, name):
    game = games[name]
    r = get(client, f"/games/{ids[name]}")
    data = game_data(r)
    start = drawn_pieces(board_of(r))
    moves = game.mainline_moves()
    assert data["plies"] == len(moves) and data["current"] == 0
    assert [n["d"] for n in data["nodes"][:len(moves) + 1]] == list(range(len(moves) + 1))
    board = game.start_board()
    pieces = start
    assert data["style"] == move_style(game.variant)  # the variant's own: Japanese for shogi and Chu Shogi
    for ply, move in enumerate(moves, start=1):
        before = board.copy()
        board.push(move)
        node = data["nodes"][ply]
        assert node["p"] == ply - 1 and node["m"] == move_text(before, move, data["style"])
        pieces = replay_changes(data, pieces, [ply])
        assert pieces == pieces_of(board), ply
        if board.rules.drops:
            assert node["hd"] == [[[pid, n] for pid, n in board.hand(c).items()] for c in (0, 1)]
    back = replay_changes(data, pieces, list(range(len(moves), 0, -1)), forward=False)
    assert back == start


def test_variations_are_nodes_with_parents_and_their_positions(client, games, ids):
    game = games["annotated0"]  # the Lion Dog study: variations, one nested in another
    r = get(client, f"/games/{ids['annotated0']}")
    data = game_data(r)
    start = drawn_pieces(board_of(r))
    nodes = data["nodes"]
    side = [i for i in range(len(nodes)) if i > data["plies"]]
    assert side, "the study has variations"

    def path_to(i):
        path = []
        while i:
            path.append(i)
            i = nodes[i]["p"]
        return path[::-1]

    expected = {}  # every variation node's position, from the game tree
    stack = [(game, game.start_board())]
    while stack:
        node, board = stack.pop()
        for k, child in enumerate(node.variations):
            b = board.copy()
            b.push(child.move)
            if k or not node.is_mainline():
                expected[b.position()] = pieces_of(b)
            stack.append((child, b))
    for i in side:
        assert nodes[i]["pos"] in expected
        assert replay_changes(data, start, path_to(i)) == expected[nodes[i]["pos"]]
    doc = html.fromstring(r.data)
    variation_links = doc.xpath("//*[@id='move-list']//div[@class='variation']//a[contains(@class, 'move')]")
    assert sorted(int(a.get("data-node")) for a in variation_links) == side
    nested = doc.xpath("//div[@class='variation']//div[@class='variation']")
    assert nested, "the nested variation is nested in the page"
    # a variation node is a permalink too
    deep = side[-1]
    r2 = get(client, f"/games/{ids['annotated0']}?node={deep}")
    assert drawn_pieces(board_of(r2)) == expected[nodes[deep]["pos"]]
    link = html.fromstring(r2.data).get_element_by_id("search-position").get("href")
    assert link.startswith("/positions?") and "position=" in link and "variant=dai-kagamigi" in link


def test_comments_and_nags_are_shown(client, games, ids):
    doc = page(client, f"/games/{ids['annotated0']}")
    comments = " ".join(doc.xpath("//*[@id='move-list']//span[@class='comment']/text()"))
    assert "Igui: the Lion Dog captures the rook on e9 without moving." in comments
    assert "A study position" in comments  # the comment before the first move
    assert "!!" in doc.xpath("//*[@id='move-list']//span[@class='nag']/text()")  # $3


def test_a_lion_double_capture_is_highlighted_on_both_squares(client, games, ids):
    r = get(client, f"/games/{ids['lion']}?ply=1")
    marks = marks_of(board_of(r))
    board = games["lion"].start_board()
    move = games["lion"].mainline_moves()[0]
    captured = {square_name(sq) for sq in board.captured_squares(move)}
    assert captured == {"e8", "e9"} and marks["hl-capture"] == captured
    node = game_data(r)["nodes"][1]
    assert set(node["h"]["x"]) == captured and node["h"]["f"] == ["e7"] and node["h"]["t"] == ["e9"]
    assert node["m"] == "!LDxe8xe9"


def test_hostile_text_is_escaped_in_the_page_and_round_trips_in_json(client, games, ids):
    gid = ids["hostile"]
    for url in (f"/games/{gid}", f"/games/{gid}?ply=1", "/?q=alert", "/?per_page=200"):
        r = get(client, url)
        doc = html.fromstring(r.data)
        for script in doc.iter("script"):
            assert "alert" not in (script.text or "") or script.get("type") == "application/json", url
            assert script.get("src") is None or script.get("src").startswith("/static/")
        assert not list(doc.iter("img")), url
        assert not doc.xpath("//@onerror"), url
    doc = page(client, f"/games/{gid}")
    assert doc.xpath(f"//table[@id='tags']//td[normalize-space()='{SCRIPT}']")
    assert SCRIPT in doc.xpath("//*[@id='move-list']//span[@class='comment']/text()")
    assert IMG in doc.xpath("//*[@id='move-list']//span[@class='comment']/text()")
    data = api(client, f"/api/games/{gid}")
    assert (data["event"], data["site"], data["sente"], data["gote"]) == (SCRIPT, IMG, SCRIPT, IMG)
    assert data["moves"][0]["comment"] == SCRIPT
    assert data["moves"][1]["variations"][0][0]["comment"] == IMG
    listing = api(client, "/api/games?q=alert")
    assert [(g["sente"], g["gote"]) for g in listing["games"]] == [(SCRIPT, IMG)]


def test_an_invalid_game_shows_its_moves_to_the_error_and_marks_the_error(client, ids):
    gid = ids["invalid"]
    r = get(client, f"/games/{gid}")
    doc = html.fromstring(r.data)
    # a shogi game: Japanese by default; the LSN text on asking for it
    assert [a.text_content() for a in doc.xpath("//*[@id='move-list']//a[contains(@class, 'move')]")] == \
        ["Start", "▲７六歩", "△７四歩"]
    algebraic = html.fromstring(get(client, f"/games/{gid}?style=algebraic").data)
    assert [a.text_content() for a in algebraic.xpath("//*[@id='move-list']//a[contains(@class, 'move')]")] == \
        ["Start", "P-c4", "P-c6"]
    assert doc.get_element_by_id("error-move").text_content() == "R-h5"
    error = doc.get_element_by_id("game-error").text_content()
    assert "R-h5" in error and "ply 3" in error
    # the message's squares in the page's style: the Rook on h2 is on ２八
    assert "on h2" in algebraic.get_element_by_id("game-error").text_content()
    assert "on ２八" in error and "h2" not in error
    data = game_data(r)
    assert data["error"]["node"] == 2 and data["error"]["squares"] == ["h5"]
    assert "hl-error" not in marks_of(board_of(r))  # only at the position where the move failed
    at_error = marks_of(board_of(get(client, f"/games/{gid}?ply=2")))
    assert at_error["hl-error"] == {"h5"}
    assert parse_square("h5")  # a real square of the board
    j = api(client, f"/api/games/{gid}")
    assert j["status"] == "invalid" and j["error"]["move"] == "R-h5" and len(j["moves"]) == 2


def test_a_game_of_an_unknown_variant_is_shown_without_a_board(client, ids):
    gid = ids["unknown"]
    doc = page(client, f"/games/{gid}")
    assert doc.get_element_by_id("board", None) is None and doc.get_element_by_id("game-data", None) is None
    assert "Martian Chess" in doc.text_content() and "cannot be shown on a board" in doc.text_content()
    page(client, f"/games/{gid}?ply=1", 400)
    data = api(client, f"/api/games/{gid}")
    assert data["readable"] is False and data["moves"] == [] and data["status"] == "invalid"


def test_flip_turns_the_board(client, ids):
    plain = board_of(get(client, f"/games/{ids['shogi0']}"))
    flipped = board_of(get(client, f"/games/{ids['shogi0']}?flip=1"))
    assert plain.get("data-flip") == "0" and flipped.get("data-flip") == "1"
    assert drawn_pieces(plain) == drawn_pieces(flipped)

    def a1(svg):
        return next((float(r.get("x")), float(r.get("y"))) for r in svg.iter("{*}rect") if r.get("data-sq") == "a1")
    assert a1(plain)[0] < a1(flipped)[0] and a1(plain)[1] > a1(flipped)[1]


@pytest.mark.parametrize("query", ["ply=abc", "ply=-1", "ply=401", "node=9999", "flip=maybe", "ply=1.5"])
def test_bad_viewer_parameters_are_400(client, ids, query):
    doc = page(client, f"/games/{ids['big']}?{query}", 400)
    assert "Traceback" not in doc.text_content()
    assert query.split("=")[0] in doc.text_content()


def test_unknown_games_are_404_in_html_and_json(client):
    page(client, "/games/987654", 404)
    assert api(client, "/api/games/987654", 404)["error"]["status"] == 404
    get(client, "/games/abc", 404)


def test_the_game_json_has_every_ply_with_its_position(client, games, ids):
    game = games["shogi2"]
    data = api(client, f"/api/games/{ids['shogi2']}")
    assert (data["sente"], data["gote"], data["result"]) == (game.headers["Sente"], game.headers["Gote"], game.result)
    assert data["status"] == "valid" and data["start"] == game.start_board().position()
    board = game.start_board()
    assert len(data["moves"]) == len(game.mainline_moves())
    for entry, node in zip(data["moves"], game.mainline()):
        assert entry["move"] == move_notation(board, node.move) and entry["uci"] == node.move.uci()
        board.push(node.move)
        assert entry["position"] == board.position()
        assert entry["comment"] == node.comment and entry["nags"] == list(node.nags)
    annotated = api(client, f"/api/games/{ids['annotated0']}")
    assert annotated["moves"][0]["variations"] and annotated["moves"][0]["variations"][0][0]["move"] == "!LDxe8xe9"


def test_a_400_ply_dai_kagamigi_page_is_small_and_quick(client, ids, monkeypatch):
    """Quick by what the page does not do: it shows the stored game, it replays nothing (how long
    it takes is measured by benchmarks/web_speed.py)."""
    url = f"/games/{ids['big']}?ply=200"
    get(client, url)  # the first request compiles the rules
    work = []
    for name in ("__init__", "push", "play", "legal_moves"):
        original = getattr(Board, name)
        monkeypatch.setattr(Board, name, lambda self, *a, _o=original, _n=name, **k: work.append(_n) or _o(self, *a, **k))
    r = get(client, url)
    assert len(r.data) < 1_000_000
    assert work == []


# --- downloads --------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["lion", "big", "annotated0", "hostile"])
def test_the_record_downloads_read_back_to_the_same_game(client, ids, games, db, name):
    from daikifu.formats.kif import read_kif
    gid, game = ids[name], games[name]
    lsn = client.get(f"/games/{gid}/record.lsn")
    assert lsn.status_code == 200 and "attachment" in lsn.headers["Content-Disposition"]
    again, = list(read_games(lsn.get_data(as_text=True)))
    assert again.mainline_moves() == game.mainline_moves()
    assert again.headers.get("Sente") == game.headers.get("Sente")
    kif = client.get(f"/games/{gid}/record.kif")
    assert kif.status_code == 200
    assert read_kif(kif.data)[0].mainline_moves() == game.mainline_moves()
    source = client.get(f"/games/{gid}/record.source")
    with Archive(db, readonly=True) as a:
        assert source.get_data(as_text=True) == a.source(gid)  # byte for byte as imported


def test_record_downloads_of_bad_formats_and_unreadable_games(client, ids):
    assert client.get(f"/games/{ids['lion']}/record.pgn").status_code == 404
    assert client.get("/games/987654/record.lsn").status_code == 404
    unknown = client.get(f"/games/{ids['unknown']}/record.lsn")  # a variant daikifu does not know
    assert unknown.status_code == 409 and b"record.source" in unknown.data
    assert client.get(f"/games/{ids['unknown']}/record.source").status_code == 200
    page = html.fromstring(client.get(f"/games/{ids['lion']}").data)
    links = {a.text_content().strip(): a.get("href") for a in page.xpath("//*[@id='downloads']//a")}
    assert links["LSN"].endswith("/record.lsn") and links["KIF"].endswith("/record.kif")


# --- Chu Shogi: one-kanji pieces and Lion double moves --------------------------------------------

# the one character each piece of the tsume C22 shows (chu-shogi.toml's kanji; its records write the
# two-character names, 飛鷲, 奔王 ..., which a board square has no room for)
CHU_KANJI = {"K": "玉", "G": "金", "FL": "豹", "BT": "虎", "L": "香", "R": "飛", "FK": "奔", "P": "歩",
             "KR": "麒", "DK": "龍", "+DK": "鷲", "+VM": "牛", "+SM": "猪", "+KR": "獅"}


@pytest.fixture(scope="module")
def chu(tmp_path_factory):
    """(client, {name: Game}, {name: id}) for the Chu Shogi examples of data/sample."""
    path = tmp_path_factory.mktemp("web_chu") / "chu.db"
    games = list(read_games((SAMPLE / "chu-shogi-examples.lsn").read_text(encoding="utf-8")))
    with Archive(path) as a:
        assert import_paths(a, [str(SAMPLE / "chu-shogi-examples.lsn")]).imported == len(games)
        stored = {r["ply_count"]: r["id"] for r in a.games(status="all")}
    return create_app(path).test_client(), games[0], stored[len(games[0].mainline_moves())]


def test_a_chu_game_shows_one_kanji_a_piece(chu):
    client, game, gid = chu
    r = get(client, f"/games/{gid}")
    svg = board_of(r)
    shown = {s.get("data-piece"): s.find("{*}text").get("data-kanji") for s in svg.iter("{*}symbol")
             if s.get("data-piece") in CHU_KANJI}
    on_board = {p.id for p in game.start_board().pieces().values()} | {"K", "+KR"}
    assert on_board <= set(shown) and {pid: shown[pid] for pid in CHU_KANJI if pid in shown} == \
        {pid: CHU_KANJI[pid] for pid in CHU_KANJI if pid in shown}
    assert all(len(text) == 1 for text in shown.values())
    # the pieces on the board use those symbols
    drawn = {use.get("data-piece") for use in svg.iter("{*}use")}
    assert drawn == {p.id for p in game.start_board().pieces().values()}


def test_both_steps_of_a_lion_double_move_are_shown_and_stepped_through(chu):
    client, game, gid = chu
    moves = game.mainline_moves()
    # ply 11, "+Dxj10,i11" in the record: the Soaring Eagle takes on j10 and steps on to i11;
    # ply 27, "+Oxg11,g10": the promoted Kirin takes on g11 and then on g10
    # lishogi's forms of ply 11: j10 is square 3c (三), i11 is 4b (二)
    western = html.fromstring(get(client, f"/games/{gid}?style=western").data)
    japanese = html.fromstring(get(client, f"/games/{gid}").data)
    assert [d.xpath("//*[@id='move-list']//a[@data-ply='11']")[0].text_content() for d in (western, japanese)] == \
        ["+Dx3c-4b", "▲３三・４二鷲"]
    for ply, origin, steps, to in ((11, "k9", ["j10"], "i11"), (27, "f12", ["g11", "g10"], "g10")):
        move = moves[ply - 1]
        assert (square_name(move.from_square), [square_name(k) for k in move.kills] + [square_name(move.to_square)]) \
            == (origin, steps if steps[-1] == to else steps + [to])
        r = get(client, f"/games/{gid}?ply={ply}&style=algebraic")
        marks = marks_of(board_of(r))
        assert marks["hl-from"] == {origin} and marks["hl-to"] == {to} and marks["hl-capture"] == set(steps)
        node = game_data(r)["nodes"][ply]
        assert node["h"]["f"] == [origin] and node["h"]["t"] == [to] and node["h"]["x"] == steps
        before, after = board_at(game, ply - 1), board_at(game, ply)
        assert node["m"] == move_notation(before, move)
        # stepping on applies both steps; stepping back puts both captured pieces back
        data = game_data(r)
        assert replay_changes(data, pieces_of(before), [ply]) == pieces_of(after)
        assert replay_changes(data, pieces_of(after), [ply], forward=False) == pieces_of(before)
    doc = page(client, f"/games/{gid}?style=algebraic")
    texts = [a.text_content() for a in doc.xpath("//*[@id='move-list']//a[contains(@class, 'move')]")]
    assert texts[11] == "+DKxj10-i11" and texts[27] == "+KRxg11xg10"


def test_the_tag_table_has_one_plies_row(tmp_path):
    """A record's PlyCount tag is the page's Plies row, not a second row beside it."""
    (tmp_path / "g.lsn").write_text('[Variant "shogi"]\n[PlyCount "2"]\n[Opening "Side pawn"]\n\n1. P-c4 P-c6 *\n',
                                    encoding="utf-8")
    db = tmp_path / "g.db"
    with Archive(db) as a:
        import_paths(a, [str(tmp_path / "g.lsn")])
    doc = html.fromstring(create_app(db).test_client().get("/games/1").data)
    rows = {tr.findtext("th"): tr.find("td").text_content() for tr in doc.get_element_by_id("tags").iter("tr")}
    heads = [tr.findtext("th") for tr in doc.get_element_by_id("tags").iter("tr")]
    assert heads.count("Plies") == 1 and "PlyCount" not in heads
    assert rows["Plies"] == "2" and rows["Opening"] == "Side pawn"
