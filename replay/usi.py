"""USI: the move and position form of shogi engines (and of lishogi), for every variant.

Squares
    A square is its file number, counted from ``1`` on the first player's right, then its rank
    letter, ``a`` on the second player's side (the top of the diagram).  On the 9x9 shogi board
    that is standard USI (``7g`` is the first player's ７七); on larger boards it is lishogi's
    convention: numbers for files and letters for ranks, so Chu Shogi's squares run from ``1a`` to
    ``12l`` and a 16x16 board's to ``16p``.

    >>> from daikifu.replay import Board
    >>> b = Board("shogi")
    >>> usi_square(b.rules, parse_usi_square(b.rules, "7g"))
    '7g'

Moves (:func:`move_to_usi`, :func:`usi_to_move`)
    ``7g7f`` (origin and destination), ``8h2b+`` (``+``: the piece promotes; a promotion declined
    is written without a mark, as in USI), ``P*5e`` (a drop: the piece ID, ``*``, the square).
    A move that captures on its way (a Lion's double move) writes every captured square between
    origin and destination, lishogi's ``from-mid-to``: ``6f5e6d``; igui (capture without moving)
    returns to its origin: ``6f5e6f``.  A pass is written as origin and destination alike
    (``6f6f``); lishogi's pass through an empty neighbour (``6f5e6f`` with ``5e`` empty) is read
    as a pass too.  Moves are identified by their effect (see :class:`~replay.board.Move`), so a
    step through an empty square is not written.

    >>> move_to_usi(b, usi_to_move(b, "7g7f"))
    '7g7f'

Positions (:func:`parse_usi_position`, :func:`format_usi_position`)
    ``position startpos moves 7g7f 3c3d`` and ``position sfen <SFEN> moves ...`` (the leading
    word ``position`` is optional).  For shogi the SFEN is standard SFEN; for the other variants it
    is daikifu's position string (see :mod:`replay.position`), which has SFEN's shape.
"""

from __future__ import annotations

import re

from .board import Board
from .move import IllegalReason, Move
from .position import PositionError
from .squares import square, square_file, square_rank

__all__ = ["UsiError", "usi_square", "parse_usi_square", "move_to_usi", "parse_usi_move", "usi_to_move",
           "parse_usi_position", "usi_position_span", "format_usi_position", "board_from_usi", "looks_like_usi_position",
           "position_from_text", "looks_like_usi_move"]

_RANK_LETTERS = "abcdefghijklmnop"
_SQ = r"(?:1[0-6]|[1-9])[a-p]"
_SQUARE_RE = re.compile(rf"({_SQ})")
_MOVE_RE = re.compile(rf"(?P<squares>(?:{_SQ}){{2,}})(?P<promo>\+)?\Z")
_DROP_RE = re.compile(rf"(?P<piece>\+?[A-Za-z][A-Za-z0-9!']*|\([^()*]+\))\*(?P<to>{_SQ})\Z")
# no group is repeated per move, so that a long line is matched in constant memory
_POSITION_RE = re.compile(r"^\s*(?:position\s+)?(?:(?P<startpos>startpos)|sfen\s+(?P<sfen>.+?))"
                          r"(?:\s+moves(?P<moves>\s.*)?)?\s*$", re.S)
MAX_MOVE_TEXT = 64  # longer words are not moves


class UsiError(ValueError):
    """A USI text that names no move or position.

    ``text`` is the text read, ``reason`` what is wrong, ``index`` the 0-based number of the move
    in a ``moves`` list where reading stopped (None outside a list), ``code`` the
    :class:`~replay.move.IllegalReason` when the move is read but illegal (else None).
    """

    def __init__(self, text: str, reason: str, index: int | None = None, code=None):
        self.text = text
        self.reason = reason
        self.index = index
        self.code = code
        where = f"move {index + 1} " if index is not None else ""
        super().__init__(f"{where}{text!r}: {reason}")


def _rules(obj):
    return obj.rules if hasattr(obj, "legal_moves") else obj  # a Board, else a Ruleset


def usi_square(rules, sq: int) -> str:
    """The USI name of square ``sq`` on the board of ``rules`` (a Ruleset, or a Board)."""
    rules = _rules(rules)
    return f"{rules.files - square_file(sq)}{_RANK_LETTERS[rules.ranks - 1 - square_rank(sq)]}"


