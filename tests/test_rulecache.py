"""The on-disk cache of compiled rule sets: what it loads equals what compiling gives, and a cache
that cannot be used never stops anything."""

from __future__ import annotations

import pytest

from daikifu.replay import Board, load_variant
from daikifu.replay import rulecache
from daikifu.replay.perft import perft
from daikifu.replay.rules import Ruleset

TABLES = ("leaps", "rays", "complex_offsets", "ray_attack", "leap_attack", "zoned", "verify", "royal", "promote",
          "unpromoted", "dead", "zone", "last_rank", "drop_caps", "droppable", "z_square", "z_turn", "by_delta",
          "start", "files", "ranks")


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv(rulecache.ENV_CACHE, str(tmp_path / "cache"))
    return tmp_path / "cache"


def _compiles(monkeypatch) -> list:
    """Record every compilation from here on."""
    calls = []
    original = Ruleset.__init__

    def counting(self, *args, **kwargs):
        calls.append(args[0].slug)
        original(self, *args, **kwargs)
    monkeypatch.setattr(Ruleset, "__init__", counting)
    return calls


@pytest.mark.parametrize("slug", ["shogi", "dai-kagamigi", "dai-ryu-shogi", "planetary-shogi"])
def test_loaded_rule_set_equals_a_compiled_one(slug, cache_dir, monkeypatch):
    variant = load_variant(slug)
    options = variant.resolve_options(None)
    fresh = Ruleset(variant, options)
    calls = _compiles(monkeypatch)
    first = rulecache.load_or_compile(variant, options)
    assert calls == [slug] and len(list(cache_dir.glob("*.rules"))) == 1
    loaded = rulecache.load_or_compile(variant, options)
    assert calls == [slug], "the second process-level load must come from the file"
    assert loaded is not first and loaded.variant is variant
    for name in TABLES:
        assert getattr(loaded, name) == getattr(fresh, name), name
    assert perft(Board(loaded), 2) == perft(Board(fresh), 2)
    board = Board(loaded)
    board.push(board.legal_moves()[-1])
    assert board.position() == Board(fresh, board.position()).position()


def test_other_options_are_other_files(cache_dir):
    variant = load_variant("dai-mitregi")
    rulecache.load_or_compile(variant, variant.resolve_options(None))
    rulecache.load_or_compile(variant, variant.resolve_options({"movement": "stepping"}))
    assert len(list(cache_dir.glob("*.rules"))) == 2


def test_unwritable_cache_compiles_anyway(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory should be")
    monkeypatch.setenv(rulecache.ENV_CACHE, str(blocker / "cache"))
    variant = load_variant("shogi")
    rules = rulecache.load_or_compile(variant, variant.resolve_options(None))
    assert perft(Board(rules), 1) == 30


def test_broken_file_is_compiled_again_and_replaced(cache_dir, monkeypatch):
    variant = load_variant("shogi")
    options = variant.resolve_options(None)
    rulecache.load_or_compile(variant, options)
    (path,) = cache_dir.glob("*.rules")
    path.write_bytes(b"not a pickle")
    calls = _compiles(monkeypatch)
    rules = rulecache.load_or_compile(variant, options)
    assert calls == ["shogi"] and perft(Board(rules), 1) == 30
    rulecache.load_or_compile(variant, options)
    assert calls == ["shogi"], "the broken file was replaced by a good one"


def test_cache_can_be_turned_off(tmp_path, monkeypatch):
    monkeypatch.setenv(rulecache.ENV_CACHE, "off")
    assert rulecache.cache_directory() is None
    calls = _compiles(monkeypatch)
    variant = load_variant("shogi")
    rulecache.load_or_compile(variant, variant.resolve_options(None))
    rulecache.load_or_compile(variant, variant.resolve_options(None))
    assert calls == ["shogi", "shogi"]


def test_changed_variant_is_another_file(cache_dir):
    from dataclasses import replace
    variant = load_variant("shogi")
    other = replace(variant, rules={**variant.rules, "stalemate": "draw"})
    assert rulecache.cache_key(variant, {}) != rulecache.cache_key(other, {})
