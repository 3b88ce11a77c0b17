"""USI position lines as game records: ``position startpos moves ...`` or ``position sfen <SFEN>
moves ...``, one game per line (the word ``position`` may be left out).

>>> game = next(read_usi("position startpos moves 7g7f 3c3d\\n"))
>>> [str(m) for m in game.mainline_moves()]
['c3c4', 'g7g6']

The moves and squares are those of :mod:`replay.usi` (standard USI for shogi, lishogi's form for the
larger boards).  A USI line does not name its variant: it is the ``variant`` given to the reader
(shogi by default).  Blank lines and lines starting with ``#`` are skipped.  The writer writes the
main line only (USI has no comments, tags or variations).
"""

from __future__ import annotations

import re
from typing import Iterator

from daikifu.replay.usi import UsiError, format_usi_position, usi_position_span, usi_to_move

from .detection import looks_like_usi
from .game import Game, GameError
from .playback import MoveTextError, RawGame, RawMoves, iter_lines, play

__all__ = ["read_usi", "write_usi", "looks_like_usi"]



_WORD_RE = re.compile(r"\S+")
_COMMENT_RE = re.compile(r"\s*#")


def _reader(word: str):
    def read(board):
        try:
            return usi_to_move(board, word)
        except UsiError as exc:
            raise MoveTextError(exc.reason, expected="a USI move such as 7g7f, 8h2b+ or P*5e") from None
    return read


def read_usi(text: str, *, file: str | None = None, variant: str | None = None, lenient: bool = False,
             visitor=None, variants=None) -> Iterator:
    """Every game of a text of USI position lines (a :class:`Game` each by default)."""
    name = variant or "shogi"
    number = 0
    for n, (start_offset, line) in enumerate(iter_lines(text), start=1):
        if line.isspace() or _COMMENT_RE.match(line):
            continue
        number += 1
        raw = RawGame(number, n, start_offset, line)
        raw.moves = moves = RawMoves(line, _reader)
        try:
            sfen, first, end = usi_position_span(line)
        except UsiError as exc:
            raw.problems.append(GameError(exc.reason, file=file, game=number, line=n, column=1,
                                          expected="position startpos moves ... or position sfen <SFEN> moves ..."))
            sfen, first, end = None, 0, 0
        if sfen is not None:
            raw.headers.append(("SFEN", sfen))
        for word in _WORD_RE.finditer(line, first, end):  # one at a time: a long game is one long line
            moves.add(word.start(), word.end(), n, word.start() + 1)
        yield play(raw, name, visitor=visitor, lenient=lenient, file=file, variants=variants)


def write_usi(game: Game, encoding: str = "utf-8") -> bytes:
    """The game's main line as one USI position line."""
    return (format_usi_position(game.rules, game.start, game.mainline_moves()) + "\n").encode(encoding)
