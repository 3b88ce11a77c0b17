"""Squares: one integer per square, the same numbering for every board size.

A square is an index into a padded mailbox of ``STRIDE`` columns, with ``PAD`` off-board cells
around the playing area, so that leaps of up to three squares never need a bounds check::

    square(file, rank) = (rank + PAD) * STRIDE + file + PAD      file, rank counted from 0

Files are lettered a, b, c ... from the first player's left; ranks are numbered 1, 2, 3 ... from
the first player's side (``a1`` is the first player's lower-left corner; ``o15``, ``i16``).
"""

from __future__ import annotations

from typing import Final

import re

MAX_FILES: Final = 16
MAX_RANKS: Final = 16
PAD: Final = 3
STRIDE: Final = 32  # > 2 * MAX_FILES, so every (dx, dy) with |dx| < 16 has its own offset dx + dy * STRIDE
CELLS: Final = STRIDE * (MAX_RANKS + 2 * PAD)
FILE_LETTERS: Final = "abcdefghijklmnop"

_SQUARE_RE: Final = re.compile(r"([a-p])(\d{1,2})\Z")


def square(file: int, rank: int) -> int:
    """The square on ``file`` and ``rank``, both counted from 0."""
    return (rank + PAD) * STRIDE + file + PAD


def square_file(sq: int) -> int:
    return sq % STRIDE - PAD


def square_rank(sq: int) -> int:
    return sq // STRIDE - PAD


def square_name(sq: int) -> str:
    """Algebraic name: ``square_name(square(0, 0)) == 'a1'``."""
    return f"{FILE_LETTERS[square_file(sq)]}{square_rank(sq) + 1}"


def parse_square(name: str, files: int = MAX_FILES, ranks: int = MAX_RANKS) -> int:
    """Parse an algebraic square name; raise ``ValueError`` if it is not on a files x ranks board."""
    m = _SQUARE_RE.match(name)
    if not m:
        raise ValueError(f"not a square: {name!r} (expected a file letter and a rank number, e.g. 'e5')")
    f = FILE_LETTERS.index(m.group(1))
    r = int(m.group(2)) - 1
    if not (0 <= f < files and 0 <= r < ranks):
        raise ValueError(f"square {name!r} is off the {files}x{ranks} board")
    return square(f, r)


def offset(dx: int, dy: int) -> int:
    """The difference between two squares ``dx`` files and ``dy`` ranks apart."""
    return dx + dy * STRIDE


# A square in one byte (its file and rank, 16 of each at most): lists of squares kept a long time
# (the origins of the move texts a reader has met) take an eighth of the room of a tuple of ints.
SQUARE_OF_BYTE: Final = tuple(square(f, r) for r in range(MAX_RANKS) for f in range(MAX_FILES))
BYTE_OF_SQUARE: Final = [0] * CELLS  # (a cell off every board: 0)
for _n, _sq in enumerate(SQUARE_OF_BYTE):
    BYTE_OF_SQUARE[_sq] = _n
del _n, _sq
