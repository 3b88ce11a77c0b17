"""The game list (``/``) and the game viewer (``/games/<id>``), with their JSON."""

from flask import Blueprint

bp = Blueprint("games", __name__)


@bp.get("/")
def index():
    return "game list: to do"
