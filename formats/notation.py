"""Canonical move notation (provisional): how daikifu writes a move for people and for its CLI.

The shape follows the western notation of the Chu Shogi community (lishogi, the Chu Shogi League),
with algebraic squares (files a, b, c ... from the first player's left, ranks 1, 2, 3 ... from the
first player's side)::

    P-c4        piece ID, "-" for a move to an empty square, destination
    Bxh8        "x" when the destination holds a captured piece
    Ga1-b2      origin written only when another piece of the same ID could make a move with the
                same effect (the same captures and destination)
    !LDxe5xe6   multi-step moves: every square captured on the way gets "x" before it
    !LDxe5-e6   ... and then "-" or "x" before the destination
    !LDx!e5     capture without moving (igui): "x!" before the square captured, the piece stays
    !LDxe5x!e6  several captures, returning to the start square
    !LDe4-e4    pass: origin and destination are the same square; the origin is always written
    P-c7+       "+" when the piece promotes, "=" when it declines a promotion it could make
    P*e5        drop: piece ID, "*", square

IDs are written as the variant file spells them (upper case).  ``x`` is always lower case, so it
never merges into an ID.
"""

from __future__ import annotations

import difflib
import re

from replay import Board, Move
from replay.squares import parse_square, square_name

__all__ = ["move_notation", "notations", "parse_move", "NotationError"]


class NotationError(ValueError):
    """A move text that does not name exactly one legal move.

    ``reason`` says what is wrong, ``expected`` what would have been acceptable, and
    ``suggestions`` lists up to three legal moves written most like the text ("did you mean").
    """

    def __init__(self, text: str, reason: str, expected: str | None = None, suggestions=()):
        self.text = text
        self.reason = reason
        self.expected = expected
        self.suggestions = list(suggestions)
        message = f"{text!r}: {reason}"
        if self.suggestions:
            message += "; did you mean " + ", ".join(self.suggestions) + "?"
        super().__init__(message)


def _piece_id(board: Board, move: Move) -> str:
    if move.drop is not None:
        return move.drop
    piece = board.piece_at(move.from_square)
    if piece is None:
        raise ValueError(f"no piece on {square_name(move.from_square)} for move {move}")
    return piece.id


def _body(board: Board, move: Move) -> str:
    """The notation after the piece ID and origin, without the promotion suffix."""
    to = move.to_square
    if move.drop is not None:
        return "*" + square_name(to)
    if to == move.from_square:
        if not move.kills:
            return "-" + square_name(to)  # pass
        *path, last = move.kills
        return "".join("x" + square_name(k) for k in path) + "x!" + square_name(last)
    text = "".join("x" + square_name(k) for k in move.kills)
    captured = to in board.captured_squares(move)
    return text + ("x" if captured else "-") + square_name(to)


def _suffix(move: Move) -> str:
    return {True: "+", False: "=", None: ""}[move.promotion]


def _key(board: Board, move: Move) -> tuple:
    return (_piece_id(board, move), _body(board, move))


def _needs_origin(move: Move) -> bool:
    return move.drop is None and move.to_square == move.from_square and not move.kills


def _write(board: Board, move: Move, with_origin: bool) -> str:
    pid, body = _key(board, move)
    origin = square_name(move.from_square) if (with_origin or _needs_origin(move)) and move.drop is None else ""
    return pid + origin + body + _suffix(move)


def notations(board: Board, moves: list[Move] | None = None) -> dict[Move, str]:
    """Notation of every move in ``moves`` (default: every legal move), disambiguated among them.

    ``moves`` should be all the legal moves of the position (or a superset); an origin is written
    when two of them by pieces of the same ID have the same captures and destination.
    """
    if moves is None:
        moves = board.legal_moves()
    origins: dict = {}
    for m in moves:
        if m.drop is None:
            origins.setdefault(_key(board, m), set()).add(m.from_square)
    out = {}
    for m in moves:
        ambiguous = m.drop is None and len(origins.get(_key(board, m), ())) > 1
        out[m] = _write(board, m, ambiguous)
    return out


def move_notation(board: Board, move: Move) -> str:
    """Notation of one legal move in the position on ``board`` (before the move is played).

    Only the moves of other pieces of the same ID are generated and checked, so this is cheaper than
    :func:`notations` for a single move.
    """
    if move.drop is not None or _needs_origin(move):
        return _write(board, move, False)
    key = _key(board, move)
    for other in board.pseudo_legal_moves():
        if (other.drop is None and other.from_square != move.from_square
                and _key(board, other) == key and board.is_legal(other)):
            return _write(board, move, True)
    return _write(board, move, False)


_SQ = r"[a-p](?:1[0-6]|[1-9])"
_BODY_RE = re.compile(rf"""
    (?P<origin>{_SQ}|[a-p]|1[0-6]|[1-9])?
    (?P<legs>(?:(?:x!|x|-)?{_SQ})+)
    (?P<promo>[+=])?\Z""", re.X)
_DROP_RE = re.compile(rf"[*@](?P<to>{_SQ})\Z")
_LEG_RE = re.compile(rf"(x!|x|-)?({_SQ})")


