"""Statistics of the archive: per variant and per player, with Elo ratings.

>>> report = archive_stats(Archive("games.db"), variant="shogi")          # doctest: +SKIP
>>> report["variants"][0]["results"]["shares"]["sente_wins"]              # doctest: +SKIP
>>> [(p["player"], p["rating"]) for p in report["players"]]               # doctest: +SKIP

Per variant: games and plies; results (counts, and shares of all the games counted, unfinished
ones included); game length (min, quartiles, max, mean, and a histogram); terminations (the
``Termination`` tag; ``unknown`` when there is none); the most played first moves (in notation,
on the game's start position); and, from replaying every game, the promotions (by the ID of the
piece that promoted) and captures (by the ID of the piece captured, as it stood on the board).

Quartiles interpolate linearly between the closest ranks: for the lengths sorted as
``x[0] <= ... <= x[n-1]``, the quantile ``q`` is at position ``q * (n - 1)`` (the ``inclusive``
method of :func:`statistics.quantiles`, numpy's default).  The histogram's buckets have a "nice"
width (1, 2, 5, 10, 20, 25, 50, 100 ...: the smallest that gives at most :data:`MAX_BUCKETS`
buckets), unless one is given; each bucket ``[from, to]`` is inclusive.

Per player and variant: games, and wins / losses / draws / unfinished as Sente and as Gote, and an
**Elo rating**: every player starts at 1500; the finished games (1-0, 0-1, 1/2-1/2) between two
named players of the variant are taken in date order (unknown parts of a date, ``??``, read as
``00``; games without a date first), then id order, and after each game both ratings change by
``K * (score - expected)`` with ``K = 20`` and ``expected = 1 / (1 + 10 ** ((Ro - Rp) / 400))``.
Each variant is rated separately.  Ratings always use every game of the variant (so ``player``
only chooses whose figures are shown); the other figures use only the games selected.  A name
that only says which side played (先手, 後手, 下手, 上手, sente, gote, shitate, uwate, Black,
White, player0, ``?`` ...: :func:`is_placeholder`, as servers and converters write when the
players are not known) is no player: such a side counts as unnamed.

First moves are counted over the games that start from the variant's start position (and the
default rule set's or not: the start is what counts); a game from a handicap, a puzzle or any
set-up position has no first move of the game in this sense.

Invalid games are left out unless ``include_invalid``; they are replayed from their stored text
up to their first error.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections import Counter, defaultdict

from daikifu.replay.notation import move_notation

from .queries import QueryError, ReplayError, Replayer, move_effects
from .store import Archive

__all__ = ["archive_stats", "is_placeholder", "PLACEHOLDER_NAMES", "elo_ratings", "quantile", "histogram", "nice_width", "stats_rows", "stats_csv",
           "ELO_K", "ELO_START", "RATING_SYSTEM", "MAX_BUCKETS"]

ELO_K = 20
ELO_START = 1500.0
MAX_BUCKETS = 10
RATING_SYSTEM = {"system": "Elo", "k": ELO_K, "start": ELO_START, "per": "variant",
                 "order": "date, then id", "games": "finished games (1-0, 0-1, 1/2-1/2) between two named players"}
_SCORES = {"1-0": 1.0, "0-1": 0.0, "1/2-1/2": 0.5}
FIRST_MOVES = 10  # first moves listed per variant

#: Names (compared case-insensitively, spaces aside) that stand for a side, not a player.
PLACEHOLDER_NAMES = frozenset({
    "先手", "後手", "下手", "上手", "▲", "△", "☗", "☖", "先", "後",
    "sente", "gote", "shitate", "uwate", "black", "white", "first", "second",
    "?", "-", "--", "unknown", "anonymous", "nn", "n.n.", "n.n", "none", "player", "computer",
})
_NUMBERED_PLACEHOLDER = re.compile(r"(?:player|sente|gote|black|white|side)[ _-]?\d+\Z")


def is_placeholder(name: str | None) -> bool:
    """Whether a player name only says which side played (or that nobody knows who did).

    >>> [is_placeholder(n) for n in ("先手", "Sente", " gote ", "player0", "Player 2", "?", "Taro", "Black Cat")]
    [True, True, True, True, True, True, False, False]
    """
    if name is None:
        return True
    key = " ".join(name.split()).casefold()
    return key in PLACEHOLDER_NAMES or _NUMBERED_PLACEHOLDER.match(key) is not None


# --- small statistics -----------------------------------------------------------------------------


def quantile(values: list, q: float) -> float | None:
    """The ``q`` quantile of sorted ``values``, interpolating between the closest ranks (position
    ``q * (n - 1)``)."""
    if not values:
        return None
    pos = q * (len(values) - 1)
    lo = math.floor(pos)
    hi = min(lo + 1, len(values) - 1)
    value = values[lo] + (values[hi] - values[lo]) * (pos - lo)
    return int(value) if float(value).is_integer() else round(value, 3)


def nice_width(lo: int, hi: int, buckets: int = MAX_BUCKETS) -> int:
    """The smallest of 1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500 ... giving at most ``buckets``
    buckets aligned on multiples of the width from ``lo`` to ``hi``."""
    scale = 1
    while True:
        for step in (1, 2, 2.5, 5):
            width = int(step * scale)
            if width != step * scale or width < 1:
                continue
            if hi // width - lo // width + 1 <= buckets:
                return width
        scale *= 10


def histogram(values: list, width: int | None = None) -> list[dict]:
    """Buckets ``{"from": a, "to": b, "games": n}`` (inclusive bounds, multiples of the width)
    from the smallest value to the largest, empty buckets included."""
    if not values:
        return []
    lo, hi = min(values), max(values)
    width = width or nice_width(lo, hi)
    counts = Counter(v // width for v in values)
    return [{"from": b * width, "to": b * width + width - 1, "games": counts.get(b, 0)}
            for b in range(lo // width, hi // width + 1)]


def _date_key(date: str | None) -> str:
    return (date or "").replace("?", "0")


def elo_ratings(games, k: float = ELO_K, start: float = ELO_START) -> dict:
    """Elo ratings from ``games``: dicts with id, date, sente, gote, result, in any order; they
    are rated in date order, then id order (see the module docstring).  Returns
    ``{player: {"rating": r, "games": rated games}}``."""
    rating: dict[str, float] = {}
    count: Counter = Counter()
    rated = [g for g in games if g["result"] in _SCORES and g["sente"] and g["gote"] and g["sente"] != g["gote"]]
    rated.sort(key=lambda g: (_date_key(g["date"]), g["id"]))
    for g in rated:
        a, b = g["sente"], g["gote"]
        ra, rb = rating.get(a, start), rating.get(b, start)
        expected = 1.0 / (1.0 + 10 ** ((rb - ra) / 400.0))
        delta = k * (_SCORES[g["result"]] - expected)
        rating[a] = ra + delta
        rating[b] = rb - delta
        count[a] += 1
        count[b] += 1
    return {p: {"rating": r, "games": count[p]} for p, r in rating.items()}


# --- the report -----------------------------------------------------------------------------------


def _name_filter(player: str | None):
    if not player:
        return lambda name: True
    if "*" in player:
        rx = re.compile("".join(".*" if c == "*" else re.escape(c) for c in player) + r"\Z", re.I)
        return lambda name: bool(name) and rx.match(name) is not None
    low = player.lower()
    return lambda name: bool(name) and name.lower() == low


_COLUMNS = ("id", "variant", "ruleset", "start", "status", "sente", "gote", "result", "date", "ply_count",
            "termination")


def _games(archive: Archive, variant: str | None, include_invalid: bool) -> list[dict]:
    where, params = [], []
    if variant:
        where.append("g.variant = ?")
        params.append(variant)
    if not include_invalid:
        where.append("g.status != 'invalid'")
    sql = ("SELECT g.id, g.variant, g.ruleset, g.start, g.status, ps.name, pg.name, g.result, g.date, g.ply_count, "
           "g.termination FROM games g LEFT JOIN players ps ON ps.id = g.sente_id "
           "LEFT JOIN players pg ON pg.id = g.gote_id" + (" WHERE " + " AND ".join(where) if where else "")
           + " ORDER BY g.id")
    games = [dict(zip(_COLUMNS, r)) for r in archive.conn.execute(sql, params)]
    for g in games:  # a side named only as a side is no player (see is_placeholder)
        for side in ("sente", "gote"):
            if g[side] is not None and is_placeholder(g[side]):
                g[side] = None
    return games


def _replay_pieces(rp: Replayer, games: list[dict], warnings: list) -> tuple[Counter, Counter, Counter]:
    """Replay every game: (first moves by notation, promotions by ID, captures by ID)."""
    first, promotions, captures = Counter(), Counter(), Counter()
    for game in games:
        try:
            board, moves = rp.game_moves(game)
        except QueryError as exc:
            warnings.append(f"game {game['id']}: not replayed: {exc}")
            continue
        except Exception as exc:  # noqa: BLE001 - an invalid game whose text cannot be read again
            warnings.append(f"game {game['id']}: not replayed: {exc}")
            continue
        types = board.rules.types
        try:
            from_start = game["start"] is None  # (the variant's own start position)
            for move in moves:
                if board.ply == 0 and from_start:
                    first[move_notation(board, move)] += 1
                code, promoted, caps = move_effects(board, move)
                if promoted:
                    promotions[types[(code >> 1) - 1].id] += 1
                for cap in caps:
                    captures[types[(cap >> 1) - 1].id] += 1
        except ReplayError as exc:
            warnings.append(str(exc))
    return first, promotions, captures


def _first_moves_sql(archive: Archive, rp: Replayer, games: list[dict]) -> Counter:
    """First moves of valid games from the variant's start position, from their ply-0 rows (no
    replay)."""
    first = Counter()
    groups: dict = defaultdict(set)
    for g in games:
        if g["status"] != "invalid" and g["ply_count"] and g["start"] is None:
            groups[(g["variant"], g["ruleset"], g["start"])].add(g["id"])
    for (variant, ruleset, start), ids in groups.items():
        try:
            board = rp.board(variant, ruleset, start)
        except QueryError:
            continue
        parse = rp.parser(board.rules)
        for gid, nxt in archive.conn.execute(
                "SELECT game_id, next FROM positions WHERE hash = ? AND ply = 0", (board.zobrist,)):
            if gid in ids and nxt is not None:
                first[move_notation(board, parse(nxt))] += 1
    return first


def _record() -> dict:
    return {"wins": 0, "losses": 0, "draws": 0, "unfinished": 0}


def archive_stats(archive: Archive, *, variant: str | None = None, player: str | None = None,
                  include_invalid: bool = False, replay: bool = True, bucket: int | None = None) -> dict:
    """Statistics per variant and per player (see the module docstring).

    ``variant`` is a slug; ``player`` (case-insensitive, ``*`` a wildcard) keeps only the games
    that player played, and only that player in ``players``; ``replay=False`` leaves out
    promotions and captures (which replay every game) and reads first moves from the stored
    positions; ``bucket`` is the histogram's bucket width (default: chosen)."""
    rp = Replayer(archive)
    everything = _games(archive, variant, include_invalid)
    wanted = _name_filter(player)
    selected = [g for g in everything if not player or wanted(g["sente"]) or wanted(g["gote"])]
    warnings: list[str] = []
    by_variant: dict[str, list] = defaultdict(list)
    for g in selected:
        by_variant[g["variant"]].append(g)
    variants = []
    for slug in sorted(by_variant):
        games = by_variant[slug]
        n = len(games)
        results = Counter(g["result"] for g in games)
        counts = {"sente_wins": results.get("1-0", 0), "gote_wins": results.get("0-1", 0),
                  "draws": results.get("1/2-1/2", 0), "unfinished": n - results.get("1-0", 0)
                  - results.get("0-1", 0) - results.get("1/2-1/2", 0)}
        lengths = sorted(g["ply_count"] for g in games)
        entry = {
            "variant": slug, "games": n, "plies": sum(lengths),
            "statuses": dict(sorted(Counter(g["status"] for g in games).items())),
            "results": {**counts, "shares": {k: round(v / n, 4) for k, v in counts.items()}},
            "length": {"min": lengths[0], "p25": quantile(lengths, 0.25), "median": quantile(lengths, 0.5),
                       "p75": quantile(lengths, 0.75), "max": lengths[-1],
                       "mean": round(sum(lengths) / n, 2), "histogram": histogram(lengths, bucket)},
            "terminations": dict(Counter(g["termination"] or "unknown" for g in games).most_common()),
        }
        try:
            if replay:
                first, promotions, captures = _replay_pieces(rp, games, warnings)
                entry["promotions"] = dict(sorted(promotions.items(), key=lambda kv: (-kv[1], kv[0])))
                entry["captures"] = dict(sorted(captures.items(), key=lambda kv: (-kv[1], kv[0])))
            else:
                first = _first_moves_sql(archive, rp, games)
        except QueryError as exc:  # the variant is not installed here
            warnings.append(f"{slug}: moves not replayed: {exc}")
            first = Counter()
        entry["first_moves"] = [{"move": m, "games": c}
                                for m, c in sorted(first.items(), key=lambda kv: (-kv[1], kv[0]))[:FIRST_MOVES]]
        variants.append(entry)
    # players: records over the selected games, ratings over every game of the variant
    ratings = {}
    rated_variants = sorted({g["variant"] for g in selected})
    for slug in rated_variants:
        ratings[slug] = elo_ratings([g for g in everything if g["variant"] == slug])
    table: dict = {}
    for g in selected:
        for colour, name, win, loss in (("sente", g["sente"], "1-0", "0-1"), ("gote", g["gote"], "0-1", "1-0")):
            if not name or (player and not wanted(name)):
                continue
            row = table.get((name, g["variant"]))
            if row is None:
                row = table[(name, g["variant"])] = {"player": name, "variant": g["variant"], "games": 0,
                                                     "sente": _record(), "gote": _record()}
            row["games"] += 1
            rec = row[colour]
            rec["wins" if g["result"] == win else "losses" if g["result"] == loss
                else "draws" if g["result"] == "1/2-1/2" else "unfinished"] += 1
    players = []
    for (name, slug), row in table.items():
        r = ratings.get(slug, {}).get(name)
        row["rating"] = round(r["rating"], 2) if r else None
        row["rated_games"] = r["games"] if r else 0
        for key in ("wins", "losses", "draws", "unfinished"):
            row[key] = row["sente"][key] + row["gote"][key]
        players.append(row)
    players.sort(key=lambda p: (p["variant"], -(p["rating"] or 0), p["player"].lower()))
    return {"filters": {"variant": variant, "player": player, "include_invalid": include_invalid},
            "rating": dict(RATING_SYSTEM), "games": len(selected), "variants": variants, "players": players,
            "warnings": warnings}


