"""daikifu: game records of large shogi variants, read, validated, stored and searched.

The distribution installs one name, ``daikifu``, with four layers below it; each imports only the
ones before it:

- :mod:`daikifu.replay`: the rules core (variants, boards, moves, perft, self-play);
- :mod:`daikifu.formats`: record formats (LSN, KIF, ...) and the reading pipeline;
- :mod:`daikifu.archive`: the SQLite archive, import, search and statistics;
- :mod:`daikifu.web`: the Flask viewer.

``python -m daikifu`` runs the command line (:mod:`daikifu.cli`).
"""

__version__ = "0.1.0"  # the one place it is written (pyproject.toml reads it)


def build() -> str:
    """Which build of daikifu this is: ``"compiled"`` when the rules core's hot modules were
    compiled with mypyc (``DAIKIFU_COMPILE=1 pip install .``, see setup.py), else ``"pure"``.
    Looked up without importing them (a command's ``--help`` imports no layer): an extension
    module of the board beside this file, where an installed build keeps it (the sources in the
    repository have none)."""
    from importlib.machinery import EXTENSION_SUFFIXES
    from pathlib import Path

    replay = Path(__file__).resolve().parent / "replay"
    return "compiled" if any((replay / f"board{suffix}").exists() for suffix in EXTENSION_SUFFIXES) else "pure"


def lazy_exports(package: str, exports: dict[str, str]):
    """``(__getattr__, __dir__)`` for a package whose curated names (name -> its module, relative
    to the package) are imported on first use (PEP 562), so that importing one module of the
    package, as a command's ``--help`` does, does not import all of them."""
    import importlib
    import sys

    def __getattr__(name: str):
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        return getattr(importlib.import_module(module, package), name)

    def __dir__() -> list[str]:
        return sorted(set(exports) | set(vars(sys.modules[package])))

    return __getattr__, __dir__
