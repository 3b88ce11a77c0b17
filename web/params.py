"""Reading query-string parameters: a bad value is a 400 naming the parameter, never a 500."""

from __future__ import annotations

from flask import abort, request

TRUE_WORDS = ("1", "true", "yes", "on")
FALSE_WORDS = ("", "0", "false", "no", "off")
#: numbers beyond this are no id, ply or page of anything stored (SQLite integers are 64-bit)
LARGEST = (1 << 63) - 1


def int_arg(name: str, default: int | None = None, minimum: int = 0, maximum: int = LARGEST) -> int | None:
    """The whole-number parameter ``name`` (``default`` when it is absent or empty)."""
    raw = request.args.get(name, "").strip()
    if not raw:
        return default
    try:
        value = int(raw)
    except ValueError:
        abort(400, description=f"{name} must be a whole number, not {raw[:40]!r}")
    if not minimum <= value <= maximum:
        bound = f"at least {minimum}" if value < minimum and maximum == LARGEST else f"from {minimum} to {maximum}"
        abort(400, description=f"{name} must be {bound}, not {value}")
    return value


def flag_arg(name: str) -> bool:
    """The yes/no parameter ``name`` (1/0, true/false, yes/no, on/off; absent or empty: no)."""
    raw = request.args.get(name, "").strip().lower()
    if raw in TRUE_WORDS:
        return True
    if raw in FALSE_WORDS:
        return False
    abort(400, description=f"{name} must be 1 or 0, not {raw[:40]!r}")
