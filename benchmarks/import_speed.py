"""How fast the archive imports game records, and how big the database gets.

Generates seeded random legal Dai Kagamigi games (captures preferred, ``tests/record_builders.py``) as
one LSN file (kept in --cache-dir for the next run), then imports it into a fresh database with
``--jobs 1`` and ``--jobs 2``, each --repeats times, and prints for each: plies per second (the
median run, wall clock from the start of the import to the last commit; the CPU time of the
process and of its workers is shown too, because other work on the machine slows the wall clock
down), the import time, and the database's size per ply with every index (after a WAL
checkpoint).  The import is the whole pipeline: splitting the file, reading and validating every
move, computing positions and digests, and storing games, positions, annotations and the
full-text rows.

    python benchmarks/import_speed.py                      # 2000 games, about 400,000 plies
    python benchmarks/import_speed.py --games 500 --repeats 1 --json
    python benchmarks/import_speed.py --profile            # where the time goes (jobs=1)
    python benchmarks/import_speed.py --scale 100000       # database size at 100,000 games
    python benchmarks/import_speed.py --end-to-end data/sample/ --jobs 1 2   # the command, start-up included

--scale N projects the size: after the timed imports it stores the records of the generated games
again and again, each copy with its position hashes and digest changed (XOR with a random salt),
until the database holds N games, then reports bytes per ply and the table sizes (dbstat).  This
stores exactly what an import of N distinct games of the same lengths stores, without reading N
games.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the record builders are test support

from daikifu.archive.importer import _record, _RecordBuilder, import_paths  # noqa: E402
from record_builders import random_record  # noqa: E402
from daikifu.archive.store import Archive, Record  # noqa: E402
from daikifu.formats.lsn import read_games, write_game  # noqa: E402


def _one(args):
    variant, seed, n, lo, hi, bias = args
    game = random_record(variant, f"{seed}:{n}", plies=(lo, hi), capture_bias=bias)
    return write_game(game) + "\n", len(game.mainline_moves())


def generate(path: Path, variant: str, games: int, seed: int, plies: tuple[int, int], bias: float,
             jobs: int) -> int:
    tmp = path.with_suffix(".part")
    total = 0
    tasks = [(variant, seed, n, plies[0], plies[1], bias) for n in range(games)]
    with multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn"
                                     ).Pool(jobs) as pool, open(tmp, "w", encoding="utf-8", newline="\n") as fh:
        for text, n in pool.imap(_one, tasks, chunksize=8):
            fh.write(text)
            total += n
    tmp.replace(path)
    return total


def _fresh(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        p = Path(str(path) + suffix)
        if p.exists():
            p.unlink()


def _cpu() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def timed_import(lsn: Path, db: Path, jobs: int) -> dict:
    _fresh(db)
    archive = Archive(db)
    cpu = _cpu()
    start = time.perf_counter()
    summary = import_paths(archive, [str(lsn)], jobs=jobs)
    seconds = time.perf_counter() - start
    cpu = _cpu() - cpu
    archive.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    archive.close()
    size = db.stat().st_size
    assert summary.invalid == 0 and summary.duplicates == 0, summary.as_dict()
    return {"seconds": seconds, "cpu_seconds": cpu, "plies": summary.plies, "games": summary.games,
            "plies_per_s": summary.plies / seconds, "bytes": size, "bytes_per_ply": size / summary.plies}


def table_sizes(db: Path, plies: int) -> dict:
    import sqlite3
    con = sqlite3.connect(db)
    try:
        rows = con.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
    except sqlite3.OperationalError:
        return {}
    finally:
        con.close()
    return {name: round(size / plies, 2) for name, size in rows if size / plies >= 0.05}


def scale(lsn: Path, db: Path, target: int) -> dict:
    """Store salted copies of the file's games until the database holds ``target`` games."""
    from array import array
    _fresh(db)
    records = [_record(g, "lsn") for g in read_games(lsn.read_text(encoding="utf-8"), visitor=_RecordBuilder)]
    archive = Archive(db)
    archive.tune_for_import()
    rng = random.Random(1)
    stored = plies = 0
    start = time.perf_counter()
    last = start
    with archive.transaction():
        while stored < target:
            salt = rng.getrandbits(64) - (1 << 63)
            for rec in records:
                if stored >= target:
                    break
                first = rec.hashes[0]
                rec2 = Record(**{f: getattr(rec, f) for f in Record.__slots__})
                # the start position stays shared, as in real data; every other position is new
                rec2.hashes = array("q", [first] + [h ^ salt for h in rec.hashes[1:]])
                rec2.digest = f"{rec.digest[:16]}{salt & 0xFFFFFFFFFFFFFFFF:016x}"
                archive.add_record(rec2)
                stored += 1
                plies += rec.ply_count
                if time.perf_counter() - last > 5:
                    archive.commit()
                    last = time.perf_counter()
                    print(f"  scale: {stored} games, {plies / (last - start):,.0f} plies/s stored", file=sys.stderr)
    archive.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    archive.close()
    size = db.stat().st_size
    return {"games": stored, "plies": plies, "bytes": size, "bytes_per_ply": size / plies,
            "store_plies_per_s": plies / (time.perf_counter() - start), "tables": table_sizes(db, plies)}


