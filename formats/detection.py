"""Format detectors that need no reader: small tests over the head of a text.

:func:`~daikifu.formats.reading.detect_format` asks each registered format whether a text is
written in it.  The detectors here import nothing but :mod:`re`, so that recognising a record
loads only the reader of the format found (``daikifu validate`` of one LSN game does not load the
CSA, JKF or KIF readers).  KIF and KI2 keep their detectors in their modules: they share the KIF
reader's tables, and they are asked only after the lighter formats (and LSN) have declined.

>>> looks_like_csa("V2.2\\nN+Sente\\n+7776FU\\n"), looks_like_usi("position startpos moves 7g7f")
(True, True)
>>> looks_like_jkf('{"header": {}, "moves": [{}]}'), looks_like_csa('[Variant "shogi"]')
(True, False)
"""

from __future__ import annotations

import json
import re

__all__ = ["looks_like_csa", "looks_like_usi", "looks_like_jkf", "looks_like_csg", "looks_like_fsy", "looks_like_ndjson",
           "looks_like_tnj", "NDJSON_FIELDS", "KEEP_ALIVE", "CSG_HEADER_LINES",
           "CSG_MOVE_RE", "CSG_LEG_RE", "FSY_KIND", "TNJ_MOVE_RE", "CONTROL_RE", "control_character"]