def parse_usi_square(rules, text: str) -> int:
    """The square a USI name such as ``7g`` or ``12l`` names; :class:`UsiError` if it is not one
    of the board's."""
    rules = _rules(rules)
    m = re.fullmatch(r"(\d{1,2})([a-p])", text)
    if not m:
        raise UsiError(text, "not a square (expected a file number and a rank letter, e.g. 7g)")
    number, letter = int(m.group(1)), m.group(2)
    f = rules.files - number
    r = rules.ranks - 1 - _RANK_LETTERS.index(letter)
    if not (0 <= f < rules.files and 0 <= r < rules.ranks):
        last = f"{rules.files}{_RANK_LETTERS[rules.ranks - 1]}"
        raise UsiError(text, f"square off the {rules.files}x{rules.ranks} board (1a to {last})")
    return square(f, r)


def move_to_usi(rules, move: Move) -> str:
    """The USI form of ``move`` (``rules``: a Ruleset or a Board).  Given the board, a pass is
    written as lishogi writes it, through the first empty square the piece can step to and back
    from (``6f5e6f``); without the board, or when there is no such square, as ``6f6f``."""
    board = rules if hasattr(rules, "legal_moves") else None
    rules = _rules(rules)
    if move.drop is not None:
        pid = move.drop
        bare = len(pid) == 1 or (len(pid) == 2 and pid[0] == "+")
        return f"{pid if bare else '(' + pid + ')'}*{usi_square(rules, move.to_square)}"
    squares = (move.from_square, *move.kills, move.to_square)
    if board is not None and move.is_pass:
        squares = (move.from_square, *board.routes(move)[:1], move.to_square)
    return "".join(usi_square(rules, s) for s in squares) + ("+" if move.promotion else "")


def parse_usi_move(rules, text: str) -> Move:
    """The move ``text`` names, read without a position: the squares written between origin and
    destination are captured, and the promotion is True (``+``) or None (not written).  Use
    :func:`usi_to_move` to read a move in a position (it settles declined promotions and passes).
    """
    rules = _rules(rules)
    if len(text) > MAX_MOVE_TEXT:
        raise UsiError(text[:MAX_MOVE_TEXT] + "...", "too long for a move")
    m = _DROP_RE.match(text)
    if m:
        token = m.group("piece")
        pid = token[1:-1] if token.startswith("(") else token
        piece = rules.variant.piece_index().get(pid.upper())
        if piece is None:
            raise UsiError(text, f"{rules.variant.name} has no piece {pid!r} to drop")
        return Move(None, parse_usi_square(rules, m.group("to")), (), None, piece.id)
    m = _MOVE_RE.match(text)
    if not m:
        raise UsiError(text, "not a USI move (expected e.g. 7g7f, 8h2b+, P*5e, or 6f5e6d for a double move)")
    squares = [parse_usi_square(rules, s) for s in _SQUARE_RE.findall(m.group("squares"))]
    return Move(squares[0], squares[-1], tuple(squares[1:-1]), True if m.group("promo") else None)


def usi_to_move(board: Board, text: str) -> Move:
    """The legal move ``text`` names in the position on ``board``.

    A square written between origin and destination that holds no piece is a step through an empty
    square (not a capture): lishogi's ``6f5e6d`` when ``5e`` is empty, the same move as ``6f6d``,
    and ``from-empty-from`` is a pass; that square must be one a two-step move of the piece can
    pass (:meth:`Board.routes`), as lishogi requires.  A pass that can be written so must be
    (lishogi refuses ``6f6f``).  A move written without ``+`` where the piece could promote is a
    declined promotion.  Raises :class:`UsiError` with the rules core's reason when the move is
    not legal.
    """
    move = parse_usi_move(board, text)
    if move.drop is None and move.kills:
        kills = tuple(k for k in move.kills if board.piece_at(k) is not None)
        stepped = [k for k in move.kills if board.piece_at(k) is None]
        if stepped and len(move.kills) == 1:
            plain = Move(move.from_square, move.to_square, (), move.promotion)
            if stepped[0] not in board.routes(plain):
                raise UsiError(text, f"illegal: the piece on {usi_square(board, move.from_square)} cannot reach "
                                     f"{usi_square(board, move.to_square)} in two steps through "
                                     f"{usi_square(board, stepped[0])}")
        move = move._replace(kills=kills)
    elif move.drop is None and move.is_pass and board.routes(move):
        raise UsiError(text, "illegal: a pass is written through the empty square the piece steps to and "
                             f"back from, e.g. {move_to_usi(board, move)}")
    candidates = [move] if move.promotion else [move, move._replace(promotion=False)]
    reasons = []
    for candidate in candidates:
        reason = board.illegality(candidate)
        if reason is None:
            return candidate
        reasons.append(reason)
    # without a promotion written the move is read as declining: say why that is illegal
    must_choose = len(reasons) > 1 and reasons[0].code is IllegalReason.PROMOTION_MUST_BE_CHOSEN
    reason = reasons[-1] if must_choose else reasons[0]
    raise UsiError(text, f"illegal: {reason.message}", code=reason.code)


