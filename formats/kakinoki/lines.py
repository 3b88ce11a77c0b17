"""The lines of a KIF or KI2 record, classified: what each line is (:func:`classify_line`), and the
compact index the reader keeps of them (:class:`LineIndex`).
"""

from __future__ import annotations

import re
from array import array
from dataclasses import dataclass


from ..limits import check_time
from .common import (FILE_LABEL_CHARS, KNOWN_KEYS, RE_ASCII_HEADER, RE_BORDER, RE_HEADER, RE_MOVES_HEADER, RE_MOVE_LINE,
                     RE_RESULT, RE_ROW, RE_SHORT_TIME, RE_TIME, RE_VARIATION, SPACE, SPACE_BOM, TURN_LINES)


@dataclass(eq=False, slots=True)  # slots: many are made while a record is read
class Item:
    """One thing a line says (a KI2 move line says several): made from the line when it is needed,
    and not kept (:class:`LineIndex` keeps where it is)."""

    kind: str  # header, row, border, turn, move, comment, variation, result, junk, moves-header
    line: int
    text: str = ""
    key: str = ""
    value: str = ""
    number: int = 0
    column: int = 1
    time: tuple | None = None  # (seconds, total seconds or None)
    second: Item | None = None  # the second step (二歩目) of a Lion's double move, in lishogi's KIF
    problem: tuple | None = None  # (message, column): a time out of range, reported with the move's ply
    start: int = 0  # offset of its line in the text
    sub: int = 0  # its place among the items of its line (KI2 move lines)
    index: int = -1  # its place in the :class:`LineIndex` of the moves


_KINDS = ("header", "row", "border", "turn", "move", "comment", "variation", "result", "junk", "moves-header",
          "program")


KIND_CODE = {kind: code for code, kind in enumerate(_KINDS)}


RE_LINE_END = re.compile(r"\r\n|\r|\n")


def text_lines(text: str):
    """(line number, offset, line) for each line of ``text`` (without its line end), one at a time:
    a long record is never held as a list of lines."""
    start, end, number = 0, len(text), 1
    cr = "\r" in text
    if not cr or text.count("\r") == text.count("\r\n"):  # LF or CRLF line ends: found by find
        find = text.find
        while start < end:
            nl = find("\n", start)
            if nl < 0:
                nl = end
            yield number, start, text[start:nl - 1 if cr and nl > start and text[nl - 1] == "\r" else nl]
            start = nl + 1
            number += 1
        return
    while start < end:
        m = RE_LINE_END.search(text, start)
        stop, after = (m.start(), m.end()) if m else (end, end)
        yield number, start, text[start:stop]
        start = after
        number += 1


# this many items after the first move are kept as made, since the reader reads each up to three
# times (to index, to replay, to give to the visitor): every item of an ordinary game, and a bounded
# part of a long one (about 200 KB); the others are made again from their line when read
KEPT_ITEMS = 1024


class LineIndex:
    """The items from the first move on: the first :data:`KEPT_ITEMS` as made, the others in a few
    bytes each (kind, line, offset of the line, place in the line, number), made again from their
    line when read (:meth:`KifReader.item`), so that a record of 100,000 moves is not held as
    100,000 objects."""

    __slots__ = ("kinds", "kept", "lines", "starts", "subs", "numbers")

    def __init__(self):
        self.kinds = bytearray()  # of every item
        self.kept: list[Item] = []
        self.lines = array("i")  # the others' (item k is the (k - KEPT_ITEMS)th)
        self.starts = array("q")
        self.subs = array("i")
        self.numbers = array("i")

    def add(self, it: Item) -> None:
        it.index = len(self.kinds)
        self.kinds.append(KIND_CODE[it.kind])
        if len(self.kept) < KEPT_ITEMS:
            self.kept.append(it)
            return
        self.lines.append(it.line)
        self.starts.append(it.start)
        self.subs.append(it.sub)
        self.numbers.append(it.number)

    def __len__(self) -> int:
        return len(self.kinds)

    def kind(self, k: int) -> str:
        return _KINDS[self.kinds[k]]

    def number(self, k: int) -> int:
        kept = self.kept
        return kept[k].number if k < len(kept) else self.numbers[k - len(kept)]

    def line(self, k: int) -> int:
        kept = self.kept
        return kept[k].line if k < len(kept) else self.lines[k - len(kept)]


