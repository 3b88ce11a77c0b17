"""Variant pages and their JSON: the list, one variant, incomplete and broken variants, provenance
flags, and the piece move diagrams checked against the moves the board generates."""

from __future__ import annotations

import pytest
from lxml import html

from daikifu.archive.store import Archive
from daikifu.replay import Board, compile_rules, list_variants, load_variant
from daikifu.replay.position import format_position
from daikifu.replay.squares import square_file, square_rank
from daikifu.web import create_app

@pytest.fixture(scope="module")
def client(tmp_path_factory):
    path = tmp_path_factory.mktemp("variants") / "empty.db"
    Archive(path).close()
    return create_app(path).test_client()


_PAGES: dict = {}


def page(client, slug):
    if slug not in _PAGES:
        r = client.get(f"/variants/{slug}")
        assert r.status_code == 200
        _PAGES[slug] = html.fromstring(r.data)
    return _PAGES[slug]


def card(doc, piece_id):
    found = doc.xpath("//article[@data-piece=$pid]", pid=piece_id)
    assert len(found) == 1, piece_id
    return found[0]


# --- the list and the JSON ------------------------------------------------------------------------


def test_list_shows_every_variant_with_status_and_counts(client):
    doc = html.fromstring(client.get("/variants").data)
    rows = {tr.get("data-slug"): tr for tr in doc.xpath("//table[contains(@class, 'variant-list')]/tbody/tr")}
    variants = list_variants()
    assert set(rows) == {v.slug for v in variants}
    for v in variants:
        cells = rows[v.slug].xpath("./td")
        assert cells[0].xpath(".//a/@href") == [f"/variants/{v.slug}"]
        assert cells[1].text_content().strip() == f"{v.files}×{v.ranks}"
        assert cells[3].text_content().strip() == str(len(v.pieces))
        status = cells[2].text_content()
        if v.playable:
            assert "playable" in status
        else:
            assert "incomplete" in status and " ".join(v.missing.split())[:60] in " ".join(status.split())
    data = client.get("/api/variants").get_json()
    assert [d["slug"] for d in data["variants"]] == [v.slug for v in variants] and data["not_loaded"] == []


def test_broken_variant_file_is_listed_with_its_error(tmp_path):
    extra = tmp_path / "variants"
    extra.mkdir()
    (extra / "broken.toml").write_text('slug = "broken-one"\nname = "Broken"\nfiles = 40\nranks = 9\n')
    db = tmp_path / "empty.db"
    Archive(db).close()
    client = create_app(db, variants_dir=extra).test_client()
    doc = html.fromstring(client.get("/variants").data)
    broken = doc.xpath("string(//ul[@class='broken'])")
    assert "broken.toml" in broken and "40x9" in broken
    assert client.get("/api/variants").get_json()["not_loaded"][0]["file"] == "broken.toml"


def test_unknown_variant_is_404_and_aliases_redirect(client):
    r = client.get("/variants/no-such-game")
    assert r.status_code == 404 and b"no-such-game" in r.data
    r = client.get("/api/variants/no-such-game")
    assert r.status_code == 404 and r.get_json()["error"]["status"] == 404
    r = client.get("/variants/Dai Kagamigi")
    assert r.status_code == 301 and r.headers["Location"].endswith("/variants/dai-kagamigi")


def test_api_variant_data(client):
    v = load_variant("dai-ryu-shogi")
    data = client.get("/api/variants/dai-ryu-shogi").get_json()
    assert (data["name"], data["files"], data["ranks"], data["status"]) == (v.name, v.files, v.ranks, "playable")
    assert data["rules"]["zones"] == v.rules["zones"] and "knights" in data["options"]
    by_id = {p["id"]: p for p in data["pieces"]}
    assert set(by_id) == {p.id for p in v.pieces}
    lance = v.piece("L")
    assert [z["betza"] for z in by_id["L"]["zones"]] == list(lance.betza_zones)
    assert by_id["L"]["promotes"] == lance.promotes and by_id[lance.promotes]["promoted_from"] == "L"
    assert by_id["K"]["royal"] is True
    assert any(p["reconstructed"] for p in data["provenance"])


# --- one variant's page ---------------------------------------------------------------------------


