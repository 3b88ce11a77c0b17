"""daikifu against its peers, measured in the same run: who reads and checks game records faster.

Three pairs, each timed in interleaved rounds (daikifu, peer, peer, daikifu, ...: the order
alternates so that a change in the machine's load hits both sides alike) by this process's CPU
time (``time.process_time``: the machine may be shared, and other processes' work does not count),
with the median of the rounds reported and the ratio daikifu / peer:

  (1) read + validate: ``formats.lsn.read_games`` over seeded random Dai Kagamigi games (15x15, 68
      piece types; every move resolved from its notation and checked) against python-chess's PGN
      reader (``chess.pgn.read_game``, which also checks every move) over seeded random chess games;
  (2) KIF: ``formats.kif.read_kif`` against python-shogi's KIF reader (``shogi.KIF.Parser``, which
      does not check the moves) on the real shogi games in tests/data/real/kif that both read to
      the same moves and whose moves python-shogi can check (a puzzle without kings is left out);
  (2b) the same files against a fairer peer that does what daikifu does: python-shogi's KIF reader,
      then every move checked (``board.is_legal``) and pushed on a ``shogi.Board``;
  (3) shogi legal moves: at every ply of seeded random shogi games, every legal move, then push
      the recorded move: ``Board.legal_moves`` + ``Board.push`` against python-shogi's
      ``list(board.legal_moves)`` + ``board.push``; and perft 3 from the start.

The daikifu measured is the one the Python running this script imports: run it with the compiled
build's Python (``.venv-compiled/bin/python benchmarks/peer_speed.py``, made by
``scripts/test-compiled``) to measure that build; the output says which build ran.

With ``--instructions`` the pair (1) is also counted in machine instructions (valgrind's callgrind,
which must be installed: ``apt install valgrind``): each side reads its games once and twice in
a new process with a fixed hash seed, and the difference is one warm read.  Instruction counts do
not depend on what else the machine is doing, so their ratio holds still where the timed ratio
moves by a fifth on a shared machine (it says nothing of caches and branch prediction, which the
timed rounds do).

    python benchmarks/peer_speed.py
    python benchmarks/peer_speed.py --rounds 5 --games 100 --shogi-games 10 --json
    python benchmarks/peer_speed.py --only kif --rounds 9
    python benchmarks/peer_speed.py --only lsn --instructions
"""

from __future__ import annotations

import argparse
import importlib.util
import io
import json
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if importlib.util.find_spec("daikifu") is None:  # not installed: the sources (an installed build wins)
    sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the record builders are test support

import chess  # noqa: E402
import chess.pgn  # noqa: E402
import shogi  # noqa: E402
import shogi.KIF  # noqa: E402

import daikifu  # noqa: E402

from daikifu.replay.randomplay import random_moves  # noqa: E402
from record_builders import random_record  # noqa: E402
from daikifu.formats.kif import read_kif  # noqa: E402
from daikifu.formats.lsn import read_games, write_game  # noqa: E402
from daikifu.replay import Board, compile_rules, load_variant  # noqa: E402
from daikifu.replay.perft import perft  # noqa: E402
from daikifu.replay.squares import square_file, square_rank  # noqa: E402

KIF_DIR = ROOT / "tests" / "data" / "real" / "kif"
clock = time.process_time


# --- the data ------------------------------------------------------------------------------------


def lsn_games(games: int, seed: int) -> tuple[str, int]:
    texts, plies = [], 0
    for n in range(games):
        game = random_record("dai-kagamigi", f"peer:{seed}:{n}", plies=(100, 300))
        texts.append(write_game(game))
        plies += len(game.mainline_moves())
    return "\n\n".join(texts) + "\n", plies


def pgn_games(games: int, seed: int) -> tuple[str, int]:
    rng = random.Random(f"chess:{seed}")
    texts, plies = [], 0
    for _ in range(games):
        board = chess.Board()
        for _ in range(rng.randint(100, 300)):
            moves = list(board.legal_moves)
            if not moves or board.is_game_over(claim_draw=False):
                break
            captures = [m for m in moves if board.is_capture(m)]
            board.push(rng.choice(captures if captures and rng.random() < 0.75 else moves))
        plies += len(board.move_stack)
        texts.append(str(chess.pgn.Game.from_board(board)))
    return "\n\n".join(texts) + "\n", plies


def _kif_text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp932")


def kif_files() -> tuple[list[bytes], int]:
    """The real KIF files both readers read to the same moves (one game each, 40 plies or more) and
    whose moves python-shogi's board accepts as legal."""
    chosen, plies = [], 0
    for path in sorted(KIF_DIR.iterdir()):
        data = path.read_bytes()
        try:
            theirs = shogi.KIF.Parser.parse_str(_kif_text(data))
            ours = read_kif(data, source=path.name)
        except Exception:  # a file one of them does not read: not a fair pair
            continue
        if len(theirs) != 1 or len(ours) != 1 or not ours[0].valid:
            continue
        usi = [_usi(m) for m in ours[0].mainline_moves()]
        if len(usi) >= 40 and usi == theirs[0]["moves"] and _checks(theirs[0]):
            chosen.append(data)
            plies += len(usi)
    return chosen, plies


