"""Statistics as charts (``/stats``), with their JSON (``/api/stats``).

Parameters (the same for the page and the JSON): ``variant`` (a slug, name or alias; unknown: 400),
``player`` (case-insensitive, ``*`` a wildcard; no games: an empty report), ``bucket`` (the
game-length histogram's bucket width, a whole number from 1) and ``include_invalid`` (``1``:
count invalid games too).  The JSON is :func:`archive.stats.archive_stats`' report as it is.

The report replays every game (for promotions and captures), which takes most of a second on the
sample archive and many seconds on a large one, so reports are cached in the application
(``app.extensions["daikifu_stats"]``, one per combination of filters, the :data:`CACHE_SIZE`
most recent), with the archive's data version (:meth:`Archive.data_version`): a report stands
while the archive holds the same games, and while an import runs (which commits new games every
second) the report of the last complete state is served, or, if there was none, one report
computed once during the import; the first request after the import finished computes anew.
"""

from __future__ import annotations

import threading
from collections import OrderedDict

from flask import Blueprint, abort, current_app, jsonify, render_template, request, url_for

from daikifu.archive.stats import ELO_K, ELO_START, archive_stats
from daikifu.replay import UnknownVariantError, VariantError

from . import charts
from .params import flag_arg, int_arg
from .db import archive, variants

bp = Blueprint("stats", __name__)

CACHE_SIZE = 32  # reports kept (one per combination of filters asked for recently)
MAX_PLAYER = 200  # characters in a player filter
TOP_PIECES = 15  # piece types charted for promotions and captures (the table lists them all)


def _variant_arg(a) -> str | None:
    """The ``variant`` parameter as a slug: a variant of the archive, or any installed variant
    (by slug, name or alias); 400 when it is neither."""
    value = request.args.get("variant", "").strip()
    if not value:
        return None
    if a.has_variant(value):
        return value
    try:
        return variants().load(value).slug
    except UnknownVariantError:
        abort(400, description=f"unknown variant {value[:60]!r}")
    except VariantError as exc:
        abort(400, description=str(exc))


def _filters(a) -> dict:
    """The report's keyword arguments from the query string (400 for a bad one)."""
    args = request.args
    player = args.get("player", "").strip() or None
    if player is not None and len(player) > MAX_PLAYER:
        abort(400, description=f"the player name is too long (at most {MAX_PLAYER} characters)")
    return {"variant": _variant_arg(a), "player": player, "bucket": int_arg("bucket", None, 1),
            "include_invalid": flag_arg("include_invalid")}


def report(a, filters: dict) -> dict:
    """``archive_stats`` for these filters, from the cache while the archive's data version is
    covered by the cached report's (see the module docstring)."""
    version = a.data_version()
    key = tuple(sorted(filters.items()))
    store = current_app.extensions.setdefault("daikifu_stats", {"lock": threading.Lock(), "reports": OrderedDict()})
    with store["lock"]:
        cached = store["reports"].get(key)
        if cached is not None and cached[0].covers(version):
            store["reports"].move_to_end(key)
            return cached[1]
    # computed outside the lock: two concurrent first requests both compute, which is harmless
    fresh = archive_stats(a, **filters)
    with store["lock"]:
        store["reports"][key] = (version, fresh)
        store["reports"].move_to_end(key)
        while len(store["reports"]) > CACHE_SIZE:
            store["reports"].popitem(last=False)
    return fresh


def _bucket_label(b: dict) -> str:
    return f"{b['from']}\u2013{b['to']}" if b["to"] != b["from"] else str(b["from"])


def _figure(chart: str, caption: str, head: tuple, rows: list) -> dict:
    """A chart with its caption and its numbers as a table (shown folded under it)."""
    return {"chart": chart, "caption": caption, "head": head, "rows": rows}


def variant_figures(v: dict, name: str) -> list[dict]:
    """The figures of one variant's section: lengths, first moves, terminations, promotions and
    captures (the last two when the report replayed the games)."""
    lengths = [(_bucket_label(b), b["games"]) for b in v["length"]["histogram"]]
    first = [(m["move"], m["games"]) for m in v["first_moves"]]
    ends = list(v["terminations"].items())
    out = [
        _figure(charts.histogram(lengths, label=f"{name}: games by length in plies", x_label="length (plies)",
                                 y_label="games", unit="games"),
                "Games by length (plies)", ("Plies", "Games"), lengths),
        _figure(charts.bar_chart(first, label=f"{name}: most played first moves", unit="games"),
                "Most played first moves", ("Move", "Games"), first),
        _figure(charts.bar_chart(ends, label=f"{name}: how the games ended", unit="games"),
                "How the games ended", ("Termination", "Games"), ends),
    ]
    for key, caption, column in (("promotions", "Promotions by piece", "Promotions"),
                                 ("captures", "Pieces captured", "Captured")):
        items = list(v.get(key, {}).items())
        if not items:
            continue
        if len(items) > TOP_PIECES:
            caption += f" (top {TOP_PIECES} of {len(items)})"
        out.append(_figure(charts.bar_chart(items[:TOP_PIECES], label=f"{name}: {caption.lower()}"),
                           caption, ("Piece", column), items))
    return out


def results_figure(variants: list[dict], names: dict) -> dict:
    """Results per variant: one stacked bar per variant."""
    keys = charts.RESULT_ORDER
    chart = charts.stacked_bars(
        [(names.get(v["variant"], v["variant"]), charts.result_segments(v["results"])) for v in variants],
        label="Results per variant: Sente wins, draws, Gote wins and unfinished games",
        legend=[(k, charts.RESULT_LABELS[k]) for k in keys])
    rows = [(names.get(v["variant"], v["variant"]), v["games"],
             *(f"{v['results'][k]} ({100 * v['results']['shares'][k]:.1f}%)" for k in keys)) for v in variants]
    return _figure(chart, "Share of Sente wins, draws, Gote wins and unfinished games (the numbers in the bars "
                          "are games)", ("Variant", "Games", *(charts.RESULT_LABELS[k] for k in keys)), rows)


@bp.get("/stats")
def index():
    a = archive()
    filters = _filters(a)
    data = report(a, filters)
    names = {v.slug: v.name for v in variants().list()}
    sections = [{"v": v, "name": names.get(v["variant"], v["variant"]),
                 "figures": variant_figures(v, names.get(v["variant"], v["variant"])),
                 "players": [p for p in data["players"] if p["variant"] == v["variant"]]}
                for v in data["variants"]]
    archive_variants = [slug for slug, _ in a.variant_counts()]
    return render_template("stats.html", report=data, filters=filters, sections=sections, names=names,
                           results=results_figure(data["variants"], names) if data["variants"] else None,
                           archive_variants=archive_variants, elo_k=ELO_K, elo_start=ELO_START,
                           json_url=url_for("stats.api", **request.args.to_dict()))


@bp.get("/api/stats")
def api():
    """The report of :func:`archive.stats.archive_stats` for the filters."""
    a = archive()
    return jsonify(report(a, _filters(a)))
