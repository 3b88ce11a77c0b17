"""Engine evaluations a record carries: lishogi's ``[%eval …]`` comments and its NDJSON ``analysis``.

lishogi's exports put the analysis of a game (Fairy-Stockfish's, run by lishogi) in the comment
of each move, first, as ``[%eval 0.35]`` (the score of the position after the move in Pawns from
Sente's side: the centipawns divided by 100 as a Java float prints them, ``1.0``, ``-0.35``) or
``[%eval mate3]`` / ``[%eval mate-3]`` (mate in that many moves for Sente / for Gote); lichess's
PGN writes a mate ``#3`` and may add the depth, ``[%eval 0.35,20]``, both read too.  Its NDJSON
export gives the same per ply as data (``analysis``: ``eval``, ``mate``, ``best``, ``variation``,
``judgment``; see :func:`daikifu.formats.lishogi.read_ndjson`).

Readers do not leave the command in the comment: the game builder
(:class:`~daikifu.formats.visitor.GameBuilder`) takes it out and sets the node's ``eval`` (an
:class:`Evaluation`), the archive stores it as analysis (``engine_analysis``, the engine named
after the source), and every writer that keeps comments writes it back first in the comment as
lishogi does (:func:`with_eval`), so that nothing is lost on a round trip.

>>> ev, rest = split_eval("[%eval 0.35] [%clk 0:09:58] good")
>>> ev.cp, ev.mate, rest
(35, None, '[%clk 0:09:58] good')
>>> split_eval("[%eval mate-3]")[0].mate, eval_text(Evaluation(cp=100)), eval_text(Evaluation(mate=3))
(-3, '[%eval 1.0]', '[%eval mate3]')
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["Evaluation", "split_eval", "eval_text", "with_eval", "pawns_text", "EVAL_RE", "MATE_SCORE",
           "LISHOGI", "RECORD", "LIMITS", "MAX_LINE"]

# [%eval 0.35], [%eval -1.0], [%eval mate3], [%eval mate-3], [%eval #3], [%eval 0.35,20]
EVAL_RE = re.compile(r"\[%eval\s+(?:(?P<mate>(?:mate|#)\s*[-+]?\d{1,4})|(?P<pawns>[-+]?\d{1,5}(?:\.\d*)?|[-+]?\.\d+))"
                     r"(?:\s*,\s*(?P<depth>\d{1,4}))?\s*\]")
# the score that stands for a mate where one number is needed (ordering, the viewer's graph): a
# mate in n for Sente is MATE_SCORE - n centipawns, for Gote its negative
MATE_SCORE = 100_000
# the largest magnitude of each number an evaluation holds (the archive stores them as SQLite
# integers; a record's larger number is refused where it is read, never an overflow later)
LIMITS = {"cp": 10_000_000, "mate": 9_999, "depth": 9_999}
MAX_LINE = 64  # moves of a best line kept (lishogi's lines have at most 12: Info.LineMaxPlies)
LISHOGI = "lishogi"  # the engine name of lishogi's analysis in the archive
RECORD = "record"  # the engine name of an [%eval] whose source the record does not name


@dataclass(frozen=True, slots=True)
class Evaluation:
    """An engine's verdict on the position after a node's move (the start position on the game).

    ``cp``: centipawns from Sente's side, or ``mate``: moves to mate, positive when Sente mates
    (as lishogi gives them; at most one of them is set); ``best`` and ``variation``: the engine's
    best move and line from this position (USI, as the source wrote them; not checked here);
    ``judgment``: the source's verdict on the move that led here (lishogi's ``Inaccuracy``,
    ``Mistake``, ``Blunder``); ``depth``: the search depth when the source gave it."""

    cp: int | None = None
    mate: int | None = None
    best: str | None = None
    variation: tuple = ()
    judgment: str | None = None
    depth: int | None = None

    @property
    def scored(self) -> bool:
        return self.cp is not None or self.mate is not None

    @property
    def score(self) -> int | None:
        """Centipawns from Sente's side, a mate as :data:`MATE_SCORE` less its moves."""
        if self.mate is not None:
            return (MATE_SCORE - abs(self.mate)) * (1 if self.mate > 0 else -1)
        return self.cp

    @property
    def label(self) -> str:
        """The score as a viewer shows it: ``+0.35``, ``-1.20``, ``#3`` (Sente mates in 3), ``#-3``."""
        if self.mate is not None:
            return f"#{self.mate}"
        if self.cp is not None:
            return f"{self.cp / 100:+.2f}"
        return ""

    def as_dict(self) -> dict:
        """The fields that are set (the form of daikifu JSON's ``eval``)."""
        return {name: list(value) if isinstance(value, tuple) else value
                for name in self.__dataclass_fields__ if (value := getattr(self, name)) not in (None, ())}

    @classmethod
    def from_dict(cls, data: dict) -> "Evaluation":
        """The evaluation of :meth:`as_dict` (a ValueError for anything else)."""
        if not isinstance(data, dict) or set(data) - set(cls.__dataclass_fields__):
            raise ValueError(f"an evaluation has the fields {', '.join(cls.__dataclass_fields__)}")
        ints, texts = ("cp", "mate", "depth"), ("best", "judgment")
        if any(data.get(k) is not None and (not isinstance(data[k], int) or isinstance(data[k], bool)
                                            or abs(data[k]) > LIMITS[k]) for k in ints) \
                or any(data.get(k) is not None and not isinstance(data[k], str) for k in texts) \
                or not isinstance(data.get("variation", []), list) or len(data.get("variation", [])) > MAX_LINE \
                or not all(isinstance(m, str) for m in data.get("variation", [])):
            raise ValueError("an evaluation's cp, mate and depth are whole numbers (at most "
                             + ", ".join(f"{k} {v:,}" for k, v in LIMITS.items()) + " in size), best, judgment "
                             f"and the variation's moves (at most {MAX_LINE}) texts")
        return cls(**{**data, "variation": tuple(data.get("variation", ()))})

    def merged(self, other: "Evaluation") -> "Evaluation":
        """This evaluation with what ``other`` adds (a score from a comment, a line from data)."""
        pick = {name: getattr(self, name) if getattr(self, name) not in (None, ()) else getattr(other, name)
                for name in self.__dataclass_fields__}
        return Evaluation(**pick)


