"""Game records: the :class:`Game` tree, and the readers and writers of each record format.

Readers take the text (or bytes) of a file and return :class:`Game` objects; a game that cannot
be replayed carries its :class:`GameError` instead of raising, so that one bad game never hides
the others.  Writers take a :class:`Game` and return text (LSN) or bytes (KIF).  Every entry
point reads records through one pipeline, :func:`read_record` (:mod:`daikifu.formats.reading`:
decoding, detection, a registry of formats: LSN, KIF, KI2, CSA, JKF, USI and JSON).

>>> from daikifu.formats import read_games, write_game
>>> [game] = read_games('[Variant "Shogi"]\\n[Result "*"]\\n\\n1. P-c4 P-c6 *\\n')
>>> game.valid, len(game.mainline_moves())
(True, 2)
>>> print(write_game(game).splitlines()[-1])
1. P-c4 P-c6 *
"""

from .game import RESULTS, SEVEN_TAG_ROSTER, Game, GameError, GameNode, Headers
from .jsonexport import game_from_dict, game_from_json, game_to_dict, game_to_json
from .kif import KifError, looks_like_kif, read_kif, write_kif
from .lsn import GameBuilder, HeadersOnly, LSNError, Visitor, read_game, read_games, write_game, write_games
from .reading import (FORMATS, NotARecordError, RecordFormat, UnsupportedConversion, decode_record, detect_format,
                      read_record, read_text, register_format, write_record, write_records)
from .validate import verdict, verdicts

__all__ = [
    "Game", "GameNode", "GameError", "Headers", "RESULTS", "SEVEN_TAG_ROSTER",
    "read_games", "read_game", "write_game", "write_games", "Visitor", "GameBuilder", "HeadersOnly", "LSNError",
    "read_kif", "write_kif", "looks_like_kif", "KifError",
    "game_to_dict", "game_to_json", "game_from_dict", "game_from_json",
    "read_record", "read_text", "write_record", "write_records", "detect_format", "decode_record",
    "FORMATS", "RecordFormat", "register_format", "NotARecordError", "UnsupportedConversion",
    "verdict", "verdicts",
]
