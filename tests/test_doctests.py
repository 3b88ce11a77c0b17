"""The examples in the package's docstrings run as tests (each module imported by its installed
name, ``daikifu.*``).

They run with the repository's root taken off ``sys.path``: ``python -m pytest`` puts it there and
plain ``pytest`` does not, and an example must behave the same under both (an example that imports
a layer by its folder name, ``replay``, would pass only under the first).
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import sys
from pathlib import Path

import pytest


LAYERS = ("replay", "formats", "archive", "web")
ROOT = Path(__file__).resolve().parent.parent


def _outside_the_repository(entry: str) -> bool:
    return Path(entry or ".").resolve() != ROOT


def _modules() -> list[str]:
    names = ["daikifu", "daikifu.cli", "daikifu.clikit"]
    for layer in LAYERS:
        package = importlib.import_module(f"daikifu.{layer}")
        names.append(package.__name__)
        names += [m.name for m in pkgutil.walk_packages(package.__path__, package.__name__ + ".")]
    return sorted(names)


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples(name, tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", [e for e in sys.path if _outside_the_repository(e)])
    monkeypatch.chdir(tmp_path)  # an example that writes a file writes it here
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"


def test_the_examples_are_found():
    attempted = sum(doctest.testmod(importlib.import_module(n), verbose=False, report=False).attempted
                    for n in ("daikifu.replay", "daikifu.replay.variant", "daikifu.formats.game"))
    assert attempted >= 5
