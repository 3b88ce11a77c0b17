"""How squares and moves are shown: algebraic, Japanese or Western shogi notation.

A variant declares its style in its file (``style = "shogi"`` for shogi and Chu Shogi,
``"algebraic"`` for the others, see docs/variants.md); the user may ask for another with
``--style`` or the viewer's notation menu.  Three move styles come of it:

``algebraic``
    Files ``a, b, ...`` from the first player's left, ranks ``1, 2, ...`` from the bottom; moves
    in LSN (:func:`replay.notation.move_notation`), the form records are stored in.
``japanese``
    Files numbered from the right, ranks from the top in kanji: ``▲７六歩``, ``△同　銀``, with
    右/左/上/引/寄/直/打/成/不成.  On boards up to 9x9 the text is the KI2 writer's
    (:func:`formats.ki2.japanese_move_text`); on larger boards (Chu Shogi) it is lishogi's: one
    kanji a piece (``kanji_move`` where the variant file gives one), 中 and 跳 among the markers,
    a Lion's double move ``６五・６四獅`` and igui ``６六居喰い``.
``western``
    Files numbered from the right, ranks lettered from the top (``7f``; Chu Shogi ``12a``):
    ``P-7f``, ``Nx7c+``, ``S-4h=`` (a promotion declined), ``G*5e``, the origin square after the
    piece where another of its kind could go there (``G6i-5h``); a Lion's double move
    ``Lnx6e-6d`` and igui ``Lnx!6g``, a pass ``--``, as lishogi writes them.  A piece is named by
    the variant file's ``western`` abbreviation where it has one, else by its ID.

``shogi`` (a variant's style) means ``japanese`` where a move style is asked for.

>>> from daikifu.replay import Board
>>> board = Board("shogi")
>>> move = board.parse_uci("c3c4")
>>> [move_text(board, move, s) for s in MOVE_STYLES]
['P-c4', '▲７六歩', 'P-7f']
>>> square_label(board.rules, move.to_square, "japanese"), square_label(board.rules, move.to_square, "algebraic")
('７六', 'c4')
"""

from __future__ import annotations

import re

from daikifu.replay import FIRST, Board, Move
from daikifu.replay.notation import move_notation, parse_move
from daikifu.replay.squares import FILE_LETTERS, parse_square, square_file, square_name, square_rank

from .ki2 import japanese_move_text

__all__ = ["MOVE_STYLES", "StyleError", "move_style", "move_text", "line_texts", "destinations", "square_label", "diagram",
           "file_labels", "rank_labels", "restyle_message"]

MOVE_STYLES = ("algebraic", "japanese", "western")
_ASKED = {"algebraic": "algebraic", "lsn": "algebraic", "japanese": "japanese", "shogi": "japanese",
          "western": "western"}
_FULL_WIDTH = str.maketrans("0123456789", "０１２３４５６７８９")
_KANJI_DIGITS = "〇一二三四五六七八九"
_SIDE_MARKS = ("▲", "△")
# lishogi's Chu Shogi: the pieces that move like a Gold or a Silver take 直 (straight forward), the
# Lion-like pieces 直 or 跳 (the step or the jump along a file)
_GOLD_LIKE = ("G", "S")
_LION_LIKE = ("Ln", "+Kr", "+H")


class StyleError(ValueError):
    """A notation style that is not one of :data:`MOVE_STYLES` (or ``shogi``)."""


def move_style(variant, asked: str | None = None) -> str:
    """The move style to show ``variant``'s games in: ``asked`` (a style name, or None/"" for the
    variant's own style), as one of :data:`MOVE_STYLES`."""
    name = (asked or "").strip().lower() or getattr(variant, "style", "algebraic")
    try:
        return _ASKED[name]
    except KeyError:
        raise StyleError(f"style {asked!r}: expected one of {', '.join(MOVE_STYLES)} or shogi") from None


# --- squares --------------------------------------------------------------------------------------


def _kanji_number(n: int) -> str:
    """1 -> 一, 10 -> 十, 12 -> 十二 (ranks up to 16)."""
    return ("十" if n >= 10 else "") + (_KANJI_DIGITS[n % 10] if n % 10 else "")


def file_labels(rules, style: str) -> list[str]:
    """The label of every file, from index 0 (the first player's left)."""
    if style == "algebraic":
        return [FILE_LETTERS[f] for f in range(rules.files)]
    return [str(rules.files - f) for f in range(rules.files)]


def rank_labels(rules, style: str) -> list[str]:
    """The label of every rank, from index 0 (the first player's side)."""
    if style == "algebraic":
        return [str(r + 1) for r in range(rules.ranks)]
    if style == "japanese":
        return [_kanji_number(rules.ranks - r) for r in range(rules.ranks)]
    return [chr(ord("a") + rules.ranks - 1 - r) for r in range(rules.ranks)]


