"""Replaying a parsed record through a visitor: the shared second half of the CSA, JKF and USI readers.

A reader first cuts its text into :class:`RawGame` objects (tags, comments, the moves as written
with their lines and columns, alternatives, the special that ends the game) without knowing the
rules; :func:`play` then replays the moves on a board and feeds a
:class:`~formats.lsn.Visitor` (by default :class:`~formats.lsn.GameBuilder`, so the result is a
:class:`~formats.game.Game`), exactly as the LSN reader does.

A move that cannot be read or is illegal is an error at its ply, line and column (strict mode: the
game is invalid and reading stops; lenient mode: a warning, the valid prefix is kept and the game
gets ``ImportStatus`` ``truncated``, or ``variations-dropped`` when only an alternative was bad).
Times are kept in the move's comment as ``[%emt H:MM:SS]``, as the KIF reader does.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from daikifu.replay import Board, IllegalMoveError, Move, VariantRegistry

from .game import Game, GameError
from .lsn import Visitor, make_visitor

__all__ = ["RawMove", "RawGame", "MoveTextError", "play", "time_prefix", "result_for",
           "WIN", "LOSS", "DRAW", "NONE"]

WIN, LOSS, DRAW, NONE = "win", "loss", "draw", "none"  # the result for the side to move at the end
IMPORT_STATUS = "ImportStatus"


class MoveTextError(ValueError):
    """A move text that names no legal move: ``reason``, ``expected`` and ``suggestions`` as in
    :class:`~formats.game.GameError`."""

    def __init__(self, reason: str, expected: str | None = None, suggestions=()):
        self.reason = reason
        self.expected = expected
        self.suggestions = list(suggestions)
        super().__init__(reason)


@dataclass
class RawMove:
    text: str  # as written
    line: int
    column: int
    read: Callable[[Board], Move]  # the move in the position before it; raises MoveTextError
    comments: list = field(default_factory=list)  # comment lines after the move
    seconds: int | None = None  # the time the move took
    forks: list = field(default_factory=list)  # alternatives to this move: lists of RawMove
    fork_comments: list = field(default_factory=list)  # comments before each fork's first move


@dataclass
class RawGame:
    number: int
    line: int  # first line of the game in its file
    offset: int  # first character of the game in its file
    source: str  # the game's text as read
    headers: list = field(default_factory=list)  # (name, value); Variant and SFEN included
    comments: list = field(default_factory=list)  # before the first move
    moves: list = field(default_factory=list)
    termination: str | None = None  # from a special (%TORYO ...)
    relation: str | None = None  # WIN/LOSS/DRAW/NONE for the side to move at the special
    special_line: int | None = None
    special_text: str | None = None
    problems: list = field(default_factory=list)  # GameErrors found while cutting the text


def time_prefix(seconds: int | None) -> str:
    if seconds is None:
        return ""
    h, rest = divmod(int(seconds), 3600)
    m, s = divmod(rest, 60)
    return f"[%emt {h}:{m:02d}:{s:02d}]"


def result_for(relation: str | None, mover: int) -> str:
    """The result when the special's meaning for the side to move (``mover``) is ``relation``."""
    if relation == DRAW:
        return "1/2-1/2"
    if relation in ("1-0", "0-1"):  # a special that names the winner itself
        return relation
    if relation in (WIN, LOSS):
        winner = mover if relation == WIN else mover ^ 1
        return "1-0" if winner == 0 else "0-1"
    return "*"


def _comment(raw_comments, seconds) -> str:
    text = "\n".join(raw_comments).strip()
    prefix = time_prefix(seconds)
    return prefix + (" " + text if prefix and text else text)