def pawns_text(cp: int) -> str:
    """Centipawns as lishogi writes them in Pawns: the shortest decimal with at least one digit
    after the point, as Java prints the float ``cp / 100`` (``35`` -> ``0.35``, ``100`` -> ``1.0``).

    >>> [pawns_text(n) for n in (35, 100, -7, 0, -1250, 123456)]
    ['0.35', '1.0', '-0.07', '0.0', '-12.5', '1234.56']
    """
    text = f"{cp / 100:.2f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def eval_text(ev: Evaluation | None) -> str:
    """The ``[%eval …]`` command lishogi writes for ``ev`` ("" when it has no score), with the
    depth after a comma as lichess writes it when the evaluation has one (lishogi gives none)."""
    if ev is None or not ev.scored:
        return ""
    value = f"mate{ev.mate}" if ev.mate is not None else pawns_text(ev.cp)
    return f"[%eval {value},{ev.depth}]" if ev.depth else f"[%eval {value}]"


def split_eval(comment: str) -> tuple[Evaluation | None, str]:
    """(the evaluation of the first ``[%eval …]`` command in ``comment``, the comment without it);
    (None, comment) when there is none.  Only the first is taken: a second stays in the text."""
    if "[%eval" not in comment:
        return None, comment
    m = EVAL_RE.search(comment)
    if m is None:
        return None, comment
    depth = int(m.group("depth")) if m.group("depth") else None
    if m.group("mate"):
        ev = Evaluation(mate=int(m.group("mate").lstrip("mate#").strip()), depth=depth)
    else:
        ev = Evaluation(cp=round(float(m.group("pawns")) * 100), depth=depth)
    rest = comment[:m.start()].rstrip() + (" " if m.start() and comment[m.end():].strip() else "") \
        + comment[m.end():].lstrip()
    return ev, rest.strip()


def with_eval(node, text: str | None = None) -> str:
    """The comment of ``node`` as a writer writes it: its evaluation's ``[%eval …]`` first, as
    lishogi writes it, then ``text`` (default: the node's comment)."""
    text = node.comment if text is None else text
    command = eval_text(node.eval)
    if not command:
        return text
    return f"{command} {text}" if text else command
