"""The game list (``/``) and the game viewer (``/games/<id>``), with their JSON.

List parameters (page and ``/api/games`` alike): ``variant`` (slug, name or alias), ``player``,
``sente``, ``gote`` (``*`` is a wildcard), ``result`` (``1-0``, ``0-1``, ``1/2-1/2``, ``*`` or
sente/gote/draw/unfinished), ``status`` (valid, truncated, invalid, all; default: all but the
invalid), ``since``/``until`` (``2024``, ``2024-05``, ``2024-05-17``), ``q`` (full-text search),
``sort`` (id, date, plies, variant; default id), ``order`` (asc, desc; default desc: the latest
imports first), ``page`` (from 1) and ``per_page`` (default 50, larger values are cut to 200).
A value that is not one of these gives 400; a page after the last is empty.

Viewer parameters: ``ply`` (a main-line ply, 0 = the start position, the default), ``node`` (a
node of the move tree, variations included, as numbered in the page's data) and ``flip``.  A
``ply`` or ``node`` that is not a number of the game gives 400 (no clamping, so a permalink never
silently shows another position).
"""

from __future__ import annotations

import math
import re
import sqlite3

from pathlib import Path

from flask import Blueprint, Response, abort, jsonify, render_template, request, url_for

from daikifu.archive.queries import QueryError
from daikifu.archive.store import GAME_SORTS, STATUSES, ArchiveError
from daikifu.formats.game import RESULTS, Game, GameNode
from daikifu.formats.jsonexport import game_to_dict
from daikifu.formats.kif import KifError, write_kif
from daikifu.formats.lsn import write_game
from daikifu.replay.notation import move_notation
from daikifu.replay import FIRST, VariantError
from daikifu.replay.squares import parse_square, square_name

from .analysis import push_node, root_node
from .db import archive, replayer
from .params import flag_arg, int_arg
from .svg import board_svg, hands

bp = Blueprint("games", __name__)

PER_PAGE = 50
MAX_PER_PAGE = 200
RESULT_WORDS = {"sente": "1-0", "gote": "0-1", "draw": "1/2-1/2", "unfinished": "*"}
TEXT_FILTERS = ("player", "sente", "gote", "since", "until", "q")
LIST_PARAMS = TEXT_FILTERS + ("variant", "result", "status", "sort", "order", "per_page")


# --- parameters -----------------------------------------------------------------------------------


def _list_query() -> dict:
    """The list's filters, order and page from the query string (400 for a bad value)."""
    args = request.args
    filters = {name: args.get(name, "").strip() or None for name in TEXT_FILTERS}
    filters["search"] = filters.pop("q")
    variant = args.get("variant", "").strip()
    if variant:
        try:
            variant = replayer().variant(variant).slug
        except QueryError:
            pass  # games of a variant daikifu does not know keep the name as written
    filters["variant"] = variant or None
    result = args.get("result", "").strip()
    if result and RESULT_WORDS.get(result.lower(), result) not in RESULTS:
        abort(400, description=f"result {result!r}: expected one of {', '.join(RESULTS)} "
                               f"(or {', '.join(RESULT_WORDS)})")
    filters["result"] = result or None
    status = args.get("status", "").strip()
    if status and status not in STATUSES + ("all",):
        abort(400, description=f"status {status!r}: expected one of {', '.join(STATUSES)}, all")
    filters["status"] = status or None
    sort = args.get("sort", "").strip() or "id"
    if sort not in GAME_SORTS:
        abort(400, description=f"sort {sort!r}: expected one of {', '.join(GAME_SORTS)}")
    order = args.get("order", "").strip() or "desc"
    if order not in ("asc", "desc"):
        abort(400, description=f"order {order!r}: expected asc or desc")
    page = int_arg("page", 1, minimum=1)
    per_page = min(int_arg("per_page", PER_PAGE, minimum=1), MAX_PER_PAGE)
    return {"filters": filters, "sort": sort, "order": order, "page": page, "per_page": per_page}


