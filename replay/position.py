"""Position strings: an SFEN-shaped text for any position of any variant.

::

    <ranks> <side> <hands> <move number>

* ``ranks``: from the top rank (the second player's side) down to rank 1, separated by ``/``; in
  each rank the files from ``a`` to the last.  A number is that many empty squares.  A piece is its
  ID: upper case for the first player, lower case for the second.  A one-letter ID, or ``+`` and one
  letter, is written bare (``P``, ``+p``); every other ID is put in parentheses (``(LD)``,
  ``(!ld)``, ``(+LD)``).  ``+(LD)`` is read as ``(+LD)``.
* ``side``: ``b`` when the first player (Sente) is to move, ``w`` for the second (Gote): SFEN's
  letters.
* ``hands``: ``-`` for none, else each piece with a count before it when more than one, first
  player's pieces first, in the order of the variant file (``2P(LD)p``).  A variant with the
  counter-strike rule (``lion_counter_strike``, never with drops) keeps here instead the square
  where the last move took a Lion with a non-Lion (``e3``; lishogi's ``8j`` is read too), or ``-``.
* ``move number``: the number of the ply about to be played, starting at 1 (as in SFEN).

For shogi this is exactly SFEN, so every SFEN string is accepted as it is; so is lishogi's SFEN
for Chu Shogi (its piece letters are aliases in the variant file).  Fields left out at the end
mean: first player to move, empty hands, move 1.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .squares import parse_square, square

if TYPE_CHECKING:  # (only named in annotations: the variant module reads positions with this one)
    from .rules import Ruleset
    from .variant import Variant

    Shape = Variant | Ruleset  # what these functions read: the pieces, the board's size, the name

__all__ = ["PositionError", "ParsedPosition", "parse_position", "format_position", "format_piece", "board_rows"]


class PositionError(ValueError):
    """A position string that does not describe a position of the variant."""


@dataclass
class ParsedPosition:
    pieces: dict  # square -> (type index, colour)
    hands: list  # [counts by type index for colour 0, ... for colour 1]
    turn: int
    move_number: int
    lion_capture: int | None = None  # the counter-strike square (rule lion_counter_strike)


_TOKEN_RE = re.compile(r"\+?\([^()]*\)|\+?[A-Za-z]|\d+|.", re.S)


def _piece_token(variant: Shape, token: str) -> tuple[int, int]:
    """(type index, colour) of a piece token such as ``P``, ``+p``, ``(LD)``, ``+(ld)``."""
    body = token
    if body.startswith("+("):
        body = "+" + body[2:-1]
    elif body.startswith("("):
        body = body[1:-1]
    letters = [c for c in body if c.isalpha()]
    if not letters:
        raise PositionError(f"{token!r} is not a piece")
    if all(c.isupper() for c in letters):
        colour = 0
    elif all(c.islower() for c in letters):
        colour = 1
    else:
        raise PositionError(f"piece {token!r} mixes upper and lower case")
    piece = variant.piece_index().get(body.upper())
    if piece is None:
        raise PositionError(f"{variant.name} has no piece {body.upper()!r}")
    return piece.index, colour


def format_piece(variant: Shape, type_index: int, colour: int) -> str:
    pid = variant.pieces[type_index - 1].id
    bare = len(pid) == 1 or (len(pid) == 2 and pid[0] == "+")
    text = pid if bare else f"({pid})"
    return text if colour == 0 else text.lower()


def parse_position(variant: Shape, text: str) -> ParsedPosition:
    """Parse a position string for ``variant``; raise :class:`PositionError` saying what is wrong."""
    fields = text.split()
    if 1 <= len(fields) <= 3:
        fields += ["b", "-", "1"][len(fields) - 1:]
    if len(fields) != 4:
        raise PositionError(f"expected '<ranks> <side> <hands> <move number>', got {len(fields)} fields")
    board_text, side, hands_text, number = fields
    rows = board_text.split("/")
    if len(rows) != variant.ranks:
        raise PositionError(f"{len(rows)} ranks given, {variant.name} has {variant.ranks}")
    pieces = {}
    for i, row in enumerate(rows):
        rank = variant.ranks - 1 - i
        f = 0
        for token in _TOKEN_RE.findall(row):
            if token.isdigit():
                f += int(token)
                continue
            if token in ("(", ")") or not (token[0].isalpha() or token[0] in "+("):
                raise PositionError(f"rank {rank + 1}: unexpected {token!r}")
            if f >= variant.files:
                raise PositionError(f"rank {rank + 1} has more than {variant.files} files")
            pieces[square(f, rank)] = _piece_token(variant, token)
            f += 1
        if f != variant.files:
            raise PositionError(f"rank {rank + 1} has {f} files, {variant.name} has {variant.files}")
    if side not in ("b", "w"):
        raise PositionError(f"side to move {side!r}: expected 'b' (first player) or 'w' (second player)")
    ntypes = len(variant.pieces)
    hands = [[0] * (ntypes + 1), [0] * (ntypes + 1)]
    lion_capture = None
    rules = getattr(variant, "rules", None) or {}
    if hands_text != "-" and rules.get("lion_counter_strike", "none") != "none":
        lion_capture = _lion_square(variant, hands_text)
    elif hands_text != "-":
        count = None
        for token in _TOKEN_RE.findall(hands_text):
            if token.isdigit():
                if count is not None:
                    raise PositionError(f"hands: two counts in a row before {token!r}")
                count = int(token)
                if count < 1:
                    raise PositionError("hands: a count must be at least 1")
                continue
            t, colour = _piece_token(variant, token)
            hands[colour][t] += 1 if count is None else count
            count = None
        if count is not None:
            raise PositionError("hands: a count with no piece after it")
    if not number.isdigit() or int(number) < 1:
        raise PositionError(f"move number {number!r}: expected a whole number from 1")
    return ParsedPosition(pieces, hands, 0 if side == "b" else 1, int(number), lion_capture)


_SHOGI_SQUARE_RE = re.compile(r"(\d{1,2})([a-p])\Z")


def _lion_square(variant: Shape, text: str) -> int:
    """The counter-strike square: ``e3`` (file letter from the left, rank from the bottom) or
    lishogi's ``8j`` (file number from the right, rank letter from the top)."""
    m = _SHOGI_SQUARE_RE.match(text)
    try:
        if m:
            f, r = variant.files - int(m.group(1)), variant.ranks - 1 - (ord(m.group(2)) - ord("a"))
            if not (0 <= f < variant.files and 0 <= r < variant.ranks):
                raise ValueError(f"square {text!r} is off the board")
            return square(f, r)
        return parse_square(text, variant.files, variant.ranks)
    except ValueError as exc:
        raise PositionError(f"third field {text!r}: expected '-' or the square where a Lion was just "
                            f"taken by a non-Lion ({exc})") from None