def test_shogi_page_pieces_setup_and_links(client):
    doc = page(client, "shogi")
    v = load_variant("shogi")
    ids = [a.get("data-piece") for a in doc.xpath("//article[contains(@class, 'piece')]")]
    assert ids == [p.id for p in v.pieces]
    anchors = set(doc.xpath("//article/@id"))
    for p in v.pieces:
        links = card(doc, p.id).xpath(".//p[@class='promotion']/a/@href")
        if p.promotes:
            target = "piece-%d" % v.piece(p.promotes).index
            assert links[0] == "#" + target and target in anchors
    # the setup: one piece on the board for every piece of the start position
    setup = doc.xpath("//figure[@class='setup']/*[local-name()='svg']")[0]
    placed = setup.xpath(".//*[local-name()='use']/@data-sq")
    assert len(placed) == len(Board(v).pieces())
    rules_text = doc.xpath("string(//section[@id='rules'])")
    assert "the last 3 ranks" in rules_text and "nifu" in rules_text


def test_incomplete_variant_says_what_is_missing(client):
    v = load_variant("nearlydouble-symgi")
    doc = page(client, v.slug)
    notice = " ".join(doc.xpath("string(//section[@id='missing'])").split())
    assert "cannot be played" in notice and " ".join(v.missing.split()) in notice
    assert not doc.xpath("//figure[@class='setup']")
    for p in v.pieces:  # known moves get a diagram, the others say so
        diagrams = card(doc, p.id).xpath(".//*[local-name()='svg'][contains(@class, 'move-diagram')]")
        assert bool(diagrams) == bool(p.betza), p.id
    data = client.get(f"/api/variants/{v.slug}").get_json()
    assert data["status"] == "incomplete" and data["missing"] == " ".join(v.missing.split())


def test_reconstructed_and_disputed_parts_are_flagged(client):
    v = load_variant("chu-kagamigi")
    doc = page(client, v.slug)
    flagged = [" ".join(e.text_content().split()) for e in doc.xpath("//section[@id='setup']//*[contains(@class, 'reconstructed')]")]
    setup = next(p for p in v.provenance if p.topic == "setup")
    assert setup.reconstructed and any(setup.choice in text and "Reconstructed" in text for text in flagged)
    for p in v.pieces:
        if p.provenance:
            notes = card(doc, p.id).xpath(".//*[contains(@class, 'reconstructed')]")
            assert any(p.provenance in n.text_content() for n in notes), p.id
    assert len(doc.xpath("//section[@id='provenance']/*[contains(@class, 'provenance-note')]")) == len(v.provenance)


def test_the_chu_page_counts_its_pieces_once_and_does_not_dispute_its_standard_setup(client):
    """Chu Shogi: the summary's "21 piece types" and the facts agree (21, 39 with the promoted
    forms); the standard array, documented with high confidence and no alternative, is not boxed
    as disputed."""
    doc = page(client, "chu-shogi")
    assert "21 piece types" in doc.xpath("//p[@class='summary']")[0].text_content()
    assert doc.get_element_by_id("piece-type-count").text_content() == "21 (39 with the promoted forms)"
    setup = doc.xpath("//section[@id='setup']//*[contains(@class, 'provenance-note')]")
    assert setup and all(n.get("data-kind") == "documented" and "reconstructed" not in n.get("class") for n in setup)
    assert not any("Disputed" in n.text_content() for n in setup)


def test_zone_pieces_get_one_diagram_per_zone_and_options_their_own(client):
    doc = page(client, "dai-ryu-shogi")
    zones = card(doc, "L").xpath(".//*[local-name()='svg'][contains(@class, 'move-diagram')]/@data-zone")
    assert zones == ["0", "1", "2", "3"]
    doc = page(client, "dai-mitregi")
    block = card(doc, "WZ").xpath(".//div[@data-option='movement=stepping']")
    assert len(block) == 1 and "fW2" in block[0].text_content()


# --- move diagrams against the board --------------------------------------------------------------