def square_label(rules, sq: int, style: str) -> str:
    """The name of square ``sq`` in ``style``: ``c4``, ``７六`` or ``7f``."""
    if style == "algebraic":
        return square_name(sq)
    number = str(rules.files - square_file(sq))
    if style == "japanese":
        return number.translate(_FULL_WIDTH) + _kanji_number(rules.ranks - square_rank(sq))
    return number + chr(ord("a") + rules.ranks - 1 - square_rank(sq))


def diagram(board: Board, style: str) -> str:
    """``board.diagram()`` with its coordinates in ``style`` (shogi's: files 9...1 from the left of
    the picture, ranks from the top)."""
    return board.diagram(file_labels(board.rules, style), rank_labels(board.rules, style))


# --- moves ----------------------------------------------------------------------------------------


def move_text(board: Board, move: Move, style: str, prev_to: int | None = None, reach: dict | None = None) -> str:
    """``move`` as ``style`` writes it, for the position on ``board`` before it.  ``prev_to``: the
    square the move before went to (同); by default the board's last move's.  ``reach``: the
    position's :func:`destinations`, when the caller writes several of its moves."""
    if style == "algebraic":
        return move_notation(board, move)
    if prev_to is None and board.move_stack:
        prev_to = board.peek().to_square
    if style == "western":
        return _western(board, move, reach)
    if style != "japanese":
        raise StyleError(f"style {style!r}: expected one of {', '.join(MOVE_STYLES)}")
    rules = board.rules
    mark = _SIDE_MARKS[0 if board.turn == FIRST else 1]
    if rules.files <= 9 and rules.ranks <= 9:
        return mark + japanese_move_text(board, move, prev_to)
    return mark + _japanese_large(board, move, prev_to, reach)


def line_texts(board: Board, moves, style: str) -> list[str]:
    """The text of each of ``moves`` played in turn from the position on ``board`` (left as it was)."""
    board = board.copy()
    out = []
    for move in moves:
        out.append(move_text(board, move, style))
        board.push(move)
    return out


def destinations(board: Board) -> dict:
    """Destination -> the origins of the side to move's legal moves ending there: what
    :func:`move_text` works out of the position to tell pieces apart (a list of every move of one
    position passes it once, as ``reach``)."""
    reach: dict = {}
    for m in board.legal_moves():
        if m.from_square is not None:
            reach.setdefault(m.to_square, set()).add(m.from_square)
    return reach


def _aiming(board: Board, to: int, origins, reach: dict | None) -> set:
    """The squares among ``origins`` from which the side to move has a legal move ending on ``to``."""
    if reach is None:
        reach = destinations(board)
    return reach.get(to, set()) & set(origins)


def _mid_step(board: Board, move: Move) -> int | None:
    """The square a Lion's double move steps on first (a capture on the way, igui, a pass)."""
    if move.kills:
        return move.kills[0]
    if move.is_pass:
        routes = board.routes(move)
        return routes[0] if routes else None
    return None


def _western_name(rules, pid: str) -> str:
    piece = rules.variant.piece(pid)
    return piece.western or piece.id


def _western(board: Board, move: Move, reach: dict | None) -> str:
    rules = board.rules
    if move.drop is not None:
        return f"{_western_name(rules, move.drop)}*{square_label(rules, move.to_square, 'western')}"
    piece = board.piece_at(move.from_square)
    name = _western_name(rules, piece.id)
    same = [sq for sq in board.squares_of(piece.id, board.turn) if sq != move.from_square]
    origin = square_label(rules, move.from_square, "western") if _aiming(board, move.to_square, same, reach) else ""
    to = square_label(rules, move.to_square, "western")
    to_text = ("x" if board.piece_at(move.to_square) is not None else "-") + to
    mid = _mid_step(board, move)
    if mid is not None:
        if move.to_square == move.from_square:
            return f"{name}{origin}x!{square_label(rules, mid, 'western')}" if move.kills else "--"
        step = ("x" if board.piece_at(mid) is not None else "-") + square_label(rules, mid, "western")
        return f"{name}{origin}{step}{to_text}"
    return name + origin + to_text + {True: "+", False: "=", None: ""}[move.promotion]


# --- Japanese on large boards (lishogi's Chu Shogi) ------------------------------------------------


def _kanji_name(rules, pid: str) -> str:
    piece = rules.variant.piece(pid)
    return piece.kanji_move or piece.kanji or piece.id


