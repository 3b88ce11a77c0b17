"""The import page (``/import``): only with ``--allow-import``."""

from flask import Blueprint

bp = Blueprint("importing", __name__)


@bp.get("/import")
def form():
    return "import: to do"
