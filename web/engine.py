"""Engine analysis in the viewer: a game's stored analysis (score graph, best lines) and, with
``daikifu serve --engine``, the engine asked about a position of the analysis board.

``GET /api/games/<id>/analysis[?engine=NAME]``: per main-line ply, the stored analysis of the
position by one engine (score from Sente's side, mate, depth, best move and line in the
variant's notation, cut, the source's judgment), and per move the score drop of the side that
moved, marked ``mistake`` or ``blunder`` (thresholds in :mod:`daikifu.archive.analysis` and
docs/engine.md).  The engine is ``engine`` when given, else the one that analysed most of the
game's positions (a local engine's before an imported analysis's on a tie); ``engines`` lists
every engine with an analysis of the game and how many positions each has.

``GET /api/engine?variant=&position=[&ruleset=][&game=&ply=&moves=]``: the stored analysis of the position when the
archive has one (``"source": "archive"``), else, when the server runs with an engine, a search
of ``DAIKIFU_ENGINE_MOVETIME`` milliseconds by one of at most ``DAIKIFU_ENGINE_PROCESSES``
engine processes (``"source": "engine"``); 503 when they are all busy, 404 without an engine.
"""

from __future__ import annotations

import threading

from flask import Blueprint, abort, current_app, jsonify, request

from daikifu.archive.analysis import BLUNDER, IMPORTED, MISTAKE, engines_of, stored_analysis
from daikifu.replay import SECOND, Board, PositionError
from daikifu.replay.engine import ENGINE_VARIANTS, EngineError, XBoardEngine, find_engine
from daikifu.replay.notation import move_notation

from .analysis import rules_for
from .db import archive
from .params import int_arg

bp = Blueprint("engine", __name__)

ENGINE_MOVETIME = 1000  # ms: the analysis board's answer comes within 3 s with HaChu on a slow machine
ENGINE_PROCESSES = 2
MAX_POSITION = 2000
MAX_LINE_PLIES = 2000


def engine_offered(variant: str) -> bool:
    """Whether the analysis board offers the engine toggle for ``variant`` (a template global:
    the board's macros are imported without the page's context)."""
    return bool(current_app.config.get("DAIKIFU_ENGINE")) and variant in ENGINE_VARIANTS


@bp.record_once
def _template_globals(state) -> None:
    state.app.jinja_env.globals["engine_offered"] = engine_offered


def _slots() -> threading.BoundedSemaphore:
    ext = current_app.extensions
    if "daikifu_engine_slots" not in ext:
        ext["daikifu_engine_slots"] = threading.BoundedSemaphore(
            current_app.config.get("DAIKIFU_ENGINE_PROCESSES", ENGINE_PROCESSES))
    return ext["daikifu_engine_slots"]


def _line_notation(board: Board, pv: list) -> list:
    """The line's moves in the variant's notation (the board is left as it was)."""
    out = []
    played = 0
    try:
        for uci in pv:
            move = board.parse_uci(uci)
            out.append(move_notation(board, move))
            board.push(move)
            played += 1
    except (ValueError, KeyError):
        pass  # a line stored by another rule set: shown as far as it goes
    finally:
        for _ in range(played):
            board.pop()
    return out


def _entry(board: Board, row: dict) -> dict:
    return {"score": row["score"], "mate": row["mate"], "depth": row["reached"], "best": row["best"],
            "line": _line_notation(board, row["pv"]), "cut": row["cut"], "cut_reason": row["cut_reason"],
            "judgment": row["judgment"], "engine": f"{row['engine']} {row['version']}".strip()}