def diagram_marks(svg) -> dict:
    """(dx, dy) -> (move, capture) of the squares a diagram marks, and its radius, igui, pass."""
    marks = {(int(r.get("data-dx")), int(r.get("data-dy"))): (r.get("data-move") == "1", r.get("data-capture") == "1")
             for r in svg.xpath(".//*[local-name()='rect'][contains(@class, 'target')]")}
    igui = {(int(c.get("data-dx")), int(c.get("data-dy")))
            for c in svg.xpath(".//*[local-name()='g'][@class='igui']/*[local-name()='circle']")}
    passes = svg.xpath("string(.//*[local-name()='g'][@class='piece']/@data-passes)") == "1"
    return {"marks": marks, "radius": int(svg.get("data-radius")), "igui": igui, "passes": passes}


def board_marks(slug, piece_id, origin, radius, options=None) -> dict:
    """The same, from the board: the piece alone on ``origin`` (file, rank), then with one enemy
    piece on each square in reach, counting only squares on the board within ``radius``."""
    v = load_variant(slug)
    rules = compile_rules(v, options)
    piece = v.piece(piece_id)
    enemy = next(p for p in v.pieces if not p.royal and p.id != piece_id)
    f0, r0 = origin
    empty_hands = [[0] * (len(v.pieces) + 1), [0] * (len(v.pieces) + 1)]

    def moves(extra=None):
        cells = {origin: (piece.index, 0)}
        if extra:
            cells[extra] = (enemy.index, 1)
        text = format_position(v, lambda f, r: cells.get((f, r)), empty_hands, 0, 1)
        return Board(rules, text).pseudo_legal_moves()

    def rel(sq):
        return square_file(sq) - f0, square_rank(sq) - r0

    window = {(f - f0, r - r0) for f in range(v.files) for r in range(v.ranks)
              if max(abs(f - f0), abs(r - r0)) <= radius and (f, r) != origin}
    marks, igui, passes = {}, set(), False
    for m in moves():
        d = rel(m.to_square)
        if d == (0, 0):
            passes = True
        elif d in window:
            marks[d] = (True, False)
    for d in window:
        for m in moves((f0 + d[0], r0 + d[1])):
            hit = rel(m.to_square) == d or any(rel(k) == d for k in m.kills)
            if hit:
                marks[d] = (marks.get(d, (False, False))[0], True)
                if rel(m.to_square) == (0, 0):
                    igui.add(d)
    return {"marks": marks, "igui": igui, "passes": passes}


CASES = [  # slug, piece, origin (file, rank from 0), option (name, choice) or None, zone
    ("shogi", "N", (4, 4), None, None),
    ("shogi", "+B", (4, 4), None, None),
    ("shogi", "P", (4, 4), None, None),
    ("pacifier-shogi", "G", (6, 5), None, None),  # steps that capture, slides that only move
    ("dai-kagamigi", "SE", (7, 7), None, None),  # lion power on the forward diagonals, igui, pass
    ("dai-kagamigi", "!LD", (7, 7), None, None),  # three-step Lion Dog
    ("dai-kagamigi", "SE", (7, 7), ("pass", "forbidden"), None),
    ("planetary-shogi", "G", (6, 5), None, None),  # two-stage generator
    ("planetary-shogi", "L", (6, 2), None, None),  # two-stage with a slide: 15x15 diagram
    ("kyoomagi", "L", (6, 2), None, None),  # zig-zag generator
    ("dai-ryu-shogi", "L", (4, 5), None, 1),  # zone 2 (ranks 5-8)
    ("dai-ryu-shogi", "N", (4, 10), None, 2),
    ("dai-mitregi", "WZ", (7, 5), ("movement", "stepping"), None),  # lame two-square step
    ("dai-shogi", "VO", (7, 7), None, None),  # a two-square slide
    ("dai-shogi", "FD", (7, 7), ("two-square-moves", "jump"), None),  # ... or a jump
    ("dai-shogi", "LN", (7, 7), None, None),  # the Lion: double moves, igui, pass
    ("dai-shogi", "+DH", (7, 7), None, None),  # Horned Falcon: Lion power straight forward
    ("sho-shogi", "E", (4, 4), None, None),
    ("minishogi", "+R", (2, 2), None, None),
]


