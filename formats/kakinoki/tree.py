"""The move tree a record's lines of play are read into (:class:`MoveTree`, :class:`PlayLine`).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass

from daikifu.replay import Board, Move

from ..game import Game
from .lines import Item


ROOT = -1  # the start position in a :class:`MoveTree`


class MoveTree:
    """The moves read, in a few bytes a ply: node ``k`` holds ``moves[k]`` (one shared
    :class:`Move` object per distinct move), its parent node (:data:`ROOT` for the start), the
    index of its item (its line, column, text and time are read again from the line), its first
    child and its next sibling.  The nodes of one line of play are numbered one after the other."""

    __slots__ = ("moves", "parents", "items", "first", "next", "root")

    def __init__(self):
        self.moves: list[Move] = []
        self.parents = array("i")
        self.items = array("i")
        self.first = array("i")  # the first child (the main line), or -1
        self.next = array("i")  # the next sibling, or -1
        self.root = -1  # the first child of the start position

    def add(self, parent: int, move: Move, item: int) -> int:
        """A new child of ``parent`` (after its other children), its number."""
        k = len(self.moves)
        self.moves.append(move)
        self.parents.append(parent)
        self.items.append(item)
        self.first.append(-1)
        self.next.append(-1)
        head = self.root if parent == ROOT else self.first[parent]
        if head < 0:
            if parent == ROOT:
                self.root = k
            else:
                self.first[parent] = k
        else:
            while self.next[head] >= 0:
                head = self.next[head]
            self.next[head] = k
        return k

    def is_first_child(self, k: int) -> bool:
        parent = self.parents[k]
        return (self.root if parent == ROOT else self.first[parent]) == k

    def board(self, game: Game, k: int) -> Board:
        """The position after node ``k``'s move (a new board)."""
        moves = []
        while k != ROOT:
            moves.append(self.moves[k])
            k = self.parents[k]
        board = game.start_board()
        for move in reversed(moves):
            board.push(move)
        return board


@dataclass(eq=False)
class PlayLine:
    """One line of play as read: the main line or one 変化 block."""

    start: int  # ply of its first move
    parent: int  # the node its first move is played from (ROOT: the start position)
    first: int = -1  # its first node; its nodes are first, first + 1, ... (see MoveTree)
    count: int = 0  # its nodes
    special: str | None = None
    special_item: Item | None = None
    result_item: Item | None = None
    main: bool = False
    broken: bool = False  # replaying stopped at a move that could not be read or was illegal
    end_position: str | None = None  # the position after its last move

    def covers(self, ply: int) -> bool:
        last = self.start + self.count - 1 + (1 if self.special else 0)
        return self.start <= ply <= last

    def node_before(self, ply: int) -> int:
        i = ply - 1 - self.start
        return self.first + i if i >= 0 else self.parent

    def last(self) -> int:
        """Its last node, or the node it starts from when it has none."""
        return self.first + self.count - 1 if self.count else self.parent