def _game_list(query: dict) -> dict:
    """The page of games the query asks for, with its counts."""
    a = archive()
    filters = query["filters"]
    per_page, page = query["per_page"], query["page"]
    try:
        total = a.count(**filters)
        rows = list(a.games(**filters, sort=query["sort"], descending=query["order"] == "desc",
                            limit=per_page, offset=(page - 1) * per_page))
    except ValueError as exc:
        abort(400, description=str(exc))
    except sqlite3.OperationalError as exc:  # full-text syntax SQLite refuses
        if filters["search"] is None:
            raise
        abort(400, description=f"bad search text {filters['search']!r}: {exc}")
    first = (page - 1) * per_page + 1 if rows else 0
    return {"total": total, "page": page, "per_page": per_page, "pages": max(1, math.ceil(total / per_page)),
            "first": first, "last": first + len(rows) - 1 if rows else 0, "rows": rows}


def public_error(error: dict | None) -> dict | None:
    """A stored error as the JSON API gives it: the file by its name only (no server paths)."""
    if error and error.get("file"):
        return {**error, "file": Path(error["file"]).name}
    return error


def _row_json(row: dict) -> dict:
    keys = ("id", "variant", "ruleset", "date", "event", "site", "round", "sente", "gote", "result",
            "termination", "ply_count", "status")
    out = {k: row.get(k) for k in keys}
    out["error"] = public_error(row.get("error"))
    out["url"] = url_for("games.view", game_id=row["id"])
    return out


def _variant_choices() -> list[tuple[str, int]]:
    """(slug, games) of every variant in the archive, for the filter form."""
    return archive().variant_counts()


# --- the list -------------------------------------------------------------------------------------


@bp.get("/")
def index():
    query = _list_query()
    listing = _game_list(query)
    # the list's own parameters only, to carry into sort and page links
    args = {k: v for k, v in request.args.items() if k in LIST_PARAMS and v.strip()}
    return render_template("games.html", query=query, listing=listing, args=args,
                           variants=_variant_choices(), statuses=STATUSES, results=RESULTS,
                           sorts=list(GAME_SORTS))


@bp.get("/api/games")
def api_index():
    query = _list_query()
    listing = _game_list(query)
    filters = {k: v for k, v in query["filters"].items() if v is not None}
    return jsonify({"total": listing["total"], "page": listing["page"], "per_page": listing["per_page"],
                    "pages": listing["pages"], "first": listing["first"], "last": listing["last"],
                    "sort": query["sort"], "order": query["order"], "filters": filters,
                    "games": [_row_json(r) for r in listing["rows"]]})


# --- one game -------------------------------------------------------------------------------------


def _stored(game_id: int) -> tuple[dict, object, str | None]:
    """(games row, the game read again or None, why it could not be read); 404 when there is none."""
    a = archive()
    row = a.game(game_id)
    if row is None:
        abort(404, description=f"no game {game_id} in this archive")
    try:
        game = a.load_game(game_id)  # finds extra variant files through DAIKIFU_VARIANTS (create_app)
    except (ArchiveError, VariantError, ValueError) as exc:
        return row, None, str(exc)
    if getattr(game, "variant_missing", False) or not game.variant.playable:
        return row, None, f"variant {row['variant']!r} cannot be replayed here"
    return row, game, None


def _variant_name(slug: str) -> str | None:
    try:
        return replayer().variant(slug).name
    except QueryError:
        return None


@bp.get("/games/<int:game_id>")
def view(game_id: int):
    ply = int_arg("ply")
    node = int_arg("node")
    flip = flag_arg("flip")
    row, game, unreadable = _stored(game_id)
    view_data = None
    if game is not None:
        try:
            view_data = build_view(game, row, ply=ply, node=node, flip=flip)
        except LookupError as exc:
            abort(400, description=str(exc))
    elif ply or node:
        abort(400, description=f"game {game_id} has no moves that can be shown")
    return render_template("game.html", game=row, view=view_data, unreadable=unreadable, flip=flip,
                           variant_name=_variant_name(row["variant"]))


