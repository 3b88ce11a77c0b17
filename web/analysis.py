"""The analysis board's data: the legal moves of any position (``/api/moves``), a line played on
the board as an LSN record (``/analysis/record.lsn``) and the checks of a position set up by hand
(``/api/position-check``).  Nothing here reads or writes games: the answers come from the rules
core alone (the archive is opened only for its cache of compiled rules).

Every move of ``/api/moves`` carries what the browser needs to show it and step through it
without asking again (:func:`move_json`): its squares (origin, the stops on the way of a
multi-step move, destination), what it captures, its promotion choice, its text, the squares it
changes and the position after it.
"""

from __future__ import annotations

from flask import Blueprint, Response, abort, jsonify, request

from daikifu.archive.queries import QueryError
from daikifu.formats.game import Game
from daikifu.formats.lsn import write_game
from daikifu.formats.styles import StyleError, destinations, move_style, move_text
from daikifu.replay.notation import notations
from daikifu.replay import FIRST, Board, IllegalMoveError, Move, PositionError, parse_square
from daikifu.replay.legality import position_problems
from daikifu.replay.rules import Ruleset
from daikifu.replay.squares import MAX_FILES, MAX_RANKS, square, square_name
from daikifu.replay.usi import move_to_usi

from .db import replayer
from .params import flag_arg
from .svg import hands, highlight_squares, removed_squares

bp = Blueprint("analysis", __name__)

MAX_POSITION = 4000  # characters, as for position search
MAX_LINE = 1000  # moves of a line written as a record
#: square number -> name, for every square of the largest board (written thousands of times a request)
NAME = {square(f, r): square_name(square(f, r)) for f in range(MAX_FILES) for r in range(MAX_RANKS)}


# --- one move as the viewer shows it ---------------------------------------------------------------


def token(piece) -> str | None:
    """A piece as position strings write it ("P" first player, "p" second), None for no piece."""
    if piece is None:
        return None
    return piece.id if piece.colour == FIRST else piece.id.lower()


def hand_counts(board: Board) -> list[list]:
    """``[[[piece ID, count], ...] for the first player, ... for the second]``."""
    return [[[pid, n] for pid, _, n in side] for side in hands(board)]


def root_node(board: Board) -> dict:
    """The node of the position the board stands in, as the root of the viewer's move tree."""
    node = {"p": None, "d": 0, "m": None, "c": [], "pos": board.position()}
    if board.rules.drops:
        node["hd"] = hand_counts(board)
    return node


def viewer_data(board: Board, element_id: str, ruleset: str = "") -> dict:
    """The ``game-data`` of a page showing one position (position search, a variant's setup) on
    the board ``element_id``: a move tree of the position alone, which analysis adds to."""
    rules = board.rules
    return {"game": None, "variant": rules.variant.slug, "ruleset": ruleset, "plies": 0, "current": 0,
            "flip": False, "drops": rules.drops, "labels": {t.id: t.kanji or t.id for t in rules.types},
            "error": None, "nodes": [root_node(board)], "board": element_id}


def push_node(board: Board, move: Move, text: str, position: str | None = None) -> dict:
    """Play ``move`` (not checked) and describe it as a node of the viewer's move tree:
    ``m`` its text, ``c`` the squares it changes as ``[square, piece before, piece after]``,
    ``h`` the squares to mark (``f`` origin, ``t`` destination, ``p`` path, ``x`` captured), ``hd``
    the hands after it (variants with drops) and ``pos`` the position string after it
    (``position`` when the caller knows it already)."""
    marks = highlight_squares(move, removed_squares(board, move))
    touched = [move.to_square] if move.from_square is None else \
        list(dict.fromkeys((move.from_square, *move.kills, move.to_square)))
    before = [token(board.piece_at(sq)) for sq in touched]
    board.push(move)
    changes = [[NAME[sq], old, token(board.piece_at(sq))] for sq, old in zip(touched, before)]
    node = {"m": text, "c": [c for c in changes if c[1] != c[2]],
            "h": {key[0] if key != "captured" else "x": [NAME[sq] for sq in value]
                  for key, value in marks.items() if value}}
    if board.rules.drops:
        node["hd"] = hand_counts(board)
    node["pos"] = position or board.position()
    return node


def move_json(board: Board, move: Move, text: str, after: str | None = None) -> dict:
    """One legal move for ``/api/moves`` (``after``: the position string after it, if known)."""
    origin = move.from_square
    piece = move.drop if origin is None else board.piece_at(origin).id
    node = push_node(board, move, text, after)
    board.pop()
    out = {
        "lsn": text,
        "uci": move.uci(),
        "usi": move_to_usi(board, move),  # the board: a pass is written through a square, as lishogi does
        "piece": piece,
        "from": None if origin is None else NAME[origin],
        "steps": [NAME[sq] for sq in move.kills],
        "to": NAME[move.to_square],
        "captures": node["h"].get("x", []),  # every square it takes, in path order
        "promotion": move.promotion,
        "drop": move.drop,
        "igui": origin == move.to_square and bool(move.kills),
        "pass": move.is_pass,
        "position": node["pos"],
        "changes": node["c"],
        "highlight": node["h"],
    }
    if "hd" in node:
        out["hands"] = node["hd"]
    return out


