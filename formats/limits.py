"""Limits on what a reader accepts, so that hostile or broken input fails at once with a located
error instead of a slow death (time or memory out of proportion to the input).

Every reader takes a :class:`ReadLimits`; the defaults are far above anything a real record needs
(the longest real game on record is a few thousand plies; a 100,000-ply game written on one line
is about 1 MB).  Raise them for unusual archives::

    >>> from daikifu.formats.limits import ReadLimits
    >>> ReadLimits().max_comment
    1048576
    >>> ReadLimits.from_pairs(["comment=10000000", "depth=500"]).max_depth
    500

Numbers written in a record (NAGs, move numbers, times) are range-checked by the readers with
:func:`check_number`, so no reader ever converts a 5,000-digit string.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields, replace

__all__ = ["ReadLimits", "DEFAULT_LIMITS", "check_number", "check_time", "json_depth", "MAX_DIGITS", "MAX_HOURS"]

MIB = 1 << 20
# no number in a game record needs more digits than this (a ply count, a clock in seconds)
MAX_DIGITS = 9
# no time written in a record (one move's, or a player's total) is longer: 416 days
MAX_HOURS = 9999


@dataclass(frozen=True)
class ReadLimits:
    """Largest accepted sizes, in characters (``max_depth``: nested variations).

    - ``max_record``: one game's text (tags, movetext, comments);
    - ``max_line``: one line (a tag line, or movetext written without line breaks);
    - ``max_comment``: one ``{...}`` comment;
    - ``max_depth``: variations inside variations.
    """

    max_record: int = 32 * MIB
    max_line: int = 4 * MIB
    max_comment: int = 1 * MIB
    max_depth: int = 100

    # short names for the command line: ``--limit comment=2000000``
    NAMES = {"record": "max_record", "line": "max_line", "comment": "max_comment", "depth": "max_depth"}

    @classmethod
    def from_pairs(cls, pairs) -> "ReadLimits":
        """Limits from ``name=value`` texts (names: record, line, comment, depth).

        >>> ReadLimits.from_pairs(["line=5"]).max_line
        5
        >>> ReadLimits.from_pairs(["size=5"])
        Traceback (most recent call last):
        ...
        ValueError: unknown limit 'size' (expected one of record, line, comment, depth)
        """
        from daikifu.replay.variant import parse_options  # the one NAME=VALUE parser
        values = {}
        for name, value in parse_options(list(pairs)).items():
            if name not in cls.NAMES:
                raise ValueError(f"unknown limit {name!r} (expected one of {', '.join(cls.NAMES)})")
            if not (value.isascii() and value.isdigit()) or len(value) > 12 or int(value) < 1:
                raise ValueError(f"limit {name}: expected a positive whole number, got {value!r}")
            values[cls.NAMES[name]] = int(value)
        return replace(cls(), **values)

    @property
    def max_json_depth(self) -> int:
        """Nesting of a JSON record (JKF, daikifu's JSON): each variation inside a variation nests
        three JSON levels (the list of alternatives, the line, the move's object), and the record
        itself a few more."""
        return 3 * self.max_depth + 8

    def as_dict(self) -> dict:
        return {f.name: getattr(self, f.name) for f in fields(self)}


DEFAULT_LIMITS = ReadLimits()


def check_number(digits: str, low: int, high: int, what: str) -> tuple[int | None, str | None]:
    """``(value, None)`` when the decimal ``digits`` lie in ``low..high``, else ``(None, reason)``.

    The text is measured before it is converted, so a number of any length costs nothing:

    >>> check_number("14", 0, 255, "NAG")
    (14, None)
    >>> check_number("9" * 5000, 0, 255, "NAG")
    (None, 'NAG out of range: a number of 5000 digits, not 0 to 255')
    >>> check_number("256", 0, 255, "NAG")
    (None, 'NAG out of range: 256, not 0 to 255')
    """
    if not (digits.isascii() and digits.isdigit()):
        return None, f"{what}: not a number: {digits[:20]!r}, not {low} to {high}"
    stripped = digits.lstrip("0") or "0"
    if len(stripped) > MAX_DIGITS:
        return None, f"{what} out of range: a number of {len(digits)} digits, not {low} to {high}"
    value = int(stripped)
    if not low <= value <= high:
        return None, f"{what} out of range: {value}, not {low} to {high}"
    return value, None


def check_time(hours, minutes, seconds, what: str = "time") -> tuple[int | None, str | None]:
    """``(seconds, None)`` for a time written as hours (None when it has no hours field), minutes
    and seconds, each a decimal text or a whole number; else ``(None, what is wrong)``.  Seconds
    run from 0 to 59, and so do minutes after hours; minutes without hours may pass 59 (KIF
    writes a move's time as ``m:ss``); no time is longer than :data:`MAX_HOURS` hours.

    >>> check_time(None, "1", "05")
    (65, None)
    >>> check_time(None, "75", "00")
    (4500, None)
    >>> check_time("1", "75", "00")
    (None, 'time: minutes out of range: 75, not 0 to 59')
    >>> check_time(None, 0, 60, "move time")
    (None, 'move time: seconds out of range: 60, not 0 to 59')
    >>> check_time(None, "9" * 40, "00")
    (None, 'time: minutes out of range: a number of 40 digits, not 0 to 599940')
    """
    total = 0
    for value, unit, high, scale in ((hours, "hours", MAX_HOURS, 3600),
                                     (minutes, "minutes", MAX_HOURS * 60 if hours is None else 59, 60),
                                     (seconds, "seconds", 59, 1)):
        if value is None:
            continue
        if isinstance(value, int) and not isinstance(value, bool):
            n, problem = value, None
            if not 0 <= value <= high:
                n, problem = None, f"{what}: {unit} out of range: {value}, not 0 to {high}"
        elif isinstance(value, str):
            n, problem = check_number(value, 0, high, f"{what}: {unit}")
        else:
            n, problem = None, f"{what}: {unit}: not a whole number: {str(value)[:20]!r}"
        if problem is not None:
            return None, problem
        total += n * scale
    return total, None


_JSON_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]|\n')


def json_depth(text: str, limit: int) -> tuple[int, int] | None:
    """(line, column) of the first ``[`` or ``{`` of a JSON text nested deeper than ``limit``, or
    None.  Python's JSON parser recurses once per level (a RecursionError at a few thousand), and
    so would a reader of the nested variations: the text is measured first, without recursion.

    >>> json_depth('{"a": [1, "[[["]}', 2), json_depth('{"a": [[1]]}', 2)
    (None, (1, 8))
    """
    depth, line, line_start = 0, 1, 0
    for m in _JSON_TOKEN.finditer(text):
        token = m.group()
        if token == "\n":
            line, line_start = line + 1, m.end()
        elif token in "[{":
            depth += 1
            if depth > limit:
                return line, m.start() - line_start + 1
        elif token in "]}":
            depth -= 1
        elif "\n" in token:  # a string holding a raw line break (not JSON, but count the lines)
            line, line_start = line + token.count("\n"), m.start() + token.rindex("\n") + 1
    return None
