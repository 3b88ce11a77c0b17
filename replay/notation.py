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
    FDxe5x!3    a burning piece (a Fire Demon): the burned squares are not written (they follow from
                the position), but their number is, after "x!" (tenjiku-shogi.net's Fix5nx!6); a
                reader checks it: a wrong count is an error

IDs are written as the variant file spells them (upper case).  ``x`` is always lower case, so it
never merges into an ID.
"""

from __future__ import annotations

import re
from functools import lru_cache
from collections.abc import Collection
from typing import Final, NamedTuple

from .board import Board
from .move import IllegalReason, Illegality, Move, Piece
from .squares import BYTE_OF_SQUARE, CELLS, square, square_name
from .rules import Ruleset
from .usi import UsiError, looks_like_usi_move, usi_to_move

__all__ = ["move_notation", "notations", "parse_move", "quick_move", "NotationError", "check_move", "check_moves"]


class NotationError(ValueError):
    """A move text that does not name exactly one legal move.

    ``reason`` says what is wrong, ``expected`` what would have been acceptable, and
    ``suggestions`` lists up to three legal moves written most like the text ("did you mean");
    ``code`` is the :class:`~replay.move.IllegalReason` when the text names a move that is illegal
    (None when it names no move).
    """

    def __init__(self, text: str, reason: str, expected: str | None = None, suggestions=(),
                 code: IllegalReason | None = None):
        self.text = text
        self.reason = reason
        self.code = code
        self.expected = expected
        self.suggestions = list(suggestions)
        message = f"{text!r}: {reason}"
        if self.suggestions:
            message += "; did you mean " + ", ".join(self.suggestions) + "?"
        super().__init__(message)


def _piece_id(board: Board, move: Move) -> str:
    if move.drop is not None:
        return move.drop
    return _mover(board, move).id


def _mover(board: Board, move: Move) -> Piece:
    """The piece that makes a move that is not a drop (ValueError when there is none)."""
    fr = move.from_square
    piece = board.piece_at(fr) if fr is not None else None
    if piece is None:
        raise ValueError(f"no piece on {'no square' if fr is None else square_name(fr)} for move {move}")
    return piece


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
    burned = board.burned_squares(move)
    text = "".join("x" + square_name(k) for k in move.kills if k not in burned)
    captured = to in board.captured_squares(move)
    return text + ("x" if captured else "-") + square_name(to) + (f"x!{len(burned)}" if burned else "")


def _suffix(move: Move) -> str:
    return {True: "+", False: "=", None: ""}[move.promotion]


def _key(board: Board, move: Move) -> tuple[str, str]:
    return (_piece_id(board, move), _body(board, move))


def _needs_origin(move: Move) -> bool:
    return move.drop is None and move.to_square == move.from_square and not move.kills


def _write(board: Board, move: Move, with_origin: bool) -> str:
    pid, body = _key(board, move)
    fr = move.from_square
    origin = square_name(fr) if (with_origin or _needs_origin(move)) and fr is not None and move.drop is None else ""
    return pid + origin + body + _suffix(move)


def notations(board: Board, moves: list[Move] | None = None) -> dict[Move, str]:
    """Notation of every move in ``moves`` (default: every legal move), disambiguated among them.

    ``moves`` should be all the legal moves of the position (or a superset); an origin is written
    when two of them by pieces of the same ID have the same captures and destination.
    """
    if moves is None:
        moves = board.legal_moves()
    keys = {m: _key(board, m) for m in moves}
    origins: dict = {}
    for m, key in keys.items():
        if m.drop is None:
            origins.setdefault(key, set()).add(m.from_square)
    out = {}
    for m, key in keys.items():
        ambiguous = m.drop is None and len(origins.get(key, ())) > 1
        out[m] = _write(board, m, ambiguous)
    return out


def _squares_of(board: Board, colour: int, piece_id: str | None) -> list[int]:
    """The squares of ``colour``'s pieces with this ID (all of them for None)."""
    if piece_id is None:
        return list(board.pieces(colour))
    return board.squares_of(piece_id, colour)


def _rivals(board: Board, move: Move) -> bool:
    """Whether another piece with the mover's ID has a legal move with the same captures and
    destination (then the origin must be written)."""
    piece = _mover(board, move)
    igui = move.to_square == move.from_square
    for sq in _squares_of(board, board.turn, piece.id):
        if sq == move.from_square:
            continue
        to = sq if igui else move.to_square
        for promotion in (None, True, False):
            if board.illegal_reason(Move(sq, to, move.kills, promotion)) is None:
                return True
    return False


def move_notation(board: Board, move: Move) -> str:
    """Notation of one legal move in the position on ``board`` (before the move is played).

    Only the moves of the other pieces with the same ID and the same captures and destination are
    checked, so this is much cheaper than :func:`notations` for a single move; the result is the
    same as ``notations(board)[move]``.
    """
    if move.drop is not None or _needs_origin(move):
        return _write(board, move, False)
    return _write(board, move, _rivals(board, move))


_SQ = r"[a-p](?:1[0-6]|[1-9])"
# a burn count after the destination: digits only, then the end (x!6g is a Lion's igui square)
_BURN_COUNT_RE = re.compile(r"x!(\d+)([+=]?)\Z")
_BODY_RE = re.compile(rf"""
    (?P<origin>{_SQ}|[a-p]|1[0-6]|[1-9])?
    (?P<legs>(?:(?:x!|x|-)?{_SQ})+)
    (?P<promo>[+=])?\Z""", re.X)
_DROP_RE = re.compile(rf"[*@](?P<to>{_SQ})\Z")
_LEG_RE = re.compile(rf"(x!|x|-)?({_SQ})")
_FULL_SQ_RE = re.compile(rf"{_SQ}\Z")
_HEAD_RE = re.compile(r"[+!]?[A-Za-z][A-Za-z0-9']*?(?=[a-p]?\d|[-x*@]|\Z)")
_EXPECTED_FORM = ("piece ID, origin if needed, '-' or 'x', destination, '+' or '=' for promotion; "
                  "drops as ID*square")


class _Reading:
    """One way to read a move text: the piece, the candidate moves (promotion not yet decided)."""

    __slots__ = ("piece_id", "candidates", "promo", "problem", "unwritten_passes")

    def __init__(self, piece_id, candidates, promo, problem=None, unwritten_passes=()):
        self.piece_id = piece_id
        self.candidates = candidates
        self.promo = promo
        self.problem = problem  # why there are no candidates, when known
        self.unwritten_passes = unwritten_passes  # candidates read as passes without the origin


def parse_move(board: Board, text: str) -> Move:
    """The legal move that ``text`` names.

    Accepts the canonical notation with or without the origin (full square, file or rank),
    overspecified moves, ``x``/``-`` or no separator, ``@`` for drops, and the compact machine form
    (``h8h9``, ``h8h9h10``: every square between the origin and the destination is captured).
    Piece IDs and aliases are matched case-insensitively, longest first, so ``+P``, ``!LD`` and
    ``KR`` tokenise unambiguously; an ID written exactly as the variant spells it is tried first,
    so ``Gd-e2`` is a Gold from the d-file even where a piece ``GD`` exists.  A path that passes
    its own earlier squares (``!LDxh9xh10xh9``) is read by its effect.  A promotion the mover could
    choose must be written (``+`` or ``=``); a compulsory one may be left out.  Only the pieces the
    text can mean are checked, so this is cheap enough to run on every ply of an import.

    Raises :class:`NotationError` when no legal move or more than one matches.
    """
    text = text.strip()
    if not text:
        raise NotationError(text, "empty move", "a move such as P-e5")
    move = quick_move(board, text)
    return move if move is not None else _resolve(board, text)


def _resolve(board: Board, text: str) -> Move:
    """:func:`parse_move` the general way: every reading of the text, tier by tier; a burn count
    (``x!3`` after the destination) is checked against the burns of the move the rest names."""
    count = _BURN_COUNT_RE.search(text)
    if count is None:
        return _resolve_text(board, text)
    bare = text[:count.start()] + count.group(2)
    move = quick_move(board, bare) or _resolve_text(board, bare)
    burned = len(board.burned_squares(move))
    if burned != int(count.group(1)):
        raise NotationError(text, f"the move burns {burned} piece{'s' if burned != 1 else ''}, "
                                  f"the text says {count.group(1)}",
                            f"x!{burned}" if burned else "no burn count")
    return move


def _resolve_text(board: Board, text: str) -> Move:
    """:func:`_resolve` of a text without a burn count."""
    first = None  # the reading used to explain a failure
    for tier in _readings(board, text):
        several = None
        for reading in tier:
            found = _legal_candidates(board, reading)
            if len(found) == 1:
                return found[0]
            if found and several is None:
                several = found
            if first is None or (not first.candidates and reading.candidates):
                first = reading
        if several:
            written = sorted(_write(board, m, True) for m in several)
            raise NotationError(text, "ambiguous: more than one legal move matches",
                                "the origin square to tell them apart", written)
    if first is None:
        head = _HEAD_RE.match(text)
        upper = text.upper()
        if head and not any(upper.startswith(k) for k in board.rules.piece_index()):
            reason = f"{board.rules.name} has no piece {head.group()!r}"
        else:
            reason = "not a move in this notation"
        raise NotationError(text, reason, _EXPECTED_FORM, _suggest(board, text))
    reading = first
    reasons = _match(board, reading)[1]
    if not reading.candidates:
        if reading.problem:
            reason = reading.problem
        elif reading.piece_id:
            reason = f"no {reading.piece_id} of the side to move can make this move"
        else:
            reason = "no piece of the side to move there can make this move"
        raise NotationError(text, reason, "a legal move", _suggest(board, text))
    best = _best_reason(reasons)
    reason = best.message if best is not None else "no legal move matches"
    code = best.code if best is not None else None
    if code is IllegalReason.PIECE_CANNOT_MOVE_SO and len(reading.candidates) > 1:
        dest = re.findall(_SQ, text)
        reason = f"no {reading.piece_id or 'piece'} of the side to move can " + (
            f"reach {dest[-1]}" if dest else "make this move")
    expected = "'+' or '='" if code is IllegalReason.PROMOTION_MUST_BE_CHOSEN else "a legal move"
    raise NotationError(text, reason, expected, _suggest(board, text), code)


# move texts whose plan is kept per rule set (about 500 bytes each with their origins; all are let
# go when full): the texts of a variant's ordinary games (200 self-play Dai Kagamigi games, 61,440
# plies, hold 10,545 different ones: with room for fewer, a collection is read planning its texts
# again and again), while a long game of new moves stays in bounded memory (8 MB)
MAX_PLANS: Final = 16384
MAX_SYNTAX: Final = 50_000  # readings of move texts kept per rule set (let go when full, as the plans)


class DropPlan(NamedTuple):
    """How :func:`quick_move` reads a drop: the dropped type's index, the square, the move."""

    type_index: int
    to: int
    move: Move


# the board-independent reading of a move text (ReaderTables.reading)
Syntax = tuple[str | None, int | None, str | None, int | None, tuple[tuple[str, int], ...], bool | None]


class StepPlan:
    """How :func:`quick_move` reads a move of one leg (nothing taken on the way, not a pass): the
    piece type's index, the destination, the squares the origin was written as one of (None: not
    written), the promotion as written (None: not written), and per colour the squares a piece of
    that type may come from (one byte each, see :data:`~replay.squares.SQUARE_OF_BYTE`; False
    until worked out, None when any square of such a piece may be: generators).  A plan is kept
    per distinct text (a long game of new moves holds thousands), so it holds nothing that
    depends only on the piece: that is in the rule set (its ``plain_steps``)."""

    __slots__ = ("type_index", "to", "keep", "promotion", "origins")

    def __init__(self, type_index: int, to: int, keep: Collection[int] | None, promotion: bool | None):
        self.type_index = type_index
        self.to = to
        self.keep = keep
        self.promotion = promotion
        self.origins: list[bytes | None | bool] = [False, False]

    def __eq__(self, other: object) -> bool:  # (the same reading: the origins are worked out from it)
        if not isinstance(other, StepPlan):
            return NotImplemented
        return (self.type_index, self.to, self.keep, self.promotion) == (other.type_index, other.to, other.keep,
                                                                         other.promotion)

    __hash__ = None  # type: ignore[assignment]  # (equal by value but changed in place: unhashable)

    def __repr__(self) -> str:
        return f"StepPlan({self.type_index}, {square_name(self.to)}, keep={self.keep}, promotion={self.promotion})"


Plan = DropPlan | StepPlan | None  # (None: the text takes the general way)


class ReaderTables:
    """What reading move text keeps per rule set (on it: ``rules.derived(ReaderTables)``): the
    plan of each text met (:func:`quick_move`), the readings of texts (:func:`_syntax`), the IDs and
    aliases by first character, square names, and each piece's steps seen from the destination."""

    __slots__ = ("rules", "plans", "syntax", "ids", "squares", "buckets", "steps", "byte_on_board")

    def __init__(self, rules: Ruleset):
        self.rules = rules
        self.plans: dict[str, Plan] = {}
        self.syntax: dict[tuple[str, str | None], Syntax | None] = {}
        index = rules.piece_index()
        # The IDs and aliases give a plan without _first_plan's search when each is written as
        # _ID_RE reads one: then no other of them can start a text that one of them starts and
        # that goes on with a separator or a square (a file letter is lower case), so it is the
        # one the search would take first (it tries the longest first).
        self.ids: dict[str, int] | None = None
        if all(_ID_RE.fullmatch(key) for key in index):
            self.ids = {key: rules.type_by_id[piece.id].index for key, piece in index.items()}
        self.squares = _square_table(rules.files, rules.ranks)
        buckets: dict[str, list[str]] = {}
        for key in sorted(index, key=len, reverse=True):
            buckets.setdefault(key[0], []).append(key)
        self.buckets = buckets  # the IDs and aliases by their first character, longest first
        # the steps of each piece code as a tuple (None for a piece whose tables depend on its
        # square, or with moves they do not hold); each cell's byte when it is on the board, else
        # None, padded with CELLS cells off it so that a cell less any step needs no bounds check
        self.steps = tuple(None if rules.zoned[code] is not None or rules.complex[code]
                           else tuple(d for d in rules.by_delta[code] if d) for code in range(len(rules.zoned)))
        on_board = rules.on_board
        self.byte_on_board = [BYTE_OF_SQUARE[sq] if on_board[sq] else None for sq in range(len(on_board))]
        self.byte_on_board += [None] * CELLS

    def plan(self, text: str) -> Plan:
        """How :func:`quick_move` resolves ``text``, from the first reading of the first tier of
        :func:`_readings` when it is a drop or a move of one leg (no capture on the way, no igui):
        a :class:`DropPlan`, a :class:`StepPlan`, or None when the text takes the general way
        (kept per text)."""
        plans = self.plans
        if text in plans:
            return plans[text]
        plan: Plan = None
        # the usual text, an ID and a destination (P-c4, Gxd5+): its plan without trying the IDs
        ids = self.ids
        simple = _ID_SIMPLE_RE.match(text) if ids is not None else None
        if ids is not None and simple is not None:
            t = ids.get(simple.group(1))
            to = self.squares.get(simple.group(3))
            if t is not None and to is not None:
                plan = StepPlan(t, to, None, _PROMO[simple.group(4)])
        if plan is None:
            plan = self._first_plan(text)
        if len(plans) > MAX_PLANS:
            plans.clear()
        plans[text] = plan
        return plan

    def _first_plan(self, text: str) -> Plan:
        """The plan of ``text`` (see :meth:`plan`) from the first reading that parses."""
        rules = self.rules
        plan: Plan = None
        index = rules.piece_index()
        for ident in self.buckets.get(text[0].upper(), ()):
            if not text.startswith(ident):
                continue
            simple = _SIMPLE_RE.match(text, len(ident))
            if simple:  # what _parse_syntax finds first, without its cache
                to = self.squares.get(simple.group(2))
                if to is not None:
                    plan = StepPlan(rules.type_by_id[index[ident].id].index, to, None, _PROMO[simple.group(3)])
                    break
            syntax = self.reading(text, ident)
            if syntax is None:
                continue
            piece_id, drop_to, origin, full_origin, squares, promo = syntax
            if piece_id is None:  # (not after an ID: the general way)
                break
            t = rules.type_by_id[piece_id].index
            if drop_to is not None:
                plan = DropPlan(t, drop_to, Move(None, drop_to, (), None, piece_id))
            elif len(squares) == 1 and squares[0][0] != "x!":
                keep: Collection[int] | None
                if full_origin is not None:
                    keep = (full_origin,)
                elif origin:
                    keep = frozenset(sq for sq in rules.squares if (square_name(sq)[0] == origin if origin.isalpha()
                                                                     else square_name(sq)[1:] == origin))
                else:
                    keep = None
                plan = StepPlan(t, squares[0][1], keep, promo)
            break  # only the first reading: the general way decides when it does not give one move
        return plan

    def reading(self, text: str, ident: str | None) -> Syntax | None:
        """The board-independent reading of a move text (kept per text): (piece ID, drop square,
        origin text, origin square when written in full, [(separator, square)], promotion
        suffix), or None."""
        key = (text, ident)
        syntax = self.syntax
        if key in syntax:
            return syntax[key]
        result = _parse_syntax(self, text, ident)
        if len(syntax) > MAX_SYNTAX:
            syntax.clear()
        syntax[key] = result
        return result

    def origins(self, code: int, to: int, keep: Collection[int] | None) -> bytes | None:
        """The squares from which the piece ``code`` may end a one-leg move on ``to`` (by its move
        tables, as :meth:`Board.may_make` says), among ``keep`` when given, one byte each; None
        when the piece has moves the tables do not hold (generators: any of its squares may be
        the origin).  Worked out once per plan and colour, and kept with the plan (not cached
        apart: a long random game meets most of the (piece, square) pairs once)."""
        steps, byte_on_board = self.steps[code], self.byte_on_board
        byte_of = BYTE_OF_SQUARE
        if steps is not None:  # one table: the origins are the destination less each step it has
            if keep is None:
                return bytes([n for d in steps if (n := byte_on_board[to - d]) is not None])
            return bytes([byte_of[fr] for d in steps if byte_on_board[fr := to - d] is not None and fr in keep])
        rules = self.rules
        zoned, complex_, by_delta = rules.zoned, rules.complex, rules.by_delta
        by_square = zoned[code]
        if by_square is None:
            return None  # (complex: see steps)
        out = []
        for fr in rules.squares:
            idx = by_square[fr]
            if complex_[idx]:
                return None
            if fr != to and (to - fr) in by_delta[idx] and (keep is None or fr in keep):
                out.append(byte_of[fr])
        return bytes(out)


def quick_move(board: Board, text: str) -> Move | None:
    """The move ``text`` names when the first reading :func:`parse_move` tries gives exactly one
    legal move (what ``parse_move`` then returns), found without building the readings: the pieces
    of that type that cannot reach the destination are passed over by their move tables, and only
    the others are checked (:meth:`Board.step_move`).  None sends the text the general way
    (errors, ambiguities, several-leg moves, passes): ``quick_move(board, text) or
    parse_move(board, text)`` is ``parse_move(board, text)`` for a non-empty ``text`` without
    surrounding white space.

    >>> board = Board("shogi")
    >>> quick_move(board, "P-c4"), quick_move(board, "P-c5")
    (Move(from_square=165, to_square=197, kills=(), promotion=None, drop=None), None)
    """
    rules = board.rules
    tables = rules.kept.get(ReaderTables) or rules.derived(ReaderTables)  # (derived, written out: every ply)
    plan = tables.plans.get(text, False)  # (ReaderTables.plan's look-up, written out: this runs every ply)
    if isinstance(plan, bool):  # (False: not met yet)
        plan = tables.plan(text)
    if plan is None:
        return None
    if isinstance(plan, DropPlan):
        move = plan.move
        return move if board.illegality(move) is None else None
    c = board.turn
    origins = plan.origins[c]
    if isinstance(origins, bool):  # (False: not worked out yet)
        origins = plan.origins[c] = tables.origins(plan.type_index * 2 + c, plan.to, plan.keep)
    if origins is None:  # a piece with generators: each of its squares, unless its tables rule it out
        keep, to = plan.keep, plan.to
        pid = rules.types[plan.type_index - 1].id
        origins = bytes(BYTE_OF_SQUARE[fr] for fr in board.squares_of(pid, c)
                        if (keep is None or fr in keep) and board.may_make(Move(fr, to)))
    return board.step_move(plan.type_index, plan.to, origins, plan.promotion)


def _legal_candidates(board: Board, reading: _Reading) -> list[Move]:
    """The legal moves among a reading's candidates (as :func:`_match` finds them), checking only
    the candidates whose piece may make the move at all."""
    narrowed = [m for m in reading.candidates if m.drop is not None or board.may_make(m)]
    if len(narrowed) == len(reading.candidates):
        return _match(board, reading)[0]
    return _match(board, _Reading(reading.piece_id, narrowed, reading.promo, reading.problem,
                                  reading.unwritten_passes))[0]


def _settle_promotion(check, move: Move, reason: Illegality | None) -> tuple[Move, Illegality | None]:
    """(move, reason), ``reason`` being what ``check`` says of ``move``: a promotion left unwritten
    is read as made where the move must choose and declining is illegal (compulsory)."""
    if reason is not None and move.promotion is None and reason.code is IllegalReason.PROMOTION_MUST_BE_CHOSEN:
        declined = check(move._replace(promotion=False))
        if declined is not None and declined.code is IllegalReason.PROMOTION_COMPULSORY:
            move = move._replace(promotion=True)
            reason = check(move)
    return move, reason


def _match(board: Board, reading: _Reading):
    """The legal moves among a reading's candidates, and the reasons the others are illegal.

    Without a written promotion choice a compulsory promotion is read as made."""
    found, reasons = [], []
    promo = reading.promo
    for base in reading.candidates:
        m = base if promo is None else base._replace(promotion=promo)
        reason = board.illegality(m)
        if base in reading.unwritten_passes and (reason is None
                                                 or reason.code is IllegalReason.PROMOTION_MUST_BE_CHOSEN):
            reason = Illegality(IllegalReason.PASS_WITHOUT_ORIGIN,
                                f"a pass is written with its origin: {_write(board, m, True)}")
        m, reason = _settle_promotion(board.illegality, m, reason)
        if reason is None:
            found.append(m)
        else:
            reasons.append(reason)
    return found, reasons


def _readings(board: Board, text: str):
    """The ways ``text`` can be read, in tiers from most to least likely: IDs written exactly as
    the variant spells them (longest first); the compact form without an ID; IDs matched without
    regard to case.  A tier whose readings match a legal move decides; the next is tried only when
    none does."""
    tables = board.rules.derived(ReaderTables)
    bucket = tables.buckets.get(text[0].upper(), ())
    exact = [k for k in bucket if text.startswith(k)]
    yield _tier(board, tables, text, exact)
    yield _tier(board, tables, text, [None])
    upper = text.upper()
    yield _tier(board, tables, text, [k for k in bucket if k not in exact and upper.startswith(k)])


def _tier(board, tables, text, idents):
    for ident in idents:
        reading = _read_as(board, tables, text, ident)
        if reading is not None:
            yield reading


def _read_as(board: Board, tables: ReaderTables, text: str, ident: str | None) -> _Reading | None:
    syntax = tables.reading(text, ident)
    if syntax is None:
        return None
    piece_id, drop_to, origin, full_origin, squares, promo = syntax
    if drop_to is not None:
        return _Reading(piece_id, [Move(None, drop_to, (), None, piece_id)], None)
    candidates, problem = _candidates(board, piece_id, origin, full_origin, squares)
    passes = () if full_origin is not None else {
        m for m in candidates if m.from_square == m.to_square and not m.kills}
    return _Reading(piece_id, candidates, promo, problem, passes)


@lru_cache(maxsize=None)
def _square_table(files: int, ranks: int) -> dict:
    """Square name -> square on a board of that size."""
    return {square_name(square(f, r)): square(f, r) for r in range(ranks) for f in range(files)}


_PROMO: Final = {"+": True, "=": False, "": None, None: None}
_SIMPLE_RE: Final = re.compile(rf"([-x]?)({_SQ})([+=]?)\Z")  # what _BODY_RE reads as one leg and no origin
_ID_RE: Final = re.compile(r"[+!]?[A-Z][A-Z0-9']*")  # an ID or alias as the variant files write them
_ID_SIMPLE_RE: Final = re.compile(rf"({_ID_RE.pattern})([-x]?)({_SQ})([+=]?)\Z")  # an ID, then _SIMPLE_RE


def _parse_syntax(tables: ReaderTables, text: str, ident: str | None) -> Syntax | None:
    squares_of = tables.squares
    rest = text[len(ident):] if ident else text
    piece = tables.rules.piece_index()[ident] if ident else None
    if piece is not None:
        simple = _SIMPLE_RE.match(rest)  # (_plan reads the same way)
        if simple:
            sep, name, promo = simple.groups()
            to = squares_of.get(name)
            return None if to is None else (piece.id, None, None, None, ((sep, to),), _PROMO[promo])
        drop = _DROP_RE.match(rest)
        if drop:
            to = squares_of.get(drop.group("to"))
            if to is None:
                return None
            return piece.id, to, None, None, (), None
    m = _BODY_RE.match(rest)
    if not m:
        return None
    legs = _LEG_RE.findall(m.group("legs"))
    origin = m.group("origin")
    full = origin is not None and _FULL_SQ_RE.match(origin) is not None
    if full and origin not in squares_of:
        return None
    if not all(sq in squares_of for _, sq in legs):
        return None
    if piece is None and not full:
        return None  # without an ID the origin square must be written
    promo = _PROMO[m.group("promo")]
    squares = tuple((sep, squares_of[sq]) for sep, sq in legs)
    full_origin = squares_of[origin] if full else None
    return piece.id if piece else None, None, origin, full_origin, squares, promo


def _candidates(board: Board, piece_id: str | None, origin: str | None, full_origin: int | None, squares):
    """Candidate moves for the written legs: every square before the destination is captured
    unless it is written after '-' (a square passed over); 'x!' before the last square captures it
    and the piece stays."""
    turn = board.turn
    if full_origin is not None:
        here = board.piece_at(full_origin)
        if here is None or here.colour != turn:
            return [], f"the side to move has no piece on {origin}"
        if piece_id is not None and here.id != piece_id:
            return [], f"the piece on {origin} is {here.id}, not {piece_id}"
        origins = [full_origin]
    else:
        origins = _squares_of(board, turn, piece_id)
        if origin:
            if origin.isalpha():
                origins = [s for s in origins if square_name(s)[0] == origin]
            else:
                origins = [s for s in origins if square_name(s)[1:] == origin]
    kills_written = [sq for sep, sq in squares[:-1] if sep != "-"]
    last_sep, last = squares[-1]
    out = []
    for fr in origins:
        written = list(kills_written)
        to = last
        if last_sep == "x!":  # igui: the last captured square, and the piece stays
            written.append(to)
            to = fr
        kills = tuple(dict.fromkeys(k for k in written if k != to)) if written else ()
        out.append(board.with_burns(Move(fr, to, kills, None)))
    return out, None


_TELLING: Final = (IllegalReason.PASS_WITHOUT_ORIGIN, IllegalReason.LEAVES_ROYAL_IN_CHECK, IllegalReason.DROP_MATE,
            IllegalReason.PROMOTION_COMPULSORY, IllegalReason.PROMOTION_MUST_BE_CHOSEN, IllegalReason.CANNOT_PROMOTE,
            IllegalReason.PIECE_CANNOT_MOVE_SO)


def _best_reason(reasons: list[Illegality]) -> Illegality | None:
    """The most telling of several refusals (a piece that could move but not legally first)."""
    for code in _TELLING:
        for r in reasons:
            if r.code is code:
                return r
    return reasons[0] if reasons else None


def _suggest(board: Board, text: str, n: int = 3) -> list[str]:
    """Legal moves written most like ``text`` (moves to the squares it names first)."""
    text = text[:40]
    written = list(notations(board).values())
    squares = set(re.findall(_SQ, text))
    target = text.upper()
    import difflib  # (here: only a bad move needs it)

    matcher = difflib.SequenceMatcher()
    matcher.set_seq2(target)
    scored = []
    for w in written:
        matcher.set_seq1(w.upper())
        score = matcher.ratio()
        dest = re.findall(_SQ, w)
        if dest and dest[-1] in squares:
            score += 0.3
        if score >= 0.4:
            scored.append((-score, w))
    scored.sort()
    return [w for _, w in scored[:n]]


def check_move(board: Board, text: str) -> dict:
    """Whether the move ``text`` (USI, lishogi's form on big boards, or daikifu's notation) is legal
    in the position on ``board``: ``{"move": text, "legal": bool, "reason": why not (None when
    legal), "code": the reason's code (an :class:`~replay.move.IllegalReason` value; None when
    legal or when the text names no move), "notation": the move in daikifu's notation (None when
    no move is named)}``.

    >>> board = Board("shogi")
    >>> check_move(board, "7g7f")["notation"], check_move(board, "P-c4")["legal"]
    ('P-c4', True)
    >>> check_move(board, "7g7e")["legal"], check_move(board, "7g7e")["code"]
    (False, 'piece-cannot-move-so')
    """
    try:
        move = usi_to_move(board, text) if looks_like_usi_move(text) else parse_move(board, text)
    except UsiError as exc:
        return {"move": text, "legal": False, "reason": exc.reason.removeprefix("illegal: "),
                "code": exc.code.value if exc.code else None, "notation": None}
    except NotationError as exc:
        return {"move": text, "legal": False, "reason": exc.reason, "code": exc.code.value if exc.code else None,
                "notation": None}
    return {"move": text, "legal": True, "reason": None, "code": None, "notation": move_notation(board, move)}


def check_moves(board: Board, texts) -> list[dict]:
    """:func:`check_move` for each text, each in the position on ``board`` (moves are not played)."""
    return [check_move(board, t) for t in texts]
