"""Position search and the explorer (``/positions``), with their JSON (``/api/positions``,
``/api/explore``).

The position is given in one of three ways (the same for the page and the JSON):

* ``?game=ID&ply=N``: the position of a stored game after N plies (the game viewer links here);
* ``?position=STR&variant=SLUG``: a pasted position string of a variant;
* ``?variant=SLUG`` alone: the variant's start position.

``ruleset`` (optional) is the rule set of a position string, as in a record's ``Ruleset`` tag;
``page`` (from 1) pages through the matching games, :data:`PER_PAGE` at a time; ``confirm=all``
makes the explorer replay every game that reaches the position instead of a sample of
:data:`~archive.queries.EXPLORER_SAMPLE` of them.  A bad parameter is a 400 with the reason, a
game that does not exist a 404.  Without any parameter the page shows the form alone.
"""

from __future__ import annotations

from dataclasses import dataclass

from flask import Blueprint, Response, abort, jsonify, make_response, redirect, render_template, request, url_for
from markupsafe import Markup

from daikifu.archive.queries import EXPLORER_SAMPLE, Explorer, QueryError, Target, explore, search_position, target
from daikifu.replay import Board, IllegalMoveError
from daikifu.formats.styles import StyleError, move_style, move_text

from . import charts
from .analysis import viewer_data
from .db import archive, replayer, variants
from .editor import editor_page
from .params import flag_arg, int_arg
from .svg import board_svg, hands

bp = Blueprint("positions", __name__)

PER_PAGE = 50  # matching games per page
MAX_POSITION = 4000  # characters: far more than a 16x16 position string with full hands needs
MAX_PAGE = 10_000  # page numbers beyond this are surely typing errors (and would replay a lot)
MAX_PLY = 10**6  # beyond any game's length (a larger ply is then "out of range", not an overflow)


@dataclass
class NextMove:
    """An explorer row for the page: the move's figures and the position it leads to."""

    stats: object  # ExplorerMove
    position: str | None  # None when the stored move does not replay on the target board
    bar: Markup
    text: str = ""  # the move in the page's notation style (the stored LSN text when it does not replay)


def _confirm_all() -> bool:
    value = request.args.get("confirm", "").strip()
    if value not in ("", "all", "sample"):
        abort(400, description=f"confirm must be 'all' or 'sample', not {value[:40]!r}")
    return value == "all"


def _target() -> Target | None:
    """The position asked for, or None when no parameter names one (the empty form)."""
    args = request.args
    game_id = int_arg("game", None, 0)
    ply = int_arg("ply", None, 0, MAX_PLY)
    position = args.get("position", "").strip() or None
    variant = args.get("variant", "").strip() or None
    ruleset = args.get("ruleset", "").strip()
    if position is not None and len(position) > MAX_POSITION:
        abort(400, description=f"the position string is too long ({len(position)} characters; "
                               f"at most {MAX_POSITION})")
    if game_id is None and ply is not None:
        abort(400, description="ply goes with game: give game=ID&ply=N")
    if game_id is None and position is None and variant is None:
        return None
    a, rp = archive(), replayer()
    try:
        if game_id is not None:
            if not a.has_game(game_id):
                abort(404, description=f"no game {game_id} in this archive")
            return target(a, position, variant, game_id=game_id, ply=ply, replayer=rp)
        if position is None:  # a variant alone: its start position
            position = rp.board(rp.variant(variant).slug, ruleset).position()
        return target(a, position, variant, ruleset=ruleset, replayer=rp)
    except QueryError as exc:
        abort(400, description=str(exc))


def _page() -> int:
    """The ``page`` parameter (also checked where it is not used: every endpoint takes the same
    parameters, and a bad one is a 400 everywhere)."""
    _confirm_all()
    return int_arg("page", 1, 1, MAX_PAGE)


def _require_target() -> Target:
    t = _target()
    if t is None:
        abort(400, description="give position=STR&variant=SLUG, game=ID&ply=N, or variant=SLUG "
                               "(its start position)")
    return t


def _matches(t: Target, page: int) -> tuple[list, bool]:
    """The matching games of one page, and whether there are more after it."""
    end = page * PER_PAGE
    hits = list(search_position(archive(), t, limit=end + 1, replayer=replayer()))
    return hits[end - PER_PAGE:end], len(hits) > end


def _explore(t: Target) -> Explorer:
    return explore(archive(), t, sample=None if _confirm_all() else EXPLORER_SAMPLE, replayer=replayer())


def next_position(t: Target, uci: str) -> str | None:
    """The position string after the stored move ``uci`` is played in the target position, or
    None if it cannot be played there."""
    board = Board(t.board.rules, t.position)
    try:
        board.play(board.parse_uci(uci))
    except (IllegalMoveError, ValueError, KeyError):
        return None
    return board.position()


def _row(t: Target, m, style: str) -> NextMove:
    """An explorer row, its move written in ``style`` (:mod:`formats.styles`)."""
    after = next_position(t, m.uci)
    text = m.move
    if after is not None and style != "algebraic":
        board = Board(t.board.rules, t.position)
        text = move_text(board, board.parse_uci(m.uci), style)
    return NextMove(m, after, result_bar(m), text)


