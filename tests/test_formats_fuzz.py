"""Fuzzing the KI2, CSA, JKF and USI readers and the pipeline with mutations of the real records
(fixed seeds): no traceback, no hang, every problem located (a line, and a ply for a move)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from daikifu.formats.reading import NotARecordError, read_record

from fuzz_support import mutate

REAL = Path(__file__).parent / "data" / "real"
SOURCES = {
    "ki2": ["ki2/jkf_fork.ki2", "ki2/skc_simple.ki2", "ki2/jkf_kobayashi_kinsho196702.ki2",
            "ki2/bioshogi_alphazero_vs_elmo_12.ki2", "ki2/shogihome_ki2u-utf8.ki2u"],
    "csa": ["csa/jkf_9fu_komabetsu.csa", "csa/skc_v22.csa", "csa/jkf_2005_YAMADA_GPS.csa",
            "csa/jkf_8mai_hirate.csa", "csa/bioshogi_wars_3min_nyugyoku_kachi.csa"],
    "jkf": ["other/jkf_ryuou201409020101.jkf", "other/tsshogi_sample04.jkf"],
    "usi": ["other/shogihome_book_src05.sfen"],
}


def check(data: bytes, name: str, fmt: str | None) -> int:
    """Read every game; the number of games.  Only 'not a record' may be raised (auto detection)."""
    try:
        games = list(read_record(data, name=name, fmt=fmt))
    except NotARecordError:
        assert fmt is None
        return 0
    for game in games:
        for e in game.errors:
            assert e.line is not None and e.line >= 1, str(e)
            assert e.file == name, str(e)
            if e.move is not None and e.kind == "error" and e.ply is not None:
                assert e.column is not None, str(e)
        assert len(game.mainline_moves()) <= 2000
    return len(games)


def run(fmt: str, cases: int, seed: int) -> int:
    rng = random.Random(seed)
    paths = SOURCES[fmt]
    games = 0
    for n in range(cases):
        path = paths[n % len(paths)]
        data = mutate((REAL / path).read_bytes().split(b"\n"), rng)
        games += check(data, path, fmt if n % 2 else None)
    return games


@pytest.mark.parametrize("fmt, cases", [("ki2", 300), ("csa", 400), ("jkf", 150), ("usi", 400)])
def test_mutations_never_crash(fmt, cases):
    assert run(fmt, cases, seed=11) > 0


@pytest.mark.slow
@pytest.mark.parametrize("fmt", sorted(SOURCES))
def test_many_mutations_never_crash(fmt):
    assert run(fmt, 3000, seed=2026) > 0


def test_random_bytes_and_text_never_crash():
    rng = random.Random(5)
    alphabet = list("▲△同成不打右左上引寄直歩金銀角飛玉と１２３４５６７８９一二三四五六七八九+-%PIN$T,'/0123456789 \n")
    for _ in range(300):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 200)))
        for fmt in (None, "ki2", "csa", "usi", "jkf"):
            check(text.encode("utf-8"), "random", fmt)
        check(bytes(rng.randrange(256) for _ in range(rng.randint(0, 300))), "bytes", None)
