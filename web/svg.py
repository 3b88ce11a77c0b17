"""Boards as SVG, built with lxml (never by pasting text into markup).

>>> from daikifu.replay import Board
>>> board = Board("shogi")
>>> board.push(board.parse_uci("c3c4"))
>>> svg = board_svg(board, last=board.peek())          # the position after c3c4, c3 and c4 marked

Layout of the ``<svg>`` (so that pages and ``viewer.js`` can redraw pieces without a new SVG):

* attributes ``data-files``, ``data-ranks``, ``data-cell``, ``data-margin``, ``data-flip`` give the
  geometry: file ``f`` and rank ``r`` (from 0) have their top-left corner at
  ``(margin + X * cell, margin + Y * cell)`` with ``X = f`` and ``Y = ranks - 1 - r`` (Sente at
  the bottom), or ``X = files - 1 - f`` and ``Y = r`` when flipped;
* ``<defs>``: one ``<symbol>`` per piece type (:func:`symbol_id`, with ``data-piece`` holding
  the piece ID), a pentagon pointing up;
* layers ``<g class="squares">`` (one ``<rect data-sq="e5">`` per square, class ``zone`` in a
  promotion zone), ``<g class="zone-lines">`` (``data-after-rank``: the line above that rank,
  counted from 0), ``<g class="coords">`` (``data-file`` / ``data-rank``), ``<g
  class="highlights">`` (rects with ``data-sq`` and class ``hl-from``, ``hl-to``, ``hl-path``,
  ``hl-capture`` or ``hl-error``) and ``<g class="pieces">``: one ``<use class="piece sente|gote"
  data-sq data-piece>`` per piece, the second player's turned 180 degrees (the first player's
  when flipped).

Which position and which move: ``board`` is the position *after* ``last`` was played.  The
squares ``last`` captured are found by taking it back when it is the board's last move
(``board.peek()``); otherwise only its ``kills`` are marked (whether the destination held a piece
is no longer known).

A piece type counts as *promoted* (red label) when it is the promotion of some type and does not
stand in the variant's start position: a type that starts on the board, such as a Lion that is
also a Kirin's promotion, is shown as an ordinary piece.
"""

from __future__ import annotations

import functools
from typing import Iterable

from lxml import etree

from daikifu.replay import FIRST, SECOND, Board, Move
from daikifu.replay.rules import Ruleset
from daikifu.formats.styles import file_labels, rank_labels
from daikifu.replay.squares import square, square_file, square_name, square_rank

__all__ = ["board_svg", "LABEL_MODES", "upright_symbol_id", "piece_symbol_defs", "symbol_id", "piece_label", "promoted_types", "hands",
           "move_highlight", "highlight_squares", "removed_squares"]

SVG_NS = "http://www.w3.org/2000/svg"
PIECE_BOX = 100  # the symbols' own coordinate system (viewBox 0 0 100 100)
# a pentagon pointing up (towards the opponent of the first player), a little inside its square
PENTAGON = "50,7 82,22 90,94 10,94 18,22"
PENTAGON_DOWN = "50,93 82,78 90,6 10,6 18,78"  # the same, pointing down (upright labels)
#: How piece labels are drawn: kanji (IDs where a piece has none), IDs, or IDs upright for both sides.
LABEL_MODES = ("kanji", "ids", "upright")
LABEL_FONT = "'Noto Sans CJK JP', 'Hiragino Mincho ProN', 'Yu Mincho', 'Noto Sans', sans-serif"
# font size in symbol units by label length: longer IDs (LD, +DK, !LD, +FH') get smaller type
LABEL_SIZES = {1: 54, 2: 42, 3: 31, 4: 24}
COLOURS = {
    "square": "#f2d59b", "zone": "#e8c783", "grid": "#8a6a3a", "zone-line": "#5a3d14", "coord": "#5b4a30",
    "piece": "#fdf3dc", "piece-edge": "#6b4f2a", "label": "#1d1d1f", "promoted": "#c0181b",
    "piece-dark": "#3a3129", "label-dark": "#fdf3dc", "promoted-dark": "#ff9a8a",
}
HIGHLIGHT_FILL = {"hl-path": ("#f7e36b", 0.35), "hl-from": ("#f2c94c", 0.55), "hl-to": ("#f2a900", 0.65),
                  "hl-capture": ("#e0523a", 0.55), "hl-error": ("#d0021b", 0.55)}
