"""Small helpers the commands share for writing output."""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

import click


def text_width(text: str) -> int:
    """Columns the text takes in a terminal (East Asian wide characters take two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def fit(text: str, width: int) -> str:
    """The text cut to ``width`` columns and padded to it."""
    out, used = [], 0
    for c in text:
        w = text_width(c)
        if used + w > width:
            break
        out.append(c)
        used += w
    return "".join(out) + " " * (width - used)


def write_bytes(path: str, data: bytes) -> None:
    """Write to a file, or to standard output for '-'; a failure is a one-line click error."""
    if path == "-":
        sys.stdout.flush()  # text written before stays before
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    try:
        Path(path).write_bytes(data)
    except OSError as exc:
        raise click.ClickException(f"{path}: cannot write: {exc.strerror}") from None
