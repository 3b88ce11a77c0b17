"""The board editor of the position search page (``/positions?edit=1&variant=...[&position=...]``).

The page draws an empty board of the variant and gives the browser (``web/static/editor.js``)
the pieces to place, a palette of every piece type for both sides, the hands and the side to
move; the browser writes the position string as pieces are placed and asks
``/api/position-check`` (:func:`replay.legality.position_problems`) why a position could not
occur.
"""

from __future__ import annotations

from flask import abort, render_template, request, url_for

from daikifu.replay import Board
from daikifu.replay.position import PositionError, format_piece, parse_position
from daikifu.replay.rules import Ruleset
from daikifu.replay.squares import square_name

from .analysis import rules_for
from .db import variants
from .svg import board_svg, promoted_types, symbol_id

MAX_POSITION = 4000  # characters, as for position search


def _pieces(rules: Ruleset, text: str) -> dict:
    """``{"pieces": {square: token}, "hands": [{ID: n}, {ID: n}], "turn": "b" or "w"}`` of a
    position string (tokens as position strings write them: "P", "(LD)", "p", "(ld)")."""
    try:
        parsed = parse_position(rules, text)
    except PositionError as exc:
        abort(400, description=f"bad position string for {rules.variant.name}: {exc}")
    hands = [{t.id: parsed.hands[c][t.index] for t in rules.types if parsed.hands[c][t.index]} for c in (0, 1)]
    return {"pieces": {square_name(sq): format_piece(rules, t, c) for sq, (t, c) in parsed.pieces.items()},
            "hands": hands, "turn": "bw"[parsed.turn]}


def editor_data(rules: Ruleset, position: str | None, ruleset: str = "") -> dict:
    """What editor.js needs: the variant's geometry, each piece's tokens, the start position and
    the position to begin with."""
    types = [{"id": t.id, "name": t.name, "tokens": [format_piece(rules, t.index, 0), format_piece(rules, t.index, 1)],
              "symbol": symbol_id(rules, t.index), "promoted": t.index in promoted_types(rules),
              "droppable": t.index in rules.droppable}
             for t in rules.types]
    start = _pieces(rules, rules.start)
    return {"variant": rules.variant.slug, "ruleset": ruleset, "files": rules.files, "ranks": rules.ranks,
            "drops": rules.drops, "types": types, "start": start,
            "position": _pieces(rules, position) if position else start,
            "check_url": url_for("analysis.api_position_check"), "search_url": url_for("positions.search")}


def editor_page():
    """The editor, for the ``variant`` (default: shogi), ``ruleset`` and ``position`` parameters."""
    args = request.args
    variant = args.get("variant", "").strip() or "shogi"
    ruleset = args.get("ruleset", "").strip()
    position = args.get("position", "").strip() or None
    if position is not None and len(position) > MAX_POSITION:
        abort(400, description=f"the position string is too long (at most {MAX_POSITION} characters)")
    rules = rules_for(variant, ruleset)
    data = editor_data(rules, position, ruleset)
    empty = "/".join([str(rules.files)] * rules.ranks) + " b - 1"
    cell = 40 if max(rules.files, rules.ranks) <= 12 else 34
    board = board_svg(Board(rules, empty), cell=cell, element_id="editor-board",
                      title=f"{rules.variant.name}: the position being set up")
    choices = sorted((v for v in variants().list() if v.playable), key=lambda v: v.name.lower())
    return render_template("editor.html", data=data, board=board, rules=rules, variants=choices)
