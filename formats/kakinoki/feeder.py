"""The one-pass feeder: moves given to a visitor while a record without 変化 blocks is replayed.
"""

from __future__ import annotations


from daikifu.replay import Move

from ..game import Game
from .builder import looks_at_board
from .common import first_mover
from .lines import Item


class OnePassFeeder:
    """Gives the moves of a record without 変化 blocks to a visitor while :meth:`KifReader.read_moves`
    replays them, as :meth:`KifReader.walk` gives them from the tree: each move with the board before
    it (a board of the visitor's, one move behind the replay's; None for a builder known not to
    look at it: :func:`looks_at_board`), then, when the next move (or the end) shows that nothing
    more follows it, the special move ending the line and its comment."""

    def __init__(self, reader, visitor, game: Game, root_comments: list):
        self.reader, self.visitor, self.root_comments = reader, visitor, root_comments
        self.board = game.start_board() if looks_at_board(visitor) else None
        self.first_turn = first_mover(game)
        self.time_hook = getattr(visitor, "visit_kif_time", None)
        self.special_hook = getattr(visitor, "visit_kif_special", None)
        self.totals = (0, 0)
        self.nodes = 0
        self.started = False  # what comes before the first move given
        self.last = None  # (node, move, time prefix) of the last move given

    def move(self, it: Item, move: Move) -> int:
        """``move`` (item ``it``) given to the visitor: its node number."""
        self.flush()
        self.totals, prefix = self.reader.give_move(self.visitor, self.board, move, it, self.totals,
                                                    (self.nodes + self.first_turn) % 2, self.time_hook)
        node = self.nodes
        self.nodes += 1
        self.last = (node, move, prefix)
        return node

    def flush(self) -> None:
        """What follows the last move given, or, before the first, what comes before it."""
        if not self.started:
            self.started = True
            self.reader.give_start(self.visitor, "\n".join(self.root_comments))
        elif self.last is not None:
            node, move, prefix = self.last
            self.reader.give_notes(self.visitor, node, prefix, self.special_hook)
            if self.board is not None:
                self.board.push(move)
            self.last = None

    finish = flush  # (the end: what follows the last move)
