"""Piece move diagrams: where a piece of the first player can go from the middle of an empty board.

>>> from daikifu.replay import compile_rules, load_variant
>>> rules = compile_rules(load_variant("shogi"))
>>> diagram = piece_moves(rules, "N")
>>> sorted(diagram.targets)
[(-1, 2), (1, 2)]
>>> svg = diagram_svg(diagram)                       # doctest: +SKIP

Nothing here reads XBetza.  The moves come from the compiled rule set
(:class:`replay.rules.Ruleset`): its leap and slide tables give steps, jumps and slides with
their modes directly; every other move (multi-step Lion moves, hoppers, two-stage and zig-zag
generators ...) comes from running the piece's generators on a small board of our own:

* empty, to learn where the piece can move (and whether it may pass);
* with one enemy piece, on each square in reach in turn, to learn where it can capture (ending
  there or on the way: a Lion-type move), what it captures without moving (igui), and where it
  lands only because a piece stands in its way (a hop).

The diagram is 9x9 unless the piece reaches further: then up to 15x15.  Slides that go on past the
edge end in an arrow.  A piece whose moves depend on the zone it stands in (``betza_zones``) has one
diagram per zone (:func:`zones_of`).

SVG layout (for pages and tests): ``<svg class="move-diagram" data-piece data-radius [data-zone]>``
holding ``<g class="targets">`` with one ``<rect class="target ..." data-dx data-dy data-move
data-capture data-screened data-ways>`` per square the piece can reach (``dx`` towards higher
files, ``dy`` forward, both from the piece), ``<g class="igui">`` with ``<circle data-dx data-dy>``
per square it can capture without moving, ``<g class="rays">`` (``data-dx``/``data-dy`` direction,
``data-beyond="1"`` when the slide goes on past the edge) and the piece itself in ``<g
class="piece">``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from lxml import etree

from daikifu.replay.generators import UNBOUNDED, PatternGenerator
from daikifu.replay.rules import CAPTURE, EMPTY, MOVE, OFF, Ruleset
from daikifu.replay.squares import CELLS, STRIDE, square

from .svg import PENTAGON, SVG_NS, element as _el

__all__ = ["Target", "Ray", "MoveDiagram", "piece_moves", "zones_of", "diagram_svg", "legend_svg",
           "WAYS"]

RADIUS_MIN = 4  # 9x9: every shogi piece fits
RADIUS_MAX = 7  # 15x15: the largest diagram
CENTRE = square(RADIUS_MAX, RADIUS_MAX)  # the piece's square on our own board
ENEMY = 3  # any piece code of the second player (type 1, colour 1): the generators only look at the colour

#: How a square is reached, most plain first: the marker drawn is the first that applies.
WAYS = {
    "step": "a step or a jump",
    "jump": "a slide that may also capture past pieces of lower rank (a range jump)",
    "burn": "only by burning: the piece ends its move next to it",
    "slide": "a slide",
    "multi": "only by a move of several steps (the second step of a Lion-type move)",
    "initial": "only on the piece's first move",
    "special": "only by a special move that XBetza cannot write: see the description",
    "hop": "only by hopping over a piece on the way",
}
COLOURS = {"both": "#2d5f8b", "move": "#4f8f3a", "capture": "#b00020", "grid": "#b9a27a",
           "cell": "#fbf1da", "burn": "#d9480f", "tint-both": "#cfe0f0", "tint-move": "#dcefd3", "tint-capture": "#f5d3d3",
           "tint-screened": "#ece4f5", "piece": "#fdf3dc", "piece-edge": "#6b4f2a", "label": "#1d1d1f"}


@dataclass
class Target:
    """One square the piece can reach."""

    move: bool = False  # it may move there when the square is empty (and nothing is in the way)
    capture: bool = False  # it may capture a piece standing there (ending there or on the way)
    screened: bool = False  # it may move there only when a piece stands in its way (hop, jump)
    ways: set = field(default_factory=set)  # keys of WAYS

    @property
    def mode(self) -> str:
        """``both``, ``move`` (move only), ``capture`` (capture only) or ``screened``."""
        if self.move and self.capture:
            return "both"
        if self.move:
            return "move"
        if self.capture:
            return "capture"
        return "screened"

    @property
    def way(self) -> str:
        return next((w for w in WAYS if w in self.ways), "step")


@dataclass
class Ray:
    """A slide in one direction: the mode bits (MOVE | CAPTURE) of each square shown on it."""

    direction: tuple[int, int]
    modes: tuple[int, ...]
    beyond: bool  # it goes on past the edge of the diagram


@dataclass
class MoveDiagram:
    piece_id: str
    label: str  # what the piece shows: kanji or ID
    zone: int | None  # 0-based zone of zone-dependent moves, None for a piece without zones
    radius: int  # the diagram has 2 * radius + 1 squares a side
    targets: dict  # (dx, dy) -> Target
    rays: list
    igui: set  # (dx, dy) it can capture without moving
    passes: bool  # it may pass: step out and back to its empty square
    unbounded: bool  # a special move of unlimited length may go on past the diagram

    @property
    def size(self) -> int:
        return 2 * self.radius + 1

    def destinations(self) -> set:
        """Squares it can move to or capture on, as (dx, dy)."""
        return {d for d, t in self.targets.items() if t.move or t.capture}


def zones_of(rules: Ruleset, piece_id: str) -> list[int | None]:
    """The zones to draw a diagram for: ``[None]`` unless the piece's moves depend on its zone."""
    code = rules.type_by_id[piece_id].index * 2
    return [None] if rules.zoned[code] is None else list(range(len(rules.rules["zones"])))


