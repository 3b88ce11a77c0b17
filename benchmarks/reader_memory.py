"""Peak memory of the readers alone against the size of one long game's text: ``read_kif``,
``read_ki2`` and LSN's ``read_games``, each with the default builder (the whole move tree) and with
a visitor that keeps nothing (what a tree-less ``validate`` or ``import`` pays for reading).

The game is ``benchmarks/memory.py``'s silvers stepping to and fro (--plies plies), written by
daikifu's writers; each case runs in this process after a warm-up read of a short record of the
same format, under :mod:`tracemalloc`, with the record's bytes made before tracing starts.  No
figure is asserted (tests/test_kif_visitor.py holds the one target, in the slow suite).

    python benchmarks/reader_memory.py                  # 100,000 plies
    python benchmarks/reader_memory.py --plies 20000 --json
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))


def readers():
    from daikifu.formats.ki2 import read_ki2
    from daikifu.formats.kif import read_kif
    from daikifu.formats.lsn import read_games

    def lsn(data, visitor=None):
        return list(read_games(data.decode("utf-8"), **({"visitor": visitor} if visitor else {})))

    return {"kif": read_kif, "ki2": read_ki2, "lsn": lsn}


def measure(read, data: bytes, visitor) -> tuple[int, float]:
    gc.collect()
    tracemalloc.start()
    start = time.perf_counter()
    result = read(data, visitor=visitor) if visitor is not None else read(data)
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    del result
    return peak, seconds


def main(argv=None) -> int:
    from daikifu.formats.lsn import read_game
    from daikifu.formats.visitor import Visitor
    from daikifu.formats.reading import write_record
    from memory import lsn_game

    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--plies", type=int, default=100_000, help="plies of the game")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    game = read_game(lsn_game(args.plies))
    short = read_game(lsn_game(10))
    rows = []
    if not args.json:
        print("| reader | visitor | plies | text (bytes) | seconds | traced peak MB | bytes/ply | x text |")
        print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |", flush=True)
    for fmt, read in readers().items():
        data = write_record(game, fmt)
        read(write_record(short, fmt))  # modules loaded, rules compiled
        for name, visitor in (("builder", None), ("none", Visitor())):
            peak, seconds = measure(read, data, visitor)
            row = {"reader": fmt, "visitor": name, "plies": args.plies, "text_bytes": len(data),
                   "seconds": round(seconds, 2), "traced_peak": peak}
            rows.append(row)
            if not args.json:
                print(f"| {fmt} | {name} | {args.plies:,} | {len(data):,} | {row['seconds']} | {peak / (1 << 20):.1f} "
                      f"| {peak / args.plies:,.0f} | {peak / len(data):.1f} |", flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
