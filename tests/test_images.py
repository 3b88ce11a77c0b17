"""Pictures to share (web/images.py): `daikifu image` and the viewer's "download image" give the
same SVG, PNG and GIF, which Pillow opens at the size and with the frames they should have."""

from __future__ import annotations

import io
import json

import pytest
from click.testing import CliRunner
from lxml import etree, html
from PIL import Image

from daikifu.archive.importer import import_paths
from daikifu.archive.store import Archive
from daikifu.cli import main
from daikifu.web import create_app
from daikifu.web.images import IMAGE_CELL
from daikifu.web.svg import LABEL_SIZES, PIECE_BOX

SHOGI = '[Variant "shogi"]\n[Sente "A"]\n[Gote "B"]\n\n1. P-c4 P-g6 2. Bxh8+ Sxh8 3. B*e5 *\n'
PLIES = 5


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    d = tmp_path_factory.mktemp("images")
    (d / "shogi.lsn").write_text(SHOGI, encoding="utf-8")
    big = d / "big.lsn"  # a 16x16 game (Dai Mitregi) from the sample
    sample = __import__("pathlib").Path(__file__).resolve().parents[1] / "data" / "sample" / "dai-mitregi.lsn"
    big.write_text(sample.read_text(encoding="utf-8").split("\n\n[Variant", 1)[0] + "\n", encoding="utf-8")
    db = d / "images.db"
    with Archive(db) as a:
        import_paths(a, [str(d / "shogi.lsn"), str(big)])
        ids = {r["variant"]: r["id"] for r in a.games(status="all")}
    return db, ids, create_app(db).test_client()


def run(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exit_code == 0, result.output
    return result


@pytest.mark.parametrize("fmt", ["svg", "png"])
def test_a_position_picture_is_the_same_from_the_command_and_the_viewer(archive, tmp_path, fmt):
    db, ids, client = archive
    out = tmp_path / f"pos.{fmt}"
    facts = json.loads(run("image", ids["shogi"], "--ply", 3, "-o", out, "--db", db, "--json").output)
    assert facts["format"] == fmt and facts["ply"] == 3 and facts["style"] == "japanese"
    r = client.get(f"/games/{ids['shogi']}/image.{fmt}?ply=3")
    assert r.status_code == 200 and r.data == out.read_bytes()
    if fmt == "png":
        picture = Image.open(io.BytesIO(r.data))
        svg = etree.fromstring(client.get(f"/games/{ids['shogi']}/image.svg?ply=3").data)
        assert picture.format == "PNG" and picture.size == (int(svg.get("width")), int(svg.get("height")))
    else:
        svg = etree.fromstring(r.data)
        # the last move (ply 3, Bxh8+ takes the Silver back... a drop on ply 5) is marked, the
        # coordinates are the shogi player's (files 9..1, ranks 一..九) and the hands are written
        assert svg.xpath("//*[local-name()='rect'][@class='hl-to']")
        assert [t.text for t in svg.xpath("//*[local-name()='text'][@data-file]")][:2] == ["9", "8"]
        assert "▲同　銀" not in r.data.decode() and "ply 3: ▲２二角成" in r.data.decode()


def test_a_gif_has_a_frame_per_ply_and_the_start(archive, tmp_path):
    db, ids, client = archive
    out = tmp_path / "game.gif"
    facts = json.loads(run("image", ids["shogi"], "--gif", "-o", out, "--db", db, "--json").output)
    assert facts["frames"] == PLIES + 1
    picture = Image.open(out)
    assert picture.format == "GIF" and picture.n_frames == PLIES + 1
    png = Image.open(io.BytesIO(client.get(f"/games/{ids['shogi']}/image.png").data))
    assert picture.size == png.size
    assert client.get(f"/games/{ids['shogi']}/image.gif").data == out.read_bytes()


def test_a_16x16_picture_keeps_every_label_at_least_9_px(archive, tmp_path):
    db, ids, client = archive
    svg = etree.fromstring(client.get(f"/games/{ids['dai-mitregi']}/image.svg?ply=0&labels=upright").data)
    board = svg.xpath("//*[local-name()='svg'][@class='board']")[0]
    assert (int(board.get("data-files")), int(board.get("data-cell"))) == (16, IMAGE_CELL)
    # a piece is drawn cell - 2 * inset wide; its label's size is in symbol units (PIECE_BOX)
    piece = IMAGE_CELL - 2 * round(IMAGE_CELL * 0.04)
    sizes = [float(t.get("font-size")) * piece / PIECE_BOX for t in board.xpath(".//*[local-name()='symbol']/*[local-name()='text']")]
    assert min(sizes) >= 9 and min(LABEL_SIZES.values()) * piece / PIECE_BOX >= 9
    coords = [float(t.getparent().get("font-size")) for t in board.xpath(".//*[@data-file]")]
    assert min(coords) >= 9
    png = Image.open(io.BytesIO(client.get(f"/games/{ids['dai-mitregi']}/image.png?ply=0").data))
    assert png.size[0] == int(svg.get("width"))


def test_bad_picture_requests_say_what_is_wrong(archive, tmp_path):
    db, ids, client = archive
    assert client.get(f"/games/{ids['shogi']}/image.png?ply=99").status_code == 400
    assert client.get(f"/games/{ids['shogi']}/image.png?labels=big").status_code == 400
    assert client.get(f"/games/{ids['shogi']}/image.bmp").status_code == 404
    bad = CliRunner().invoke(main, ["image", str(ids["shogi"]), "--ply", "99", "-o", str(tmp_path / "x.png"),
                                    "--db", str(db)])
    assert bad.exit_code == 2 and "has 5 plies" in bad.output  # a value the command line cannot use
    wrong = CliRunner().invoke(main, ["image", str(ids["shogi"]), "-o", str(tmp_path / "x.bmp"), "--db", str(db)])
    assert wrong.exit_code == 2 and ".svg, .png or .gif" in wrong.output


def test_the_game_page_links_its_pictures(archive):
    db, ids, client = archive
    doc = html.fromstring(client.get(f"/games/{ids['shogi']}?ply=2").data)
    links = {a.get("id"): a.get("href") for a in doc.xpath("//*[@id='image-downloads']//a")}
    assert links["image-png"].startswith(f"/games/{ids['shogi']}/image.png?") and "ply=2" in links["image-png"]
    assert client.get(links["image-png"]).data == client.get(f"/games/{ids['shogi']}/image.png?ply=2&style=japanese").data


def test_every_board_page_links_a_picture_of_its_position(archive):
    db, ids, client = archive
    for url in ("/positions?variant=shogi", "/variants/chu-shogi"):
        doc = html.fromstring(client.get(url).data)
        png = doc.get_element_by_id("image-png").get("href")
        r = client.get(png)
        assert r.status_code == 200 and r.mimetype == "image/png"
        picture = Image.open(io.BytesIO(r.data))
        svg = etree.fromstring(client.get(doc.get_element_by_id("image-svg").get("href")).data)
        assert picture.size == (int(svg.get("width")), int(svg.get("height")))
    assert client.get("/positions/image.png?variant=shogi&labels=big").status_code == 400
    assert client.get("/positions/image.png").status_code == 400  # no position named
