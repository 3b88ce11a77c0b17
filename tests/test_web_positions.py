"""The position search and explorer pages (``/positions``, ``/api/positions``, ``/api/explore``).

The archive: the sample Shogi and Dai Kagamigi games plus three hand-written Shogi games that
transpose into one position (after 1. P-c4 P-c6 2. P-g4 P-g6, or 1. P-g4 P-g6 2. P-c4 P-c6, or
1. P-c4 P-g6 2. P-g4 P-c6 where the third game ends), two of them with hostile player names.
Expected answers are computed here independently: by replaying every stored game's text with
:class:`replay.Board` and comparing positions.
"""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path
from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from lxml import html

from daikifu.archive.queries import position_key
from daikifu.archive.store import Archive
from daikifu.formats.styles import move_text
from daikifu.replay.notation import move_notation
from daikifu.replay import Board, list_variants, square_name
from daikifu.web import create_app

from archive_support import sample_archive

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample"
SCRIPT_NAME = "<script>alert('sente')</script>"
IMG_NAME = "<img src=x onerror=alert(1)>"
HOSTILE = f"""\
[Variant "shogi"]
[Date "2024.02.01"]
[Sente "{SCRIPT_NAME}"]
[Gote "Bob & Carol"]
[Result "1-0"]

1. P-c4 P-c6 2. P-g4 P-g6 3. P-e4 1-0

[Variant "shogi"]
[Date "2024.02.02"]
[Sente "Bob"]
[Gote "{IMG_NAME}"]
[Result "0-1"]

1. P-g4 P-g6 2. P-c4 P-c6 3. P-d4 0-1

[Variant "shogi"]
[Date "2024.02.03"]
[Sente "Carol"]
[Gote "Dave"]
[Result "1/2-1/2"]

1. P-c4 P-g6 2. P-g4 P-c6 1/2-1/2
"""


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    d = tmp_path_factory.mktemp("web_positions")
    return sample_archive(d, ("shogi.lsn", "dai-kagamigi.lsn"), {"hand.lsn": HOSTILE})


@pytest.fixture(scope="module")
def app(db):
    return create_app(db)


@pytest.fixture
def client(app):
    return app.test_client()


@pytest.fixture(scope="module")
def replays(db):
    """Every stored game replayed from its text: ``{id: (game row, [position key at ply 0, 1, ...],
    [moves])}``."""
    a = Archive(db, readonly=True, create=False)
    out = {}
    for gid, variant, sente, gote in a.conn.execute(
            "SELECT g.id, g.variant, ps.name, pg.name FROM games g LEFT JOIN players ps ON ps.id = g.sente_id "
            "LEFT JOIN players pg ON pg.id = g.gote_id"):
        game = a.load_game(gid)
        board = game.start_board()
        keys, moves = [position_key(board.position())], game.mainline_moves()
        for m in moves:
            board.push(m)
            keys.append(position_key(board.position()))
        out[gid] = ({"variant": variant, "sente": sente, "gote": gote}, keys, moves)
    a.close()
    return out


def game_id(replays, sente, gote=None) -> int:
    ids = [gid for gid, (row, _, _) in replays.items()
           if row["sente"] == sente and (gote is None or row["gote"] == gote)]
    assert len(ids) == 1
    return ids[0]


def reaching(replays, variant: str, key: str) -> dict[int, list[int]]:
    """Independent answer: game id -> plies at which the game is in the position."""
    out = {}
    for gid, (row, keys, _) in replays.items():
        plies = [i for i, k in enumerate(keys) if k == key]
        if row["variant"] == variant and plies:
            out[gid] = plies
    return out


def played_from(replays, variant: str, key: str) -> dict[str, set]:
    """Independent answer: move (compact form) -> the games that played it from the position."""
    out = defaultdict(set)
    for gid, (row, keys, moves) in replays.items():
        if row["variant"] == variant:
            for i, m in enumerate(moves):
                if keys[i] == key:
                    out[m.uci()].add(gid)
    return out


def page(client, url, status=200):
    r = client.get(url)
    assert r.status_code == status, (url, r.status_code, r.data[:300])
    return html.fromstring(r.data)


def x_position(replays) -> str:
    """The transposed position: the first hand-written game after four plies."""
    gid = game_id(replays, SCRIPT_NAME)
    board = Board("shogi")
    for m in replays[gid][2][:4]:
        board.push(m)
    return board.position()