def _style(variant) -> str:
    """The ``style`` parameter (default: the variant's own), 400 for one that is not a style."""
    try:
        return move_style(variant, request.args.get("style", "").strip().lower())
    except StyleError as exc:
        abort(400, description=str(exc))


def result_bar(figures) -> Markup:
    """The small Sente / draw / Gote / unfinished bar of an explorer row."""
    counts = {k: getattr(figures, k) for k in charts.RESULT_ORDER}
    parts = ", ".join(f"{charts.RESULT_LABELS[k]} {n}" for k, n in counts.items() if n)
    return charts.stacked_bar(charts.result_segments(counts), label=f"Results: {parts or 'none'}")


def shares(figures) -> list[tuple[str, str, str]]:
    """``(key, name, percentage)`` of the results of an explorer row (the bar's text)."""
    n = figures.games or 1
    return [(k, charts.RESULT_LABELS[k], f"{100 * getattr(figures, k) / n:.0f}%") for k in charts.RESULT_ORDER]


def here(**changes) -> str:
    """This page's URL with some parameters changed (paging, confirming every game)."""
    args = request.args.to_dict()
    args.update(changes)
    return url_for("positions.search", **args)


def _cell(t: Target) -> int:
    """Square size in pixels: large boards get smaller squares so that they fit a screen."""
    size = max(t.board.rules.files, t.board.rules.ranks)
    return 40 if size <= 12 else 34


LAST_VARIANT_COOKIE = "daikifu_last_variant"  # the variant /positions opens on when no parameter names one
LAST_VARIANT_AGE = 180 * 24 * 3600


@bp.get("/positions")
def search():
    if flag_arg("edit"):
        return editor_page()
    page = _page()
    t = _target()
    known = sorted(variants().list(), key=lambda v: v.name.lower())
    if t is None:
        # open on a board: the variant of the last position looked at, or a chooser
        last = request.cookies.get(LAST_VARIANT_COOKIE, "").strip()
        if last and any(v.slug == last and v.playable for v in known):
            return redirect(url_for("positions.search", variant=last))
        return render_template("positions.html", t=None, variants=known, selected=None,
                               playable=[v for v in known if v.playable])
    hits, more = _matches(t, page)
    result = _explore(t)
    style = _style(t.board.variant)
    rows = [_row(t, m, style) for m in result.moves]
    ended = result.ended if result.ended.games else None
    response = make_response(render_template(
        "positions.html", t=t, variants=known, selected=t.variant, hits=hits, more=more, page=page,
        per_page=PER_PAGE, explorer=result, rows=rows, ended=ended,
        ended_bar=result_bar(ended) if ended else None, shares=shares, here=here,
        board=Markup(board_svg(t.board, cell=_cell(t), element_id="position-board",
                               title=f"{t.board.variant.name} position", style=style)),
        hands=hands(t.board) if t.board.rules.drops else None, confirm_all=_confirm_all(),
        variant_name=t.board.variant.name, viewer_data=dict(viewer_data(t.board, "position-board", t.ruleset or ""), style=style)))
    response.set_cookie(LAST_VARIANT_COOKIE, t.board.variant.slug, max_age=LAST_VARIANT_AGE, samesite="Lax",
                        httponly=True)
    return response


@bp.get("/positions/image.<fmt>")
def image(fmt: str):
    """A picture of the position asked for (as the page's parameters name it: ``variant``,
    ``position``, ``ruleset``, or ``game`` and ``ply``), SVG or PNG, in ``style`` with ``labels``
    (kanji, ids, upright) and ``flip``: the "download image" of the position page's board."""
    from .images import ImageError, board_picture, picture_bytes
    from .svg import LABEL_MODES

    if fmt not in ("svg", "png"):
        abort(404, description=f"no image format {fmt!r}: svg or png")
    t = _require_target()
    labels = request.args.get("labels", "kanji").strip() or "kanji"
    if labels not in LABEL_MODES:
        abort(400, description=f"labels {labels!r}: expected one of {', '.join(LABEL_MODES)}")
    try:
        svg = board_picture(t.board, None, f"{t.board.variant.name}: {t.position}", style=_style(t.board.variant),
                            labels=labels, flip=flag_arg("flip"))
        body = picture_bytes(svg, fmt)
    except ImageError as exc:
        abort(400, description=str(exc))
    mimetype = {"svg": "image/svg+xml", "png": "image/png"}[fmt]
    return Response(body, mimetype=mimetype, headers={
        "Content-Disposition": f'attachment; filename="daikifu-position-{t.board.variant.slug}.{fmt}"'})


@bp.get("/api/positions")
def api_search():
    """``{"query": target, "page", "per_page", "more", "count", "games": [hit, ...]}``."""
    page = _page()
    t = _require_target()
    hits, more = _matches(t, page)
    return jsonify({"query": t.as_dict(), "page": page, "per_page": PER_PAGE, "more": more, "count": len(hits),
                    "games": [h.as_dict() for h in hits]})


@bp.get("/api/explore")
def api_explore():
    """The explorer's ``as_dict()``; each move also has ``position``, the position it leads to."""
    _page()
    t = _require_target()
    data = _explore(t).as_dict()
    for m in data["moves"]:
        m["position"] = next_position(t, m["uci"])
    return jsonify(data)
