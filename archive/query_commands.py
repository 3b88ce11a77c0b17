"""The archive's query commands: ``search``, ``explore`` and ``stats`` (see docs/archive.md).

The root group, :mod:`daikifu.cli`, loads them on demand.  Like the other archive commands they take ``--db PATH`` (default: ``$DAIKIFU_DB``, else
``daikifu.db``) and ``--json``; problems are one-line click errors.  The Python API behind them
is :mod:`daikifu.archive.queries` and :mod:`daikifu.archive.stats`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from daikifu.clikit import CONTEXT, echo_json as _echo_json, fail, fit as _fit, json_option, registry, text_width as _width

from .commands import db_option, variant_slug as _slug
from .schema import EXPLORER_SAMPLE

# the queries, the store and the rules core are imported where they are used: a command's --help
# loads none of them
if TYPE_CHECKING:
    from .queries import QueryError
    from .store import Archive

__all__ = ["search_command", "explore_command", "stats_command"]

# --- shared pieces --------------------------------------------------------------------------------

variant_option = click.option("--variant", "-v", metavar="NAME",
                              help="The variant of the position string (slug, name or alias).")
include_invalid_option = click.option(
    "--include-invalid", is_flag=True,
    help="Also search the invalid games (up to their first error; they are read again from their text).")


def _position_options(f):
    options = [
        click.option("--position", "-p", metavar="STR",
                     help="A position string (SFEN-shaped, see docs/notation.md; quote it).  The move number "
                          "does not matter.  Needs --variant."),
        click.option("--game", "-g", "game_id", type=click.IntRange(1), metavar="ID",
                     help="Take the position from this game (with --ply)."),
        click.option("--ply", type=click.IntRange(0), metavar="N",
                     help="... after N plies (0 = its start position)."),
        variant_option,
    ]
    for option in reversed(options):
        f = option(f)
    return f


def _open(ctx: click.Context, path: str) -> Archive:
    """The archive at ``path`` (tuned for reading), its games' variants looked up in the command
    line's registry."""
    from .queries import tune_for_queries
    from .store import Archive, ArchiveError
    try:
        archive = Archive(path, create=False, variants=registry(ctx))
    except ArchiveError as exc:
        raise fail(str(exc)) from None
    tune_for_queries(archive)
    return archive


def _fail(exc: QueryError, param: str | None = None):
    param = param or exc.param
    if param:
        raise click.BadParameter(str(exc), param_hint=f"'{param}'")
    raise fail(str(exc))


def _table(header: tuple, rows: list[tuple]) -> None:
    cells = [tuple("" if c is None else str(c) for c in r) for r in rows]
    widths = [min(28, max(_width(r[i]) for r in cells + [header])) for i in range(len(header))]
    for row in [header] + cells:
        click.echo("  ".join(_fit(c, w) for c, w in zip(row, widths)).rstrip())


def _target(archive, rp, position, variant, game_id, ply):
    from .queries import QueryError, target
    if position is None and game_id is None:
        raise click.UsageError("give --position STR --variant NAME, or --game ID --ply N")
    if position is not None and game_id is not None:
        raise click.UsageError("give either --position or --game, not both")
    try:
        return target(archive, position, variant, game_id=game_id, ply=ply, replayer=rp)
    except QueryError as exc:
        _fail(exc)


def _where(t) -> str:
    origin = f", after ply {t.ply} of game {t.game_id}" if t.game_id is not None else ""
    return f"Position ({t.variant}{origin}): {t.position}"


# --- search ---------------------------------------------------------------------------------------


@click.command("search", context_settings=CONTEXT)
@db_option
@_position_options
@click.option("--material", "-m", metavar="SPEC",
              help="Material-only search instead of a position: see below.  Needs --variant.")
