"""Pictures to share: a position as SVG or PNG, a game as an animated GIF (a frame per ply).

The pictures are the viewer's boards (:func:`web.svg.board_svg`) at a size where every label is
at least 9 pixels tall (:data:`IMAGE_CELL`), with the pieces in hand written under and over the
board, the last move marked, in the notation style and piece labels asked for.  PNG is rasterised
by CairoSVG (which needs the Cairo library: Debian's ``libcairo2``) and the GIF is put together by
Pillow, so the command line and the viewer's "download image" give the same bytes for the same
options.
"""

from __future__ import annotations

import copy
import functools
import io
import shutil
import subprocess

from lxml import etree

from daikifu.formats.game import Game
from daikifu.formats.styles import move_text

from .svg import LABEL_MODES, PIECE_BOX, SVG_NS, board_svg, element, hands

__all__ = ["IMAGE_FORMATS", "IMAGE_CELL", "MAX_GIF_PLIES", "WEB_GIF_PLIES", "ImageError", "position_svg", "board_picture",
           "picture_bytes", "image_bytes"]

IMAGE_FORMATS = ("svg", "png", "gif")
# a square's side in pixels: a four-letter ID (+FH') is drawn 24/100 of a piece, about 10.6 px here
IMAGE_CELL = 48
MAX_GIF_PLIES = 1000  # a longer game is refused (each frame is a picture of the whole board)
# the viewer draws GIFs of games up to this long: a frame takes 0.15 (9x9) to 0.35 s (16x16) of CPU,
# so a 400-ply game is about two minutes of one core, once (the answer is cached)
WEB_GIF_PLIES = 400
FRAME_MS, LAST_FRAME_MS = 900, 3000
HAND_ROW = 30  # the height of a row of pieces in hand


class ImageError(ValueError):
    """A picture that cannot be made as asked (a ply the game does not have, a format, a size)."""


def _board_at(game: Game, ply: int | None):
    moves = game.mainline_moves()
    if ply is None:
        ply = len(moves)
    if not 0 <= ply <= len(moves):
        raise ImageError(f"ply {ply}: the game has plies 0 to {len(moves)}")
    board = game.start_board()
    for move in moves[:ply]:
        board.push(move)
    return board, (moves[ply - 1] if ply else None)


def _hand_row(parent, board, colour: int, y: float, width: int, labels: str) -> None:
    items = hands(board)[colour]
    mark = "☗" if colour == 0 else "☖"
    text = " ".join((pid if labels != "kanji" else label) + (str(n) if n > 1 else "") for pid, label, n in items)
    element(parent, "text", x=8, y=f"{y:g}", font_size=18, dominant_baseline="central",
            font_family="'Noto Sans CJK JP', 'IPAGothic', sans-serif", fill="#1d1d1f",
            class_="hand").text = f"{mark} {text or '-'}"


def position_svg(game: Game, ply: int | None = None, *, style: str = "algebraic", labels: str = "kanji",
                 flip: bool = False) -> str:
    """The position after ``ply`` plies of the main line (default: its end) as one SVG, the last
    move marked, the pieces in hand (variants with drops) written in a row above and below."""
    board, last = _board_at(game, ply)
    caption = f"{game.variant.name}, ply {board.ply}"
    if last is not None:
        before = board.copy()
        before.pop()
        caption += f": {move_text(before, last, style)}"
    return board_picture(board, last, caption, style=style, labels=labels, flip=flip)


def board_picture(board, last=None, caption: str = "", *, style: str = "algebraic", labels: str = "kanji",
                  flip: bool = False) -> str:
    """The position on ``board`` as one SVG (``last``: the move that led to it, marked), the
    pieces in hand in a row above and below, ``caption`` at the foot."""
    if labels not in LABEL_MODES:
        raise ImageError(f"labels {labels!r}: expected one of {', '.join(LABEL_MODES)}")
    if labels == "kanji" and not any(t.kanji for t in board.rules.types):
        labels = "upright"  # IDs without kanji: upright, as the viewer shows them first
    caption = caption or board.variant.name
    inner = etree.fromstring(board_svg(board, last=last, flip=flip, cell=IMAGE_CELL, style=style, labels=labels,
                                       title=caption))
    width, height = int(inner.get("width")), int(inner.get("height"))
    drops = board.rules.drops
    top = HAND_ROW if drops else 0
    total = height + 2 * top + HAND_ROW  # and a caption line at the foot
    svg = etree.Element(f"{{{SVG_NS}}}svg", nsmap={None: SVG_NS})
    for name, value in (("width", width), ("height", total), ("viewBox", f"0 0 {width} {total}")):
        svg.set(name, str(value))
    element(svg, "rect", x=0, y=0, width=width, height=total, fill="#ffffff")
    inner.set("y", str(top))
    svg.append(inner)
    if drops:
        first, second = (1, 0) if not flip else (0, 1)
        _hand_row(svg, board, first, top / 2, width, labels)
        _hand_row(svg, board, second, top + height + top / 2, width, labels)
    element(svg, "text", x=8, y=f"{total - HAND_ROW / 2:g}", font_size=16, dominant_baseline="central",
            font_family="'Noto Sans CJK JP', 'IPAGothic', sans-serif", fill="#5b4a30").text = caption
    return etree.tostring(svg, encoding="unicode")


