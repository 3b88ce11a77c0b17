"""Game records: the :class:`Game` tree, and the readers and writers of each record format.

Readers take the text (or bytes) of a file and return :class:`Game` objects; a game that cannot
be replayed carries its :class:`GameError` instead of raising, so that one bad game never hides
the others.  Writers take a :class:`Game` and return text (LSN) or bytes (KIF).

>>> from daikifu.formats import read_games, write_game
>>> [game] = read_games('[Variant "Shogi"]\\n[Result "*"]\\n\\n1. P-c4 P-c6 *\\n')
>>> game.valid, len(game.mainline_moves())
(True, 2)
>>> print(write_game(game).splitlines()[-1])
1. P-c4 P-c6 *
"""

import daikifu

_EXPORTS = {
    "RESULTS": ".game", "SEVEN_TAG_ROSTER": ".game", "Game": ".game", "GameError": ".game", "GameNode": ".game",
    "Headers": ".game",
    "game_from_dict": ".jsonexport", "game_from_json": ".jsonexport", "game_to_dict": ".jsonexport",
    "game_to_json": ".jsonexport",
    "KifError": ".kif", "looks_like_kif": ".kif", "read_kif": ".kif", "write_kif": ".kif",
    "GameBuilder": ".lsn", "HeadersOnly": ".lsn", "LSNError": ".lsn", "Visitor": ".lsn", "read_game": ".lsn",
    "read_games": ".lsn", "write_game": ".lsn", "write_games": ".lsn",
    "detect_format": ".validate", "verdict": ".validate",
}
# the names above are imported on first use: a command's --help imports this package without them
__getattr__, __dir__ = daikifu.lazy_exports(__name__, _EXPORTS)

__all__ = [
    "Game", "GameNode", "GameError", "Headers", "RESULTS", "SEVEN_TAG_ROSTER",
    "read_games", "read_game", "write_game", "write_games", "Visitor", "GameBuilder", "HeadersOnly", "LSNError",
    "read_kif", "write_kif", "looks_like_kif", "KifError",
    "game_to_dict", "game_to_json", "game_from_dict", "game_from_json",
    "detect_format", "verdict",
]