@include_invalid_option
@click.option("--limit", "-n", type=click.IntRange(0), metavar="N", help="At most N games.")
@json_option
@click.pass_context
def search_command(ctx, db_path, position, game_id, ply, variant, material, include_invalid, limit, as_json):
    """Find every game that reaches a position (transpositions included), with the ply where it
    does; or, with --material, every game where the material on the board and in hand matches.

    The position is a position string of --variant, or the position of game --game after --ply
    plies.  It is looked up by its 64-bit hash and every match is confirmed by replaying the game
    to that ply, so a hash collision never gives a wrong game.  The position is the board, the
    side to move and the hands (not the move number).  Invalid games are left out unless
    --include-invalid.

    \b
    --material SPEC: terms separated by spaces or commas, all of which must hold:
      ID          at least one                 ID>=N  ID<=N  ID=N  (also ==, !=, >, <)
      ID is a piece ID or alias: upper case = Sente's pieces, lower case = Gote's;
      S: (sente:) or G: (gote:) makes the terms after it Sente's or Gote's, up to the next ';'.
      A count is the pieces with that ID on the board plus in hand (promoted pieces count
      under their own ID).  The first ply where the material matches is shown.

    \b
    Examples:
      daikifu search --game 12 --ply 30
      daikifu search -v shogi -p "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"
      daikifu search -v dai-kagamigi --material "S:!LD>=2,R=0; G:K=1"
      daikifu search -v dai-kagamigi --material "!LD>=2 r=0" --limit 10 --json
    """
    from .queries import QueryError, Replayer, parse_material, search_material, search_position
    archive = _open(ctx, db_path)
    with archive:
        rp = Replayer(archive)
        if material is not None:
            if position is not None or game_id is not None:
                raise click.UsageError("give --material or a position (--position, --game), not both")
            if ply is not None:
                raise click.UsageError("--ply goes with --game")
            if not variant:
                raise click.UsageError("--material needs --variant")
            try:
                slug = rp.variant(variant).slug
            except QueryError as exc:
                _fail(exc, exc.param or "--variant")
            try:
                spec = parse_material(material, rp.variant(slug))
            except QueryError as exc:
                _fail(exc, exc.param or "--material")
            counters: dict = {}
            try:
                hits = list(search_material(archive, spec, include_invalid=include_invalid, limit=limit,
                                            replayer=rp, counters=counters))
            except QueryError as exc:
                _fail(exc)
            if as_json:
                _echo_json({"variant": slug, "material": material, "terms": [str(t) for t in spec.terms],
                            "count": len(hits), "replayed_games": counters["games"],
                            "replayed_plies": counters["plies"], "games": [h.as_dict() for h in hits]})
                return
            click.echo(f"Material ({slug}): {spec.describe()}")
            if not hits:
                click.echo(f"No game matches ({counters['games']} games replayed).")
                return
            more = " (--limit reached)" if limit is not None and len(hits) >= limit else ""
            click.echo(f"{len(hits)} game{'s' * (len(hits) != 1)} match{'es' * (len(hits) == 1)}{more}; "
                       f"the first ply where the material matches:")
            _table(("ID", "PLY", "SENTE", "GOTE", "RESULT", "DATE", "PLIES", "STATUS"),
                   [(h.game_id, h.ply, h.sente, h.gote, h.result, h.date, h.ply_count, h.status) for h in hits])
            return
        t = _target(archive, rp, position, variant, game_id, ply)
        counters = {}
        hits = list(search_position(archive, t, include_invalid=include_invalid, limit=limit, replayer=rp,
                                    counters=counters))
    if as_json:
        _echo_json({"query": t.as_dict(), "count": len(hits), "candidates": counters["candidates"],
                    "rejected": counters["rejected"], "games": [h.as_dict() for h in hits]})
        return
    click.echo(_where(t))
    if not hits:
        click.echo("No game reaches it.")
        return
    more = " (--limit reached)" if limit is not None and len(hits) >= limit else ""
    rejected = f"; {counters['rejected']} hash match{'es' * (counters['rejected'] != 1)} rejected by replay" \
        if counters["rejected"] else ""
    click.echo(f"{len(hits)} game{'s' * (len(hits) != 1)} reach{'es' * (len(hits) == 1)} it{more}{rejected}:")
    _table(("ID", "PLY", "SENTE", "GOTE", "RESULT", "DATE", "VARIANT", "STATUS"),
           [(h.game_id, ", ".join(map(str, h.plies)), h.sente, h.gote, h.result, h.date, h.variant, h.status)
            for h in hits])


# --- explore --------------------------------------------------------------------------------------


