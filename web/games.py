"""The game list (``/``) and the game viewer (``/games/<id>``), with their JSON.

List parameters (page and ``/api/games`` alike): ``variant`` (slug, name or alias), ``player``,
``sente``, ``gote`` (``*`` is a wildcard), ``result`` (``1-0``, ``0-1``, ``1/2-1/2``, ``*`` or
sente/gote/draw/unfinished), ``status`` (valid, truncated, invalid, all; default: all but the
invalid), ``since``/``until`` (``2024``, ``2024-05``, ``2024-05-17``), ``q`` (full-text search),
``sort`` (id, date, plies, variant; default id), ``order`` (asc, desc; default desc: the latest
imports first), ``page`` (from 1) and ``per_page`` (default 50, larger values are cut to 200).
A value that is not one of these gives 400; a page after the last is empty.

Viewer parameters: ``ply`` (a main-line ply, 0 = the start position, the default), ``node`` (a
node of the move tree, variations included, as numbered in the page's data), ``flip`` and
``style`` (how moves and squares are written: algebraic, japanese, western or shogi; default the
variant's own, see :mod:`formats.styles`).  A
``ply`` or ``node`` that is not a number of the game gives 400 (no clamping, so a permalink never
silently shows another position).
"""

from __future__ import annotations

import math
import re
import sqlite3

from pathlib import Path

from flask import Blueprint, Response, abort, current_app, jsonify, render_template, request, url_for

from daikifu.archive.queries import QueryError
from daikifu.archive.store import GAME_SORTS, STATUSES, ArchiveError
from daikifu.formats.game import RESULTS, Game, GameNode
from daikifu.formats.jsonexport import game_to_dict
from daikifu.formats.kif import KifError, write_kif
from daikifu.formats.lsn import write_game
from daikifu.formats.styles import StyleError, move_style, move_text, restyle_message
from daikifu.replay import FIRST, VariantError
from daikifu.replay.squares import parse_square, square_name

from .analysis import push_node, root_node
from .cache import SizedCache
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


#: A game longer than this many plies is shown a window of its main line at a time (the rest is
#: loaded with the page of another ply), so that a 100,000-ply game opens as fast as a short one.
LONG_GAME = 2000
#: The plies of a long game on one page (the ply asked for in the middle).
WINDOW = 1000
#: The plies of a game's moves in one answer of ``/api/games/<id>`` (``moves_from`` pages on).
MOVES_PAGE = 1000
#: Parsed games kept per process, in main-line plies; game pages and JSON kept, in characters.
#: (A game page depends only on the game, the ply or node and flip: nothing of the visitor's.)
GAME_CACHE_PLIES = 300_000
PAGE_CACHE_BYTES = 200 << 20


def _cache(name: str, capacity: int) -> SizedCache:
    return current_app.extensions.setdefault(name, SizedCache(capacity))


def _game_key(row: dict) -> tuple:
    """A stored game never changes: its digest (and the archive) name it for good."""
    return (str(current_app.config["DAIKIFU_DB"]), row["id"], row["digest"])


def _row(game_id: int) -> dict:
    row = archive().game(game_id)
    if row is None:
        abort(404, description=f"no game {game_id} in this archive")
    return row


def _stored(game_id: int, plies: int | None = None, row: dict | None = None) -> tuple[dict, object, str | None]:
    """(games row, the game read again or None, why it could not be read); 404 when there is none.

    ``plies``: the main line is needed only that far (a long game's window).  Games read are kept
    (see :class:`SizedCache`), so a game is parsed once per process, not once per request."""
    row = row or _row(game_id)
    if plies is not None and plies >= (row["ply_count"] or 0):
        plies = None
    games = _cache("daikifu_games", GAME_CACHE_PLIES)
    key = _game_key(row)
    cached = games.get(key)
    if cached is not None and (cached[1] is None or (plies is not None and cached[1] >= plies)):
        game = cached[0]
    else:
        try:
            game = archive().load_game(game_id, plies)  # extra variant files: DAIKIFU_VARIANTS (create_app)
        except (ArchiveError, VariantError, ValueError) as exc:
            return row, None, str(exc)
        games.put(key, (game, plies), 1 + (plies if plies is not None else row["ply_count"] or 0))
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
    row = _row(game_id)
    asked = request.args.get("style", "").strip().lower()
    style = _style_of(row, asked)
    key = (*_game_key(row), ply, node, flip, style)
    pages = _cache("daikifu_pages", PAGE_CACHE_BYTES)
    page = pages.get(key)
    if page is None:
        view_data, unreadable = _view_of(row, ply, node, flip, style)
        page = render_template("game.html", game=row, view=view_data, unreadable=unreadable, flip=flip,
                               variant_name=_variant_name(row["variant"]), style=style, asked_style=asked,
                               styles=MOVE_STYLE_NAMES)
        pages.put(key, page, len(page))
    return page


