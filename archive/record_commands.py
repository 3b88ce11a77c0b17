"""``daikifu validate`` and ``daikifu convert``: check game records and change their format.

Formats are recognised by content, not by file name: a KIF record has KIF's header or move
lines before any ``[Tag "..."]`` line; everything else is read as LSN.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import click

from daikifu.formats.game import Game
from daikifu.formats.jsonexport import game_to_dict
from daikifu.formats.kif import KifError, looks_like_kif, read_kif, write_kif
from daikifu.formats.lsn import read_games, write_game
from daikifu.replay.variant import extra_variants_dir
from .output import write_bytes as _write

FORMATS = ("auto", "lsn", "kif")


def _variants_env(ctx: click.Context):
    """Make the global --variants-dir visible to the readers (and to import worker processes)."""
    return extra_variants_dir(ctx.find_root().params.get("variants_dir"))


def _read_bytes(path: str) -> bytes:
    if path == "-":
        return sys.stdin.buffer.read()
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise click.ClickException(f"{path}: cannot read: {exc.strerror}") from None


def detect_format(data: bytes) -> str:
    return "kif" if looks_like_kif(data) else "lsn"


def read_records(path: str, fmt: str = "auto", lenient: bool = False):
    """Every game of a file as a list of :class:`Game` (records of either format)."""
    data = _read_bytes(path)
    name = "<stdin>" if path == "-" else path
    if fmt == "auto":
        fmt = detect_format(data)
    if fmt == "kif":
        try:
            return read_kif(data, source=name, lenient=lenient)
        except KifError as exc:
            raise click.ClickException(str(exc)) from None
    text = data.decode("utf-8", errors="replace")
    return list(read_games(text, file=name, lenient=lenient))


def _verdict(game: Game, path: str) -> dict:
    return {
        "file": path,
        "game": game.number or 1,
        "variant": game.variant.slug,
        "status": game.status,
        "ply_count": len(game.mainline_moves()),
        "result": game.result,
        "errors": [e.as_dict() for e in game.errors if e.kind == "error"],
        "warnings": [e.as_dict() for e in game.errors if e.kind == "warning"],
    }


def register(group: click.Group) -> None:
    group.add_command(validate_command)
    group.add_command(convert_command)


@click.command("validate")
@click.argument("files", nargs=-1, required=True, type=click.Path(allow_dash=True))
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="auto", show_default=True,
              help="Record format; auto recognises KIF and LSN by content.")
@click.option("--lenient", is_flag=True, help="Keep the moves before a bad one and flag the game instead of rejecting it.")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list with one object per game.")
@click.pass_context
def validate_command(ctx, files, fmt, lenient, as_json):
    """Replay every game of FILES through the rules and report the first bad move of each.

    Exit status 0 when every game is valid, 1 otherwise.  Each error names the file, game,
    line, column, ply and move text, says what was expected and suggests legal moves.

    \b
    Examples:
      daikifu validate games.lsn
      daikifu validate --json match.kif games.lsn
      cat game.lsn | daikifu validate -
    """
    verdicts = []
    with _variants_env(ctx):
        for path in files:
            for game in read_records(path, fmt, lenient):
                verdicts.append(_verdict(game, path))
    if as_json:
        click.echo(json.dumps(verdicts, indent=2, ensure_ascii=False))
    else:
        for v in verdicts:
            line = f"{v['file']}: game {v['game']} ({v['variant']}): {v['status']}, {v['ply_count']} plies"
            click.echo(line)
            for e in v["errors"] + v["warnings"]:
                click.echo(f"  {e['kind']}: {_error_text(e)}")
        bad = sum(v["status"] != "valid" for v in verdicts)
        click.echo(f"{len(verdicts)} games, {len(verdicts) - bad} valid, {bad} invalid", err=True)
    ctx.exit(0 if verdicts and all(v["status"] == "valid" for v in verdicts) else 1)


def _error_text(e: dict) -> str:
    where = ":".join(str(e[k]) for k in ("file", "line", "column") if e.get(k) is not None)
    parts = [where] if where else []
    if e.get("ply") is not None:
        parts.append(f"ply {e['ply']}")
    if e.get("move") is not None:
        parts.append(f"move {e['move']!r}")
    text = ", ".join(parts) + ": " + e["message"] if parts else e["message"]
    if e.get("expected"):
        text += f" (expected {e['expected']})"
    if e.get("suggestions"):
        text += "; did you mean " + ", ".join(e["suggestions"]) + "?"
    return text


@click.command("convert")
@click.argument("file", type=click.Path(allow_dash=True))
@click.option("--to", "target", type=click.Choice(("lsn", "kif", "json")),
              help="Format to write (required unless --json).")
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="auto", show_default=True,
              help="Format of FILE; auto recognises KIF and LSN by content.")
@click.option("-o", "--output", type=click.Path(dir_okay=False, allow_dash=True), default="-",
              help="Output file (default: standard output).  For KIF, which holds one game per file, "
                   "a name with {n} makes one file per game: games-{n}.kif.")
@click.option("--encoding", type=click.Choice(("utf-8", "cp932")), default="utf-8", show_default=True,
              help="Encoding of KIF output (cp932 = Shift-JIS, the classic .kif).")
@click.option("--json", "as_json", is_flag=True, help="The same as --to json.")
@click.pass_context
def convert_command(ctx, file, target, fmt, output, encoding, as_json):
    """Read the games of FILE and write them as LSN, KIF or JSON.

    Invalid games are converted up to their first bad move, with a warning, and the exit status
    is then 1.

    \b
    Examples:
      daikifu convert game.kif --to lsn
      daikifu convert games.lsn --to json -o games.json
      daikifu convert games.lsn --to kif -o "game-{n}.kif"
    """
    if as_json:
        if target not in (None, "json"):
            raise click.UsageError(f"--json and --to {target} contradict each other")
        target = "json"
    if target is None:
        raise click.UsageError("say which format to write: --to lsn, --to kif or --to json (or --json)")
    with _variants_env(ctx):
        games = read_records(file, fmt)
        for g in games:
            if not g.valid:
                click.echo(f"warning: {file}: game {g.number or 1} is invalid; converted up to its first bad "
                           f"move: {g.errors[0]}", err=True)
        if target == "kif":
            if len(games) > 1 and "{n}" not in output:
                raise click.ClickException(f"{file} has {len(games)} games and a KIF file holds one: "
                                           f"give -o a name with {{n}}, e.g. game-{{n}}.kif")
            for n, g in enumerate(games, start=1):
                try:
                    data = write_kif(g, encoding=encoding)
                except KifError as exc:
                    raise click.ClickException(str(exc)) from None
                _write(output.replace("{n}", str(n)), data)
        elif target == "lsn":
            _write(output, "\n".join(write_game(g) for g in games).encode("utf-8"))
        else:
            data = json.dumps([game_to_dict(g) for g in games], indent=2, ensure_ascii=False)
            _write(output, (data + "\n").encode("utf-8"))
    ctx.exit(0 if all(g.valid for g in games) else 1)
