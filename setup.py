"""The build of daikifu.  pyproject.toml says everything; this file only adds the optional compiled
build: with ``DAIKIFU_COMPILE=1`` in the environment of ``pip install .``, the modules listed in
``[tool.daikifu] compiled`` (the rules core's hot modules and the LSN and KIF readers) are compiled
ahead of time with mypyc, from the same source, into C extensions installed beside the Python files
(docs/performance.md, "The compiled build").  Without it the build is pure Python, the default.

Compiling needs a C compiler and Python's headers (Debian: ``apt-get install gcc python3-dev``);
mypy, which holds mypyc, is then a build requirement (pip fetches it into the build environment).
"""

from __future__ import annotations

import os
import shutil
import tomllib
from pathlib import Path

from setuptools import setup

ROOT = Path(__file__).resolve().parent
MYPY = "mypy>=1.10"


def _wanted() -> bool:
    return os.environ.get("DAIKIFU_COMPILE", "").strip().lower() not in ("", "0", "no", "false")


def _config() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)


def _stage(config: dict) -> Path:
    """The package laid out as installed (daikifu/replay/..., daikifu/formats/...) in build/: mypyc
    names a module by its path, and the repository keeps one folder per layer at its top."""
    stage = ROOT / "build" / "mypyc-src"
    shutil.rmtree(stage, ignore_errors=True)
    for package, folder in config["tool"]["setuptools"]["package-dir"].items():
        shutil.copytree(ROOT / folder, stage / package.replace(".", "/"), dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.toml", "templates", "static"))
    return stage


def _extensions() -> list:
    try:
        from mypyc.build import mypycify
    except ImportError:  # the first pass of a PEP 517 build: setup_requires below asks for mypy
        return []
    config = _config()
    stage = _stage(config)
    modules = config["tool"]["daikifu"]["compiled"]
    paths = [str(stage / (name.replace(".", "/") + ".py")) for name in modules]
    # the modules they import but that stay Python are read for their types only; one C file per
    # module, compiled two at a time, without debugging information: one file of them all took
    # gcc minutes and gigabytes
    return mypycify(["--follow-imports=silent", *paths], opt_level="3", debug_level="0", multi_file=True,
                    target_dir=str(ROOT / "build" / "mypyc"), group_name="daikifu_core")


if _wanted():
    setup(ext_modules=_extensions(), setup_requires=[MYPY], options={"build_ext": {"parallel": os.cpu_count() or 1}})
else:
    setup()
