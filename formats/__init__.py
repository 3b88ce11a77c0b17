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

# This folder is installed as daikifu.formats; imported under another name (``import formats`` from
# the repository's root) its classes would be other classes than daikifu.formats's, and objects
# of one copy (pickled rule sets, errors) would not be those of the other.
if __name__ != "daikifu.formats":
    raise ImportError(f"import this package as 'daikifu.formats', not as {__name__!r} "
                      f"(e.g. from daikifu.formats import read_games; install daikifu with: pip install -e .)", name=__name__)


import daikifu

_EXPORTS = {
    "RESULTS": ".game", "SEVEN_TAG_ROSTER": ".game", "Game": ".game", "GameError": ".game", "GameNode": ".game",
    "Headers": ".game",
    "read_games": ".lsn", "read_game": ".lsn", "write_game": ".lsn", "write_games": ".lsn", "Visitor": ".visitor",
    "GameBuilder": ".visitor", "MainLineBuilder": ".visitor", "HeadersOnly": ".visitor", "LSNError": ".lsn",
    "read_kif": ".kif", "write_kif": ".kif", "looks_like_kif": ".kif", "KifError": ".kif",
    "game_to_dict": ".jsonexport", "game_to_json": ".jsonexport", "game_from_dict": ".jsonexport",
    "game_from_json": ".jsonexport",
    "read_record": ".reading", "read_text": ".reading", "write_record": ".reading", "write_records": ".reading",
    "detect_format": ".reading", "decode_record": ".reading", "FORMATS": ".reading", "RecordFormat": ".reading",
    "register_format": ".reading", "NotARecordError": ".reading", "UnsupportedConversion": ".reading",
    "verdict": ".validate", "verdicts": ".validate",
}
# the names above are imported on first use: a command's --help imports this package without them
__getattr__, __dir__ = daikifu.lazy_exports(__name__, _EXPORTS)

__all__ = list(_EXPORTS)
