"""Small SVG charts for the viewer's pages, built with lxml.

Every chart is an ``<svg role="img">`` with an ``aria-label`` saying what it shows, and every bar
carries a ``<title>`` (a tooltip) with its exact number and a ``data-value`` attribute.  Text goes
into the tree as element text or attribute values, so lxml escapes it: a label can never become
markup.  Lengths are proportional to the values: a bar's length is ``value / largest * full
length`` (stacked bars: ``value / row total * full length``).

The functions return :class:`markupsafe.Markup`, ready to be put into a template as it is.
"""

from __future__ import annotations

import re
from typing import Iterable, Sequence

from lxml import etree
from markupsafe import Markup

from .svg import SVG_NS, element

__all__ = ["bar_chart", "stacked_bar", "stacked_bars", "histogram", "result_segments", "RESULT_ORDER",
           "RESULT_LABELS", "RESULT_COLOURS"]


#: Result keys in the order they are stacked (Sente's share on the left, Gote's on the right).
RESULT_ORDER = ("sente_wins", "draws", "gote_wins", "unfinished")
RESULT_LABELS = {"sente_wins": "Sente wins", "draws": "Draws", "gote_wins": "Gote wins", "unfinished": "Unfinished"}
RESULT_COLOURS = {"sente_wins": "#2d5f8b", "draws": "#8a8a8a", "gote_wins": "#a33b20", "unfinished": "#d9d4c7"}
BAR_COLOUR = "#8a2c0d"
FONT = "system-ui, sans-serif"
CHAR_WIDTH = 7.5  # a generous average width of a 12px character, to size label columns

# characters XML 1.0 cannot hold (lxml refuses them): record tags are user text
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


def _clean(text) -> str:
    return _NOT_XML.sub("\ufffd", str(text))


