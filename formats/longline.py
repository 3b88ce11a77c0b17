"""A line too long to keep, as the record readers' line splitters give it: a string (the line end
alone, so that joining a record's lines still works) that knows the length of the line it stands
for.  A module of its own, kept out of the compiled build (setup.py): a subclass of ``str`` with an
attribute of its own is a plain Python class."""

from __future__ import annotations

__all__ = ["LongLine", "long_line"]


class LongLine(str):
    """Stands for a line longer than the line limit: its text is not kept, only its ``length``."""

    length = 0


def long_line(length: int) -> LongLine:
    line = LongLine("\n")
    line.length = length
    return line
