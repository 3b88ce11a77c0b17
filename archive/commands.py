"""The archive's commands: ``import``, ``games``, ``show``, ``export`` and ``upgrade`` (see
docs/archive.md); the query commands are in :mod:`daikifu.archive.query_commands`.  The root
group, :mod:`daikifu.cli`, loads them on demand.

Every command takes ``--db PATH`` (default: ``$DAIKIFU_DB``, else ``daikifu.db`` in the current
directory) and ``--json``; problems are one-line click errors.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import click

from daikifu.clikit import (CONTEXT, EXIT_INPUT, EXIT_INTERRUPTED, VARIANT, InputError, batch_collection, echo_json as _echo_json, fail, fit as _fit, json_option,
                            registry, text_width as _width)

# the store, the readers and the rules core are imported where they are used: a command's --help
# loads none of them
from daikifu.formats.commands import limit_option, output_options, setup_option, target_option, write_games
from daikifu.formats.reading import FORMATS as RECORD_FORMATS

from .schema import DEFAULT_DB, ENV_DB, STATUSES

if TYPE_CHECKING:
    from .store import Archive

__all__ = ["import_command", "games_command", "show_command", "export_command", "upgrade_command", "db_option",
           "error_text"]

# --- shared pieces --------------------------------------------------------------------------------

db_option = click.option(
    "--db", "db_path", metavar="PATH", envvar=ENV_DB, default=DEFAULT_DB, show_default=True,
    help=f"The archive database (also from the {ENV_DB} environment variable).")


def _open(ctx: click.Context, path: str, create: bool = False, timeout: float = 30.0) -> Archive:
    """The archive at ``path``, its games' variants looked up in the command line's registry;
    ``timeout``: the seconds SQLite waits for another writer while opening (a new archive's
    tables are made then)."""
    from .store import Archive, ArchiveError
    try:
        return Archive(path, create=create, variants=registry(ctx), timeout=timeout)
    except ArchiveError as exc:
        raise fail(str(exc)) from None


def error_text(e: dict) -> str:
    """An error held as a dict (an import summary's) as one line: ``file:line:column, game N, ply
    N, move 'X': message (expected ...); did you mean ...?``"""
    from daikifu.formats.game import GameError
    return str(GameError.from_dict(e))


def variant_slug(ctx, value):
    from daikifu.replay import UnknownVariantError, VariantError
    if not value:
        return None
    try:
        return registry(ctx).load(value).slug
    except UnknownVariantError:
        return value  # games of a variant that is not installed here can still be listed
    except VariantError as exc:
        raise fail(str(exc)) from None


def _filter_options(f):
    """The game filters shared by ``games`` and ``export``."""
    options = [
        click.option("--variant", metavar="NAME", help="Only this variant (slug, name or alias)."),
        click.option("--player", metavar="NAME",
                     help="Only games where NAME played either side (case-insensitive; * is a wildcard)."),
        click.option("--sente", metavar="NAME", help="Only games where NAME was Sente (the first player)."),
        click.option("--gote", metavar="NAME", help="Only games where NAME was Gote (the second player)."),
        click.option("--result", metavar="RESULT",
                     help="Only this result: 1-0, 0-1, 1/2-1/2, * (or sente, gote, draw, unfinished)."),
        click.option("--status", type=click.Choice(STATUSES + ("all",)),
                     help="Only games with this status; default: every game but the invalid ones."),
        click.option("--since", metavar="DATE", help="Only games played on or after DATE (2024, 2024-05 or 2024-05-17)."),
        click.option("--until", metavar="DATE", help="Only games played on or before DATE."),
        click.option("--search", metavar="TEXT",
                     help="Full-text search in event, site, player names and comments (SQLite FTS5 syntax "
                          "allowed: \"exact phrase\", prefix*, OR, NOT)."),
        click.option("--limit", "-n", type=click.IntRange(0), metavar="N", help="At most N games."),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def _filters(ctx, variant, player, sente, gote, result, status, since, until, search) -> dict:
    return {"variant": variant_slug(ctx, variant), "player": player, "sente": sente, "gote": gote,
            "result": result, "status": status, "since": since, "until": until, "search": search}


def _query(archive: Archive, filters: dict, limit=None):
    try:
        return list(archive.games(**filters, limit=limit))
    except ValueError as exc:
        raise click.UsageError(str(exc)) from None


# --- import ---------------------------------------------------------------------------------------


@click.command("import", context_settings=CONTEXT)
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, allow_dash=True))
@db_option
@click.option("--jobs", "-j", type=click.IntRange(1, 64), default=1, show_default=True,
              help="Read and validate games in this many processes (the database has one writer).")
@click.option("--lenient", is_flag=True,
              help="Keep the moves before a bad one (status 'truncated') instead of storing the game as invalid.")
@click.option("--skip-invalid", is_flag=True, help="Do not store invalid games (they are still reported).")
@click.option("--format", "fmt", type=click.Choice(("auto", *RECORD_FORMATS)), default="auto", show_default=True,
              help="Format of every file; auto recognises each file's format by content.")
@click.option("--variant", type=VARIANT, default=None,
              help="The variant of records that do not name one (default: shogi for KIF, KI2, CSA, JKF and USI).")
@click.option("--wait", type=click.FloatRange(0), default=300, show_default=True, metavar="SECONDS",
              help="While another program writes to the archive, wait this long for it (saying so on "
                   "stderr), then give up: the games stored before are kept, the files not stored named.")
@limit_option
@setup_option
@json_option
@click.pass_context
def import_command(ctx, files, db_path, jobs, lenient, skip_invalid, fmt, variant, wait, limits, setup, as_json):
    """Import the games of FILES (LSN, KIF, KI2, CSA, JKF, USI ..., in any mix) into the archive.

    Formats are recognised by content, not by file name (every format `daikifu validate` reads);
    a directory is read recursively (files that hold no game record are skipped; a file named on
    the command line that is none, or is empty, is reported and the import goes on) and '-' reads
    standard input.  While another program writes to the archive the import waits (--wait).  The text of every game is stored exactly as read.  Every move is checked
    against the rules.  A game already in the archive (the same variant, rule set, start position
    and main line) is a duplicate and is not stored again, so importing a file twice adds nothing,
    and an interrupted import finishes when it is run again.  A game whose main line is a prefix
    of a stored game's (or the other way round) is stored and reported as a prefix duplicate.
    Invalid games are stored with status 'invalid' and their first error (see `daikifu games
    --status invalid`), unless --skip-invalid.

    \b
    Examples:
      daikifu import games.lsn
      daikifu import records/ extra.kif --jobs 4
      daikifu import --db club.db --lenient --json games.lsn
      cat games.lsn | daikifu import -
    """
    from .store import ArchiveError
    from daikifu.formats.limits import ReadLimits

    from .importer import ImportBusy, ImportInterrupted, import_paths

    batch_collection()  # (the importer collects reference cycles every few seconds)
    archive = _open(ctx, db_path, create=True, timeout=wait)
    bar = None
    show_bar = not as_json and sys.stderr.isatty()
    state = {"shown": 0, "told": float("inf")}

    def progress(done, total):
        nonlocal bar
        if not show_bar or not total:
            return
        if bar is None:
            bar = click.progressbar(length=total, label="importing", file=sys.stderr, show_eta=True)
            bar.__enter__()
        bar.update(done - state["shown"])
        state["shown"] = done

    def busy(waited):
        # said when a wait begins (the seconds start again), then every ten seconds
        if state["told"] <= waited < state["told"] + 10:
            return
        state["told"] = waited
        click.echo(f"archive busy (another program is writing to {db_path}), waiting... "
                   f"{waited:.0f} s of {wait:g}", err=True)

    code = 0
    try:
        try:
            summary = import_paths(archive, list(files), jobs=jobs, lenient=lenient,
                                   skip_invalid=skip_invalid, progress=progress,
                                   fmt=None if fmt == "auto" else fmt,
                                   variant=variant.slug if variant is not None else None,
                                   variants=registry(ctx), limits=ReadLimits.from_pairs(limits), setup=setup,
                                   wait=wait, on_busy=busy)
        except ImportBusy as exc:
            stored = exc.summary.stored
            named = ", ".join(exc.unstored[:10]) + (f" and {len(exc.unstored) - 10} more" if len(exc.unstored) > 10 else "")
            raise fail(f"{db_path}: another program kept writing to the archive for {exc.waited:.0f} s (--wait): "
                       f"gave up; not stored: {named or 'nothing'}"
                       + (f" ({stored} games stored before are kept; run the same command again to finish)"
                          if stored else "")) from None
        except ImportInterrupted as exc:
            summary = exc.summary
            code = EXIT_INTERRUPTED
        except FileNotFoundError as exc:
            raise InputError(str(exc)) from None
        except (ArchiveError, OSError) as exc:
            raise fail(str(exc)) from None
    finally:
        if bar is not None:
            bar.__exit__(None, None, None)
        archive.close()
    if any(f.error for f in summary.files) and not code:
        code = EXIT_INPUT  # a file named that is no record or could not be read: reported, the others imported
    if as_json:
        data = summary.as_dict()
        data["db"] = db_path
        _echo_json(data)
    else:
        _print_summary(summary, db_path, skip_invalid)
    ctx.exit(code)


def _print_summary(s, db_path: str, skip_invalid: bool) -> None:
    echo = click.echo
    nfiles = len(s.files)
    rate = f", {s.plies_per_second:,.0f} plies/s" if s.seconds > 0 and s.plies else ""
    head = "Interrupted" if s.interrupted else "Done"
    echo(f"{head}: {s.games} games ({s.plies:,} plies) read from {nfiles} file{'s' * (nfiles != 1)} "
         f"in {s.seconds:.1f} s{rate}")
    # every game read is stored (new, prefix duplicate, invalid) or a duplicate: the lines add up
    invalid_kept = 0 if skip_invalid else s.invalid
    echo(f"  stored:            {s.stored} = {s.imported} new + {s.prefixes} prefix duplicates + "
         f"{invalid_kept} invalid")
    echo(f"  new:               {s.imported}")
    echo(f"  prefix duplicates: {s.prefixes} (stored: the main line is a prefix of a stored game's, or v.v.)")
    stored = "not stored (--skip-invalid)" if skip_invalid else "stored with status 'invalid'"
    echo(f"  invalid:           {s.invalid}" + (f" ({stored})" if s.invalid else ""))
    echo(f"  duplicates:        {s.duplicates} (already in {db_path}: not stored again)")
    errors = s.errors
    for e in errors[:20]:
        echo(f"    {error_text(e)}")
    if len(errors) > 20 or s.invalid > len(errors):
        echo(f"    ... and {s.invalid - min(20, len(errors))} more (daikifu games --status invalid)")
    for f in s.files:
        if f.error:
            echo(f"  error: {f.file}: {f.error}")
        for w in f.warnings:
            echo(f"  warning: {f.file}: {w}")
    if s.skipped:
        echo(f"  skipped: {len(s.skipped)} file{'s' * (len(s.skipped) != 1)} holding no game record"
             + (f" ({', '.join(s.skipped[:3])}{' ...' if len(s.skipped) > 3 else ''})"))
    if s.interrupted:
        echo("The games read so far are stored; run the same command again to finish the import.")


# --- games ----------------------------------------------------------------------------------------


_LIST_FIELDS = ("id", "variant", "date", "sente", "gote", "result", "ply_count", "status", "event")


@click.command("games", context_settings=CONTEXT)
@db_option
@_filter_options
@json_option
@click.pass_context
def games_command(ctx, db_path, variant, player, sente, gote, result, status, since, until, search, limit,
                  as_json):
    """List the games in the archive (by id), filtered.

    Invalid games are left out unless --status invalid or --status all.

    \b
    Examples:
      daikifu games
      daikifu games --player Taro --result 1-0 --since 2024
      daikifu games --variant dai-kagamigi --search "opening trap" --limit 20
      daikifu games --status invalid --json
    """
    archive = _open(ctx, db_path)
    with archive:
        rows = _query(archive, _filters(ctx, variant, player, sente, gote, result, status, since, until,
                                        search), limit)
    if as_json:
        for r in rows:
            r.pop("source", None)
        _echo_json(rows)
        return
    if not rows:
        click.echo("No games match.")
        return
    header = ("ID", "VARIANT", "DATE", "SENTE", "GOTE", "RESULT", "PLIES", "STATUS", "EVENT")
    table = [tuple("" if r.get(k) is None else str(r[k]) for k in _LIST_FIELDS) for r in rows]
    widths = [min(24, max(_width(row[i]) for row in table + [header])) for i in range(len(header))]
    for row in [header] + table:
        click.echo("  ".join(_fit(c, w) for c, w in zip(row, widths)).rstrip())
    invalid = [r for r in rows if r["status"] == "invalid" and r.get("error")]
    for r in invalid[:20]:
        click.echo(f"  game {r['id']}: {error_text(r['error'])}")




# --- show -----------------------------------------------------------------------------------------


def resolve_game(archive: Archive, ref: str) -> int:
    """The id of the game ``ref`` names: an id, or the start of one game's digest (BadParameter
    otherwise)."""
    ref = ref.strip()
    if ref.isdigit():
        return int(ref)
    if len(ref) >= 6 and all(c in "0123456789abcdef" for c in ref.lower()):
        rows = archive.conn.execute("SELECT id FROM games WHERE digest LIKE ? LIMIT 2", (ref.lower() + "%",)).fetchall()
        if len(rows) == 1:
            return rows[0][0]
        if len(rows) > 1:
            raise click.BadParameter(f"{ref!r} is the start of more than one digest", param_hint="'GAME'")
    raise click.BadParameter(f"{ref!r} is neither a game id nor the start of a digest", param_hint="'GAME'")


#: A game longer than this: ``show --ply N`` reads and lists its moves up to ply N only.
LONG_GAME = 2000


@click.command("show", context_settings=CONTEXT)
@click.argument("game_ref", metavar="GAME")
@click.option("--ply", type=click.IntRange(0), metavar="N",
              help="Show the position after N plies (default: the end of the main line).")
@click.option("--style", type=click.Choice(("algebraic", "japanese", "western", "shogi"), case_sensitive=False),
              help="How moves are written: algebraic (LSN), japanese (▲７六歩) or western (P-7f); shogi means "
                   "japanese.  Default: the variant's own style (shogi for shogi and Chu Shogi).")
@db_option
@json_option
@click.pass_context
def show_command(ctx, game_ref, ply, style, db_path, as_json):
    """Show one game: tags, moves, and a diagram of the position after --ply N plies.

    GAME is a game id (see `daikifu games`) or the start of a game's digest.  For an invalid game
    the moves up to its first error are shown, with the error.  For a game of more than 2000
    plies, --ply N reads and lists the moves up to ply N only (the rest would take seconds).

    \b
    Examples:
      daikifu show 12
      daikifu show 12 --ply 30
      daikifu show 12 --style western
      daikifu show 3f9a2c --json
    """
    from .store import ArchiveError
    from daikifu.replay import VariantError
    from daikifu.formats.jsonexport import move_dict
    from daikifu.formats.styles import diagram, move_style, move_text, restyle_message

    archive = _open(ctx, db_path)
    with archive:
        game_id = resolve_game(archive, game_ref)
        row = archive.game(game_id)
        if row is None:
            raise fail(f"no game {game_id} in {db_path}")
        unreadable = None
        total = row["ply_count"] or 0
        partial = ply is not None and total > LONG_GAME and ply < total
        if ply is not None and ply > total:
            raise click.BadParameter(f"game {game_id} has {total} plies", param_hint="'--ply'")
        try:
            game = archive.load_game(game_id, ply if partial else None)
        except (VariantError, ValueError, ArchiveError) as exc:
            if row["status"] != "invalid":
                raise fail(f"game {game_id}: cannot read its text again: {exc}") from None
            game, unreadable = None, str(exc)  # an invalid game that cannot be read at all
    nodes = list(game.mainline()) if game is not None else []
    stop = len(nodes) if ply is None else ply
    if stop > len(nodes):
        raise click.BadParameter(f"game {game_id} has {len(nodes)} plies", param_hint="'--ply'")
    board = game.start_board() if game is not None else None
    shown_style = move_style(game.variant if game is not None else None, style)
    shown = (board.position(), board.zobrist, diagram(board, shown_style)) if board is not None else (None, None, None)
    moves = []
    for n, node in enumerate(nodes, start=1):
        entry = move_dict(board, node.move)
        entry["text"] = move_text(board, node.move, shown_style)
        entry["ply"] = n
        entry["comment"] = node.comment
        entry["nags"] = list(node.nags)
        # the evaluation the record carried (lishogi's [%eval], an NDJSON analysis), with its label
        entry["eval"] = {**node.eval.as_dict(), "label": node.eval.label} if node.eval is not None else None
        moves.append(entry)
        board.push(node.move)
        if n == stop:
            shown = (board.position(), board.zobrist, diagram(board, shown_style))
    row.pop("source", None)
    if as_json:
        data = dict(row)
        data["moves"] = moves
        data["ply"] = stop
        data["style"] = shown_style
        data["moves_complete"] = not partial
        data["position"], data["hash"], data["diagram"] = shown
        _echo_json(data)
        return
    echo = click.echo
    echo(f"Game {row['id']}: {row['variant']}" + (f" ({row['ruleset']})" if row["ruleset"] else "")
         + f", {row['status']}, {row['ply_count']} plies, result {row['result']}")
    tags = [("Event", row["event"]), ("Site", row["site"]), ("Date", row["date"]), ("Round", row["round"]),
            ("Sente", row["sente"]), ("Gote", row["gote"]), ("Termination", row["termination"])]
    tags += [tuple(t) for t in row["tags"]]
    for name, value in tags:
        if value is not None:
            echo(f"  {name}: {value}")
    if row["file"]:
        echo(f"  imported from {row['file']}" + (f", line {row['source_line']}" if row["source_line"] else ""))
    if row["prefix_of"]:
        echo(f"  its main line is a prefix of game {row['prefix_of']}")
    if row["extends"]:
        echo(f"  it continues game {row['extends']} (whose main line is a prefix of this one)")
    if row.get("error"):
        error = dict(row["error"])
        if board is not None and stop == len(nodes):  # the board is where the failing move was tried
            error["message"] = restyle_message(error.get("message") or "", board, shown_style)
            if error.get("suggestions"):  # (moves in LSN, as the message's "did you mean" writes them)
                said = restyle_message("did you mean " + ", ".join(error["suggestions"]), board, shown_style)
                error["suggestions"] = said[len("did you mean "):].split(", ")
        echo(f"  error: {error_text(error)}")
    for w in row["warnings"]:
        echo(f"  warning: {error_text(w)}")
    echo("")
    if moves:
        width = max(len(m["text"]) for m in moves) + 2
        for i in range(0, len(moves), 2):
            pair = moves[i:i + 2]
            echo(f"{i // 2 + 1:>4}. " + "".join(m["text"].ljust(width) for m in pair).rstrip())
        for m in moves:
            label = (m["eval"] or {}).get("label")
            if m["comment"] or label:
                echo(f"  {m['ply']}. {m['text']}: " + " ".join(
                    t for t in (f"[eval {label}]" if label else "", m["comment"]) if t))
        if partial:
            echo(f"  ... {total - stop} more plies (daikifu show {game_id} lists them all)")
    else:
        echo("(no moves)")
    if board is None:
        echo(f"  (its text cannot be read as a game: {unreadable})")
        return
    echo("")
    echo(f"Position after {stop} plies:")
    echo(shown[2])
    echo(f"position: {shown[0]}")


# --- export ---------------------------------------------------------------------------------------


@click.command("export", context_settings=CONTEXT)
@db_option
@_filter_options
@target_option("--format", default="lsn")
@output_options("the game's id")
@click.option("--json", "as_json", is_flag=True, help="The same as --format json.")
@click.option("--evals", is_flag=True,
              help="Put the stored engine scores (daikifu analyse) in each move's comment as [%eval 0.52] "
                   "(in Pawns from Sente's side; a mate [%eval mate3]), as lishogi's exports do.  A move whose "
                   "record carried its own [%eval] (lishogi's analysis) keeps it, with or without --evals.")
@click.pass_context
def export_command(ctx, db_path, variant, player, sente, gote, result, status, since, until, search, limit,
                   target, output, encoding, as_json, evals):
    """Write the games that match the filters in any format convert writes (LSN, KIF, KI2, CSA,
    JKF, USI or JSON), through the same writers.

    LSN is daikifu's canonical LSN (importing it again gives the same games: the same digests);
    JSON is one list with an object per game (moves with positions and hashes).  Invalid games
    (with --status invalid or all) are written up to their first error.  The games are read from
    the archive one at a time, whatever their number; a game is named by its id.

    \b
    Examples:
      daikifu export -o all.lsn
      daikifu export --player Taro --format json -o taro.json
      daikifu export --variant shogi --format kif -o "game-{n}.kif"
      daikifu export --variant shogi --format csa --encoding cp932 -o games.csa
    """
    from .store import ArchiveError
    from daikifu.replay import VariantError

    if as_json:
        target = "json"
    archive = _open(ctx, db_path)
    with archive:
        filters = _filters(ctx, variant, player, sente, gote, result, status, since, until, search)
        try:
            matching = archive.count(**filters)
        except ValueError as exc:
            raise click.UsageError(str(exc)) from None
        if limit is not None:
            matching = min(matching, limit)

        def games():  # streamed: any number of games
            for row in archive.games(**filters, limit=limit):
                try:
                    game = archive.load_game(row["id"])
                except (VariantError, ValueError, ArchiveError) as exc:
                    if row["status"] != "invalid":
                        raise fail(f"game {row['id']}: cannot read its text again: {exc}") from None
                    click.echo(f"warning: game {row['id']} (invalid) left out: its text cannot be read as a "
                               f"game: {exc}", err=True)
                    continue
                if evals:
                    from .analysis import add_eval_comments
                    add_eval_comments(archive.conn, game)
                yield row["id"], game

        count = write_games(games(), target, output, encoding, matching, "the selection")
    if output != "-":
        click.echo(f"wrote {count} game{'s' * (count != 1)} to {output}", err=True)


# --- upgrade --------------------------------------------------------------------------------------


@click.command("upgrade", context_settings=CONTEXT)
@db_option
@json_option
def upgrade_command(db_path, as_json):
    """Bring the archive's schema up to this daikifu's version.

    Migrations only add tables, columns and indexes (and fill them from the data already there);
    they never drop data.  Writing commands (import) migrate on their own; this is for archives that
    are only read, e.g. by ``daikifu serve``, which opens the database read-only.

    \b
    Examples:
      daikifu upgrade --db games.db
      daikifu upgrade --json
    """
    from . import schema
    archive = _open(None, db_path)  # no game is read
    was = archive.schema_before  # opening a writable archive migrates it
    archive.close()
    if as_json:
        _echo_json({"db": db_path, "schema_version": schema.SCHEMA_VERSION, "was": was})
    elif was == schema.SCHEMA_VERSION:
        click.echo(f"{db_path}: schema version {schema.SCHEMA_VERSION}, up to date")
    else:
        click.echo(f"{db_path}: schema version {was} -> {schema.SCHEMA_VERSION}")