@pytest.mark.parametrize("slug, piece_id, origin, option, zone", CASES)
def test_move_diagram_matches_the_board(client, slug, piece_id, origin, option, zone):
    doc = page(client, slug)
    where = card(doc, piece_id)
    if option:
        where = where.xpath(".//div[@data-option=$o]", o="=".join(option))[0]
    svgs = where.xpath(".//*[local-name()='svg'][contains(@class, 'move-diagram')]")
    if zone is not None:
        svgs = [s for s in svgs if s.get("data-zone") == str(zone)]
    shown = diagram_marks(svgs[0])
    expected = board_marks(slug, piece_id, origin, shown["radius"], dict([option]) if option else None)
    on_board = {d: m for d, m in shown["marks"].items() if d in expected["marks"] or _on_board(slug, origin, d)}
    assert on_board == expected["marks"]
    assert shown["igui"] == expected["igui"] and shown["passes"] == expected["passes"]


def _on_board(slug, origin, d) -> bool:
    v = load_variant(slug)
    f, r = origin[0] + d[0], origin[1] + d[1]
    return 0 <= f < v.files and 0 <= r < v.ranks


def test_diagram_draws_slides_with_arrows_and_capture_only_marks(client):
    svg = card(page(client, "shogi"), "R").xpath(".//*[local-name()='svg'][contains(@class, 'move-diagram')]")[0]
    rays = {(int(g.get("data-dx")), int(g.get("data-dy"))): g.get("data-beyond")
            for g in svg.xpath(".//*[local-name()='g'][@class='rays']/*[local-name()='g']")}
    assert rays == {(0, 1): "1", (0, -1): "1", (1, 0): "1", (-1, 0): "1"}
    # Pacifier Shogi's Helmpacifier moves on as a rider but captures only on its first leap
    svg = card(page(client, "pacifier-shogi"), "N").xpath(".//*[local-name()='svg'][contains(@class, 'move-diagram')]")[0]
    marks = diagram_marks(svg)["marks"]
    assert marks[(1, 2)] == (True, True) and marks[(2, 4)] == (True, False)


@pytest.mark.parametrize("slug, option", [("dai-mitregi", ("ranks", "16")),
                                          ("dai-ryu-shogi", ("knights", "shogi-files"))])
def test_options_that_change_the_setup_show_their_start_position(client, slug, option):
    from daikifu.replay.squares import square_name
    doc = html.fromstring(client.get(f"/variants/{slug}").data)
    key = "=".join(option)
    figure, = doc.xpath(f"//figure[contains(@class, 'option-setup')][@data-option='{key}']")
    drawn = sorted((u.get("data-sq"), u.get("data-piece"), "gote" in u.get("class"))
                   for u in figure.xpath(".//*[local-name()='g'][contains(@class, 'pieces')]/*[local-name()='use']"))
    board = Board(load_variant(slug), None, dict([option]))
    assert drawn == sorted((square_name(sq), p.id, p.colour == 1) for sq, p in board.pieces().items())
    assert drawn != sorted((square_name(sq), p.id, p.colour == 1) for sq, p in Board(load_variant(slug)).pieces().items())


def test_options_that_keep_the_setup_draw_no_second_board(client):
    doc = html.fromstring(client.get("/variants/dai-kagamigi").data)
    assert not doc.xpath("//figure[contains(@class, 'option-setup')]")


def test_the_setup_is_drawn_in_the_variants_own_style(client):
    """Shogi and Chu Shogi number their files from the right and name their ranks from the top
    (一 at the top, 十二 on Chu's bottom rank); the others keep a1 at Sente's lower left."""
    for slug, files, top_rank in (("shogi", 9, "一"), ("chu-shogi", 12, "一"), ("dai-kagamigi", 15, "15")):
        board = page(client, slug).get_element_by_id("board")
        first_file = board.xpath(".//*[@data-file='0']")[0].text  # the file on Sente's left
        last_rank = board.xpath(f".//*[@data-rank='{int(board.get('data-ranks')) - 1}']")[0].text
        assert (first_file, last_rank) == ((str(files), top_rank) if slug != "dai-kagamigi" else ("a", top_rank))
    chu = page(client, "chu-shogi").get_element_by_id("board")
    assert chu.xpath(".//*[@data-rank='0']")[0].text == "十二"
