"""Plain-English descriptions of XBetza piece strings.

>>> describe("fR")
'slides straight forward'
>>> describe("FfW")
'steps one square diagonally or straight forward'
>>> describe("sW4")
'moves up to 4 squares sideways'
>>> describe("ffN")
'jumps to the two squares two forward and one sideways'

The description is built from the parsed patterns (:func:`replay.xbetza.parse`), not from the
text: single-leg moves of the same kind (steps, slides, leaps of one length ...) with the same modes
are merged and their directions named together; multi-leg moves are told leg by leg, with the later
legs' turns relative to the previous step.  Everything is for the first player ("forward" is towards
the opponent, "left" is towards file a).
"""

from __future__ import annotations

from .xbetza import COMPASS, Pattern, XBetzaError, parse

__all__ = ["describe", "describe_patterns", "direction_phrase", "turn_phrase"]

_NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")

F, FR, R, BR, B, BL, L, FL = COMPASS  # clockwise from straight forward
_ORTH = frozenset((F, R, B, L))
_DIAG = frozenset((FR, BR, BL, FL))
_ALL = _ORTH | _DIAG

# Named groups of unit directions, tried in this order to cover a set (largest and plainest first).
_GROUPS = (
    (_ALL, "in all eight directions"),
    (_ORTH, "orthogonally"),
    (_DIAG, "diagonally"),
    (frozenset((F, FL, FR)), "straight or diagonally forward"),
    (frozenset((B, BL, BR)), "straight or diagonally backward"),
    (frozenset((L, FL, BL)), "straight or diagonally left"),
    (frozenset((R, FR, BR)), "straight or diagonally right"),
    (frozenset((F, B)), "straight forward or backward"),
    (frozenset((L, R)), "sideways"),
    (frozenset((FL, FR)), "diagonally forward"),
    (frozenset((BL, BR)), "diagonally backward"),
    (frozenset((FL, BL)), "diagonally left"),
    (frozenset((FR, BR)), "diagonally right"),
    (frozenset((F,)), "straight forward"),
    (frozenset((B,)), "straight backward"),
    (frozenset((L,)), "straight left"),
    (frozenset((R,)), "straight right"),
    (frozenset((FL,)), "diagonally forward-left"),
    (frozenset((FR,)), "diagonally forward-right"),
    (frozenset((BL,)), "diagonally backward-left"),
    (frozenset((BR,)), "diagonally backward-right"),
)

_LEAPER_NAMES = {(1, 2): "knight", (1, 3): "camel", (2, 3): "zebra"}


def _number(n: int) -> str:
    return _NUMBERS[n] if 0 <= n < len(_NUMBERS) else str(n)


def _join(parts: list[str], word: str = "or") -> str:
    parts = [p for p in parts if p]
    if len(parts) <= 1:
        return "".join(parts)
    # a part that has its own "or" is set off by a comma: "straight or diagonally forward, or left"
    last = f", {word} " if any(f" {word} " in p for p in parts) else f" {word} "
    return ", ".join(parts[:-1]) + last + parts[-1]


def _unit(v: tuple[int, int]) -> tuple[int, int]:
    x, y = v
    return ((x > 0) - (x < 0), (y > 0) - (y < 0))


def _is_compass(v: tuple[int, int]) -> bool:
    x, y = v
    return x == 0 or y == 0 or abs(x) == abs(y)


def direction_phrase(units) -> str:
    """Name a set of unit directions: ``{(0, 1)}`` -> "straight forward"."""
    units = frozenset(units)
    if not units:
        return ""
    if 6 <= len(units) < 8:
        return "in any direction except " + direction_phrase(_ALL - units)
    left = set(units)
    parts = []
    for group, name in _GROUPS:
        if group <= left:
            parts.append(name)
            left -= group
    return _join(parts)


def _oblique_phrase(vectors) -> str:
    """Name leaps like (1, 2): "two forward and one sideways", grouped by shape and mirror image."""
    vectors = set(vectors)
    shapes = sorted({tuple(sorted((abs(x), abs(y)))) for x, y in vectors})
    parts = []
    for a, b in shapes:
        every = {(x, y) for x in (a, -a, b, -b) for y in (a, -a, b, -b) if sorted((abs(x), abs(y))) == [a, b]}
        if every <= vectors:
            name = _LEAPER_NAMES.get((a, b))
            parts.append(f"any of the eight squares a {name}'s leap away" if name else
                         f"any square {_number(b)} squares one way and {_number(a)} the other")
            vectors -= every
            continue
        # group by (|dy|, |dx|) and the set of forward/backward and left/right signs
        by_size: dict = {}
        for x, y in sorted(vectors):
            if sorted((abs(x), abs(y))) != [a, b]:
                continue
            key = (abs(y), abs(x))
            by_size.setdefault(key, set()).add((x, y))
        for (ay, ax), vs in by_size.items():
            ys = {(y > 0) - (y < 0) for _, y in vs}
            xs_by_y = {sy: {(x > 0) - (x < 0) for x, y in vs if (y > 0) - (y < 0) == sy} for sy in ys}
            # rows that share the same sideways signs are told together
            rows: dict = {}
            for sy, sxs in xs_by_y.items():
                rows.setdefault(frozenset(sxs), []).append(sy)
            for sxs, sys_ in rows.items():
                vert = _join(["forward" if s > 0 else "backward" for s in sorted(sys_, reverse=True)])
                side = "sideways" if len(sxs) == 2 else ("to the right" if 1 in sxs else "to the left")
                parts.append(f"{_number(ay)} {vert} and {_number(ax)} {side}")
            vectors -= vs
    return _join(parts)


