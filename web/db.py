"""The archive and the replayer of the current request (opened on first use, closed at its end)."""

from __future__ import annotations

from flask import Flask, abort, current_app, g

from daikifu.archive.queries import Replayer, tune_for_queries
from daikifu.archive.store import Archive, ArchiveError
from daikifu.replay.variant import VariantRegistry

from .errors import BUSY, is_busy


def variants() -> VariantRegistry:
    """The application's variant registry (see :func:`daikifu.web.create_app`)."""
    return current_app.config["DAIKIFU_VARIANTS"]


def archive() -> Archive:
    """The request's archive: read-only unless the application allows imports."""
    if "archive" not in g:
        try:
            a = Archive(current_app.config["DAIKIFU_DB"], readonly=not current_app.config["DAIKIFU_ALLOW_IMPORT"],
                        create=False, timeout=current_app.config["DAIKIFU_BUSY_TIMEOUT"], variants=variants())
        except ArchiveError as exc:
            if is_busy(exc.__cause__ or exc.__context__):
                abort(503, description=BUSY)
            # the reason names the database file: it goes to the server's log, not to the page
            current_app.logger.error("%s", exc)
            abort(503, description="The archive cannot be opened; the server's log says why.")
        tune_for_queries(a)
        g.archive = a
    return g.archive


def replayer() -> Replayer:
    """Replays stored games for the request (search confirmation, the viewer's positions)."""
    if "replayer" not in g:
        g.replayer = Replayer(archive(), shared=current_app.extensions.setdefault("daikifu_replay_cache", {}))
    return g.replayer


def _close(exc=None) -> None:
    a = g.pop("archive", None)
    g.pop("replayer", None)
    if a is not None:
        a.close()


def init_app(app: Flask) -> None:
    app.teardown_appcontext(_close)
