"""The modules the compiled build compiles (``[tool.daikifu] compiled`` in pyproject.toml) are
clean under mypy with the project's settings (``[tool.mypy]``), and say which build is running.

mypyc compiles a module only when its type hints match its values: a hint that lies makes the
compiled build fail at run time where the pure one works.  mypy reads the package as installed
(daikifu.replay, daikifu.formats ...), so it runs on a copy of the package laid out that way."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import daikifu

ROOT = Path(__file__).resolve().parents[1]


def _config() -> dict:
    with open(ROOT / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)


def test_the_compiled_modules_are_clean_under_mypy(tmp_path):
    pytest.importorskip("mypy")  # a test dependency
    config = _config()
    for package, folder in config["tool"]["setuptools"]["package-dir"].items():
        shutil.copytree(ROOT / folder, tmp_path / package.replace(".", "/"), dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.so", "templates", "static"))
    modules = config["tool"]["daikifu"]["compiled"]
    args = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", str(tmp_path / ".cache")]
    for name in modules:
        args += ["-m", name]
    run = subprocess.run(args, cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    assert f"in {len(modules)} source files" in run.stdout, run.stdout


def test_the_version_says_which_build_runs():
    from click.testing import CliRunner

    from daikifu.cli import main
    import daikifu.replay.board as board

    expected = "compiled" if board.__file__.endswith((".so", ".pyd")) else "pure"
    assert daikifu.build() == expected
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert f"({expected} build)" in result.output
