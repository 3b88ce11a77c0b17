"""How fast the rules core replays games, per variant.

For every playable variant (or those named with --variant) this generates seeded random games
(moves picked from the legal moves, captures preferred) and keeps their move lists, then times two
ways of replaying them, each the median of --repeats runs in this one process (one core), by the
process's CPU time (--clock cpu, the default: other work on the machine does not count) or by
elapsed time (--clock wall):

  (a) legal moves per ply: a fresh Board per game; at every ply ``legal_moves()``, then ``push``
      the recorded move.  This is what perft, move lists and "did you mean" cost.
  (b) check and play: a fresh Board per game; ``play(move)`` at every ply, which checks the given
      move without generating the others.  This is what importing a game record costs.

    python benchmarks/replay_speed.py
    python benchmarks/replay_speed.py --variant shogi --games 5 --plies 100 --json
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from daikifu.replay.randomplay import random_game  # noqa: E402
from daikifu.replay import Board, compile_rules, list_variants, load_variant  # noqa: E402


def make_games(rules, games: int, plies: int, seed: int, capture_bias: float) -> list[list]:
    out = []
    for n in range(games):
        board = Board(rules)
        game = random_game(board, plies, random.Random(f"{rules.variant.slug}:{seed}:{n}"), capture_bias)
        out.append(game.moves)
    return out


CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}


def time_generate(rules, games, clock) -> float:
    start = clock()
    for moves in games:
        board = Board(rules)
        for move in moves:
            board.legal_moves()
            board.push(move)
    return clock() - start


def time_play(rules, games, clock) -> float:
    start = clock()
    for moves in games:
        board = Board(rules)
        for move in moves:
            board.play(move)
    return clock() - start


def measure(variant, games: int, plies: int, repeats: int, seed: int, capture_bias: float,
            clock: str = "cpu") -> dict:
    rules = compile_rules(variant)
    recorded = make_games(rules, games, plies, seed, capture_bias)
    total = sum(len(g) for g in recorded)
    tick = CLOCKS[clock]
    gen = [time_generate(rules, recorded, tick) for _ in range(repeats)]
    play = [time_play(rules, recorded, tick) for _ in range(repeats)]
    a = total / statistics.median(gen)
    b = total / statistics.median(play)
    return {
        "variant": variant.slug, "board": f"{variant.files}x{variant.ranks}", "games": games, "plies": total,
        "legal_moves_plies_per_s": round(a), "play_plies_per_s": round(b),
        "seconds_a": [round(t, 4) for t in gen], "seconds_b": [round(t, 4) for t in play],
        "games_moves": [[m.uci() for m in g] for g in recorded],
    }


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--variant", action="append", help="only this variant (repeatable)")
    parser.add_argument("--games", type=int, default=20, help="random games per variant (default 20)")
    parser.add_argument("--plies", type=int, default=300, help="plies per game at most (default 300)")
    parser.add_argument("--repeats", type=int, default=5, help="timed runs; the median is reported (default 5)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random games (default 1)")
    parser.add_argument("--capture-bias", type=float, default=0.75,
                        help="chance of picking a capture when there is one (default 0.75)")
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="cpu",
                        help="cpu: this process's CPU time (steady on a busy machine; the default); "
                             "wall: elapsed time")
    parser.add_argument("--save-games", metavar="PATH", help="write the generated move lists to this JSON file")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)

    if args.variant:
        variants = [load_variant(name) for name in args.variant]
    else:
        variants = [v for v in list_variants() if v.playable]
    results = []
    for v in variants:
        if not args.json:
            print(f"measuring {v.slug} ...", file=sys.stderr, flush=True)
        results.append(measure(v, args.games, args.plies, args.repeats, args.seed, args.capture_bias, args.clock))

    if args.save_games:
        Path(args.save_games).write_text(json.dumps({r["variant"]: r["games_moves"] for r in results}))
    machine = {"python": platform.python_version(), "implementation": platform.python_implementation(),
               "machine": platform.machine(), "processor": _cpu_name(), "cpus": os.cpu_count()}
    if args.json:
        for r in results:
            r.pop("games_moves")
        print(json.dumps({"machine": machine, "clock": args.clock, "games": args.games, "max_plies": args.plies,
                          "repeats": args.repeats, "seed": args.seed, "results": results}, indent=2))
        return 0
    print(f"Python {machine['python']} on {machine['processor']} ({machine['cpus']} CPUs), one process; "
          f"{args.clock} time, median of {args.repeats} runs; {args.games} games of up to {args.plies} plies per variant")
    header = ("variant", "board", "plies", "(a) legal moves + push", "(b) play (check + push)")
    rows = [(r["variant"], r["board"], str(r["plies"]), f"{r['legal_moves_plies_per_s']:,} plies/s",
             f"{r['play_plies_per_s']:,} plies/s") for r in results]
    widths = [max(len(row[i]) for row in rows + [header]) for i in range(len(header))]
    for row in [header] + rows:
        print("  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))
    return 0


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


if __name__ == "__main__":
    sys.exit(main())
