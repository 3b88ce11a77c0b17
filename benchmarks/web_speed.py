"""How fast the web viewer answers, and how big its pages are.

Builds an archive from the bundled sample games (``data/sample/``) plus one generated 400-ply Dai
Kagamigi game, starts the viewer on a local port (the WSGI server that ``daikifu serve`` uses, in a
thread of this process), and fetches over HTTP:

* the game page of the 400-ply game (``/games/<id>``, and ``?ply=200``): time to the last byte
  and bytes (the page embeds every ply's data for stepping in the browser);
* its JSON (``/api/games/<id>``);
* position search pages (``/positions?game=ID&ply=N``) for random plies of random sample games,
  and the search from the start position of the most played variant, p50 and p99;
* the game list, the statistics page and a variant page;
* the legal moves of the long game's position at ply 200 (``/api/moves``, the analysis board's
  one request per position), for all pieces and for one square.

Each figure is the median of --repeats requests (after one warm-up request that fills the caches
of the rules and of the statistics).  Targets (the viewer issue): the 400-ply game page under 300
ms and under 1 MB; position search pages under 200 ms; the moves of a 15x15 middle-game position
under 20 ms p50 (the analysis board issue).

    python benchmarks/web_speed.py
    python benchmarks/web_speed.py --repeats 20 --searches 100 --json

``--load`` runs the load test instead: 50 concurrent clients (``--clients``) for 30 seconds in all
(``--seconds``, shared between the four paths) on ``/``, the long game's page, ``/api/positions``
and ``/api/explore``, against the viewer under waitress (``pip install waitress``; Werkzeug's
threaded server otherwise) in a process of its own on the loopback interface; it reports
requests per second, p50/p99 latency and errors per path.

    python benchmarks/web_speed.py --load
    python benchmarks/web_speed.py --load --clients 20 --seconds 10 --json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import tempfile
import threading
import time
import urllib.parse
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the record builders are test support

from daikifu.archive.importer import import_paths  # noqa: E402
from record_builders import random_record  # noqa: E402
from daikifu.archive.store import Archive  # noqa: E402
from daikifu.formats.lsn import write_game  # noqa: E402
from daikifu.replay.squares import square_name  # noqa: E402


def long_game(plies: int, variant: str = "dai-kagamigi"):
    """A random legal game of exactly ``plies`` plies (seeds are tried until one lasts that long)."""
    for seed in range(1000):
        game = random_record(variant, f"web-bench:{seed}", plies=(plies, plies), capture_bias=0.3)
        if len(game.mainline_moves()) == plies:
            game.headers["Event"] = f"{plies}-ply benchmark game"
            return game
    raise RuntimeError(f"no random {variant} game lasted {plies} plies")


def build(db: Path, plies: int) -> int:
    """The sample archive plus the long game; returns the long game's id."""
    lsn = db.with_suffix(".long.lsn")
    lsn.write_text(write_game(long_game(plies)) + "\n", encoding="utf-8")
    with Archive(db) as a:
        import_paths(a, [str(ROOT / "data" / "sample"), str(lsn)])
        return a.conn.execute("SELECT id FROM games WHERE ply_count = ? ORDER BY id DESC", (plies,)).fetchone()[0]


def middle_position(db: Path, game_id: int, ply: int) -> tuple[str, str]:
    """The position string of a stored game after ``ply`` plies, and the square of the piece to
    move with the most legal moves there."""
    with Archive(db, readonly=True) as a:
        game = a.load_game(game_id)
    board = game.start_board()
    for move in game.mainline_moves()[:ply]:
        board.push(move)
    counts: dict = {}
    for move in board.legal_moves():
        if move.from_square is not None:
            counts[move.from_square] = counts.get(move.from_square, 0) + 1
    return board.position(), square_name(max(counts, key=counts.get))


