"""The Kakinoki formats, KIF and KI2: reading and writing, for shogi and, KIF-style, for the variants.

KI2 shares KIF's headers, diagrams, comments and 変化 blocks and writes moves without their origin
(:mod:`.ki2_reader`, :mod:`.ki2_writer`).  One module a job: :mod:`.common` (tables, patterns,
numbers, :class:`KifError`), :mod:`.style` (a variant's names), :mod:`.lines` (the record's lines),
:mod:`.tree` (the move tree), :mod:`.reader` and :mod:`.feeder` (reading, in one pass where it can),
:mod:`.builder` (the game builder), :mod:`.writer`, :mod:`.detect` (recognising the formats).

>>> games = read_kif(open("game.kif", "rb").read(), source="game.kif")   # doctest: +SKIP
>>> data = write_kif(games[0], encoding="cp932")                          # doctest: +SKIP

Reading
    The bytes are decoded by the reading pipeline's one policy (:mod:`formats.reading`: a BOM, a
    declared encoding only when the bytes fit it -- a ``#KIF ... encoding=`` line may lie --, UTF-8,
    cp932, EUC-JP); undecodable bytes give a warning on each line they are in.
    Every move is replayed through the rules core (:meth:`replay.Board.play`).  A move that cannot be
    read or is illegal gives a :class:`~formats.game.GameError` (file, game 1, line, column, ply,
    move text, message, expected, suggestions) and the rest of that line of play is skipped: the
    game keeps the valid prefix.  In the default strict mode every problem is an error (the game is
    invalid); with ``lenient=True`` the same problems are recorded as warnings.  Claims that the
    final position does not show (詰み that is not mate, 千日手 without a fourfold repetition) are
    always warnings.  Input that is not KIF at all raises :class:`KifError`; nothing else escapes.

Writing
    :func:`write_kif` writes the usual Kifu for Windows layout: header lines, a board diagram or
    ``手合割`` for the start, ``手数----指手---------消費時間--``, numbered plies with the origin in
    parentheses, ``同　`` for recaptures, ``成``/``不成`` where there was a choice, ``打`` for drops,
    times, ``*`` comments, the ending (``投了`` ...) with its ``まで`` line, and ``変化：N手`` blocks.

Chu Shogi is read and written in lishogi's dialect (``   1手目   7八歩兵 （←7九）``, a Lion's
double move on two lines ``一歩目``/``二歩目``, lishogi's 12x12 diagram, no variant line: a record
naming no variant is Chu Shogi when its diagram has 12 ranks or its moves are written so); the
other variants use the same layout as shogi with the variant's kanji (else its piece IDs) and, on
boards larger than 9x9, algebraic squares; ``docs/kif.md`` describes both with examples.

Times are kept in the move's comment as ``[%emt H:MM:SS]`` (the time the move took); the running
total of the KIF time column is recomputed when writing (``[%kiftotal H:MM:SS]`` is added only
when a file's total differs from the sum).  KIF keys map to tags: 棋戦→Event, 場所→Site,
開始日時→Date (+ ``KifStartTime`` with the original text when it holds more than the date),
先手/下手→Sente, 後手/上手→Gote, 手合割→Handicap; other keys are kept under their own name.  As in
``formats/lsn.py`` the result is ``game.result`` (no ``Result`` tag) and lenient reading sets
``ImportStatus`` when moves were left out.
"""

from __future__ import annotations

from .builder import KifGameBuilder, kif_visitor
from ..game import IMPORT_STATUS
from .common import HANDICAPS, SPECIALS, KifError
from .detect import looks_like_ki2, looks_like_kif, move_lines
from .ki2_moves import japanese_move_text, ki2_move_text
from .ki2_reader import read_ki2
from .ki2_writer import write_ki2
from .reader import read_kif
from .writer import write_kif

__all__ = ["KifError", "KifGameBuilder", "read_kif", "write_kif", "looks_like_kif", "read_ki2", "write_ki2",
           "looks_like_ki2", "ki2_move_text", "japanese_move_text", "move_lines", "kif_visitor", "HANDICAPS", "SPECIALS", "IMPORT_STATUS"]
