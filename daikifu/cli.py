"""The ``daikifu`` command line: a root group that loads each command from its layer on demand.

The commands live next to the code they wrap:

- :mod:`daikifu.replay.commands`: ``variants``, ``variant``, ``perft``;
- :mod:`daikifu.formats.commands`: ``validate``, ``convert``, ``generate``, and ``moves`` and ``demo``
  (the rules core's, with --style);
- :mod:`daikifu.archive.commands`: ``import``, ``games``, ``show``, ``export``, ``upgrade``,
  ``search``, ``explore``, ``stats``; :mod:`daikifu.archive.analysis_commands`: ``analyse``;
- :mod:`daikifu.web.commands`: ``serve``, ``image``.

``daikifu --help`` lists them from the table below without importing any of them, so that only
the command that runs is loaded (and only ``serve`` and ``image`` load Flask).
"""

from __future__ import annotations

import gc
import importlib

import click

import daikifu
from daikifu import clikit
from daikifu.clikit import CONTEXT

__all__ = ["main", "run", "COMMANDS"]

# name -> (module, attribute, the first line of its help as `daikifu --help` lists it)
COMMANDS: dict[str, tuple[str, str, str]] = {
    "variants": ("daikifu.replay.commands", "variants_command",
                 "List every known variant: slug, name, board size, status."),
    "variant": ("daikifu.replay.commands", "variant_group", "Look at one variant's definition."),
    "moves": ("daikifu.formats.commands", "moves_command",  # replay's, with --style (formats/styles.py)
              "List the legal moves in the start position (or in --position)."),
    "perft": ("daikifu.replay.commands", "perft_command",
              "Count the move sequences DEPTH plies deep (a check of move generation)."),
    "demo": ("daikifu.formats.commands", "demo_command",
             "Play random legal moves (captures preferred) and show the game."),
    "validate": ("daikifu.formats.commands", "validate_command",
                 "Replay every game of FILES through the rules and report the first bad move of each."),
    "convert": ("daikifu.formats.commands", "convert_command",
                "Read the games of FILE and write them as LSN, KIF, KI2, CSA, JKF, USI or JSON."),
    "generate": ("daikifu.formats.commands", "generate_command",
                 "Play self-play games of VARIANT with a small engine and write them as LSN."),
    "import": ("daikifu.archive.commands", "import_command",
               "Import the games of FILES (LSN, KIF, KI2, CSA, JKF, USI ..., in any mix) into the archive."),
    "games": ("daikifu.archive.commands", "games_command", "List the games in the archive (by id), filtered."),
    "show": ("daikifu.archive.commands", "show_command",
             "Show one game: tags, moves, and a diagram of the position after --ply N plies."),
    "export": ("daikifu.archive.commands", "export_command",
               "Write the games that match the filters in any format convert writes."),
    "upgrade": ("daikifu.archive.commands", "upgrade_command",
                "Bring the archive's schema up to this daikifu's version."),
    "search": ("daikifu.archive.query_commands", "search_command",
               "Find every game that reaches a position (transpositions included)."),
    "explore": ("daikifu.archive.query_commands", "explore_command",
                "The moves played from a position, like an opening explorer."),
    "stats": ("daikifu.archive.query_commands", "stats_command", "Statistics per variant and per player."),
    "analyse": ("daikifu.archive.analysis_commands", "analyse_command",
                "Analyse archived games (or a position) with an engine (HaChu) and store the scores."),
    "serve": ("daikifu.web.commands", "serve_command", "Serve the web viewer for the archive."),
    "image": ("daikifu.web.commands", "image_command",
              "Write a picture of a stored game's position (SVG, PNG) or of the whole game (GIF)."),
}


def load_command(name: str) -> click.Command:
    """The command object of ``name`` (imports its module)."""
    module, attribute, _ = COMMANDS[name]
    return getattr(importlib.import_module(module), attribute)


# click shows its own help for a group run without a command by raising this usage error
_HELP_INSTEAD = getattr(click.exceptions, "NoArgsIsHelpError", ())


class OneLineUsageError(click.ClickException):
    """A usage error (bad option, missing argument, unknown command) told in one line that says
    where the help is, instead of click's usage block: scripts read the one line, status 2."""

    exit_code = 2

    def __init__(self, error: click.UsageError):
        super().__init__(error.format_message())
        self.command_path = error.ctx.command_path if error.ctx is not None else "daikifu"

    def show(self, file=None) -> None:
        click.echo(f"Error: {self.message} (see '{self.command_path} --help')", err=True, file=file)


class LazyGroup(click.Group):
    """A group whose commands are imported only when one of them runs (or shows its own help).
    Usage errors, its own and its commands', are one line (:class:`OneLineUsageError`)."""

    def make_context(self, info_name, args, parent=None, **extra):
        try:
            return super().make_context(info_name, args, parent=parent, **extra)
        except click.UsageError as error:
            if isinstance(error, _HELP_INSTEAD):
                raise
            raise OneLineUsageError(error) from error

    def invoke(self, ctx):
        try:
            return super().invoke(ctx)
        except click.UsageError as error:
            if isinstance(error, _HELP_INSTEAD):
                raise
            raise OneLineUsageError(error) from error

    def list_commands(self, ctx):
        return sorted(COMMANDS)

    def get_command(self, ctx, name):
        if name not in COMMANDS:
            return None
        return load_command(name)

    def format_commands(self, ctx, formatter):
        # the short help from the table: listing the commands must not import them
        rows = [(name, COMMANDS[name][2]) for name in self.list_commands(ctx)]
        with formatter.section("Commands"):
            formatter.write_dl(rows)


@click.group(cls=LazyGroup, context_settings=CONTEXT)
@click.option("--variants-dir", type=click.Path(exists=True, file_okay=False), metavar="PATH",
              help="Also read variant files (*.toml) from this directory; a file with the slug of a "
                   "bundled variant replaces it.  Directories in the DAIKIFU_VARIANTS environment "
                   "variable are read too.")
@click.version_option(package_name="daikifu", prog_name="daikifu",
                      message="%(prog)s %(version)s (" + daikifu.build() + " build)")
def main(variants_dir):
    """daikifu: record, verify, store and replay games of the large shogi variants.

    \b
    Examples:
      daikifu variants
      daikifu variant show dai-kagamigi
      daikifu moves shogi --json
      daikifu perft shogi 3 --divide
      daikifu validate games.lsn
      daikifu import data/sample/ && daikifu serve
      daikifu --variants-dir ./my-variants variants
    """


def run() -> None:
    """The console script (and ``python -m daikifu``): :func:`main` in a process of its own.

    The process ends with the command, so what the command built (rule sets, move tables) is not
    handed to a last garbage collection at exit, which would only traverse it to free memory the
    system takes back anyway (tens of milliseconds after an import); commands that build much and
    make few reference cycles may turn automatic collection off (see :func:`clikit.batch_collection`).
    """
    clikit.run_in_own_process()
    try:
        main(prog_name="daikifu")
    finally:
        gc.freeze()


if __name__ == "__main__":
    run()