def _square_count(vectors) -> int:
    return len(set(vectors))


# --- single-leg moves ----------------------------------------------------------------------------


def _kind(pat: Pattern) -> tuple:
    """What a single-leg pattern does, apart from its directions (the key for merging)."""
    leg = pat.legs[0]
    v = leg.directions[0]
    compass = all(_is_compass(d) for d in leg.directions)
    size = max(abs(v[0]), abs(v[1]))
    shape = "compass" if compass else tuple(sorted((abs(v[0]), abs(v[1]))))
    hop = "g" if "g" in leg.modes else "p" if "p" in leg.modes else ""
    modes = frozenset(leg.modes & {"m", "c"})
    return (shape, size if compass else 0, pat.range, modes, pat.initial_only, leg.lame, leg.jump, hop)


def _mode_suffix(modes: frozenset) -> str:
    if modes == {"m"}:
        return " without capturing"
    if modes == {"c"}:
        return " only to capture"
    return ""


def _single(kind: tuple, vectors: list) -> str:
    shape, size, rng, modes, initial, lame, jump, hop = kind
    if shape == "compass":
        where = direction_phrase({_unit(v) for v in vectors})
        if size == 1:
            if hop:
                reach = "any distance" if rng == 0 else f"up to {rng} squares"
                land = ("landing on the square just beyond it" if hop == "g"
                        else "landing on any square beyond it")
                text = f"slides {where}, {reach}, hopping over exactly one piece on the way and {land}"
            elif rng == 1:
                text = f"steps one square {where}"
            elif rng == 0:
                text = f"slides {where}"
            else:
                text = f"moves up to {rng} squares {where}"
            if jump and not hop:
                text += ", jumping over the first square"
        else:
            dist = _number(size)
            if rng == 1:
                text = f"jumps {dist} squares {where}"
            else:
                times = "any number of times" if rng == 0 else f"up to {rng} times"
                text = f"leaps {dist} squares at a time {where}, {times} in a straight line"
            if hop:
                text += ", hopping over a piece"
            if lame:
                text += " (blocked if a square on the way is occupied)"
            if jump:
                text += " (only by jumping over a piece on the square in between)"
    else:
        where = _oblique_phrase(vectors)
        n = _square_count(vectors)
        if rng == 1:
            target = "the square" if n == 1 else f"the {_number(n)} squares" if n < 8 else "the squares"
            if where.startswith("any of"):
                text = f"jumps to {where}"
            else:
                text = f"jumps to {target} {where}"
        else:
            times = "any number of" if rng == 0 else f"up to {rng}"
            if where.startswith("any of"):
                name = where.removeprefix("any of the eight squares a ").removesuffix(" away")
                text = f"makes {times} {name}s in a straight line, in any of the eight directions"
            else:
                text = f"makes {times} leaps of {where} in a straight line"
        if lame:
            text += " (blocked if the first square on the way is occupied)"
        if jump:
            text += " (only by jumping over a piece)"
    text += _mode_suffix(modes)
    if initial:
        text += " (only on its first move)"
    return text


# --- multi-leg moves -----------------------------------------------------------------------------

_TURN_PAIRS = (
    ((1, 7), "turning 45 degrees either way"),
    ((2, 6), "turning 90 degrees either way"),
    ((3, 5), "turning 135 degrees either way"),
)
_TURN_SINGLES = {
    0: "further the same way",
    4: "straight back",
    1: "turning 45 degrees right",
    7: "turning 45 degrees left",
    2: "turning 90 degrees right",
    6: "turning 90 degrees left",
    3: "turning 135 degrees right",
    5: "turning 135 degrees left",
}


def turn_phrase(turns, back: str = "straight back") -> str:
    """Name relative turns (0..7, 45 degrees clockwise each) of a later leg."""
    turns = set(turns)
    if len(turns) == 8:
        return "in any direction"
    if len(turns) == 7:
        missing = (set(range(8)) - turns).pop()
        return "in any direction except " + (back if missing == 4 else _TURN_SINGLES[missing])
    parts = []
    for t in (0, 4):
        if t in turns:
            parts.append(back if t == 4 else _TURN_SINGLES[t])
            turns.discard(t)
    for pair, name in _TURN_PAIRS:
        if set(pair) <= turns:
            parts.append(name)
            turns -= set(pair)
    parts += [_TURN_SINGLES[t] for t in sorted(turns)]
    return _join(parts)


