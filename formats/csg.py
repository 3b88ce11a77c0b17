"""The Chu Shogi server's game records (``.csg``): the historical Chu Shogi games it keeps.

A record is ten header lines, then one move per line::

    3                       format version
    board.data              the setup (see below)
    EVEN                    the handicap's name
    Mori                    the player who moves first
    Fukui                   the other player
    See Chu Shogi ...       a comment (up to line 10)

    0 P 1a - 1a             a dummy move, skipped
    1 P 8i - 8h             move number, piece, origin, "-" (to an empty square) or "x" (a capture),
    19 Ln 6g x! 6f          destination; "x!" captures without moving (igui); a Lion's second step
    52 Ln 11g x 12g - 11f   follows as another "-"/"x" and square; "+" promotes, "=" declines
    65 S 8h x 8i =

Squares are written as USI writes them on a 12x12 board (file number from the first player's
right, rank letter from the top).  The setup names the server's setup file: ``board.data`` is the
even game; ``freekingMSMa``, ``freekingMSMb`` and ``dragonkingMSM`` are the handicaps that
``chu-shogi.toml`` offers as its option ``setup`` (the handicap giver, at the top, moves first).
The records end without a result.

>>> game = next(read_csg("3\\nboard.data\\nEVEN\\nA\\nB\\n\\n\\n\\n\\n\\n0 P 1a - 1a\\n1 P 8i - 8h\\n"))
>>> game.headers["Sente"], [str(m) for m in game.mainline_moves()]
('A', ['e4e5'])
"""

from __future__ import annotations

import re
from typing import Iterator

from daikifu.replay import Board, Move
from daikifu.replay.usi import UsiError, parse_usi_square, usi_square

from .detection import CSG_HEADER_LINES, CSG_LEG_RE, CSG_MOVE_RE, looks_like_csg
from .game import GameError
from .playback import MoveTextError, RawGame, RawMove, play

__all__ = ["read_csg", "looks_like_csg", "SETUPS"]

VARIANT = "chu-shogi"
HEADER_LINES = CSG_HEADER_LINES
# the server's setup files -> the value of chu-shogi's option "setup"
SETUPS = {"board.data": "even", "freekingMSMa.data": "free-king", "freekingMSMb.data": "free-king-alternate",
          "dragonkingMSM.data": "free-king-dragon-king"}
_MOVE_RE = CSG_MOVE_RE
_LEG_RE = CSG_LEG_RE


def _reader(m: re.Match):
    def read(board: Board) -> Move:
        try:
            origin = parse_usi_square(board, m.group("origin"))
            legs = [(sep, parse_usi_square(board, sq)) for sep, sq in _LEG_RE.findall(m.group("legs"))]
        except UsiError as exc:
            raise MoveTextError(exc.reason, "a square such as 8i") from None
        piece = board.piece_at(origin)
        wanted = board.variant.piece_index().get(m.group("piece").upper())
        if piece is None or wanted is None or piece.id != wanted.id:
            raise MoveTextError(f"no {m.group('piece')} of the side to move on {m.group('origin')}",
                                "the piece that stands on the origin square")
        kills = [sq for sep, sq in legs[:-1] if sep != "-"]
        last_sep, to = legs[-1]
        for sep, sq in legs:
            if sep != "-" and board.piece_at(sq) is None:
                raise MoveTextError(f"nothing to capture on {usi_square(board, sq)}", "'-' for a move to an empty square")
        if last_sep == "x!":  # igui: the piece takes and stays
            kills.append(to)
            to = origin
        promo = {"+": True, "=": False}.get(m.group("promo"))
        move = Move(origin, to, tuple(kills), promo)
        if promo is None and board.illegal_reason(move) == "the move can promote: promotion must be chosen":
            move = move._replace(promotion=False)  # a promotion not written is declined
        return move
    return read


def read_csg(text: str, *, file: str | None = None, variant: str | None = None, lenient: bool = False,
             visitor=None, variants=None) -> Iterator:
    """The game of a ``.csg`` record (a :class:`Game` by default)."""
    lines = text.splitlines()
    raw = RawGame(1, 1, 0, text)
    head = [line.strip() for line in lines[:HEADER_LINES]] + [""] * max(0, HEADER_LINES - len(lines))
    setup = SETUPS.get(head[1])
    if setup is None:
        raw.problems.append(GameError(f"unknown setup {head[1]!r}", file=file, game=1, line=2, column=1,
                                      expected=" or ".join(SETUPS)))
        setup = "even"
    raw.headers.append(("Variant", variant or VARIANT))
    if setup != "even":
        raw.headers.append(("RuleSet", f"setup={setup}"))
    first, second = head[3] or "?", head[4] or "?"
    # the handicap giver (at the top, the second player) moves first
    sente, gote = (first, second) if setup == "even" else (second, first)
    raw.headers += [("Sente", sente), ("Gote", gote), ("Handicap", head[2] or "?"), ("Result", "*")]
    comment = " ".join(h for h in head[5:] if h)
    if comment:
        raw.comments.append(comment)
    for n, line in enumerate(lines[HEADER_LINES:], start=HEADER_LINES + 1):
        if not line.strip():
            continue
        m = _MOVE_RE.match(line)
        if m is None:
            raw.problems.append(GameError("not a move line", file=file, game=1, line=n, column=1, move=line.strip(),
                                          expected="e.g. '1 P 8i - 8h' or '52 Ln 11g x 12g - 11f'"))
            break
        if m.group("number") == "0":
            continue  # the server's dummy first line
        raw.moves.append(RawMove(line.strip(), n, line.index(m.group("piece")) + 1, _reader(m)))
    yield play(raw, variant or VARIANT, visitor=visitor, lenient=lenient, file=file, variants=variants)
