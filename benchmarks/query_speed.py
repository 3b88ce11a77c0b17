"""How fast the archive's queries are: exact position search, the opening explorer, and size.

Builds an archive of N generated games (seeded random legal Dai Kagamigi games, captures
preferred: ``tests/record_builders.py``; the LSN file is kept in --cache-dir for the next run), or reuses
one with --db, then prints:

* import time (``import_paths``, --jobs) and database size: bytes and bytes per ply, after a WAL
  checkpoint, with every index;
* exact position search latency, p50 and p99 over --queries random positions taken from the
  archive (a random game, a random ply of it): the SQL lookup (``queries.candidates``: the
  ``positions`` primary key plus the join to ``games`` and ``players``) and the confirmation
  (``queries.confirm_candidates``: replaying each candidate game to its ply) measured separately,
  and the whole ``search_position``;
* the explorer from the start position (every game is there at ply 0: read from the
  ``first_moves`` summary, confirmed without replay), and after the most played first move (its rows are at ply 1: confirmed by replay, all of them
  or a sample; also timed with every game replayed);
* material search throughput (plies replayed per second).

    python benchmarks/query_speed.py                          # 2,000 games (about 400,000 plies)
    python benchmarks/query_speed.py --games 10000 --json
    python benchmarks/query_speed.py --sizes 2000 10000 20000 # one archive per size
    python benchmarks/query_speed.py --db games.db            # an existing archive (migrated if older)
    python benchmarks/query_speed.py --games 10000 --pad 100000

--pad N adds copies of the archive's games until it holds N games, each copy with its position
hashes (except ply 0's) XORed with a random salt and a new digest: what an archive of N distinct
games of the same lengths stores, without generating and reading N games (the approach of
``benchmarks/import_speed.py --scale``).  The SQL lookup, the explorer from the start position
(all N games start there) and the size are then measured at N games; the copies' later positions
are not real positions, so confirmation is measured on the generated games only (it does not
depend on the archive's size: one primary-key lookup per ply replayed).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import platform
import random
import statistics
import sys
import tempfile
import time
from array import array
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # the record builders are test support

from daikifu.archive.importer import import_paths  # noqa: E402
from daikifu.archive.queries import (Replayer, candidates, confirm_candidates, explore, parse_material,  # noqa: E402
                             search_material, search_position, target, tune_for_queries)
from record_builders import random_record  # noqa: E402
from daikifu.archive.store import Archive, Record  # noqa: E402
from daikifu.formats.lsn import write_game  # noqa: E402


def _one(args):
    variant, seed, n, lo, hi, bias = args
    game = random_record(variant, f"{seed}:{n}", plies=(lo, hi), capture_bias=bias)
    return write_game(game) + "\n", len(game.mainline_moves())


def generate(path: Path, variant: str, games: int, seed: int, plies, bias: float, jobs: int) -> dict:
    """Write ``games`` random games to ``path``.  Game ``n`` depends only on the settings and ``n``,
    so the games of a smaller cached file of the same settings are copied, not generated again."""
    tmp = path.with_suffix(".part")
    total = 0
    start = time.perf_counter()
    first = 0
    prefix = f"{variant}-"
    settings = path.name[len(prefix):].split("-", 1)[1]  # "<min>-<max>-s<seed>-b<bias>.lsn"
    smaller = []
    for p in path.parent.glob(f"{variant}-*-{settings}"):
        count = p.name[len(prefix):].split("-", 1)[0]
        if count.isdigit() and int(count) < games:
            smaller.append((int(count), p))
    with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
        if smaller:
            first, src = max(smaller)
            with open(src, encoding="utf-8", newline="") as old:
                for chunk in iter(lambda: old.read(1 << 20), ""):
                    fh.write(chunk)
            print(f"  copied games 0-{first - 1} from {src.name}", file=sys.stderr)
        tasks = [(variant, seed, n, plies[0], plies[1], bias) for n in range(first, games)]
        ctx = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
        with ctx.Pool(jobs) as pool:
            for i, (text, n) in enumerate(pool.imap(_one, tasks, chunksize=16)):
                fh.write(text)
                total += n
                if (first + i + 1) % 5000 == 0:
                    print(f"  generated {first + i + 1:,} games", file=sys.stderr)
    tmp.replace(path)
    return {"plies": total, "seconds": time.perf_counter() - start, "copied_games": first}


def _fresh(path: Path) -> None:
    for suffix in ("", "-wal", "-shm"):
        p = Path(str(path) + suffix)
        if p.exists():
            p.unlink()


def build(lsn: Path, db: Path, jobs: int) -> dict:
    _fresh(db)
    archive = Archive(db)
    start = time.perf_counter()
    summary = import_paths(archive, [str(lsn)], jobs=jobs)
    seconds = time.perf_counter() - start
    archive.close()
    return {"games": summary.games, "plies": summary.plies, "seconds": round(seconds, 2),
            "plies_per_s": round(summary.plies / seconds), "jobs": jobs}


def pad(db: Path, target_games: int, seed: int = 1) -> dict:
    """Store salted copies of the archive's valid games until it holds ``target_games`` games."""
    archive = Archive(db)
    archive.tune_for_import()
    conn = archive.conn
    ids = [r[0] for r in conn.execute("SELECT id FROM games WHERE status = 'valid' ORDER BY id")]
    rp = Replayer(archive)
    records = []
    for gid in ids:
        row = dict(zip(("id", "variant", "ruleset", "start", "status"),
                       conn.execute("SELECT id, variant, ruleset, start, status FROM games WHERE id = ?",
                                    (gid,)).fetchone()))
        board, moves = rp.game_moves(row)
        hashes, ucis = array("q"), []
        for m in moves:  # the board is before the move here; it is played after
            hashes.append(board.zobrist)
            ucis.append(m.uci())
        hashes.append(board.zobrist)
        g = archive.game(gid)
        records.append(Record(
            variant=g["variant"], ruleset=g["ruleset"], start=g["start"],
            headers={k: g[k] for k in ("event", "site", "date", "round", "sente", "gote", "termination")
                     if g.get(k) is not None},
            result=g["result"], ply_count=len(ucis), status="valid", error=None, warnings=None, tags=None,
            source=conn.execute("SELECT source FROM games WHERE id = ?", (gid,)).fetchone()[0],
            source_format=g["source_format"], source_line=None, number=None, digest=g["digest"],
            hashes=hashes, moves=" ".join(ucis)))
    stored = archive.conn.execute("SELECT count(*) FROM games").fetchone()[0]
    rng = random.Random(seed)
    start = last = time.perf_counter()
    added = 0
    with archive.transaction():
        while stored < target_games:
            salt = rng.getrandbits(64) - (1 << 63)
            for rec in records:
                if stored >= target_games:
                    break
                copy = Record(**{f: getattr(rec, f) for f in Record.__slots__})
                copy.hashes = array("q", [rec.hashes[0]] + [h ^ salt for h in rec.hashes[1:]])
                copy.digest = f"{rec.digest[:16]}{salt & 0xFFFFFFFFFFFFFFFF:016x}"
                archive.add_record(copy)
                stored += 1
                added += 1
                if time.perf_counter() - last > 10:
                    archive.commit()
                    last = time.perf_counter()
                    print(f"  padded to {stored:,} games", file=sys.stderr)
    archive.close()
    return {"games": stored, "added": added, "seconds": round(time.perf_counter() - start, 1)}


