"""``daikifu generate``: self-play games of a variant, written as LSN (see docs/selfplay.md).

The command is defined here and added to the main group by :func:`register`::

    from daikifu.archive.generate_command import register
    register(main)
"""

from __future__ import annotations

import json
from collections import Counter

import click

from daikifu.replay import IncompleteVariantError, UnknownVariantError, VariantError, load_variant

from .selfplay import ADJUDICATION_MARGIN, DEFAULT_MAX_PLIES, ENGINES, SelfPlayGame, generate_games

__all__ = ["generate_command", "register"]


def _variants_dir(ctx: click.Context):
    return ctx.find_root().params.get("variants_dir")


def _options(values) -> dict:
    out = {}
    for text in values:
        key, sep, value = text.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise click.BadParameter(f"{text!r} is not KEY=VALUE (e.g. pass=forbidden)",
                                     param_hint="'--option'")
        out[key.strip()] = value.strip()
    return out


def _game_json(g: SelfPlayGame) -> dict:
    h = g.game.headers
    return {"round": int(h["Round"]), "sente": h["Sente"], "gote": h["Gote"], "result": g.game.result,
            "termination": g.termination, "plies": g.plies, "adjudication": h.get("Adjudication"),
            "seconds": round(g.seconds, 3)}


@click.command("generate")
@click.argument("variant", metavar="VARIANT")
@click.option("--games", "-n", type=click.IntRange(1, 1_000_000), default=1, show_default=True,
              help="How many games to play.")
@click.option("--seed", "-s", type=int, default=1, show_default=True,
              help="Random seed: the same arguments give the same games, byte for byte.")
@click.option("--output", "-o", "output", metavar="FILE", type=click.Path(dir_okay=False),
              help="Write the games to FILE (LSN) and print a summary; default: LSN on standard output.")
@click.option("--max-plies", type=click.IntRange(1, 100_000), default=DEFAULT_MAX_PLIES, show_default=True,
              help="Adjudicate a game on material when it reaches this many plies.")
@click.option("--option", "options", multiple=True, metavar="KEY=VALUE",
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
    try:
        v = load_variant(variant, _variants_dir(ctx))
    except UnknownVariantError as exc:
        raise click.BadParameter(str(exc).strip("'\""), param_hint="'VARIANT'") from None
    except VariantError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        v.require_playable()
    except IncompleteVariantError as exc:
        raise click.ClickException(str(exc)) from None
    opts = _options(options)
    try:
        opts = v.resolve_options(opts)
    except VariantError as exc:
        raise click.BadParameter(str(exc), param_hint="'--option'") from None

    progress = output is not None and not as_json

    def report(g: SelfPlayGame):
        if progress:
            h = g.game.headers
            players = f"{h['Sente']} - {h['Gote']}"
            click.echo(f"game {h['Round']:>3}: {players:<24} {g.game.result:<7}  "
                       f"{g.termination:<15} {g.plies:>4} plies  {g.seconds:6.2f} s")

    try:
        played = generate_games(v, games, seed, options=opts, max_plies=max_plies, on_game=report)
    except VariantError as exc:
        raise click.ClickException(f"{v.name}: {exc}") from None
    text = "".join(g.lsn() + "\n" for g in played)
    if output is not None:
        with open(output, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
    plies = sum(g.plies for g in played)
    seconds = sum(g.seconds for g in played)
    rate = plies / seconds if seconds > 0 else 0.0
    endings = Counter(g.termination for g in played)
    results = Counter(g.game.result for g in played)
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
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
        return
    if output is None:
        click.echo(text, nl=False)
        return
    ending_text = ", ".join(f"{n} {name}" for name, n in sorted(endings.items()))
    click.echo(f"Wrote {games} game{'s' if games != 1 else ''} of {v.name} to {output} "
               f"(seed {seed}): {ending_text}")
    click.echo(f"{plies} plies in {seconds:.2f} s of CPU time: {rate:,.0f} plies/s")


def register(group: click.Group) -> None:
    """Add ``generate`` to the main click group."""
    group.add_command(generate_command)