def board_pieces(svg) -> dict[str, tuple[str, str]]:
    """Square name -> (piece ID, side) read from a board SVG."""
    out = {}
    for use in svg.iter("{*}use", "use"):
        if use.get("data-sq"):
            out[use.get("data-sq")] = (use.get("data-piece"), "gote" if "gote" in use.get("class") else "sente")
    return out


def expected_pieces(board: Board) -> dict[str, tuple[str, str]]:
    return {square_name(sq): (p.id, "gote" if p.colour else "sente") for sq, p in board.pieces().items()}


# --- the form -------------------------------------------------------------------------------------


def test_empty_form_lists_every_variant_and_explains(app):
    doc = page(app.test_client(), "/positions")  # a new client: no variant looked at before
    options = doc.xpath("//form//select[@name='variant']/option/@value")
    assert sorted(o for o in options if o) == sorted(v.slug for v in list_variants())
    # no variant is chosen for the reader (the alphabetically first was): a placeholder is
    assert doc.xpath("//form//select[@name='variant']/option[@selected]/@value") == [""]
    # and every playable variant opens on its start position from the chooser
    links = doc.xpath("//*[@id='variant-chooser']//a/@href")
    assert sorted(links) == sorted(f"/positions?variant={v.slug}" for v in list_variants() if v.playable)
    assert doc.xpath("//form//input[@name='position']")
    assert not doc.xpath("//*[@id='explorer']") and not doc.xpath("//*[@id='matches']")
    assert "position string" in doc.text_content().lower()


def test_positions_opens_on_the_last_variant_looked_at(app):
    fresh = app.test_client()
    assert fresh.get("/positions?variant=chu-shogi").status_code == 200
    r = fresh.get("/positions")
    assert r.status_code == 302 and r.headers["Location"].endswith("/positions?variant=chu-shogi")
    doc = page(fresh, "/positions?variant=chu-shogi")
    assert doc.get_element_by_id("position-board") is not None


def test_a_variant_alone_is_its_start_position(client, replays):
    doc = page(client, "/positions?variant=shogi")
    start = Board("shogi")
    assert doc.get_element_by_id("position-string").text_content().strip() == start.position()
    assert board_pieces(doc.get_element_by_id("position-board")) == expected_pieces(start)
    shown = {int(a.text) for a in doc.xpath("//table[@id='matches']//tr[contains(@class,'match')]/td[1]/a")}
    assert shown == set(reaching(replays, "shogi", position_key(start.position())))


# --- search from a game's ply ---------------------------------------------------------------------


def test_search_from_a_game_ply_finds_that_game_and_its_transpositions(client, replays):
    gid = game_id(replays, "Bob", IMG_NAME)
    doc = page(client, f"/positions?game={gid}&ply=4")
    want = reaching(replays, "shogi", position_key(x_position(replays)))
    assert gid in want and len(want) == 3  # the three hand-written games
    rows = doc.xpath("//table[@id='matches']//tr[contains(@class,'match')]")
    got = {}
    for row in rows:
        link = row.xpath("./td[1]/a")[0]
        url = urlsplit(link.get("href"))
        got[int(link.text)] = (url.path, parse_qs(url.query)["ply"][0])
    assert got == {g: (f"/games/{g}", str(plies[0])) for g, plies in want.items()}
    board = Board("shogi", x_position(replays))
    assert board_pieces(doc.get_element_by_id("position-board")) == expected_pieces(board)
    assert position_key(doc.get_element_by_id("position-string").text_content()) == position_key(board.position())


def test_large_board_position_from_a_game(client, replays):
    gid = next(g for g, (row, keys, _) in replays.items() if row["variant"] == "dai-kagamigi" and len(keys) > 41)
    board = Board("dai-kagamigi")
    for m in replays[gid][2][:40]:
        board.push(m)
    doc = page(client, f"/positions?game={gid}&ply=40")
    svg = doc.get_element_by_id("position-board")
    assert len(svg.xpath(".//*[@class='sq' or @class='sq zone']")) == 15 * 15
    assert board_pieces(svg) == expected_pieces(board)
    ids = {int(a.text) for a in doc.xpath("//tr[contains(@class,'match')]/td[1]/a")}
    assert ids == set(reaching(replays, "dai-kagamigi", position_key(board.position())))


def test_matches_are_paged(client, app, replays, monkeypatch):
    import daikifu.web.positions as positions
    monkeypatch.setattr(positions, "PER_PAGE", 4)
    want = sorted(reaching(replays, "shogi", position_key(Board("shogi").position())))
    assert len(want) > 8
    seen = []
    for n in range(1, 10):
        doc = page(client, f"/positions?variant=shogi&page={n}")
        ids = [int(a.text) for a in doc.xpath("//tr[contains(@class,'match')]/td[1]/a")]
        nxt = doc.xpath("//a[@rel='next']/@href")
        seen += ids
        if not nxt:
            break
        assert len(ids) == 4 and parse_qs(urlsplit(nxt[0]).query)["page"] == [str(n + 1)]
    assert seen == want