def _checks(game: dict) -> bool:
    """Whether python-shogi's board accepts every move of a game its KIF reader read."""
    try:
        _check_their_game(game)
    except (ValueError, IndexError, KeyError):
        return False
    return True


def _check_their_game(game: dict) -> None:
    board = shogi.Board(game["sfen"])
    for text in game["moves"]:
        move = shogi.Move.from_usi(text)
        if not board.is_legal(move):
            raise ValueError(f"illegal move {text}")
        board.push(move)


def _usi_square(sq: int) -> str:
    return f"{9 - square_file(sq)}{'abcdefghi'[8 - square_rank(sq)]}"


def _usi(move) -> str:
    if move.drop is not None:
        return f"{move.drop}*{_usi_square(move.to_square)}"
    return _usi_square(move.from_square) + _usi_square(move.to_square) + ("+" if move.promotion else "")


def shogi_games(games: int, seed: int) -> tuple[list[list], int]:
    rules = compile_rules(load_variant("shogi"))
    out = []
    for n in range(games):
        board = Board(rules)
        out.append(random_moves(board, 200, random.Random(f"shogi:{seed}:{n}")))
    return out, sum(len(g) for g in out)


# --- the timed work ------------------------------------------------------------------------------


def read_lsn(text: str) -> None:
    for game in read_games(text):
        assert game.valid, game.errors


def read_pgn(text: str) -> None:
    stream = io.StringIO(text)
    while (game := chess.pgn.read_game(stream)) is not None:
        assert not game.errors, game.errors


def read_our_kif(files: list[bytes]) -> None:
    for data in files:
        read_kif(data)


def read_their_kif(files: list[bytes]) -> None:
    for data in files:
        shogi.KIF.Parser.parse_str(_kif_text(data))


def read_and_check_their_kif(files: list[bytes]) -> None:
    for data in files:
        for game in shogi.KIF.Parser.parse_str(_kif_text(data)):
            _check_their_game(game)


def our_legal_moves(games) -> None:
    rules = compile_rules(load_variant("shogi"))
    for moves in games:
        board = Board(rules)
        for m in moves:
            board.legal_moves()
            board.push(m)


def their_legal_moves(games) -> None:
    for moves in games:
        board = shogi.Board()
        for m in moves:
            list(board.legal_moves)
            board.push(m)


def timed(fn, arg) -> float:
    start = clock()
    fn(arg)
    return clock() - start


def compare(name: str, ours: tuple, theirs: tuple, plies: int, rounds: int, peer: str, what: str) -> dict:
    """Interleaved rounds of both sides (each a function and its argument); medians, plies per
    second and the ratio."""
    mine, peers = [], []
    for r in range(rounds):
        pair = [(mine, ours), (peers, theirs)]
        for times, (fn, arg) in pair if r % 2 == 0 else reversed(pair):
            times.append(timed(fn, arg))
    a, b = plies / statistics.median(mine), plies / statistics.median(peers)
    return {"benchmark": name, "what": what, "peer": peer, "plies": plies,
            "daikifu_plies_per_s": round(a), "peer_plies_per_s": round(b), "ratio": round(a / b, 2),
            "daikifu_seconds": [round(t, 4) for t in mine], "peer_seconds": [round(t, 4) for t in peers]}


def count_instructions(lsn: str, pgn: str, lsn_plies: int, pgn_plies: int) -> dict:
    """Instructions per ply of (1) on each side, counted by callgrind in new processes (see the
    module's docstring)."""
    import os
    import re
    import shutil
    import subprocess
    import tempfile

    if shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind (apt install valgrind)")
    env = dict(os.environ, PYTHONHASHSEED="0")
    per_ply = {}
    with tempfile.TemporaryDirectory() as tmp:
        for side, text, plies in (("daikifu", lsn, lsn_plies), ("peer", pgn, pgn_plies)):
            path = Path(tmp) / f"{side}.txt"
            path.write_text(text, encoding="utf-8")
            counts = []
            for reads in (1, 2):
                run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/callgrind.out",
                                      sys.executable, __file__, "--count-reads", side, str(path), str(reads)],
                                     capture_output=True, text=True, env=env, check=True)
                counts.append(int(re.search(r"Collected : (\d+)", run.stderr).group(1)))
            per_ply[side] = (counts[1] - counts[0]) / plies
    return {"daikifu_instructions_per_ply": round(per_ply["daikifu"]),
            "peer_instructions_per_ply": round(per_ply["peer"]),
            "ratio": round(per_ply["peer"] / per_ply["daikifu"], 2)}


def _count_reads(side: str, path: str, reads: int) -> None:
    """The child process of --instructions: read the file ``reads`` times."""
    text = Path(path).read_text(encoding="utf-8")
    for _ in range(reads):
        (read_lsn if side == "daikifu" else read_pgn)(text)


