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


# This folder is installed as daikifu.web; imported under another name (``import web`` from
# the repository's root) its classes would be other classes than daikifu.web's, and objects
# of one copy (pickled rule sets, errors) would not be those of the other.
if __name__ != "daikifu.web":
    raise ImportError(f"import this package as 'daikifu.web', not as {__name__!r} "
                      f"(e.g. from daikifu.web import create_app; install daikifu with: pip install -e .)", name=__name__)

import io
import os
import socket
from pathlib import Path

from flask import Flask, abort, current_app, request

from daikifu.archive.store import default_path
from daikifu.replay.variant import VariantRegistry

#: The largest request body accepted (an uploaded or pasted record), in bytes.
MAX_UPLOAD = 2 * 1024 * 1024
#: The host names the viewer answers to by default (the Host header): this machine's.  A page of
#: another site whose name is made to point at 127.0.0.1 (DNS rebinding) is refused.
LOCAL_HOSTS = ("localhost", "127.0.0.1", "::1")
#: Seconds a request waits for a writer (``daikifu import``) to let go of the archive before it
#: answers 503 "the archive is busy".
BUSY_TIMEOUT = 5.0


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


def host_name(host: str) -> str:
    """The name in a Host header, without port, brackets and final dot, in lower case.

    >>> host_name("LocalHost.:5000"), host_name("[::1]:8080"), host_name("127.0.0.1")
    ('localhost', '::1', '127.0.0.1')
    """
    host = host.strip().lower()
    if host.startswith("["):
        host = host[1:].partition("]")[0]
    elif host.count(":") == 1:
        host = host.partition(":")[0]
    return host.rstrip(".")


def _check_host():
    allowed = current_app.config["DAIKIFU_ALLOWED_HOSTS"]
    if "*" in allowed:
        return None
    if host_name(request.host) not in allowed:
        abort(400, description="This viewer answers only to the names " + ", ".join(allowed) + ": start it "
                               "with 'daikifu serve --allow-host NAME' to reach it under another name.")
    return None


def _bounded_chunked_body():
    """A body sent in chunks (no Content-Length) is read here, up to one byte over the limit:
    over it is a 413 like any other body (Werkzeug would cut it at the limit without a word);
    within it the request goes on with the body as if its length had been sent.  A body whose
    chunks are malformed (a chunk-size line that is no hexadecimal number, a missing line end)
    is a 400, on any route.  After either answer the rest of the body is not read: the
    connection is closed (see :class:`StopReading`), so a client cannot hold it open by
    sending on."""
    environ = request.environ
    if "chunked" not in environ.get("HTTP_TRANSFER_ENCODING", "").lower():
        return None
    limit = current_app.config["MAX_CONTENT_LENGTH"]
    stream, parts, size = environ["wsgi.input"], [], 0
    try:
        while limit is None or size <= limit:
            part = stream.read(65536 if limit is None else min(65536, limit + 1 - size))
            if not part:
                break
            parts.append(part)
            size += len(part)
    except (OSError, ValueError) as exc:  # Werkzeug's server: "Invalid chunk header" ...
        environ[StopReading.KEY] = True
        abort(400, description=f"The request body is malformed: its chunks cannot be read ({exc}).")
    if limit is not None and size > limit:
        environ[StopReading.KEY] = True
        abort(413, description=f"The request is too large: this viewer accepts at most {limit:,} bytes.")
    environ["wsgi.input"] = io.BytesIO(b"".join(parts))
    environ["CONTENT_LENGTH"] = str(size)
    environ.pop("HTTP_TRANSFER_ENCODING", None)
    environ.pop("wsgi.input_terminated", None)
    return None


def _close_after_refusal(response):
    if request.environ.get(StopReading.KEY):
        response.headers["Connection"] = "close"
    return response


class StopReading:
    """WSGI middleware: after the answer to a request whose body was refused unread (malformed
    or over the limit), the server reads nothing more from the connection.

    Werkzeug's development server drains what is left of a request body after the answer, with
    a blocking read of up to 10 MB: a client that keeps the connection open after an over-limit
    body (or keeps sending) held a server thread for minutes.  Once the answer is written, the
    socket's reading side is shut down (``werkzeug.socket``; other servers give none and are
    left to close the connection their own way), so that drain ends at once."""

    KEY = "daikifu.stop_reading"

    def __init__(self, app):
        self.app = app

    def __call__(self, environ, start_response):
        body = self.app(environ, start_response)
        if not environ.get(self.KEY):
            return body
        return self._then_stop(body, environ.get("werkzeug.socket"))

    @staticmethod
    def _then_stop(body, sock):
        try:
            yield from body
        finally:
            close = getattr(body, "close", None)
            if close is not None:
                close()
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RD)
            except OSError:  # already closed by the client
                pass