# drawing order: a square that is both on the path and captured shows the capture
HIGHLIGHT_ORDER = ("hl-path", "hl-from", "hl-to", "hl-capture", "hl-error")


def element(parent, tag: str, **attrs) -> etree._Element:
    """A child SVG element (for every picture the viewer draws: boards, move diagrams, charts);
    attribute names use ``_`` for ``-`` (``data_sq`` -> ``data-sq``), None values are left out."""
    el = etree.SubElement(parent, f"{{{SVG_NS}}}{tag}")
    for name, value in attrs.items():
        if value is not None:
            el.set(name.rstrip("_").replace("_", "-"), str(value))
    return el


# --- pieces ---------------------------------------------------------------------------------------


def symbol_id(rules: Ruleset, type_index: int) -> str:
    """The ``id`` of a piece type's ``<symbol>``: the variant slug and the type's index, since piece
    IDs hold characters (``+``, ``!``, ``'``) that are awkward in ids and URLs."""
    return f"pc-{rules.variant.slug}-{type_index}"


def piece_label(rules: Ruleset, piece_id: str) -> str:
    """What a piece shows: its kanji where the variant gives one, else its ID."""
    piece = rules.type_by_id[piece_id]
    return piece.kanji or piece.id


@functools.lru_cache(maxsize=64)
def promoted_types(rules: Ruleset) -> frozenset:
    """Indices of the types drawn as promoted: a promotion of some type, absent from the start
    (computed once per compiled rule set, which the cache holds: a pure function of it)."""
    in_start = {t for t, _ in rules.parsed_start().pieces.values()}
    return frozenset(t for t in rules.promoted_types if t not in in_start)


