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

import daikifu

_EXPORTS = {
    "Board": ".board", "Move": ".board", "MoveStack": ".board", "Piece": ".board", "Outcome": ".board", "IllegalMoveError": ".board",
    "FIRST": ".board", "SECOND": ".board",
    "PositionError": ".position", "Ruleset": ".rules", "compile_rules": ".rules",
    "square": ".squares", "square_file": ".squares", "square_rank": ".squares", "square_name": ".squares",
    "parse_square": ".squares",
    "Variant": ".variant", "VariantError": ".variant", "UnknownVariantError": ".variant",
    "IncompleteVariantError": ".variant", "VariantRegistry": ".variant", "OptionSyntaxError": ".variant",
    "parse_options": ".variant", "list_variants": ".variant", "load_variant": ".variant",
    "XBetzaError": ".xbetza",
}
# the names above are imported on first use: a command's --help loads no board and no rules
__getattr__, __dir__ = daikifu.lazy_exports(__name__, _EXPORTS)

__all__ = list(_EXPORTS)