# --- the explorer ---------------------------------------------------------------------------------


@pytest.mark.parametrize("where", ["start", "x"])
def test_explorer_rows_counts_and_links(client, replays, where):
    position = Board("shogi").position() if where == "start" else x_position(replays)
    board = Board("shogi", position)
    want = played_from(replays, "shogi", position_key(position))
    doc = page(client, "/positions?" + urlencode({"position": position, "variant": "shogi"}))
    rows = doc.xpath("//table[@id='explorer']//tr[contains(@class,'explorer-move')]")
    assert len(rows) == len(want)
    by_notation = {move_notation(board, board.parse_uci(u)): u for u in want}
    for row in rows:
        link = row.xpath(".//a[contains(@class,'explorer-link')]")
        assert len(link) == 1
        uci = by_notation[link[0].get("title")]  # the stored LSN; the text is the page's style
        assert link[0].text_content().strip() == move_text(board, board.parse_uci(uci), "japanese")
        assert int(row.xpath("./td[2]")[0].text) == len(want[uci])
        # the link leads to the position with that move played
        query = parse_qs(urlsplit(link[0].get("href")).query)
        assert query["variant"] == ["shogi"]
        after = Board("shogi", position)
        after.play(after.parse_uci(uci))
        assert position_key(query["position"][0]) == position_key(after.position())
        # the result bar: segment lengths are the shares of the games that played the move
        results = defaultdict(int)
        for gid in want[uci]:
            results[_result(client, gid)] += 1
        bar = row.xpath(".//*[local-name()='svg']")[0]
        full = float(bar.get("width"))
        for seg in bar.xpath(".//*[local-name()='rect'][@data-key]"):
            share = results[seg.get("data-key")] / len(want[uci])
            assert float(seg.get("width")) == pytest.approx(full * share, abs=0.02)
        assert sum(results.values()) == len(want[uci])


_RESULTS = {"1-0": "sente_wins", "0-1": "gote_wins", "1/2-1/2": "draws", "*": "unfinished"}


def _result(client, gid) -> str:
    a = Archive(client.application.config["DAIKIFU_DB"], readonly=True, create=False)
    try:
        return _RESULTS[a.conn.execute("SELECT result FROM games WHERE id = ?", (gid,)).fetchone()[0]]
    finally:
        a.close()


def test_following_an_explorer_link_shows_that_board(client, replays):
    position = x_position(replays)
    doc = page(client, "/positions?" + urlencode({"position": position, "variant": "shogi"}))
    link = doc.xpath("//a[contains(@class,'explorer-link')]")[0]
    after = Board("shogi", position)
    after.play(after.parse_uci(next(u for u in played_from(replays, "shogi", position_key(position))
                                    if move_notation(after, after.parse_uci(u)) == link.get("title"))))
    target = page(client, link.get("href"))
    assert board_pieces(target.get_element_by_id("position-board")) == expected_pieces(after)
    ended = doc.xpath("//tr[contains(@class,'explorer-end')]/td[2]")
    assert [int(td.text) for td in ended] == [1]  # the drawn game stops here


# --- escaping -------------------------------------------------------------------------------------


def test_hostile_player_names_are_text(client, replays):
    gid = game_id(replays, SCRIPT_NAME)
    r = client.get(f"/positions?game={gid}&ply=4")
    doc = html.fromstring(r.data)
    # the page's own scripts only: static files and the board's data
    assert all(s.get("src", "").startswith("/static/") or s.get("type") == "application/json"
               for s in doc.xpath("//script"))
    assert not doc.xpath("//img")
    cells = [td.text_content() for td in doc.xpath("//tr[contains(@class,'match')]/td")]
    assert SCRIPT_NAME in cells and IMG_NAME in cells and "Bob & Carol" in cells
    assert b"<script>alert" not in r.data


# --- bad parameters -------------------------------------------------------------------------------


