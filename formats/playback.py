"""Replaying a parsed record through a visitor: the shared second half of the CSA, JKF and USI readers.

A reader first cuts its text into :class:`RawGame` objects (tags, comments, the moves as written
with their lines and columns, alternatives, the special that ends the game) without knowing the
rules; :func:`play` then replays the moves on a board and feeds a
:class:`~formats.visitor.Visitor` (by default :class:`~formats.visitor.GameBuilder`, so the result is a
:class:`~formats.game.Game`), exactly as the LSN reader does.

A move that cannot be read or is illegal is an error at its ply, line and column (strict mode: the
game is invalid and reading stops; lenient mode: a warning, the valid prefix is kept and the game
gets ``ImportStatus`` ``truncated``, or ``variations-dropped`` when only an alternative was bad).
Times are kept in the move's comment as ``[%emt H:MM:SS]``, as the KIF reader does.
"""

from __future__ import annotations

import re
from array import array
from dataclasses import dataclass, field
from typing import Callable, Iterator

from daikifu.replay import Board, IllegalMoveError, Move, VariantRegistry

from .game import IMPORT_STATUS, MOVE_AFTER_END, TRUNCATED, VARIATIONS_DROPPED, Game, GameError, after_end
from .visitor import Visitor, make_visitor

__all__ = ["RawMove", "RawMoves", "RawGame", "MoveTextError", "play", "time_prefix", "result_for", "iter_lines",
           "WIN", "LOSS", "DRAW", "NONE"]

WIN, LOSS, DRAW, NONE = "win", "loss", "draw", "none"  # the result for the side to move at the end


class MoveTextError(ValueError):
    """A move text that names no legal move: ``reason``, ``expected`` and ``suggestions`` as in
    :class:`~formats.game.GameError`."""

    def __init__(self, reason: str, expected: str | None = None, suggestions=()):
        self.reason = reason
        self.expected = expected
        self.suggestions = list(suggestions)
        super().__init__(reason)


# the line ends of str.splitlines
_LINE_ENDS = "\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"
_LINE_RE = re.compile(f"[^{_LINE_ENDS}]*(?:\r\n|[{_LINE_ENDS}])?")


def iter_lines(text: str) -> Iterator[tuple[int, str]]:
    r"""(offset, line with its end) of each line of ``text``, one at a time: the lines of
    ``text.splitlines(keepends=True)`` without a list of them all (a long record's lines cost many
    times its text).

    >>> list(iter_lines("a\r\nb\n\nc"))
    [(0, 'a\r\n'), (3, 'b\n'), (5, '\n'), (6, 'c')]
    """
    pos, end = 0, len(text)
    match = _LINE_RE.match
    while pos < end:
        line = match(text, pos).group()
        yield pos, line
        pos += len(line)


@dataclass(slots=True)
class RawMove:
    text: str  # as written
    line: int
    column: int
    read: Callable[[Board], Move]  # the move in the position before it; raises MoveTextError
    comments: list = field(default_factory=list)  # comment lines after the move
    seconds: int | None = None  # the time the move took
    eval: object = None  # an Evaluation of the position after the move the record gives as data (formats.evals)
    forks: list = field(default_factory=list)  # alternatives to this move: lists of RawMove
    fork_comments: list = field(default_factory=list)  # comments before each fork's first move


