"""``daikifu serve``: run the web viewer on an archive; ``daikifu image``: a picture of a stored
game's position (SVG, PNG) or of the whole game (animated GIF), as the viewer's "download image"
makes it."""

from __future__ import annotations

import threading

import click

from daikifu.archive import Archive, ArchiveError
from daikifu.archive.commands import db_option, resolve_game
from daikifu.clikit import CONTEXT, echo_json, fail, json_option, registry
from daikifu.formats.commands import limit_option

from . import LOCAL_HOSTS, MAX_UPLOAD, create_app


@click.command("serve", context_settings=CONTEXT)
@db_option
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on.  The default answers this machine only; 0.0.0.0 opens the "
                   "viewer to the network (it has no login).")
@click.option("--port", type=click.IntRange(0, 65535), default=5000, show_default=True, help="Port to listen on.")
@click.option("--allow-import", is_flag=True,
              help="Enable the import page, which can add games to the archive.  Without it the "
                   "database is opened read-only.")
@click.option("--max-upload", type=click.IntRange(1024), default=MAX_UPLOAD, show_default=True, metavar="BYTES",
              help="The largest record the import page accepts.")
@limit_option
@click.option("--allow-host", "allowed_hosts", multiple=True, metavar="NAME",
              help="Answer to this host name too (repeatable; '*' for any).  By default only localhost, "
                   "127.0.0.1 and ::1 are answered, against DNS rebinding; give the names the viewer is "
                   "reached under when --host opens it to the network.")
@click.option("--debug", is_flag=True, help="Flask's debug mode for working on the viewer: reloads on code changes and enables Werkzeug's "
                   "debugger.  Never on a server others can reach.")
@click.option("--engine", "engine", is_flag=True,
              help="Let the analysis board ask the engine (HaChu) about the position shown: a search of "
                   "--engine-movetime by at most --engine-processes processes at once.  Positions the "
                   "archive has analysed (daikifu analyse) are answered from it, with or without this.")
@click.option("--engine-path", metavar="PATH", help="The XBoard engine to run (default: hachu on PATH or in /usr/games).")
@click.option("--engine-processes", type=click.IntRange(1, 8), default=2, show_default=True,
              help="At most this many engine searches at once (more requests get 503).")
@click.option("--engine-movetime", type=click.IntRange(100, 10_000), default=1000, show_default=True, metavar="MS",
              help="How long the engine searches a position for the analysis board.")
@click.pass_context
def serve_command(ctx, db_path, host, port, allow_import, max_upload, limits, allowed_hosts, debug, engine,
                  engine_path, engine_processes, engine_movetime):
    """Serve the web viewer for the archive: game list, step-through replay, position search
    and explorer, statistics and variant pages, with a JSON API under /api/.

    \b
    Examples:
      daikifu serve                         # http://127.0.0.1:5000/ on daikifu.db
      daikifu serve --db games.db --port 8080
      daikifu serve --allow-import          # enables /import (the only page that writes)
      daikifu serve --engine                # the analysis board asks HaChu
      daikifu serve --host 0.0.0.0 --allow-host shogi.example
    """
    try:  # fail now, not on the first request
        Archive(db_path, readonly=not allow_import, create=allow_import).close()
    except ArchiveError as exc:
        raise fail(str(exc)) from None
    engine_config = {}
    if engine:
        from daikifu.replay.engine import NO_ENGINE, find_engine
        found = find_engine(engine_path)
        if found is None:
            click.echo(f"daikifu: {NO_ENGINE} (the viewer runs without the engine)", err=True)
        else:
            engine_config = {"DAIKIFU_ENGINE": found, "DAIKIFU_ENGINE_PROCESSES": engine_processes,
                             "DAIKIFU_ENGINE_MOVETIME": engine_movetime}
    app = create_app(db_path, allow_import=allow_import, max_upload=max_upload, read_limits=limits,
                     allowed_hosts=(*LOCAL_HOSTS, *allowed_hosts),
                     variants=registry(ctx), config=engine_config)
    # the statistics page replays every game the first time (about 0.6 s for the sample archive):
    # do it now, in the background, so that the first visitor does not wait
    threading.Thread(target=lambda: app.test_client().get("/stats"), daemon=True).start()
    mode = "imports allowed" if allow_import else "read-only"
    click.echo(f"daikifu: serving {db_path} ({mode}) on http://{host}:{port}/  (Ctrl-C to stop)", err=True)
    app.run(host=host, port=port, debug=debug, use_reloader=debug)