@pytest.mark.parametrize("query, status, words", [
    ("game=abc&ply=1", 400, "whole number"),
    ("game=999999&ply=0", 404, "no game 999999"),
    ("game=99999999999999999999999&ply=1", 400, "game must be from 0 to"),
    ("ply=3", 400, "ply goes with game"),
    ("variant=no-such-variant", 400, "no-such-variant"),
    ("position=xyz&variant=shogi", 400, "bad position string"),
    ("page=0&variant=shogi", 400, "page must be"),
    ("confirm=maybe&variant=shogi", 400, "confirm must be"),
])
def test_bad_parameters(client, replays, query, status, words):
    gid = game_id(replays, "Carol")
    for prefix in ("/positions", "/api/positions", "/api/explore"):
        r = client.get(f"{prefix}?{query}")
        assert r.status_code == status, (prefix, query, r.data[:200])
        if prefix.startswith("/api/"):
            assert r.json["error"]["status"] == status and words in r.json["error"]["message"]
        else:
            assert words in html.fromstring(r.data).text_content()
    r = client.get(f"/positions?game={gid}&ply=99")
    assert r.status_code == 400 and "ply must be from 0 to 4" in r.get_data(as_text=True)


def test_api_without_a_position_is_400(client):
    for url in ("/api/positions", "/api/explore"):
        r = client.get(url)
        assert r.status_code == 400 and "position" in r.json["error"]["message"]


# --- JSON -----------------------------------------------------------------------------------------


def test_api_positions_and_explore(client, replays):
    gid = game_id(replays, SCRIPT_NAME)
    key = position_key(x_position(replays))
    data = client.get(f"/api/positions?game={gid}&ply=4").json
    assert data["query"]["game"] == gid and position_key(data["query"]["position"]) == key
    assert {g["id"]: g["plies"] for g in data["games"]} == reaching(replays, "shogi", key)
    assert data["more"] is False and data["count"] == len(data["games"])
    ex = client.get(f"/api/explore?game={gid}&ply=4").json
    want = played_from(replays, "shogi", key)
    assert {m["uci"]: m["games"] for m in ex["moves"]} == {u: len(g) for u, g in want.items()}
    for m in ex["moves"]:
        after = Board("shogi", x_position(replays))
        after.play(after.parse_uci(m["uci"]))
        assert position_key(m["position"]) == position_key(after.position())
    assert ex["ended"]["games"] == 1 and ex["games"] == 3


def test_search_pages_answer_quickly(client, replays, monkeypatch):
    """Quick by what a search does not do: it finds the games in the index and replays the searched
    game up to the ply (the board, the search, the explorer: a few times over), never the archive's
    other games, and lists no legal moves (how long it takes is measured by benchmarks/web_speed.py)."""
    gids = sorted(replays)[::4]
    for gid in gids[:3]:
        client.get(f"/positions?game={gid}&ply=0")  # compiles each variant's rules once
    work = []
    for name in ("push", "legal_moves"):
        original = getattr(Board, name)
        monkeypatch.setattr(Board, name, lambda self, *a, _o=original, _n=name, **k: work.append(_n) or _o(self, *a, **k))
    archive_plies = sum(len(moves) for _, _, moves in replays.values())
    for gid in gids:
        ply = len(replays[gid][1]) // 2
        work.clear()
        assert client.get(f"/positions?game={gid}&ply={ply}").status_code == 200
        assert "legal_moves" not in work
        assert work.count("push") <= 4 * ply < archive_plies, (gid, ply, work.count("push"))


def test_the_board_and_the_explorer_follow_the_style(client):
    doc = page(client, "/positions?variant=shogi&style=western")
    board = doc.get_element_by_id("position-board")
    files = [t.text for t in board.xpath(".//*[@data-file]")]
    ranks = [t.text for t in board.xpath(".//*[@data-rank]")]
    assert files == [str(n) for n in range(9, 0, -1)] and ranks == list("ihgfedcba")  # index 0: Sente's side
    links = doc.xpath("//a[contains(@class,'explorer-link')]")
    assert links and all(re.fullmatch(r"[A-Z+]+(?:\d[a-i])?[-x*]\d[a-i][+=]?", a.text_content().strip()) for a in links)
    assert page(client, "/positions?variant=dai-kagamigi").xpath("//*[@id='position-board']//*[@data-file='0']")[0].text == "a"
    page(client, "/positions?variant=shogi&style=hodges", status=400)


def test_the_form_offers_the_notation_styles(client):
    doc = page(client, "/positions?variant=chu-shogi&style=western")
    select = doc.xpath("//form//select[@name='style']")[0]
    assert select.xpath("./option/@value") == ["", "algebraic", "japanese", "western"]
    assert select.xpath("./option[@selected]/@value") == ["western"]
    assert page(client, "/positions?variant=chu-shogi").xpath("//form//select[@name='style']/option[@selected]/@value") == [""]
