"""The rules core: XBetza move patterns, variant definitions, positions, legal moves, move
notation, perft and self-play.

>>> from daikifu.replay import Board, load_variant
>>> board = Board(load_variant("shogi"))
>>> len(board.legal_moves())
30
>>> from daikifu.replay.notation import move_notation, parse_move
>>> move = parse_move(board, "P-c4")
>>> move_notation(board, move)
'P-c4'
"""

from .board import FIRST, SECOND, Board, IllegalMoveError, Move, Outcome, Piece
from .position import PositionError
from .rules import Ruleset, compile_rules
from .squares import parse_square, square, square_file, square_name, square_rank
from .variant import (IncompleteVariantError, OptionSyntaxError, UnknownVariantError, Variant, VariantError,
                      VariantRegistry, list_variants, load_variant, parse_options)
from .xbetza import XBetzaError

__all__ = [
    "Board", "Move", "Piece", "Outcome", "IllegalMoveError", "FIRST", "SECOND",
    "PositionError", "Ruleset", "compile_rules",
    "square", "square_file", "square_rank", "square_name", "parse_square",
    "Variant", "VariantError", "UnknownVariantError", "IncompleteVariantError", "VariantRegistry",
    "OptionSyntaxError", "parse_options", "list_variants", "load_variant", "XBetzaError",
]
