"""The record commands: ``validate``, ``convert`` and ``generate``, and ``moves`` (the rules core's,
with ``--style`` from :mod:`daikifu.formats.styles`) (the root group, :mod:`daikifu.cli`, loads them
on demand).  Each is a thin wrapper over this package's functions
(:func:`daikifu.formats.validate.verdict`, the readers and writers) and self-play in the rules
core (:mod:`daikifu.replay.selfplay`).
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Iterable

import click

from daikifu.clikit import (CONTEXT, EXIT_INPUT, KEY_VALUE, VARIANT, InputError, JsonList, allow_impossible_option,
                            echo_json, fail, json_option, option_option, position_option, registry)

if TYPE_CHECKING:
    from daikifu.replay.selfplay import SelfPlayGame

# the registry of formats is light; the Game tree, the readers and the writers are imported where
# they are used, so that a command's --help loads none of them
from .reading import FORMATS as REGISTRY
from .reading import (NotARecordError, UnsupportedConversion, expand_paths, read_stream, reader_failure, setup_dir_of,
                      write_record, write_stream)

# self-play's ply limit, written here so that --help does not load the engine (a test checks that it
# is replay.selfplay.DEFAULT_MAX_PLIES)
DEFAULT_MAX_PLIES = 400

FORMATS = ("auto", *REGISTRY)
WRITTEN = tuple(name for name, f in REGISTRY.items() if f.write is not None)
NOT_A_RECORD_STATUS = EXIT_INPUT


def _slug(variant) -> str | None:
    return variant.slug if variant is not None else None


def read_records(path: str, fmt: str = "auto", lenient: bool = False, variant=None, limits=None, variants=None,
                 setup=None, visitor=None):
    """Every game of a file, one at a time, through the reading pipeline (an LSN file of any size
    is read as it streams: one game in memory at a time, not the file); a setup file a record
    names is looked for beside it, and ``setup`` (:class:`~daikifu.formats.csg.SetupFile`)
    overrides it; ``visitor``: as for :func:`~daikifu.formats.reading.read_record`."""
    if path == "-":
        yield from _stream_records(sys.stdin.buffer, "<stdin>", fmt, lenient, variant, limits, variants, setup,
                                   visitor)
        return
    with _open(path) as fh:
        yield from _stream_records(fh, path, fmt, lenient, variant, limits, variants, setup, visitor)


def _open(path: str):
    try:
        return open(path, "rb")
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror}") from None


def _stream_records(stream, name, fmt, lenient, variant, limits, variants, setup=None, visitor=None):
    try:
        yield from read_stream(stream, name=name, fmt=None if fmt == "auto" else fmt, variant=_slug(variant),
                               lenient=lenient, limits=limits, variants=variants, setup=setup,
                               setup_dir=setup_dir_of(name), visitor=visitor)
    except OSError as exc:
        raise InputError(f"{name}: cannot read: {exc.strerror or exc}") from None


class SetupParam(click.ParamType):
    """A Chu Shogi server setup file (``.fsy``), read when given."""

    name = "FILE"

    def convert(self, value, param, ctx):
        from .csg import load_setup
        try:
            return load_setup(value)
        except OSError as exc:
            self.fail(f"{value}: {exc.strerror or exc}", param, ctx)


setup_option = click.option(
    "--setup", type=SetupParam(), default=None,
    help="The setup of Chu Shogi server records (.csg): a .fsy file, used instead of the one the "
         "record names (which is looked for beside the record; else the server's setups are known).")


class LimitParam(click.ParamType):
    """``NAME=VALUE`` for a reader limit (:meth:`ReadLimits.from_pairs`)."""

    name = "NAME=VALUE"

    def convert(self, value, param, ctx):
        from .limits import ReadLimits
        try:
            ReadLimits.from_pairs([value])
        except ValueError as exc:
            self.fail(str(exc), param, ctx)
        return value


limit_option = click.option(
    "--limit", "limits", multiple=True, type=LimitParam(),
    help="Raise or lower a reader limit (repeatable): record=CHARS, line=CHARS, comment=CHARS, "
         "depth=N (defaults 32 MiB, 4 MiB, 1 MiB, 100; docs/notation.md 5.7; JKF and JSON may nest "
         "3N+8 levels).  A game over one is invalid with a located error; the others are read as usual.")


_format_option = click.option(
    "--format", "fmt", type=click.Choice(FORMATS), default="auto", show_default=True,
    help="Record format; auto recognises every format by content (the file name only breaks a tie).")
_variant_option = click.option(
    "--variant", type=VARIANT, default=None,
    help="The variant of records that do not name one (default: shogi for KIF, KI2, CSA, JKF and USI).")


@click.command("validate", context_settings=CONTEXT)
@click.argument("files", nargs=-1, required=True, type=click.Path(exists=True, allow_dash=True))
@_format_option
@_variant_option
@click.option("--lenient", is_flag=True, help="Keep the moves before a bad one and flag the game instead of rejecting it.")
@limit_option
@setup_option
@click.option("--style", type=click.Choice(("algebraic", "japanese", "western", "shogi", "own"), case_sensitive=False),
              default="algebraic", show_default=True,
              help="How the squares and suggested moves of an error are written: japanese (７六), western "
                   "(7f), own (each game's variant's own style) or algebraic (daikifu's, as stored).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list with one object per game.")
@click.pass_context
def validate_command(ctx, files, fmt, variant, lenient, limits, setup, style, as_json):
    """Replay every game of FILES through the rules and report the first bad move of each.

    FILES may be LSN (also ChuShogiLite's and Jocly's PGN), KIF, KI2, CSA, JKF, USI, daikifu JSON
    or Chu Shogi server (.csg) records (recognised by content); a directory is read recursively
    as `daikifu import` reads it (files in it that hold no record are skipped).  Exit status 0
    when every game is valid, 1 otherwise, 2 when a file is missing, cannot be read or is no
    record in a format daikifu reads (see docs/cli.md).
    Each error names the file, game, line, column, ply and move text, says what was expected and
    suggests legal moves.

    \b
    Examples:
      daikifu validate games.lsn
      daikifu validate --json match.kif games.csa
      daikifu validate --format usi --variant shogi lines.txt
      cat game.lsn | daikifu validate -
      daikifu validate --style western match.kif
    """
    from .game import GameError
    from .limits import ReadLimits
    from .visitor import MainLineBuilder
    from .validate import restyled_verdict, verdict
    read_limits = ReadLimits.from_pairs(limits)
    paths = list(expand_paths(files))
    for path, named in paths:  # a named file that cannot be opened stops the command before anything is written
        if path != "-" and named:
            _open(path).close()
    counts = Counter()
    not_records, skipped, failed = [], [], []
    # each verdict is written when it is made: memory does not grow with the number of games, and
    # no game's move tree is built (MainLineBuilder) where the format's reader takes a visitor
    out = JsonList() if as_json else None
    try:
        for path, named in paths:
            try:
                # a styled error needs the position where the failing move was tried: the game's tree
                styled = style.lower() != "algebraic"
                for game in read_records(path, fmt, lenient, variant, read_limits, registry(ctx), setup,
                                         visitor=None if styled else MainLineBuilder):
                    v = restyled_verdict(game, path, style) if styled else verdict(game, path)
                    counts[v["status"] == "valid"] += 1
                    if out is not None:
                        out.write(v)
                        continue
                    click.echo(f"{v['file']}: game {v['game']} ({v['variant']}): {v['status']}, {v['ply_count']} plies")
                    for e in v["errors"] + v["warnings"]:
                        click.echo(f"  {e['kind']}: {GameError.from_dict(e)}")
            except NotARecordError as exc:
                (not_records if named else skipped).append((path, str(exc)))
            except click.ClickException:
                raise
            except Exception as exc:  # the reader's failure costs its file only (reader_failure)
                failed.append((path, f"{path}: {reader_failure(exc, None if fmt == 'auto' else fmt)}"))
    finally:
        if out is not None:
            for path, m in failed:
                out.write({"file": path, "status": "unreadable", "error": m})
            for path, m in not_records:
                out.write({"file": path, "status": "not-a-record", "error": m})
            out.close()
    if out is None:
        for _path, m in failed + not_records:
            click.echo(m, err=True)
        if skipped:
            click.echo(f"skipped: {len(skipped)} file{'s' * (len(skipped) != 1)} holding no game record "
                       f"({', '.join(p for p, _ in skipped[:3])}{' ...' if len(skipped) > 3 else ''})", err=True)
        total, bad = counts[True] + counts[False], counts[False]
        click.echo(f"{total} games, {total - bad} valid, {bad} invalid", err=True)
    if not_records or failed:
        ctx.exit(NOT_A_RECORD_STATUS)
    ctx.exit(0 if counts[True] and not counts[False] else 1)


# --- writing games: the output options and the writing, shared by convert and export ---------------

ONE_A_FILE = tuple(name for name in WRITTEN if not REGISTRY[name].several)


def target_option(*decls: str, default: str | None = None, note: str = ""):
    """The option naming the format to write (convert's ``--to``, export's ``--format``): every
    format with a writer."""
    return click.option(*decls, "target", type=click.Choice(WRITTEN), default=default,
                        show_default=default is not None,
                        help=f"Format to write{note}: {', '.join(WRITTEN)}.  "
                             f"{', '.join(REGISTRY[n].title for n in ONE_A_FILE)} hold one game per file.")


def output_options(number: str):
    """``-o/--output`` and ``--encoding``; ``number`` says what ``{n}`` in a file name becomes."""
    def apply(f):
        f = click.option("--encoding", type=click.Choice(("utf-8", "cp932")), default="utf-8", show_default=True,
                         help="Encoding of KIF, KI2 and CSA output (cp932 = Shift-JIS, the classic .kif).")(f)
        return click.option(
            "-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default="-",
            help="Output file (default: standard output); a file is written whole or not at all.  For the "
                 f"formats that hold one game per file a name with {{n}} makes one file per game, {{n}} "
                 f"being {number}: games-{{n}}.kif.")(f)
    return apply


@contextlib.contextmanager
def _output(path: str):
    """A binary stream to ``path`` (standard output for '-'); a file appears only when everything
    was written (it is written beside, under another name, then renamed)."""
    if path == "-":
        sys.stdout.flush()  # text written before stays before
        yield sys.stdout.buffer
        sys.stdout.buffer.flush()
        return
    target = Path(path)
    part = target.with_name(f".{target.name}.part")
    try:
        fh = open(part, "wb")
    except OSError as exc:
        raise fail(f"{path}: cannot write: {exc.strerror}") from None
    try:
        with fh:
            yield fh
        os.replace(part, target)
    except OSError as exc:
        part.unlink(missing_ok=True)
        raise fail(f"{path}: cannot write: {exc.strerror or exc}") from None
    except BaseException:
        part.unlink(missing_ok=True)
        raise


def write_games(numbered: Iterable, target: str, output: str, encoding: str, count: int, what: str) -> int:
    """Write the games of ``numbered`` ((n, game) pairs, ``count`` of them, or :data:`MANY`) in format ``target``:
    to the file ``output`` (or standard output), or one file per game when the format holds one
    and ``output`` has ``{n}`` (replaced by n).  One game is in memory at a time.  Returns the
    number of games written; a problem is a one-line failure that names ``what`` (the games'
    source) and the game."""
    writer = REGISTRY[target]
    enc = encoding if encoding in writer.encodings else writer.encodings[0]
    per_game = "{n}" in output
    if not writer.several and (count > 1 or count == MANY) and not per_game:
        many = f"{count} games" if count != MANY else "more than one game"
        raise fail(f"{what} has {many} and a {writer.title} file holds one: nothing written; "
                   f"give -o a name with {{n}}, e.g. game-{{n}}.{target}")
    current = [None]  # the number of the game being written, for the message of a failure

    def games():
        for n, game in numbered:
            current[0] = n
            yield game

    written = 0
    try:
        if per_game:
            for game in games():
                data = write_record(game, target, enc)
                with _output(output.replace("{n}", str(current[0]))) as out:
                    out.write(data)
                written += 1
        else:
            with _output(output) as out:
                written = write_stream(games(), target, out, enc)
    except (UnsupportedConversion, ValueError) as exc:
        raise fail(f"{what}: game {current[0]}: {exc}") from None
    return written


MANY = -1  # write_games' count when it is only known to be more than one


def _peeked(games: Iterable) -> tuple[list, Iterable]:
    """(the first two games, all the games): how many there are is known to be 0, 1 or more
    without reading the rest."""
    from itertools import chain, islice
    games = iter(games)
    first = list(islice(games, 2))
    return first, chain(first, games)


@click.command("convert", context_settings=CONTEXT)
@click.argument("file", type=click.Path(allow_dash=True))
@target_option("--to", note=" (required unless --json)")
@_format_option
@_variant_option
@output_options("the game's number in FILE")
@setup_option
@click.option("--json", "as_json", is_flag=True, help="The same as --to json.")
@click.pass_context
def convert_command(ctx, file, target, fmt, variant, output, encoding, setup, as_json):
    """Read the games of FILE and write them as LSN, KIF, KI2, CSA, JKF, USI or JSON.

    FILE may be - for standard input.  Every format daikifu reads can be converted to every
    format that can hold the game (CSA, KI2 and JKF hold 9x9 shogi; CSA and USI keep the main line
    only; USI keeps no comments or tags, but names the variant and rule set in setoption lines).
    Every game of FILE is written: a stream of games (lishogi's KIF export or NDJSON, a PGN or LSN
    file of many games) becomes one file of them in LSN, KIF (each game followed by two blank
    lines, as lishogi writes them), CSA, USI and JSON; KI2 and JKF hold one game a file, so
    several games need -o with {n} (one file each).  Games are converted one at a time.
    Evaluations the record carries ([%eval], an NDJSON analysis) are written first in each move's
    comment as lishogi writes them.  Invalid games are converted up to their first bad move, with
    a warning, and the exit status is then 1; FILE missing or no record: 2 (docs/cli.md).

    \b
    Examples:
      daikifu convert game.kif --to lsn
      daikifu convert game.csa --to ki2 --encoding cp932 -o game.ki2
      daikifu convert games.lsn --to json -o games.json
      daikifu convert lishogi.ndjson --to kif -o games.kif
      daikifu convert games.lsn --to ki2 -o "game-{n}.ki2"
      curl -s https://lishogi.org/api/games/user/NAME | daikifu convert - --to lsn
    """
    if as_json:
        if target not in (None, "json"):
            raise click.UsageError(f"--json and --to {target} contradict each other")
        target = "json"
    if target is None:
        raise click.UsageError("say which format to write: --to " + ", --to ".join(WRITTEN) + " (or --json)")
    if file != "-":
        _open(file).close()  # a missing file is a usage problem before anything is written
    invalid = []

    def numbered(games):
        for n, g in enumerate(games, start=1):
            if not g.valid:
                invalid.append(n)
                click.echo(f"warning: {file}: game {g.number or n} is invalid; converted up to its first bad "
                           f"move: {g.errors[0]}", err=True)
            yield n, g

    try:
        first, games = _peeked(read_records(file, fmt, False, variant, variants=registry(ctx), setup=setup))
        count = write_games(numbered(games), target, output, encoding, len(first) if len(first) < 2 else MANY,
                            file)
    except NotARecordError as exc:
        raise InputError(str(exc)) from None
    if output != "-":
        where = output if "{n}" not in output else (
            f"{output.replace('{n}', '1')} ... {output.replace('{n}', str(count))}" if count > 1
            else output.replace("{n}", "1"))
        click.echo(f"wrote {count} game{'s' * (count != 1)} to {where}", err=True)
    ctx.exit(0 if not invalid else 1)


# --- generate -------------------------------------------------------------------------------------


def _game_json(g: SelfPlayGame) -> dict:
    h = g.headers
    return {"round": int(h["Round"]), "sente": h["Sente"], "gote": h["Gote"], "result": g.result,
            "termination": g.termination, "plies": g.plies, "adjudication": h.get("Adjudication"),
            "seconds": round(g.seconds, 3)}


def selfplay_lsn(g: SelfPlayGame) -> str:
    """A self-play game as an LSN record."""
    from .game import Game
    from .lsn import write_game
    return write_game(Game.from_moves(g.variant, g.moves, options=g.options, headers=g.headers, result=g.result))


@click.command("generate", context_settings=CONTEXT)
@click.argument("variant", type=VARIANT)
@click.option("--games", "-n", type=click.IntRange(1, 1_000_000), default=1, show_default=True,
              help="How many games to play.")
@click.option("--seed", "-s", type=int, default=1, show_default=True,
              help="Random seed: the same arguments give the same games, byte for byte.")
@click.option("--output", "-o", "output", metavar="FILE", type=click.Path(dir_okay=False),
              help="Write the games to FILE (LSN) and print a summary; default: LSN on standard output.")
@click.option("--max-plies", type=click.IntRange(1, 100_000), default=DEFAULT_MAX_PLIES, show_default=True,
              help="Adjudicate a game on material when it reaches this many plies.")
@click.option("--option", "options", type=KEY_VALUE, multiple=True,
              help="Set a variant option, e.g. pass=forbidden (repeatable).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON summary (with the LSN text when there is no -o).")
@click.pass_context
def generate_command(ctx, variant, games, seed, output, max_plies, options, as_json):
    """Play self-play games of VARIANT with a small engine and write them as LSN.

    The engine values pieces by their mobility, prefers captures, promotions and checks, avoids
    hanging pieces, and looks one ply deeper at the opponent's captures.  Three engine settings
    (Bot Alpha, Bot Beta, Bot Gamma) take turns as Sente and Gote.  A game ends in checkmate,
    stalemate, repetition or perpetual check, or at --max-plies by material adjudication
    (Termination "adjudication").  See docs/selfplay.md.

    \b
    Examples:
      daikifu generate shogi --games 2 --seed 7
      daikifu generate dai-kagamigi --games 12 --seed 1 -o dai-kagamigi.lsn
      daikifu generate chu-kagamigi --games 3 --json
    """
    from daikifu.replay.selfplay import ADJUDICATION_MARGIN, ENGINES, generate_games
    from daikifu.replay.variant import IncompleteVariantError, VariantError
    v = variant
    try:
        v.require_playable()
    except IncompleteVariantError as exc:
        raise fail(str(exc)) from None
    try:
        opts = v.resolve_options(dict(options))
    except VariantError as exc:
        raise click.BadParameter(str(exc), param_hint="'--option'") from None

    progress = output is not None and not as_json

    def report(g: SelfPlayGame):
        if progress:
            h = g.headers
            players = f"{h['Sente']} - {h['Gote']}"
            click.echo(f"game {h['Round']:>3}: {players:<24} {g.result:<7}  "
                       f"{g.termination:<15} {g.plies:>4} plies  {g.seconds:6.2f} s")

    try:
        played = generate_games(v, games, seed, options=opts, max_plies=max_plies, on_game=report)
    except VariantError as exc:
        raise fail(f"{v.name}: {exc}") from None
    text = "".join(selfplay_lsn(g) + "\n" for g in played)
    if output is not None:
        with open(output, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
    plies = sum(g.plies for g in played)
    seconds = sum(g.seconds for g in played)
    rate = plies / seconds if seconds > 0 else 0.0
    endings = Counter(g.termination for g in played)
    results = Counter(g.result for g in played)
    if as_json:
        data = {"variant": v.slug, "name": v.name, "options": opts, "seed": seed, "games": games,
                "max_plies": max_plies, "output": output,
                "engines": [{"name": e.name, "width": e.width, "noise": e.noise} for e in ENGINES],
                "adjudication_margin": ADJUDICATION_MARGIN,
                "terminations": dict(sorted(endings.items())), "results": dict(sorted(results.items())),
                "plies": plies, "seconds": round(seconds, 3), "plies_per_second": round(rate, 1),
                "game_list": [_game_json(g) for g in played]}
        if output is None:
            data["lsn"] = text
        echo_json(data)
        return
    if output is None:
        click.echo(text, nl=False)
        return
    ending_text = ", ".join(f"{n} {name}" for name, n in sorted(endings.items()))
    click.echo(f"Wrote {games} game{'s' if games != 1 else ''} of {v.name} to {output} "
               f"(seed {seed}): {ending_text}")
    click.echo(f"{plies} plies in {seconds:.2f} s of CPU time: {rate:,.0f} plies/s")


# --- moves, written in a notation style ------------------------------------------------------------


@click.command("moves", context_settings=CONTEXT)
@click.argument("variant", type=VARIANT)
@position_option
@allow_impossible_option
@option_option
@click.option("--check", "checks", multiple=True, metavar="MOVE",
              help="Instead of listing the moves, say whether MOVE (USI or daikifu's notation) is legal "
                   "here, and why not (repeatable).")
@click.option("--style", type=click.Choice(("algebraic", "japanese", "western", "shogi"), case_sensitive=False),
              default="algebraic", show_default=True, help="How the moves listed are written (see above).")
@json_option
def moves_command(variant, position, allow_impossible, options, checks, style, as_json):
    """List the legal moves in the start position (or in --position).

    Moves are written in daikifu's notation: piece ID, origin square only when needed, "-" or "x",
    destination; "+"/"=" for promoting/declining; "P*e5" for a drop; multi-step moves list each
    captured square ("!LDxe5xe6"), "x!e5" captures without moving, "e4-e4" passes.  Squares are
    algebraic: files a, b, c ... from the first player's left, ranks 1, 2, 3 ... from the first
    player's side.

    \b
    With --json: a list of objects with "move", "usi" (the USI form; lishogi's on
    boards larger than 9x9, e.g. 6f5e6d for a Lion's double move), "from" (null
    for a drop), "to", "captures" (squares in order), "promote" (true/false, null
    when there was no choice) and "drop" (piece ID or null).

    \b
    --position also takes USI: "startpos moves 7g7f 3c3d" or "sfen <SFEN> moves
    ...", lishogi's SFEN for Chu Shogi included.  With --check MOVE (repeatable)
    each move is checked instead: {"move": as given, "legal": true/false,
    "reason": why not, "code": the reason as a code (e.g. "promotion-must-be-
    chosen"), "notation": the move in daikifu's notation}.

    \b
    Examples:
      daikifu moves shogi
      daikifu moves shogi --json
      daikifu moves shogi -p "4k4/9/9/9/9/9/9/9/4K4 b G 1"
      daikifu moves chu-kagamigi --option forced-promotion=stuck
      daikifu moves chu-shogi -p "startpos moves 6i6h" --check 6d6e --check P-f8 --json

    \b
    --style writes the moves listed as shogi players do: japanese (▲７六歩, the KI2
    writer's text; lishogi's on Chu Shogi) or western (P-7f, Ln-7g); shogi means
    japanese, algebraic is daikifu's notation (the default, and "move" in the JSON,
    where "text" is the styled move).
    """
    from daikifu.replay.commands import show_moves

    from .styles import destinations, move_style, move_text

    chosen = move_style(variant, style)
    if chosen == "algebraic":
        show_moves(variant, position, options, checks, as_json, allow_impossible=allow_impossible)
        return

    def texts(board, moves):
        reach = destinations(board)  # (once for the position: every move is written from it)
        return {m: move_text(board, m, chosen, reach=reach) for m in moves}

    show_moves(variant, position, options, checks, as_json, texts, allow_impossible=allow_impossible)


# --- demo, written in a notation style -------------------------------------------------------------


@click.command("demo", context_settings=CONTEXT)
@click.argument("variant", type=VARIANT, required=False)
@click.option("--plies", "-n", type=click.IntRange(0, 100_000), default=80, show_default=True,
              help="How many plies (half-moves) to play at most.")
@click.option("--seed", "-s", type=int, default=1, show_default=True, help="Random seed: the same seed plays the same game.")
@click.option("--capture-bias", type=click.FloatRange(0, 1), default=0.75, show_default=True,
              help="Chance of picking a capture when one is legal.")
@option_option
@click.option("--style", type=click.Choice(("algebraic", "japanese", "western", "shogi"), case_sensitive=False),
              help="How the moves and the board's coordinates are written (default: the variant's own style; "
                   "shogi means japanese).")
@json_option
@click.pass_context
def demo_command(ctx, variant, plies, seed, capture_bias, options, style, as_json):
    """Play random legal moves (captures preferred) and show the game.

    Plays up to N plies of seeded random legal moves on VARIANT (default: Dai Kagamigi, else
    shogi), printing each move, the final board, the speed of move generation and the final
    position string.  The game stops early at checkmate, stalemate or repetition.

    \b
    Examples:
      daikifu demo
      daikifu demo shogi --plies 40 --seed 3
      daikifu demo chu-kagamigi --json
      daikifu demo shogi --style western

    \b
    With --json the moves are in daikifu's notation ("moves"); a style other than
    algebraic adds them as written in it ("texts").
    """

    from daikifu.replay.commands import default_demo_variant, show_demo

    from .styles import diagram, move_style, move_text

    if variant is None:
        variant = default_demo_variant(ctx)
    chosen = move_style(variant, style)
    if chosen == "algebraic":
        show_demo(ctx, variant, plies, seed, capture_bias, options, as_json)
        return
    show_demo(ctx, variant, plies, seed, capture_bias, options, as_json,
              texts=lambda board, move: move_text(board, move, chosen),
              picture=lambda board: diagram(board, chosen))
