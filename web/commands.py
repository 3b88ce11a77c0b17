"""``daikifu serve``: run the web viewer on an archive (the only command that loads Flask)."""

from __future__ import annotations

import threading

import click

from daikifu.archive import Archive, ArchiveError
from daikifu.archive.commands import db_option
from daikifu.clikit import CONTEXT, fail, registry
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
