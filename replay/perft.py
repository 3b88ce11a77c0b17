"""Perft: count the move sequences of a given depth, the standard check of a move generator.

Moves are counted by their effect (:class:`~replay.board.Move`): a Lion's jump to an empty square
two away is one move, however it could be written.  lishogi's rules library counts *routes*
instead: the jump ``6f6d`` and each two-step way to the same square through an empty square
(``6f5e6d``, ``6f6e6d``, ``6f7e6d``) are separate moves there, and so is a pass through each empty
neighbour.  ``perft(board, depth, routes=True)`` counts that way (see :func:`route_count`), so
lishogi's perft figures for Chu Shogi can be checked as they are.
"""

from __future__ import annotations

from .board import Board, Move

__all__ = ["perft", "divide", "route_count"]


def perft(board: Board, depth: int, routes: bool = False) -> int:
    """The number of legal move sequences ``depth`` plies deep from the board's position
    (with ``routes``, every move counts as many times as :func:`route_count` says)."""
    if depth == 0:
        return 1
    moves = board.legal_moves()
    if depth == 1:
        return sum(route_count(board, m) for m in moves) if routes else len(moves)
    total = 0
    for m in moves:
        n = route_count(board, m) if routes else 1
        board.push(m)
        total += perft(board, depth - 1, routes) * n
        board.pop()
    return total


def divide(board: Board, depth: int, routes: bool = False) -> dict[Move, int]:
    """``perft(depth - 1)`` below each legal move (depth >= 1)."""
    out = {}
    for m in board.legal_moves():
        n = route_count(board, m) if routes else 1
        board.push(m)
        out[m] = perft(board, depth - 1, routes) * n
        board.pop()
    return out


def route_count(board: Board, move: Move) -> int:
    """In how many ways ``move`` can be written as lishogi writes moves: once as a single move
    (unless it is a pass), plus once per two-step route through an empty square
    (:meth:`Board.routes`).  A move that captures on its way has one route."""
    if move.drop is not None or move.kills:
        return 1
    return (0 if move.to_square == move.from_square else 1) + len(board.routes(move))
