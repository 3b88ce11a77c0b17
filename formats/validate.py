"""Validation verdicts: what ``daikifu validate`` reports for each game it replays.

>>> from daikifu.formats.lsn import read_games
>>> text = '[Variant "Shogi"]\\n[Result "*"]\\n\\n1. P-c4 P-c6 2. Bxi9 *\\n'
>>> [v] = [verdict(g, "example.lsn") for g in read_games(text, file="example.lsn")]
>>> v["status"], v["ply_count"], v["errors"][0]["ply"], v["errors"][0]["move"]
('invalid', 2, 3, 'Bxi9')
"""

from __future__ import annotations

from typing import Iterator

from .game import Game
from .visitor import MainLineBuilder
from .reading import read_record

__all__ = ["verdict", "verdicts"]


def verdicts(data: bytes, file: str, *, fmt: str | None = None, variant: str | None = None,
             lenient: bool = False, **options) -> Iterator[dict]:
    """The verdict of every game of a record's bytes, one game at a time (read through
    :func:`formats.reading.read_record`, which takes ``options``: limits, variants, setup ...;
    :class:`~formats.reading.NotARecordError` when the bytes are no record).

    The formats whose readers take visitors (all but JSON) are read with
    :class:`~formats.visitor.MainLineBuilder`, so no game's move tree is built."""
    for game in read_record(data, name=file, fmt=fmt, variant=variant, lenient=lenient, visitor=MainLineBuilder,
                            **options):
        yield verdict(game, file)


def verdict(game: Game, file: str) -> dict:
    """One game's verdict: file, game number, variant, status, plies replayed (of the main line),
    result, and its errors and warnings (each a :meth:`GameError.as_dict`).  ``game`` may be a
    whole game or one read without its tree (:class:`~formats.visitor.MainLineBuilder`)."""
    return {
        "file": file,
        "game": game.number or 1,
        "variant": game.variant_named,
        "status": game.status,
        "ply_count": game.mainline_plies if game.mainline_plies is not None else len(game.mainline_moves()),
        "result": game.result,
        "errors": [e.as_dict() for e in game.errors if e.kind == "error"],
        "warnings": [e.as_dict() for e in game.errors if e.kind == "warning"],
    }
