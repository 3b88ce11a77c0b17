"""How the LSN reader scales: input size -> time and peak memory, per dimension of a record.

For each dimension (one long comment, many comments after one move, one long tag value, one long
line, nested variations, games per file, plies per game) the script builds records of doubling
size, reads them with :func:`daikifu.formats.lsn.read_games` (every game built, as ``validate``
and ``import`` do) and reports the seconds (best of --repeats) and the peak of Python's
allocations (tracemalloc, a separate run) per size, with the ratios to the row before: a linear
row doubles in time and memory when its input doubles.  The last row of some dimensions is over
the reader's default limit: it shows that the input is refused at once (docs/notation.md 5.7).

    python benchmarks/scaling.py                 # the table (docs/scaling.md holds one)
    python benchmarks/scaling.py --quick --json
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from daikifu.formats.limits import ReadLimits  # noqa: E402
from daikifu.formats.lsn import read_games  # noqa: E402

MB = 1 << 20
HEAD = '[Variant "shogi"]\n[Event "scaling"]\n\n'
CYCLE = ["K-e2", "K-e8", "K-e1", "K-e9"]
BIG = ReadLimits(max_record=1 << 30, max_line=1 << 30, max_comment=1 << 30, max_depth=1 << 20)


def plies_text(plies: int, per_line: int = 10) -> str:
    """Kings stepping to and fro: a legal game of any length."""
    words = [f"{i // 2 + 1}. {CYCLE[i % 4]}" if i % 2 == 0 else CYCLE[i % 4] for i in range(plies)]
    return "\n".join(" ".join(words[i:i + per_line]) for i in range(0, len(words), per_line))


def one_comment(n: int) -> str:
    return HEAD + "1. P-c4 {" + "ab " * (n // 3) + "} P-c6 *\n"


def many_comments(n: int) -> str:
    return HEAD + "1. P-c4 " + "{a}" * (n // 3) + " P-c6 *\n"


def tag_value(n: int) -> str:
    return f'[Variant "shogi"]\n[Event "{"x" * n}"]\n\n1. P-c4 *\n'


def long_line(n: int) -> str:
    return HEAD + "1. P-c4 " + "$1 " * (n // 3) + "*\n"  # one line of many tokens (NAGs)


def nesting(n: int) -> str:
    return HEAD + "1. P-c4 " + "(1. P-g4 " * n + ")" * n + " *\n"


def games(n: int) -> str:
    return "\n".join(HEAD + "1. P-c4 P-c6 2. P-g4 P-g6 *\n" for _ in range(n))


def plies(n: int) -> str:
    return HEAD + plies_text(n) + " *\n"


# (name, unit, builder, sizes, limits for the measured rows, refused row: size or None)
DIMENSIONS = [
    ("one comment", "characters", one_comment, [1 * MB, 2 * MB, 4 * MB, 8 * MB], BIG, 10 * MB),
    ("comments after one move", "characters", many_comments, [MB // 4, MB // 2, MB, 2 * MB], None, None),
    ("tag value", "characters", tag_value, [1 * MB, 2 * MB, 4 * MB, 8 * MB], BIG, 8 * MB),
    ("line length", "characters", long_line, [MB // 2, MB, 2 * MB, 4 * MB - 64], None, 5 * MB),
    ("nested variations", "levels", nesting, [25, 50, 100, 200], BIG, 200),
    ("games per file", "games", games, [1000, 2000, 4000, 8000], None, None),
    ("plies per game", "plies", plies, [5000, 10000, 20000, 40000], None, None),
]


def read_all(text: str, limits) -> tuple[int, int]:
    """(games read, games valid): every game built, then let go (as validate does)."""
    count = valid = 0
    for game in read_games(text, limits=limits):
        count += 1
        valid += game.valid
    return count, valid


def measure(text: str, limits, repeats: int) -> dict:
    best = None
    for _ in range(repeats):
        gc.collect()
        t = time.perf_counter()
        count, valid = read_all(text, limits)
        elapsed = time.perf_counter() - t
        best = elapsed if best is None else min(best, elapsed)
    gc.collect()
    tracemalloc.start()
    try:
        read_all(text, limits)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return {"seconds": round(best, 3), "peak_mb": round(peak / MB, 1), "games": count, "valid": valid}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeats", type=int, default=1, help="runs per size; the best time is reported")
    p.add_argument("--quick", action="store_true", help="the two smallest sizes of each dimension only")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    list(read_games(HEAD + "1. P-c4 *\n"))  # the variant's rules compiled once, outside the figures
    if not args.json:
        m = {"cpus": os.cpu_count(), "python": platform.python_version(),
             "load_average": [round(x, 2) for x in os.getloadavg()]}
        print(f"({m['cpus']} CPUs, Python {m['python']}, load average {m['load_average']} at the start)\n")
        print("| input | size | text MB | seconds | peak MB | x time | x memory | read as |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |", flush=True)
    rows = []

    def show(r):
        if args.json:
            return
        verdict = ("refused at once (invalid game, located error)" if r["limits"].startswith("default: refused")
                   else f"{r['valid']} of {r['games']} games valid" + (", limits raised" if r["limits"] == "raised" else ""))
        print(f"| {r['dimension']} | {r['size']:,} {r['unit']} | {r['text_mb']} | {r['seconds']} | {r['peak_mb']} "
              f"| {r.get('time_ratio', '')} | {r.get('memory_ratio', '')} | {verdict} |", flush=True)

    for name, unit, build, sizes, limits, refused in DIMENSIONS:
        previous = None
        for size in sizes[:2] if args.quick else sizes:
            text = build(size)
            r = measure(text, limits, args.repeats)
            row = {"dimension": name, "size": size, "unit": unit, "text_mb": round(len(text) / MB, 2), **r,
                   "limits": "raised" if limits is not None else "default"}
            if previous:
                row["time_ratio"] = round(r["seconds"] / max(previous["seconds"], 1e-6), 2)
                row["memory_ratio"] = round(r["peak_mb"] / max(previous["peak_mb"], 1e-6), 2)
            rows.append(row)
            show(row)
            previous = r
            del text
        if refused is not None and not args.quick:
            text = build(refused)
            r = measure(text, None, args.repeats)
            rows.append({"dimension": name, "size": refused, "unit": unit, "text_mb": round(len(text) / MB, 2),
                         **r, "limits": "default: refused"})
            show(rows[-1])
            del text
    if args.json:
        report = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                              "load_average": [round(x, 2) for x in os.getloadavg()]}, "rows": rows}
        print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