def legal_moves_json(board: Board, square: int | None = None, style: str = "algebraic") -> list[dict]:
    """Every legal move of the position (of the piece on ``square`` only, when given), in the
    order :meth:`~replay.Board.legal_moves` gives them, as :func:`move_json` writes them, with
    ``text``: the move in ``style`` (:mod:`formats.styles`; the LSN text for algebraic)."""
    moves = board.legal_moves()
    written = notations(board, moves)  # disambiguated among all the legal moves
    if square is not None:
        moves = [m for m in moves if m.from_square == square]
    afters = board.positions_after(moves)
    out = []
    reach = destinations(board) if style != "algebraic" else None  # (once: every move is written from here)
    for m, after in zip(moves, afters):
        entry = move_json(board, m, written[m], after)
        entry["text"] = written[m] if style == "algebraic" else move_text(board, m, style, reach=reach)
        out.append(entry)
    return out


# --- parameters -------------------------------------------------------------------------------------


def _rules_and_position(required: bool = False):
    """The compiled rules of the ``variant`` and ``ruleset`` parameters, and the ``position``
    parameter (None when absent, unless ``required``); a bad one is a 400 saying why."""
    args = request.args
    variant = args.get("variant", "").strip()
    position = args.get("position", "").strip() or None
    ruleset = args.get("ruleset", "").strip()
    if not variant or (required and position is None):
        abort(400, description="give variant=SLUG&position=STR" if required else
              "variant is required: a variant's slug, name or alias")
    if len(position or "") > MAX_POSITION or len(variant) > 200 or len(ruleset) > 1000:
        abort(400, description=f"a parameter is too long (position: at most {MAX_POSITION} characters)")
    return rules_for(variant, ruleset), position


def rules_for(variant: str, ruleset: str = "") -> Ruleset:
    """The compiled rules of a variant (slug, name or alias) and rule set, from the cache of the
    application's replayer; an unknown or unplayable one is a 400 saying why."""
    rp = replayer()
    try:
        return rp.rules(rp.variant(variant).slug, ruleset)
    except QueryError as exc:
        abort(400, description=str(exc))


def _board() -> Board:
    """The position of the ``variant``, ``ruleset`` and ``position`` parameters (the variant's
    start position without ``position``); a bad one is a 400 saying why."""
    rules, position = _rules_and_position()
    try:
        return Board(rules, position)
    except (PositionError, ValueError) as exc:
        abort(400, description=f"bad position string for {rules.variant.name}: {exc}")


def _square(board: Board) -> int | None:
    raw = request.args.get("square", "").strip()
    if not raw:
        return None
    try:
        return parse_square(raw[:8], board.rules.files, board.rules.ranks)
    except ValueError:
        abort(400, description=f"square must be a square of the {board.rules.files}x{board.rules.ranks} "
                               f"board such as a1, not {raw[:40]!r}")


def _outcome(board: Board) -> dict | None:
    outcome = board.outcome()
    if outcome is None:
        return None
    return {"termination": outcome.termination, "result": outcome.result()}


# --- endpoints -------------------------------------------------------------------------------------


@bp.get("/api/moves")
def api_moves():
    """``{"variant", "ruleset", "position", "turn", "check", "outcome", "square", "moves": [...]}``:
    the legal moves of a position (:func:`legal_moves_json`)."""
    board = _board()
    square = _square(board)
    try:
        style = move_style(board.variant, request.args.get("style", "").strip().lower() or "algebraic")
    except StyleError as exc:
        abort(400, description=str(exc))
    moves = legal_moves_json(board, square, style)
    outcome = None if moves or square is not None else _outcome(board)
    return jsonify({"variant": board.variant.slug, "ruleset": request.args.get("ruleset", "").strip(),
                    "position": board.position(), "turn": "sente" if board.turn == FIRST else "gote",
                    "check": board.is_check(), "outcome": outcome,
                    "square": None if square is None else square_name(square), "moves": moves})


def _line(board: Board) -> Game:
    """The ``moves`` parameter (compact moves separated by spaces or commas, as ``uci`` in
    ``/api/moves``) played from the board's position, as a game."""
    texts = request.args.get("moves", "").replace(",", " ").split()
    if len(texts) > MAX_LINE:
        abort(400, description=f"moves: at most {MAX_LINE} moves, not {len(texts)}")
    start = board.position()
    game = Game(board.variant, board.rules.options, start=None if start == board.rules.start else start)
    node = game
    for ply, text in enumerate(texts, start=1):
        try:
            move = board.parse_uci(text[:80])
            board.play(move)
        except (IllegalMoveError, ValueError, KeyError) as exc:
            abort(400, description=f"moves: move {ply} {text[:40]!r} cannot be played: {exc}")
        node = node.add_variation(move)
    return game


@bp.get("/analysis/record.lsn")
def line_record():
    """A line played on the analysis board as an LSN record; ``download=1`` sends it as a file."""
    board = _board()
    download = flag_arg("download")
    game = _line(board)
    game.headers["Event"] = "Analysis"
    text = write_game(game)
    headers = {"Content-Disposition": 'attachment; filename="daikifu-analysis.lsn"'} if download else {}
    return Response(text, mimetype="text/plain", headers=headers)


@bp.get("/api/position-check")
def api_position_check():
    """``{"position", "valid", "problems": [{"kind", "squares", "message", "relaxed"}]}``: why a
    position set up by hand could not occur (:func:`replay.legality.position_problems`).  A
    problem of a rule the variant file relaxes, or every rule with ``allow_impossible=1`` (a
    composition), is ``relaxed``: shown, and the position is still valid."""
    rules, position = _rules_and_position(required=True)
    problems = position_problems(rules, position, True if flag_arg("allow_impossible") else None)
    return jsonify({"variant": rules.variant.slug, "position": position,
                    "valid": not any(not p.relaxed for p in problems),
                    "problems": [p.as_dict() for p in problems]})
