"""Parse XBetza move strings into colour-independent move patterns.

XBetza is H. G. Muller's extension of Betza's funny notation, used by the Interactive Diagram on
chessvariants.com.  A piece string is a concatenation of *moves*; each move is an optional run of
lower-case modifiers, split into *legs* by ``a``, followed by an upper-case *atom* and an optional
*range*::

    RbBfFmcfavF   ->  R  |  bB  |  fF  |  mcfavF (two legs: "mcf", "v")

Everything here is expressed for the first player moving "up" the board: a vector ``(dx, dy)`` has
``dx > 0`` towards higher files and ``dy > 0`` forwards.  The second player's moves are the same
vectors rotated by 180 degrees; that is applied when patterns are compiled for a board.

Rules follow the reference notes on XBetza (directions per atom class, modes per leg, relative
directions in continuation legs).  Anything that is not understood raises :class:`XBetzaError`
naming the letter and its position: nothing is parsed silently in part.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "XBetzaError",
    "Leg",
    "Pattern",
    "parse",
    "COMPASS",
    "rotate",
]


class XBetzaError(ValueError):
    """A piece string that is malformed or uses a feature the engine does not support."""

    def __init__(self, text: str, position: int, message: str):
        self.text = text
        self.position = position
        letter = text[position] if 0 <= position < len(text) else ""
        self.letter = letter
        where = f"letter {letter!r} at position {position + 1}" if letter else "end of string"
        shown = text if len(text) <= 60 else text[:60] + "..."
        super().__init__(f"XBetza {shown!r}: {where}: {message}")


# The eight compass directions, clockwise from straight forward.  Index = 45-degree turns.
COMPASS = ((0, 1), (1, 1), (1, 0), (1, -1), (0, -1), (-1, -1), (-1, 0), (-1, 1))
_COMPASS_INDEX = {v: i for i, v in enumerate(COMPASS)}

# Atom -> (base vector, symmetry class, default range).  Range 1 = one leap, 0 = unlimited slide.
_ATOMS = {
    "W": ((0, 1), "orth", 1),
    "F": ((1, 1), "diag", 1),
    "D": ((0, 2), "orth", 1),
    "A": ((2, 2), "diag", 1),
    "H": ((0, 3), "orth", 1),
    "G": ((3, 3), "diag", 1),
    "N": ((1, 2), "oblique", 1),
    "C": ((1, 3), "oblique", 1),
    "L": ((1, 3), "oblique", 1),
    "Z": ((2, 3), "oblique", 1),
    "J": ((2, 3), "oblique", 1),
    "K": (None, "compass", 1),
    "R": ((0, 1), "orth", 0),
    "B": ((1, 1), "diag", 0),
    "Q": (None, "compass", 0),
}
_CANONICAL_ATOM = {"L": "C", "J": "Z"}
_RIDER_ATOMS = {"R", "B", "Q"}

_DIRECTION_LETTERS = set("fblrvsh")
_SUPPORTED_MODES = set("mcpgnji")
_UNSUPPORTED = {
    "d": "destroying own pieces ('d') is not supported",
    "e": "en-passant capture ('e') is not supported",
    "t": "the 't' modifier is not supported",
    "o": "cylinder moves ('o') are not supported",
    "u": "unload moves ('u') are not supported",
    "y": "the 'y' modifier is not supported",
    "x": "the 'x' modifier is not supported",
    "k": "the 'k' modifier is not supported",
    "q": "circular moves ('q') are not supported",
    "z": "crooked moves ('z') are not supported; write the legs with 'a'",
    "w": "the 'w' modifier is not supported",
}

_VERTICAL = {"f": (1,), "b": (-1,), "v": (1, -1)}
_HORIZONTAL = {"r": (1,), "l": (-1,), "s": (1, -1)}


@dataclass(frozen=True)
class Leg:
    """One leg of a move.

    ``directions`` holds absolute vectors ``(dx, dy)`` for the first leg and relative turns
    (0..7, in 45-degree steps clockwise; 0 = straight on, 4 = straight back) for later legs.
    ``modes`` is a subset of ``m`` (end on an empty square), ``c`` (capture an enemy; on a non-final
    leg the victim is removed and the move goes on), ``p`` and ``g`` (hop over an occupied square).
    """

    directions: tuple
    modes: frozenset
    lame: bool = False
    jump: bool = False


@dataclass(frozen=True)
class Pattern:
    """One move of a piece: an atom, its range and one or more legs.

    ``range`` is 1 for a single leap or step, 0 for an unlimited slide and N for a slide of at most
    N steps.  ``text`` is the substring of the piece string this pattern came from.
    """

    atom: str
    range: int
    legs: tuple
    initial_only: bool
    text: str
    start: int

    @property
    def is_multi_leg(self) -> bool:
        return len(self.legs) > 1

    @property
    def is_hopper(self) -> bool:
        return any(leg.modes & {"p", "g"} for leg in self.legs)

    @property
    def screened(self) -> bool:
        """Whether a piece standing on a square the move passes (not where it ends) can give the
        move a way it has not when that square is empty: a hurdle to hop (``p``, ``g``), a square
        to jump (``j``), a victim to take on the way where the leg may not cross an empty square
        (``c`` without ``m``).  A piece put on the board can then open an attack (a drop gives the
        enemy's cannon its screen); for every other move it can only block."""
        last = len(self.legs) - 1
        for k, leg in enumerate(self.legs):
            if leg.jump or "g" in leg.modes or ("p" in leg.modes and (k == last or "m" not in leg.modes)):
                return True
            if k < last and "c" in leg.modes and "m" not in leg.modes:
                return True
        return False


def atom_vectors(atom: str) -> list[tuple[int, int]]:
    """All vectors of an atom in every direction, in a fixed order."""
    base, cls, _ = _ATOMS[atom]
    if cls == "compass":
        return list(COMPASS)
    x, y = base
    vecs = []
    for v in ((x, y), (y, x), (-x, y), (-y, x), (x, -y), (y, -x), (-x, -y), (-y, -x)):
        if v not in vecs:
            vecs.append(v)
    return vecs


def _oblique_cycle(v: tuple[int, int]) -> list[tuple[int, int]]:
    """The eight vectors of an oblique shape, clockwise from the one closest to forward."""
    a, b = sorted((abs(v[0]), abs(v[1])))
    return [(a, b), (b, a), (b, -a), (a, -b), (-a, -b), (-b, -a), (-b, a), (-a, b)]


def rotate(v: tuple[int, int], turn: int) -> tuple[int, int]:
    """Rotate a vector clockwise by ``turn`` steps of 45 degrees (relative directions of later legs).

    Compass-aligned vectors keep their length in steps, so a 45-degree turn makes W into F and D into
    A.  Oblique vectors step through their own eight-fold cycle.
    """
    x, y = v
    n = max(abs(x), abs(y))
    unit = (x // n if x else 0, y // n if y else 0)
    if unit in _COMPASS_INDEX and (x == 0 or y == 0 or abs(x) == abs(y)):
        ux, uy = COMPASS[(_COMPASS_INDEX[unit] + turn) % 8]
        return (ux * n, uy * n)
    cycle = _oblique_cycle(v)
    return cycle[(cycle.index(v) + turn) % 8]


# --- direction letters ---------------------------------------------------------------------------


def _tokenise_directions(letters: list[tuple[str, int]], pair_perpendicular: bool, text: str = ""):
    """Group direction letters into tokens: singles, perpendicular pairs, doubles and halves."""
    tokens = []
    i = 0
    while i < len(letters):
        a, pos = letters[i]
        b = letters[i + 1][0] if i + 1 < len(letters) else None
        if a == "h":
            if b in ("l", "r"):
                tokens.append(("h" + b, pos))
                i += 2
                continue
            tokens.append(("h", pos))
            i += 1
            continue
        if b == "h" and a in "fblr":
            tokens.append((a + "h", pos))
            i += 2
            continue
        perpendicular = (a in _VERTICAL and b in _HORIZONTAL) or (a in _HORIZONTAL and b in _VERTICAL)
        if pair_perpendicular and b is not None and perpendicular:
            if a in "vs" and b in "fblr":
                # documented pairs put the two-way letter second (fs, bs, lv, rv); XBoard reads
                # 'sf' differently again, so the order is not guessed
                raise XBetzaError(text, pos, f"write the pair {a + b!r} as {b + a!r} (the two-way letter "
                                             f"'v' or 's' second)")
            tokens.append((a + b, pos))
            i += 2
            continue
        if b == a:
            tokens.append((a + b, pos))
            i += 2
            continue
        tokens.append((a, pos))
        i += 1
    return tokens


def _axis_components(letter: str) -> tuple[str, tuple[int, ...]]:
    if letter in _VERTICAL:
        return "y", _VERTICAL[letter]
    return "x", _HORIZONTAL[letter]


def _compass_token(token: str, text: str, pos: int) -> set[tuple[int, int]]:
    """K-system: single letters are single orthogonal directions, perpendicular pairs diagonals."""
    if len(token) == 2 and token[1] == "h":
        main = _compass_token(token[0], text, pos)
        (mx, my), = main
        # the main direction plus the two diagonals next to it
        i = _COMPASS_INDEX[(mx, my)]
        return {COMPASS[i], COMPASS[(i + 1) % 8], COMPASS[(i - 1) % 8]}
    if token.startswith("h"):
        raise XBetzaError(text, pos, "'h' needs a direction letter before it on this atom")
    if len(token) == 2 and token[0] != token[1]:
        (ax1, c1), (_, c2) = _axis_components(token[0]), _axis_components(token[1])
        xs, ys = (c1, c2) if ax1 == "x" else (c2, c1)
        return {(x, y) for x in xs for y in ys}
    letter = token[0]
    axis, comps = _axis_components(letter)
    return {(c, 0) if axis == "x" else (0, c) for c in comps}


def _select(atom: str, cls: str, tokens, text: str) -> set[tuple[int, int]]:
    """Vectors of ``atom`` selected by direction tokens (absolute, first leg)."""
    vecs = atom_vectors(atom)
    if not tokens:
        return set(vecs)
    chosen: set[tuple[int, int]] = set()
    for token, pos in tokens:
        if cls == "compass":
            chosen |= _compass_token(token, text, pos)
        elif "h" in token:
            if cls != "oblique":
                raise XBetzaError(text, pos, f"'h' has no meaning on the atom {atom}")
            if token == "h":
                raise XBetzaError(text, pos, "'h' on an oblique atom needs a direction letter: 'hl', 'hr', 'fh' ...")
            if token.startswith("h"):
                # chiral sets: 'hr' = the forward-right narrow move turned by 90-degree steps
                a, b = sorted(map(abs, vecs[0]))
                chosen |= ({(a, b), (b, -a), (-a, -b), (-b, a)} if token == "hr"
                           else {(-a, b), (-b, -a), (a, -b), (b, a)})
            else:
                chosen |= {v for v in vecs if _along(v, token[0]) > 0}
        elif cls == "orth":
            # every letter is one direction of its own (lbW2 = left and back)
            for letter in token:
                chosen |= {v for v in vecs if _along(v, letter) > 0 and _across(v, letter) == 0}
        elif len(token) == 2 and token[0] != token[1]:
            # diagonal atoms: a perpendicular pair is one diagonal; oblique atoms: the first letter
            # names the short axis and the second the long one (fr = (2,1), rf = (1,2))
            first, second = token
            for v in vecs:
                if _along(v, first) > 0 and _along(v, second) > 0 and (
                        cls == "diag" or abs(_component(v, first)) < abs(_component(v, second))):
                    chosen.add(v)
        else:
            letter = token[0]
            for v in vecs:
                if _along(v, letter) > 0 and (cls == "diag" or abs(_component(v, letter)) > abs(_across_component(v, letter))):
                    chosen.add(v)
    return chosen


def _component(v: tuple[int, int], letter: str) -> int:
    return v[1] if letter in _VERTICAL else v[0]


def _across_component(v: tuple[int, int], letter: str) -> int:
    return v[0] if letter in _VERTICAL else v[1]


def _along(v: tuple[int, int], letter: str) -> int:
    """Positive when ``v`` points the way ``letter`` names (f, b, l, r; v and s name both ways)."""
    comps = _VERTICAL.get(letter) or _HORIZONTAL[letter]
    c = _component(v, letter)
    return 1 if any(c * s > 0 for s in comps) else 0


def _across(v: tuple[int, int], letter: str) -> int:
    return _across_component(v, letter)


def _relative_turns(tokens, atom: str, text: str) -> tuple[int, ...]:
    """Turns (0..7) for a continuation leg: K-system letters relative to the previous step."""
    if not tokens:
        _, cls, _ = _ATOMS[atom]
        if cls in ("orth", "diag"):
            return (0, 2, 6)  # straight on and the two 90-degree turns
        return (0, 1, 2, 3, 5, 6, 7)  # everything except straight back
    turns = set()
    for token, pos in tokens:
        for vec in _compass_token(token, text, pos):
            turns.add(_COMPASS_INDEX[vec])
    return tuple(sorted(turns))


# --- parsing -------------------------------------------------------------------------------------


def parse(text: str) -> tuple[Pattern, ...]:
    """Parse a whole XBetza piece string into patterns.

    >>> [p.text for p in parse("RbBfFmcfavF")]
    ['R', 'bB', 'fF', 'mcfavF']
    """
    if not isinstance(text, str) or not text:
        raise XBetzaError(str(text), 0, "empty piece string")
    patterns = []
    i = 0
    n = len(text)
    while i < n:
        start = i
        prefix: list[tuple[str, int]] = []
        while i < n and text[i].islower():
            prefix.append((text[i], i))
            i += 1
        if i >= n:
            raise XBetzaError(text, n - 1 if n else 0, "modifiers without an atom after them")
        ch = text[i]
        if ch not in _ATOMS:
            if ch.isdigit():
                raise XBetzaError(text, i, "a range must follow an atom")
            raise XBetzaError(text, i, f"unknown atom {ch!r} (known atoms: W F D N A H C Z G K Q R B)")
        atom = _CANONICAL_ATOM.get(ch, ch)
        atom_pos = i
        i += 1
        rng = _ATOMS[atom][2]
        if i < n and text[i].isdigit():
            j = i
            while j < n and text[j].isdigit():
                j += 1
            digits = text[i:j]
            if len(digits) > 3:
                raise XBetzaError(text, i, f"a range of {len(digits)} digits (at most 999)")
            if len(digits) > 1 and digits[0] == "0":
                raise XBetzaError(text, i, "exact ranges ('0N') are not supported")
            value = int(digits)
            if atom in _RIDER_ATOMS:
                rng = value  # B4 = F4, R0 = R
            else:
                rng = value  # W3 = up to 3 steps; W0 = unlimited
            i = j
        elif i < n and text[i] == ch and atom not in _RIDER_ATOMS and ch.isupper():
            rng = 0  # doubled leaper = rider (NN nightrider, WW = R)
            i += 1
        patterns.append(_build(text, atom, atom_pos, rng, prefix, start, i))
    return tuple(patterns)


def _build(text, atom, atom_pos, rng, prefix, start, end) -> Pattern:
    _, cls, _ = _ATOMS[atom]
    initial_only = False
    raw_legs: list[list[tuple[str, int]]] = [[]]
    for letter, pos in prefix:
        if letter == "a":
            raw_legs.append([])
        elif letter == "i" and len(raw_legs) == 1 and not raw_legs[0]:
            initial_only = True
        elif letter in _DIRECTION_LETTERS or letter in _SUPPORTED_MODES:
            raw_legs[-1].append((letter, pos))
        elif letter in _UNSUPPORTED:
            raise XBetzaError(text, pos, _UNSUPPORTED[letter])
        else:
            raise XBetzaError(text, pos, f"unknown modifier {letter!r}")
    legs = []
    last = len(raw_legs) - 1
    for k, letters in enumerate(raw_legs):
        directions = [(c, p) for c, p in letters if c in _DIRECTION_LETTERS]
        modes = {c for c, _ in letters if c in "mcpg"}
        lame = any(c == "n" for c, _ in letters)
        jump = any(c == "j" for c, _ in letters)
        seen: set = set()
        for c, p in letters:
            if c == "i":
                raise XBetzaError(text, p, "'i' must stand at the start of a move")
            if c in _SUPPORTED_MODES and c in seen:
                # 'jj' is no stronger 'j': a repeated mode means nothing documented
                raise XBetzaError(text, p, f"the mode {c!r} is given twice in one leg")
            seen.add(c)
        if lame and jump:
            pos = max(p for c, p in letters if c in "nj")
            raise XBetzaError(text, pos, "'n' (the square passed must be empty) and 'j' (it must be "
                                         "occupied) together allow no move")
        if not modes & {"m", "c"}:
            if k == last:
                modes |= {"m", "c"}
            elif not modes:
                modes = {"m"}
        if k == 0:
            tokens = _tokenise_directions(directions, cls in ("diag", "compass", "oblique"), text)
            dirs = tuple(sorted(_select(atom, cls, tokens, text)))
            if not dirs:
                raise XBetzaError(text, directions[0][1] if directions else atom_pos,
                                  f"these direction letters select no move of atom {atom}")
        else:
            tokens = _tokenise_directions(directions, True, text)
            dirs = _relative_turns(tokens, atom, text)
        if (lame or jump) and atom in ("C", "Z"):
            pos = next(p for c, p in letters if c in "nj")
            raise XBetzaError(text, pos, f"'n'/'j' on the atom {atom} is not supported")
        legs.append(Leg(directions=dirs, modes=frozenset(modes), lame=lame, jump=jump))
    if ("p" in legs[-1].modes or "g" in legs[-1].modes) and rng == 1 and len(legs) == 1:
        pos = next(p for c, p in raw_legs[-1] if c in "pg")
        raise XBetzaError(text, pos, "hopping ('p'/'g') needs a sliding atom (R, B, Q or a rider)")
    return Pattern(atom=atom, range=rng, legs=tuple(legs), initial_only=initial_only,
                   text=text[start:end], start=start)