def profile(lsn: Path, db: Path, top: int) -> str:
    import cProfile
    import io
    import pstats
    _fresh(db)
    archive = Archive(db)
    prof = cProfile.Profile()
    prof.enable()
    import_paths(archive, [str(lsn)], jobs=1)
    prof.disable()
    archive.close()
    stats = pstats.Stats(prof)
    # own time by area
    areas: dict = {}
    for (file, _, func), (_, _, tottime, _, _) in stats.stats.items():
        name = Path(file).name
        if "{method 'execute" in func or "{method 'executemany" in func or "sqlite3" in func:
            area = "sqlite (C)"
        elif name in ("lsn.py", "game.py"):
            area = "formats/lsn.py + game.py (reader, game tree)"
        elif name == "notation.py":
            area = "replay/notation.py (parse_move)"
        elif name in ("board.py", "rules.py", "squares.py", "position.py", "generators.py"):
            area = "replay/* (board: check and push)"
        elif name in ("store.py", "importer.py"):
            area = "archive/store.py + importer.py"
        elif file.startswith("~") or file == "~":
            area = "builtins (re, str, list ...)"
        else:
            area = "other"
        areas[area] = areas.get(area, 0.0) + tottime
    total = sum(areas.values())
    out = io.StringIO()
    out.write("own time by area (cProfile, jobs=1; the profiler inflates Python call overhead):\n")
    for area, t in sorted(areas.items(), key=lambda kv: -kv[1]):
        out.write(f"  {t / total:6.1%}  {area}\n")
    out.write("\n")
    stats.stream = out
    stats.sort_stats("tottime").print_stats(top)
    return out.getvalue()