def _pct(values: list, q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def _ms(seconds: float) -> float:
    return round(seconds * 1000, 3)


def measure(db: Path, queries: int, seed: int, material: str | None, real_ids: int | None = None) -> dict:
    """Query timings on an archive (``real_ids``: random positions come from games 1..real_ids,
    the generated ones, when the archive was padded)."""
    archive = Archive(db, create=False)
    conn = archive.conn
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    tune_for_queries(archive)  # as the commands do
    size = os.path.getsize(db)
    games, plies = conn.execute("SELECT count(*), coalesce(sum(ply_count), 0) FROM games "
                                "WHERE status != 'invalid'").fetchone()
    positions = plies + games
    variant = conn.execute("SELECT variant FROM games GROUP BY variant ORDER BY count(*) DESC LIMIT 1").fetchone()[0]
    rows = conn.execute("SELECT id, ply_count FROM games WHERE status = 'valid' AND variant = ?"
                        + (" AND id <= ?" if real_ids else "") + " ORDER BY id",
                        (variant, real_ids) if real_ids else (variant,)).fetchall()
    rng = random.Random(seed)
    rp = Replayer(archive)
    sql_t, confirm_t, total_t, hits_n, cands_n, confirm_plies = [], [], [], [], [], []
    picks = [rng.choice(rows) for _ in range(queries)]
    targets = [target(archive, game_id=gid, ply=rng.randint(0, n), replayer=rp) for gid, n in picks]
    for t in targets:  # warm the page cache once, as a long-running process would have it
        candidates(archive, t)
    for t in targets:
        a = time.perf_counter()
        cands = candidates(archive, t)
        b = time.perf_counter()
        hits = list(confirm_candidates(rp, t, cands))
        c = time.perf_counter()
        sql_t.append(b - a)
        confirm_t.append(c - b)
        hits_n.append(len(hits))
        cands_n.append(len(cands))
        confirm_plies.append(sum(max(h.plies) for h in hits))
        a = time.perf_counter()
        list(search_position(archive, t, replayer=rp))
        total_t.append(time.perf_counter() - a)
    out = {"db": str(db), "variant": variant, "games": games, "plies": plies, "positions": positions,
           "bytes": size, "bytes_per_ply": round(size / plies, 2) if plies else None,
           "bytes_per_position_row": round(size / positions, 2) if positions else None,
           "search": {
               "queries": queries,
               "sql_ms_p50": _ms(_pct(sql_t, 0.5)), "sql_ms_p90": _ms(_pct(sql_t, 0.9)),
               "sql_ms_p99": _ms(_pct(sql_t, 0.99)),
               "confirm_ms_p50": _ms(_pct(confirm_t, 0.5)), "confirm_ms_p90": _ms(_pct(confirm_t, 0.9)),
               "confirm_ms_p99": _ms(_pct(confirm_t, 0.99)),
               "total_ms_p50": _ms(_pct(total_t, 0.5)), "total_ms_p99": _ms(_pct(total_t, 0.99)),
               "candidates_mean": round(statistics.mean(cands_n), 2), "hits_mean": round(statistics.mean(hits_n), 2),
               "confirm_us_per_ply_replayed": round(1e6 * sum(confirm_t) / max(1, sum(confirm_plies)), 1)}}
    # explorer from the start position (cold: the first call; then the median of 5)
    start = rp.board(variant).position()
    t0 = target(archive, start, variant, replayer=rp)
    times = []
    for _ in range(6):
        a = time.perf_counter()
        e = explore(archive, t0, replayer=rp)
        times.append(time.perf_counter() - a)
    out["explorer_start"] = {"ms_first": _ms(times[0]), "ms_median": _ms(statistics.median(times[1:])),
                             "games": e.games, "moves": len(e.moves), "confirmed": e.confirmed,
                             "replayed": e.checked}
    # explorer after the most played first move: its rows are at ply 1, confirmed by replay (all,
    # or a sample when there are more than EXPLORER_SAMPLE games)
    board = rp.board(variant)
    board.push(board.parse_uci(e.moves[0].uci))
    t1 = target(archive, board.position(), variant, replayer=rp)
    times = []
    for _ in range(3):
        a = time.perf_counter()
        e1 = explore(archive, t1, replayer=rp)
        times.append(time.perf_counter() - a)
    out["explorer_ply1"] = {"move": e.moves[0].move, "ms_median": _ms(statistics.median(times)), "games": e1.games,
                            "moves": len(e1.moves), "confirmed": e1.confirmed, "replayed": e1.checked}
    a = time.perf_counter()
    e1 = explore(archive, t1, replayer=rp, sample=None)
    out["explorer_ply1"]["ms_confirm_all"] = _ms(time.perf_counter() - a)
    if material:  # over the first 2,000 games of the variant at most
        spec = parse_material(material, variant)
        counters: dict = {}
        a = time.perf_counter()
        found = sum(1 for _ in search_material(archive, spec, ids=[r[0] for r in rows[:2000]],
                                               replayer=Replayer(archive), counters=counters))
        s = time.perf_counter() - a
        out["material"] = {"spec": material, "games_replayed": counters["games"], "plies_replayed": counters["plies"],
                           "found": found, "seconds": round(s, 2),
                           "plies_per_s": round(counters["plies"] / s) if s else None}
    archive.close()
    return out


def run_size(args, games: int) -> dict:
    cache = Path(args.cache_dir)
    cache.mkdir(parents=True, exist_ok=True)
    lsn = cache / f"{args.variant}-{games}-{args.plies[0]}-{args.plies[1]}-s{args.seed}-b{args.capture_bias}.lsn"
    report: dict = {"size": games}
    if not lsn.exists():
        print(f"generating {games:,} games into {lsn} ...", file=sys.stderr)
        gen = generate(lsn, args.variant, games, args.seed, args.plies, args.capture_bias, args.gen_jobs)
        report["generate"] = {"plies_generated": gen["plies"], "seconds": round(gen["seconds"], 1),
                              "games_copied_from_a_smaller_file": gen["copied_games"]}
        print(f"  {gen['plies']:,} plies generated in {gen['seconds']:.1f} s", file=sys.stderr)
    db = cache / f"query-{games}.db"
    if args.rebuild or not db.exists():
        print(f"importing {lsn.name} (--jobs {args.jobs}) ...", file=sys.stderr)
        report["import"] = build(lsn, db, args.jobs)
        print(f"  {report['import']['plies']:,} plies in {report['import']['seconds']} s", file=sys.stderr)
    else:
        report["import"] = "reused (--rebuild to import again)"
    real = None
    if args.pad and args.pad > games:
        padded = cache / f"query-{games}-pad{args.pad}.db"
        if args.rebuild or not padded.exists():
            _fresh(padded)
            import shutil
            a = Archive(db)
            a.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            a.close()
            shutil.copyfile(db, padded)
            print(f"padding to {args.pad:,} games ...", file=sys.stderr)
            report["pad"] = pad(padded, args.pad)
        db, real = padded, games
    print(f"measuring {db} ...", file=sys.stderr)
    report.update(measure(db, args.queries, args.seed, args.material, real))
    return report


def _print(r: dict) -> None:
    s = r["search"]
    print(f"{r['games']:,} games ({r['plies']:,} plies, {r['variant']}) in {r['db']}")
    if isinstance(r.get("import"), dict):
        i = r["import"]
        print(f"  import:             {i['seconds']} s ({i['plies_per_s']:,} plies/s, --jobs {i['jobs']})")
    if "pad" in r:
        print(f"  padded:             {r['pad']['added']:,} salted copies added in {r['pad']['seconds']} s "
              f"(positions after ply 0 are not real: confirmation measured on the {r['size']:,} generated games)")
    print(f"  database:           {r['bytes']:,} bytes = {r['bytes_per_ply']} bytes/ply "
          f"({r['bytes_per_position_row']} per positions row)")
    print(f"  position search:    SQL p50 {s['sql_ms_p50']} ms, p90 {s['sql_ms_p90']} ms, p99 {s['sql_ms_p99']} ms; "
          f"confirmation p50 {s['confirm_ms_p50']} ms, p90 {s['confirm_ms_p90']} ms, p99 {s['confirm_ms_p99']} ms "
          f"({s['confirm_us_per_ply_replayed']} us per ply replayed); "
          f"whole search p50 {s['total_ms_p50']} ms, p99 {s['total_ms_p99']} ms "
          f"({s['queries']} random positions, {s['candidates_mean']} candidates and {s['hits_mean']} games each)")
    e = r["explorer_start"]
    print(f"  explorer, start:    {e['ms_median']} ms (first call {e['ms_first']} ms): {e['games']:,} games, "
          f"{e['moves']} moves, replayed {e['replayed']}")
    e = r["explorer_ply1"]
    print(f"  explorer, after {e['move']}: {e['ms_median']} ms: {e['games']:,} games, {e['moves']} moves, "
          f"confirmed {e['confirmed']} ({e['replayed']} replayed); {e['ms_confirm_all']} ms replaying every game")
    if "material" in r:
        m = r["material"]
        print(f"  material search:    {m['plies_per_s']:,} plies/s ({m['games_replayed']:,} games, "
              f"{m['plies_replayed']:,} plies in {m['seconds']} s; {m['found']} found; {m['spec']!r})")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=2000, help="games to generate and import (default 2000)")
    ap.add_argument("--sizes", type=int, nargs="+", metavar="N", help="measure at several sizes (overrides --games)")
    ap.add_argument("--db", help="measure this existing archive instead (nothing is generated or imported)")
    ap.add_argument("--pad", type=int, metavar="N", help="pad the archive with salted copies to N games (see above)")
    ap.add_argument("--plies", type=int, nargs=2, default=(100, 300), metavar=("MIN", "MAX"))
    ap.add_argument("--variant", default="dai-kagamigi")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--capture-bias", type=float, default=0.75)
    ap.add_argument("--jobs", type=int, default=2, help="import worker processes (default 2)")
    ap.add_argument("--gen-jobs", type=int, default=max(1, os.cpu_count() or 1), help="generator processes")
    ap.add_argument("--queries", type=int, default=500, help="random positions searched (default 500)")
    ap.add_argument("--material", default="!LD>=2 r=0", help="material spec timed (default '!LD>=2 r=0')")
    ap.add_argument("--cache-dir", default=os.path.join(tempfile.gettempdir(), "daikifu-query-bench"))
    ap.add_argument("--rebuild", action="store_true", help="import again even if the database is cached")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    env = {"python": platform.python_version(), "cpus": os.cpu_count(),
           "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None}
    if args.db:
        reports = [measure(Path(args.db), args.queries, args.seed, args.material)]
    else:
        reports = [run_size(args, n) for n in (args.sizes or [args.games])]
    if args.json:
        print(json.dumps({"environment": env, "runs": reports}, indent=2))
        return 0
    print(f"({env['cpus']} CPUs, Python {env['python']}, load average {env['load_average']})")
    for r in reports:
        _print(r)
    return 0


if __name__ == "__main__":
    sys.exit(main())