@bp.get("/games/<int:game_id>/record.<fmt>")
def record(game_id: int, fmt: str):
    """The game as a file: ``lsn`` (canonical LSN, as ``daikifu export`` writes it), ``kif``
    (UTF-8), or ``source`` (the text exactly as it was imported)."""
    row, game, unreadable = _stored(game_id)
    name = f"daikifu-game-{game_id}"
    if fmt == "source":
        ext = "kif" if row["source_format"] == "kif" else "lsn"
        return _download(archive().source(game_id), f"{name}-source.{ext}")
    if fmt not in ("lsn", "kif"):
        abort(404, description=f"no record format {fmt!r}: lsn, kif or source")
    if game is None:
        abort(409, description=f"game {game_id} cannot be written again ({unreadable}); "
                               f"its text as imported is at record.source")
    if fmt == "lsn":
        return _download(write_game(game) + "\n", f"{name}.lsn")
    try:
        return _download(write_kif(game, encoding="utf-8"), f"{name}.kif")
    except KifError as exc:
        abort(409, description=f"game {game_id} cannot be written as KIF: {exc}")


def _download(body, filename: str):
    return Response(body, mimetype="text/plain", headers={
        "Content-Disposition": f'attachment; filename="{filename}"'})


@bp.get("/api/games/<int:game_id>")
def api_view(game_id: int):
    row, game, unreadable = _stored(game_id)
    return jsonify(game_json(row, game, unreadable))


# --- the viewer's data ----------------------------------------------------------------------------
#
# The page carries the whole move tree as a flat list of nodes (node 0 = the start position; the
# main line's ply N is node N, variations follow), each with the squares its move changes as
# [square, piece before, piece after] (pieces written as in position strings: "P" for the first
# player, "p" for the second, null for an empty square), so viewer.js can step forwards and
# backwards from any node without asking the server again.

NAG_GLYPHS = {1: "!", 2: "?", 3: "!!", 4: "??", 5: "!?", 6: "?!"}
_SQUARE_RE = re.compile(r"[a-p](?:1[0-6]|[1-9])(?![0-9])")


class _TreeWalk:
    """Replays a game's tree once, numbering nodes and recording each move's effects; the board
    picture is drawn when the walk reaches the node asked for."""

    def __init__(self, game: Game, want: int, flip: bool, error: dict | None):
        self.board = game.start_board()
        self.drops = self.board.rules.drops
        self.want, self.flip, self.error = want, flip, error
        self.svg = self.shown_hands = None
        self.nodes = [root_node(self.board)]
        if want == 0:
            self._draw(None)

    def _draw(self, last) -> None:
        error = self.error
        marked = None
        if error is not None and error["node"] == len(self.nodes) - 1:
            marked = [parse_square(n) for n in error["squares"]]
        self.svg = board_svg(self.board, last=last, flip=self.flip, error_square=marked, element_id="board",
                             title=f"Position after ply {self.board.ply}")
        self.shown_hands = hands(self.board)

    def emit(self, parent: int, node: GameNode, mainline: bool) -> dict:
        """Play ``node``'s move on the board (left played) and record it; its move-list entry."""
        board, move = self.board, node.move
        text = move_notation(board, move)
        number, sente = (board.move_number + 1) // 2, board.turn == FIRST
        node_data = push_node(board, move, text)  # the board is now after the move
        data = {"p": parent, "d": board.ply, **node_data}
        index = len(self.nodes)
        self.nodes.append(data)
        if index == self.want:
            self._draw(move)
        return {"node": index, "ply": board.ply, "text": text, "number": number, "sente": sente,
                "nags": [NAG_GLYPHS.get(n, f"${n}") for n in node.nags], "comment": node.comment,
                "starting_comment": node.starting_comment, "variations": [], "mainline": mainline}

    def line(self, parent: int, start: GameNode, first: GameNode, mainline: bool) -> list[dict]:
        """The line from ``first`` (a child of ``start``, whose position the board is in) on,
        then the alternatives branching off it; the board is left as it was."""
        entries, branches = [], []
        node, index, child = start, parent, first
        while child is not None:
            entry = self.emit(index, child, mainline)
            entries.append(entry)
            if child is node.variations[0]:  # a line's alternatives are its first move's siblings
                branches.append((index, node, entry, node.variations[1:]))
            else:  # the first move of an alternative: its siblings belong to the caller
                branches.append((index, node, entry, ()))
            node, index = child, entry["node"]
            child = node.variations[0] if node.variations else None
        for branch_parent, branch_node, entry, alternatives in reversed(branches):
            self.board.pop()
            for alternative in alternatives:
                entry["variations"].append(self.line(branch_parent, branch_node, alternative, False))
        return _number_labels(entries)


