"""Error pages: every error is a page (or, under ``/api/``, a JSON object) saying what went
wrong, never a stack trace."""

from __future__ import annotations

import sqlite3

from flask import Flask, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, InternalServerError

from daikifu.archive.store import is_busy


def wants_json() -> bool:
    return request.path.startswith("/api/")


def _page(code: int, name: str, description: str):
    if wants_json():
        return jsonify({"error": {"status": code, "name": name, "message": description}}), code
    return render_template("error.html", code=code, name=name, description=description), code


BUSY = ("The archive is busy: another program (such as 'daikifu import') is writing to it. "
        "Nothing was changed; try again in a moment.")


def init_app(app: Flask) -> None:
    @app.errorhandler(sqlite3.OperationalError)
    def busy(exc: sqlite3.OperationalError):
        if not is_busy(exc):
            return unexpected(exc)
        response, code = _page(503, "Service Unavailable", BUSY)
        response = app.make_response((response, code))
        response.headers["Retry-After"] = "5"
        return response

    @app.errorhandler(HTTPException)
    def http_error(exc: HTTPException):
        return _page(exc.code or 500, exc.name, exc.description or "")

    @app.errorhandler(Exception)
    def unexpected(exc: Exception):
        # logged with its traceback by Flask; the user sees a plain message
        app.logger.exception("unhandled error on %s", request.path)
        err = InternalServerError()
        return _page(500, err.name, "The server could not answer this request; the error has been logged.")