class RawMoves:
    """The moves of a game's main line as a reader found them, held compactly: a long game holds an
    entry per ply, so an entry is four array items of 4 bytes (where the move's text starts and
    ends in the game's source, its line and column) rather than an object, with comments and times kept only
    for the moves that have them.  Iterating makes each :class:`RawMove` as it is played;
    ``reader(text)`` gives its ``read``.

    >>> moves = RawMoves("+7776FU,T3", lambda text: None)
    >>> moves.add(0, 7, 1, 1); moves.set_seconds(3); moves.last_comments().append("a comment")
    >>> [(m.text, m.line, m.column, m.seconds, m.comments) for m in moves]
    [('+7776FU', 1, 1, 3, ['a comment'])]
    """

    __slots__ = ("source", "reader", "_at", "_comments", "_seconds", "_evals")

    def __init__(self, source: str, reader: Callable[[str], Callable[[Board], Move]]):
        self.source = source
        self.reader = reader
        self._at = array("i")  # 4 bytes an item, until an item does not fit
        self._comments: dict[int, list] = {}
        self._seconds: dict[int, int] = {}
        self._evals: dict[int, object] = {}

    def add(self, start: int, end: int, line: int, column: int) -> None:
        """A move whose text is ``source[start:end]``."""
        try:
            self._at.extend((start, end, line, column))
        except OverflowError:  # a record of more than 2 GiB
            self._at = array("q", self._at)
            self._at.extend((start, end, line, column))

    def __len__(self) -> int:
        return len(self._at) >> 2

    def line(self, index: int) -> int:
        return self._at[index * 4 + 2]

    def last_comments(self) -> list:
        """The comment lines of the last move, to add to."""
        return self._comments.setdefault(len(self) - 1, [])

    def comments_of(self, index: int) -> list:
        """The comment lines of the move ``index`` (0: the first), to add to."""
        return self._comments.setdefault(index, [])

    def set_seconds(self, seconds: int) -> None:
        """The time the last move took."""
        self._seconds[len(self) - 1] = seconds

    def set_eval(self, index: int, evaluation) -> None:
        """The evaluation (:class:`~daikifu.formats.evals.Evaluation`) of the position after the
        move ``index`` (0: the first)."""
        self._evals[index] = evaluation

    def __iter__(self) -> Iterator[RawMove]:
        at, source, reader = self._at, self.source, self.reader
        comments, seconds, evals = self._comments, self._seconds, self._evals
        for i in range(len(self)):
            start, end, line, column = at[i * 4:i * 4 + 4]
            text = source[start:end]
            yield RawMove(text, line, column, reader(text), comments.get(i, ()), seconds.get(i), evals.get(i))


@dataclass
class RawGame:
    number: int
    line: int  # first line of the game in its file
    offset: int  # first character of the game in its file
    source: str  # the game's text as read
    headers: list = field(default_factory=list)  # (name, value); Variant and SFEN included
    comments: list = field(default_factory=list)  # before the first move
    moves: list | RawMoves = field(default_factory=list)
    termination: str | None = None  # from a special (%TORYO ...)
    relation: str | None = None  # WIN/LOSS/DRAW/NONE for the side to move at the special
    special_line: int | None = None
    special_text: str | None = None
    problems: list = field(default_factory=list)  # GameErrors found while cutting the text
    eval: object = None  # an Evaluation of the start position given as data (formats.evals)


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

    def error(self, message, line=None, column=None, ply=None, move=None, expected=None, suggestions=(), code=None):
        self.visitor.visit_error(GameError(message, file=self.file, game=self.raw.number, line=line,
                                           column=column, ply=ply, move=move, expected=expected,
                                           suggestions=list(suggestions),
                                           kind="warning" if self.lenient else "error", code=code))

    def line(self, board: Board, moves: list, main: bool) -> bool:
        """Play ``moves`` (and their forks) on ``board``, which is left as it was (the main line's
        board is left at its end, as the LSN reader leaves it, for a visitor that keeps it); False
        when a move failed (the rest of that line is not read)."""
        played = 0
        ok = True
        for raw in moves:
            if board.ended is not None:
                message, expected = after_end(board, board.ply)
                self.error(message, raw.line, raw.column, board.ply + 1, raw.text, expected, code=MOVE_AFTER_END)
                ok = False
                break
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
            if raw.eval is not None:
                self.visitor.visit_eval(raw.eval)
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
    default :class:`~formats.visitor.GameBuilder`); variant names are looked up in ``variants``
    (default: the bundled variants and ``DAIKIFU_VARIANTS``)."""
    variants = variants or VariantRegistry.default()
    v = make_visitor(visitor, variant, variants)
    player = _Player(raw, v, lenient, file)
    v.begin_game(raw.number, raw.line)
    headers = list(raw.headers)
    if not any(name == "Variant" for name, _ in headers):
        headers.insert(0, ("Variant", variant))
    if raw.termination and not any(name == "Termination" for name, _ in headers):
        headers.append(("Termination", raw.termination))  # (a Termination tag the record holds says more)
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
    if raw.eval is not None:
        v.visit_eval(raw.eval)
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
            out.headers[IMPORT_STATUS] = TRUNCATED if player.truncated else VARIATIONS_DROPPED
        out.number = raw.number
    return out
