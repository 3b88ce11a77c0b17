"""Building small archives for tests: sample files plus records written by the test."""

from __future__ import annotations

from pathlib import Path

from daikifu.archive.importer import import_paths
from daikifu.archive.store import Archive

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "sample"


def sample_archive(directory: Path, samples: tuple[str, ...], texts: dict[str, str] | None = None,
                   name: str = "games.db") -> Path:
    """An archive in ``directory`` of the sample files ``samples`` (names in data/sample/) and of
    the records ``texts`` (file name -> LSN or KIF text, written to ``directory`` first).  Every
    game must import (none invalid, none duplicate)."""
    paths = [str(SAMPLE / s) for s in samples]
    for file, text in (texts or {}).items():
        (directory / file).write_text(text, encoding="utf-8")
        paths.append(str(directory / file))
    db = directory / name
    with Archive(db) as a:
        summary = import_paths(a, paths)
    assert summary.invalid == 0 and summary.imported == summary.games, summary.as_dict()
    return db
