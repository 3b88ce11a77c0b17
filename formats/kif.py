"""KIF game records (the Kakinoki format): :func:`read_kif` and :func:`write_kif`, implemented in
:mod:`daikifu.formats.kakinoki` with KI2, which shares them.

>>> games = read_kif(open("game.kif", "rb").read(), source="game.kif")   # doctest: +SKIP
>>> data = write_kif(games[0], encoding="cp932")                          # doctest: +SKIP
"""

from .kakinoki import HANDICAPS, IMPORT_STATUS, SPECIALS, KifError, KifGameBuilder, looks_like_kif, read_kif, write_kif

__all__ = ["KifError", "KifGameBuilder", "read_kif", "write_kif", "looks_like_kif", "HANDICAPS", "SPECIALS",
           "IMPORT_STATUS"]