def _fmt(value: float) -> str:
    """A number as it is shown: integers without a decimal point."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def _num(value: float) -> str:
    """A coordinate or length for an attribute (two decimals at most)."""
    return f"{round(value, 2):g}"


def _svg(width: float, height: float, label: str, css_class: str) -> etree._Element:
    root = etree.Element(f"{{{SVG_NS}}}svg", nsmap={None: SVG_NS})
    root.set("class", f"chart {css_class}")
    root.set("role", "img")
    root.set("aria-label", _clean(label))
    root.set("width", _num(width))
    root.set("height", _num(height))
    root.set("viewBox", f"0 0 {_num(width)} {_num(height)}")
    root.set("font-family", FONT)
    root.set("font-size", "12")
    return root


def _sub(parent, tag: str, text: str | None = None, **attrs) -> etree._Element:
    el = element(parent, tag, **{k: v if isinstance(v, str) else _num(v) for k, v in attrs.items()})
    if text is not None:
        el.text = _clean(text)
    return el


def _markup(root) -> Markup:
    return Markup(etree.tostring(root, encoding="unicode"))


def _shorten(text: str, chars: int) -> str:
    text = _clean(text)
    return text if len(text) <= chars else text[:max(1, chars - 1)] + "\u2026"


def _pct(value: float, total: float) -> str:
    return f"{100 * value / total:.1f}%" if total else "0%"


def bar_chart(items: Sequence[tuple[str, float]], *, label: str, width: int = 440, bar_height: int = 18,
              unit: str = "", colour: str = BAR_COLOUR, css_class: str = "bar-chart") -> Markup:
    """Horizontal bars, one per ``(label, value)``, in the order given; the longest bar is the
    largest value.  Each row: the label, the bar, the value."""
    items = [(str(k), v) for k, v in items]
    gap = 4
    label_chars = min(28, max([len(k) for k, _ in items] + [4]))
    label_w = label_chars * CHAR_WIDTH + 12
    value_w = max([len(_fmt(v)) for _, v in items] + [1]) * CHAR_WIDTH + 8
    plot_w = max(40.0, width - label_w - value_w)
    height = max(1, len(items)) * (bar_height + gap) + gap
    root = _svg(width, height, label, css_class)
    top = max([v for _, v in items] + [0])
    suffix = f" {unit}" if unit else ""
    for i, (name, value) in enumerate(items):
        y = gap + i * (bar_height + gap)
        row = _sub(root, "g", class_="bar-row")
        _sub(row, "title", f"{name}: {_fmt(value)}{suffix}")
        _sub(row, "text", _shorten(name, label_chars), x=label_w - 8, y=y + bar_height * 0.72, text_anchor="end")
        length = plot_w * value / top if top else 0
        _sub(row, "rect", class_="bar", x=label_w, y=y, width=length, height=bar_height, fill=colour,
             data_value=_fmt(value))
        _sub(row, "text", _fmt(value), class_="value", x=label_w + length + 4, y=y + bar_height * 0.72)
    return _markup(root)


def result_segments(counts: dict) -> list[tuple[str, str, float]]:
    """``(key, name, count)`` of the four results, in stacking order, from a dict with the keys of
    :data:`RESULT_ORDER` (missing keys count 0)."""
    return [(k, RESULT_LABELS[k], counts.get(k, 0) or 0) for k in RESULT_ORDER]


def _stack(parent, x: float, y: float, width: float, height: float, segments, *, counts: bool) -> None:
    """Segments side by side from ``x``, each as long as its share of the total."""
    total = sum(v for _, _, v in segments)
    _sub(parent, "rect", class_="outline", x=x, y=y, width=width, height=height, fill="none", stroke="#bbb",
         stroke_width=0.5)
    for key, name, value in segments:
        if not value:
            continue
        length = width * value / total
        seg = _sub(parent, "g", class_=f"segment segment-{key}")
        _sub(seg, "title", f"{name}: {_fmt(value)} ({_pct(value, total)})")
        _sub(seg, "rect", class_="bar", x=x, y=y, width=length, height=height,
             fill=RESULT_COLOURS.get(key, BAR_COLOUR), data_value=_fmt(value), data_key=key)
        if counts and length >= CHAR_WIDTH * len(_fmt(value)) + 4:
            _sub(seg, "text", _fmt(value), x=x + length / 2, y=y + height * 0.7, text_anchor="middle",
                 fill="#fff" if key != "unfinished" else "#333")
        x += length


def stacked_bar(segments: Sequence[tuple[str, str, float]], *, label: str, width: int = 120,
                height: int = 10) -> Markup:
    """One small bar split into ``(key, name, value)`` segments by share of the total (an
    inline result bar); an empty outline when the total is 0."""
    root = _svg(width, height, label, "stacked-bar")
    _stack(root, 0, 0, width, height, list(segments), counts=False)
    return _markup(root)


def stacked_bars(rows: Iterable[tuple[str, Sequence[tuple[str, str, float]]]], *, label: str, width: int = 640,
                 bar_height: int = 20, legend: Sequence[tuple[str, str]] = ()) -> Markup:
    """One full-length bar per ``(row label, segments)``, each split by share of its own total,
    with the counts written in the segments wide enough for them, the row total after the bar,
    and a legend ``(key, name)`` above."""
    rows = [(str(k), list(s)) for k, s in rows]
    gap = 6
    label_chars = min(24, max([len(k) for k, _ in rows] + [4]))
    label_w = label_chars * CHAR_WIDTH + 12
    total_w = max([len(_fmt(sum(v for _, _, v in s))) for _, s in rows] + [1]) * CHAR_WIDTH + 8
    plot_w = max(60.0, width - label_w - total_w)
    legend_h = 20 if legend else 0
    height = legend_h + max(1, len(rows)) * (bar_height + gap) + gap
    root = _svg(width, height, label, "stacked-bars")
    x = label_w
    for key, name in legend:
        item = _sub(root, "g", class_="legend")
        _sub(item, "rect", x=x, y=4, width=10, height=10, fill=RESULT_COLOURS.get(key, BAR_COLOUR))
        _sub(item, "text", name, x=x + 14, y=13)
        x += 14 + len(name) * CHAR_WIDTH + 14
    for i, (name, segments) in enumerate(rows):
        y = legend_h + gap + i * (bar_height + gap)
        row = _sub(root, "g", class_="stack-row")
        _sub(row, "text", _shorten(name, label_chars), x=label_w - 8, y=y + bar_height * 0.7, text_anchor="end")
        _stack(row, label_w, y, plot_w, bar_height, segments, counts=True)
        total = sum(v for _, _, v in segments)
        _sub(row, "text", _fmt(total), class_="value", x=label_w + plot_w + 4, y=y + bar_height * 0.7)
    return _markup(root)


def histogram(buckets: Sequence[tuple[str, float]], *, label: str, x_label: str = "", y_label: str = "",
              height: int = 180, bar_width: int = 34, unit: str = "") -> Markup:
    """Vertical bars, one per ``(bucket label, value)`` left to right, on axes: the tallest bar is
    the largest value; the y axis is marked at 0, about half and the largest value, and the buckets are
    labelled below (every n-th one when they are too many to label them all)."""
    buckets = [(str(k), v) for k, v in buckets]
    n = max(1, len(buckets))
    top = max([v for _, v in buckets] + [0])
    left = max(len(_fmt(top)) * CHAR_WIDTH + 12, 28) + (14 if y_label else 0)
    bottom = 34 + (16 if x_label else 0)
    plot_h = max(40, height - bottom - 8)
    bar_width = max(6, bar_width if n <= 20 else 640 // n)
    label_every = max(1, -(-int(max(len(k) for k, _ in buckets) * CHAR_WIDTH + 6) // bar_width)) if buckets else 1
    width = left + n * bar_width + 10
    root = _svg(width, height, label, "histogram")
    base = 8 + plot_h
    axes = _sub(root, "g", class_="axes", stroke="#666", stroke_width=1)
    _sub(axes, "line", x1=left, y1=8, x2=left, y2=base)
    _sub(axes, "line", x1=left, y1=base, x2=left + n * bar_width, y2=base)
    ticks = sorted({0, top // 2, top} if top >= 2 else {0, top})  # whole numbers: counts
    for t in ticks:
        y = base - (plot_h * t / top if top else 0)
        _sub(root, "text", _fmt(t), class_="tick", x=left - 4, y=y + 4, text_anchor="end")
        _sub(root, "line", x1=left - 3, y1=y, x2=left, y2=y, stroke="#666")
    suffix = f" {unit}" if unit else ""
    for i, (name, value) in enumerate(buckets):
        x = left + i * bar_width
        col = _sub(root, "g", class_="bar-column")
        _sub(col, "title", f"{name}: {_fmt(value)}{suffix}")
        length = plot_h * value / top if top else 0
        _sub(col, "rect", class_="bar", x=x + 1, y=base - length, width=bar_width - 2, height=length,
             fill=BAR_COLOUR, data_value=_fmt(value))
        if i % label_every == 0:
            _sub(col, "text", name, class_="bucket", x=x + bar_width / 2, y=base + 14, text_anchor="middle",
                 font_size="10")
    if x_label:
        _sub(root, "text", x_label, class_="axis-label", x=left + n * bar_width / 2, y=height - 6,
             text_anchor="middle")
    if y_label:
        _sub(root, "text", y_label, class_="axis-label", x=12, y=8 + plot_h / 2, text_anchor="middle",
             transform=f"rotate(-90 12 {_num(8 + plot_h / 2)})")
    return _markup(root)
