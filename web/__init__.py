"""The web viewer: a Flask application over an archive (``daikifu serve``).

    from daikifu.web import create_app
    app = create_app("games.db")                      # read-only
    app = create_app("games.db", allow_import=True)   # the import page may add games

Each page has a blueprint of its own, and each page's data is also served as JSON under
``/api/`` (the same query functions as the command line, in :mod:`archive.queries` and
:mod:`archive.stats`).  The archive is opened read-only for every request unless imports are
allowed, so the viewer cannot change the database by accident.
"""

from __future__ import annotations

import os
from pathlib import Path

from flask import Flask

from daikifu.archive.store import default_path
from daikifu.replay.variant import ENV_VAR

#: The largest request body accepted (an uploaded or pasted record), in bytes.
MAX_UPLOAD = 2 * 1024 * 1024


# Pages use their own scripts and styles only (no inline script; SVG uses style attributes), are
# never framed, and do not send their addresses (with game ids and positions) elsewhere.
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
                               "img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; "
                               "frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",
}


def _security_headers(response):
    for name, value in SECURITY_HEADERS.items():
        response.headers.setdefault(name, value)
    return response


def create_app(db: str | os.PathLike | None = None, *, allow_import: bool = False, variants_dir=None,
               max_upload: int = MAX_UPLOAD, config: dict | None = None) -> Flask:
    """A Flask application serving the archive at ``db`` (default: ``$DAIKIFU_DB`` or ``daikifu.db``).

    ``allow_import`` enables the one write endpoint (``/import`` adding a game); everything else
    only reads.  ``variants_dir`` adds variant files, as ``--variants-dir`` does on the command line:
    it is added to ``DAIKIFU_VARIANTS`` for the rest of the process, because the record readers
    look variants up by name there (changing the environment per request would race between the
    server's threads).
    """
    if variants_dir:
        known = os.environ.get(ENV_VAR, "").split(os.pathsep)
        if str(variants_dir) not in known:
            os.environ[ENV_VAR] = os.pathsep.join(p for p in (*known, str(variants_dir)) if p)
    app = Flask(__name__)
    app.config.update(
        DAIKIFU_DB=default_path(db),
        DAIKIFU_ALLOW_IMPORT=allow_import,
        DAIKIFU_VARIANTS_DIR=str(variants_dir) if variants_dir else None,
        MAX_CONTENT_LENGTH=max_upload,
        MAX_FORM_MEMORY_SIZE=max_upload,
        JSON_SORT_KEYS=False,
    )
    app.json.sort_keys = False
    app.json.ensure_ascii = False
    if config:
        app.config.update(config)

    from . import analysis, db as db_module, errors, games, importing, positions, stats, variants
    db_module.init_app(app)
    errors.init_app(app)
    app.add_template_filter(lambda path: Path(path).name if path else "", "filename")  # no server paths
    app.after_request(_security_headers)
    for module in (games, positions, stats, variants, importing, analysis):
        app.register_blueprint(module.bp)
    return app
