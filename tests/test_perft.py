"""Perft of every bundled variant against the counts pinned in tests/data/perft.toml.

One parametrized test for all of them; the file says where each count comes from.  Depths 1 and
2 run in the default suite, depth 3 with ``-m slow``.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from daikifu.replay import Board, list_variants, load_variant
from daikifu.replay.perft import perft

PINS = tomllib.loads((Path(__file__).parent / "data" / "perft.toml").read_text(encoding="utf-8"))["perft"]


def _id(pin: dict) -> str:
    options = ",".join(f"{k}={v}" for k, v in sorted(pin.get("options", {}).items()))
    return pin["variant"] + (f"[{options}]" if options else "")


def _cases(depths):
    return [pytest.param(pin, depth, id=f"{_id(pin)}-{depth}",
                         marks=[pytest.mark.slow] if depth >= 3 else [])
            for pin in PINS for depth in depths if depth <= len(pin["counts"])]


@pytest.mark.parametrize("pin,depth", _cases((1, 2, 3)))
def test_perft_matches_the_pinned_count(pin, depth):
    board = Board(load_variant(pin["variant"]), None, pin.get("options", {}))
    assert perft(board, depth) == pin["counts"][depth - 1]


def test_every_playable_bundled_variant_has_pinned_counts():
    pinned = {pin["variant"] for pin in PINS if not pin.get("options")}
    assert {v.slug for v in list_variants() if v.playable} <= pinned