# --- flat rows (CSV) ------------------------------------------------------------------------------

CSV_HEADER = ("variant", "section", "key", "field", "value")


def stats_rows(report: dict) -> list[tuple]:
    """The report as rows ``(variant, section, key, field, value)``: one fact per row, so the CSV
    loads into any table (``sqlite-utils insert db stats stats.csv --csv``)."""
    rows = []
    for v in report["variants"]:
        s = v["variant"]
        rows.append((s, "games", "", "games", v["games"]))
        rows.append((s, "games", "", "plies", v["plies"]))
        for k, n in v["statuses"].items():
            rows.append((s, "status", k, "games", n))
        for k in ("sente_wins", "gote_wins", "draws", "unfinished"):
            rows.append((s, "results", k, "games", v["results"][k]))
            rows.append((s, "results", k, "share", v["results"]["shares"][k]))
        for k in ("min", "p25", "median", "p75", "max", "mean"):
            rows.append((s, "length", k, "plies", v["length"][k]))
        for b in v["length"]["histogram"]:
            rows.append((s, "length_histogram", f"{b['from']}-{b['to']}", "games", b["games"]))
        for k, n in v["terminations"].items():
            rows.append((s, "termination", k, "games", n))
        for m in v["first_moves"]:
            rows.append((s, "first_move", m["move"], "games", m["games"]))
        for k, n in v.get("promotions", {}).items():
            rows.append((s, "promotions", k, "count", n))
        for k, n in v.get("captures", {}).items():
            rows.append((s, "captures", k, "count", n))
    for p in report["players"]:
        s, name = p["variant"], p["player"]
        rows.append((s, "player", name, "games", p["games"]))
        for colour in ("sente", "gote"):
            for k in ("wins", "losses", "draws", "unfinished"):
                rows.append((s, "player", name, f"{colour}_{k}", p[colour][k]))
        rows.append((s, "player", name, "rating", p["rating"]))
        rows.append((s, "player", name, "rated_games", p["rated_games"]))
    return rows


def stats_csv(report: dict) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(CSV_HEADER)
    w.writerows(stats_rows(report))
    return out.getvalue()