@bp.get("/api/games/<int:game_id>/analysis")
def game_analysis(game_id: int):
    """``{"game", "thresholds", "plies": [{"ply", "move", "score", "depth", "best", "line", "drop",
    "mark"} ...]}``: one entry per main-line position (ply 0 = the start)."""
    a = archive()
    row = a.game(game_id)
    if row is None:
        abort(404, description=f"no game {game_id}")
    game = a.load_game(game_id)
    board = game.start_board()
    boards = [(None, board.zobrist, board.copy(stack=False))]
    for move in game.mainline_moves():
        notation = move_notation(board, move)
        board.push(move)
        boards.append((notation, board.zobrist, board.copy(stack=False)))
    hashes = [h for _, h, _ in boards]
    engines = engines_of(a.conn, hashes)
    engine = request.args.get("engine", "").strip()[:200] or None
    if engine is None and engines:
        engine = max(engines, key=lambda name: (engines[name], name not in IMPORTED))
    found = stored_analysis(a.conn, hashes, engine) if engine in engines else {}
    plies = []
    for ply, (notation, h, b) in enumerate(boards):
        stored = found.get(h)
        entry = {"ply": ply, "move": notation}
        if stored and stored["best"] is None and stored["cut"]:
            # daikifu refused the engine's first move: the engine misread the position (docs/engine.md)
            entry["refused"] = stored["cut_reason"]
        elif stored:
            entry.update(_entry(b, stored))
        plies.append(entry)
    for ply in range(1, len(plies)):
        before, after = plies[ply - 1].get("score"), plies[ply].get("score")
        if before is None or after is None:
            continue
        mover_is_gote = boards[ply - 1][2].turn == SECOND
        drop = (after - before) if mover_is_gote else (before - after)
        plies[ply]["drop"] = drop
        plies[ply]["mark"] = "blunder" if drop >= BLUNDER else "mistake" if drop >= MISTAKE else None
    return jsonify({"game": game_id, "analysed": sum("score" in p for p in plies), "engine": engine,
                    "engines": engines, "thresholds": {"mistake": MISTAKE, "blunder": BLUNDER}, "plies": plies})


def _with_history(board: Board) -> Board | None:
    """The position with the moves that led to it, when ``game``, ``ply`` and ``moves`` (the
    analysis board's moves after that ply of the game's main line) lead to it: HaChu then gets
    the game's start and the moves (its ``setboard`` misreads positions far from a start; see
    docs/engine.md).  None when they do not."""
    game_id, ply = int_arg("game"), int_arg("ply", maximum=MAX_LINE_PLIES)
    texts = request.args.get("moves", "").replace(",", " ").split()
    if game_id is None or ply is None or len(texts) > MAX_LINE_PLIES:
        return None
    game = archive().load_game(game_id, plies=ply)
    if game is None:
        return None
    line = game.start_board()
    try:
        mainline = game.mainline_moves()
        if len(mainline) < ply:
            return None
        for move in mainline[:ply]:
            line.push(move)
        for text in texts:
            line.play(line.parse_uci(text[:80]))
    except (ValueError, KeyError):
        return None
    return line if line.position() == board.position() else None


@bp.get("/api/engine")
def engine_analysis():
    args = request.args
    variant = args.get("variant", "").strip()
    position = args.get("position", "").strip()
    if not variant or not position:
        abort(400, description="give variant=SLUG&position=STR")
    if len(position) > MAX_POSITION or len(variant) > 200 or len(args.get("ruleset", "")) > 1000:
        abort(400, description="a parameter is too long")
    rules = rules_for(variant, args.get("ruleset", "").strip())
    try:
        board = Board(rules, position)
    except (PositionError, ValueError) as exc:
        abort(400, description=f"bad position string for {rules.variant.name}: {exc}")
    board = _with_history(board) or board
    stored = stored_analysis(archive().conn, [board.zobrist]).get(board.zobrist)
    if stored is not None:
        return jsonify({"source": "archive", "position": board.position(), **_entry(board, stored)})
    if not current_app.config.get("DAIKIFU_ENGINE"):
        abort(404, description="no engine: start the viewer with daikifu serve --engine")
    slots = _slots()
    if not slots.acquire(timeout=1.0):
        abort(503, description="every engine process is busy: try again in a moment")
    try:
        movetime = current_app.config.get("DAIKIFU_ENGINE_MOVETIME", ENGINE_MOVETIME) / 1000
        slug = board.variant.slug
        path = current_app.config["DAIKIFU_ENGINE"] if find_engine(None, slug) == find_engine() else None
        with XBoardEngine(path, variant=slug, timeout=5.0) as engine:
            result = engine.analyse(board, movetime=movetime)
            name = engine.name
    except EngineError as exc:
        abort(503 if exc.code != "engine-unsupported" else 400, description=exc.message)
    finally:
        slots.release()
    score = -result.score if board.turn == SECOND else result.score
    return jsonify({"source": "engine", "position": board.position(), "score": score, "depth": result.depth,
                    "best": result.best, "line": _line_notation(board, result.pv), "cut": result.cut,
                    "cut_reason": result.cut_reason, "engine": name})