@click.command("image", context_settings=CONTEXT)
@click.argument("game_ref", metavar="GAME")
@click.option("--ply", type=click.IntRange(0), metavar="N", help="The position after N plies (default: the end).")
@click.option("--gif", is_flag=True, help="An animated GIF of the whole main line: a frame per ply and the start.")
@click.option("-o", "--output", required=True, type=click.Path(dir_okay=False, writable=True), metavar="FILE",
              help="Where to write the picture; its ending (.svg, .png, .gif) names the format.")
@click.option("--style", type=click.Choice(("algebraic", "japanese", "western", "shogi"), case_sensitive=False),
              help="The coordinates' and the caption's notation (default: the variant's own style).")
@click.option("--labels", type=click.Choice(("kanji", "ids", "upright")), default="kanji", show_default=True,
              help="Piece labels: kanji (IDs where a piece has none), IDs, or IDs upright for both sides "
                   "(the side shown by the piece's direction and colour).")
@click.option("--flip", is_flag=True, help="The board seen from the second player's side.")
@db_option
@json_option
@click.pass_context
def image_command(ctx, game_ref, ply, gif, output, style, labels, flip, db_path, as_json):
    """Write a picture of a stored game's position (SVG, PNG) or of the whole game (GIF).

    The position after --ply N (default: the end) as SVG or PNG, or with --gif the whole main line
    as an animated GIF, a frame per ply with the last move marked.

    The picture is the viewer's board, large enough for every label to be at least 9 pixels tall
    (a 16x16 board is about 830 pixels wide), with the pieces in hand and a caption naming the
    last move; the viewer's "download image" link gives the same bytes for the same options.
    PNG and GIF need the Cairo library (Debian: libcairo2).

    \b
    Examples:
      daikifu image 12 --ply 40 -o pos.svg
      daikifu image 12 --ply 40 --labels upright -o pos.png
      daikifu image 12 --gif -o game.gif
    """
    from daikifu.formats.styles import StyleError, move_style

    from .images import ImageError, image_bytes

    fmt = "gif" if gif else output.rsplit(".", 1)[-1].lower() if "." in output else ""
    if fmt not in ("svg", "png", "gif"):
        raise click.BadParameter(f"{output}: name a .svg, .png or .gif file (or give --gif)", param_hint="'-o'")
    if gif and ply is not None:
        raise click.BadParameter("a GIF shows every ply: leave out --ply", param_hint="'--ply'")
    try:
        archive = Archive(db_path, readonly=True, variants=registry(ctx))
    except ArchiveError as exc:
        raise fail(str(exc)) from None
    with archive:
        game_id = resolve_game(archive, game_ref)
        if archive.game(game_id) is None:
            raise fail(f"no game {game_id} in {db_path}")
        try:
            game = archive.load_game(game_id)
        except (ArchiveError, ValueError) as exc:
            raise fail(f"game {game_id}: cannot be read again: {exc}") from None
    plies = len(game.mainline_moves())
    if ply is not None and ply > plies:
        raise click.BadParameter(f"game {game_id} has {plies} plies", param_hint="'--ply'")
    try:
        chosen = move_style(game.variant, style)
        data = image_bytes(game, fmt, ply, style=chosen, labels=labels, flip=flip)
    except (ImageError, StyleError) as exc:
        raise fail(f"game {game_id}: {exc}") from None
    try:
        with open(output, "wb") as fh:
            fh.write(data)
    except OSError as exc:
        raise fail(f"{output}: cannot write: {exc.strerror}") from None
    facts = {"game": game_id, "output": output, "format": fmt, "bytes": len(data), "style": chosen,
             "labels": labels, "ply": None if gif else (ply if ply is not None else len(game.mainline_moves())),
             "frames": len(game.mainline_moves()) + 1 if gif else 1}
    if as_json:
        echo_json(facts)
    else:
        click.echo(f"wrote {output}: game {game_id}, " + (f"{facts['frames']} frames" if gif else f"ply {facts['ply']}")
                   + f", {len(data)} bytes")