def _read_limits(value):
    """A :class:`ReadLimits` from what the configuration holds: one, ``NAME=VALUE`` texts, a
    ``{name: value}`` mapping (``comment``, or ``max_comment``), or None for the defaults; a bad
    value fails here, when the application is made, not on the first import."""
    from daikifu.formats.limits import DEFAULT_LIMITS, ReadLimits
    if value is None:
        return DEFAULT_LIMITS
    if isinstance(value, ReadLimits):
        return value
    if isinstance(value, dict):
        short = {v: k for k, v in ReadLimits.NAMES.items()}
        value = [f"{short.get(k, k)}={v}" for k, v in value.items()]
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    return ReadLimits.from_pairs(value)


def create_app(db: str | os.PathLike | None = None, *, allow_import: bool = False,
               variants: VariantRegistry | None = None, variants_dir=None,
               max_upload: int = MAX_UPLOAD, read_limits=None, allowed_hosts=LOCAL_HOSTS,
               busy_timeout: float = BUSY_TIMEOUT, config: dict | None = None) -> Flask:
    """A Flask application serving the archive at ``db`` (default: ``$DAIKIFU_DB`` or ``daikifu.db``).

    ``allow_import`` enables the one write endpoint (``/import`` adding a game); everything else
    only reads.  ``variants`` is where variants are found (a
    :class:`~daikifu.replay.VariantRegistry`; default: the bundled variants, those of
    ``DAIKIFU_VARIANTS`` as set now, and ``variants_dir``, as ``--variants-dir`` on the command
    line); the application keeps it and passes it to the readers and the archive, and changes
    nothing in the process's environment.  ``max_upload`` is the largest request body in bytes;
    ``read_limits`` bounds what the readers accept in an imported record (a
    :class:`~daikifu.formats.limits.ReadLimits`, or ``NAME=VALUE`` texts as ``--limit`` takes them;
    default: the readers' defaults): a game over a limit is shown invalid with its located error.
    ``allowed_hosts`` are the names the viewer answers to (the Host header; ``"*"`` for any),
    ``busy_timeout`` the seconds a request waits for a writer before 503.  The upload size and
    the reading limits are the configuration keys ``MAX_CONTENT_LENGTH`` and
    ``DAIKIFU_READ_LIMITS`` (which ``config`` may set too).
    """
    if variants is None:
        variants = VariantRegistry.default(variants_dir)
    app = Flask(__name__)
    app.config.update(
        DAIKIFU_DB=default_path(db),
        DAIKIFU_ALLOW_IMPORT=allow_import,
        DAIKIFU_VARIANTS=variants,
        MAX_CONTENT_LENGTH=max_upload,
        DAIKIFU_READ_LIMITS=read_limits,
        DAIKIFU_ALLOWED_HOSTS=tuple(host_name(h) if h != "*" else h for h in allowed_hosts),
        DAIKIFU_BUSY_TIMEOUT=busy_timeout,
        MAX_FORM_MEMORY_SIZE=max_upload,
        JSON_SORT_KEYS=False,
    )
    app.json.sort_keys = False
    app.json.ensure_ascii = False
    if config:
        app.config.update(config)
    app.config["DAIKIFU_READ_LIMITS"] = _read_limits(app.config["DAIKIFU_READ_LIMITS"])

    from . import analysis, db as db_module, engine, errors, games, importing, positions, stats, variants
    db_module.init_app(app)
    errors.init_app(app)
    app.add_template_filter(lambda path: Path(path).name if path else "", "filename")  # no server paths
    app.before_request(_check_host)
    app.before_request(_bounded_chunked_body)
    app.after_request(_security_headers)
    app.after_request(_close_after_refusal)
    for module in (games, positions, stats, variants, importing, analysis, engine):
        app.register_blueprint(module.bp)
    app.wsgi_app = StopReading(app.wsgi_app)
    return app