#: The move styles the viewer offers, with their names in its menu.
MOVE_STYLE_NAMES = (("algebraic", "Algebraic (LSN)"), ("japanese", "Japanese ▲７六歩"), ("western", "Western P-7f"))


def _style_of(row: dict, asked: str) -> str:
    """The move style to show a stored game in (400 for a style that is not one)."""
    try:
        variant = replayer().variant(row["variant"])
    except QueryError:
        variant = None  # a variant daikifu does not know: algebraic
    try:
        return move_style(variant, asked)
    except StyleError as exc:
        abort(400, description=str(exc))


def _view_of(row: dict, ply: int | None, node: int | None, flip: bool,
             style: str = "algebraic") -> tuple[dict | None, str | None]:
    """(the viewer's data, why the game cannot be shown); a window of a long game's main line."""
    total = row["ply_count"] or 0
    long_game, size = current_app.config.get("DAIKIFU_LONG_GAME", LONG_GAME), current_app.config.get("DAIKIFU_WINDOW", WINDOW)
    window = None
    if total > long_game:
        if node is None and ply is not None and ply > total:
            abort(400, description=f"ply {ply}: game {row['id']} has {total} plies (0 to {total})")
        target = node if node is not None else (ply or 0)
        if target <= total:
            lo = max(0, min(target - size // 2, total - size))
            window = (lo, min(total, lo + size))
    # a window further on reads two windows more, so that stepping on finds the game read already
    extent = None if window is None else window[1] + (2 * size if window[0] else 0)
    row, game, unreadable = _stored(row["id"], extent, row)
    if game is None:
        if ply or node:
            abort(400, description=f"game {row['id']} has no moves that can be shown")
        return None, unreadable
    try:
        if total > long_game and window is None:  # a node of a variation: around its branch
            starts = _variation_starts(game, total)
            branch = next((k for first, size, k in starts.values() if first <= node < first + size), None)
            if branch is None:
                raise LookupError(f"node {node}: game {row['id']} has no such node")
            lo = max(0, min(branch - size // 2, total - size))
            window = (lo, min(total, lo + size))
        return build_view(game, row, ply=ply, node=node, flip=flip, window=window, style=style), None
    except LookupError as exc:
        abort(400, description=str(exc))


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


@bp.get("/games/<int:game_id>/image.<fmt>")
def image(game_id: int, fmt: str):
    """A picture of the game (:mod:`web.images`): ``svg`` or ``png`` of the position after ``ply``
    plies (default: the end), ``gif`` of the whole main line; ``style``, ``labels`` (kanji, ids,
    upright) and ``flip`` as ``daikifu image`` takes them, which writes the same bytes."""
    from .images import IMAGE_FORMATS, WEB_GIF_PLIES, ImageError, image_bytes
    from .svg import LABEL_MODES

    if fmt not in IMAGE_FORMATS:
        abort(404, description=f"no image format {fmt!r}: {', '.join(IMAGE_FORMATS)}")
    row = _row(game_id)
    style = _style_of(row, request.args.get("style", "").strip().lower())
    labels = request.args.get("labels", "kanji").strip() or "kanji"
    if labels not in LABEL_MODES:
        abort(400, description=f"labels {labels!r}: expected one of {', '.join(LABEL_MODES)}")
    ply = int_arg("ply")
    flip = flag_arg("flip")
    if fmt == "gif" and (row["ply_count"] or 0) > WEB_GIF_PLIES:  # (CPU time: see web/images.py)
        abort(400, description=f"game {game_id} has {row['ply_count']} plies: the viewer makes GIFs of games "
                               f"up to {WEB_GIF_PLIES} (daikifu image --gif: up to 1000)")
    key = (*_game_key(row), "image", fmt, None if fmt == "gif" else ply, style, labels, flip)
    pages = _cache("daikifu_pages", PAGE_CACHE_BYTES)
    body = pages.get(key)
    if body is None:
        row, game, unreadable = _stored(game_id, None, row)
        if game is None:
            abort(409, description=f"game {game_id} cannot be drawn ({unreadable})")
        try:
            body = image_bytes(game, fmt, None if fmt == "gif" else ply, style=style, labels=labels, flip=flip)
        except ImageError as exc:
            abort(400, description=str(exc))
        pages.put(key, body, len(body))
    name = f"daikifu-game-{game_id}" + ("" if fmt == "gif" or ply is None else f"-ply{ply}") + f".{fmt}"
    mimetype = {"svg": "image/svg+xml", "png": "image/png", "gif": "image/gif"}[fmt]
    return Response(body, mimetype=mimetype, headers={"Content-Disposition": f'attachment; filename="{name}"'})


def _download(body, filename: str):
    return Response(body, mimetype="text/plain", headers={
        "Content-Disposition": f'attachment; filename="{filename}"'})


@bp.get("/api/games/<int:game_id>")
def api_view(game_id: int):
    first = int_arg("moves_from", 1, minimum=1)
    count = min(int_arg("moves_count", MOVES_PAGE, minimum=1), MOVES_PAGE)
    row = _row(game_id)
    key = (*_game_key(row), "json", first, count)
    pages = _cache("daikifu_pages", PAGE_CACHE_BYTES)
    text = pages.get(key)
    if text is None:
        row, game, unreadable = _stored(game_id, first + count - 1, row)
        text = current_app.json.dumps(game_json(row, game, unreadable, first=first, count=count))
        pages.put(key, text, len(text))
    return Response(text, mimetype="application/json")


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

    def __init__(self, game: Game, want: int, flip: bool, error: dict | None, style: str = "algebraic"):
        self.style = style
        self.board = game.start_board()
        self.drops = self.board.rules.drops
        self.want, self.flip, self.error = want, flip, error
        self.svg = self.shown_hands = None
        self.nodes = [root_node(self.board)]
        self.ids = [0]  # the node id of each entry of nodes (a window of a long game skips some)
        self.next_id = 1
        if want == 0:
            self._draw(None)

    def _draw(self, last) -> None:
        error = self.error
        marked = None
        if error is not None and error["node"] == self.ids[-1]:
            marked = [parse_square(n) for n in error["squares"]]
        self.svg = board_svg(self.board, last=last, flip=self.flip, error_square=marked, element_id="board",
                             title=f"Position after ply {self.board.ply}", style=self.style)
        self.shown_hands = hands(self.board)

    def emit(self, parent: int, node: GameNode, mainline: bool) -> dict:
        """Play ``node``'s move on the board (left played) and record it; its move-list entry."""
        board, move = self.board, node.move
        text = move_text(board, move, self.style)
        number, sente = (board.move_number + 1) // 2, board.turn == FIRST
        node_data = push_node(board, move, text)  # the board is now after the move
        data = {"p": parent, "d": board.ply, **node_data}
        index = self.next_id
        self.next_id += 1
        self.nodes.append(data)
        self.ids.append(index)
        if index == self.want:
            self._draw(move)
        return {"node": index, "ply": board.ply, "text": text, "number": number, "sente": sente,
                "nags": [NAG_GLYPHS.get(n, f"${n}") for n in node.nags], "comment": node.comment,
                "eval": node.eval.label if node.eval is not None and node.eval.scored else None,
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


    def window(self, game: Game, lo: int, hi: int, starts: dict) -> list[dict]:
        """The main line's plies ``lo`` to ``hi`` (node ``lo`` the root: its parent is not on the
        page) with the alternatives branching off them, numbered as in the whole game (ply N is
        node N; an alternative's nodes from ``starts``, see :func:`_variation_starts`)."""
        main, node = [], game
        while node.variations and len(main) < hi:
            node = node.variations[0]
            main.append(node)
        hi = len(main)
        entries = []
        if lo:
            self.nodes, self.ids = [], []
            for child in main[:lo - 1]:
                self.board.push(child.move)
            self.next_id = lo
            entries.append(self.emit(None, main[lo - 1], True))
        for k in range(lo + 1, hi + 1):
            entries.append(self.emit(k - 1, main[k - 1], True))
        first = lo or 1  # the ply of entries[0]
        for k in range(hi, lo, -1):  # the board goes back from the window's end
            self.board.pop()
            parent = main[k - 2] if k >= 2 else game
            for alternative in parent.variations[1:]:
                self.next_id = starts[id(alternative)][0]
                entries[k - first]["variations"].append(self.line(k - 1, parent, alternative, False))
        return _number_labels(entries)


def _variation_starts(game: Game, total: int) -> dict:
    """For a long game, ``id(alternative) -> (its first node id, its subtree's size, the ply it
    replaces)``: the alternatives' nodes are numbered from ``total + 1`` in main-line order (so
    a window can number them without reading the rest of the game)."""
    starts, next_id, parent, ply = {}, total + 1, game, 0
    while parent.variations:
        ply += 1
        for alternative in parent.variations[1:]:
            size, stack = 0, [alternative]
            while stack:
                size += 1
                stack.extend(stack.pop().variations)
            starts[id(alternative)] = (next_id, size, ply)
            next_id += size
        parent = parent.variations[0]
    return starts


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
               flip: bool = False, window: tuple[int, int] | None = None, style: str = "algebraic") -> dict:
    """Everything the viewer page shows: the board at the node asked for (``node``, else the
    main line's ``ply``, else the start), the move tree for the move list and the per-node data
    for the browser.  Raises LookupError for a ply or node the game does not have.

    ``window = (lo, hi)``: a long game, of which only the main line's plies ``lo`` to ``hi`` and
    the alternatives branching off them are on the page (``data.ids`` names each node; the
    viewer loads the page of another ply to go beyond)."""
    plies = len(game.mainline_moves()) if window is None else row["ply_count"]
    if node is None and ply is not None and ply > plies:
        raise LookupError(f"ply {ply}: game {row['id']} has {plies} plies (0 to {plies})")
    want = node if node is not None else (ply or 0)
    error = _error_marks(row, game.rules, plies) if row["status"] == "invalid" else None
    if error is not None and style != "algebraic" and window is None:
        # the stored message names squares and suggests moves in LSN: in the page's style here
        board = game.start_board()
        for move in game.mainline_moves():
            board.push(move)
        error["message"] = restyle_message(error["message"], board, style)
    walk = _TreeWalk(game, want, flip, error, style)
    if window is not None:
        lines = walk.window(game, window[0], window[1], _variation_starts(game, plies))
    else:
        first = game.variations[0] if game.variations else None
        lines = walk.line(0, game, first, True) if first is not None else []
    if walk.svg is None:
        raise LookupError(f"node {want}: game {row['id']} has no such node" if window else
                          f"node {want}: game {row['id']} has nodes 0 to {len(walk.nodes) - 1}")
    shown = walk.nodes[walk.ids.index(want)]
    rules = walk.board.rules
    labels = {t.id: t.kanji or t.id for t in rules.types}
    data = {"game": row["id"], "variant": row["variant"], "ruleset": row["ruleset"], "plies": plies,
            "current": want, "flip": flip, "style": style, "drops": walk.drops, "labels": labels if walk.drops else {},
            "error": error, "nodes": walk.nodes}
    if window is not None:
        data["ids"], data["window"] = walk.ids, list(window)
    return {"svg": walk.svg, "hands": walk.shown_hands, "lines": lines, "current": want,
            "current_ply": shown["d"], "position": shown["pos"], "mainline": want <= plies, "plies": plies,
            "drops": walk.drops, "comment": game.comment,
            "error": error, "data": data, "labels": labels, "window": window}


def game_json(row: dict, game: Game | None, unreadable: str | None, first: int = 1,
              count: int | None = None) -> dict:
    """``/api/games/<id>``: the stored row's facts and, when the game can be replayed, its moves
    (:func:`formats.jsonexport.game_to_dict`: every ply with its text, compact move, position
    after it, comments, NAGs and variations as nested lists), ``count`` plies from ply ``first``
    (``moves_next``: the ``moves_from`` of the next part, null at the end)."""
    out = {k: row.get(k) for k in ("id", "variant", "ruleset", "status", "event", "site", "date", "round",
                                   "sente", "gote", "result", "termination", "ply_count", "error",
                                   "warnings", "source_format")}
    out["error"] = public_error(out["error"])
    out["extra_tags"] = row.get("tags") or []
    if game is None:
        out.update(readable=False, unreadable=unreadable, start=None, tags=[], comment="", moves=[])
        return out
    data = game_to_dict(game, first_ply=first, max_plies=count)
    end = first + len(data["moves"])
    out.update(readable=True, start=data["start"], tags=data["tags"], comment=data["comment"],
               moves=data["moves"], moves_from=first,
               moves_next=end if count is not None and end <= (row["ply_count"] or 0) else None)
    return out