def looks_like_usi_move(text: str) -> bool:
    """Whether ``text`` has the shape of a USI move (``7g7f``, ``6f5e6d``, ``8h2b+``, ``P*5e``),
    rather than of daikifu's notation (``P-c4``, ``h8h9``: letter before number)."""
    text = text.strip()
    return bool(_MOVE_RE.match(text) or _DROP_RE.match(text))


def looks_like_usi_position(text: str) -> bool:
    """Whether ``text`` has the shape of a USI position (``[position] startpos|sfen ... [moves ...]``)."""
    return _POSITION_RE.match(text) is not None


def parse_usi_position(rules, text: str) -> tuple[str | None, list[str]]:
    """(start position string or None for ``startpos``, the move texts) of a USI position line.

    Nothing is checked but the shape; :func:`board_from_usi` sets the position up and plays the
    moves.
    """
    start, first, end = usi_position_span(text)
    return start, text[first:end].split()


def usi_position_span(text: str) -> tuple[str | None, int, int]:
    """(start position string or None for ``startpos``, where the moves start and end in ``text``)
    of a USI position line: a reader of a long line finds its moves there one at a time.

    >>> usi_position_span("position startpos moves 7g7f 3c3d")
    (None, 23, 33)
    """
    m = _POSITION_RE.match(text)
    if not m:
        raise UsiError(text[:80], "not a USI position (expected 'position startpos moves ...' or "
                                  "'position sfen <SFEN> moves ...')")
    start = None if m.group("startpos") else m.group("sfen").strip()
    if m.group("moves") is None:
        return start, len(text), len(text)
    return start, m.start("moves"), m.end("moves")


def board_from_usi(rules, text: str) -> Board:
    """The board after a USI position line (``rules``: a Ruleset, Board or variant name).

    Raises :class:`UsiError` for a bad start position or a move that is not legal (``index`` names
    the move), with the rules core's reason.
    """
    rules = _rules(rules)
    start, moves = parse_usi_position(rules, text)
    try:
        board = Board(rules, start)
    except (PositionError, ValueError, KeyError, IndexError) as exc:
        raise UsiError(start or "startpos", f"bad SFEN: {exc}") from None
    for index, word in enumerate(moves):
        try:
            board.push(usi_to_move(board, word))
        except UsiError as exc:
            raise UsiError(word, exc.reason, index, exc.code) from None
    return board


def format_usi_position(rules, start: str | None, moves) -> str:
    """``position startpos moves ...`` (or ``position sfen <start> moves ...`` when ``start`` is not
    the variant's start position) for the moves played from ``start``."""
    rules = _rules(rules)
    head = "position startpos" if start is None or start == rules.start else f"position sfen {start}"
    board = Board(rules, start)  # each move written in its position: a pass goes through a square
    words = []
    for m in moves:
        words.append(move_to_usi(board, m))
        board.push(m)
    return head + (" moves " + " ".join(words) if words else "")


def position_from_text(rules, text: str) -> str:
    """A ``--position`` value as a position string: a USI position (``startpos moves ...``,
    ``sfen <SFEN> moves ...``, with or without ``position``) is set up and its moves played;
    anything else is returned as it is (a position string).  :class:`UsiError` for a USI position
    whose SFEN or moves are wrong."""
    if looks_like_usi_position(text):
        return board_from_usi(rules, text).position()
    return text