@functools.lru_cache(maxsize=1)
def raster_font() -> str:
    """A font family with Japanese glyphs, as fontconfig finds one ("sans-serif" without it).
    CairoSVG draws a text in the first family its font-family lists and falls back on no other
    for a missing glyph, so the PNG's kanji need a family that has them named first."""
    fc_match = shutil.which("fc-match")
    if fc_match:
        try:
            found = subprocess.run([fc_match, "-f", "%{family[0]}", "sans-serif:lang=ja"], capture_output=True,
                                   text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            found = ""
        if found:
            return found
    return "sans-serif"


def _inline_pieces(tree) -> None:
    """Each piece's ``<use>`` replaced by a copy of its symbol's drawing, and the symbols dropped:
    CairoSVG draws the same picture in about half the time (a 16x16 board: 0.2 -> 0.12 s)."""
    symbols = {s.get("id"): s for s in tree.iter(f"{{{SVG_NS}}}symbol")}
    for use in list(tree.iter(f"{{{SVG_NS}}}use")):
        symbol = symbols.get(use.get("href", "").lstrip("#"))
        if symbol is None:
            continue
        size = float(use.get("width")) / PIECE_BOX
        placed = f"translate({float(use.get('x')):g} {float(use.get('y')):g}) scale({size:g})"
        group = etree.Element(f"{{{SVG_NS}}}g", transform=" ".join(filter(None, (use.get("transform"), placed))))
        group.extend(copy.deepcopy(child) for child in symbol if child.tag != f"{{{SVG_NS}}}title")
        use.getparent().replace(use, group)
    for symbol in symbols.values():
        symbol.getparent().remove(symbol)


def _png(svg: str) -> bytes:
    import cairosvg  # (imported here: only pictures need Cairo)
    tree = etree.fromstring(svg.encode("utf-8"))
    _inline_pieces(tree)
    family = f"'{raster_font()}'"
    for text in tree.iter(f"{{{SVG_NS}}}text", f"{{{SVG_NS}}}g"):
        if text.get("font-family"):
            text.set("font-family", family)
    return cairosvg.svg2png(bytestring=etree.tostring(tree))


def _gif(game: Game, style: str, labels: str, flip: bool) -> bytes:
    from PIL import Image

    plies = len(game.mainline_moves())
    if plies > MAX_GIF_PLIES:
        raise ImageError(f"the game has {plies} plies: a GIF is made of games up to {MAX_GIF_PLIES}")
    frames = []
    board, moves = game.start_board(), game.mainline_moves()
    for n in range(plies + 1):  # (one walk through the game: the picture of ply n from the board at n)
        caption = f"{game.variant.name}, ply {n}"
        if n:
            caption += f": {move_text(board, moves[n - 1], style)}"
            board.push(moves[n - 1])
        svg = board_picture(board, moves[n - 1] if n else None, caption, style=style, labels=labels, flip=flip)
        picture = Image.open(io.BytesIO(_png(svg)))
        picture = picture.convert("RGB")
        # one palette for every frame (the first's): the frames then differ only where a move did,
        # and Pillow stores each as the box that changed
        frames.append(picture.quantize(colors=96, method=Image.Quantize.MEDIANCUT) if not frames
                      else picture.quantize(palette=frames[0], dither=Image.Dither.NONE))
    out = io.BytesIO()
    durations = [FRAME_MS] * plies + [LAST_FRAME_MS]
    # optimize=False and disposal 1: each frame whole, so that Pillow keeps a frame per ply
    frames[0].save(out, format="GIF", save_all=True, append_images=frames[1:], duration=durations, loop=0,
                   optimize=False, disposal=1)
    return out.getvalue()


def picture_bytes(svg: str, fmt: str) -> bytes:
    """One picture (:func:`board_picture`) as ``fmt``: "svg" or "png"."""
    if fmt == "svg":
        return svg.encode("utf-8")
    if fmt == "png":
        return _png(svg)
    raise ImageError(f"image format {fmt!r}: expected svg or png")


def image_bytes(game: Game, fmt: str, ply: int | None = None, *, style: str = "algebraic",
                labels: str = "kanji", flip: bool = False) -> bytes:
    """The picture as bytes: ``fmt`` "svg" or "png" (the position after ``ply`` plies), or "gif"
    (the whole main line, a frame per ply and the start; ``ply`` is not used)."""
    if fmt == "svg":
        return position_svg(game, ply, style=style, labels=labels, flip=flip).encode("utf-8")
    if fmt == "png":
        return _png(position_svg(game, ply, style=style, labels=labels, flip=flip))
    if fmt == "gif":
        return _gif(game, style, labels, flip)
    raise ImageError(f"image format {fmt!r}: expected one of {', '.join(IMAGE_FORMATS)}")
