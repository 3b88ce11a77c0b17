"""daikifu against its peers, measured in the same run: who reads and checks game records faster.

Six pairs, each timed in interleaved rounds (daikifu, peer, peer, daikifu, ...: the order
alternates so that a change in the machine's load hits both sides alike) by this process's CPU
time (``time.process_time``: the machine may be shared, and other processes' work does not count),
with the median of the rounds reported and the ratio daikifu / peer:

  (1) read + validate, random games: ``formats.lsn.read_games`` over seeded random Dai Kagamigi
      games (15x15, 68 piece types; every move resolved from its notation and checked) against
      python-chess's PGN reader (``chess.pgn.read_game``, which also checks every move) over seeded
      random chess games.  Random games mostly stop at a ply limit: no checkmate to confirm, few
      attacks on the royal pieces;
  (1b) read + validate, games that end as real games end: self-play Dai Kagamigi games
      (``replay.selfplay.generate_games``, what ``daikifu generate dai-kagamigi --games 200 --seed
      11`` writes: checkmate, adjudication, repetition) against engine-like chess games, each move
      chosen by a seeded one-ply greedy search (captures by value, checks, mate in one, a piece
      left where it can be taken counts against the move), ended by checkmate, resignation (a
      material deficit of 10 after move 30), repetition, the fifty-move rule or stalemate;
  (2) KIF: ``formats.kif.read_kif`` against python-shogi's KIF reader (``shogi.KIF.Parser``, which
      does not check the moves) on the real shogi games in tests/data/real/kif that both read to
      the same moves and whose moves python-shogi can check (a puzzle without kings is left out);
  (2b) the same files against a fairer peer that does what daikifu does: python-shogi's KIF reader,
      then every move checked (``board.is_legal``) and pushed on a ``shogi.Board``;
  (3) shogi legal moves: at every ply of seeded random shogi games, every legal move, then push
      the recorded move: ``Board.legal_moves`` + ``Board.push`` against python-shogi's
      ``list(board.legal_moves)`` + ``board.push``; and perft 3 from the start.
  (3b) the same against cshogi (C++), the compiled class: ``list(board.legal_moves)`` + ``push``.

The daikifu measured is the one the Python running this script imports: run it with the compiled
build's Python (``.venv-compiled/bin/python benchmarks/peer_speed.py``, made by
``scripts/test-compiled``) to measure that build; the output says which build ran.

With ``--instructions`` the pairs (1), (1b) and (2b) are also counted in machine instructions
(valgrind's callgrind, which must be installed: ``apt install valgrind``): each side reads its
games once and twice in a new process with a fixed hash seed, and the difference is one warm read.
Instruction counts do not depend on what else the machine is doing, so their ratio holds still
where the timed ratio moves by a fifth on a shared machine (it says nothing of caches and branch
prediction, which the timed rounds do).

The generated games are the same for the same arguments and source.  Each is made once per run;
the self-play and engine-like games, which take minutes to play, are also kept in the cache
directory of the compiled rule sets (``benchmarks/`` there), named by a hash of the arguments and
of the source that plays them, the newest of each kind only (``--no-cache``: play them again).

    python benchmarks/peer_speed.py
    python benchmarks/peer_speed.py --rounds 5 --games 100 --shogi-games 10 --json
    python benchmarks/peer_speed.py --only selfplay --rounds 9 --instructions
    python benchmarks/peer_speed.py --only kif --rounds 9
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import io
import json
import os
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
from daikifu.formats.commands import selfplay_lsn  # noqa: E402
from daikifu.formats.kif import read_kif  # noqa: E402
from daikifu.formats.lsn import read_games, write_game  # noqa: E402
from daikifu.replay import Board, compile_rules, load_variant  # noqa: E402
from daikifu.replay.perft import perft  # noqa: E402
from daikifu.replay.rulecache import cache_directory  # noqa: E402
from daikifu.replay.selfplay import generate_games  # noqa: E402
from daikifu.replay.squares import square_file, square_rank  # noqa: E402

KIF_DIR = ROOT / "tests" / "data" / "real" / "kif"
SELFPLAY_VARIANT = "dai-kagamigi"
clock = time.process_time


# --- the data ------------------------------------------------------------------------------------


class Workloads:
    """The generated games of a run, each made once (``get``); with a directory, the slow ones are
    also kept there between runs, in files named by a hash of the arguments and of the source
    that makes them."""

    def __init__(self, directory: Path | None):
        self.directory = directory
        self.made: dict = {}

    def get(self, name: str, make, *args, keep: bool = False) -> tuple[str, int]:
        """``make(*args)``: (text, plies)."""
        key = (name, *args)
        if key in self.made:
            return self.made[key]
        path = self._path(key) if keep and self.directory is not None else None
        found = None
        if path is not None:
            try:
                data = json.loads(path.read_text(encoding="utf-8"))
                found = data["text"], data["plies"]
            except (OSError, ValueError, KeyError):
                found = None
        if found is None:
            found = make(*args)
            if path is not None:
                try:
                    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
                    tmp = path.with_suffix(".part")
                    tmp.write_text(json.dumps({"text": found[0], "plies": found[1]}), encoding="utf-8")
                    os.replace(tmp, path)
                    for older in path.parent.glob(f"{name}-*.json"):  # made by an older source
                        if older != path:
                            older.unlink()
                except OSError:  # an unwritable cache only costs the next run time
                    pass
        self.made[key] = found
        return found

    def _path(self, key: tuple) -> Path:
        h = hashlib.sha256(repr(key).encode())
        h.update(chess.__version__.encode())
        for folder in ("replay", "formats"):
            for source in sorted((ROOT / folder).glob("*.py")):
                h.update(source.name.encode() + source.read_bytes())
        h.update(Path(__file__).read_bytes())
        return self.directory / f"{key[0]}-{h.hexdigest()[:24]}.json"


def lsn_games(games: int, seed: int) -> tuple[str, int]:
    texts, plies = [], 0
    for n in range(games):
        game = random_record("dai-kagamigi", f"peer:{seed}:{n}", plies=(100, 300))
        texts.append(write_game(game))
        plies += len(game.mainline_moves())
    return "\n\n".join(texts) + "\n", plies


def selfplay_games(games: int, seed: int) -> tuple[str, int]:
    """Self-play Dai Kagamigi games, as ``daikifu generate`` writes them."""
    played = generate_games(SELFPLAY_VARIANT, games, seed)
    return "".join(selfplay_lsn(g) + "\n" for g in played), sum(g.plies for g in played)


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


CHESS_VALUE = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 0}
RESIGN_DEFICIT = 10  # material (pawn = 1) behind at which the side to move resigns ...
RESIGN_AFTER = 60  # ... from this ply on
CHESS_MAX_PLIES = 300  # then adjudicated on material (a lead of 3 wins)


def engine_pgn_games(games: int, seed: int) -> tuple[str, int]:
    """Chess games whose every move a seeded one-ply greedy search chooses (:func:`_greedy_move`),
    ending as games between players end (see the module's docstring)."""
    texts, plies = [], 0
    for n in range(games):
        rng = random.Random(f"chess-engine:{seed}:{n}")
        board = chess.Board()
        while True:
            if board.is_checkmate():
                result = "0-1" if board.turn == chess.WHITE else "1-0"
                break
            if (board.is_stalemate() or board.is_insufficient_material() or board.halfmove_clock >= 100
                    or board.is_repetition(3)):
                result = "1/2-1/2"
                break
            lead = _material(board, chess.WHITE) - _material(board, chess.BLACK)
            if board.ply() >= RESIGN_AFTER and abs(lead) >= RESIGN_DEFICIT:
                result = "1-0" if lead > 0 else "0-1"
                break
            if board.ply() >= CHESS_MAX_PLIES:
                result = "1-0" if lead >= 3 else "0-1" if lead <= -3 else "1/2-1/2"
                break
            board.push(_greedy_move(board, rng))
        game = chess.pgn.Game.from_board(board)
        game.headers["Result"] = result
        plies += board.ply()
        texts.append(str(game))
    return "\n\n".join(texts) + "\n", plies


def _material(board: chess.Board, colour: bool) -> int:
    return sum(CHESS_VALUE[p.piece_type] for p in board.piece_map().values() if p.color == colour)


def _greedy_move(board: chess.Board, rng: random.Random) -> chess.Move:
    """The legal move of the best one-ply score: the piece taken, a promotion's gain, half a pawn
    for a check and a thousand for mate, less what the moved piece loses where the opponent
    attacks its destination (all of it when undefended, else what it is worth above the cheapest
    attacker), plus up to 0.4 of seeded noise."""
    best, best_score = None, 0.0
    us = board.turn
    for move in board.legal_moves:
        moved = board.piece_type_at(move.from_square)
        taken = chess.PAWN if board.is_en_passant(move) else board.piece_type_at(move.to_square)
        score = float(CHESS_VALUE[taken]) if taken else 0.0
        if move.promotion:
            score += CHESS_VALUE[move.promotion] - 1
            moved = move.promotion
        if board.gives_check(move):
            score += 0.5
            board.push(move)
            if board.is_checkmate():
                score += 1000
            board.pop()
        attackers = board.attackers(not us, move.to_square)
        if attackers:
            defenders = board.attackers(us, move.to_square)
            defenders.discard(move.from_square)
            if defenders:
                score -= max(0, CHESS_VALUE[moved] - min(CHESS_VALUE[board.piece_type_at(s)] for s in attackers))
            else:
                score -= CHESS_VALUE[moved]
        score += rng.random() * 0.4
        if best is None or score > best_score:
            best, best_score = move, score
    return best


def _kif_text(data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data.decode("cp932")


def kif_files() -> tuple[list[Path], int]:
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
            chosen.append(path)
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


def cshogi_legal_moves(games) -> None:
    import cshogi

    for moves in games:
        board = cshogi.Board()
        for m in moves:
            list(board.legal_moves)
            board.push(m)


# what a process counted by callgrind reads: side -> (what it reads, how)
READERS = {"lsn": read_lsn, "pgn": read_pgn, "kif": read_our_kif, "kif-checked": read_and_check_their_kif}


def timed(fn, arg) -> float:
    start = clock()
    fn(arg)
    return clock() - start


def compare(name: str, ours: tuple, theirs: tuple, plies: int, rounds: int, peer: str, what: str,
            peer_plies: int | None = None) -> dict:
    """Interleaved rounds of both sides (each a function and its argument); medians, plies per
    second and the ratio (``peer_plies``: the peer's when it reads other games)."""
    mine, peers = [], []
    for r in range(rounds):
        pair = [(mine, ours), (peers, theirs)]
        for times, (fn, arg) in pair if r % 2 == 0 else reversed(pair):
            times.append(timed(fn, arg))
    peer_plies = plies if peer_plies is None else peer_plies
    a, b = plies / statistics.median(mine), peer_plies / statistics.median(peers)
    return {"benchmark": name, "what": what, "peer": peer, "plies": plies, "peer_plies": peer_plies,
            "daikifu_plies_per_s": round(a), "peer_plies_per_s": round(b), "ratio": round(a / b, 2),
            "daikifu_seconds": [round(t, 4) for t in mine], "peer_seconds": [round(t, 4) for t in peers]}


def count_instructions(ours: tuple[str, str, int], theirs: tuple[str, str, int]) -> dict:
    """Instructions per ply of one pair, counted by callgrind in new processes (see the module's
    docstring); each side ``(reader, text of its input, plies)``, the reader a key of READERS
    (KIF: the input is the files' paths, one a line)."""
    import re
    import shutil
    import subprocess
    import tempfile

    if shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind (apt install valgrind)")
    env = dict(os.environ, PYTHONHASHSEED="0")
    per_ply = {}
    with tempfile.TemporaryDirectory() as tmp:
        for side, (reader, text, plies) in (("daikifu", ours), ("peer", theirs)):
            path = Path(tmp) / f"{side}.txt"
            path.write_text(text, encoding="utf-8")
            counts = []
            for reads in (1, 2):
                run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp}/callgrind.out",
                                      sys.executable, __file__, "--count-reads", reader, str(path), str(reads)],
                                     capture_output=True, text=True, env=env, check=True)
                counts.append(int(re.search(r"Collected : (\d+)", run.stderr).group(1)))
            per_ply[side] = (counts[1] - counts[0]) / plies
    return {"daikifu_instructions_per_ply": round(per_ply["daikifu"]),
            "peer_instructions_per_ply": round(per_ply["peer"]),
            "ratio": round(per_ply["peer"] / per_ply["daikifu"], 2)}


