"""Recognising KIF and KI2 text by its content (never by the file name).
"""

from __future__ import annotations

import re


from .common import (KNOWN_KEYS, KifError, RE_BORDER, RE_HEADER, RE_KIF_MAGIC, RE_LISHOGI_MOVE, RE_MOVES_HEADER,
                     RE_MOVE_LINE, RE_PGN_TAG, RE_ROW, RE_VARIATION, SPACE, decode, japanese_number, split_lines)


def looks_like_kif(data: bytes | str) -> bool:
    """Whether the data looks like a KIF record (by content, never by file name).

    True when a KIF-only line comes before any PGN/LSN tag line: ``#KIF``, ``手数----指手``, a
    ``key：value`` header with a known KIF key, ``変化：N手``, a board border, or a numbered move
    line in KIF's shape.
    """
    try:
        text, _, _ = decode(data[:65536] if isinstance(data, (bytes, bytearray, memoryview, str)) else data)
    except KifError:
        return False
    for n, line in enumerate(split_lines(text)):
        if n > 400:
            break
        stripped = line.strip(SPACE)
        if not stripped:
            continue
        if RE_PGN_TAG.match(line):
            return False
        if RE_KIF_MAGIC.match(stripped) or RE_MOVES_HEADER.match(line) or RE_VARIATION.match(line):
            return True
        if RE_BORDER.match(line) and "-" * 9 in line:
            return True
        row = RE_ROW.match(line)
        if row and row.group(2) and japanese_number(row.group(2)) is not None:  # | ・ ・ ...|一
            return True
        m = RE_HEADER.match(line)
        if m and m.group(1).strip(SPACE) in KNOWN_KEYS:
            return True
        m = RE_MOVE_LINE.match(line)
        if m and (re.match(r"^(?:[同仝]|[１-９][一二三四五六七八九]|(?:投了|中断|詰み|千日手|持将棋))", m.group(2))
                  or RE_LISHOGI_MOVE.search(m.group(2))):
            return True
    return False


_RE_KI2_MOVE_LINE = re.compile(r"^\s*[▲△☗☖](?:[同仝]|[１-９1-9][一二三四五六七八九])")


_RE_KIF_MOVE_LINE = re.compile(r"^\s*\d+\s+(?:[同仝]|[１-９][一二三四五六七八九]).*\(\d\d\)")


def move_lines(head: str) -> str | None:
    """``"ki2"`` when the first move line is KI2's (``▲７六歩``) or the text starts ``#KI2``,
    ``"kif"`` when it is KIF's (``1 ７六歩(77)``, or the ``手数----`` line), None when there is none."""
    for n, line in enumerate(head.splitlines()):
        if n > 400:
            break
        if line.startswith("#KI2"):
            return "ki2"
        if _RE_KIF_MOVE_LINE.match(line) or RE_MOVES_HEADER.match(line):
            return "kif"
        if _RE_KI2_MOVE_LINE.match(line):
            return "ki2"
    return None


def looks_like_ki2(head: str) -> bool:
    """Whether a text can be KI2: KI2 move lines, or KIF's headers and no move line at all (then
    KIF and KI2 look alike, and the file name decides)."""
    found = move_lines(head)
    return found == "ki2" or (found is None and looks_like_kif(head))
