"""The pieces every ``daikifu`` command shares: context settings, ``--json``, the variant and
``KEY=VALUE`` parameter types, ``--position``/``--option``, output and error text.

Each layer keeps its commands next to its code (``daikifu.replay.commands``,
``daikifu.formats.commands``, ``daikifu.archive.commands``, ``daikifu.web.commands``); this module
imports only click, and the rules core when a variant is looked up (``daikifu --help`` imports
this module and nothing of the rules), so that any of them can use it.
"""

from __future__ import annotations

import json
import textwrap
import unicodedata
from typing import TYPE_CHECKING

import click

if TYPE_CHECKING:
    from daikifu.replay.variant import VariantRegistry

__all__ = ["run_in_own_process", "in_own_process", "CONTEXT", "WIDTH", "json_option", "echo_json", "wrap", "registry", "VARIANT", "KEY_VALUE",
           "position_option", "allow_impossible_option", "option_option", "fail", "InputError", "EXIT_OK",
           "EXIT_FAILED", "EXIT_INPUT", "EXIT_INTERRUPTED", "text_width", "fit", "batch_collection"]

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
WIDTH = 100

class _Process:
    """What the command line knows of the process it runs in."""

    # whether the command runs in a process of its own (the console script, ``python -m
    # daikifu``), not called from Python (tests, CliRunner): set by daikifu.cli.run
    own = False


def run_in_own_process() -> None:
    """Say that the command runs in a process of its own, which ends with it (the console
    script does, before it runs the command)."""
    _Process.own = True


def in_own_process() -> bool:
    """Whether :func:`run_in_own_process` was called."""
    return _Process.own


def batch_collection() -> None:
    """Automatic garbage collection off for the rest of the process, when the command runs in a
    process of its own (else nothing changes).  For commands that build large tables that live to
    the end (rule sets, move tables, notation plans: a hundred thousand objects and more, which
    every automatic collection would traverse again) and make few reference cycles; the command
    must still collect now and then (``daikifu import`` does: see ``importer.COLLECT_SECONDS``)."""
    if _Process.own:
        import gc
        gc.disable()


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")


def echo_json(data) -> None:
    """Print ``data`` as indented JSON (non-ASCII text kept as it is)."""
    click.echo(json.dumps(data, indent=2, ensure_ascii=False))


class JsonList:
    """Prints a JSON list one item at a time, exactly as :func:`echo_json` prints the whole list,
    so that a command's memory does not grow with the number of items.

    >>> out = JsonList(); out.write({"a": [1]}); out.write("b"); out.close()
    [
      {
        "a": [
          1
        ]
      },
      "b"
    ]
    >>> JsonList().close()
    []
    """

    def __init__(self):
        self.count = 0

    def write(self, item) -> None:
        # json.dumps escapes line ends inside strings: every line end is between two tokens
        text = json.dumps(item, indent=2, ensure_ascii=False).replace("\n", "\n  ")
        click.echo(("[\n  " if not self.count else ",\n  ") + text, nl=False)
        self.count += 1

    def close(self) -> None:
        click.echo("\n]" if self.count else "[]")


def wrap(text: str, indent: str, first: str | None = None) -> str:
    """``text`` with its white space folded, wrapped to the terminal width used by every command."""
    return textwrap.fill(" ".join(str(text).split()), WIDTH, initial_indent=indent if first is None else first,
                         subsequent_indent=indent, break_on_hyphens=False)


# --- exit status: one per kind of failure, the same in every command (docs/cli.md) ---------------

EXIT_OK = 0  # done (validate: every game valid)
EXIT_FAILED = 1  # the work failed: an invalid game (validate), the archive unusable or busy, output not written
EXIT_INPUT = 2  # the command line names what cannot be used: a bad option, a missing file, a file that is no record
EXIT_INTERRUPTED = 130  # Ctrl-C (import: the games read so far are stored)


def fail(message: str) -> click.ClickException:
    """A one-line error for the user (``raise fail(...)``); exit status 1 (:data:`EXIT_FAILED`)."""
    return click.ClickException(message)


class InputError(click.ClickException):
    """A one-line error about an input the command line names (missing, unreadable, no record);
    exit status 2 (:data:`EXIT_INPUT`), as click's own usage errors (a missing path among them)."""

    exit_code = EXIT_INPUT


# --- variants ------------------------------------------------------------------------------------


def registry(ctx: click.Context | None) -> "VariantRegistry":
    """The variant registry of this command line: the bundled variants, the directories of
    ``DAIKIFU_VARIANTS`` and the global ``--variants-dir`` (built once per invocation)."""
    from daikifu.replay.variant import VariantError, VariantRegistry
    if ctx is None:
        return VariantRegistry.default()
    root = ctx.find_root()
    found = root.meta.get("daikifu.registry")
    if found is None:
        extra = root.params.get("variants_dir")
        try:
            found = VariantRegistry.default(extra)
        except VariantError as exc:
            raise fail(str(exc)) from None
        root.meta["daikifu.registry"] = found
    return found


class VariantParam(click.ParamType):
    """A variant slug, name or alias, looked up in the command line's registry."""

    name = "variant"

    def convert(self, value, param, ctx):
        from daikifu.replay.variant import UnknownVariantError, Variant, VariantError
        if isinstance(value, Variant):
            return value
        try:
            return registry(ctx).load(value)
        except UnknownVariantError as exc:
            self.fail(str(exc).strip("'\""), param, ctx)
        except VariantError as exc:  # a broken variant file
            raise fail(str(exc)) from None

    def shell_complete(self, ctx, param, incomplete):
        from click.shell_completion import CompletionItem

        from daikifu.replay.variant import VariantError
        try:
            return [CompletionItem(v.slug) for v in registry(ctx).list() if v.slug.startswith(incomplete)]
        except (VariantError, click.ClickException):
            return []


class KeyValueParam(click.ParamType):
    """``KEY=VALUE`` for a variant option (parsed by the rules core's one option parser)."""

    name = "KEY=VALUE"

    def convert(self, value, param, ctx):
        from daikifu.replay.variant import OptionSyntaxError, parse_options
        if isinstance(value, tuple):
            return value
        try:
            ((key, val),) = parse_options([value]).items()
        except OptionSyntaxError as exc:
            self.fail(f"{exc} (e.g. forced-promotion=stuck)", param, ctx)
        return key, val


VARIANT = VariantParam()
KEY_VALUE = KeyValueParam()

position_option = click.option(
    "--position", "-p", metavar="STR",
    help="Start from this position string (SFEN-shaped; see docs/notation.md), or a USI position "
         "('startpos moves 7g7f ...', 'sfen <SFEN> moves ...'), instead of the variant's start "
         "position.  Quote it: it contains spaces.")
allow_impossible_option = click.option(
    "--allow-impossible", is_flag=True,
    help="Accept a --position that breaks the variant's position rules (too many pieces of a kind, nifu, "
         "a dead piece, the side not to move in check ...), as a composition may; what is let through is "
         "shown as a warning.")
option_option = click.option(
    "--option", "-o", "options", type=KEY_VALUE, multiple=True,
    help="Set a variant option, e.g. forced-promotion=stuck (repeatable; `daikifu variant show` "
         "lists each variant's options).")




# --- output --------------------------------------------------------------------------------------


def text_width(text: str) -> int:
    """Columns the text takes in a terminal (East Asian wide characters take two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def fit(text: str, width: int) -> str:
    """The text cut to ``width`` columns and padded to it."""
    out, used = [], 0
    for c in text:
        w = text_width(c)
        if used + w > width:
            break
        out.append(c)
        used += w
    return "".join(out) + " " * (width - used)
