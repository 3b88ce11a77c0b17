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
    first = rulecache.load_or_compile(variant, options, Ruleset)
    assert calls == [slug] and len(list(cache_dir.glob("*.rules"))) == 1
    loaded = rulecache.load_or_compile(variant, options, Ruleset)
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
    rulecache.load_or_compile(variant, variant.resolve_options(None), Ruleset)
    rulecache.load_or_compile(variant, variant.resolve_options({"movement": "stepping"}), Ruleset)
    assert len(list(cache_dir.glob("*.rules"))) == 2


def test_unwritable_cache_compiles_anyway(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory should be")
    monkeypatch.setenv(rulecache.ENV_CACHE, str(blocker / "cache"))
    variant = load_variant("shogi")
    rules = rulecache.load_or_compile(variant, variant.resolve_options(None), Ruleset)
    assert perft(Board(rules), 1) == 30


def test_broken_file_is_compiled_again_and_replaced(cache_dir, monkeypatch):
    variant = load_variant("shogi")
    options = variant.resolve_options(None)
    rulecache.load_or_compile(variant, options, Ruleset)
    (path,) = cache_dir.glob("*.rules")
    path.write_bytes(b"not a pickle")
    calls = _compiles(monkeypatch)
    rules = rulecache.load_or_compile(variant, options, Ruleset)
    assert calls == ["shogi"] and perft(Board(rules), 1) == 30
    rulecache.load_or_compile(variant, options, Ruleset)
    assert calls == ["shogi"], "the broken file was replaced by a good one"


def test_cache_can_be_turned_off(tmp_path, monkeypatch):
    monkeypatch.setenv(rulecache.ENV_CACHE, "off")
    assert rulecache.cache_directory() is None
    calls = _compiles(monkeypatch)
    variant = load_variant("shogi")
    rulecache.load_or_compile(variant, variant.resolve_options(None), Ruleset)
    rulecache.load_or_compile(variant, variant.resolve_options(None), Ruleset)
    assert calls == ["shogi", "shogi"]


def test_changed_variant_is_another_file(cache_dir):
    from dataclasses import replace
    variant = load_variant("shogi")
    other = replace(variant, rules={**variant.rules, "stalemate": "draw"})
    assert rulecache.cache_key(variant, {}) != rulecache.cache_key(other, {})


def test_a_variant_file_is_read_again_only_when_it_changes(cache_dir, tmp_path, monkeypatch):
    """The variant read from a file is kept by the file's path and content: the second load
    parses nothing, and an edited file is read afresh (never the old definition)."""
    from pathlib import Path

    from daikifu.replay import variant as variant_module

    source = Path(load_variant("shogi").path).read_text(encoding="utf-8")
    path = tmp_path / "mine.toml"
    path.write_text(source.replace('name = "Shogi"', 'name = "Mine"', 1), encoding="utf-8")
    kept = len(list(cache_dir.glob("*.variant")))
    parsed = []
    original = variant_module.variant_from_dict
    monkeypatch.setattr(variant_module, "variant_from_dict", lambda *a: parsed.append(1) or original(*a))
    first = variant_module.load_variant_file(path)
    again = variant_module.load_variant_file(path)
    assert len(parsed) == 1 and len(list(cache_dir.glob("*.variant"))) == kept + 1
    assert again is not first and (again.name, again.slug, again.start, len(again.pieces)) == \
        ("Mine", first.slug, first.start, len(first.pieces))
    path.write_text(source.replace('name = "Shogi"', 'name = "Edited"', 1), encoding="utf-8")
    assert variant_module.load_variant_file(path).name == "Edited" and len(parsed) == 2
    path.write_bytes(b"\xff\xfe not toml")
    with pytest.raises(variant_module.VariantError, match="not valid TOML"):
        variant_module.load_variant_file(path)


def test_loaded_tables_are_immutable_and_not_tracked_by_the_collector(cache_dir):
    """The hashing keys and the move deltas are most of a big rule set's objects: once loaded
    (or compiled) they are tuples of plain values, equal entries one object, so the garbage
    collector stops looking at them and the cache file holds each entry once."""
    import gc

    variant = load_variant("dai-kagamigi")
    options = variant.resolve_options(None)
    rulecache.load_or_compile(variant, options, Ruleset)
    for rules in (Ruleset(variant, options), rulecache.load_or_compile(variant, options, Ruleset)):
        gc.collect()
        rows = [row for row in rules.z_square if any(row)]
        assert len(rows) == 2 * len(variant.pieces)
        assert all(type(row) is tuple and not gc.is_tracked(row) for row in rows)
        entries = [e for table in rules.by_delta for v in table.values() for e in v]
        assert all(type(v) is tuple for table in rules.by_delta for v in table.values())
        assert len({id(e) for e in entries}) == len(set(entries)) < len(entries) / 4


@pytest.mark.parametrize("slug", ["shogi", "chu-shogi"])
def test_what_is_stored_is_every_attribute_but_the_lazy_ones_and_the_variant(slug):
    """Ruleset.STORED names what a pickle holds: every attribute __init__ sets, less the
    variant's own objects (set again by attach) and what _set_lazy makes (a missing name would
    be lost between processes)."""
    if not hasattr(Ruleset(load_variant(slug)), "__dict__"):
        pytest.skip("the compiled build's objects have no __dict__: the pure build checks the list")
    rules = Ruleset(load_variant(slug))
    lazy = Ruleset.__new__(Ruleset)
    for name in ("royal_capture", "passive_burning", "table_moves", "zoned", "complex", "by_delta", "zone", "promote",
                 "royal"):
        setattr(lazy, name, getattr(rules, name))
    before = set(vars(lazy))
    lazy._set_lazy()
    made_lazily = set(vars(lazy)) - before
    assert set(Ruleset.STORED) == set(vars(rules)) - made_lazily - {"variant", "pieces", "types", "type_by_id"}
