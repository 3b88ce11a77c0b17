"""Position search and the explorer (``/positions``), with their JSON."""

from flask import Blueprint

bp = Blueprint("positions", __name__)


@bp.get("/positions")
def search():
    return "positions: to do"