def _leg_modes(modes: frozenset, final: bool) -> str:
    if final:
        parts = []
        if "p" in modes or "g" in modes:
            parts.append("hopping over a piece first")
        if modes & {"m", "c"} == {"m"}:
            parts.append("to an empty square")
        elif modes & {"m", "c"} == {"c"}:
            parts.append("only to capture")
        return ", ".join(parts)
    parts = []
    if "m" in modes:
        parts.append("to an empty square")
    if "c" in modes:
        parts.append("capturing")
    if "p" in modes or "g" in modes:
        parts.append("onto a piece that it then hops over")
    return _join(parts)


def _multi(pat: Pattern) -> str:
    first = pat.legs[0]
    vectors = list(first.directions)
    compass = all(_is_compass(d) for d in vectors)
    size = max(max(abs(x), abs(y)) for x, y in vectors)
    if compass and size == 1:
        where = direction_phrase({_unit(v) for v in vectors})
        verb = "steps one square" if pat.range == 1 else "slides" if pat.range == 0 else f"moves up to {pat.range} squares"
        again = verb if pat.range != 1 else "steps one square"
    elif compass:
        where = direction_phrase({_unit(v) for v in vectors})
        verb = f"jumps {_number(size)} squares"
        again = verb
    else:
        where = "to " + _oblique_phrase(vectors)
        verb = "jumps"
        again = "makes another such leap"
    text = f"{verb} {where}"
    modes = _leg_modes(first.modes, final=False)
    if modes:
        text += f", {modes}"
    returns = pat.range == 1 and len(pat.legs) == 2 and 4 in pat.legs[1].directions
    for k, leg in enumerate(pat.legs[1:], start=1):
        final = k == len(pat.legs) - 1
        back = "back to its start square" if returns else "straight back"
        text += f", then {again} {turn_phrase(leg.directions, back)}"
        modes = _leg_modes(leg.modes, final)
        if modes:
            text += f", {modes}"
    if returns and "m" in pat.legs[1].modes:
        effects = []
        if "c" in first.modes:
            effects.append("capture without moving")
        if "m" in first.modes:
            effects.append("pass")
        if effects:
            text += f" (so it can {' or '.join(effects)})"
    if pat.initial_only:
        text += " (only on its first move)"
    return text


# --- the whole piece -----------------------------------------------------------------------------


def describe_patterns(patterns) -> list[str]:
    """One phrase per group of moves, in the order the groups first appear in the piece string."""
    groups: dict = {}
    order: list = []
    for pat in patterns:
        if pat.is_multi_leg:
            order.append(("multi", pat))
            continue
        key = _kind(pat)
        if key not in groups:
            groups[key] = []
            order.append(("single", key))
        for v in pat.legs[0].directions:
            if v not in groups[key]:
                groups[key].append(v)
    return [_multi(item) if tag == "multi" else _single(item, groups[item]) for tag, item in order]


def describe(betza: str) -> str:
    """The moves of a piece in plain English; raises :class:`~replay.xbetza.XBetzaError` if unreadable."""
    return "; ".join(describe_patterns(parse(betza)))


def try_describe(betza: str) -> str:
    """Like :func:`describe`, but an unreadable string gives a short note instead of an error."""
    try:
        return describe(betza)
    except XBetzaError as exc:
        return f"(not understood: {exc})"


def _vector_phrase(v: tuple[int, int]) -> str:
    """One leap or step: "one square diagonally forward-left", "two forward and one to the right"."""
    x, y = v
    if _is_compass(v):
        n = max(abs(x), abs(y))
        return f"{_number(n)} square{'s' if n > 1 else ''} {direction_phrase({_unit(v)})}"
    return _oblique_phrase({v})


def describe_generator(spec: dict) -> str:
    """A named generator of a variant file (``[[pieces.generators]]``) in plain English."""
    kind = spec.get("kind")
    try:
        if kind == "two-stage":
            first = describe(spec["first"])
            then = describe(spec["then"])
            least = int(spec.get("min_distance", 1))
            at_least = f" (at least {_number(least)} squares away)" if least > 1 else ""
            return f"first {first}, without capturing, to an empty square{at_least}; then from there {then}"
        if kind == "zigzag":
            legs = [_vector_phrase((int(x), int(y))) for x, y in spec["steps"]]
            capture = ", capturing only where it stops" if spec.get("captures", True) else ", without capturing"
            return (f"rides in a zigzag, alternating leaps of {legs[0]} with leaps of {legs[1]} "
                    f"(starting with either), over empty squares{capture}")
        if kind == "range-jump":
            return (f"{describe(spec['betza'])}; when capturing, jumps any number of pieces of lower rank "
                    f"(of either side) to take a piece beyond them, and is stopped by a piece of equal or "
                    f"higher rank")
        if kind == "area":
            n = int(spec["steps"])
            return (f"up to {_number(n)} King steps in any directions (an area move), through empty squares "
                    f"only, never back to its start square; a capture ends the move")
    except (KeyError, TypeError, ValueError, XBetzaError):
        pass
    details = ", ".join(f"{k}={v!r}" for k, v in spec.items() if k != "kind")
    return f"special move {kind!r}" + (f" ({details})" if details else "")
