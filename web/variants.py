"""Variant pages: the list (``/variants``) and one variant (``/variants/<slug>``), with their JSON
(``/api/variants``, ``/api/variants/<slug>``).

The data is the command line's (``daikifu variants``, ``daikifu variant show``): the same summary,
rule texts and moves in words.  The page adds the start position as a board and a move diagram per
piece (:mod:`web.move_diagram`): one per zone for zone-dependent pieces, and one more for each
option choice that changes a piece's moves.  An incomplete variant gets a page with what is known
and what is missing; diagrams are drawn for its pieces whose moves are known.
"""

from __future__ import annotations

import dataclasses
from functools import lru_cache
from pathlib import Path

from flask import Blueprint, abort, jsonify, redirect, render_template, url_for

from daikifu.formats.styles import move_style
from daikifu.replay.variant_info import piece_betza, piece_moves, rule_lines, variant_json, variant_summary
from daikifu.replay import Board, UnknownVariantError, Variant, VariantError, compile_rules
from daikifu.replay.describe import try_describe
from daikifu.replay.rules import Ruleset

from . import move_diagram
from .analysis import viewer_data
from .db import variants
from .svg import board_svg

bp = Blueprint("variants", __name__)


def _all_variants() -> tuple[list[Variant], list[dict]]:
    """The loaded variants and, for each file that could not be loaded, its name and the reason."""
    try:
        found = variants().list()
        errors = variants().errors()
    except VariantError as exc:  # e.g. the variants directory given to the server is gone
        abort(503, description=str(exc))
    broken = []
    for text in errors:
        path, _, reason = text.partition(": ")
        broken.append({"file": Path(path).name, "error": reason or text})
    return found, broken


def _variant(slug: str) -> Variant:
    try:
        return variants().load(slug)
    except UnknownVariantError:
        abort(404, description=f"There is no variant {slug!r}; the variants page lists every known one.")
    except VariantError as exc:
        abort(503, description=str(exc))


# --- the list -------------------------------------------------------------------------------------


def _summary(v: Variant) -> dict:
    """``daikifu variants --json`` for one variant, with the file's name only (no server paths)."""
    return variant_summary(v) | {"missing": " ".join(v.missing.split()),
                                 "path": Path(v.path).name if v.path else None}


@bp.get("/variants")
def index():
    variants, broken = _all_variants()
    rows = [_summary(v) for v in variants]
    return render_template("variants.html", variants=rows, broken=broken)


@bp.get("/api/variants")
def api_index():
    variants, broken = _all_variants()
    return jsonify({"variants": [_summary(v) for v in variants],
                    "not_loaded": broken})


# --- one variant ----------------------------------------------------------------------------------


def _diagram_rules(variant: Variant, options: dict | None = None) -> Ruleset | None:
    """The compiled rules to draw diagrams from; for an incomplete variant, its known pieces
    compiled as they stand (None when even that fails)."""
    try:
        if variant.playable:
            return compile_rules(variant, options)
        return _incomplete_rules(variant)
    except VariantError:
        return None


@lru_cache(maxsize=16)
def _incomplete_rules(variant: Variant) -> Ruleset:
    # pieces without moves get none; no board is ever set up from this rule set
    return Ruleset(dataclasses.replace(variant, status="playable"))


@lru_cache(maxsize=8192)
def _diagram(rules: Ruleset, piece_id: str, zone: int | None) -> tuple[str, bool]:
    """The diagram's SVG, and whether some move goes on beyond it."""
    diagram = move_diagram.piece_moves(rules, piece_id, zone)
    return move_diagram.diagram_svg(diagram), diagram.unbounded


def _figure(caption: str, rules: Ruleset, piece_id: str, zone: int | None) -> dict:
    svg, unbounded = _diagram(rules, piece_id, zone)
    if unbounded:
        caption += " (some moves go on beyond the diagram)"
    return {"caption": caption, "svg": svg}


