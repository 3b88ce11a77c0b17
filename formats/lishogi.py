"""lishogi's bulk exports: its NDJSON game export, and its multi-game KIF streams cut into games.

lishogi exports a user's games (``GET /api/games/user/{name}``) and games by id
(``POST /games/export/_ids``) either as KIF, one game after another, each followed by two blank
lines, or, with ``Accept: application/x-ndjson``, as one JSON object a line::

    {"id": "abcd1234", "rated": true, "variant": "chushogi", "speed": "correspondence",
     "createdAt": 1700000000000, "status": "resign", "winner": "sente",
     "players": {"sente": {"user": {"name": "alice"}, "rating": 1500},
                 "gote": {"user": {"name": "bob"}, "rating": 1490}},
     "initialSfen": "...", "moves": "9i9h 4d4e ..."}

:func:`read_ndjson` reads such a file: ``moves`` are USI moves (lishogi's form on the larger
boards, :mod:`replay.usi`), ``initialSfen`` (``initialFen`` in older exports; when there is one) the
start; the ``{}`` lines lishogi sends to keep a slow export alive are skipped; ``variant`` (a string,
or an object with a ``key``) names the variant (``standard`` is shogi); the players' names (the
user's, else ``name``, ``userId`` or ``aiLevel``), ``createdAt``, ``id``, ``speed``, ``rated`` and ``winner``/``status`` become tags and
the result.  A line that is no JSON object, or that names no moves, is an invalid game naming
that line; errors in moves name the line and the column of the move in it.

:func:`split_kif_stream` cuts a KIF text at lishogi's game boundaries: two or more blank lines
followed by the first line of a new record (a ``key：value`` header that is no ``変化：`` line,
``#KIF``, a diagram's ``持駒`` line, or the move table's header).
"""

from __future__ import annotations

import json
import re
from typing import Iterator

from daikifu.replay.usi import UsiError, usi_to_move

from .detection import KEEP_ALIVE, NDJSON_FIELDS, looks_like_ndjson
from .game import GameError
from .playback import DRAW, MoveTextError, RawGame, RawMoves, iter_lines, play

__all__ = ["read_ndjson", "looks_like_ndjson", "split_kif_stream", "NDJSON_FIELDS"]

_MOVES_RE = re.compile(r'"moves"\s*:\s*"([^"\\]*)"')
_WORD_RE = re.compile(r"\S+")
_VARIANTS = {"standard": "shogi", "fromPosition": "shogi"}  # lishogi's keys that are no variant name
_WINNER = {"sente": "1-0", "gote": "0-1"}
_DRAWN = ("draw", "stalemate", "repetition", "impasse27")  # lishogi statuses of a drawn game


def _move_reader(word: str):
    def read(board):
        try:
            return usi_to_move(board, word)
        except UsiError as exc:
            raise MoveTextError(exc.reason, expected="a USI move such as 7g7f, 8h2b+ or P*5e") from None
    return read


def _name(side) -> str | None:
    if not isinstance(side, dict):
        return None
    user = side.get("user")
    if isinstance(user, dict) and user.get("name"):
        return str(user["name"])
    for key in ("name", "userId"):  # an anonymous player's name; another export's user id
        if isinstance(side.get(key), str) and side[key]:
            return side[key]
    if side.get("aiLevel") is not None:
        return f"lishogi AI level {side['aiLevel']}"
    return None


def _date(ms) -> str | None:
    if not isinstance(ms, (int, float)) or isinstance(ms, bool):
        return None
    import datetime
    try:
        return datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc).strftime("%Y.%m.%d")
    except (OverflowError, OSError, ValueError):
        return None


def read_ndjson(text: str, *, file: str | None = None, variant: str | None = None, lenient: bool = False,
                visitor=None, variants=None) -> Iterator:
    """Every game of a lishogi NDJSON export (a :class:`Game` each by default), one line at a time."""
    number = 0
    for n, (offset, line) in enumerate(iter_lines(text), start=1):
        if not line.strip() or line.strip() == KEEP_ALIVE:
            continue
        number += 1
        raw = RawGame(number, n, offset, line)
        name = variant or "shogi"
        try:
            data = json.loads(line)
        except ValueError as exc:
            data = None
            raw.problems.append(GameError(f"not a JSON object: {getattr(exc, 'msg', exc)}", file=file, game=number,
                                          line=n, column=getattr(exc, "colno", 1),
                                          expected="one lishogi game as a JSON object a line"))
        if data is not None and not isinstance(data, dict):
            raw.problems.append(GameError("not a JSON object", file=file, game=number, line=n, column=1,
                                          expected="one lishogi game as a JSON object a line"))
            data = None
        raw.moves = moves = RawMoves(line, _move_reader)
        if data is not None:
            key = data.get("variant")
            key = key.get("key") if isinstance(key, dict) else key
            if isinstance(key, str) and key:
                name = _VARIANTS.get(key, key)
                raw.headers.append(("Variant", name))
            for tag, value in (("Sente", _name((data.get("players") or {}).get("sente"))),
                               ("Gote", _name((data.get("players") or {}).get("gote"))),
                               ("Date", _date(data.get("createdAt"))),
                               ("Site", f"https://lishogi.org/{data['id']}" if isinstance(data.get("id"), str) else None),
                               ("LishogiSpeed", data.get("speed") if isinstance(data.get("speed"), str) else None),
                               ("Rated", ("yes" if data["rated"] else "no") if isinstance(data.get("rated"), bool) else None),
                               ("LishogiStatus", data.get("status") if isinstance(data.get("status"), str) else None)):
                if value:
                    raw.headers.append((tag, value))
            sfen = data.get("initialSfen") or data.get("initialFen")  # (the older exports' name)
            if isinstance(sfen, str) and sfen.strip():
                raw.headers.append(("SFEN", sfen.strip()))
            if data.get("winner") in _WINNER:
                raw.relation = _WINNER[data["winner"]]
            elif data.get("status") in _DRAWN:
                raw.relation = DRAW
            m = _MOVES_RE.search(line)
            if m is None:
                raw.problems.append(GameError('no "moves" string', file=file, game=number, line=n, column=1,
                                              expected='"moves": USI moves separated by spaces'))
            else:  # the moves are read where they stand in the line, so errors name their column
                for word in _WORD_RE.finditer(line, m.start(1), m.end(1)):
                    moves.add(word.start(), word.end(), n, word.start() + 1)
        yield play(raw, name, visitor=visitor, lenient=lenient, file=file, variants=variants)


_KIF_START = re.compile(r"(#KIF|[^\s：:*&#]+[：:]|手数-+指手|\S*の持駒)")  # (a * or & comment is in a game)
_BRANCH = re.compile(r"変化[：:]")


def split_kif_stream(text: str) -> list[tuple[int, str]]:
    """(first line number, text) of each record of a KIF text holding several, as lishogi writes
    them: a record ends at two or more blank lines followed by the first line of another (a
    header, ``#KIF``, a diagram or the move table).  A text holding one record gives it whole."""
    parts: list[tuple[int, str]] = []
    start_offset, start_line, blanks = 0, 1, 0
    for n, (offset, line) in enumerate(iter_lines(text), start=1):
        s = line.strip()
        if not s:
            blanks += 1
            continue
        if blanks >= 2 and n > start_line + blanks and _KIF_START.match(s) and not _BRANCH.match(s):
            parts.append((start_line, text[start_offset:offset]))
            start_offset, start_line = offset, n
        blanks = 0
    parts.append((start_line, text[start_offset:]))
    return parts
