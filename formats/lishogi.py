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

``clocks`` (the clock of the side that moved after each ply, in centiseconds, as lichess's
``GameApiV2`` writes it) becomes a ``[%clk H:MM:SS]`` comment on each move, so that it reaches the
archive's clock column as a KIF stream's ``[%clk]`` does.  ``analysis`` (lishogi's
``analysis.JsonView.moves``: per ply, ``eval`` centipawns or ``mate`` moves from Sente's side for
the position after the ply, ``best`` and ``variation``, the engine's choice in the position
*before* it when the move played was not that, and ``judgment``) becomes each node's
:class:`~daikifu.formats.evals.Evaluation`: the score and judgment on the ply's node, the best
move and line on the node before it (the position they start from).  A malformed entry of either is
a warning naming the line, the column of the field, the ply and the game's id: the moves are kept.

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
from .evals import LIMITS, MAX_LINE, Evaluation
from .game import GameError
from .playback import DRAW, MoveTextError, RawGame, RawMoves, iter_lines, play

__all__ = ["read_ndjson", "looks_like_ndjson", "split_kif_stream", "NDJSON_FIELDS", "clock_text"]

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
            _Extras(raw, data, file, number, n).read()
        yield play(raw, name, visitor=visitor, lenient=lenient, file=file, variants=variants)


def clock_text(centis: int) -> str:
    """Centiseconds as a ``[%clk]`` command: ``[%clk 0:09:58]``, hundredths only when there are
    some (``[%clk 0:00:09.50]``).

    >>> clock_text(59800), clock_text(950), clock_text(360000)
    ('[%clk 0:09:58]', '[%clk 0:00:09.50]', '[%clk 1:00:00]')
    """
    seconds, hundredths = divmod(centis, 100)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"[%clk {h}:{m:02d}:{s:02d}" + (f".{hundredths:02d}" if hundredths else "") + "]"


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


class _Extras:
    """An NDJSON record's ``clocks`` and ``analysis`` put on its raw moves (see the module's text)."""

    def __init__(self, raw: RawGame, data: dict, file, number: int, line: int):
        self.raw, self.data, self.file, self.number, self.line = raw, data, file, number, line
        self.id = data.get("id") if isinstance(data.get("id"), str) else None

    def warn(self, field: str, message: str, ply: int | None = None, expected: str | None = None) -> None:
        source = self.raw.source
        at = source.find(f'"{field}"')
        who = f"lishogi game {self.id}: " if self.id else ""
        self.raw.problems.append(GameError(f"{who}{field}: {message}", file=self.file, game=self.number,
                                           line=self.line, column=at + 1 if at >= 0 else 1, ply=ply,
                                           expected=expected, kind="warning"))

    def read(self) -> None:
        moves = self.raw.moves
        count = len(moves)
        clocks = self.data.get("clocks")
        if clocks is not None:
            self.clocks(clocks, moves, count)
        analysis = self.data.get("analysis")
        if analysis is not None:
            self.analysis(analysis, moves, count)

    def clocks(self, clocks, moves, count: int) -> None:
        expected = "the clock after each ply in centiseconds: a list of whole numbers"
        if not isinstance(clocks, list):
            return self.warn("clocks", "not a list: not kept", expected=expected)
        if len(clocks) > count:
            self.warn("clocks", f"{len(clocks)} entries for {count} moves: the last {len(clocks) - count} not kept",
                      ply=count + 1, expected="at most one entry a move")
        comments = moves.comments_of
        for i, centis in enumerate(clocks[:count]):
            if not _whole(centis) or centis < 0:
                self.warn("clocks", f"entry {i + 1} is {json.dumps(centis)[:40]}: not kept", ply=i + 1,
                          expected="a whole number of centiseconds, 0 or more")
                continue
            comments(i).append(clock_text(centis))

    def analysis(self, analysis, moves, count: int) -> None:
        expected = (f"one object a ply with eval or mate (whole numbers up to {LIMITS['cp']:,} and "
                    f"{LIMITS['mate']:,}), best and variation (USI text)")
        if not isinstance(analysis, list):
            return self.warn("analysis", "not a list: not kept", expected=expected)
        if len(analysis) > count:
            self.warn("analysis", f"{len(analysis)} entries for {count} moves: the last {len(analysis) - count} "
                      "not kept", ply=count + 1, expected="at most one entry a move")
        scores: dict = {}  # ply -> (cp, mate, judgment)
        lines: dict = {}  # ply of the position the line starts from -> (best, variation)
        for i, entry in enumerate(analysis[:count]):
            ply = i + 1
            if not isinstance(entry, dict):
                self.warn("analysis", f"entry {ply} is not an object: not kept", ply=ply, expected=expected)
                continue
            cp, mate, best, variation = (entry.get(k) for k in ("eval", "mate", "best", "variation"))
            judgment = entry.get("judgment")
            judgment = judgment.get("name") if isinstance(judgment, dict) else judgment
            bad = [k for k, v, ok in (("eval", cp, _centipawns), ("mate", mate, _moves), ("best", best, _text),
                                      ("variation", variation, _text), ("judgment", judgment, _text))
                   if v is not None and not ok(v)]
            if bad:
                self.warn("analysis", f"entry {ply}: {', '.join(bad)} of the wrong kind: the entry is not kept",
                          ply=ply, expected=expected)
                continue
            if cp is not None or mate is not None or judgment:
                scores[ply] = (cp if mate is None else None, mate, judgment)
            if best or variation:
                line = variation.split() if variation else []
                if len(line) > MAX_LINE:
                    self.warn("analysis", f"entry {ply}: a variation of {len(line)} moves: the first {MAX_LINE} "
                              "kept", ply=ply, expected=f"at most {MAX_LINE} moves")
                lines[ply - 1] = (best, tuple(line[:MAX_LINE]))
        for ply in sorted(set(scores) | set(lines)):
            cp, mate, judgment = scores.get(ply, (None, None, None))
            best, variation = lines.get(ply, (None, ()))
            ev = Evaluation(cp=cp, mate=mate, best=best or (variation[0] if variation else None),
                            variation=variation, judgment=judgment)
            if ply == 0:
                self.raw.eval = ev
            else:
                moves.set_eval(ply - 1, ev)


def _text(value) -> bool:
    return isinstance(value, str)


def _centipawns(value) -> bool:
    return _whole(value) and abs(value) <= LIMITS["cp"]


def _moves(value) -> bool:
    return _whole(value) and abs(value) <= LIMITS["mate"]


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