def _count_reads(reader: str, path: str, reads: int) -> None:
    """The child process of --instructions: read the input ``reads`` times."""
    text = Path(path).read_text(encoding="utf-8")
    work = [Path(p).read_bytes() for p in text.splitlines()] if reader.startswith("kif") else text
    for _ in range(reads):
        READERS[reader](work)


def main(argv=None) -> int:
    if argv is None and sys.argv[1:2] == ["--count-reads"]:
        _count_reads(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    parser.add_argument("--games", type=int, default=60, help="random games per side for (1) (default 60)")
    parser.add_argument("--selfplay-games", type=int, default=200,
                        help="self-play Dai Kagamigi games for (1b) (default 200, with --selfplay-seed 11)")
    parser.add_argument("--selfplay-seed", type=int, default=11)
    parser.add_argument("--engine-games", type=int, default=200,
                        help="engine-like chess games for (1b) (default 200)")
    parser.add_argument("--shogi-games", type=int, default=5,
                        help="random shogi games for (3) (default 5: python-shogi needs about 10 ms a ply)")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds per side; the median is reported")
    parser.add_argument("--seed", type=int, default=1, help="seed of the random and engine-like games")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.add_argument("--instructions", action="store_true",
                        help="also count (1), (1b) and (2b) in machine instructions per ply with valgrind "
                             "(slow: minutes)")
    parser.add_argument("--no-cache", action="store_true",
                        help="play the self-play and engine-like games again instead of reading them from the cache")
    parser.add_argument("--only", action="append", choices=("lsn", "selfplay", "kif", "shogi"),
                        help="run only these pairs: lsn (1), selfplay (1b), kif (2, 2b), shogi (3 and perft); "
                             "repeatable")
    args = parser.parse_args(argv)
    only = set(args.only or ("lsn", "selfplay", "kif", "shogi"))
    directory = cache_directory()
    workloads = Workloads(None if args.no_cache or directory is None else directory / "benchmarks")

    note = print if not args.json else (lambda *a, **k: None)
    results = []
    if "lsn" in only:
        note("(1) generating random games ...", file=sys.stderr, flush=True)
        lsn, lsn_plies = workloads.get("lsn-random", lsn_games, args.games, args.seed)
        pgn, pgn_plies = workloads.get("pgn-random", pgn_games, args.games, args.seed)
        read_lsn(lsn)  # rule sets compiled (or loaded) before the clock runs, as in a long-lived process
        note("(1) LSN read + validate vs python-chess PGN, random games ...", file=sys.stderr, flush=True)
        # different games on each side: compare plies per second
        r = compare("read + validate, random games", (read_lsn, lsn), (read_pgn, pgn), lsn_plies, args.rounds,
                    "python-chess PGN reader",
                    f"LSN, {args.games} random Dai Kagamigi games ({lsn_plies:,} plies) vs PGN, {args.games} "
                    f"random chess games ({pgn_plies:,} plies)", pgn_plies)
        if args.instructions:
            note("(1) counting instructions (valgrind) ...", file=sys.stderr, flush=True)
            r["instructions"] = count_instructions(("lsn", lsn, lsn_plies), ("pgn", pgn, pgn_plies))
        results.append(r)
    if "selfplay" in only:
        note("(1b) playing self-play and engine-like games (kept in the cache) ...", file=sys.stderr, flush=True)
        lsn, lsn_plies = workloads.get("lsn-selfplay", selfplay_games, args.selfplay_games, args.selfplay_seed,
                                       keep=True)
        pgn, pgn_plies = workloads.get("pgn-engine", engine_pgn_games, args.engine_games, args.seed, keep=True)
        read_lsn(lsn)
        note("(1b) LSN read + validate vs python-chess PGN, games that end as real games end ...",
             file=sys.stderr, flush=True)
        r = compare("read + validate, self-play / engine-like games", (read_lsn, lsn), (read_pgn, pgn), lsn_plies,
                    args.rounds, "python-chess PGN reader",
                    f"LSN, {args.selfplay_games} self-play Dai Kagamigi games (seed {args.selfplay_seed}, "
                    f"{lsn_plies:,} plies) vs PGN, {args.engine_games} engine-like chess games ({pgn_plies:,} plies)",
                    pgn_plies)
        if args.instructions:
            note("(1b) counting instructions (valgrind) ...", file=sys.stderr, flush=True)
            r["instructions"] = count_instructions(("lsn", lsn, lsn_plies), ("pgn", pgn, pgn_plies))
        results.append(r)
    if "kif" in only:
        paths, kif_plies = kif_files()
        kifs = [p.read_bytes() for p in paths]
        read_kif(kifs[0])
        note("(2) KIF vs python-shogi ...", file=sys.stderr, flush=True)
        results.append(compare("KIF read", (read_our_kif, kifs), (read_their_kif, kifs), kif_plies, args.rounds,
                               "python-shogi KIF reader", f"{len(kifs)} real shogi games (KIF, {kif_plies:,} plies); "
                               "the peer does not check the moves"))
        r = compare("KIF read + check", (read_our_kif, kifs), (read_and_check_their_kif, kifs),
                    kif_plies, args.rounds, "python-shogi KIF reader + is_legal + push",
                    f"the same {len(kifs)} games; the peer checks and plays every move, as daikifu does")
        if args.instructions:
            note("(2b) counting instructions (valgrind) ...", file=sys.stderr, flush=True)
            listing = "".join(f"{p}\n" for p in paths)
            r["instructions"] = count_instructions(("kif", listing, kif_plies), ("kif-checked", listing, kif_plies))
        results.append(r)
    perft3 = count = None
    if "shogi" in only:
        recorded, shogi_plies = shogi_games(args.shogi_games, args.seed)
        usi_games = [[shogi.Move.from_usi(_usi(m)) for m in g] for g in recorded]
        note("(3) shogi legal moves + push vs python-shogi ...", file=sys.stderr, flush=True)
        results.append(compare("shogi legal moves + push", (our_legal_moves, recorded),
                               (their_legal_moves, usi_games), shogi_plies,
                               args.rounds, "python-shogi", f"{args.shogi_games} random shogi games"))
        import cshogi  # a test dependency, as python-shogi: the compiled (C++) peer

        board = cshogi.Board()
        cshogi_games = []
        for g in recorded:
            board.reset()
            moves = []
            for m in g:
                moves.append(board.move_from_usi(_usi(m)))
                board.push(moves[-1])
            cshogi_games.append(moves)
        note("(3b) shogi legal moves + push vs cshogi ...", file=sys.stderr, flush=True)
        results.append(compare("shogi legal moves + push, compiled peer", (our_legal_moves, recorded),
                               (cshogi_legal_moves, cshogi_games), shogi_plies,
                               args.rounds, "cshogi (C++)", f"the same {args.shogi_games} random shogi games"))
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
    header = ("benchmark", "daikifu", "peer", "peer figure", "ratio", "instructions per ply", "ratio in instructions")
    rows = []
    for r in results:
        n = r.get("instructions")
        counted = (f"{n['daikifu_instructions_per_ply']:,} / {n['peer_instructions_per_ply']:,}", f"{n['ratio']:.2f}x"
                   ) if n else ("", "")
        rows.append((r["benchmark"], f"{r['daikifu_plies_per_s']:,} plies/s", r["peer"],
                     f"{r['peer_plies_per_s']:,} plies/s", f"{r['ratio']:.2f}x", *counted))
    widths = [max(len(row[i]) for row in rows + [header]) for i in range(len(header))]
    for row in [header] + rows:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
    for r in results:
        print(f"  {r['benchmark']}: {r['what']}")
    if any("instructions" in r for r in results):
        print("  instructions per ply: daikifu / peer, one warm read counted by callgrind (PYTHONHASHSEED=0); "
              "the ratio is peer / daikifu")
    if count is not None:
        print(f"perft 3 of shogi from the start: {count:,} nodes in {perft3:.3f} s")
    return 0


def _machine() -> str:
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
