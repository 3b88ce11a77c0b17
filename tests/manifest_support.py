"""The real records' MANIFEST (tests/data/real/MANIFEST.md): games and main-line plies per file."""

from __future__ import annotations

import re
from pathlib import Path

REAL = Path(__file__).parent / "data" / "real"


def manifest() -> dict:
    """File -> (games, [main-line plies of each game]) from the MANIFEST's tables."""
    rows = {}
    for line in (REAL / "MANIFEST.md").read_text(encoding="utf-8").splitlines():
        m = re.match(r"\| `([^`]+)` \|", line)
        cells = [c.strip() for c in line.split("|")]
        if not m or len(cells) < 9:
            continue
        counts = re.match(r"(\d+) / ([\d+]+)", cells[7])
        if counts:
            rows[m.group(1)] = (int(counts.group(1)), [int(x) for x in counts.group(2).split("+")])
    return rows