class _Player:
    def __init__(self, raw: RawGame, visitor: Visitor, lenient: bool, file):
        self.raw, self.visitor, self.lenient, self.file = raw, visitor, lenient, file
        self.truncated = self.dropped = False

    def error(self, message, line=None, column=None, ply=None, move=None, expected=None, suggestions=()):
        self.visitor.visit_error(GameError(message, file=self.file, game=self.raw.number, line=line,
                                           column=column, ply=ply, move=move, expected=expected,
                                           suggestions=list(suggestions),
                                           kind="warning" if self.lenient else "error"))

    def line(self, board: Board, moves: list, main: bool) -> bool:
        """Play ``moves`` (and their forks) on ``board``, which is left as it was (the main line's
        board is left at its end, as the LSN reader leaves it, for a visitor that keeps it); False
        when a move failed (the rest of that line is not read)."""
        played = 0
        ok = True
        for raw in moves:
            try:
                move = raw.read(board)
                reason = board.illegal_reason(move)
                if reason is not None:
                    raise IllegalMoveError(move, reason)
            except MoveTextError as exc:
                self.error(exc.reason, raw.line, raw.column, board.ply + 1, raw.text, exc.expected, exc.suggestions)
                ok = False
            except IllegalMoveError as exc:
                self.error(f"illegal move: {exc.reason}", raw.line, raw.column, board.ply + 1, raw.text, "a legal move")
                ok = False
            except (ValueError, KeyError, IndexError) as exc:
                self.error(f"cannot play the move: {exc}", raw.line, raw.column, board.ply + 1, raw.text, "a legal move")
                ok = False
            if not ok:
                break
            self.visitor.visit_move(board, move, raw.text, raw.line, raw.column)
            board.push(move)
            played += 1
            comment = _comment(raw.comments, raw.seconds)
            if comment:
                self.visitor.visit_comment(comment)
            for fork, before in zip(raw.forks, raw.fork_comments or [[]] * len(raw.forks)):
                taken = board.pop()
                self.visitor.begin_variation()
                if before:
                    self.visitor.visit_comment("\n".join(before), True)
                fine = self.line(board, fork, False)
                if fine:
                    self.visitor.end_variation()
                else:
                    self.visitor.drop_variation() if self.lenient else self.visitor.end_variation()
                    self.dropped = True
                board.push(taken)
                if not fine and not self.lenient:
                    ok = False
                    break
            if not ok:
                break
        if not main:
            for _ in range(played):
                board.pop()
        if not ok and main:
            self.truncated = True
        return ok


def _canonical_start(headers: list, variant: str, variants: VariantRegistry) -> list:
    """The SFEN tag as the position writer writes it (hands in the variant's order), and none for
    the variant's start position, so that the same position read from any format compares equal."""
    sfen = dict(headers).get("SFEN")
    if sfen is None:
        return headers
    try:
        board = Board(variants.load(variant), sfen)
    except (ValueError, KeyError, IndexError):
        return headers  # reported by the game builder, with the text as written
    canonical = board.position()
    if canonical == board.rules.start:
        return [(k, v) for k, v in headers if k != "SFEN"]
    return [(k, canonical if k == "SFEN" else v) for k, v in headers]


def play(raw: RawGame, variant: str, *, visitor: type[Visitor] | Visitor | None = None, lenient: bool = False,
         file: str | None = None, variants: VariantRegistry | None = None):
    """Replay ``raw`` and return what the visitor's ``end_game`` returns (a :class:`Game` for the
    default :class:`~formats.lsn.GameBuilder`); variant names are looked up in ``variants``
    (default: the bundled variants and ``DAIKIFU_VARIANTS``)."""
    variants = variants or VariantRegistry.default()
    v = make_visitor(visitor, variant, variants)
    player = _Player(raw, v, lenient, file)
    v.begin_game(raw.number, raw.line)
    headers = list(raw.headers)
    if not any(name == "Variant" for name, _ in headers):
        headers.insert(0, ("Variant", variant))
    if raw.termination:
        headers.append(("Termination", raw.termination))
    headers = _canonical_start(headers, variant, variants)
    for name, value in headers:
        v.visit_header(name, value)
    game = v.end_headers()
    if game is Visitor.SKIP:
        return v.end_game(raw.source, raw.offset)
    board = None
    if isinstance(game, Game):
        if game.valid:
            board = game.start_board()
    else:
        try:
            board = Board(variants.load(variant), dict(headers).get("SFEN"))
        except (ValueError, KeyError, IndexError) as exc:
            player.error(f"cannot set up the game: {exc}", raw.line)
    for problem in raw.problems:
        if lenient and problem.kind == "error":
            problem.kind = "warning"
        v.visit_error(problem)
    if raw.comments:
        v.visit_comment("\n".join(raw.comments).strip())
    if board is not None:
        turn = board.turn
        player.line(board, raw.moves, True)
    if raw.relation is not None and board is not None:
        mover = (turn + len(raw.moves)) % 2
        v.visit_result(result_for(raw.relation, mover))
    out = v.end_game(raw.source, raw.offset)
    if isinstance(out, Game):
        out.source_file = file
        if lenient and out.valid and (player.truncated or player.dropped) and board is not None:
            out.headers[IMPORT_STATUS] = "truncated" if player.truncated else "variations-dropped"
        out.number = raw.number
    return out