def _number_labels(entries: list[dict]) -> list[dict]:
    """Move numbers as a score sheet writes them: before every first-player move, and before a
    second-player move that opens a line or follows a comment or a variation."""
    fresh = True
    for entry in entries:
        if entry["sente"]:
            entry["label"] = f"{entry['number']}."
        else:
            entry["label"] = f"{entry['number']}\u2026" if fresh or entry["starting_comment"] else ""
        fresh = bool(entry["comment"] or entry["variations"])
    return entries


def _error_marks(row: dict, rules, node: int) -> dict | None:
    """The stored error of an invalid game, placed after the last move that could be replayed,
    with the squares named in the failing move (those on the board)."""
    error = row.get("error")
    if not error:
        return None
    squares = []
    for name in _SQUARE_RE.findall(error.get("move") or ""):
        try:
            squares.append(square_name(parse_square(name, rules.files, rules.ranks)))
        except ValueError:
            continue
    return {"node": node, "squares": list(dict.fromkeys(squares)), "move": error.get("move"),
            "message": error.get("message"), "ply": error.get("ply"), "line": error.get("line"),
            "column": error.get("column")}


def build_view(game: Game, row: dict, *, ply: int | None = None, node: int | None = None,
               flip: bool = False) -> dict:
    """Everything the viewer page shows: the board at the node asked for (``node``, else the
    main line's ``ply``, else the start), the move tree for the move list and the per-node data
    for the browser.  Raises LookupError for a ply or node the game does not have."""
    plies = len(game.mainline_moves())
    if node is None and ply is not None and ply > plies:
        raise LookupError(f"ply {ply}: game {row['id']} has {plies} plies (0 to {plies})")
    want = node if node is not None else (ply or 0)
    error = _error_marks(row, game.rules, plies) if row["status"] == "invalid" else None
    walk = _TreeWalk(game, want, flip, error)
    first = game.variations[0] if game.variations else None
    lines = walk.line(0, game, first, True) if first is not None else []
    if walk.svg is None:
        raise LookupError(f"node {want}: game {row['id']} has nodes 0 to {len(walk.nodes) - 1}")
    rules = walk.board.rules
    labels = {t.id: t.kanji or t.id for t in rules.types}
    data = {"game": row["id"], "variant": row["variant"], "ruleset": row["ruleset"], "plies": plies,
            "current": want, "flip": flip, "drops": walk.drops, "labels": labels if walk.drops else {},
            "error": error, "nodes": walk.nodes}
    return {"svg": walk.svg, "hands": walk.shown_hands, "lines": lines, "current": want,
            "current_ply": walk.nodes[want]["d"], "mainline": want <= plies, "plies": plies,
            "drops": walk.drops, "comment": game.comment, "error": error, "data": data, "labels": labels}


def game_json(row: dict, game: Game | None, unreadable: str | None) -> dict:
    """``/api/games/<id>``: the stored row's facts and, when the game can be replayed, its moves
    (:func:`formats.jsonexport.game_to_dict`: every ply with its text, compact move, position
    after it, comments, NAGs and variations as nested lists)."""
    out = {k: row.get(k) for k in ("id", "variant", "ruleset", "status", "event", "site", "date", "round",
                                   "sente", "gote", "result", "termination", "ply_count", "error",
                                   "warnings", "source_format")}
    out["error"] = public_error(out["error"])
    out["extra_tags"] = row.get("tags") or []
    if game is None:
        out.update(readable=False, unreadable=unreadable, start=None, tags=[], comment="", moves=[])
        return out
    data = game_to_dict(game)
    out.update(readable=True, start=data["start"], tags=data["tags"], comment=data["comment"],
               moves=data["moves"])
    return out
