"""Engine analysis of archived games, stored in the archive (table ``engine_analysis``).

One row per analysed position and engine setting::

    hash, engine, version, options, depth, movetime  -> the key
    reached, score, best, pv, engine_pv, cut, cut_reason, nodes, created, mate, judgment

``score`` is in centipawns from Sente's point of view (the engine's own score is for the side
to move); ``pv`` is the engine's line as far as daikifu's rules accept it, ``cut`` the number of
the engine's moves dropped from the first one daikifu finds illegal (``cut_reason`` says which and
why).  A row is written whole in one statement: an analysis that stops half-way leaves the
positions done so far and nothing else, and running it again does only the rest.

The table is part of the schema since version 3 (:mod:`daikifu.archive.schema`); an archive
opened read-only at an older version may have none, and readers treat that as "no analysis".

The analysis a record carries (lishogi's ``[%eval]`` comments and NDJSON ``analysis``) is stored
in the same table by the import, under the engine ``lishogi`` (or ``record`` when the record does
not say where it comes from), version ``''`` and depth and time 0
(:meth:`~daikifu.archive.store.Archive.add_record`).  ``daikifu analyse`` stores its own rows
under its engine's name beside them: it neither overwrites nor repeats them, and says how many
positions had them (:attr:`AnalysisRun.imported`).
"""

from __future__ import annotations

import queue
import sqlite3
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone

from daikifu.formats.evals import LISHOGI, RECORD, Evaluation, eval_text
from daikifu.replay import SECOND, Board
from daikifu.replay.engine import Analysis, EngineError, XBoardEngine, find_engine

from .schema import ENGINE_ANALYSIS_TABLE

__all__ = ["TABLE", "AnalysisRun", "analyse_positions", "analyse_games", "stored_analysis", "eval_comment",
           "add_eval_comments", "jobs_of_games", "game_jobs", "Job", "MISTAKE", "BLUNDER", "engine_key", "IMPORTED",
           "engines_of", "row_evaluation"]

TABLE = ENGINE_ANALYSIS_TABLE

# a drop of the score (for the side that moved, in centipawns) at or above which the viewer marks
# a move; HaChu's scale is a Pawn = 100 (docs/engine.md)
MISTAKE = 150
BLUNDER = 400
IMPORTED = (LISHOGI, RECORD)  # the engine names of analysis a record carried (not a local engine's)


def _now() -> str:
    return datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def engine_key(engine: XBoardEngine, ruleset: str = "") -> tuple[str, str, str]:
    """(engine, version, options) as stored for ``engine``'s analyses of games of ``ruleset``."""
    name, _, version = engine.name.rpartition(" ")
    if not name:
        name, version = engine.name, ""
    return name, version, engine.option_text() + ";" + ruleset


@dataclass
class Job:
    hash: int
    board: Board  # the position, with the moves that led to it
    ruleset: str = ""
    where: str = ""  # game and ply, for messages


@dataclass
class AnalysisRun:
    """What one run did: positions analysed and skipped, engine restarts, cut lines, failures."""

    analysed: int = 0
    skipped: int = 0
    restarts: int = 0
    cut_lines: int = 0
    cut_moves: int = 0
    refused: int = 0  # positions whose first engine move daikifu refused: the engine misread the position
    failures: list = field(default_factory=list)
    games: int = 0
    imported: dict = field(default_factory=dict)  # source -> positions that also have its analysis (kept)

    def as_dict(self) -> dict:
        return {"games": self.games, "analysed": self.analysed, "skipped": self.skipped,
                "restarts": self.restarts, "cut_lines": self.cut_lines, "cut_moves": self.cut_moves,
                "refused": self.refused, "imported": self.imported,
                "failures": self.failures}


def ensure_table(conn: sqlite3.Connection) -> None:
    conn.execute(TABLE)


def _stored(conn, key, depth: int, movetime: int, hashes) -> set:
    engine, version, options = key
    hashes = list(hashes)
    found = set()
    for i in range(0, len(hashes), 500):
        chunk = hashes[i:i + 500]
        rows = conn.execute(
            f"SELECT hash FROM engine_analysis WHERE engine = ? AND version = ? AND options = ? AND depth = ? "
            f"AND movetime = ? AND hash IN ({','.join('?' * len(chunk))})",
            (engine, version, options, depth, movetime, *chunk))
        found.update(r[0] for r in rows)
    return found


