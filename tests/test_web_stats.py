"""The statistics page (``/stats``, ``/api/stats``) and the SVG charts of :mod:`web.charts`.

The archive: the sample Shogi and Chu Kagamigi games plus two hand-written Shogi games with
hostile player names and termination.  Chart lengths are checked against counts taken here
straight from the database with SQL, not from the report.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path
from urllib.parse import urlencode

import pytest
from lxml import etree, html

from daikifu.archive.importer import import_paths
from daikifu.archive.stats import archive_stats
from daikifu.archive.store import Archive
from daikifu.formats.lsn import read_game
from daikifu.web import charts, create_app

from archive_support import sample_archive

SAMPLE = Path(__file__).resolve().parents[1] / "data" / "sample"
SCRIPT_NAME = "<script>alert('x')</script>"
HOSTILE = f"""\
[Variant "shogi"]
[Date "2024.02.01"]
[Sente "{SCRIPT_NAME}"]
[Gote "Bob & Carol"]
[Result "1-0"]
[Termination "<img src=x onerror=alert(1)>"]

1. P-c4 P-c6 2. P-g4 P-g6 3. P-e4 1-0

[Variant "shogi"]
[Date "2024.02.02"]
[Sente "Bob & Carol"]
[Gote "{SCRIPT_NAME}"]
[Result "*"]

