"""Variant pages (``/variants``, ``/variants/<slug>``), with their JSON."""

from flask import Blueprint

bp = Blueprint("variants", __name__)


@bp.get("/variants")
def index():
    return "variants: to do"
