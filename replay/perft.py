"""Perft: count the move sequences of a given depth, the standard check of a move generator."""

from __future__ import annotations

from .board import Board, Move

__all__ = ["perft", "divide"]


def perft(board: Board, depth: int) -> int:
    """The number of legal move sequences ``depth`` plies deep from the board's position."""
    if depth == 0:
        return 1
    moves = board.legal_moves()
    if depth == 1:
        return len(moves)
    total = 0
    for m in moves:
        board.push(m)
        total += perft(board, depth - 1)
        board.pop()
    return total


def divide(board: Board, depth: int) -> dict[Move, int]:
    """``perft(depth - 1)`` below each legal move (depth >= 1)."""
    out = {}
    for m in board.legal_moves():
        board.push(m)
        out[m] = perft(board, depth - 1)
        board.pop()
    return out
