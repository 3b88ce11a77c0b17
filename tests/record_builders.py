"""Seeded random game records: test and benchmark data (the benchmarks import this module too).

:func:`random_record` plays random legal moves (a capture when one is legal, with probability
``capture_bias``, from :func:`daikifu.replay.randomplay.random_moves`) and returns a
:class:`~daikifu.formats.game.Game` with tags, a result and, optionally, a few comments and NAGs.

>>> game = random_record("shogi", seed=1, plies=(10, 10))
>>> len(game.mainline_moves())
10
"""

from __future__ import annotations

import random
from typing import Iterator

from daikifu.formats.game import Game
from daikifu.formats.lsn import write_game
from daikifu.replay import Board, compile_rules, load_variant
from daikifu.replay.randomplay import random_moves

__all__ = ["random_record", "random_records", "write_records"]

PLAYERS = ["Hanako", "Taro", "Alice", "Bob", "Chiyo", "Daisuke", "Emi", "Fumio", "Gen", "Haru",
           "Ichiro", "Jun", "Kenji", "Lena", "Masa", "Nao", "Oscar", "Piotr", "Rin", "Sora"]
EVENTS = ["Club match", "Online league", "Correspondence cup", "Friendly", "Summer open"]


def random_record(variant: str = "dai-kagamigi", seed: int | str = 0, plies: tuple[int, int] = (100, 300),
                  capture_bias: float = 0.75, comments: float = 0.0, options: dict | None = None) -> Game:
    """A random game of ``variant``: a length drawn from ``plies`` (inclusive), tags, a result,
    and a comment (with a NAG) on a share ``comments`` of the plies."""
    rng = random.Random(f"{variant}:{seed}")
    v = load_variant(variant)
    game = Game(v, options)
    board = Board(compile_rules(v, game.options))
    moves = random_moves(board, rng.randint(*plies), rng, capture_bias)
    node = game
    for m in moves:
        node = node.add_variation(m)
        if comments and rng.random() < comments:
            node.comment = rng.choice(["good", "a mistake", "the only move", "threatens mate",
                                       "[%clk 0:10:00]", "Taro thought for a long time here"])
            node.add_nag(rng.choice([1, 2, 3, 4, 5, 6]))
    game.headers["Event"] = rng.choice(EVENTS)
    game.headers["Date"] = f"{rng.randint(2015, 2026)}.{rng.randint(1, 12):02d}.{rng.randint(1, 28):02d}"
    game.headers["Round"] = str(rng.randint(1, 9))
    game.headers["Sente"], game.headers["Gote"] = rng.sample(PLAYERS, 2)
    outcome = board.outcome() if len(moves) < plies[1] else None
    if outcome is not None:
        game.result = outcome.result()
        game.headers["Termination"] = outcome.termination
    else:
        game.result = rng.choice(["1-0", "0-1", "1/2-1/2", "*"])
    return game


def random_records(variant: str = "dai-kagamigi", count: int = 10, seed: int = 0, **kwargs) -> Iterator[Game]:
    for n in range(count):
        yield random_record(variant, f"{seed}:{n}", **kwargs)


def write_records(games, path) -> int:
    """Write games as one LSN file (each followed by a blank line); returns the number of plies."""
    plies = 0
    with open(path, "w", encoding="utf-8", newline="\n") as fh:
        for g in games:
            fh.write(write_game(g) + "\n")
            plies += len(g.mainline_moves())
    return plies
