"""Compiled rule sets kept on disk, so that a new process does not compile a variant again.

Compiling a big variant (move tables, hashing keys, squares where a piece could never move) takes
a tenth of a second or more per rule set, more than reading a one-game file; loading the compiled
tables back takes a small part of that.  :func:`load_or_compile` keeps each compiled
:class:`~replay.rules.Ruleset` in a file named by a hash of everything it is made from: the
variant's definition as read (every field of the file), the chosen options, the Python version,
daikifu's version and build (pure or compiled), the name the rules core was imported under and its source (so that a changed
daikifu never reads tables an older one wrote, and a pickle names classes that this copy of the
rules core defines).

The cache lives in ``$DAIKIFU_CACHE_DIR``, else ``$XDG_CACHE_HOME/daikifu``, else
``~/.cache/daikifu``; ``DAIKIFU_CACHE_DIR=off`` turns it off.  It is only ever a shortcut: a
directory that cannot be created or written, or a file that cannot be read, means compiling as if
there were no cache.  The files are Python pickles, written to a directory only the user may
write (mode 0700): like any file under the user's home, whoever can write there can make the
user's own programs run code.
"""

from __future__ import annotations

import hashlib
import os
import pickle
import sys
from functools import cache
from pathlib import Path

import daikifu

__all__ = ["cache_directory", "load_or_compile", "ENV_CACHE"]

ENV_CACHE = "DAIKIFU_CACHE_DIR"
KEEP = 200  # files kept in the cache directory; the oldest go first


def cache_directory() -> Path | None:
    """Where compiled rule sets are kept (None when the cache is turned off)."""
    explicit = os.environ.get(ENV_CACHE)
    if explicit is not None:
        return None if explicit.strip().lower() in ("", "off", "0", "none") else Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "daikifu"


# the modules that make the compiled tables (rules.py and everything it imports)
SOURCES = ("rules.py", "generators.py", "xbetza.py", "squares.py", "variant.py", "rulecache.py", "move.py",
           "position.py")


@cache
def _fingerprint() -> bytes:
    """A hash of what the compiled tables are made by: the Python and daikifu versions, the module
    name the rules core was imported under (a pickle refers to classes by it) and its source."""
    h = hashlib.sha256(sys.version.encode())
    h.update(b"\0" + daikifu.__version__.encode() + b"\0" + __name__.encode())
    h.update(b"\0" + daikifu.build().encode())  # a compiled build's classes pickle otherwise
    here = Path(__file__).parent
    for name in SOURCES:
        h.update(name.encode())
        h.update((here / name).read_bytes())
    return h.digest()


def cache_key(variant, options: dict) -> str:
    """The file name of a rule set: a hash of the variant as read, the options and the source."""
    h = hashlib.sha256(_fingerprint())
    h.update(repr(variant).encode())
    h.update(repr(sorted(options.items())).encode())
    return h.hexdigest()[:40]


def load_or_compile(variant, options: dict, compile):
    """The compiled rule set of ``variant`` with ``options`` (resolved), from the cache when there,
    else made by ``compile(variant, options)`` (the class :class:`~replay.rules.Ruleset`, which
    must also have made any file read: what the file holds is used only when it is one)."""
    directory = cache_directory()
    if directory is None or not variant.playable:
        return compile(variant, options)
    path = directory / f"{cache_key(variant, options)}.rules"
    try:
        with open(path, "rb") as fh:
            rules = pickle.load(fh)
        if isinstance(rules, compile):
            rules.attach(variant)
            return rules
    except Exception:  # missing, unreadable or stale: compile instead
        pass
    rules = compile(variant, options)
    _store(directory, path, rules)
    return rules


def cached_value(suffix: str, key: bytes, make):
    """``make()``, or what it gave for the same ``key`` in an earlier process (kept in a file
    ending in ``.suffix``, named by a hash of ``key`` and of the source).  An exception from
    ``make`` is not kept."""
    directory = cache_directory()
    if directory is None:
        return make()
    h = hashlib.sha256(_fingerprint())
    h.update(key)
    path = directory / f"{h.hexdigest()[:40]}.{suffix}"
    try:
        with open(path, "rb") as fh:
            return pickle.load(fh)
    except Exception:  # missing, unreadable or stale: make it instead
        pass
    value = make()
    _store(directory, path, value)
    return value


def _store(directory: Path, path: Path, rules) -> None:
    try:
        directory.mkdir(mode=0o700, parents=True, exist_ok=True)
        import tempfile  # (here: only a process that compiles writes, and tempfile is slow to import)

        fd, tmp = tempfile.mkstemp(dir=directory, suffix=".part")
        try:
            with os.fdopen(fd, "wb") as fh:
                pickle.dump(rules, fh, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)  # readers see the whole file or none
        except BaseException:
            os.unlink(tmp)
            raise
        _prune(directory, path.suffix)
    except Exception:  # an unwritable cache only costs the next process time
        pass


def _prune(directory: Path, suffix: str = ".rules") -> None:
    files = sorted(directory.glob(f"*{suffix}"), key=lambda p: p.stat().st_mtime)
    for old in files[:-KEEP]:
        try:
            old.unlink()
        except OSError:
            pass
