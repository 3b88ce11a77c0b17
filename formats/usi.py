"""USI position lines as game records: ``position startpos moves ...`` or ``position sfen <SFEN>
moves ...``, one game per line (the word ``position`` may be left out).

>>> game = next(read_usi("position startpos moves 7g7f 3c3d\\n"))
>>> [str(m) for m in game.mainline_moves()]
['c3c4', 'g7g6']

The moves and squares are those of :mod:`replay.usi` (standard USI for shogi, lishogi's form for the
larger boards).  A position line does not name its variant: ``setoption`` lines before it do, as a
USI GUI tells a variant engine (Fairy-Stockfish's ``UCI_Variant``) and its rule options::

    setoption name UCI_Variant value chu-shogi
    setoption name setup value free-king
    position startpos moves 4a4b 9h9g

They hold for the lines that follow, as in a USI session: ``UCI_Variant`` names the variant (a
daikifu name or alias: lishogi's ``chushogi`` too) and sets its options back to their defaults; any
other name sets one option (the game's ``RuleSet``).  Without them a line is a game of the
``variant`` given to the reader (shogi by default).  Blank lines and lines starting with ``#`` are
skipped.  The writer writes every game's variant line and the options that differ from the
defaults, then the main line (USI has no comments, tags or variations), so each game reads back
with its rule set whatever comes before it.

>>> game = next(read_usi("setoption name UCI_Variant value chushogi\\nposition startpos moves 9l9k\\n"))
>>> game.variant.slug, len(game.mainline_moves())
('chu-shogi', 1)
"""

from __future__ import annotations

import re
from typing import Iterator

from daikifu.replay.squares import parse_square
from daikifu.replay.usi import UsiError, format_usi_position, usi_position_span, usi_square, usi_to_move

from .detection import looks_like_usi
from .game import Game, GameError
from .playback import MoveTextError, RawGame, RawMoves, iter_lines, play

__all__ = ["read_usi", "write_usi", "looks_like_usi", "VARIANT_OPTION"]



_WORD_RE = re.compile(r"\S+")
_COMMENT_RE = re.compile(r"\s*#")


_ALGEBRAIC_RE = re.compile(r"\b([a-p])(\d{1,2})\b")


def usi_squares(board, text: str) -> str:
    """``text`` (a reason of the rules core, which names squares algebraically: ``b2``) with each
    square of the board named as USI names it (``8h``), so that a USI record's errors speak one
    notation.

    >>> from daikifu.replay import Board
    >>> usi_squares(Board("shogi"), "the B on b2 cannot make that move")
    'the B on 8h cannot make that move'
    """
    def name(m):
        try:
            return usi_square(board, parse_square(m.group(), board.rules.files, board.rules.ranks))
        except ValueError:
            return m.group()
    return _ALGEBRAIC_RE.sub(name, text)


def _reader(word: str):
    def read(board):
        try:
            return usi_to_move(board, word)
        except UsiError as exc:
            raise MoveTextError(usi_squares(board, exc.reason),
                                expected="a USI move such as 7g7f, 8h2b+ or P*5e") from None
    return read


VARIANT_OPTION = "UCI_Variant"  # the option that names the variant (Fairy-Stockfish's, lishogi's engines')
_SETOPTION_RE = re.compile(r"\s*setoption\b")
_SETOPTION_FULL_RE = re.compile(r"\s*setoption\s+name\s+(\S+)(?:\s+value\s+(\S(?:.*\S)?))?\s*\Z")


def read_usi(text: str, *, file: str | None = None, variant: str | None = None, lenient: bool = False,
             visitor=None, variants=None) -> Iterator:
    """Every game of a text of USI position lines (a :class:`Game` each by default)."""
    name = variant or "shogi"
    named = False  # a UCI_Variant line named the variant
    options: dict[str, str] = {}
    pending: list = []  # problems of setoption lines, given to the next game
    number = 0
    for n, (start_offset, line) in enumerate(iter_lines(text), start=1):
        if line.isspace() or _COMMENT_RE.match(line):
            continue
        if _SETOPTION_RE.match(line):
            m = _SETOPTION_FULL_RE.match(line.rstrip("\r\n"))
            if m is None or m.group(2) is None:
                pending.append((f"cannot read {line.strip()[:60]!r}", n))
            elif m.group(1) == VARIANT_OPTION:
                name, named, options = m.group(2), True, {}
            else:
                options[m.group(1)] = m.group(2)
            continue
        number += 1
        raw = RawGame(number, n, start_offset, line)
        if named:
            raw.headers.append(("Variant", name))
        if options:
            raw.headers.append(("RuleSet", ", ".join(f"{k}={v}" for k, v in options.items())))
        for message, where in pending:
            raw.problems.append(GameError(message, file=file, game=number, line=where, column=1,
                                          expected="setoption name NAME value VALUE"))
        pending = []
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
    """The game's variant and rule options as ``setoption`` lines, then its main line as one USI
    position line."""
    lines = [f"setoption name {VARIANT_OPTION} value {game.variant.slug}"]
    for key, value in game.options.items():
        option = game.variant.options.get(key)
        if option is not None and option.default != value:
            lines.append(f"setoption name {key} value {value}")
    lines.append(format_usi_position(game.rules, game.start, game.mainline_moves()))
    return ("\n".join(lines) + "\n").encode(encoding)
