"""Perft of every bundled variant, and of the 12x10 test variants, against the counts pinned in
tests/data/perft.toml.

One parametrized test for all of them; the file says where each count comes from.  The counts it
marks as independent are counted again by the independent program where it is installed (cshogi
and python-shogi for shogi, Fairy-Stockfish's pyffish for the 12x10 test variants).  Depths 1 and
2 run in the default suite, deeper ones with ``-m slow`` (cshogi's, in C++, all by default).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from daikifu.replay import Board, list_variants, load_variant
from daikifu.replay.perft import perft
from daikifu.replay.variant import load_variant_file

DATA = Path(__file__).parent / "data"
PINS = tomllib.loads((DATA / "perft.toml").read_text(encoding="utf-8"))["perft"]


def _id(pin: dict) -> str:
    options = ",".join(f"{k}={v}" for k, v in sorted(pin.get("options", {}).items()))
    where = f"@{pin['label']}" if "position" in pin else ""  # a pin from another position than the start
    return pin["variant"] + (f"[{options}]" if options else "") + where


def _cases(depths):
    return [pytest.param(pin, depth, id=f"{_id(pin)}-{depth}",
                         marks=[pytest.mark.slow] if depth >= 3 else [])
            for pin in PINS for depth in depths if depth <= len(pin["counts"])]


@pytest.mark.parametrize("pin,depth", _cases((1, 2, 3, 4)))
def test_perft_matches_the_pinned_count(pin, depth):
    variant = load_variant_file(DATA / pin["file"]) if "file" in pin else load_variant(pin["variant"])
    board = Board(variant, pin.get("position"), pin.get("options", {}))
    assert perft(board, depth) == pin["counts"][depth - 1]


def test_every_playable_bundled_variant_has_pinned_counts():
    pinned = {pin["variant"] for pin in PINS if not pin.get("options") and "file" not in pin and "position" not in pin}
    assert {v.slug for v in list_variants() if v.playable} <= pinned


def test_every_pin_says_where_its_counts_come_from():
    for pin in PINS:
        assert pin["source"] and 0 <= pin["independent"] <= len(pin["counts"]), pin
        if pin["independent"] == 0:
            assert pin["source"].startswith("regression pin") and not pin.get("engines"), pin
        assert ("position" in pin) == ("label" in pin), pin
    assert sum(pin["independent"] > 0 for pin in PINS) >= 4


# --- the independent counts, counted again ----------------------------------------------------------


def _cshogi_perft(pin, depth):
    cshogi = pytest.importorskip("cshogi")
    return _tree_count(cshogi.Board(), depth, lambda board: list(board.legal_moves))


def _python_shogi_perft(pin, depth):
    shogi = pytest.importorskip("shogi")
    return _tree_count(shogi.Board(), depth, lambda board: list(board.legal_moves))


def _tree_count(board, depth, legal_moves) -> int:
    moves = legal_moves(board)
    if depth == 1:
        return len(moves)
    count = 0
    for move in moves:
        board.push(move)
        count += _tree_count(board, depth - 1, legal_moves)
        board.pop()
    return count


def _fairy_stockfish_perft(pin, depth):
    sf = pytest.importorskip("pyffish")
    sf.load_variant_config((DATA / "fairy-stockfish.ini").read_text(encoding="utf-8"))
    name = pin.get("engine_variant", pin["variant"])  # the engine's own name for a built-in variant

    def count(fen, depth):
        moves = sf.legal_moves(name, fen, [])
        if depth == 1:
            return len(moves)
        return sum(count(sf.get_fen(name, fen, [m]), depth - 1) for m in moves)
    return count(sf.start_fen(name), depth)


ENGINES = {"cshogi": _cshogi_perft, "python-shogi": _python_shogi_perft, "pyffish": _fairy_stockfish_perft}
QUICK_DEPTH = {"cshogi": 4, "python-shogi": 2, "pyffish": 2}  # deeper counts take seconds: -m slow
DEEPEST = {"python-shogi": 3}  # its depth 4 takes minutes; cshogi counts it


def _engine_cases():
    return [pytest.param(pin, engine, depth, id=f"{_id(pin)}-{engine}-{depth}",
                         marks=[pytest.mark.slow] if depth > QUICK_DEPTH[engine] else [])
            for pin in PINS for engine in pin.get("engines", ())
            for depth in range(1, min(pin["independent"], DEEPEST.get(engine, 9)) + 1)]


@pytest.mark.parametrize("pin,engine,depth", _engine_cases())
def test_the_independent_counts_are_the_independent_engines(pin, engine, depth):
    assert ENGINES[engine](pin, depth) == pin["counts"][depth - 1]