1. P-g4 P-g6 2. P-c4 P-c6 *
"""
RESULT_SQL = {"sente_wins": "result = '1-0'", "gote_wins": "result = '0-1'", "draws": "result = '1/2-1/2'",
              "unfinished": "result NOT IN ('1-0', '0-1', '1/2-1/2')"}
SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    d = tmp_path_factory.mktemp("web_stats")
    return sample_archive(d, ("shogi.lsn", "chu-kagamigi.lsn"), {"hand.lsn": HOSTILE})


@pytest.fixture(scope="module")
def client(db):
    return create_app(db).test_client()


def sql(db, query, params=()):
    a = Archive(db, readonly=True, create=False)
    try:
        return a.conn.execute(query, params).fetchall()
    finally:
        a.close()


def get_page(client, url, status=200):
    r = client.get(url)
    assert r.status_code == status, (url, r.status_code, r.data[:300])
    return html.fromstring(r.data)


def figure(section, caption_start: str):
    """The ``<figure>`` of a section whose caption starts with these words."""
    for fig in section.xpath(".//figure"):
        if fig.xpath("./figcaption")[0].text_content().startswith(caption_start):
            return fig
    raise AssertionError(f"no figure {caption_start!r}")


def svg_of(fig):
    """The chart of a figure, parsed again as XML (so it must be well-formed on its own)."""
    node = fig.xpath(".//*[local-name()='svg']")[0]
    return etree.fromstring(etree.tostring(node))


def bars(svg) -> list[tuple[float, float]]:
    """(data-value, width) of every bar of a horizontal bar chart, in order."""
    return [(float(r.get("data-value")), float(r.get("width"))) for r in svg.iter(f"{SVG}rect")
            if r.get("class") == "bar"]


def assert_proportional(pairs, total_length=None):
    """Lengths proportional to values: the largest value gets the largest length (or, with
    ``total_length``, each length is its share of the sum of the values)."""
    values = [v for v, _ in pairs]
    if total_length is None:
        top_v, top_l = max(values), max(length for _, length in pairs)
        for v, length in pairs:
            assert length == pytest.approx(top_l * v / top_v, abs=0.02)
    else:
        for v, length in pairs:
            assert length == pytest.approx(total_length * v / sum(values), abs=0.02)


# --- the JSON -------------------------------------------------------------------------------------


@pytest.mark.parametrize("params, kwargs", [
    ({}, {}),
    ({"variant": "shogi"}, {"variant": "shogi"}),
    ({"variant": "Shogi", "player": "bot*"}, {"variant": "shogi", "player": "bot*"}),
    ({"bucket": "7"}, {"bucket": 7}),
    ({"player": "nobody"}, {"player": "nobody"}),
])
def test_json_is_the_report(client, db, params, kwargs):
    got = client.get("/api/stats?" + urlencode(params)).json
    a = Archive(db, readonly=True, create=False)
    try:
        assert got == archive_stats(a, **kwargs)
    finally:
        a.close()


# --- the page -------------------------------------------------------------------------------------


def test_results_per_variant_bars_match_the_database(client, db):
    doc = get_page(client, "/stats")
    svg = svg_of(figure(doc.get_element_by_id("results"), "Share of"))
    rows = svg.findall(f"{SVG}g[@class='stack-row']")
    variants = [r[0] for r in sql(db, "SELECT DISTINCT variant FROM games ORDER BY variant")]
    assert len(rows) == len(variants) == 2
    for row, slug in zip(rows, variants):
        want = {k: sql(db, f"SELECT count(*) FROM games WHERE variant = ? AND {cond}", (slug,))[0][0]
                for k, cond in RESULT_SQL.items()}
        outline = float(row.find(f"{SVG}rect[@class='outline']").get("width"))
        segments = {g.find(f"{SVG}rect").get("data-key"): float(g.find(f"{SVG}rect").get("width"))
                    for g in row.findall(f"{SVG}g")}
        assert set(segments) == {k for k, n in want.items() if n}
        total = sum(want.values())
        for key, width in segments.items():
            assert width == pytest.approx(outline * want[key] / total, abs=0.02)
        # the exact numbers are in the tooltips
        titles = [g.findtext(f"{SVG}title") for g in row.findall(f"{SVG}g")]
        assert sorted(int(t.split(": ")[1].split()[0]) for t in titles) == sorted(n for n in want.values() if n)


def test_length_histogram_matches_the_database(client, db):
    doc = get_page(client, "/stats?variant=shogi&bucket=20")
    section = doc.get_element_by_id("variant-shogi")
    svg = svg_of(figure(section, "Games by length"))
    lengths = [r[0] for r in sql(db, "SELECT ply_count FROM games WHERE variant = 'shogi'")]
    lo, hi = min(lengths) // 20, max(lengths) // 20
    want = [sum(1 for n in lengths if n // 20 == b) for b in range(lo, hi + 1)]
    rects = [r for r in svg.iter(f"{SVG}rect") if r.get("class") == "bar"]
    assert [int(r.get("data-value")) for r in rects] == want
    heights = [float(r.get("height")) for r in rects]
    for n, h in zip(want, heights):
        assert h == pytest.approx(max(heights) * n / max(want), abs=0.02)
    # the bars stand on the axis: their bottoms line up
    assert len({round(float(r.get("y")) + float(r.get("height")), 2) for r in rects}) == 1
    titles = [r.getparent().findtext(f"{SVG}title") for r in rects]
    assert titles[0] == f"{lo * 20}\u2013{lo * 20 + 19}: {want[0]} games"


def test_terminations_and_first_moves(client, db):
    doc = get_page(client, "/stats?variant=shogi")
    section = doc.get_element_by_id("variant-shogi")
    ends = bars(svg_of(figure(section, "How the games ended")))
    want = Counter(t or "unknown" for (t,) in sql(db, "SELECT termination FROM games WHERE variant = 'shogi'"))
    assert sorted(v for v, _ in ends) == sorted(want.values())
    assert_proportional(ends)
    labels = [t.text for t in svg_of(figure(section, "How the games ended")).iter(f"{SVG}text")]
    assert "<img src=x onerror=alert(1)>" in labels  # the hostile termination is text
    first = bars(svg_of(figure(section, "Most played first moves")))
    games = sql(db, "SELECT count(*) FROM games WHERE variant = 'shogi' AND ply_count > 0")[0][0]
    assert sum(v for v, _ in first) == games  # fewer than ten different first moves here
    assert_proportional(first)


def test_promotions_and_captures_charts_and_tables(client, db):
    doc = get_page(client, "/stats?variant=chu-kagamigi")
    report = client.get("/api/stats?variant=chu-kagamigi").json["variants"][0]
    section = doc.get_element_by_id("variant-chu-kagamigi")
    for caption, key in (("Promotions", "promotions"), ("Pieces captured", "captures")):
        fig = figure(section, caption)
        shown = bars(svg_of(fig))
        assert len(shown) == min(len(report[key]), 15)
        assert [v for v, _ in shown] == list(report[key].values())[:len(shown)]
        assert_proportional(shown)
        table = [(tr[0].text_content(), int(tr[1].text_content())) for tr in fig.xpath(".//tbody/tr")]
        assert table == list(report[key].items())


def test_players_table_ratings_and_escaping(client, db):
    r = client.get("/stats?variant=shogi")
    doc = html.fromstring(r.data)
    assert not doc.xpath("//script") and not doc.xpath("//img")
    assert b"<script>alert" not in r.data
    report = client.get("/api/stats?variant=shogi").json
    rows = doc.xpath("//table[contains(@class,'players')]//tr[contains(@class,'player')]")
    assert [tr[0].text_content() for tr in rows] == [p["player"] for p in report["players"]]
    assert SCRIPT_NAME in [tr[0].text_content() for tr in rows]
    for tr, p in zip(rows, report["players"]):
        assert tr[1].text_content() == (f"{p['rating']:.0f}" if p["rating"] is not None else "–")
        name = p["player"]
        played = sql(db, "SELECT count(*) FROM games g JOIN players s ON s.id = g.sente_id JOIN players o "
                         "ON o.id = g.gote_id WHERE g.variant = 'shogi' AND (s.name = ? OR o.name = ?)",
                     (name, name))[0][0]
        assert int(tr[3].text_content()) == played
    assert "Elo" in doc.text_content()


def test_filters_and_empty_result(client):
    doc = get_page(client, "/stats?player=nobody")
    assert "No games match" in doc.text_content() and not doc.xpath("//figure")
    doc = get_page(client, "/stats?player=" + urlencode({"": SCRIPT_NAME})[1:])
    assert not doc.xpath("//script")
    assert doc.xpath("//input[@name='player']/@value") == [SCRIPT_NAME]


@pytest.mark.parametrize("query, words", [
    ("variant=no-such-variant", "unknown variant"),
    ("bucket=abc", "whole number"),
    ("bucket=0", "at least 1"),
    ("include_invalid=perhaps", "include_invalid"),
])
def test_bad_parameters(client, query, words):
    r = client.get(f"/stats?{query}")
    assert r.status_code == 400 and words in html.fromstring(r.data).text_content()
    r = client.get(f"/api/stats?{query}")
    assert r.status_code == 400 and words in r.json["error"]["message"]


def test_cached_report_follows_the_archive(db, tmp_path):
    copy = tmp_path / "copy.db"
    shutil.copy(db, copy)
    client = create_app(copy).test_client()
    before = client.get("/api/stats").json
    assert client.get("/api/stats").json == before
    (tmp_path / "more.lsn").write_text(
        '[Variant "shogi"]\n[Sente "Zed"]\n[Gote "Yve"]\n[Result "0-1"]\n\n1. P-a4 P-a6 0-1\n', encoding="utf-8")
    a = Archive(copy)
    import_paths(a, [str(tmp_path / "more.lsn")])
    a.close()
    after = client.get("/api/stats").json
    assert after["games"] == before["games"] + 1
    assert "Zed" in [p["player"] for p in after["players"]]


# --- the charts on their own ----------------------------------------------------------------------


def test_charts_escape_labels_and_stay_well_formed():
    hostile = ['<script>alert(1)</script>', 'a & b', 'ctl\x01\x1bchars', '"quoted"']
    for chart in (charts.bar_chart([(h, i + 1) for i, h in enumerate(hostile)], label=hostile[0]),
                  charts.histogram([(h, i) for i, h in enumerate(hostile)], label=hostile[1], x_label=hostile[0]),
                  charts.stacked_bars([(hostile[0], charts.result_segments({"draws": 2}))], label="r",
                                      legend=[("draws", hostile[3])]),
                  charts.stacked_bar(charts.result_segments({}), label=hostile[2])):
        svg = etree.fromstring(str(chart))
        assert svg.tag == f"{SVG}svg" and svg.get("role") == "img" and svg.get("aria-label")
        assert not svg.xpath("//*[local-name()='script']")
    svg = etree.fromstring(str(charts.bar_chart([(hostile[0], 3)], label="x")))
    assert svg.findtext(f".//{SVG}title") == "<script>alert(1)</script>: 3"


def test_bar_chart_lengths_and_empty_input():
    svg = etree.fromstring(str(charts.bar_chart([("a", 10), ("b", 5), ("c", 0), ("d", 2.5)], label="x")))
    shown = bars(svg)
    assert [v for v, _ in shown] == [10, 5, 0, 2.5]
    assert_proportional(shown)
    assert shown[2][1] == 0
    for empty in (charts.bar_chart([], label="none"), charts.histogram([], label="none")):
        assert etree.fromstring(str(empty)).get("aria-label") == "none"


def test_stacked_bar_segments_are_shares():
    svg = etree.fromstring(str(charts.stacked_bar(charts.result_segments(
        {"sente_wins": 3, "draws": 1, "gote_wins": 4, "unfinished": 0}), label="x", width=200)))
    rects = [r for r in svg.iter(f"{SVG}rect") if r.get("data-key")]
    assert [r.get("data-key") for r in rects] == ["sente_wins", "draws", "gote_wins"]
    assert [float(r.get("width")) for r in rects] == [75, 25, 100]
    assert [float(r.get("x")) for r in rects] == [0, 75, 100]


def test_during_an_import_the_last_complete_report_is_served(db, tmp_path):
    """An import commits games every second: the statistics are not made again for each of
    those states (each took 18 s on a large archive), but served from before the import until
    it has finished."""
    copy = tmp_path / "copy.db"
    shutil.copy(db, copy)
    client = create_app(copy).test_client()
    before = client.get("/api/stats").json
    a = Archive(copy)
    try:
        import_id = a.start_import("more.lsn")  # an import under way: one game committed, more to come
        game = read_game('[Variant "shogi"]\n[Sente "Zed"]\n[Gote "Yve"]\n[Result "0-1"]\n\n1. P-a4 P-a6 0-1\n')
        a.add_game(game, import_id)
        assert client.get("/api/stats").json == before
        assert client.get("/stats").status_code == 200 and client.get("/api/stats").json == before
        a.update_import(import_id, finished=True, games=1, imported=1)
    finally:
        a.close()
    after = client.get("/api/stats").json
    assert after["games"] == before["games"] + 1 and "Zed" in [p["player"] for p in after["players"]]