def main(argv=None) -> int:
    if argv is None and sys.argv[1:2] == ["--count-reads"]:
        _count_reads(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--games", type=int, default=60, help="random games per side for (1) (default 60)")
    parser.add_argument("--shogi-games", type=int, default=5,
                        help="random shogi games for (3) (default 5: python-shogi needs about 10 ms a ply)")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds per side; the median is reported")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--instructions", action="store_true",
                        help="also count (1) in machine instructions per ply with valgrind (slow: minutes)")
    parser.add_argument("--only", action="append", choices=("lsn", "kif", "shogi"),
                        help="run only these pairs: lsn (1), kif (2, 2b), shogi (3 and perft); repeatable")
    args = parser.parse_args(argv)
    only = set(args.only or ("lsn", "kif", "shogi"))

    note = print if not args.json else (lambda *a, **k: None)
    note("generating games ...", file=sys.stderr, flush=True)
    results = []
    if "lsn" in only:
        lsn, lsn_plies = lsn_games(args.games, args.seed)
        pgn, pgn_plies = pgn_games(args.games, args.seed)
        read_lsn(lsn)  # rule sets compiled (or loaded) before the clock runs, as in a long-lived process
        note("(1) LSN read + validate vs python-chess PGN ...", file=sys.stderr, flush=True)
        # different games on each side: compare plies per second
        r = compare("read + validate", (read_lsn, lsn), (read_pgn, pgn), lsn_plies, args.rounds,
                    "python-chess PGN reader",
                    f"LSN, {args.games} random Dai Kagamigi games vs PGN, {args.games} random chess games")
        r["daikifu_plies_per_s"] = round(lsn_plies / statistics.median(r["daikifu_seconds"]))
        r["peer_plies_per_s"] = round(pgn_plies / statistics.median(r["peer_seconds"]))
        r["ratio"] = round(r["daikifu_plies_per_s"] / r["peer_plies_per_s"], 2)
        r["peer_plies"] = pgn_plies
        if args.instructions:
            note("(1) counting instructions (valgrind) ...", file=sys.stderr, flush=True)
            r["instructions"] = count_instructions(lsn, pgn, lsn_plies, pgn_plies)
        results.append(r)
    if "kif" in only:
        kifs, kif_plies = kif_files()
        read_kif(kifs[0])
        note("(2) KIF vs python-shogi ...", file=sys.stderr, flush=True)
        results.append(compare("KIF read", (read_our_kif, kifs), (read_their_kif, kifs), kif_plies, args.rounds,
                               "python-shogi KIF reader", f"{len(kifs)} real shogi games (KIF); the peer does not "
                               "check the moves"))
        results.append(compare("KIF read + check", (read_our_kif, kifs), (read_and_check_their_kif, kifs),
                               kif_plies, args.rounds, "python-shogi KIF reader + is_legal + push",
                               f"the same {len(kifs)} games; the peer checks and plays every move, as daikifu does"))
    perft3 = count = None
    if "shogi" in only:
        recorded, shogi_plies = shogi_games(args.shogi_games, args.seed)
        usi_games = [[shogi.Move.from_usi(_usi(m)) for m in g] for g in recorded]
        note("(3) shogi legal moves + push vs python-shogi ...", file=sys.stderr, flush=True)
        results.append(compare("shogi legal moves + push", (our_legal_moves, recorded),
                               (their_legal_moves, usi_games), shogi_plies,
                               args.rounds, "python-shogi", f"{args.shogi_games} random shogi games"))
        start = clock()
        count = perft(Board("shogi"), 3)
        perft3 = clock() - start

    machine = _machine()
    if args.json:
        perft_result = {"nodes": count, "seconds": round(perft3, 3)} if count is not None else None
        print(json.dumps({"machine": machine, "build": daikifu.build(), "clock": "cpu (time.process_time)", "rounds": args.rounds,
                          "results": results, "perft3": perft_result}, indent=2))
        return 0
    print(f"daikifu {daikifu.build()} build; {machine}; one process, CPU time (time.process_time), daikifu and peer rounds interleaved, "
          f"median of {args.rounds} rounds each")
    header = ("benchmark", "daikifu", "peer", "peer figure", "ratio")
    rows = [(r["benchmark"], f"{r['daikifu_plies_per_s']:,} plies/s", r["peer"], f"{r['peer_plies_per_s']:,} plies/s",
             f"{r['ratio']:.2f}x") for r in results]
    widths = [max(len(row[i]) for row in rows + [header]) for i in range(len(header))]
    for row in [header] + rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)))
    for r in results:
        print(f"  {r['benchmark']}: {r['what']}")
        if "instructions" in r:
            n = r["instructions"]
            print(f"  {r['benchmark']}, in instructions per ply (callgrind): daikifu "
                  f"{n['daikifu_instructions_per_ply']:,}, peer {n['peer_instructions_per_ply']:,}: "
                  f"{n['ratio']:.2f}x")
    if count is not None:
        print(f"perft 3 of shogi from the start: {count:,} nodes in {perft3:.3f} s")
    return 0


def _machine() -> str:
    import os
    import platform
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"Python {platform.python_version()} on {cpu} ({os.cpu_count()} CPUs)"


if __name__ == "__main__":
    sys.exit(main())