# control characters no record holds: C0 but tab, line feed and carriage return, and DEL.  A text
# that holds one is refused where it is read and never written (a NUL makes a written file "not a
# record"); DOS's end-of-file mark ^Z is tolerated where it ends the text, as old KIF files end.
CONTROL_RE = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x19\x1b-\x1f\x7f]|\x1a(?![\x1a\s]*\Z)")
_LINE_END_RE = re.compile(r"\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


def control_character(text: str) -> tuple[int, int, str] | None:
    """(line, column, character) of the first control character of ``text`` (lines counted from 1
    as the readers count them), or None.

    >>> control_character("a\\nbc\\x00d"), control_character("fine\\ttext\\r\\n\\x1a")
    ((2, 3, '\\x00'), None)
    """
    m = CONTROL_RE.search(text)
    if m is None:
        return None
    ends = list(_LINE_END_RE.finditer(text, 0, m.start()))
    line_start = ends[-1].end() if ends else 0
    return len(ends) + 1, m.start() - line_start + 1, m.group()


_CSA_SHAPE = re.compile(r"(V\d|N[+-]|\$[A-Z_]+:|P[I1-9+-]|[+-]\d{4}[A-Z]{2}|%[A-Z+-]|[+-]\s*$|T\d)")
_USI_LINE = re.compile(r"\s*(?:position\s+)?(?:startpos|sfen\s)")
_SETOPTION_LINE = re.compile(r"setoption\s+name\s")
CSG_HEADER_LINES = 10
_CSG_SQ = r"\d{1,2}[a-l]"
CSG_MOVE_RE = re.compile(rf"\s*(?P<number>\d+)\s+(?P<piece>\+?[A-Za-z]{{1,2}})\s+(?P<origin>{_CSG_SQ})"
                         rf"(?P<legs>(?:\s+(?:x!|x|-)\s+{_CSG_SQ})+)(?:\s+(?P<promo>[+=]))?\s*\Z")
CSG_LEG_RE = re.compile(rf"(x!|x|-)\s+({_CSG_SQ})")
_FSY_RE = re.compile(r"\s*/(?:[^/\s]*/){11}[^/\s]*/?\s*\Z")
FSY_KIND = "a Chu Shogi server setup (.fsy), not a game record"  # what validate says of a .fsy file
_TNJ_SQ = r"\d{1,2}[a-p]"
# a move line of the Tenjiku program: "1.  P  7l-7k", "10. RGn 7dx7m+", "1.7l-7k", "7l-7k"; a Lion's
# two steps "9nx10n-11m", igui "6g!6f"; an annotation after it: a burn count "x!2" or a burn mark "*"
TNJ_MOVE_RE = re.compile(rf"\s*(?:(?P<number>\d+)\s*\.\s*)?(?:(?P<piece>\+?[A-Za-z]{{1,3}})\s*)?(?P<origin>{_TNJ_SQ})"
                         rf"(?P<legs>(?:[-x!]{_TNJ_SQ}){{1,2}})(?P<promo>\+)?(?:x!(?P<burned>\d+)|(?P<mark>\*))?\s*\Z")
# a numbered move with its piece anywhere in a line: "1: P 7l-7k", "13. BGn 8kx3f" (an analysis quotes them)
_TNJ_NUMBERED = re.compile(rf"(?<![\w.])\d+\s*[.:]\s*\+?[A-Za-z]{{1,3}}\s+{_TNJ_SQ}[-x!]{_TNJ_SQ}")
TNJ_QUOTED = 3  # numbered moves that make a text a Tenjiku analysis (which its reader refuses, saying why)


def looks_like_csa(head: str) -> bool:
    """Whether a text looks like CSA: its first statement that is not a ``'`` comment has a CSA
    shape (``V2.2``, ``N+``, ``$EVENT:``, ``PI``, ``P1``, ``+7776FU`` ...)."""
    for line in head.splitlines():
        s = line.strip()
        if not s or s.startswith("'"):
            continue
        return _CSA_SHAPE.match(s) is not None and not s.startswith("[")
    return False


def looks_like_usi(head: str) -> bool:
    """Whether the first line that is not a ``#`` comment or a ``setoption name ...`` line (the
    variant and its options) is a USI position (``startpos``, ``sfen ...``, with or without
    ``position``)."""
    for line in head.splitlines():
        s = line.strip()
        if s and not s.startswith("#") and not _SETOPTION_LINE.match(s):
            return _USI_LINE.match(s) is not None
    return False


def looks_like_jkf(head: str) -> bool:
    """A JSON object with JKF's keys (``moves`` or ``header``) and not daikifu's JSON (``variant``)."""
    s = head.lstrip()
    return s.startswith("{") and ('"moves"' in s or '"header"' in s) and '"variant"' not in s[:4096]


def looks_like_csg(head: str) -> bool:
    """A version number, a setup file name ending in ``.data``, and a move line ``0 P 1a - 1a``."""
    lines = head.splitlines()
    return (len(lines) > CSG_HEADER_LINES and lines[0].strip().isdigit() and lines[1].strip().endswith(".data")
            and any(CSG_MOVE_RE.match(line) for line in lines[CSG_HEADER_LINES:CSG_HEADER_LINES + 3]))


def looks_like_fsy(head: str) -> bool:
    """A Chu Shogi server setup: twelve ranks between slashes, of comma-separated items
    (``/L,FL,C,.../``); not a game record, but a file that is said to be what it is.

    >>> looks_like_fsy("/L,FL,C/12/" * 6), looks_like_fsy("/" + "L,11/" * 12), looks_like_fsy('[Event "x"]')
    (False, True, False)
    """
    return _FSY_RE.match(head) is not None and "," in head


NDJSON_FIELDS = ("variant", "moves")  # what every line of lishogi's NDJSON export has
KEEP_ALIVE = "{}"  # what lishogi sends while a slow export finds the next game: no game


def looks_like_ndjson(head: str) -> bool:
    """Whether ``head`` starts with a one-line JSON object holding lishogi's fields, its moves
    one string of USI moves (daikifu JSON, pretty-printed or not, holds a list of moves)."""
    for line in head.splitlines():
        s = line.strip()
        if not s or s == KEEP_ALIVE:
            continue
        if not (s.startswith("{") and s.endswith("}") and all(f'"{f}"' in s for f in NDJSON_FIELDS)):
            return False
        try:
            data = json.loads(s)
        except ValueError:
            return False
        # lishogi's moves are one string; daikifu JSON's (one line too when written compactly) a list
        return isinstance(data, dict) and isinstance(data.get("moves"), str)
    return False


def looks_like_tnj(head: str) -> bool:
    """A record of the Tenjiku Shogi program: its first line that is not blank is a move line
    (``1.  P  7l-7k``, ``1.7l-7k``, ``7l-7k``); or a text quoting at least :data:`TNJ_QUOTED` of
    its numbered moves (an analysis written for people, which the reader refuses with the line
    that is not a move).  Asked after every other format: it claims no file another one reads.

    >>> looks_like_tnj("1.  P  7l-7k\\n2. SEg 5d-3f\\n"), looks_like_tnj("Notes, move 1: P 7l-7k\\n")
    (True, False)
    """
    for line in head.splitlines():
        if line.strip():
            if TNJ_MOVE_RE.match(line):
                return True
            break
    return len(_TNJ_NUMBERED.findall(head)) >= TNJ_QUOTED