def format_position(variant: Shape, cells, hands, turn: int, move_number: int) -> str:
    """The canonical position string; ``cells(file, rank)`` gives ``(type index, colour)`` or None."""
    def token(f: int, rank: int) -> str | None:
        piece = cells(f, rank)
        return None if piece is None else format_piece(variant, *piece)
    return f"{board_rows(variant.files, variant.ranks, token)} {'bw'[turn]} {format_hands(variant, hands)} {move_number}"


def board_rows(files: int, ranks: int, token) -> str:
    """The board part of a FEN-like text: the ranks from the top, ``/`` between them, each square's
    ``token(file, rank)`` and a run of empty squares (token None) as its length.

    >>> board_rows(3, 2, lambda f, r: "K" if (f, r) == (1, 0) else None)
    '3/1K1'
    """
    rows = []
    for rank in range(ranks - 1, -1, -1):
        out = []
        empty = 0
        for f in range(files):
            text = token(f, rank)
            if text is None:
                empty += 1
                continue
            if empty:
                out.append(str(empty))
                empty = 0
            out.append(text)
        if empty:
            out.append(str(empty))
        rows.append("".join(out))
    return "/".join(rows)


def format_hands(variant: Shape, hands) -> str:
    """The hands field: Sente's pieces then Gote's, in the variant's piece order (``-``: none)."""
    hand = []
    for colour in (0, 1):
        for p in variant.pieces:
            n = hands[colour][p.index]
            if n:
                hand.append(("" if n == 1 else str(n)) + format_piece(variant, p.index, colour))
    return "".join(hand) or "-"
