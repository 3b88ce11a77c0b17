"""The rules core's commands: ``variants``, ``variant show``/``variant import``, ``moves``,
``perft`` and ``demo`` (the root group, :mod:`daikifu.cli`, loads them on demand).

Every command takes ``--json`` for machine-readable output.  Variant files are looked up in the
bundled directory, then in the directories of ``DAIKIFU_VARIANTS``, then in ``--variants-dir``.
"""

from __future__ import annotations

import random
import time
from typing import TYPE_CHECKING

import click

from daikifu.clikit import (CONTEXT, VARIANT, allow_impossible_option, echo_json as _echo_json, fail, json_option,
                            option_option, position_option, registry, wrap as _wrap)

# the rules core is imported inside each command: a command's --help loads no board and no rules
if TYPE_CHECKING:
    from .board import Board, Move
    from .variant import Variant

PLAYERS = ("first", "second")


def _board(variant: Variant, position: str | None = None, options=(), allow_impossible: bool = False) -> Board:
    """A board for the variant, turning every problem into a one-line click error: a position
    that breaks a position rule (:mod:`replay.legality`) too, unless ``allow_impossible``; the
    rules it breaks are then written as warnings."""
    from .board import Board
    from .legality import check_position
    from .position import PositionError
    from .usi import UsiError, board_from_usi, looks_like_usi_position
    from .variant import IncompleteVariantError, VariantError
    try:
        variant.require_playable()
    except IncompleteVariantError as exc:
        raise fail(str(exc)) from None
    opts = dict(options)
    try:
        variant.resolve_options(opts)
    except VariantError as exc:
        raise click.BadParameter(str(exc), param_hint="'--option'") from None
    try:
        board = Board(variant, None, opts)
    except (VariantError, PositionError) as exc:
        raise fail(f"{variant.name}: {exc}") from None
    if position is not None:
        try:
            if looks_like_usi_position(position):
                board = board_from_usi(board.rules, position)  # [position] startpos|sfen ... moves ...
            else:
                board.set_position(position, allow_exposed=True)  # the check below names the rule
            for problem in check_position(board.rules, board.root_position(), allow_impossible or None):
                click.echo(f"warning: --position breaks a rule, allowed: {problem.kind}: {problem.message}", err=True)
        except UsiError as exc:
            raise click.BadParameter(f"USI position: {exc}", param_hint="'--position'") from None
        except (PositionError, ValueError) as exc:
            raise click.BadParameter(str(exc), param_hint="'--position'") from None
    return board


def _move_order(board: Board):
    from .squares import square_file, square_rank
    index = {p.id: p.index for p in board.variant.pieces}

    def key(m: Move):
        if m.drop is not None:
            return (1, index.get(m.drop, 0), 0, 0, square_file(m.to_square), square_rank(m.to_square), (), 0)
        piece = board.piece_at(m.from_square)
        return (0, index.get(piece.id, 0), square_file(m.from_square), square_rank(m.from_square),
                square_file(m.to_square), square_rank(m.to_square), m.kills,
                {None: 0, True: 1, False: 2}[m.promotion])
    return key


def _sorted_moves(board: Board) -> tuple[list[Move], dict]:
    from .notation import notations
    legal = board.legal_moves()
    written = notations(board, legal)
    return sorted(legal, key=_move_order(board)), written


def _outcome_text(board: Board) -> str:
    outcome = board.outcome()
    if outcome is None:
        return ""
    winner = "a draw" if outcome.winner is None else f"the {PLAYERS[outcome.winner]} player wins"
    return f"{outcome.termination}: {winner} ({outcome.result()})"


def _outcome_json(outcome):
    if outcome is None:
        return None
    return {"termination": outcome.termination, "winner": None if outcome.winner is None else PLAYERS[outcome.winner],
            "result": outcome.result()}


# --- variants ------------------------------------------------------------------------------------