def serve(db: Path):
    """The viewer on a free local port; returns (base URL, server)."""
    import logging

    from werkzeug.serving import make_server
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no line per request

    from daikifu.web import create_app
    server = make_server("127.0.0.1", 0, create_app(db), threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return f"http://127.0.0.1:{server.server_port}", server


def fetch(url: str) -> tuple[float, int, int]:
    """(seconds to the last byte, bytes, status)."""
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(url) as r:
            body = r.read()
            status = r.status
    except urllib.error.HTTPError as exc:
        body, status = exc.read(), exc.code
    return time.perf_counter() - started, len(body), status


def timed(url: str, repeats: int) -> dict:
    first = fetch(url)[0]  # warm-up: compiled rules, caches
    runs = [fetch(url) for _ in range(repeats)]
    bad = {s for _, _, s in runs if s != 200}
    if bad:
        raise RuntimeError(f"{url}: HTTP {sorted(bad)}")
    times = sorted(t for t, _, _ in runs)
    return {"url": url, "ms_p50": round(statistics.median(times) * 1000, 1),
            "ms_max": round(times[-1] * 1000, 1), "ms_first": round(first * 1000, 1), "bytes": runs[0][1]}


def pct(values: list, q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


# --- the load test: many clients at once, under the production server -------------------------


def serve_production(db: Path, threads: int):
    """The viewer under waitress (the server docs/web.md recommends) in a process of its own on a
    free loopback port, or under Werkzeug's threaded server when waitress is not installed.
    Returns (base URL, process, server name)."""
    import socket
    import subprocess
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    try:
        import waitress  # noqa: F401  (an optional benchmark dependency: pip install waitress)
        name = f"waitress ({threads} threads)"
        code = (f"import logging, waitress; from daikifu.web import create_app; "
                f"logging.getLogger('waitress').setLevel(logging.ERROR); "
                f"waitress.serve(create_app({str(db)!r}), host='127.0.0.1', port={port}, threads={threads}, "
                f"_quiet=True)")
    except ImportError:
        name = "werkzeug (threaded; pip install waitress for the production server)"
        code = (f"import logging; logging.getLogger('werkzeug').setLevel(logging.ERROR); "
                f"from werkzeug.serving import run_simple; from daikifu.web import create_app; "
                f"run_simple('127.0.0.1', {port}, create_app({str(db)!r}), threaded=True)")
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(base + "/api/variants", timeout=2).read()
            return base, proc, name
        except OSError:
            time.sleep(0.2)
    proc.terminate()
    raise RuntimeError("the server did not start")


def load(base: str, paths: list[str], clients: int, seconds: float) -> dict:
    """``clients`` threads, each with one keep-alive connection, request ``paths`` in turn for
    ``seconds``: requests per second, p50/p99 latency and errors per path (loopback only; every
    request has a 30 s timeout, so the run is bounded)."""
    import http.client
    host, port = urllib.parse.urlparse(base).netloc.split(":")
    results: dict = {path: [] for path in paths}
    errors: dict = {path: 0 for path in paths}
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client(n: int):
        conn = http.client.HTTPConnection(host, int(port), timeout=30)
        i = n
        while time.monotonic() < stop:
            path = paths[i % len(paths)]
            i += 1
            t = time.perf_counter()
            try:
                conn.request("GET", path)
                response = conn.getresponse()
                response.read()
                ok = response.status == 200
            except (OSError, http.client.HTTPException):
                ok = False
                conn.close()
                conn = http.client.HTTPConnection(host, int(port), timeout=30)
            elapsed = time.perf_counter() - t
            with lock:
                if ok:
                    results[path].append(elapsed)
                else:
                    errors[path] += 1
        conn.close()

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - started
    out = {}
    for path in paths:
        times = results[path]
        out[path] = {"requests": len(times), "per_second": round(len(times) / wall, 1),
                     "ms_p50": round(pct(times, 0.5) * 1000, 1) if times else None,
                     "ms_p99": round(pct(times, 0.99) * 1000, 1) if times else None,
                     "errors": errors[path]}
    return out


def load_main(args) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "web.db"
        long_id = build(db, args.plies)
        with Archive(db, readonly=True) as a:
            gid, n = a.conn.execute("SELECT id, ply_count FROM games WHERE variant = 'shogi' AND status = 'valid' "
                                    "ORDER BY ply_count DESC").fetchone()
        paths = {"/": "/", "/games/<id>": f"/games/{long_id}",
                 "/api/positions": f"/api/positions?game={gid}&ply={n // 2}",
                 "/api/explore": "/api/explore?variant=shogi"}
        base, proc, server = serve_production(db, args.threads)
        try:
            for path in paths.values():  # warm-up: rules compiled, caches filled
                urllib.request.urlopen(base + path, timeout=60).read()
            per_path = {}
            for name, path in paths.items():  # one path at a time: its own figures
                per_path[name] = load(base, [path], args.clients, args.seconds / len(paths))[path]
        finally:
            proc.terminate()
            proc.wait(10)
    report = {"machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                          "load_average": [round(x, 2) for x in os.getloadavg()]},
              "server": server, "clients": args.clients, "seconds": args.seconds, "paths": per_path}
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    m = report["machine"]
    print(f"({m['cpus']} CPUs, Python {m['python']}, load average {m['load_average']}); {server}; "
          f"{args.clients} clients, {args.seconds:g} s in all")
    for name, r in per_path.items():
        print(f"  {name:16} {r['per_second']:8.1f} req/s  p50 {r['ms_p50']} ms  p99 {r['ms_p99']} ms  "
              f"errors {r['errors']}")
    return 0


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--load", action="store_true",
                   help="the load test instead: --clients at once for --seconds on /, a game page, "
                        "/api/positions and /api/explore, under waitress")
    p.add_argument("--clients", type=int, default=50, help="concurrent clients of the load test (default 50)")
    p.add_argument("--seconds", type=float, default=30, help="length of the load test (default 30)")
    p.add_argument("--threads", type=int, default=8, help="the server's threads in the load test (default 8)")
    p.add_argument("--plies", type=int, default=400, help="length of the long game (default 400)")
    p.add_argument("--repeats", type=int, default=11, help="requests per page (median reported)")
    p.add_argument("--searches", type=int, default=60, help="random position searches")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    if args.load:
        return load_main(args)

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "web.db"
        t = time.perf_counter()
        long_id = build(db, args.plies)
        build_s = time.perf_counter() - t
        base, server = serve(db)
        try:
            pages = {
                "game page": timed(f"{base}/games/{long_id}", args.repeats),
                "game page at ply 200": timed(f"{base}/games/{long_id}?ply=200", args.repeats),
                "game JSON": timed(f"{base}/api/games/{long_id}", args.repeats),
                "game list": timed(f"{base}/", args.repeats),
                "statistics": timed(f"{base}/stats", args.repeats),
                "variant page": timed(f"{base}/variants/dai-kagamigi", args.repeats),
            }
            middle, square = middle_position(db, long_id, args.plies // 2)
            query = urllib.parse.urlencode({"variant": "dai-kagamigi", "position": middle})
            pages["moves of a position"] = timed(f"{base}/api/moves?{query}", args.repeats)
            pages["moves of one piece"] = timed(f"{base}/api/moves?{query}&square={square}", args.repeats)
            with Archive(db, readonly=True) as a:
                games = a.conn.execute("SELECT id, ply_count, variant FROM games WHERE status != 'invalid' "
                                       "AND id != ?", (long_id,)).fetchall()
                top = a.conn.execute("SELECT variant, count(*) AS n FROM games GROUP BY variant "
                                     "ORDER BY n DESC").fetchone()[0]
                start_game = a.conn.execute("SELECT id FROM games WHERE variant = ? AND start IS NULL",
                                            (top,)).fetchone()[0]
            pages["search from the start"] = timed(f"{base}/positions?game={start_game}&ply=0", args.repeats)
            rng = random.Random(args.seed)
            search_times, sizes = [], []
            for _ in range(args.searches):
                gid, n, _ = rng.choice(games)
                url = f"{base}/positions?game={gid}&ply={rng.randint(0, n)}"
                fetch(url) if not search_times else None  # the first one warms up the caches
                s, size, status = fetch(url)
                if status != 200:
                    raise RuntimeError(f"{url}: HTTP {status}")
                search_times.append(s)
                sizes.append(size)
        finally:
            server.shutdown()
    report = {
        "machine": {"cpus": os.cpu_count(), "python": platform.python_version(),
                    "load_average": [round(x, 2) for x in os.getloadavg()]},
        "archive": {"games": len(games) + 1, "long_game_plies": args.plies, "build_seconds": round(build_s, 2)},
        "pages": pages,
        "position_search": {"queries": len(search_times),
                            "ms_p50": round(pct(search_times, 0.5) * 1000, 1),
                            "ms_p99": round(pct(search_times, 0.99) * 1000, 1),
                            "ms_max": round(max(search_times) * 1000, 1),
                            "bytes_p50": int(statistics.median(sizes))},
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    m = report["machine"]
    print(f"({m['cpus']} CPUs, Python {m['python']}, load average {m['load_average']})")
    print(f"archive: sample games + one {args.plies}-ply Dai Kagamigi game, {report['archive']['games']} games, "
          f"built in {report['archive']['build_seconds']} s")
    for name, r in pages.items():
        print(f"  {name:24} {r['ms_p50']:8.1f} ms p50 (max {r['ms_max']} ms, first {r['ms_first']} ms) "
              f"{r['bytes']:>9,} bytes  {r['url'][len(base):]}")
    s = report["position_search"]
    print(f"  {'position search pages':24} {s['ms_p50']:8.1f} ms p50, p99 {s['ms_p99']} ms, max {s['ms_max']} ms "
          f"({s['queries']} random game plies; {s['bytes_p50']:,} bytes p50)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