def _zone_ranks(rules: Ruleset) -> list[str]:
    """Each zone's ranks for the first player, e.g. "ranks 1-4"."""
    out, low = [], 1
    for n in rules.rules["zones"]:
        out.append(f"ranks {low}-{low + n - 1}" if n > 1 else f"rank {low}")
        low += n
    return out


def _piece_diagrams(variant: Variant, rules: Ruleset | None, piece) -> list[dict]:
    """The diagrams of one piece: ``{"caption", "svg"}`` each (none when it has no known moves)."""
    if rules is None or not (piece.betza or piece.betza_zones or piece.generators):
        return []
    zones = move_diagram.zones_of(rules, piece.id)
    names = _zone_ranks(rules) if zones != [None] else []
    out = []
    for zone in zones:
        caption = f"Zone {zone + 1} ({names[zone]})" if zone is not None else "Moves"
        out.append(_figure(caption, rules, piece.id, zone))
    return out


def _option_diagrams(variant: Variant, piece) -> list[dict]:
    """Diagrams of the piece under option choices that change its moves (not the default)."""
    out = []
    for name, option in variant.options.items():
        for choice in option.choices.values():
            if choice.name == option.default or piece.id not in choice.pieces:
                continue
            rules = _diagram_rules(variant, {name: choice.name})
            betza = choice.pieces[piece.id]
            strings = betza if isinstance(betza, list) else [betza]
            moves = "; ".join(try_describe(s) for s in strings)
            entry = {"option": name, "choice": choice.name, "betza": " | ".join(strings), "moves": moves,
                     "diagrams": []}
            if rules is not None:
                for zone in move_diagram.zones_of(rules, piece.id):
                    caption = f"{name}={choice.name}" + (f", zone {zone + 1}" if zone is not None else "")
                    entry["diagrams"].append(_figure(caption, rules, piece.id, zone))
            out.append(entry)
    return out


# Which provenance topics of the variant files concern which rule line or the setup: those lines
# are flagged on the page with the provenance text.
_RULE_TOPICS = {
    "promotion zone": ("promotion zone", "promotion"),
    "forced promotion": ("forced promotion", "optional promotion"),
    "drops": ("drops",),
    "drop restrictions": ("drop caps", "pawn-drop mate"),
    "repetition": ("repetition",),
    "stalemate": ("stalemate",),
    "passing": ("null move",),
    "move zones": ("zones", "moves in zone 4"),
    "promotion": ("promotion",),
    "royal pieces": ("royal pieces",),
    "bare king": ("bare king",),
    "protected Lion": ("protected lion",),
    "counter-strike": ("counter-strike",),
}
_SETUP_TOPICS = ("setup", "initial array", "board width", "board depth", "second army",
                 "second army and first player", "knight placement", "comet and asteroid rows")


def _provenance(entries, wanted) -> list:
    return [p for p in entries if p.topic.lower() in wanted]


def _piece_provenance(variant: Variant, piece) -> list:
    """Provenance entries of the variant whose topic names the piece (e.g. "Lion Dog")."""
    name = piece.name.lower()
    return [p for p in variant.provenance if name in p.topic.lower()]


def _variant_data(variant: Variant) -> dict:
    """The variant as the JSON API gives it: ``daikifu variant show --json`` plus, per piece, its
    moves per zone, what it is promoted from, and the moves under other option choices."""
    data = variant_json(variant)
    data["path"] = Path(variant.path).name if variant.path else None  # no server paths
    rules = _diagram_rules(variant)
    zones = _zone_ranks(rules) if rules is not None and variant.rules.get("zones") else []
    promoted_from = {p.promotes: p.id for p in variant.pieces if p.promotes}
    for entry, piece in zip(data["pieces"], variant.pieces):
        entry["moves_in_words"] = piece_moves(piece)
        entry["betza_text"] = piece_betza(piece)
        entry["promoted_from"] = promoted_from.get(piece.id)
        entry["zones"] = [{"zone": n, "ranks": zones[n - 1] if n - 1 < len(zones) else None, "betza": text,
                           "moves": try_describe(text)}
                          for n, text in enumerate(piece.betza_zones, start=1)]
        entry["option_moves"] = [{k: v for k, v in o.items() if k != "diagrams"}
                                 for o in _option_diagrams(variant, piece)]
    data["missing"] = " ".join(variant.missing.split())
    data["diagrams"] = rules is not None
    return data