def _japanese_large(board: Board, move: Move, prev_to: int | None, reach: dict | None) -> str:
    rules = board.rules
    turn = board.turn

    def sq_text(sq):
        return square_label(rules, sq, "japanese")

    pid = move.drop if move.drop is not None else board.piece_at(move.from_square).id
    name = _kanji_name(rules, pid)
    # the pieces of the mover's side with the same name (金: the Gold and the promoted Pawn)
    namesakes = [t.id for t in rules.types if _kanji_name(rules, t.id) == name]
    own = [sq for t in namesakes for sq in board.squares_of(t, turn)]
    if move.drop is not None:
        return sq_text(move.to_square) + name + ("打" if _aiming(board, move.to_square, own, reach) else "")
    others = _aiming(board, move.to_square, [sq for sq in own if sq != move.from_square], reach)
    marks = _markers(board, pid, move.from_square, move.to_square, others) if others else ""
    mid = _mid_step(board, move)
    if mid is not None:
        if move.to_square == move.from_square:
            return sq_text(mid) + "居喰い" if move.kills else "じっと"
        return f"{sq_text(mid)}・{sq_text(move.to_square)}{name}{marks}"
    dest = "同　" if move.to_square == prev_to else sq_text(move.to_square)
    return dest + name + marks + {True: "成", False: "不成", None: ""}[move.promotion]


def _markers(board: Board, pid: str, origin: int, to: int, others: set) -> str:
    """The markers that tell the moving piece from ``others`` (which can also go to ``to``), as
    lishogi chooses them.  Files and ranks here count as the players do: file 0 on the first
    player's right, rank 0 at the top."""
    rules = board.rules
    sente = board.turn == FIRST

    def file_of(sq):
        return rules.files - 1 - square_file(sq)

    def rank_of(sq):
        return rules.ranks - 1 - square_rank(sq)

    up, down = rank_of(origin) > rank_of(to), rank_of(origin) < rank_of(to)
    piece = rules.variant.piece(pid)
    gold_like = pid in _GOLD_LIKE or (pid.startswith("+") and piece.betza == rules.variant.piece("G").betza
                                      if "G" in rules.type_by_id else False)
    forward = up if sente else down
    if file_of(origin) == file_of(to) and forward and gold_like and any(rank_of(o) == rank_of(origin) for o in others):
        return "直"
    if _western_name(rules, pid) in _LION_LIKE and file_of(origin) == file_of(to) and any(
            max(abs(file_of(o) - file_of(origin)), abs(rank_of(o) - rank_of(origin))) == 1 for o in others):
        jump = max(abs(file_of(to) - file_of(origin)), abs(rank_of(to) - rank_of(origin))) == 2
        return "跳" if jump else "直"

    def vertical():
        if up == down:
            return "寄"
        return "上" if (sente and up) or (not sente and down) else "引"

    def side(right, left):
        if right == left:
            return "中"
        return "右" if (sente and right) or (not sente and left) else "左"

    # alone in moving up, down or sideways: that says it
    if not any((rank_of(o) < rank_of(to)) == down and (rank_of(o) > rank_of(to)) == up for o in others):
        return vertical()
    files = [file_of(o) for o in others]
    rightmost, leftmost, mine = min(files), max(files), file_of(origin)
    if rightmost > mine or leftmost < mine or (len(others) == 2 and rightmost < mine < leftmost):
        return side(rightmost > mine, leftmost < mine)
    return side(rightmost >= mine, leftmost <= mine) + vertical()


# --- messages -------------------------------------------------------------------------------------

_ALGEBRAIC_SQUARE = re.compile(r"(?<![A-Za-z0-9*+!-])([a-p](?:1[0-6]|[1-9]))(?![0-9A-Za-z])")


def restyle_message(text: str, board: Board, style: str) -> str:
    """An error message of the readers ("the R on h2 cannot make that move (expected a legal
    move); did you mean B-e5, P-c5?") with its squares and the moves it suggests written in
    ``style``, for the position on ``board`` (where the failing move was tried); what does not
    read as a square or a move of that position stays as written."""
    if style == "algebraic" or not text:
        return text
    rules = board.rules

    def square(found):
        try:
            return square_label(rules, parse_square(found.group(1), rules.files, rules.ranks), style)
        except ValueError:
            return found.group(0)

    head, said, tail = text.partition("did you mean ")
    head = _ALGEBRAIC_SQUARE.sub(square, head)
    if said:
        end = "?" if tail.endswith("?") else ""
        written = []
        for name in tail[:len(tail) - len(end)].split(", "):
            try:
                written.append(move_text(board, parse_move(board, name), style))
            except ValueError:
                written.append(name)
        tail = ", ".join(written) + end
    return head + said + tail