@click.command("explore", context_settings=CONTEXT)
@db_option
@_position_options
@include_invalid_option
@click.option("--confirm-all", is_flag=True,
              help=f"Replay every game that reaches the position after ply 0 to confirm it (default: all of "
                   f"them up to {EXPLORER_SAMPLE} games, else a random sample of {EXPLORER_SAMPLE}).")
@click.option("--style", type=click.Choice(("algebraic", "japanese", "western", "shogi"), case_sensitive=False),
              help="How the moves are written: algebraic (LSN), japanese (▲７六歩) or western (P-7f); default: "
                   "the variant's own style.  The JSON keeps \"move\" in LSN and adds \"text\".")
@json_option
@click.pass_context
def explore_command(ctx, db_path, position, game_id, ply, variant, include_invalid, confirm_all, style, as_json):
    """The moves played from a position, like an opening explorer: for each move the games that
    played it, how they ended (Sente wins, Gote wins, draws, unfinished), their average length
    and the last date; the most played first.  Without a position: the variant's start position.

    Games at the start position (ply 0) are confirmed exactly without replaying them; games that
    reach the position later are confirmed by replaying them (all of them, or a random sample
    when there are many: see --confirm-all).  A game counts once per move it played from the
    position.  "(end)" counts the games that ended in the position.

    \b
    Examples:
      daikifu explore -v shogi
      daikifu explore --game 12 --ply 6
      daikifu explore -v chu-shogi --style western
      daikifu explore -v shogi -p "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2" --json
    """
    from .queries import QueryError, Replayer, explore
    archive = _open(ctx, db_path)
    with archive:
        rp = Replayer(archive)
        if position is None and game_id is None:
            if not variant:
                raise click.UsageError("give --variant (for its start position), --position STR --variant NAME, "
                                       "or --game ID --ply N")
            try:
                start = rp.board(rp.variant(variant).slug).position()
            except QueryError as exc:
                _fail(exc, "--variant")
            position = start
        t = _target(archive, rp, position, variant, game_id, ply)
        try:
            result = explore(archive, t, sample=None if confirm_all else EXPLORER_SAMPLE,
                             include_invalid=include_invalid, replayer=rp)
        except QueryError as exc:
            _fail(exc)
    texts = _styled(t, result.moves, style)
    if as_json:
        data = result.as_dict()
        data["seconds"] = round(result.seconds, 4)
        for entry, m in zip(data.get("moves", []), result.moves):
            entry["text"] = texts[m.uci]
        _echo_json(data)
        return
    click.echo(_where(t))
    if not result.games:
        click.echo("No game reaches it.")
        return
    how = "every game confirmed" if result.confirmed == "all" else \
        f"a random sample of {result.checked} confirmed by replay (--confirm-all for every one)"
    click.echo(f"{result.games} game{'s' * (result.games != 1)}; {how}")
    rows = [(texts[m.uci], m.games, m.sente_wins, m.gote_wins, m.draws, m.unfinished, m.avg_plies, m.last_date)
            for m in result.moves]
    e = result.ended
    if e.games:
        rows.append(("(end)", e.games, e.sente_wins, e.gote_wins, e.draws, e.unfinished, e.avg_plies, e.last_date))
    _table(("MOVE", "GAMES", "SENTE", "GOTE", "DRAWS", "UNFINISHED", "AVG PLIES", "LAST DATE"), rows)


def _styled(t, moves, style) -> dict:
    """uci -> the explorer's move in the style asked for (default: the variant's own); the stored
    LSN where a move does not replay on the position."""
    from daikifu.formats.styles import move_style, move_text
    from daikifu.replay import Board
    chosen = move_style(t.board.variant, style)
    out = {}
    for m in moves:
        out[m.uci] = m.move
        if chosen != "algebraic":
            board = Board(t.board.rules, t.position)
            try:
                out[m.uci] = move_text(board, board.parse_uci(m.uci), chosen)
            except (ValueError, KeyError):
                pass  # (kept as stored)
    return out


# --- stats ----------------------------------------------------------------------------------------


@click.command("stats", context_settings=CONTEXT)
@db_option
@click.option("--variant", "-v", metavar="NAME", help="Only this variant.")
@click.option("--player", "-p", metavar="NAME",
              help="Only the games NAME played (case-insensitive; * is a wildcard), and only NAME's record "
                   "(ratings still come from every game).")