def _setup_svg(rules: Ruleset, title: str, element_id: str | None = None) -> str:
    """The start position, its coordinates in the variant's own notation style."""
    return board_svg(Board(rules), cell=max(28, min(40, 560 // max(rules.files, rules.ranks))), title=title,
                     element_id=element_id, style=move_style(rules.variant))


def _option_setups(variant: Variant, start: str) -> dict[str, str]:
    """``{"option=choice": start position SVG}`` for the option choices that change the board or
    the setup (Dai Mitregi's 16 ranks, Dai-Ryu's knights on the shogi files)."""
    out = {}
    for name, option in variant.options.items():
        for choice in option.choices:
            if choice == option.default:
                continue
            rules = _diagram_rules(variant, {name: choice})
            if rules is not None and Board(rules).position() != start:
                out[f"{name}={choice}"] = _setup_svg(rules, f"{variant.name} with {name}={choice}: start position")
    return out


@bp.get("/variants/<slug>")
def show(slug: str):
    variant = _variant(slug)
    if variant.slug != slug:  # found by name or alias: one address per variant
        return redirect(url_for("variants.show", slug=variant.slug), code=301)
    data = _variant_data(variant)
    rules = _diagram_rules(variant)
    setup, option_setups, analysis = None, {}, None
    if variant.playable:
        setup = _setup_svg(rules, f"{variant.name}: start position", element_id="board")
        option_setups = _option_setups(variant, Board(rules).position())
        analysis = dict(viewer_data(Board(rules), "board"), style=move_style(variant))
    pieces = []
    for entry, piece in zip(data["pieces"], variant.pieces):
        pieces.append(entry | {"index": piece.index, "diagrams": _piece_diagrams(variant, rules, piece),
                               "option_diagrams": _option_diagrams(variant, piece)})
        pieces[-1]["notes"] = _piece_provenance(variant, piece)
    anchors = {p.id: f"piece-{p.index}" for p in variant.pieces}
    rules_shown = [{"label": label, "text": text, "provenance": _provenance(variant.provenance, _RULE_TOPICS.get(label, ()))}
                   for label, text in rule_lines(variant.rules, variant)]
    return render_template("variant.html", v=data, variant=variant, pieces=pieces, anchors=anchors,
                           setup=setup, option_setups=option_setups, setup_provenance=_provenance(variant.provenance, _SETUP_TOPICS),
                           rules=rules_shown, legend=move_diagram.legend_svg(), analysis=analysis)


@bp.get("/api/variants/<slug>")
def api_show(slug: str):
    variant = _variant(slug)
    return jsonify(_variant_data(variant))


@bp.get("/api/variants/<slug>/pieces/<path:piece_id>")
def api_piece(slug: str, piece_id: str):
    """One piece's moves as the variant page shows them (its card): ``{"id", "name", "kanji",
    "moves": [lines in words], "description", "promotes", "diagrams": [{"caption", "svg"}]}``;
    the analysis board shows it when a piece is hovered or long-pressed."""
    variant = _variant(slug)
    try:
        piece = variant.piece(piece_id[:40])
    except KeyError:
        abort(404, description=f"{variant.name} has no piece {piece_id[:40]!r}")
    return jsonify({"id": piece.id, "name": piece.name, "kanji": piece.kanji, "moves": piece_moves(piece),
                    "description": piece.description, "promotes": piece.promotes,
                    "diagrams": _piece_diagrams(variant, _diagram_rules(variant), piece)})
