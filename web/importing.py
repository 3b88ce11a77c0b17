"""The import page (``/import``) and ``/api/import``: the only way the viewer writes.

Both exist only when the application allows imports (``daikifu serve --allow-import``); otherwise
every request to them, GET or POST, gets 404 with a message saying how to enable them (the
endpoints do not exist for a read-only viewer, so 404 rather than 403).

A record is pasted or uploaded (any format daikifu reads, recognised by content) and read through
the one reading pipeline (:mod:`formats.reading`), as ``daikifu import`` and ``validate`` read it:
the same bytes give the same games and tags.  Input that is no record gets the pipeline's message
("not a record in a format daikifu reads ...").  It goes through two steps, both POSTs to
``/import``:

1. ``action=check`` reads and validates every game and shows its verdict: valid, or invalid with
   the error shown in place (the record's lines around it, a caret under the column); games
   already in the archive are named.  Nothing is written.
2. ``action=add`` (the text comes back in a hidden field) reads the text again and stores the
   games in one transaction with an ``imports`` row, so they are stored all or none; a game
   already stored is reported as a duplicate.  Invalid games are *not* stored unless
   ``store_invalid`` is ticked (then they are stored with status invalid, as ``daikifu import``
   does by default).

The forms carry a token derived from a random per-application secret; a POST without the right
token gets 400.  ``/api/import`` takes JSON only (``{"text", "name", "action", "store_invalid"}``),
which a cross-site form cannot send, so it needs no token.  A body larger than the application's
``MAX_CONTENT_LENGTH`` gets 413 with the limit in the message; a game beyond the readers' limits
(``DAIKIFU_READ_LIMITS``: record, line and comment length, nesting of variations) is shown
invalid with its located error, as ``daikifu validate --limit`` shows it.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from dataclasses import dataclass, field

from flask import Blueprint, abort, after_this_request, current_app, g, jsonify, render_template, request, url_for
from werkzeug.exceptions import RequestEntityTooLarge

from daikifu.archive.importer import import_records
from daikifu.archive.store import Archive, Record, make_record
from daikifu.formats.game import GameError
from daikifu.formats.reading import NotARecordError, read_text, reader_failure, record_text

from .db import archive, variants

bp = Blueprint("importing", __name__)

CONTEXT_LINES = 2  # record lines shown before and after an error's line
DEFAULT_NAME = "pasted record"


@bp.before_request
def _only_when_allowed():
    if not current_app.config.get("DAIKIFU_ALLOW_IMPORT"):
        abort(404, description="Importing is switched off: this viewer was started read-only. "
                               "Start it with 'daikifu serve --allow-import' to add games from the browser.")


#: The cookie that names the browser's import session (the form token is bound to it).
SESSION_COOKIE = "daikifu_import"


def _session_id() -> str:
    """This browser's import session: the cookie's value, or a new one (sent with the answer)."""
    sid = request.cookies.get(SESSION_COOKIE, "")
    if len(sid) == 64 and all(c in "0123456789abcdef" for c in sid):
        return sid
    if "daikifu_new_session" not in g:
        g.daikifu_new_session = secrets.token_hex(32)

        @after_this_request
        def _set_cookie(response):
            response.set_cookie(SESSION_COOKIE, g.daikifu_new_session, httponly=True, samesite="Strict")
            return response
    return g.daikifu_new_session


def form_token() -> str:
    """The token the import forms carry: an HMAC of this browser's import session (a cookie) with
    the application's ``SECRET_KEY`` if it has one, else with a random secret made once per
    application (per process).  A token is good for one session only: a page of another browser,
    or a token seen elsewhere, is refused."""
    key = current_app.config.get("SECRET_KEY")  # set it when several processes serve the archive
    secret = (key.encode() if isinstance(key, str) else key) if key else \
        current_app.extensions.setdefault("daikifu_import_secret", secrets.token_bytes(32))
    return hmac.new(secret, b"daikifu import form:" + _session_id().encode(), hashlib.sha256).hexdigest()


def _too_large() -> None:
    limit = current_app.config.get("MAX_CONTENT_LENGTH")
    abort(413, description=f"The record is too large: this viewer accepts at most {limit:,} bytes per "
                           f"request. Split the file, or import it on the command line (daikifu import FILE).")


# --- reading -------------------------------------------------------------------------------------


@dataclass
class Checked:
    """One game of the submitted text and what became of it."""

    number: int
    record: Record | None  # None: the text could not be read as a record at all
    error: dict | None = None
    context: list = field(default_factory=list)  # (line number, text, is the error line), caret column
    caret: int | None = None
    stored_id: int | None = None  # the game already in the archive with the same digest
    verdict: str | None = None  # after adding: imported, duplicate, prefix, invalid, skipped
    game_id: int | None = None

    @property
    def valid(self) -> bool:
        return self.record is not None and self.record.valid

    def as_dict(self) -> dict:
        rec = self.record
        out = {"number": self.number, "status": rec.status if rec else "unreadable",
               "variant": rec.variant if rec else None, "sente": rec.headers.get("sente") if rec else None,
               "gote": rec.headers.get("gote") if rec else None, "result": rec.result if rec else None,
               "plies": rec.ply_count if rec and rec.valid else None, "first_line": rec.source_line if rec else None,
               "error": self.error, "error_text": error_text(self.error) if self.error else None,
               "already_stored": self.stored_id}
        if self.verdict is not None:
            out["verdict"] = self.verdict
            out["game_id"] = self.game_id
            out["url"] = _game_url(self.game_id)
        return out


def error_text(error: dict) -> str:
    """An error held as a dict, as one line (the command line's wording)."""
    return str(GameError.from_dict(error))


def decode_upload(data: bytes, name: str | None = None) -> str:
    """Upload bytes as text, decoded as the reading pipeline decodes them (the text shown and sent
    back for the add step is exactly the text read)."""
    try:
        return record_text(data, name=name)[0]
    except NotARecordError:
        return record_text(data, name=name, fmt="kif")[0]  # shown as decoded for a Japanese record


def read_record(text: str, name: str, variants=None, limits=None) -> tuple[str | None, list[Checked]]:
    """The format found and every game of ``text``, validated (format None: no record); variant
    names are looked up in ``variants`` (the application passes its registry); ``limits`` bounds
    what the readers accept (the application passes ``DAIKIFU_READ_LIMITS``)."""
    try:
        text, fmt = record_text(text, name=name)
    except NotARecordError as exc:
        return None, [Checked(1, None, {"message": str(exc)})]
    checked = []
    try:
        records = [make_record(g, fmt) for g in read_text(text, fmt=fmt, name=name, variants=variants, limits=limits)]
    except Exception as exc:  # a reader's failure (a bug, nesting past Python's recursion): said, not a 500
        return fmt, [Checked(1, None, {"message": f"{name}: {reader_failure(exc, fmt)}"})]
    lines = text.splitlines()
    for n, rec in enumerate(records, start=1):
        item = Checked(n, rec, rec.error)
        if rec.error and rec.error.get("line"):
            item.context, item.caret = _context(lines, rec.error["line"], rec.error.get("column"))
        checked.append(item)
    return fmt, checked


def _context(lines: list[str], line: int, column: int | None):
    """The lines around ``line`` (1-based) as (number, text, is the error line), and the caret's
    column (1-based) under the error line."""
    first, last = max(1, line - CONTEXT_LINES), min(len(lines), line + CONTEXT_LINES)
    rows = [(n, lines[n - 1], n == line) for n in range(first, last + 1)]
    return rows, column if column and column >= 1 else None


def _mark_stored(a: Archive, checked: list[Checked]) -> None:
    """Name the games already in the archive (same digest), without writing anything."""
    for item in checked:
        if item.record is not None:
            item.stored_id = a.game_id_of(item.record.digest)


def add_games(a: Archive, checked: list[Checked], name: str, fmt: str, store_invalid: bool) -> dict:
    """Store the games with the archive's import function (one transaction, an ``imports`` row);
    returns the counts."""
    readable = [item for item in checked if item.record is not None]
    summary, stored = import_records(a, [item.record for item in readable], f"web import: {name}", fmt,
                                     skip_invalid=not store_invalid)
    for item, (game_id, verdict) in zip(readable, stored):
        item.game_id = game_id
        item.verdict = "skipped" if verdict == "invalid" and game_id is None else verdict
    counts = summary.counts()
    unreadable = len(checked) - len(readable)  # nothing to store: counted as invalid games
    counts["games"] += unreadable
    counts["invalid"] += unreadable
    for item in checked:
        if item.record is None:
            item.verdict = "skipped"
    return counts


def _game_url(game_id: int | None) -> str | None:
    return None if game_id is None else url_for("games.view", game_id=game_id)


# --- the page ------------------------------------------------------------------------------------


@bp.get("/import")
def form():
    return render_template("import.html", token=form_token(), text="", name="", checked=None)


def _submitted() -> tuple[str, str, str, bool]:
    """(action, text, name, store_invalid) of the posted form; 400 for a bad token or no record."""
    try:
        values = request.form
        upload = request.files.get("file")
    except RequestEntityTooLarge:
        _too_large()
    if SESSION_COOKIE not in request.cookies or not hmac.compare_digest(values.get("token", ""), form_token()):
        abort(400, description="The form has expired or did not come from this viewer (bad or missing "
                               "token, or the browser does not keep this viewer's cookie): reload the "
                               "import page and try again.")
    action = values.get("action", "check")
    if action not in ("check", "add"):
        abort(400, description=f"Unknown action {action!r}: expected 'check' or 'add'.")
    text, name = values.get("record", ""), values.get("name", "").strip()
    if upload is not None and upload.filename:
        try:
            text = decode_upload(upload.read(), upload.filename)
        except RequestEntityTooLarge:
            _too_large()
        name = name or upload.filename
    if not text.strip():
        abort(400, description="There is no record to check: paste one into the box or choose a file.")
    return action, text, name or DEFAULT_NAME, values.get("store_invalid") == "1"


@bp.post("/import")
def submit():
    action, text, name, store_invalid = _submitted()
    fmt, checked = read_record(text, name, variants(), current_app.config["DAIKIFU_READ_LIMITS"])
    a = archive()
    counts = None
    if action == "add":
        counts = add_games(a, checked, name, fmt, store_invalid)
    else:
        _mark_stored(a, checked)
    return render_template("import.html", token=form_token(), text=text, name=name, fmt=fmt, checked=checked,
                           counts=counts, action=action, store_invalid=store_invalid, game_url=_game_url,
                           error_text=error_text)


@bp.post("/api/import")
def api_submit():
    """JSON in, JSON out: ``{"text", "name"?, "action"?: "check"|"add", "store_invalid"?: bool}``."""
    try:
        data = request.get_json(silent=True)
    except RequestEntityTooLarge:
        _too_large()
    if not request.is_json or not isinstance(data, dict):
        abort(400, description='Send JSON (Content-Type: application/json): {"text": "...", "name": "...", '
                               '"action": "check" or "add", "store_invalid": false}.')
    text, action = data.get("text"), data.get("action", "check")
    name = data.get("name") or DEFAULT_NAME
    if not isinstance(text, str) or not text.strip():
        abort(400, description="'text' must be the record as a non-empty string.")
    if action not in ("check", "add") or not isinstance(name, str):
        abort(400, description="'action' must be 'check' or 'add', and 'name' a string.")
    fmt, checked = read_record(text, name, variants(), current_app.config["DAIKIFU_READ_LIMITS"])
    a = archive()
    out = {"action": action, "name": name, "format": fmt}
    if action == "add":
        out["counts"] = add_games(a, checked, name, fmt, bool(data.get("store_invalid")))
    else:
        _mark_stored(a, checked)
    out["games"] = [item.as_dict() for item in checked]
    return jsonify(out)
