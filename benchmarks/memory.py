"""Peak memory of ``daikifu validate`` and ``daikifu import`` against the size of the games' text.

Builds (a) one file holding one very long legal game (silvers stepping to and fro: --plies plies,
100,000 by default; quiet moves only, the best case for the board's undo entries), (b) one long
random legal game of Dai Kagamigi (9,050 plies, the length seed 1 reaches before a draw: captures,
promotions and drops, a realistic mix of moves) and (c) many ordinary games (--games games of 120
to 170 plies: one LSN file, and as many KIF files in a folder, since a KIF file holds one game),
in LSN and in KIF, and runs each
command on each in a fresh process, twice: once for the peak resident memory (the peak resident
size, started afresh through /proc/self/clear_refs after a warm-up run on a small record of the
same format and variant, less the resident size before the command) and once under
:mod:`tracemalloc` for the peak of Python's allocations.  Both are printed in bytes per ply and
as a multiple of the text of the largest game (docs/scaling.md discusses them against the target
of issue 15, at most 10 times the largest game's text).  No figure is asserted: run it and read the table.

    python benchmarks/memory.py                         # the table (docs/scaling.md holds one)
    python benchmarks/memory.py --plies 20000 --games 200 --json
    python benchmarks/memory.py --only validate-lsn-long
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

MB = 1 << 20
HEAD = '[Variant "shogi"]\n[Event "memory"]\n[Result "*"]\n\n'
CYCLE = ["S-d2", "S-f8", "S-c1", "S-g9"]  # silvers stepping to and fro
SHORT = 120  # plies of each game of the many-games files


def lsn_game(plies: int, per_line: int = 10, opening: int = 0) -> str:
    """Silvers stepping to and fro: a legal game of any length (its positions repeat), after a pawn
    move of each side chosen by ``opening`` (0 to 80), so that games of the same length differ."""
    pawns = [f"P-{'abcdefghi'[opening % 9]}4", f"P-{'abcdefghi'[opening // 9 % 9]}6"]
    plies = (pawns + [CYCLE[i % 4] for i in range(plies - 2)])[:plies]
    words = [f"{i // 2 + 1}. {w}" if i % 2 == 0 else w for i, w in enumerate(plies)]
    lines = (" ".join(words[i:i + per_line]) for i in range(0, len(words), per_line))
    return HEAD + "\n".join(lines) + " *\n"


def build(folder: Path, plies: int, games: int) -> dict:
    """{case: (paths, plies of the largest game, bytes of the largest game's text, a small record
    of the same format and variant that warms the process up)}"""
    from daikifu.formats.game import Game
    from daikifu.formats.lsn import read_game
    from daikifu.formats.reading import write_record

    def warm(game, fmt: str) -> str:
        path = folder / f"warm-{game.variant.slug}.{fmt}"
        short = Game.from_moves(game.variant, game.mainline_moves()[:4], options=game.options)
        path.write_bytes(write_record(short, fmt))
        return str(path)

    cases = {}
    long_lsn = lsn_game(plies)
    (folder / "long.lsn").write_text(long_lsn, encoding="utf-8")
    shogi = read_game(long_lsn)
    cases["lsn-long"] = ([str(folder / "long.lsn")], plies, len(long_lsn.encode()), warm(shogi, "lsn"))
    kif = write_record(shogi, "kif")
    (folder / "long.kif").write_bytes(kif)
    cases["kif-long"] = ([str(folder / "long.kif")], plies, len(kif), warm(shogi, "kif"))
    sys.path.insert(0, str(ROOT / "tests"))  # the random records are test support
    from record_builders import random_record
    game = random_record("dai-kagamigi", seed=1, plies=(20_000, 20_000), capture_bias=0.2)
    random_plies = len(game.mainline_moves())
    for fmt in ("lsn", "kif"):
        data = write_record(game, fmt)
        (folder / f"random.{fmt}").write_bytes(data)
        cases[f"{fmt}-random"] = ([str(folder / f"random.{fmt}")], random_plies, len(data), warm(game, fmt))
    shorts = [lsn_game(SHORT + 2 * (n // 81), opening=n % 81) for n in range(games)]  # all different
    longest = max(SHORT + 2 * (n // 81) for n in range(games))
    (folder / "many.lsn").write_text("\n".join(shorts), encoding="utf-8")
    cases["lsn-many"] = ([str(folder / "many.lsn")], longest, len(shorts[-1].encode()), warm(shogi, "lsn"))
    many = folder / "many-kif"
    many.mkdir()
    for n, text in enumerate(shorts):
        kif = write_record(read_game(text), "kif")
        (many / f"{n:05d}.kif").write_bytes(kif)
    cases["kif-many"] = ([str(many)], longest, len(kif), warm(shogi, "kif"))
    return cases


def _resident() -> int:
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _reset_peak() -> bool:
    """Start the peak resident size (VmHWM) afresh, so that the warm-up's does not count (Linux)."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _peak() -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def child(command: str, paths: list, trace: bool, warm: str) -> dict:
    """In a fresh process: run ``command`` on ``warm`` (modules loaded, rules compiled), then on
    ``paths``; the peaks the second run reached, in bytes."""
    import tracemalloc

    from daikifu.archive.importer import import_paths
    from daikifu.archive.store import Archive
    from daikifu.formats.commands import validate_command

    files = [str(p) for p in Path(paths[0]).iterdir()] if Path(paths[0]).is_dir() else paths
    db = Path(tempfile.mkdtemp()) / "memory.db"
    archive = Archive(str(db)) if command == "import" else None

    def run(files):
        if command == "validate":
            with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
                validate_command.main(["--json", *files], standalone_mode=False)
        else:
            summary = import_paths(archive, files)
            assert summary.invalid == 0 and summary.games, summary.errors[:3]

    run([warm])
    if trace:
        tracemalloc.start()
    before = _resident()
    _reset_peak()
    start = time.perf_counter()
    run(files if command == "validate" else paths)
    seconds = time.perf_counter() - start
    out = {"seconds": round(seconds, 2)}
    if trace:
        out["traced_peak"] = tracemalloc.get_traced_memory()[1]
    else:
        out["rss_peak"] = _peak() - before
    return out


