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

# This folder is installed as daikifu.replay; imported under another name (``import replay`` from
# the repository's root) its classes would be other classes than daikifu.replay's, and objects
# of one copy (pickled rule sets, errors) would not be those of the other.
if __name__ != "daikifu.replay":
    raise ImportError(f"import this package as 'daikifu.replay', not as {__name__!r} "
                      f"(e.g. from daikifu.replay import Board; install daikifu with: pip install -e .)", name=__name__)


import daikifu

_EXPORTS = {
    "Board": ".board", "MoveStack": ".board",
    "Move": ".move", "Piece": ".move", "Outcome": ".move", "IllegalMoveError": ".move", "IllegalReason": ".move",
    "Illegality": ".move", "FIRST": ".move", "SECOND": ".move",
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
