"""The values the rules core hands out: a move, a piece, how a game ended, and why a move is
illegal (a code and a message).

They depend on nothing but square names, so the rule set (which builds ready-made moves) and the
board both import them from here.

>>> from daikifu.replay.move import Move
>>> Move(165, 197).uci(), Move(None, 200, drop="P").uci()
('c3c4', 'P*f4')
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Final, NamedTuple

from .squares import CELLS, MAX_FILES, MAX_RANKS, square_file, square_name, square_rank

__all__ = ["Move", "Piece", "Outcome", "IllegalReason", "Illegality", "IllegalMoveError", "FIRST", "SECOND"]

FIRST: Final = 0  # Sente, the player at the bottom who moves first
SECOND: Final = 1  # Gote

_SQUARE_NAMES: Final = tuple(square_name(sq) if 0 <= square_file(sq) < MAX_FILES and 0 <= square_rank(sq) < MAX_RANKS
                      else "?" for sq in range(CELLS))  # (a cell off every board has no name)


class Move(NamedTuple):
    """A move, identified by its effect.

    ``from_square`` is None for a drop, and ``drop`` is then the dropped piece's ID.  ``kills`` are
    the squares captured on the way, in path order, not counting a capture on ``to_square``
    (Lion-type moves; igui has ``to_square == from_square``; a pass has ``to_square ==
    from_square`` and no kills).  ``promotion`` is True when the piece promotes, False when it
    declines a promotion it could make, and None when it cannot promote.
    """

    from_square: int | None
    to_square: int
    kills: tuple[int, ...] = ()
    promotion: bool | None = None
    drop: str | None = None

    def uci(self) -> str:
        """A compact machine form: ``h2h3``, ``e4f5f6`` (kills between), ``h2h3+``/``h2h3=``, ``P*e5``."""
        names = _SQUARE_NAMES  # (the archive writes one for every ply it stores)
        origin = self.from_square
        if self.drop is not None or origin is None:
            return f"{self.drop}*{names[self.to_square]}"
        kills = self.kills
        text = names[origin] + ("".join([names[k] for k in kills]) if kills else "") + names[self.to_square]
        promotion = self.promotion
        return text if promotion is None else text + ("+" if promotion else "=")

    @property
    def is_pass(self) -> bool:
        return self.from_square == self.to_square and not self.kills

    def __str__(self) -> str:
        return self.uci()


class Piece(NamedTuple):
    id: str
    colour: int

    def __str__(self) -> str:
        return self.id if self.colour == FIRST else self.id.lower()


@dataclass(frozen=True)
class Outcome:
    """How a game ended: ``termination`` is checkmate, stalemate, repetition or perpetual-check."""

    termination: str
    winner: int | None  # FIRST, SECOND or None for a draw

    def result(self) -> str:
        return {FIRST: "1-0", SECOND: "0-1", None: "1/2-1/2"}[self.winner]


class IllegalReason(enum.Enum):
    """Why a move is not legal: what code decides on (the message that goes with it is for people
    and may be reworded; see :class:`Illegality`)."""

    OFF_BOARD = "off-board"  # the destination is not a square of the board
    NO_DROPS = "no-drops"  # the variant has no drops
    MALFORMED_DROP = "malformed-drop"  # a drop with an origin, captures or a promotion
    UNKNOWN_PIECE = "unknown-piece"  # the dropped piece is not a piece of the variant
    NOT_IN_HAND = "not-in-hand"
    DROP_SQUARE_OCCUPIED = "drop-square-occupied"
    DROP_ON_DEAD_SQUARE = "drop-on-dead-square"  # the dropped piece could never move from there
    DROP_CAP_REACHED = "drop-cap-reached"  # nifu and the other caps on unpromoted pieces
    NO_ORIGIN = "no-origin"
    EMPTY_ORIGIN = "empty-origin"
    OPPONENTS_PIECE = "opponents-piece"  # the piece on the origin belongs to the opponent
    OWN_PIECE_ON_DESTINATION = "own-piece-on-destination"
    PIECE_CANNOT_MOVE_SO = "piece-cannot-move-so"  # the piece has no such move (or it is blocked)
    PROMOTION_MUST_BE_CHOSEN = "promotion-must-be-chosen"  # the move may promote: + or = must say
    CANNOT_PROMOTE = "cannot-promote"
    PROMOTION_COMPULSORY = "promotion-compulsory"
    PROTECTED_LION = "protected-lion"  # Lion-trading rule: a protected Lion taken from afar
    COUNTER_STRIKE = "counter-strike"  # Lion-trading rule: a Lion just taken by a non-Lion
    LEAVES_ROYAL_IN_CHECK = "leaves-royal-in-check"
    DROP_MATE = "drop-mate"  # a piece that may not give checkmate by being dropped does
    PASS_WITHOUT_ORIGIN = "pass-without-origin"  # (move text) a pass written without its origin


class Illegality(NamedTuple):
    """Why a move is illegal: ``code`` (an :class:`IllegalReason`) for code to decide on, and
    ``message`` for people (``str()`` gives the message)."""

    code: IllegalReason
    message: str

    def __str__(self) -> str:
        return self.message


class IllegalMoveError(ValueError):
    """The move is not legal in this position; ``reason`` says why, ``code`` is the
    :class:`IllegalReason`."""

    def __init__(self, move, reason: str, code: IllegalReason | None = None):
        self.move = move
        self.reason = reason
        self.code = code
        super().__init__(f"illegal move {move}: {reason}")
