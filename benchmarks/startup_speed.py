"""How fast the command line starts: ``daikifu --help``, every command's ``--help`` (``serve``
aside: it loads Flask), and ``validate`` of a one-game file.

Each command runs --runs times as a new process (``python -m daikifu``); the median is reported,
by the child process's CPU time (user + system, from the operating system's accounting: steady on
a machine other work shares) and by elapsed time.  ``validate`` runs with a fresh rule-set cache
directory: its first run compiles the variant and fills the cache (shown apart), the later runs
load it.  Targets: 150 ms for ``--help``, 250 ms for ``validate`` of one game.

Python's bytecode cache is on, as after ``pip install`` (which compiles every module): each command
runs once before it is timed, so that its modules' ``.pyc`` files exist.  Where
``PYTHONDONTWRITEBYTECODE`` is set (some containers and CI images), every process would compile
the package's source again, about 100 ms more per command; ``--no-bytecode-cache`` measures that.

    python benchmarks/startup_speed.py
    python benchmarks/startup_speed.py --runs 9 --json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from daikifu.cli import COMMANDS  # noqa: E402

HELP_TARGET = 0.150
VALIDATE_TARGET = 0.250


def run(args: list[str], env: dict) -> tuple[float, float]:
    """(CPU seconds of the child, elapsed seconds) of ``python -m daikifu ARGS``."""
    start = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "daikifu", *args], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in (0, 1):
        raise SystemExit(f"daikifu {' '.join(args)} exited with {proc.returncode}")
    return usage.ru_utime + usage.ru_stime, wall


def measure(args: list[str], env: dict, runs: int) -> dict:
    run(args, env)  # writes the bytecode cache of the modules this command loads
    results = [run(args, env) for _ in range(runs)]
    return {"command": "daikifu " + " ".join(args), "cpu_s": round(statistics.median(r[0] for r in results), 4),
            "wall_s": round(statistics.median(r[1] for r in results), 4)}


def one_game_file(directory: Path) -> Path:
    """The first game of the bundled shogi sample, alone in a file."""
    text = (ROOT / "data" / "sample" / "shogi.lsn").read_text(encoding="utf-8")
    first = text.split("\n\n[", 1)[0].rstrip("\n") + "\n"
    path = directory / "one-game.lsn"
    path.write_text(first, encoding="utf-8")
    return path


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--runs", type=int, default=5, help="runs per command; the median is reported (default 5)")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--no-bytecode-cache", action="store_true",
                        help="run the commands with PYTHONDONTWRITEBYTECODE=1 (every module compiled from source)")
    args = parser.parse_args(argv)

    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ, DAIKIFU_CACHE_DIR=str(Path(tmp) / "rule-sets"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if args.no_bytecode_cache:
            env["PYTHONDONTWRITEBYTECODE"] = "1"
        rows = [dict(measure(["--help"], env, args.runs), target=HELP_TARGET)]
        for name in sorted(COMMANDS):
            if name != "serve":
                rows.append(dict(measure([name, "--help"], env, args.runs), target=HELP_TARGET))
        game = one_game_file(Path(tmp))
        cpu, wall = run(["validate", str(game)], env)
        first = {"command": f"daikifu validate {game.name} (first run: compiles the rule set and the modules, fills the caches)",
                 "cpu_s": round(cpu, 4), "wall_s": round(wall, 4), "target": None}
        rows.append(dict(measure(["validate", str(game)], env, args.runs), target=VALIDATE_TARGET))
        rows[-1]["command"] = f"daikifu validate {game.name}"
        rows.append(first)
    for r in rows:
        r["meets_target"] = None if r["target"] is None else r["cpu_s"] <= r["target"]
    if args.json:
        print(json.dumps({"python": sys.version.split()[0], "cpus": os.cpu_count(), "runs": args.runs,
                          "bytecode_cache": not args.no_bytecode_cache, "results": rows}, indent=2))
        return 0
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs; median of {args.runs} runs per command; "
          f"CPU time of the process (user + system) and elapsed time; bytecode cache "
          f"{'off (PYTHONDONTWRITEBYTECODE=1)' if args.no_bytecode_cache else 'on'}")
    width = max(len(r["command"]) for r in rows)
    print(f"{'command'.ljust(width)}  {'cpu':>7}  {'elapsed':>7}  target")
    for r in rows:
        target = "" if r["target"] is None else f"{r['target'] * 1000:.0f} ms {'ok' if r['meets_target'] else 'MISSED'}"
        print(f"{r['command'].ljust(width)}  {r['cpu_s'] * 1000:5.0f} ms  {r['wall_s'] * 1000:5.0f} ms  {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