@click.command("variants", context_settings=CONTEXT)
@json_option
@click.pass_context
def variants_command(ctx, as_json):
    """List every known variant: slug, name, board size, status.

    A variant whose status is "incomplete" is listed but cannot be played until its rules are
    complete.  "reconstructed" marks variants where parts of the rules or setup are a
    reconstruction rather than taken from the sources (see `daikifu variant show SLUG`).

    \b
    Examples:
      daikifu variants
      daikifu variants --json
      daikifu --variants-dir ./my-variants variants
    """
    from .variant_info import subvariants, variant_summary
    found = registry(ctx).list()
    broken = registry(ctx).errors()
    for error in broken:  # a broken file does not hide the others; say why it was left out
        click.echo(f"warning: not loaded: {error}", err=True)
    if as_json:
        _echo_json([variant_summary(v) for v in found])
        return
    rows = []
    for v in found:
        rows.append((v.slug, v.name, f"{v.files}x{v.ranks}", v.status, "parts reconstructed" if v.reconstructed else ""))
        for sub in subvariants(v):
            note = "subvariant: --option " + sub["option"] + (" (default)" if sub["default"] else "")
            rows.append(("", "  " + sub["name"], sub["board"], v.status, note))
    header = ("SLUG", "NAME", "BOARD", "STATUS", "NOTES")
    widths = [max(len(r[i]) for r in rows + [header]) for i in range(len(header))]
    for row in [header] + rows:
        click.echo("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
    if any(v.reconstructed for v in found):
        click.echo("\n'parts reconstructed': some rules or setup are reconstructions; "
                   "`daikifu variant show SLUG` says which.")


# --- variant show --------------------------------------------------------------------------------


@click.group("variant", context_settings=CONTEXT)
def variant_group():
    """Look at one variant's definition.

    \b
    Examples:
      daikifu variant show chu-kagamigi
    """


@variant_group.command("show")
@click.argument("name", type=VARIANT)
@json_option
def variant_show(name: Variant, as_json):
    """Show a variant: pieces and their moves, rules, options and provenance.

    NAME is a slug, a name or an alias (case and punctuation ignored).  Moves are told for the
    first player: "forward" is towards the opponent, "left" towards file a.  Choices that are
    reconstructions rather than taken from the sources are marked [RECONSTRUCTED].

    \b
    Examples:
      daikifu variant show shogi
      daikifu variant show "Dai Kagamigi"
      daikifu variant show chu-kagamigi --json
    """
    from .variant_info import piece_betza, piece_moves, rule_lines, variant_json
    v = name
    if as_json:
        _echo_json(variant_json(v))
        return
    echo = click.echo
    echo(f"{v.name} ({v.slug})")
    status = v.status + (" - " + " ".join(v.missing.split()) if v.missing and not v.playable else "")
    echo(f"  board: {v.files} files x {v.ranks} ranks")
    echo(_wrap(status, "          ", "  status: "))
    if v.reconstructed:
        echo("  [RECONSTRUCTED] parts of the rules or setup are reconstructions: see Provenance")
    if v.aliases:
        echo(f"  aliases: {', '.join(v.aliases)}")
    if v.summary:
        echo(_wrap(v.summary, "  "))
    if v.sources:
        echo("  sources:")
        for s in v.sources:
            echo(_wrap(s, "      ", "    - "))
    if v.start:
        echo(f"  start: {v.start}")

    echo(f"\nPieces ({len(v.pieces)}):")
    rows = [(p.id, p.name, piece_betza(p), p.promotes or "-", p.kanji or "") for p in v.pieces]
    header = ("ID", "NAME", "XBETZA", "PROMOTES TO", "KANJI")
    widths = [min(40, max(len(r[i]) for r in rows + [header])) for i in range(len(header))]
    echo("  " + "  ".join(c.ljust(w) for c, w in zip(header, widths)).rstrip())
    pad = "  " + " " * (widths[0] + 2)
    for p, row in zip(v.pieces, rows):
        royal = "  (royal)" if p.royal else ""
        echo("  " + "  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() + royal)
        for line in piece_moves(p):
            echo(_wrap(line, pad + "  ", pad))

    echo("\nRules:")
    for label, text in rule_lines(v.rules, v):
        echo(_wrap(text, "    ", f"  {label}: "))

    if v.options:
        echo("\nOptions (set with --option NAME=VALUE):")
        for name_, o in v.options.items():
            kind = ", each choice a subvariant" if getattr(o, "subvariant", False) else ""
            echo(f"  {name_} (default: {o.default}{kind})")
            if o.description:
                echo(_wrap(o.description, "      "))
            for c in o.choices.values():
                mark = " [default]" if c.name == o.default else ""
                echo(_wrap(c.description or "", "          ", f"    {c.name}{mark}: "))

    if v.provenance:
        echo("\nProvenance:")
        for pr in v.provenance:
            flag = "[RECONSTRUCTED] " if pr.reconstructed else ""
            echo(f"  {flag}{pr.topic} (confidence: {pr.confidence})")
            echo(_wrap(pr.choice, "      ", "    choice: "))
            echo(_wrap(pr.source, "      ", "    source: "))
            if pr.alternative:
                echo(_wrap(pr.alternative, "      ", "    alternative: "))


# --- moves ---------------------------------------------------------------------------------------


def _move_json(board: Board, move: Move, written: dict) -> dict:
    from .squares import square_name
    from .usi import move_to_usi
    return {
        "move": written[move],
        "usi": move_to_usi(board, move),
        "from": None if move.from_square is None else square_name(move.from_square),
        "to": square_name(move.to_square),
        "captures": [square_name(s) for s in board.captured_squares(move)],
        "promote": move.promotion,
        "drop": move.drop,
    }


def show_moves(variant, position, options, checks, as_json, texts=None, allow_impossible: bool = False) -> None:
    """What ``daikifu moves`` prints.  ``texts(board, moves) -> {move: text}`` writes the moves
    listed (default: daikifu's notation, as "move" in the JSON; given, its text is "text" there
    too): the command line's --style (:mod:`daikifu.formats.commands`) passes one."""
    from .notation import check_moves
    board = _board(variant, position, options, allow_impossible)
    if checks:
        answers = check_moves(board, checks)
        if as_json:
            _echo_json(answers)
            return
        for a in answers:
            verdict = f"legal: {a['notation']}" if a["legal"] else f"illegal: {a['reason']}"
            click.echo(f"{a['move']}: {verdict}")
        return
    moves, written = _sorted_moves(board)
    shown = written if texts is None else texts(board, moves)
    if as_json:
        out = [_move_json(board, m, written) for m in moves]
        if texts is not None:
            for entry, m in zip(out, moves):
                entry["text"] = shown[m]
        _echo_json(out)
        return
    side = PLAYERS[board.turn]
    if not moves:
        ending = _outcome_text(board)
        click.echo(f"No legal moves for the {side} player" + (f": {ending}" if ending else "."))
        return
    click.echo(f"{len(moves)} legal moves for the {side} player:")
    for m in moves:
        click.echo(f"  {shown[m]}")


# --- perft ---------------------------------------------------------------------------------------



@click.command("perft", context_settings=CONTEXT)
@click.argument("variant", type=VARIANT)
@click.argument("depth", type=click.IntRange(0, 20))
@position_option
@allow_impossible_option
@option_option
@click.option("--divide", is_flag=True, help="Also give the count below each legal first move.")
@click.option("--routes", is_flag=True,
              help="Count as lishogi does: a Lion's move once per way it can be written (the jump and each "
                   "two-step route through an empty square; a pass once per square stepped on).")
@json_option
def perft_command(variant, depth, position, allow_impossible, options, divide, routes, as_json):
    """Count the move sequences DEPTH plies deep (a check of move generation).

    For shogi from the start, depth 1 is 30, 2 is 900, 3 is 25470.  With --divide the count is
    split by first move, keyed by the move's notation, to locate a difference between two engines.

    \b
    Examples:
      daikifu perft shogi 3
      daikifu perft shogi 2 --divide
      daikifu perft dai-kagamigi 2 --json
      daikifu perft chu-shogi 1 -p "12/12/12/12/12/12/5N6/12/12/12/12/12 b" --routes
    """
    from .perft import perft, route_count
    board = _board(variant, position, options, allow_impossible)
    start = time.perf_counter()
    split = None
    if divide and depth >= 1:
        moves, written = _sorted_moves(board)
        split = {}
        for m in moves:
            n = route_count(board, m) if routes else 1
            board.push(m)
            count = perft(board, depth - 1, routes) * n
            board.pop()
            label = written[m]
            if label in split:  # should not happen: notations are unique; keep both
                label = f"{label} ({m.uci()})"
            split[label] = count
        nodes = sum(split.values())
    else:
        nodes = perft(board, depth, routes)
    seconds = time.perf_counter() - start
    rate = nodes / seconds if seconds > 0 else 0.0
    if as_json:
        data = {"variant": variant.slug, "position": board.position(), "depth": depth, "nodes": nodes,
                "seconds": round(seconds, 4), "nodes_per_second": round(rate)}
        if split is not None:
            data["divide"] = split
        _echo_json(data)
        return
    if split is not None:
        width = max((len(k) for k in split), default=0)
        for label, count in split.items():
            click.echo(f"{label.ljust(width)}  {count}")
        click.echo("")
    click.echo(f"perft({depth}) = {nodes}  ({seconds:.2f} s, {rate:,.0f} nodes/s)")


# --- demo ----------------------------------------------------------------------------------------


def default_demo_variant(ctx) -> Variant:
    from .variant import UnknownVariantError, VariantError
    for name in ("dai-kagamigi", "shogi"):
        try:
            v = registry(ctx).load(name)
        except UnknownVariantError:
            continue
        except VariantError as exc:
            raise fail(str(exc)) from None
        if v.playable:
            return v
    raise fail("no playable variant found for the demo; name one: daikifu demo VARIANT")


def show_demo(ctx, variant, plies, seed, capture_bias, options, as_json, texts=None, picture=None) -> None:
    """What ``daikifu demo`` prints.  ``texts(board, move) -> str`` writes each move
    (default: daikifu's notation) and ``picture(board) -> str`` draws the final board (default:
    :meth:`Board.diagram`): the command line's --style (:mod:`daikifu.formats.commands`) passes both."""
    from .notation import notations
    from .randomplay import random_game
    if variant is None:
        variant = default_demo_variant(ctx)
    board = _board(variant, None, options)
    written_moves: list[str] = []  # daikifu's notation
    shown_moves: list[str] = []  # as printed: the style's text when one is given

    def record(b, move, legal):
        written_moves.append(notations(b, legal)[move])
        shown_moves.append(texts(b, move) if texts else written_moves[-1])

    game = random_game(board, plies, random.Random(seed), capture_bias, on_move=record)
    rate = len(game.moves) / game.seconds if game.seconds > 0 else 0.0
    ending = _outcome_text(board) if game.outcome is not None else ""
    if as_json:
        _echo_json({"variant": variant.slug, "seed": seed, "plies": len(game.moves), "moves": written_moves,
                    "uci": [m.uci() for m in game.moves], "outcome": _outcome_json(game.outcome),
                    "position": board.position(), "diagram": picture(board) if picture else board.diagram(),
                    "seconds": round(game.seconds, 4), "plies_per_second": round(rate, 1)}
                   | ({"texts": shown_moves} if texts else {}))
        return
    click.echo(f"{variant.name}: {len(game.moves)} plies of random legal moves "
               f"(seed {seed}, captures preferred {capture_bias:.0%} of the time)")
    if variant.reconstructed:
        click.echo("[RECONSTRUCTED] parts of this variant's rules or setup are reconstructions "
                   f"(daikifu variant show {variant.slug})")
    click.echo("")
    width = max((len(s) for s in shown_moves), default=0) + 2
    for i in range(0, len(shown_moves), 2):
        pair = shown_moves[i:i + 2]
        click.echo(f"{i // 2 + 1:>4}. " + "".join(s.ljust(width) for s in pair).rstrip())
    if ending:
        click.echo(f"\nGame over: {ending}")
    click.echo("")
    click.echo(picture(board) if picture else board.diagram())
    click.echo("")
    click.echo(f"{len(game.moves)} plies in {game.seconds:.2f} s: {rate:,.0f} plies/s "
               f"(generating every legal move, then playing one)")
    click.echo(f"position: {board.position()}")


@variant_group.command("import")
@click.argument("page", type=click.Path(exists=True, dir_okay=False, allow_dash=True))
@click.option("--out", "-o", type=click.Path(dir_okay=False), help="Write the variant file here (default: print it).")
@click.option("--slug", help="Slug for the new variant (default: from the page's title).")
@click.option("--name", help="Display name (default: the page's title).")
@click.option("--index", type=click.IntRange(0), default=0, show_default=True,
              help="Which diagram of the page, when it has several.")
@click.option("--piece", "pieces", multiple=True, metavar="ID=XBETZA",
              help="Give a piece's moves explicitly, e.g. where the page's string is malformed (repeatable).")
@json_option
def variant_import(page, out, slug, name, index, pieces, as_json):
    """Make a variant file from a chessvariants.com Interactive Diagram.

    PAGE is a saved HTML page or a file holding the bare definition line (files=... ranks=...
    name:ID:XBetza:image:squares ...).  Every parameter that cannot be mapped, every duplicate
    ID and every move string the engine rejects is reported, never guessed; a variant with a
    rejected string is written as incomplete until --piece supplies it.

    \b
    Examples:
      daikifu variant import page.html --out my-variant.toml
      daikifu variant import page.html --piece W=F3sW -o dai.toml
    """
    from daikifu.replay.diagram_import import DiagramImportError, import_page
    text = click.get_text_stream("stdin").read() if page == "-" else open(page, encoding="utf-8", errors="replace").read()
    overrides = {}
    for item in pieces:
        key, sep, value = item.partition("=")
        if not sep or not key or not value:
            raise click.BadParameter(f"{item!r}: expected ID=XBETZA", param_hint="--piece")
        overrides[key] = value
    try:
        result = import_page(text, slug=slug, name=name, index=index, source=page,
                             betza_overrides=overrides or None)
    except DiagramImportError as exc:
        raise fail(str(exc)) from None
    if out:
        with open(out, "w", encoding="utf-8") as fh:
            fh.write(result.toml_text)
    if as_json:
        _echo_json({"slug": result.data["slug"], "status": result.data.get("status", "playable"),
                    "out": out, "warnings": list(result.warnings), "variant": None if out else result.data})
        return
    if not out:
        click.echo(result.toml_text, nl=False)
    for w in result.warnings:
        click.echo(f"warning: {w}", err=True)
    if out:
        click.echo(f"wrote {out}: {result.data['slug']} ({result.data.get('status', 'playable')}), "
                   f"{len(result.warnings)} warnings", err=True)
