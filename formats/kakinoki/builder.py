"""The KIF and KI2 readers' game builder, and what a visitor lets the reader skip.
"""

from __future__ import annotations

import functools


from ..game import Game
from ..visitor import GameBuilder, MainLineBuilder


class KifGameBuilder(GameBuilder):
    """The default visitor of :func:`read_kif` and :func:`~formats.ki2.read_ki2`: builds the
    :class:`Game` the reader prepared (variant, options, start, tags), with the KIF reader's
    extras on the nodes: ``kif_time`` (the move's time column, ``(seconds, total or None)``) and
    ``kif_special`` (the special move that ends the line, ``(word, seconds or None)``, on the
    line's last node or on the game), which :func:`write_kif` writes back."""

    prepared: Game | None = None  # set by the reader before begin_game

    def new_game(self) -> Game:
        return self.prepared

    def visit_comment(self, text, before_first_move=False):
        if before_first_move and text:  # also before a line's continuation (変化 after its end)
            self.pending_comment.append(text)
        else:
            super().visit_comment(text)

    def visit_kif_time(self, time: tuple) -> None:
        self.node.kif_time = time

    def visit_kif_special(self, word: str, seconds: int | None) -> None:
        self.node.kif_special = (word, seconds)


def collects_tags(visitor) -> bool:
    """Whether ``visitor`` is a :class:`KifGameBuilder` that only collects the tags it is given
    (:class:`~formats.visitor.GameBuilder`'s ``visit_header``, ``end_headers`` and the KIF builder's
    ``new_game``: the game is the one the reader prepared), so that the tags only the replay tells
    (Termination, ImportStatus) may reach it after the moves: it ends the same."""
    cls = type(visitor)
    return (isinstance(visitor, KifGameBuilder) and cls.visit_header is GameBuilder.visit_header
            and cls.new_game is KifGameBuilder.new_game
            and cls.end_headers in (GameBuilder.end_headers, MainLineBuilder.end_headers))


def looks_at_board(visitor) -> bool:
    """Whether ``visitor`` may look at the board it is given with each move: all but the game
    builders, whose ``visit_move`` (:class:`~formats.visitor.GameBuilder`'s, or
    :class:`~formats.visitor.MainLineBuilder`'s) does not, and those that can do without it
    (``board_optional``)."""
    if getattr(visitor, "board_optional", False):
        return False
    return type(visitor).visit_move not in (GameBuilder.visit_move, MainLineBuilder.visit_move)


def kif_visitor(visitor):
    """The visitor a KIF-family reader is given for ``visitor``: a game builder class with the KIF
    builder's part too (the reader prepares the game it builds: variant, start, tags)."""
    if visitor is None or not isinstance(visitor, type) or not issubclass(visitor, GameBuilder) \
            or issubclass(visitor, KifGameBuilder):
        return visitor
    return _with_kif_part(visitor)


@functools.lru_cache(maxsize=None)  # one class per builder class (a program has few)
def _with_kif_part(builder: type) -> type:
    return type(builder.__name__, (builder, KifGameBuilder), {})