def end_to_end(paths: list[str], jobs_settings: list[int], repeats: int, as_json: bool) -> int:
    """``daikifu import PATHS --jobs N`` as a new process into a fresh archive, start-up included:
    elapsed time, and the CPU time of the process and its workers.  The rule-set cache is filled
    by a first, untimed run (the cache a user has after the first import; it also writes Python's
    bytecode cache, as ``pip install`` does)."""
    cache = tempfile.mkdtemp(prefix="daikifu-rules-")
    env = dict(os.environ, DAIKIFU_CACHE_DIR=cache)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # modules load from their bytecode, as installed

    def run(jobs: int) -> dict:
        with tempfile.TemporaryDirectory() as tmp:
            start = time.perf_counter()
            proc = subprocess.Popen([sys.executable, "-m", "daikifu", "import", "--db", str(Path(tmp) / "e2e.db"),
                                     "--jobs", str(jobs), "--json", *paths], stdout=subprocess.PIPE, env=env)
            out = proc.stdout.read()
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - start
            if os.waitstatus_to_exitcode(status) != 0:
                raise SystemExit(f"daikifu import failed with exit status {os.waitstatus_to_exitcode(status)}")
        summary = json.loads(out)
        plies = summary.get("plies") or sum(f.get("plies", 0) for f in summary.get("files", []))
        return {"plies": plies, "seconds": wall, "cpu_seconds": usage.ru_utime + usage.ru_stime}

    run(1)
    report = {"paths": paths, "cpus": os.cpu_count(), "runs": {},
              "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None}
    for jobs in jobs_settings:
        runs = sorted((run(jobs) for _ in range(repeats)), key=lambda r: r["seconds"])
        med = runs[len(runs) // 2]
        report["runs"][jobs] = {"plies": med["plies"], "seconds": round(med["seconds"], 2),
                                "plies_per_s": round(med["plies"] / med["seconds"]),
                                "cpu_seconds": round(med["cpu_seconds"], 2),
                                "plies_per_cpu_s": round(med["plies"] / med["cpu_seconds"])}
    if as_json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"daikifu import {' '.join(paths)} into a fresh archive, start-up included, median of {repeats} "
          f"({os.cpu_count()} CPUs, load average {report['load_average']})")
    for jobs, r in report["runs"].items():
        print(f"  --jobs {jobs}: {r['plies_per_s']:>8,} plies/s elapsed ({r['plies']:,} plies in {r['seconds']} s); "
              f"cpu {r['cpu_seconds']} s = {r['plies_per_cpu_s']:,} plies per cpu-second")
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=2000, help="games in the generated file (default 2000)")
    ap.add_argument("--plies", type=int, nargs=2, default=(100, 300), metavar=("MIN", "MAX"),
                    help="length of each game, drawn uniformly (default 100 300)")
    ap.add_argument("--variant", default="dai-kagamigi")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--capture-bias", type=float, default=0.75)
    ap.add_argument("--repeats", type=int, default=3, help="imports per setting; the median is reported")
    ap.add_argument("--jobs", type=int, nargs="+", default=[1, 2], help="settings of --jobs to time (default 1 2)")
    ap.add_argument("--cache-dir", default=os.path.join(tempfile.gettempdir(), "daikifu-bench"),
                    help="where the generated LSN file is kept")
    ap.add_argument("--scale", type=int, metavar="N", help="also project the database size at N games")
    ap.add_argument("--profile", action="store_true", help="profile one jobs=1 import")
    ap.add_argument("--top", type=int, default=25, help="functions listed by --profile")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--end-to-end", nargs="+", metavar="PATH",
                    help="instead: time the command `daikifu import PATH... --jobs N` into a fresh archive, "
                         "start-up included (e.g. data/sample/)")
    args = ap.parse_args(argv)
    if args.end_to_end:
        return end_to_end(args.end_to_end, args.jobs, args.repeats, args.json)

    cache = Path(args.cache_dir)
    cache.mkdir(parents=True, exist_ok=True)
    lsn = cache / (f"{args.variant}-{args.games}-{args.plies[0]}-{args.plies[1]}-s{args.seed}"
                   f"-b{args.capture_bias}.lsn")
    if not lsn.exists():
        t = time.perf_counter()
        print(f"generating {args.games} games into {lsn} ...", file=sys.stderr)
        n = generate(lsn, args.variant, args.games, args.seed, tuple(args.plies), args.capture_bias,
                     max(1, os.cpu_count() or 1))
        print(f"  {n:,} plies in {time.perf_counter() - t:.1f} s", file=sys.stderr)
    db = cache / "bench.db"
    report = {"variant": args.variant, "games": args.games, "file": str(lsn), "file_bytes": lsn.stat().st_size,
              "python": platform.python_version(), "cpus": os.cpu_count(),
              "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None, "runs": {}}
    if args.profile:
        print(profile(lsn, db, args.top))
        return 0
    for jobs in args.jobs:
        runs = []
        for r in range(args.repeats):
            res = timed_import(lsn, db, jobs)
            runs.append(res)
            print(f"  jobs={jobs} run {r + 1}: {res['plies_per_s']:,.0f} plies/s, {res['seconds']:.2f} s, "
                  f"cpu {res['cpu_seconds']:.2f} s", file=sys.stderr)
        med = sorted(runs, key=lambda x: x["plies_per_s"])[len(runs) // 2]
        report["runs"][jobs] = {
            "plies": med["plies"], "plies_per_s": round(med["plies_per_s"]), "seconds": round(med["seconds"], 2),
            "cpu_seconds": round(med["cpu_seconds"], 2),
            "plies_per_cpu_s": round(med["plies"] / med["cpu_seconds"]),
            "all_plies_per_s": [round(x["plies_per_s"]) for x in runs],
            "bytes_per_ply": round(med["bytes_per_ply"], 2), "db_bytes": med["bytes"]}
    if 1 in report["runs"] and 2 in report["runs"]:
        report["speedup_jobs2"] = round(report["runs"][2]["plies_per_s"] / report["runs"][1]["plies_per_s"], 2)
    report["tables_bytes_per_ply"] = table_sizes(db, next(iter(report["runs"].values()))["plies"]) \
        if report["runs"] else {}
    if args.scale:
        report["scale"] = scale(lsn, cache / "scale.db", args.scale)
        for suffix in ("", "-wal", "-shm"):
            p = Path(str(cache / "scale.db") + suffix)
            if p.exists():
                p.unlink()
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{args.variant}: {args.games} games, {lsn.stat().st_size:,} bytes of LSN "
          f"({os.cpu_count()} CPUs, load average {report['load_average']})")
    for jobs, r in report["runs"].items():
        print(f"  --jobs {jobs}: {r['plies_per_s']:>8,} plies/s  ({r['plies']:,} plies in {r['seconds']} s; "
              f"median of {args.repeats}: {r['all_plies_per_s']}; cpu {r['cpu_seconds']} s = "
              f"{r['plies_per_cpu_s']:,} plies per cpu-second)  {r['bytes_per_ply']} bytes/ply")
    if "speedup_jobs2" in report:
        print(f"  --jobs 2 / --jobs 1: {report['speedup_jobs2']}x")
    if report["tables_bytes_per_ply"]:
        print("  bytes per ply by table and index: " + ", ".join(f"{k} {v}" for k, v in report["tables_bytes_per_ply"].items()))
    if args.scale:
        s = report["scale"]
        print(f"  at {s['games']:,} games ({s['plies']:,} plies): {s['bytes_per_ply']:.2f} bytes/ply "
              f"({s['bytes']:,} bytes); stored at {s['store_plies_per_s']:,.0f} plies/s")
        print("    " + ", ".join(f"{k} {v}" for k, v in s["tables"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