@click.option("--include-invalid", is_flag=True, help="Count the invalid games too (up to their first error).")
@click.option("--no-replay", is_flag=True,
              help="Leave out promotions and captures (they replay every game; first moves do not need it).")
@click.option("--bucket", type=click.IntRange(1), metavar="N", help="Width of the game-length histogram's buckets.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@click.option("--csv", "as_csv", is_flag=True,
              help="Print CSV: one fact a row (variant, section, key, field, value).")
@click.pass_context
def stats_command(ctx, db_path, variant, player, include_invalid, no_replay, bucket, as_json, as_csv):
    """Statistics per variant and per player.

    Per variant: games, results (Sente wins, Gote wins, draws, unfinished, with their shares of
    the games), game length (min, quartiles, max and a histogram), terminations, the most played
    first moves, and promotions and captures by piece type (from replaying every game).

    Per player and variant: wins, losses, draws and unfinished games as Sente and as Gote, and an
    Elo rating (K=20, start 1500; each variant rated separately; finished games in date order,
    then id order).  Invalid games are left out unless --include-invalid.

    \b
    Examples:
      daikifu stats
      daikifu stats --variant shogi --player Taro
      daikifu stats --csv > stats.csv
    """
    from .stats import ELO_K, ELO_START, archive_stats, stats_csv
    if as_json and as_csv:
        raise click.UsageError("give --json or --csv, not both")
    archive = _open(ctx, db_path)
    with archive:
        report = archive_stats(archive, variant=_slug(ctx, variant), player=player, include_invalid=include_invalid,
                               replay=not no_replay, bucket=bucket)
    for w in report["warnings"]:
        click.echo(f"warning: {w}", err=True)
    if as_json:
        _echo_json(report)
        return
    if as_csv:
        click.echo(stats_csv(report), nl=False)
        return
    echo = click.echo
    if not report["variants"]:
        echo("No games match.")
        return
    for v in report["variants"]:
        r, ln = v["results"], v["length"]
        sh = r["shares"]
        echo(f"{v['variant']}: {v['games']} game{'s' * (v['games'] != 1)}, {v['plies']:,} plies")
        echo(f"  results:      Sente wins {r['sente_wins']} ({sh['sente_wins']:.1%}), Gote wins {r['gote_wins']} "
             f"({sh['gote_wins']:.1%}), draws {r['draws']} ({sh['draws']:.1%}), unfinished {r['unfinished']} "
             f"({sh['unfinished']:.1%})")
        echo(f"  length:       min {ln['min']}, p25 {ln['p25']}, median {ln['median']}, p75 {ln['p75']}, "
             f"max {ln['max']}, mean {ln['mean']}")
        top = max(b["games"] for b in ln["histogram"]) or 1
        for b in ln["histogram"]:
            label = f"{b['from']}-{b['to']}" if b["to"] != b["from"] else f"{b['from']}"
            echo(f"    {label:>11} {b['games']:>6} {'#' * round(30 * b['games'] / top)}".rstrip())
        echo("  terminations: " + ", ".join(f"{k} {n}" for k, n in v["terminations"].items()))
        echo("  first moves:  " + (", ".join(f"{m['move']} {m['games']}" for m in v["first_moves"]) or "-"))
        if "promotions" in v:
            echo("  promotions:   " + (", ".join(f"{k} {n}" for k, n in v["promotions"].items()) or "-"))
            echo("  captures:     " + (", ".join(f"{k} {n}" for k, n in v["captures"].items()) or "-"))
        players = [p for p in report["players"] if p["variant"] == v["variant"]]
        if players:
            echo(f"  players (Elo K={ELO_K}, start {ELO_START:g}; games in date order, then id order):")
            rows = [(p["player"], "-" if p["rating"] is None else f"{p['rating']:.1f}", p["games"],
                     "{wins}-{losses}-{draws}".format(**p["sente"]), "{wins}-{losses}-{draws}".format(**p["gote"]),
                     p["unfinished"]) for p in players]
            _table(("    PLAYER", "RATING", "GAMES", "AS SENTE W-L-D", "AS GOTE W-L-D", "UNFINISHED"),
                   [("    " + r[0], *r[1:]) for r in rows])
        echo("")
