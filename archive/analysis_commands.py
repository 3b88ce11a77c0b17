"""The ``analyse`` command: engine analysis of archived games or of one position (see
docs/engine.md).  A thin wrapper over :mod:`daikifu.archive.analysis`."""

from __future__ import annotations

import fnmatch
import sys

import click

from daikifu.clikit import CONTEXT, VARIANT, echo_json, fail, json_option, registry

from .commands import db_option, variant_slug

__all__ = ["analyse_command"]


@click.command("analyse", context_settings=CONTEXT)
@click.argument("ids", nargs=-1, type=click.IntRange(1), metavar="[GAME_ID]...")
@db_option
@click.option("--variant", metavar="NAME", help="Every game of this variant (slug, name or alias).")
@click.option("--player", metavar="NAME", help="Every game NAME played (case-insensitive; * is a wildcard).")
@click.option("--event", metavar="TEXT", help="Every game whose event matches TEXT (case-insensitive; * is a wildcard).")
@click.option("--position", metavar="TEXT",
              help="Analyse this one position (a position string; with --position-variant) instead of games.")
@click.option("--position-variant", type=VARIANT, default=None, help="The variant of --position (default: chu-shogi).")
@click.option("--depth", type=click.IntRange(1, 30), help="Search each position this many plies deep (default 4).")
@click.option("--movetime", type=click.IntRange(10, 600_000), metavar="MS",
              help="Search each position this many milliseconds instead of to a depth.")
@click.option("--jobs", "-j", type=click.IntRange(1, 16), default=1, show_default=True,
              help="Engine processes run at once (one per worker).")
@click.option("--engine", "engine_path", metavar="PATH",
              help="The XBoard engine to run (default: per variant, $DAIKIFU_ENGINE_TENJIKU and the like, else "
                   "$DAIKIFU_ENGINE, else hachu (crazywa for shogi) on PATH or in /usr/games: docs/engine.md).")
@json_option
@click.pass_context
def analyse_command(ctx, ids, db_path, variant, player, event, position, position_variant, depth, movetime, jobs,
                    engine_path, as_json):
    """Analyse archived games (or a position) with an engine (HaChu) and store the scores, best
    moves and lines in the archive.

    Every position of each selected game's main line is searched to --depth plies (or for
    --movetime milliseconds).  Every move of the engine's line is replayed by daikifu's rules:
    the line is cut at the first move they find illegal, and the cuts are counted.  Positions
    already analysed at the same setting are skipped, so an interrupted run finishes when it is
    run again, and a second run does nothing new.  The engine process is restarted when it
    crashes or hangs.  Export the scores with `daikifu export --evals`; the viewer shows them
    on each game's page.

    \b
    Examples:
      daikifu analyse 12 --depth 6
      daikifu analyse --variant chu-shogi --depth 4 --jobs 2
      daikifu analyse --player Taro --movetime 500 --json
      daikifu analyse --position "<position string>" --position-variant chu-shogi --json
    """
    from daikifu.replay import Board, PositionError
    from daikifu.replay.engine import EngineError

    from .analysis import AnalysisRun, Job, analyse_positions, eval_comment, jobs_of_games, stored_analysis
    from .store import Archive, ArchiveError

    if depth is None and movetime is None:
        depth = 4
    if depth is not None and movetime is not None:
        raise click.UsageError("give --depth or --movetime, not both")
    limits = {"depth": depth, "movetime": movetime / 1000 if movetime else None}
    try:
        archive = Archive(db_path, create=position is not None, variants=registry(ctx))
    except ArchiveError as exc:
        raise fail(str(exc)) from None
    with archive:
        if position is not None:
            try:
                board = Board(registry(ctx).load(position_variant.slug if position_variant else "chu-shogi"),
                              position)
            except (PositionError, ValueError) as exc:
                raise fail(f"--position: {exc}") from None
            try:
                run = analyse_positions(archive.conn, [Job(board.zobrist, board, "", "the position")],
                                        workers=1, engine_path=engine_path, **limits)
            except EngineError as exc:
                raise fail(exc.message) from None
            row = stored_analysis(archive.conn, [board.zobrist]).get(board.zobrist)
            data = {"position": board.position(), "run": run.as_dict(), "analysis": row}
            if as_json:
                echo_json(data)
            elif row:
                click.echo(f"{eval_comment(row)} {_source(row)}: {' '.join(row['pv'])}"
                           + (f"  (cut {row['cut']}: {row['cut_reason']})" if row["cut"] else ""))
            _report_failures(run)
            return
        slug = variant_slug(ctx, variant)
        try:
            rows = list(archive.games(variant=slug, player=player, ids=ids or None))
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
        if event:
            pattern = event.lower() if any(c in event for c in "*?[") else f"*{event.lower()}*"
            rows = [r for r in rows if fnmatch.fnmatchcase((r.get("event") or "").lower(), pattern)]
        missing = set(ids) - {r["id"] for r in rows}
        if missing:
            raise fail(f"no valid game with id {', '.join(map(str, sorted(missing)))} in {archive.path}")
        if not rows:
            raise fail("no game matches: nothing to analyse")
        game_ids = [r["id"] for r in rows]
        jobs_ = jobs_of_games(archive, game_ids)
        show = not as_json and sys.stderr.isatty()
        try:
            with click.progressbar(length=len(jobs_), label="analysing", file=sys.stderr,
                                   show_pos=True) if show else _NoBar() as bar:
                run = analyse_positions(archive.conn, jobs_, workers=jobs, engine_path=engine_path,
                                        progress=bar.update, run=AnalysisRun(games=len(game_ids)), **limits)
        except EngineError as exc:
            raise fail(exc.message) from None
    data = run.as_dict()
    data.update({"depth": depth, "movetime": movetime})
    if as_json:
        echo_json(data)
        return
    click.echo(f"{run.games} game{'s' * (run.games != 1)}: {run.analysed} position{'s' * (run.analysed != 1)} "
               f"analysed, {run.skipped} already stored; {run.cut_lines} line{'s' * (run.cut_lines != 1)} cut "
               f"({run.cut_moves} engine move{'s' * (run.cut_moves != 1)} refused by the rules); "
               f"{run.restarts} engine restart{'s' * (run.restarts != 1)}")
    for source, n in sorted(run.imported.items()):
        click.echo(f"  {n} position{'s' * (n != 1)} also {'have' if n != 1 else 'has'} {source}'s analysis, "
                   f"imported with {'their' if n != 1 else 'its'} game: kept beside this engine's, not replaced")
    if run.refused:
        click.echo(f"  {run.refused} position{'s' * (run.refused != 1)} where daikifu refused the engine's first "
                   "move: the engine misread the position (HaChu's setboard, see docs/engine.md); their scores "
                   "are stored but not shown", err=True)
    _report_failures(run)


def _source(row: dict) -> str:
    """Where a stored analysis comes from, as shown: ``HaChu 0.21 depth 6``, ``lishogi``."""
    name = f"{row['engine']} {row['version']}".strip()
    return f"{name} depth {row['reached']}" if row["reached"] else name


def _report_failures(run) -> None:
    for f in run.failures[:20]:
        click.echo(f"  {f['where']}: {f['message']} ({f['code']})", err=True)
    if run.failures:
        raise SystemExit(1)


class _NoBar:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def update(self, n: int) -> None:
        pass
