"""Seeded random games: the demo's moves, and the moves of test and benchmark records.

:func:`random_game` generates every legal move at each ply and picks one (what ``daikifu demo``
shows); :func:`random_moves` draws pseudo-legal moves and checks only the one drawn (rejection
sampling: the same distribution over legal moves, about six times faster on the large boards).

>>> import random
>>> from daikifu.replay import Board
>>> board = Board("shogi")
>>> game = random_game(board, 10, random.Random(1))
>>> len(game.moves), board.ply
(10, 10)
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from .board import Board, Move, Outcome

__all__ = ["RandomGame", "random_game", "random_moves", "pick_move"]


@dataclass
class RandomGame:
    moves: list[Move] = field(default_factory=list)
    outcome: Outcome | None = None
    seconds: float = 0.0  # time spent generating legal moves and playing them


def pick_move(board: Board, moves: list[Move], rng: random.Random, capture_bias: float) -> Move:
    """A random move, a capture with probability ``capture_bias`` when there is one."""
    if capture_bias > 0:
        captures = [m for m in moves if board.captured_squares(m)]
        if captures and rng.random() < capture_bias:
            return rng.choice(captures)
    return rng.choice(moves)


def random_game(board: Board, plies: int, rng: random.Random, capture_bias: float = 0.75,
                on_move=None) -> RandomGame:
    """Play up to ``plies`` random legal moves on ``board`` (it is changed), stopping if the game ends.

    ``on_move(board, move, legal)`` is called before each move is played (not timed).
    """
    game = RandomGame()
    clock = time.perf_counter
    for _ in range(plies):
        start = clock()
        if board.ended is not None:  # a royal piece taken, or a bare one: moves remain, but the game is over
            game.outcome = board.ended
            break
        if board.rules.repetition == "sennichite" and board.repetitions() >= 4:
            game.outcome = board.outcome()
            game.seconds += clock() - start
            if game.outcome is not None:
                break
        legal = board.legal_moves()
        if not legal:
            game.outcome = board.outcome()
            game.seconds += clock() - start
            break
        move = pick_move(board, legal, rng, capture_bias)
        game.seconds += clock() - start
        if on_move is not None:
            on_move(board, move, legal)
        start = clock()
        board.push(move)
        game.seconds += clock() - start
        game.moves.append(move)
    return game


def random_moves(board: Board, plies: int, rng: random.Random, capture_bias: float = 0.75) -> list:
    """Play up to ``plies`` random legal moves on ``board``; stops early when there is no legal
    move, the game has ended (``board.ended``) or the position occurred four times (sennichite).
    Returns the moves played."""
    moves = []
    captured = board.captured_squares
    for _ in range(plies):
        if board.ended is not None:
            break
        if board.rules.repetition == "sennichite" and board.repetitions() >= 4:
            break
        pseudo = board.pseudo_legal_moves()
        captures = [m for m in pseudo if captured(m)] if capture_bias > 0 else []
        pools = [captures, [m for m in pseudo if not captured(m)]] \
            if captures and rng.random() < capture_bias else [list(pseudo)]
        chosen = None
        for pool in pools:
            while pool:
                i = rng.randrange(len(pool))
                m = pool[i]
                if board.illegal_reason(m) is None:
                    chosen = m
                    break
                pool[i] = pool[-1]
                pool.pop()
            if chosen is not None:
                break
        if chosen is None:
            break
        board.push(chosen)
        moves.append(chosen)
    return moves