def parse_move(board: Board, text: str) -> Move:
    """The legal move that ``text`` names.

    Accepts the canonical notation with or without the origin (full square, file or rank),
    overspecified moves, ``x``/``-`` or no separator, ``@`` for drops, and the compact machine form
    (``h8h9``).  Piece IDs and aliases are matched case-insensitively, longest first, so ``+P``,
    ``!LD`` and ``KR`` tokenise unambiguously.  A promotion the mover could choose must be written
    (``+`` or ``=``); a compulsory one may be left out.  Only the pieces the text can mean are
    checked, so this is cheap enough to run on every ply of an import.

    Raises :class:`NotationError` when no legal move or more than one matches.
    """
    text = text.strip()
    if not text:
        raise NotationError(text, "empty move", "a move such as P-e5")
    parsed = _parse_text(board, text)
    if parsed is None:
        head = re.match(r"[+!]?[A-Za-z][A-Za-z0-9']*?(?=[a-p]?\d|[-x*@]|\Z)", text)
        if head and head.group().upper() not in board.rules.piece_index():
            reason = f"{board.rules.name} has no piece {head.group()!r}"
        else:
            reason = "not a move in this notation"
        raise NotationError(text, reason, "piece ID, origin if needed, '-' or 'x', destination, '+' or '=' "
                            "for promotion; drops as ID*square", _suggest(board, text))
    candidates, promo, piece_id = parsed
    found, reasons = [], []
    for m in candidates:
        for attempt in _promotions(board, m, promo):
            reason = board.illegal_reason(attempt)
            if reason is None:
                found.append(attempt)
                break
            reasons.append(reason)
    if len(found) == 1:
        return found[0]
    if found:
        written = sorted(_write(board, m, True) for m in found)
        raise NotationError(text, "ambiguous: more than one legal move matches",
                            "the origin square to tell them apart", written)
    if not candidates:
        what = f"no {piece_id} of the side to move" if piece_id else "no piece of the side to move there"
        raise NotationError(text, f"{what} can make this move", "a legal move", _suggest(board, text))
    reason = _best_reason(reasons)
    if "cannot make that move" in reason:
        dest = re.findall(r"[a-p](?:1[0-6]|[1-9])", text)
        reason = f"no {piece_id or 'piece'} of the side to move can " + (
            f"reach {dest[-1]}" if dest else "make this move")
    expected = "'+' or '='" if "must be chosen" in reason else "a legal move"
    raise NotationError(text, reason, expected, _suggest(board, text))


def _parse_text(board: Board, text: str):
    """Candidate moves (promotion not yet decided), the promotion suffix and the piece ID."""
    rules = board.rules
    index = rules.piece_index()
    upper = text.upper()
    ids = sorted((k for k in index if upper.startswith(k)), key=len, reverse=True)
    for ident in ids + [None]:
        rest = text[len(ident):] if ident else text
        piece = index[ident] if ident else None
        drop = _DROP_RE.match(rest)
        if drop and piece is not None:
            to = parse_square(drop.group("to"), rules.files, rules.ranks) if _on_board(rules, drop.group("to")) else None
            if to is None:
                continue
            return [Move(None, to, (), None, piece.id)], None, piece.id
        m = _BODY_RE.match(rest)
        if not m:
            continue
        legs = _LEG_RE.findall(m.group("legs"))
        if not all(_on_board(rules, sq) for _, sq in legs):
            continue
        origin = m.group("origin")
        if ident is None and (origin is None or len(legs) != 1) and len(legs) < 2:
            continue  # without an ID the origin square must be written
        if ident is None and origin is None:
            origin, legs = legs[0][1], legs[1:]
        promo = {"+": True, "=": False, None: None}[m.group("promo")]
        return _candidates(board, piece, origin, legs), promo, piece.id if piece else None
    return None


def _on_board(rules, name: str) -> bool:
    try:
        parse_square(name, rules.files, rules.ranks)
        return True
    except ValueError:
        return False


def _candidates(board: Board, piece, origin: str | None, legs) -> list[Move]:
    rules = board.rules
    squares = [(sep, parse_square(sq, rules.files, rules.ranks)) for sep, sq in legs]
    turn = board.turn
    if origin and len(origin) >= 2 and origin[0].isalpha():
        origins = [parse_square(origin, rules.files, rules.ranks)]
    else:
        origins = [sq for sq, p in board.pieces(turn).items()]
        if origin:
            if origin.isalpha():
                origins = [s for s in origins if square_name(s)[0] == origin]
            else:
                origins = [s for s in origins if square_name(s)[1:] == origin]
    if piece is not None:
        origins = [s for s in origins if (p := board.piece_at(s)) is not None and p.id == piece.id]
    out = []
    for fr in origins:
        kills = [sq for sep, sq in squares[:-1] if sep.startswith("x")]
        last_sep, to = squares[-1]
        if last_sep == "x!":  # igui: the last captured square, and the piece stays
            kills.append(to)
            to = fr
        kills = tuple(dict.fromkeys(k for k in kills if k != to))
        out.append(Move(fr, to, kills, None))
    return out


def _promotions(board: Board, move: Move, promo):
    """The promotion choices a written move may mean: as written, or a compulsory promotion."""
    if promo is not None:
        return [move._replace(promotion=promo)]
    if board.illegal_reason(move) is not None:
        declined = board.illegal_reason(move._replace(promotion=False))
        if declined and "compulsory" in declined:
            return [move._replace(promotion=True)]
    return [move]


def _best_reason(reasons: list[str]) -> str:
    """The most telling of several refusals (a piece that could move but not legally first)."""
    order = ("leaves the mover", "checkmate", "compulsory", "must be chosen", "cannot promote", "cannot make")
    for key in order:
        for r in reasons:
            if key in r:
                return r
    return reasons[0] if reasons else "no legal move matches"


def _suggest(board: Board, text: str, n: int = 3) -> list[str]:
    """Legal moves written most like ``text``."""
    written = list(notations(board).values())
    upper = {w.upper(): w for w in written}
    close = difflib.get_close_matches(text.upper(), list(upper), n=n, cutoff=0.4)
    return [upper[c] for c in close]