def read_time(t: re.Match, column: int) -> tuple:
    """((seconds, total seconds or None), None) from a match of :data:`RE_TIME` in a move line's
    text starting at ``column``, or (None, (message, column of the time out of range))."""
    secs, problem = check_time(t.group(1), t.group(2), t.group(3), "time of the move")
    if problem is not None:
        return None, (problem, column + t.start(1 if t.group(1) else 2))
    total = None
    if t.group(4) is not None:
        total, problem = check_time(t.group(4), t.group(5), t.group(6), "total time")
        if problem is not None:
            return None, (problem, column + t.start(4))
    return (secs, total), None


def move_time(rest: str, column: int):
    """(time or None, problem or None, where the time starts in ``rest``) for the time column at
    the end of a move line's text ``rest`` (starting at ``column``; see :func:`read_time`), or
    None when it has none.

    >>> move_time("７六歩(77)   ( 0:05/00:00:05)", 6)
    ((5, 5), None, 10)
    """
    if not rest.endswith((")", "）")):
        return None
    # the time holds no parenthesis: it can only start at the last one
    start = max(rest.rfind("("), rest.rfind("（"))
    t = RE_SHORT_TIME.match(rest, start)
    if t is not None:  # the usual m:ss or m:ss/hh:mm:ss: in range by its shape
        minutes, seconds, hours, total_m, total_s = t.groups()
        total = None if hours is None else int(hours) * 3600 + int(total_m) * 60 + int(total_s)
        return (int(minutes) * 60 + int(seconds), total), None, start
    t = RE_TIME.match(rest, start)
    if t is None:
        return None
    time, problem = read_time(t, column)
    return time, problem, start


def classify_line(line: str, i: int) -> Item | None:
    """The item line ``i`` says, or None for a blank line, a bookmark or the file numbers above a
    board diagram."""
    stripped = line.strip(SPACE_BOM)
    if not stripped:
        return None
    first = stripped[0]
    if line.startswith("#") or first == "#":
        return Item("program", i, text=line)
    if first == "*":
        lead = line.lstrip(SPACE)
        if lead.startswith("*"):
            return Item("comment", i, lead[1:])  # (kind, line, text)
    if first in "&＆":
        return None  # bookmark
    # a line starting with an ASCII digit (a move, or the file numbers over a diagram) is none
    # of these five kinds: most lines are moves, so their patterns are not tried on them
    if not "0" <= first <= "9":
        item = _layout_item(line, stripped, i)
        if item is not None:
            return item
    if len(stripped) > 1 and not stripped.strip(FILE_LABEL_CHARS):
        return None  # the file numbers above a board diagram
    if stripped in TURN_LINES:
        return Item("turn", i, number=TURN_LINES[stripped])
    m = RE_MOVE_LINE.match(line)
    if m:
        rest = m.group(2).rstrip(SPACE)
        if rest.endswith("+"):  # Kifu for Windows' mark of a move with variations
            rest = rest[:-1].rstrip(SPACE)
        time = problem = None
        column = m.start(2) + 1
        found = move_time(rest, column)
        if found is not None:
            time, problem, at = found
            rest = rest[:at].rstrip(SPACE)
        try:
            number = int(m.group(1))
        except ValueError:  # pragma: no cover - int() of digits does not fail
            number = 0
        return Item("move", i, text=rest, number=number, column=column, time=time, problem=problem)
    return _header_item(line, i)


def _layout_item(line: str, stripped: str, i: int) -> Item | None:
    """A 変化, まで, 手数---- line, or a board diagram's border or row; None for another line."""
    m = RE_VARIATION.match(line)
    if m:
        return Item("variation", i, number=int(m.group(1)), text=stripped)
    m = RE_RESULT.match(line)
    if m:
        return Item("result", i, number=int(m.group(1)), text=m.group(2).strip(SPACE))
    if RE_MOVES_HEADER.match(line):
        return Item("moves-header", i)
    if RE_BORDER.match(line):
        return Item("border", i)
    m = RE_ROW.match(line)
    if m:
        return Item("row", i, text=m.group(1), column=line.index(m.group(1)) + 1 if m.group(1) else 1)
    return None


def _header_item(line: str, i: int) -> Item:
    """A ``key：value`` header (``key:value`` for a known key), else a line the reader cannot read."""
    m = RE_HEADER.match(line)
    if m and not m.group(1).strip(SPACE):
        m = None
    if not m:
        m2 = RE_ASCII_HEADER.match(line)
        if m2 and m2.group(1).strip(SPACE) in KNOWN_KEYS:
            m = m2
    if m:
        key = m.group(1).strip(SPACE)
        value = m.group(2).strip(SPACE)
        return Item("header", i, key=key, value=value)
    return Item("junk", i, text=line)
