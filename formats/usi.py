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

from typing import Iterator

from daikifu.replay.usi import UsiError, format_usi_position, parse_usi_position, usi_to_move

from .detection import looks_like_usi
from .game import Game, GameError
from .playback import MoveTextError, RawGame, RawMove, play

__all__ = ["read_usi", "write_usi", "looks_like_usi"]



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
    offset = 0
    number = 0
    for n, line in enumerate(text.splitlines(keepends=True), start=1):
        start_offset = offset
        offset += len(line)
        body = line.rstrip("\r\n")
        if not body.strip() or body.lstrip().startswith("#"):
            continue
        number += 1
        raw = RawGame(number, n, start_offset, line)
        try:
            sfen, words = parse_usi_position(None, body)
        except UsiError as exc:
            raw.problems.append(GameError(exc.reason, file=file, game=number, line=n, column=1,
                                          expected="position startpos moves ... or position sfen <SFEN> moves ..."))
            sfen, words = None, []
        if sfen is not None:
            raw.headers.append(("SFEN", sfen))
        pos = body.find(" moves") + len(" moves") if " moves" in body else len(body)
        for word in words:
            column = body.index(word, pos)
            raw.moves.append(RawMove(word, n, column + 1, _reader(word)))
            pos = column + len(word)
        yield play(raw, name, visitor=visitor, lenient=lenient, file=file, variants=variants)


def write_usi(game: Game, encoding: str = "utf-8") -> bytes:
    """The game's main line as one USI position line."""
    return (format_usi_position(game.rules, game.start, game.mainline_moves()) + "\n").encode(encoding)