def _store(conn, key, depth: int, movetime: int, job: Job, a: Analysis) -> None:
    engine, version, options = key
    sign = -1 if job.board.turn == SECOND else 1
    # one statement, autocommitted: a row is there whole or not at all
    conn.execute(
        "INSERT OR REPLACE INTO engine_analysis (hash, engine, version, options, depth, movetime, reached, score, "
        "best, pv, engine_pv, cut, cut_reason, nodes, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (job.hash, engine, version, options, depth, movetime, a.depth, sign * a.score, a.best, " ".join(a.pv),
         " ".join(a.engine_pv), a.cut, a.cut_reason, a.nodes, _now()))


def analyse_positions(conn: sqlite3.Connection, jobs: list, *, depth: int | None = None,
                      movetime: float | None = None, workers: int = 1, engine_path: str | None = None,
                      progress=None, run: AnalysisRun | None = None) -> AnalysisRun:
    """Analyse the positions of ``jobs`` (one per hash) not yet stored at this setting, with
    ``workers`` engine processes, and store each result as it comes.  ``progress(n)`` is called
    with the number of positions done (analysed or skipped) after each."""
    run = run or AnalysisRun()
    ensure_table(conn)
    depth_key = depth or 0
    movetime_ms = int(round((movetime or 0) * 1000))
    local = threading.local()
    engines: list = []
    lock = threading.Lock()

    def engine(slug: str) -> XBoardEngine:
        """This thread's engine for the variant ``slug`` (one process per worker and engine)."""
        mine = getattr(local, "engines", None)
        if mine is None:
            mine = local.engines = {}
        path = find_engine(engine_path, slug)
        e = mine.get(path)
        if e is None:
            e = mine[path] = XBoardEngine(engine_path, variant=slug)
            with lock:
                engines.append(e)
        return e

    try:
        keys = {}
        by_setting: dict = {}
        for job in jobs:
            by_setting.setdefault((job.board.variant.slug, job.ruleset), []).append(job)
        todo = []
        run.imported = _imported(conn, [j.hash for j in jobs])
        for (slug, ruleset), group in by_setting.items():
            # the engine fails early here (none installed) and names the key
            key = keys[slug, ruleset] = engine_key(engine(slug), ruleset)
            done = _stored(conn, key, depth_key, movetime_ms, [j.hash for j in group])
            for j in group:
                if j.hash in done:
                    run.skipped += 1
                else:
                    todo.append(j)
        if progress and run.skipped:
            progress(run.skipped)

        def work(job: Job):
            try:
                return job, engine(job.board.variant.slug).analyse(job.board, depth=depth, movetime=movetime), None
            except EngineError as exc:
                return job, None, exc

        def finish(job, result, exc):
            if exc is not None:
                run.failures.append({"where": job.where, "code": exc.code, "message": exc.message})
            else:
                _store(conn, keys[job.board.variant.slug, job.ruleset], depth_key, movetime_ms, job, result)
                run.analysed += 1
                if result.cut:
                    run.cut_lines += 1
                    run.cut_moves += result.cut
                    if not result.pv:
                        run.refused += 1
            if progress:
                progress(1)

        if workers <= 1 or len(todo) <= 1:
            for job in todo:
                finish(*work(job))
        else:
            # each worker takes a run of consecutive positions: the engine then gets a game's moves
            # once and one more per position (a move costs HaChu tens of milliseconds)
            for e in list(local.engines.values()):
                e.close()  # the workers make their own
            local.engines = {}
            results: queue.Queue = queue.Queue()
            size = -(-len(todo) // workers)

            def worker(part):
                try:
                    for job in part:
                        results.put(work(job))
                finally:
                    results.put(None)

            parts = [todo[i:i + size] for i in range(0, len(todo), size)]
            with ThreadPoolExecutor(max_workers=workers) as pool:
                for part in parts:
                    pool.submit(worker, part)
                left = len(parts)
                while left:
                    outcome = results.get()
                    if outcome is None:
                        left -= 1
                    else:
                        finish(*outcome)
    finally:
        for e in engines:
            run.restarts += e.restarts
            e.close()
    return run


def game_jobs(archive, game_id: int) -> list:
    """One job per position of the game's main line (ply 0 = the start position)."""
    row = archive.game(game_id)
    game = archive.load_game(game_id)
    if game is None or row is None:
        raise ValueError(f"no game {game_id}")
    board = game.start_board()
    jobs = [Job(board.zobrist, board.copy(), row.get("ruleset") or "", f"game {game_id}, ply 0")]
    for ply, move in enumerate(game.mainline_moves(), start=1):
        board.push(move)
        if board.outcome() is not None:
            break  # the game is over: nothing to analyse
        jobs.append(Job(board.zobrist, board.copy(), row.get("ruleset") or "", f"game {game_id}, ply {ply}"))
    return jobs


def jobs_of_games(archive, game_ids) -> list:
    """The positions of the main lines of ``game_ids``, each once (transpositions included)."""
    jobs, seen = [], set()
    for gid in game_ids:
        for job in game_jobs(archive, gid):
            if (job.hash, job.ruleset) not in seen:
                seen.add((job.hash, job.ruleset))
                jobs.append(job)
    return jobs


def analyse_games(archive, game_ids, **kwargs) -> AnalysisRun:
    """Analyse every position of the main lines of ``game_ids`` (a position met twice, once)."""
    game_ids = list(game_ids)
    run = AnalysisRun(games=len(game_ids))
    return analyse_positions(archive.conn, jobs_of_games(archive, game_ids), run=run, **kwargs)


def _imported(conn, hashes) -> dict:
    """source -> how many of ``hashes`` have analysis imported from it (lishogi's ...)."""
    hashes = list(set(hashes))
    found: dict = {}
    for i in range(0, len(hashes), 500):
        chunk = hashes[i:i + 500]
        rows = conn.execute(
            f"SELECT engine, count(DISTINCT hash) FROM engine_analysis WHERE engine IN ({','.join('?' * len(IMPORTED))}) "
            f"AND hash IN ({','.join('?' * len(chunk))}) GROUP BY engine", (*IMPORTED, *chunk))
        for engine, n in rows:
            found[engine] = found.get(engine, 0) + n
    return found


def stored_analysis(conn: sqlite3.Connection, hashes, engine: str | None = None) -> dict:
    """The deepest stored analysis of each of ``hashes`` (any engine setting, or those of the
    engine named ``engine``): hash -> dict of the row's columns, ``pv`` a list (``mate`` and
    ``judgment`` None in an archive whose table predates them)."""
    hashes = list(set(hashes))
    out: dict = {}
    where = " AND engine = ?" if engine is not None else ""
    try:
        for i in range(0, len(hashes), 500):
            chunk = hashes[i:i + 500]
            rows = conn.execute(
                f"SELECT * FROM engine_analysis WHERE hash IN ({','.join('?' * len(chunk))}){where} "
                "ORDER BY reached, created", (*chunk, *([engine] if engine is not None else [])))
            names = [d[0] for d in rows.description]
            for r in rows:
                d = dict(zip(names, r))
                d.setdefault("mate", None)
                d.setdefault("judgment", None)
                d["pv"] = d["pv"].split() if d["pv"] else []
                out[d["hash"]] = d  # the deepest comes last
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return {}
        raise
    return out


def engines_of(conn: sqlite3.Connection, hashes) -> dict:
    """engine -> how many of ``hashes`` it analysed (a game's positions: which analyses it has)."""
    hashes = list(set(hashes))
    found: dict = {}
    try:
        for i in range(0, len(hashes), 500):
            chunk = hashes[i:i + 500]
            for engine, n in conn.execute(
                    f"SELECT engine, count(DISTINCT hash) FROM engine_analysis WHERE hash IN "
                    f"({','.join('?' * len(chunk))}) GROUP BY engine", chunk):
                found[engine] = found.get(engine, 0) + n
    except sqlite3.OperationalError as exc:
        if "no such table" in str(exc):
            return {}
        raise
    return found


def row_evaluation(row: dict) -> Evaluation:
    """A stored row as the :class:`~daikifu.formats.evals.Evaluation` a writer writes (its score
    only, as lishogi's exports write one: no depth)."""
    if row.get("mate") is not None:
        return Evaluation(mate=row["mate"])
    return Evaluation(cp=row["score"])


def eval_comment(row: dict) -> str:
    """A stored row's score as lishogi writes it in a comment: ``[%eval 0.52]`` in Pawns from
    Sente's point of view, ``[%eval mate3]`` for a mate."""
    return eval_text(row_evaluation(row))


def add_eval_comments(conn: sqlite3.Connection, game) -> int:
    """Give every main-line move of ``game`` whose position after it has a stored analysis and
    that carries no evaluation of its own (``node.eval``, as its record gave it) that analysis, which
    the writers write first in the move's comment as ``[%eval ...]``; returns how many."""
    board = game.start_board()
    nodes = []
    for node in game.mainline():
        board.push(node.move)
        nodes.append((node, board.zobrist))
    found = stored_analysis(conn, [h for _, h in nodes])
    n = 0
    for node, h in nodes:
        row = found.get(h)
        if row is None or node.eval is not None:
            continue
        node.eval = row_evaluation(row)
        n += 1
    return n
