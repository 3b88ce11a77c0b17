"""Helpers shared by the shogi tests: USI <-> our squares and moves, perft, flipping positions.

Our squares are ``square(file, rank)`` counted from the first player's lower-left corner (``a1``);
USI counts files 9..1 from the first player's left and ranks a..i from the second player's side.
So USI ``7g`` is file index 9 - 7 = 2 and rank index 9 - 7 = 2, our ``c3``.
"""

from __future__ import annotations

from daikifu.replay import Board, Move
from daikifu.replay.squares import square, square_file, square_rank
from daikifu.replay.perft import perft  # noqa: F401 (re-exported for the shogi tests)

USI_RANKS = "abcdefghi"


def usi_square(sq: int) -> str:
    """Our square -> USI square name (``square(2, 2)`` -> ``7g``)."""
    return f"{9 - square_file(sq)}{USI_RANKS[8 - square_rank(sq)]}"


def square_from_usi(name: str) -> int:
    """USI square name -> our square (``7g`` -> ``square(2, 2)``)."""
    return square(9 - int(name[0]), 8 - USI_RANKS.index(name[1]))


def to_usi(move: Move) -> str:
    """Our move -> USI: promotion True gives the ``+`` suffix, False and None give none."""
    if move.drop is not None:
        return f"{move.drop}*{usi_square(move.to_square)}"
    assert not move.kills, move
    return usi_square(move.from_square) + usi_square(move.to_square) + ("+" if move.promotion else "")


_UNSET = object()


def raw_move(usi: str, promotion=_UNSET) -> Move:
    """A Move built from USI text without looking at a position.

    The promotion flag is True for a ``+`` suffix, else None, unless ``promotion`` is given.
    """
    if "*" in usi:
        pid, _, sq = usi.partition("*")
        return Move(None, square_from_usi(sq), (), None if promotion is _UNSET else promotion, pid)
    promo = usi.endswith("+")
    body = usi.rstrip("+")
    if promotion is _UNSET:
        promotion = True if promo else None
    return Move(square_from_usi(body[:2]), square_from_usi(body[2:4]), (), promotion)


def legal_move(board: Board, usi: str) -> Move:
    """The legal move of ``board`` written ``usi`` (fails the test if there is none)."""
    found = [m for m in board.legal_moves() if to_usi(m) == usi]
    assert len(found) == 1, f"{usi} is not (exactly once) legal in {board.position()}: {found}"
    return found[0]


def play_usi(board: Board, *moves: str) -> None:
    for usi in moves:
        board.play(legal_move(board, usi))



def reference_perft(board, depth: int) -> int:
    """Perft with python-shogi (slow: for small depths only)."""
    if depth == 0:
        return 1
    moves = list(board.legal_moves)
    if depth == 1:
        return len(moves)
    total = 0
    for m in moves:
        board.push(m)
        total += reference_perft(board, depth - 1)
        board.pop()
    return total


# --- building and flipping positions ----------------------------------------------------------


def sfen(pieces: dict, side: str = "b", hands: str = "-", move_number: int = 1) -> str:
    """An SFEN from ``{"5i": "K", "5a": "k", "2c": "+R"}`` (USI squares, SFEN piece symbols)."""
    grid = [[None] * 9 for _ in range(9)]  # grid[rank a..i][file 9..1]
    for name, symbol in pieces.items():
        grid[USI_RANKS.index(name[1])][9 - int(name[0])] = symbol
    return _format(grid, side, hands, move_number)


def _format(grid, side, hands, move_number) -> str:
    rows = []
    for row in grid:
        out, empty = "", 0
        for cell in row:
            if cell is None:
                empty += 1
                continue
            if empty:
                out += str(empty)
                empty = 0
            out += cell
        rows.append(out + (str(empty) if empty else ""))
    return f"{'/'.join(rows)} {side} {hands} {move_number}"


def _swap_case(symbol: str) -> str:
    return symbol.lower() if symbol[-1].isupper() else symbol.upper()


def _hand_tokens(text: str):
    count = ""
    for c in text:
        if c.isdigit():
            count += c
        else:
            yield int(count or 1), c
            count = ""


HAND_ORDER = "RBGSNLP"


def flip_sfen(text: str) -> str:
    """The same position seen from the other side: board turned 180 degrees, colours swapped."""
    board, side, hands, number = text.split()
    grid = []
    for row in board.split("/"):
        cells, plus = [], ""
        for c in row:
            if c.isdigit():
                cells.extend([None] * int(c))
            elif c == "+":
                plus = "+"
            else:
                cells.append(_swap_case(plus + c))
                plus = ""
        grid.append(cells[::-1])
    grid.reverse()
    held = {}
    if hands != "-":
        for n, c in _hand_tokens(hands):
            held[_swap_case(c)] = n
    out = ""
    for symbol in [p for p in HAND_ORDER] + [p.lower() for p in HAND_ORDER]:
        if symbol in held:
            out += (str(held[symbol]) if held[symbol] > 1 else "") + symbol
    return _format(grid, "w" if side == "b" else "b", out or "-", number)


def flip_usi_square(name: str) -> str:
    return f"{10 - int(name[0])}{USI_RANKS[8 - USI_RANKS.index(name[1])]}"


def flip_usi(usi: str) -> str:
    """A USI move seen from the other side (squares turned 180 degrees)."""
    if "*" in usi:
        pid, _, sq = usi.partition("*")
        return f"{pid}*{flip_usi_square(sq)}"
    suffix = "+" if usi.endswith("+") else ""
    body = usi.rstrip("+")
    return flip_usi_square(body[:2]) + flip_usi_square(body[2:4]) + suffix