def _label_size(label: str) -> int:
    return LABEL_SIZES.get(len(label), max(14, 96 // max(1, len(label))))


def upright_symbol_id(rules: Ruleset, type_index: int, side: int, up: bool) -> str:
    """The ``id`` of a piece type's symbol in upright mode: one per side (its colours) and per way
    the pentagon points (up or down on the screen)."""
    return f"{symbol_id(rules, type_index)}-{'s' if side == FIRST else 'g'}{'u' if up else 'd'}"


def _add_symbols(defs, rules: Ruleset, labels: str = "kanji") -> None:
    """The pieces' symbols: one per type, a pale pentagon pointing up with the kanji (``labels``
    "kanji", IDs where a type has none) or the ID ("ids"), turned for the second player by its
    ``<use>``; or, for "upright", four per type (:func:`upright_symbol_id`) whose IDs always read
    upright, the side told by the pentagon's direction and colour (dark for the second player)."""
    promoted = promoted_types(rules)
    for piece in rules.types:
        label = piece.id if labels != "kanji" else piece.kanji or piece.id
        if labels == "upright":
            for side in (FIRST, SECOND):
                for up in (True, False):
                    _upright_symbol(defs, rules, piece, side, up, piece.index in promoted)
            continue
        symbol = element(defs, "symbol", id=symbol_id(rules, piece.index), viewBox=f"0 0 {PIECE_BOX} {PIECE_BOX}",
                     data_piece=piece.id, class_="promoted" if piece.index in promoted else None)
        element(symbol, "polygon", points=PENTAGON, fill=COLOURS["piece"], stroke=COLOURS["piece-edge"],
            stroke_width=3, stroke_linejoin="round")
        text = element(symbol, "text", x=50, y=60, text_anchor="middle", dominant_baseline="central",
                   font_size=_label_size(label), font_family=LABEL_FONT, font_weight=600,
                   fill=COLOURS["promoted"] if piece.index in promoted else COLOURS["label"])
        text.text = label
        if piece.kanji:  # the viewer can switch to IDs (readers of the IDs, or no Japanese font)
            text.set("data-kanji", piece.kanji)
            text.set("data-id", piece.id)
            text.set("data-id-size", str(_label_size(piece.id)))
            text.set("data-kanji-size", str(_label_size(piece.kanji)))
        element(symbol, "title").text = f"{piece.id} {piece.name}"


def _upright_symbol(defs, rules: Ruleset, piece, side: int, up: bool, promoted: bool) -> None:
    symbol = element(defs, "symbol", id=upright_symbol_id(rules, piece.index, side, up),
                     viewBox=f"0 0 {PIECE_BOX} {PIECE_BOX}", data_piece=piece.id,
                     class_=("promoted " if promoted else "") + ("sente" if side == FIRST else "gote"))
    dark = side == SECOND
    element(symbol, "polygon", points=PENTAGON if up else PENTAGON_DOWN,
            fill=COLOURS["piece-dark"] if dark else COLOURS["piece"], stroke=COLOURS["piece-edge"],
            stroke_width=3, stroke_linejoin="round")
    colour = ("promoted-dark" if dark else "promoted") if promoted else ("label-dark" if dark else "label")
    text = element(symbol, "text", x=50, y=60 if up else 40, text_anchor="middle", dominant_baseline="central",
                   font_size=_label_size(piece.id), font_family=LABEL_FONT, font_weight=600, fill=COLOURS[colour])
    text.text = piece.id
    element(symbol, "title").text = f"{piece.id} {piece.name} ({'Sente' if side == FIRST else 'Gote'})"


def piece_symbol_defs(rules: Ruleset) -> str:
    """A hidden ``<svg>`` holding only the piece symbols of ``rules`` (for pages that draw pieces
    outside a board, e.g. hands); ``board_svg`` includes the same symbols itself."""
    svg = etree.Element(f"{{{SVG_NS}}}svg", nsmap={None: SVG_NS})
    svg.set("width", "0")
    svg.set("height", "0")
    svg.set("aria-hidden", "true")
    svg.set("style", "position:absolute")
    _add_symbols(element(svg, "defs"), rules)
    return etree.tostring(svg, encoding="unicode")


def hands(board: Board) -> list[list[tuple[str, str, int]]]:
    """Pieces in hand as ``[first player's, second player's]``, each a list of
    ``(piece ID, label, count)`` in the variant's piece order (empty lists without drops)."""
    out = []
    for colour in (FIRST, SECOND):
        counts = board.hands[colour]
        out.append([(t.id, t.kanji or t.id, counts[t.index]) for t in board.rules.types if counts[t.index]])
    return out


# --- the last move --------------------------------------------------------------------------------


def _between(a: int, b: int) -> list[int]:
    """The squares strictly between two squares on one rank, file or diagonal (none otherwise:
    a leap has no path)."""
    dx = square_file(b) - square_file(a)
    dy = square_rank(b) - square_rank(a)
    n = max(abs(dx), abs(dy))
    if n < 2 or not (dx == 0 or dy == 0 or abs(dx) == abs(dy)):
        return []
    sx, sy = (dx > 0) - (dx < 0), (dy > 0) - (dy < 0)
    f, r = square_file(a), square_rank(a)
    return [square(f + sx * k, r + sy * k) for k in range(1, n)]


def highlight_squares(move: Move, captured: Iterable[int] = ()) -> dict[str, list[int]]:
    """Squares to mark for ``move``: ``from`` (empty for a drop), ``to``, ``path`` (the squares
    passed over on the straight lines between its stops, stops on the way included) and
    ``captured``.  An igui or a pass stays on its square: ``to`` is the origin."""
    captured = list(captured) or list(move.kills)
    if move.from_square is None:
        return {"from": [], "to": [move.to_square], "path": [], "captured": captured}
    stops = [move.from_square, *move.kills, move.to_square]
    path: list[int] = []
    for a, b in zip(stops, stops[1:]):
        path.extend(_between(a, b))
        if b not in (move.from_square, move.to_square):
            path.append(b)
    ends = {move.from_square, move.to_square}
    path = list(dict.fromkeys(sq for sq in path if sq not in ends))
    return {"from": [move.from_square], "to": [move.to_square], "path": path, "captured": captured}


def removed_squares(board_before: Board, move: Move) -> list[int]:
    """The squares ``move`` empties of a piece, to mark as captured: those it captures, and its
    destination when its own piece is burned there (passive burning, :meth:`Board.burns_mover`)."""
    out = board_before.captured_squares(move)
    if board_before.burns_mover(move) and move.to_square not in out:
        out.append(move.to_square)
    return out


def move_highlight(board_before: Board, move: Move) -> dict[str, list[str]]:
    """:func:`highlight_squares` by square name, for ``move`` in the position before it."""
    squares = highlight_squares(move, removed_squares(board_before, move))
    return {key: [square_name(sq) for sq in value] for key, value in squares.items()}


def _captured_by_last(board: Board, last: Move) -> list[int]:
    if board.move_stack and board.move_stack[-1] == last:
        board.pop()  # taken back and replayed: the position before the move knows its captures
        try:
            return removed_squares(board, last)
        finally:
            board.push(last)
    return list(last.kills)


# --- the board ------------------------------------------------------------------------------------


def board_svg(board: Board, *, last: Move | None = None, flip: bool = False,
              error_square: int | Iterable[int] | None = None, cell: int = 40, coords: bool = True,
              element_id: str | None = None, highlight: dict | None = None, title: str | None = None,
              style: str = "algebraic", labels: str = "kanji") -> str:
    """The position on ``board`` as one ``<svg>`` string (see the module docstring for its layout).

    ``last``: the move that led to the position (marked); ``highlight`` instead gives the marks
    directly (:func:`highlight_squares`' dict, square numbers).  ``error_square``: one square or
    several to mark as the place of an error.  ``flip`` shows the board from the second player's
    side.  ``cell`` is the side of a square in pixels; ``coords`` adds file letters and rank
    numbers.  ``title`` becomes the SVG's accessible name.  ``style`` (:mod:`formats.styles`) names
    the coordinates: algebraic (files a, b, ... below, ranks 1, 2, ... on the left) or, for
    japanese and western, as shogi boards do (files 9..1 above, ranks 一.. or a.. on the right).
    ``labels`` is one of :data:`LABEL_MODES`.
    """
    rules = board.rules
    files, ranks = rules.files, rules.ranks
    margin = round(cell * 0.6) if coords else 2
    width, height = files * cell + 2 * margin, ranks * cell + 2 * margin

    def corner(sq: int) -> tuple[int, int]:
        f, r = square_file(sq), square_rank(sq)
        x = files - 1 - f if flip else f
        y = r if flip else ranks - 1 - r
        return margin + x * cell, margin + y * cell

    svg = etree.Element(f"{{{SVG_NS}}}svg", nsmap={None: SVG_NS})
    least = min_width(rules, cell, width, coords)
    for name, value in (("id", element_id), ("class", "board"), ("style", f"min-width:{least}px"),
                        ("data-min-width", least), ("viewBox", f"0 0 {width} {height}"),
                        ("width", width), ("height", height), ("role", "img"),
                        ("data-variant", rules.variant.slug), ("data-files", files), ("data-ranks", ranks),
                        ("data-cell", cell), ("data-margin", margin), ("data-flip", int(bool(flip))),
                        ("data-labels", labels)):
        if value is not None:
            svg.set(name, str(value))
    element(svg, "title").text = title or f"{rules.variant.name} position"
    _add_symbols(element(svg, "defs"), rules, labels)

    squares = element(svg, "g", class_="squares", stroke=COLOURS["grid"], stroke_width=1)
    element(squares, "rect", x=margin, y=margin, width=files * cell, height=ranks * cell, fill=COLOURS["square"],
        class_="board-bg")
    zone_first, zone_second = rules.zone
    for sq in rules.squares:
        x, y = corner(sq)
        in_zone = zone_first[sq] or zone_second[sq]
        element(squares, "rect", x=x, y=y, width=cell, height=cell, data_sq=square_name(sq),
            class_="sq zone" if in_zone else "sq", fill=COLOURS["zone"] if in_zone else COLOURS["square"])
    _zone_lines(svg, rules, margin, cell, flip)
    if coords:
        _coordinates(svg, rules, margin, cell, flip, style)

    marks = highlight
    if marks is None and last is not None:
        marks = highlight_squares(last, _captured_by_last(board, last))
    marks = dict(marks or {})
    if error_square is not None:
        marks["error"] = [error_square] if isinstance(error_square, int) else list(error_square)
    layer = element(svg, "g", class_="highlights")
    for cls in HIGHLIGHT_ORDER:
        fill, opacity = HIGHLIGHT_FILL[cls]
        for sq in marks.get({"hl-from": "from", "hl-to": "to", "hl-path": "path", "hl-capture": "captured",
                             "hl-error": "error"}[cls], ()):
            x, y = corner(sq)
            element(layer, "rect", x=x, y=y, width=cell, height=cell, data_sq=square_name(sq), class_=cls,
                fill=fill, fill_opacity=opacity)

    pieces = element(svg, "g", class_="pieces")
    inset = round(cell * 0.04)
    size = cell - 2 * inset
    for sq, piece in sorted(board.pieces().items()):
        x, y = corner(sq)
        turned = (piece.colour == SECOND) != bool(flip)
        centre = f"{x + cell / 2:g} {y + cell / 2:g}"
        index = rules.type_by_id[piece.id].index
        if labels == "upright":  # the label stays upright: the symbol itself points the piece's way
            href, transform = upright_symbol_id(rules, index, piece.colour, not turned), None
        else:
            href, transform = symbol_id(rules, index), f"rotate(180 {centre})" if turned else None
        element(pieces, "use", href="#" + href,
            x=x + inset, y=y + inset, width=size, height=size, data_sq=square_name(sq), data_piece=piece.id,
            class_="piece gote" if piece.colour == SECOND else "piece sente", transform=transform)
    return etree.tostring(svg, encoding="unicode")


#: The smallest label on screen, in CSS pixels: a board is never drawn so small that a label is less.
MIN_LABEL_PX = 9


def min_width(rules: Ruleset, cell: int, width: int, coords: bool = True) -> int:
    """The narrowest a board ``width`` units wide may be drawn so that every piece label (kanji
    or ID, the viewer switches between them) and every coordinate is at least
    :data:`MIN_LABEL_PX` tall; a page narrower than that scrolls the board (pan) instead."""
    piece = cell - 2 * round(cell * 0.04)
    smallest = min(min(_label_size(t.id), _label_size(t.kanji or t.id)) for t in rules.types)
    scale = MIN_LABEL_PX * PIECE_BOX / (smallest * piece)
    if coords:
        scale = max(scale, MIN_LABEL_PX / max(9, round(cell * 0.32)))
    return -(-int(width * scale * 100) // 100)  # rounded up


def _zone_lines(svg, rules: Ruleset, margin: int, cell: int, flip: bool) -> None:
    """Thick lines where a promotion zone or a zone of zone-dependent moves begins."""
    ranks, files = rules.ranks, rules.files
    after = set()  # line between rank r and r + 1 (counted from 0)
    depth = rules.rules.get("promotion_zone") or 0
    if 0 < depth < ranks:
        after.update({ranks - depth - 1, depth - 1})
    bound = 0
    for n in list(rules.rules.get("zones") or ())[:-1]:
        bound += n
        after.update({bound - 1, ranks - bound - 1})
    layer = element(svg, "g", class_="zone-lines", stroke=COLOURS["zone-line"], stroke_width=max(2, cell // 16))
    for r in sorted(a for a in after if 0 <= a < ranks - 1):
        y = margin + ((r + 1) if flip else (ranks - 1 - r)) * cell
        element(layer, "line", x1=margin, x2=margin + files * cell, y1=y, y2=y, data_after_rank=r)


def _coordinates(svg, rules: Ruleset, margin: int, cell: int, flip: bool, style: str) -> None:
    files, ranks = rules.files, rules.ranks
    shogi = style != "algebraic"
    layer = element(svg, "g", class_="coords", fill=COLOURS["coord"], font_size=max(9, round(cell * 0.32)),
                font_family=LABEL_FONT if style == "japanese" else "sans-serif", text_anchor="middle",
                dominant_baseline="central", data_style=style)
    file_y = margin / 2 if shogi else margin + ranks * cell + margin / 2
    rank_x = margin + files * cell + margin / 2 if shogi else margin / 2
    for f, label in enumerate(file_labels(rules, style)):
        x = margin + ((files - 1 - f) if flip else f) * cell + cell / 2
        element(layer, "text", x=f"{x:g}", y=f"{file_y:g}", data_file=f).text = label
    for r, label in enumerate(rank_labels(rules, style)):
        y = margin + (r if flip else ranks - 1 - r) * cell + cell / 2
        element(layer, "text", x=f"{rank_x:g}", y=f"{y:g}", data_rank=r).text = label