def _table(rules: Ruleset, code: int, zone: int | None) -> int:
    """The compiled table index of the first player's piece standing in ``zone``."""
    if zone is None or rules.zoned[code] is None:
        return code
    sq = next(s for s in rules.squares if rules.zone_of[0][s] == zone)
    return rules.zoned[code][sq]


def _vector(offset: int) -> tuple[int, int]:
    """(dx, dy) of a square difference ``dx + dy * STRIDE`` (|dx| < STRIDE / 2)."""
    dy = (offset + STRIDE // 2) // STRIDE
    return offset - dy * STRIDE, dy


def _distance(v) -> int:
    return max(abs(v[0]), abs(v[1]))


def _empty_board() -> list[int]:
    """Our own empty board: 15x15 squares around CENTRE."""
    b = [OFF] * CELLS
    for sq in _around(RADIUS_MAX):
        b[sq] = EMPTY
    b[CENTRE] = EMPTY
    return b


def _around(reach: int) -> list[int]:
    """The squares at most ``reach`` squares from CENTRE, CENTRE itself left out."""
    return [square(RADIUS_MAX + dx, RADIUS_MAX + dy) for dy in range(-reach, reach + 1)
            for dx in range(-reach, reach + 1) if dx or dy]


def _way_of(generator) -> str:
    if not isinstance(generator, PatternGenerator):
        return "special"  # a named generator of the variant file (two-stage, zig-zag)
    pattern = generator.pattern
    if pattern.initial_only:
        return "initial"
    if pattern.is_multi_leg:
        return "multi"
    if pattern.is_hopper:
        return "hop"
    return "step"  # lame or jumping leapers, riders of leapers: squares like any leap


@lru_cache(maxsize=4096)
def piece_moves(rules: Ruleset, piece_id: str, zone: int | None = None) -> MoveDiagram:
    """Where the first player's ``piece_id`` can go from the middle of an empty board (in ``zone``
    for zone-dependent moves).  Cached: rule sets are cached by :func:`replay.compile_rules`."""
    piece = rules.type_by_id[piece_id]
    idx = _table(rules, piece.index * 2, zone)
    targets: dict = {}

    def target(v) -> Target:
        return targets.setdefault(v, Target())

    for offset, modes in rules.leaps[idx]:
        t = target(_vector(offset))
        t.move |= bool(modes & MOVE)
        t.capture |= bool(modes & CAPTURE)
        t.ways.add("step")
    rays = []
    for offset, modes in rules.rays[idx]:
        unit = _vector(offset)
        for k, m in enumerate(modes[:RADIUS_MAX], start=1):
            if m:
                t = target((unit[0] * k, unit[1] * k))
                t.move |= bool(m & MOVE)
                t.capture |= bool(m & CAPTURE)
                t.ways.add("step" if len(modes) == 1 else "slide")
        if len(modes) > 1:
            rays.append((unit, modes))

    igui, passes, unbounded = set(), False, False
    board = _empty_board()
    for g in rules.complex[idx]:
        way = _way_of(g)
        unbounded |= g.reach >= UNBOUNDED
        moves = _effects(g, board)
        for to, _kills in moves:
            if to == CENTRE:
                passes |= rules.null_move
                continue
            t = target(_relative(to))
            t.move = True
            t.ways.add(way)
        # one enemy piece at a time on every square in reach: what it captures, and where it
        # lands only because a piece stands in its way
        reach = min(g.reach, RADIUS_MAX)
        inner = getattr(g, "inner", None)  # a burning piece's own moves (Burning)
        for sq in _around(reach):
            board[sq] = ENEMY
            taken = None
            if inner is not None:  # the squares its moves take, as opposed to those it burns
                taken = {s for ig in inner for to, kills in _effects(ig, board) for s in (to, *kills)}
            for to, kills in _effects(g, board):
                if to == CENTRE and kills:
                    igui.add(_relative(sq))
                if sq in kills or to == sq:
                    t = target(_relative(sq))
                    t.capture = True
                    if taken is not None and sq not in taken:
                        t.ways.add("burn")
                        continue
                    t.ways.add("multi" if kills and way == "step" else way)
                elif to != CENTRE and (to, kills) not in moves:
                    t = target(_relative(to))
                    t.screened = True
                    t.ways.add("hop" if way == "step" else way)
            board[sq] = EMPTY
        if hasattr(g, "vectors") and hasattr(g, "own"):  # a range jump: captures past a lower piece
            _mark_jumps(g, board, target)

    finite = [_distance(v) for v, t in targets.items()
              if not any(_distance(v) <= len(m) and _on(v, u) for u, m in rays if len(m) >= _longest(rules))]
    radius = max(RADIUS_MIN, min(RADIUS_MAX, max(finite, default=0)))
    if unbounded and targets:
        radius = RADIUS_MAX  # show as much of an unlimited special move as fits
    shown = {v: t for v, t in targets.items() if _distance(v) <= radius}
    ray_list = [Ray(u, tuple(m[:radius]), len(m) > radius) for u, m in rays]
    return MoveDiagram(piece.id, piece.kanji or piece.id, zone if rules.zoned[piece.index * 2] is not None else None,
                       radius, shown, ray_list, {v for v in igui if _distance(v) <= radius}, passes,
                       unbounded and bool(targets))


def _mark_jumps(g, board, target) -> None:
    """Mark the squares a range-jumping generator ``g`` captures on past a piece of lower rank: a
    friendly piece of the lowest rank next to it in each direction, an enemy one of the lowest
    rank on each square beyond."""
    low = next((code for code in range(2, len(g.rank), 2) if g.rank[code] < g.own), None)
    if low is None:
        return
    for ux, uy in g.vectors:
        screen = square(RADIUS_MAX + ux, RADIUS_MAX + uy)
        board[screen] = low
        for k in range(2, RADIUS_MAX + 1):
            sq = square(RADIUS_MAX + ux * k, RADIUS_MAX + uy * k)
            board[sq] = low + 1
            if any(to == sq for to, _ in _effects(g, board)):
                t = target((ux * k, uy * k))
                t.capture = True
                t.ways.add("jump")
            board[sq] = EMPTY
        board[screen] = EMPTY


def _longest(rules: Ruleset) -> int:
    """The length of an unlimited slide in the compiled tables (the board's longer side)."""
    return max(rules.files, rules.ranks)


def _on(v, unit) -> bool:
    """Whether square ``v`` lies on the slide from the piece in direction ``unit``."""
    k = _distance(v)
    return k > 0 and (unit[0] * k, unit[1] * k) == v


def _relative(sq: int) -> tuple[int, int]:
    return _vector(sq - CENTRE)


def _effects(generator, board) -> set:
    """Every ``(to, kills)`` of one generator from CENTRE (first player; a piece that has not moved)."""
    out: set = set()
    generator.targets(board, CENTRE, 0, out, 2 * RADIUS_MAX + 1, {CENTRE})
    return out


# --- drawing --------------------------------------------------------------------------------------


def _square_words(v) -> str:
    dx, dy = v
    parts = []
    if dy:
        parts.append(f"{abs(dy)} {'forward' if dy > 0 else 'back'}")
    if dx:
        parts.append(f"{abs(dx)} {'right' if dx > 0 else 'left'}")
    return ", ".join(parts)


_MODE_WORDS = {"both": "moves or captures", "move": "moves only (no capture)", "capture": "captures only",
               "screened": "moves only when hopping over a piece"}


def _marker(parent, way: str, mode: str, cx: float, cy: float, cell: float) -> None:
    """The mark of one square: its shape says how it is reached, its fill whether it captures."""
    colour = COLOURS[mode] if mode != "screened" else COLOURS["move"]
    hollow = mode in ("move", "screened")
    paint = {"fill": "#fff" if hollow else colour, "stroke": colour, "stroke_width": f"{max(1.5, cell / 12):g}"}
    r = cell * 0.2
    if mode == "capture" and way in ("step", "slide"):
        # capture only: a cross, readable without colour
        _el(parent, "path", d=f"M{cx - r:g},{cy - r:g}L{cx + r:g},{cy + r:g}M{cx - r:g},{cy + r:g}L{cx + r:g},{cy - r:g}",
            stroke=colour, stroke_width=max(2, cell / 8), fill="none", class_="mark cross")
    elif way == "step":
        _el(parent, "circle", cx=f"{cx:g}", cy=f"{cy:g}", r=f"{r:g}", class_="mark dot", **paint)
    elif way == "slide":
        _el(parent, "circle", cx=f"{cx:g}", cy=f"{cy:g}", r=f"{r * 0.55:g}", class_="mark slide", **paint)
    elif way == "multi":
        _el(parent, "polygon", points=f"{cx:g},{cy - r * 1.3:g} {cx + r * 1.3:g},{cy:g} {cx:g},{cy + r * 1.3:g} "
                                      f"{cx - r * 1.3:g},{cy:g}", class_="mark diamond", **paint)
    elif way == "jump":  # a ring round a dot: it captures here past lower pieces
        _el(parent, "circle", cx=f"{cx:g}", cy=f"{cy:g}", r=f"{r * 1.35:g}", class_="mark jump-ring", fill="none",
            stroke=colour, stroke_width=paint["stroke_width"])
        _el(parent, "circle", cx=f"{cx:g}", cy=f"{cy:g}", r=f"{r * 0.55:g}", class_="mark jump", **paint)
    elif way == "burn":  # a flame-coloured octagon: burned when the piece ends next to it
        k = r * 1.2
        pts = " ".join(f"{cx + dx * k:g},{cy + dy * k:g}" for dx, dy in
                       ((-0.4, -1), (0.4, -1), (1, -0.4), (1, 0.4), (0.4, 1), (-0.4, 1), (-1, 0.4), (-1, -0.4)))
        _el(parent, "polygon", points=pts, class_="mark burn", fill=COLOURS["burn"], stroke=COLOURS["burn"])
    elif way == "special" or way == "initial":
        _el(parent, "polygon", points=f"{cx:g},{cy - r * 1.2:g} {cx + r * 1.2:g},{cy + r:g} {cx - r * 1.2:g},{cy + r:g}",
            class_=f"mark triangle {way}", **paint)
    else:  # hop
        _el(parent, "rect", x=f"{cx - r:g}", y=f"{cy - r:g}", width=f"{2 * r:g}", height=f"{2 * r:g}",
            class_="mark box", **paint)


def diagram_svg(diagram: MoveDiagram, *, cell: int = 24, title: str | None = None) -> str:
    """The diagram as one ``<svg>`` string (layout in the module docstring)."""
    n, r = diagram.size, diagram.radius
    margin = 2
    side = n * cell + 2 * margin

    def centre(v) -> tuple[float, float]:
        return margin + (v[0] + r) * cell + cell / 2, margin + (r - v[1]) * cell + cell / 2

    svg = etree.Element(f"{{{SVG_NS}}}svg", nsmap={None: SVG_NS})
    for name, value in (("class", "move-diagram"), ("viewBox", f"0 0 {side} {side}"), ("width", side),
                        ("height", side), ("role", "img"), ("data-piece", diagram.piece_id),
                        ("data-radius", r), ("data-zone", diagram.zone)):
        if value is not None:
            svg.set(name, str(value))
    zone = f" in zone {diagram.zone + 1}" if diagram.zone is not None else ""
    _el(svg, "title").text = title or f"Moves of {diagram.piece_id}{zone}"

    # the grid: one square and one path (a diagram per piece, dozens per page: keep them small)
    grid = _el(svg, "g", class_="cells", stroke=COLOURS["grid"], stroke_width=1)
    _el(grid, "rect", x=margin, y=margin, width=n * cell, height=n * cell, fill=COLOURS["cell"])
    far = margin + n * cell
    lines = "".join(f"M{margin + k * cell},{margin}V{far}M{margin},{margin + k * cell}H{far}" for k in range(1, n))
    _el(grid, "path", d=lines, fill="none")

    layer = _el(svg, "g", class_="targets")
    for v, t in sorted(diagram.targets.items()):
        cx, cy = centre(v)
        rect = _el(layer, "rect", x=f"{cx - cell / 2:g}", y=f"{cy - cell / 2:g}", width=cell, height=cell,
                   fill=COLOURS["tint-" + t.mode], class_=f"target {t.mode} {t.way}", data_dx=v[0], data_dy=v[1],
                   data_move=int(t.move), data_capture=int(t.capture), data_screened=int(t.screened),
                   data_ways=" ".join(w for w in WAYS if w in t.ways))
        _el(rect, "title").text = f"{_square_words(v)}: {_MODE_WORDS[t.mode]} ({WAYS[t.way]})"

    rays = _el(svg, "g", class_="rays", stroke_linecap="round")
    width = max(2, cell / 10)
    for ray in diagram.rays:
        ux, uy = ray.direction
        group = _el(rays, "g", data_dx=ux, data_dy=uy, data_beyond=int(ray.beyond))
        x0, y0 = centre((0, 0))
        for k, m in enumerate(ray.modes, start=1):
            x1, y1 = centre((ux * k, uy * k))
            mode = {MOVE | CAPTURE: "both", MOVE: "move", CAPTURE: "capture"}.get(m)
            _el(group, "line", x1=f"{x0:g}", y1=f"{y0:g}", x2=f"{x1:g}", y2=f"{y1:g}",
                stroke=COLOURS[mode] if mode else COLOURS["grid"], stroke_width=f"{width:g}",
                stroke_dasharray="4 3" if mode == "move" else None)
            x0, y0 = x1, y1
        if ray.beyond:
            _arrowhead(group, x0, y0, ux, uy, cell, COLOURS["both"])

    marks = _el(svg, "g", class_="marks")
    for v, t in sorted(diagram.targets.items()):
        _marker(marks, t.way, t.mode, *centre(v), cell)

    igui = _el(svg, "g", class_="igui", fill="none", stroke=COLOURS["capture"], stroke_width=f"{max(1.5, cell / 14):g}")
    for v in sorted(diagram.igui):
        cx, cy = centre(v)
        _el(igui, "circle", cx=f"{cx:g}", cy=f"{cy:g}", r=f"{cell * 0.42:g}", data_dx=v[0], data_dy=v[1])

    piece = _el(svg, "g", class_="piece", data_passes=int(diagram.passes))
    cx, cy = centre((0, 0))
    box = _el(piece, "svg", x=f"{cx - cell / 2:g}", y=f"{cy - cell / 2:g}", width=cell, height=cell,
              viewBox="0 0 100 100")
    _el(box, "polygon", points=PENTAGON, fill=COLOURS["piece"], stroke=COLOURS["piece-edge"], stroke_width=4)
    size = {1: 54, 2: 42, 3: 31}.get(len(diagram.label), 24)
    _el(box, "text", x=50, y=60, text_anchor="middle", dominant_baseline="central", font_size=size,
        font_weight=600, fill=COLOURS["label"]).text = diagram.label
    if diagram.passes:
        _el(piece, "circle", cx=f"{cx:g}", cy=f"{cy:g}", r=f"{cell * 0.48:g}", fill="none",
            stroke=COLOURS["move"], stroke_width=max(1.5, cell / 14), stroke_dasharray="3 2", class_="pass")
    return etree.tostring(svg, encoding="unicode")


def _arrowhead(parent, x: float, y: float, ux: int, uy: int, cell: int, colour: str) -> None:
    """A triangle at (x, y) pointing along (ux, -uy) on screen: the slide goes on."""
    length = (ux * ux + uy * uy) ** 0.5
    dx, dy = ux / length, -uy / length
    tip_x, tip_y = x + dx * cell * 0.45, y + dy * cell * 0.45
    back_x, back_y = x + dx * cell * 0.1, y + dy * cell * 0.1
    w = cell * 0.2
    points = [(tip_x, tip_y), (back_x - dy * w, back_y + dx * w), (back_x + dy * w, back_y - dx * w)]
    _el(parent, "polygon", points=" ".join(f"{px:g},{py:g}" for px, py in points), fill=colour,
        class_="arrow")


def legend_svg(cell: int = 24) -> list[tuple[str, str]]:
    """``(small svg, explanation)`` for each mark the diagrams use, for a page's legend."""
    items = []

    def sample(draw) -> str:
        svg = etree.Element(f"{{{SVG_NS}}}svg", nsmap={None: SVG_NS})
        for name, value in (("viewBox", f"0 0 {cell} {cell}"), ("width", cell), ("height", cell),
                            ("aria-hidden", "true"), ("class", "legend-mark")):
            svg.set(name, str(value))
        draw(svg)
        return etree.tostring(svg, encoding="unicode")

    def square_with(mode, way):
        def draw(svg):
            _el(svg, "rect", x=0, y=0, width=cell, height=cell, fill=COLOURS["tint-" + mode], stroke=COLOURS["grid"])
            _marker(svg, way, mode, cell / 2, cell / 2, cell)
        return draw

    items.append((sample(square_with("both", "step")), "step or jump: it may move or capture there"))
    items.append((sample(square_with("move", "step")), "hollow: it may move there but not capture"))
    items.append((sample(square_with("capture", "step")), "cross: it may capture there but not move there"))

    def slide(svg):
        _el(svg, "line", x1=2, y1=cell / 2, x2=cell * 0.6, y2=cell / 2, stroke=COLOURS["both"], stroke_width=2)
        _arrowhead(svg, cell * 0.55, cell / 2, 1, 0, cell, COLOURS["both"])
    items.append((sample(slide), "slide (a line; dashed: without capturing); an arrow: it goes on to the "
                                 "edge of the board, or as far as the description says"))
    items.append((sample(square_with("both", "multi")), "diamond: reached only by a move of several steps "
                                                        "(a Lion-type move; it may capture on the way)"))

    items.append((sample(square_with("capture", "jump")), "ring round a dot: a jumping general may capture "
                                                          "there past pieces of lower rank"))
    items.append((sample(square_with("capture", "burn")), "orange octagon: burned (removed) when the piece "
                                                          "ends its move next to it"))

    def ring(svg):
        _el(svg, "circle", cx=cell / 2, cy=cell / 2, r=cell * 0.42, fill="none", stroke=COLOURS["capture"], stroke_width=2)
    items.append((sample(ring), "red ring: it can capture there without moving (igui)"))

    def passing(svg):
        _el(svg, "circle", cx=cell / 2, cy=cell / 2, r=cell * 0.45, fill="none", stroke=COLOURS["move"],
            stroke_width=2, stroke_dasharray="3 2")
    items.append((sample(passing), "dashed ring round the piece: it may pass (step out and back)"))
    items.append((sample(square_with("both", "special")), "triangle: a special move (two-stage, zig-zag, first "
                                                          "move only): see the description"))
    items.append((sample(square_with("screened", "hop")), "box: only by hopping over a piece on the way"))
    return items