def run_child(command: str, paths: list, trace: bool, warm: str) -> dict:
    args = [sys.executable, __file__, "--child", command, "--trace" if trace else "--no-trace", "--warm", warm,
            *paths]
    done = subprocess.run(args, capture_output=True, text=True, check=False)
    if done.returncode:
        raise SystemExit(f"{command} {paths}: {done.stderr[-2000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--plies", type=int, default=100_000, help="plies of the long game")
    p.add_argument("--games", type=int, default=2000, help="games of the many-games files")
    p.add_argument("--only", action="append", help="COMMAND-FORMAT-long|random|many (repeatable)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--child", help=argparse.SUPPRESS)
    p.add_argument("--trace", action=argparse.BooleanOptionalAction, help=argparse.SUPPRESS)
    p.add_argument("--warm", help=argparse.SUPPRESS)
    p.add_argument("paths", nargs="*", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.paths, args.trace, args.warm)))
        return 0
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        cases = build(Path(tmp), args.plies, args.games)
        if not args.json:
            print(f"({os.cpu_count()} CPUs, Python {platform.python_version()}, "
                  f"load average {[round(x, 2) for x in os.getloadavg()]} at the start)\n")
            print("| command | input | plies of the largest game | its text (bytes) | seconds | peak RSS MB "
                  "| RSS bytes/ply | RSS x text | traced peak MB | traced bytes/ply | traced x text |")
            print("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |", flush=True)
        for command in ("validate", "import"):
            for case, (paths, plies, size, warm) in cases.items():
                name = f"{command}-{case}"
                if args.only and name not in args.only:
                    continue
                rss = run_child(command, paths, False, warm)
                traced = run_child(command, paths, True, warm)
                row = {"command": command, "input": case, "plies": plies, "text_bytes": size,
                       "seconds": rss["seconds"], "rss_peak": rss["rss_peak"], "traced_peak": traced["traced_peak"]}
                rows.append(row)
                if not args.json:
                    print(f"| {command} | {case} | {plies:,} | {size:,} | {row['seconds']} "
                          f"| {row['rss_peak'] / MB:.1f} | {row['rss_peak'] / plies:,.0f} | {row['rss_peak'] / size:.1f} "
                          f"| {row['traced_peak'] / MB:.1f} | {row['traced_peak'] / plies:,.0f} "
                          f"| {row['traced_peak'] / size:.1f} |", flush=True)
    if args.json:
        print(json.dumps({"machine": {"cpus": os.cpu_count(), "python": platform.python_version()}, "rows": rows},
                         indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
