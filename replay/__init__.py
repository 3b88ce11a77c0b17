"""The rules core: XBetza move patterns, variant definitions, positions and legal moves."""

from .board import FIRST, SECOND, Board, IllegalMoveError, Move, Outcome, Piece
from .position import PositionError
from .rules import Ruleset, compile_rules
from .squares import parse_square, square, square_file, square_name, square_rank
from .variant import (IncompleteVariantError, UnknownVariantError, Variant, VariantError,
                      list_variants, load_variant)
from .xbetza import XBetzaError

__all__ = [
    "Board", "Move", "Piece", "Outcome", "IllegalMoveError", "FIRST", "SECOND",
    "PositionError", "Ruleset", "compile_rules",
    "square", "square_file", "square_rank", "square_name", "parse_square",
    "Variant", "VariantError", "UnknownVariantError", "IncompleteVariantError",
    "list_variants", "load_variant", "XBetzaError",
]
