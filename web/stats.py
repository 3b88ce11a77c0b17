"""Statistics as charts (``/stats``), with their JSON."""

from flask import Blueprint

bp = Blueprint("stats", __name__)


@bp.get("/stats")
def index():
    return "stats: to do"
