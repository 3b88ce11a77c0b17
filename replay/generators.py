"""Move generators for moves the flat tables cannot hold.

Most moves are single leaps and slides, which :mod:`replay.rules` turns into tables.  Everything
else is a *generator*: an object with ``targets(board, origin, colour, out, limit, unmoved)`` that
adds each effect ``(to, kills)`` to the set ``out``.  There are three kinds:

* :class:`PatternGenerator`: an XBetza pattern with several legs, a hopper, a lame or jumping
  leaper, an initial-only move or a rider of leapers, followed by the general leg interpreter;
* :class:`TwoStage`: a move made of two XBetza moves with absolute directions, the first ending on
  an empty square (Planetary Shogi's Comet, Asteroid and the planets);
* :class:`ZigZag`: a rider that alternates between two steps (Kyoomagi's crooked Helmrider);
* :class:`RangeJump`: a slider that captures beyond pieces of lower rank (Tenjiku Shogi's jumping
  generals: the pieces' ``rank`` in the variant file);
* :class:`Area`: up to N King steps through empty squares, stopping at the first capture (Tenjiku
  Shogi's Fire Demon and Vice General);
* :class:`Burning`: not named in a file but made for a piece with ``burns``: the piece's other
  moves, each followed by the removal of the enemy pieces next to its destination.

The named ones (all but the first and the last) are given in a variant file (``[[pieces.generators]]``, see docs/variants.md) where
XBetza cannot express a piece.  Every generator states its ``reach``, the largest Chebyshev
distance from the origin it can affect (99 = unbounded), and ``capture_offsets``, the (file, rank)
offsets from the origin on which it can ever capture (None when not worked out: multi-leg moves
and hoppers), so check detection can skip pieces that cannot reach the square at all, and
``screened``, whether a piece on a square a move passes can open it (see
:attr:`~replay.xbetza.Pattern.screened`), so that a piece put down may open an attack.
"""

from __future__ import annotations

from typing import Callable, Final

from collections.abc import Sequence

from .squares import STRIDE
from .xbetza import COMPASS, Pattern, XBetzaError, atom_vectors, parse as parse_betza, rotate

EMPTY: Final = 0
OFF: Final = 1
UNBOUNDED: Final = 99
MAX_RIDE: Final = 16  # the longest line on a board (16x16 at most): a longer ride never fits


class GeneratorError(ValueError):
    """A generator definition in a variant file that cannot be used."""


Offsets = frozenset[tuple[int, int]]  # (file, rank) offsets from a piece's square
Effects = set[tuple[int, tuple[int, ...]]]  # what targets() adds to: (to, kills)


class Generator:
    """What every generator states (see the module's docstring) and does."""

    captures: bool
    initial_only: bool
    screened: bool
    reach: int
    capture_offsets: Offsets | None
    ends: Offsets | None = None  # where a single-leg move can end (None: not worked out)
    end_offsets: Offsets | None = None  # where a named generator's moves can end (None: not worked out)

    def targets(self, b: list[int], origin: int, colour: int, out: Effects, limit: int,
                unmoved: set[int] | None = None) -> None:
        """Add each effect ``(to, kills)`` of the piece of ``colour`` on ``origin`` to ``out``."""
        raise NotImplementedError


class PatternGenerator(Generator):
    """An XBetza pattern that needs the general leg interpreter."""

    def __init__(self, pattern: Pattern, colour: int):
        sign = 1 if colour == 0 else -1
        self.pattern = pattern
        self.first = tuple((dx * sign, dy * sign) for dx, dy in pattern.legs[0].directions)
        self.captures = any("c" in leg.modes for leg in pattern.legs)
        self.initial_only = pattern.initial_only
        self.screened = pattern.screened
        if pattern.range == 0 or (pattern.is_hopper and pattern.range != 1):
            self.reach = UNBOUNDED
        else:
            size = max(max(abs(x), abs(y)) for x, y in atom_vectors(pattern.atom))
            self.reach = size * pattern.range * len(pattern.legs)
        # where a single-leg move can end: multiples of its vectors (None: not worked out, for
        # multi-leg moves and hoppers, whose captures need the general interpreter)
        self.ends: Offsets | None = None
        if not pattern.is_multi_leg and not pattern.is_hopper:
            self.ends = frozenset((x * k, y * k) for x, y in self.first for k in range(1, (pattern.range or MAX_RIDE) + 1))
        self.capture_offsets = self.ends if self.captures else frozenset()

    def targets(self, b: list[int], origin: int, colour: int, out: Effects, limit: int,
                unmoved: set[int] | None = None) -> None:
        if self.initial_only and (unmoved is None or origin not in unmoved):
            return
        walk(b, origin, colour, self.pattern, self.first, 0, origin, None, (), self.pattern.range, out, limit)



class TwoStage(Generator):
    """Two XBetza moves in a row: the first (moving only) ends on an empty square, the second
    starts there with absolute directions.  ``min_distance`` is the shortest first stage."""

    def __init__(self, spec: dict, colour: int):
        try:
            first = parse_betza(spec["first"])
            then = parse_betza(spec["then"])
        except KeyError as exc:
            raise GeneratorError(f"two-stage generator needs {exc.args[0]!r}") from None
        except XBetzaError as exc:
            raise GeneratorError(str(exc)) from None
        if any(p.is_multi_leg for p in first + then):
            raise GeneratorError("the stages of a two-stage move must be single-leg XBetza moves")
        self.min_distance = int(spec.get("min_distance", 1))
        self.first = [PatternGenerator(_moving_only(p), colour) for p in first]
        self.then = [PatternGenerator(p, colour) for p in then]
        self.captures = any(g.captures for g in self.then)
        self.initial_only = False
        self.screened = any(g.screened for g in self.first + self.then)
        self.reach = min(UNBOUNDED, max(g.reach for g in self.first) + max(g.reach for g in self.then))
        # a capture ends a second stage that starts where a first stage ended
        self.capture_offsets = frozenset(
            (fx + tx, fy + ty) for g in self.first for fx, fy in _ends(g)
            for t in self.then if t.captures for tx, ty in _ends(t))

    def targets(self, b: list[int], origin: int, colour: int, out: Effects, limit: int,
                unmoved: set[int] | None = None) -> None:
        landings: Effects = set()
        for g in self.first:
            g.targets(b, origin, colour, landings, limit, unmoved)
        f0, r0 = origin % STRIDE, origin // STRIDE
        for mid, _ in landings:
            if max(abs(mid % STRIDE - f0), abs(mid // STRIDE - r0)) < self.min_distance:
                continue
            for g in self.then:
                walk(b, origin, colour, g.pattern, g.first, 0, mid, None, (), g.pattern.range, out, limit)



class ZigZag(Generator):
    """A rider whose steps alternate between two vectors, starting with either (crooked rider).
    Every square it lands on before the last must be empty; it captures on the last."""

    def __init__(self, spec: dict, colour: int):
        steps = spec.get("steps")
        if not (isinstance(steps, list) and len(steps) == 2 and all(len(s) == 2 for s in steps)):
            raise GeneratorError("zigzag generator needs steps = [[dx, dy], [dx, dy]]")
        sign = 1 if colour == 0 else -1
        self.steps = [(int(x) * sign, int(y) * sign) for x, y in steps]
        if any(max(abs(x), abs(y)) > 3 for x, y in self.steps):
            raise GeneratorError("zigzag steps may be at most 3 squares long")
        self.captures = spec.get("captures", True)
        self.initial_only = False
        self.screened = False
        self.reach = UNBOUNDED
        # the squares reached after n steps, starting with either step
        ends: set[tuple[int, int]] = set()
        for start in (0, 1):
            x = y = 0
            for n in range(2 * MAX_RIDE):
                x, y = x + self.steps[(start + n) % 2][0], y + self.steps[(start + n) % 2][1]
                ends.add((x, y))
        self.capture_offsets = frozenset(ends) if self.captures else frozenset()

    def targets(self, b: list[int], origin: int, colour: int, out: Effects, limit: int,
                unmoved: set[int] | None = None) -> None:
        offsets = [x + y * STRIDE for x, y in self.steps]
        for start in (0, 1):
            t = origin
            i = start
            for _ in range(limit):
                t += offsets[i]
                i ^= 1
                p = b[t] if t != origin else EMPTY
                if p == OFF:
                    break
                if p == EMPTY:
                    out.add((t, ()))
                    continue
                if (p & 1) != colour and self.captures:
                    out.add((t, ()))
                break



class Pieces:
    """What a generator may need to know of the pieces of its rule set, by piece code: each
    piece's ``rank`` (for range jumps), the rank of the piece the generator belongs to, whether a
    jumping piece may capture the piece of equal or higher rank that stops it
    (``capture_blocker``), the codes a burn spares (``unburnable``) and the codes that burn
    passively (``passive``: a burning piece that ends next to an enemy one is burned itself and
    burns nothing)."""

    def __init__(self, rank=(), own_rank: int = 0, capture_blocker: bool = False, unburnable=frozenset(),
                 passive=frozenset()):
        self.rank = tuple(rank)
        self.own_rank = own_rank
        self.capture_blocker = capture_blocker
        self.unburnable = frozenset(unburnable)
        self.passive = frozenset(passive)


NO_PIECES = Pieces()
# the eight King steps, in the order of the rules' DIRECTIONS (a burn lists its squares so)
KING_STEPS = tuple(dx + dy * STRIDE for dx, dy in COMPASS)


def burned_passively(b: list[int], to: int, colour: int, burners: frozenset[int], kills: Sequence[int] = ()) -> bool:
    """Whether a piece of ``colour`` that ends a move on ``to`` is burned passively: a piece of
    the opponent's of the codes ``burners`` stands next to ``to``, and not on the squares
    ``kills`` (taken on the way).  The one test of passive burning: the moves of a burning piece
    (:class:`Burning`) and the board (making a move, and asking of one) use it."""
    for d in KING_STEPS:
        t = to + d
        p = b[t]
        if p in burners and (p & 1) != colour and t not in kills:
            return True
    return False


class RangeJump(Generator):
    """A slider that jumps to capture (Tenjiku Shogi's jumping generals).

    Along each direction of its ``betza`` (single-leg riders: ``R``, ``B``, ``Q`` with direction
    modifiers) it moves like a slider to the empty squares before the first piece and may capture
    that piece, whatever its rank.  If that piece is of lower rank than its own it goes on past
    it: it jumps every piece of lower rank (of either side) and may capture each enemy one among
    them; the first piece of equal or higher rank (or the board's edge) stops it, and it may
    capture that piece only with ``capture_blocker`` (a rule of the variant).  It never lands on
    an empty square beyond the first piece (it jumps to capture, not to move)."""

    def __init__(self, spec: dict, colour: int, pieces: Pieces = NO_PIECES):
        try:
            patterns = parse_betza(spec["betza"])
        except KeyError:
            raise GeneratorError("range-jump generator needs 'betza' (the directions, e.g. \"Q\")") from None
        except XBetzaError as exc:
            raise GeneratorError(str(exc)) from None
        sign = 1 if colour == 0 else -1
        vectors = []
        for p in patterns:
            if p.is_multi_leg or p.is_hopper or p.range != 0 or p.initial_only:
                raise GeneratorError("the directions of a range-jump generator are plain riders (R, B, Q ...)")
            for dx, dy in p.legs[0].directions:
                if max(abs(dx), abs(dy)) != 1:
                    raise GeneratorError("a range-jump generator rides one-step directions (R, B, Q ...)")
                vectors.append((dx * sign, dy * sign))
        self.vectors = tuple(dict.fromkeys(vectors))
        self.steps = tuple(dx + dy * STRIDE for dx, dy in self.vectors)
        self.rank = pieces.rank
        self.own = pieces.own_rank
        self.capture_blocker = pieces.capture_blocker
        self.captures = True
        self.initial_only = False
        self.screened = False  # a piece put down never opens a capture: it can only stop one
        self.reach = UNBOUNDED
        self.end_offsets = frozenset((x * k, y * k) for x, y in self.vectors for k in range(1, MAX_RIDE + 1))
        self.capture_offsets = self.end_offsets

    def targets(self, b, origin, colour, out, limit, unmoved=None):
        rank, own = self.rank, self.own
        for step in self.steps:
            t = origin + step
            p = b[t]
            while p == EMPTY:
                out.add((t, ()))
                t += step
                p = b[t]
            if p == OFF:
                continue
            if (p & 1) != colour:
                out.add((t, ()))
            if rank[p] >= own:
                continue  # the first piece: taken or not, one of equal or higher rank cannot be jumped
            t += step
            p = b[t]
            while p != OFF:
                if p != EMPTY:
                    if rank[p] >= own:
                        if self.capture_blocker and (p & 1) != colour:
                            out.add((t, ()))
                        break
                    if (p & 1) != colour:
                        out.add((t, ()))
                t += step
                p = b[t]


class Area(Generator):
    """Up to ``steps`` King steps in any directions (Tenjiku Shogi's area moves): every square
    before the last must be empty (the start square is not passed again), and a capture ends the
    move.  It never ends where it started.  XBetza's multi-leg moves say nearly this
    (``KmaKmaK``), but count the start square as empty, so they would pass through it and end on
    it."""

    def __init__(self, spec: dict, colour: int, pieces: Pieces = NO_PIECES):
        steps = spec.get("steps")
        if not isinstance(steps, int) or not 1 <= steps <= 3:
            raise GeneratorError("area generator needs steps = 1, 2 or 3")
        self.steps = steps
        self.captures = spec.get("captures", True)
        self.initial_only = False
        self.screened = False
        self.reach = steps
        self.end_offsets = frozenset((x, y) for x in range(-steps, steps + 1) for y in range(-steps, steps + 1)
                                     if x or y)
        self.capture_offsets = self.end_offsets if self.captures else frozenset()

    def targets(self, b, origin, colour, out, limit, unmoved=None):
        seen = {origin}
        frontier = [origin]
        for _ in range(self.steps):
            nxt = []
            for sq in frontier:
                for d in KING_STEPS:
                    t = sq + d
                    if t in seen:
                        continue
                    p = b[t]
                    if p == EMPTY:
                        seen.add(t)
                        out.add((t, ()))
                        nxt.append(t)
                    elif p != OFF and (p & 1) != colour and self.captures:
                        out.add((t, ()))
            frontier = nxt


class Burning(Generator):
    """A piece that burns (``burns = "adjacent-enemies"``): each move of its other generators is
    followed by the removal of every enemy piece next to the destination (on the board after the
    move; pieces of the codes in ``unburnable`` are spared).  The burned squares join the move's
    ``kills`` after those taken on the way, so every part of daikifu sees them as captures.  A move
    that ends next to an enemy piece of the codes in ``passive`` (one not taken on the way) burns
    nothing: that piece burns the mover first (passive burning; the board removes the mover)."""

    def __init__(self, inner, colour: int, pieces: Pieces = NO_PIECES):
        self.inner = tuple(inner)
        self.unburnable = pieces.unburnable
        self.passive = pieces.passive
        self.captures = True
        self.initial_only = False
        self.screened = any(g.screened for g in self.inner)
        self.reach = min(UNBOUNDED, max((g.reach for g in self.inner), default=0) + 1)
        ends = [_end_offsets(g) for g in self.inner]
        if any(e is None for e in ends):
            self.capture_offsets = None
        else:
            near = set().union(*ends)
            self.capture_offsets = frozenset(
                (x + dx, y + dy) for x, y in near for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                if (x + dx, y + dy) != (0, 0))

    def targets(self, b, origin, colour, out, limit, unmoved=None):
        found: set = set()
        for g in self.inner:
            g.targets(b, origin, colour, found, limit, unmoved)
        unburnable = self.unburnable
        passive = self.passive
        for to, kills in found:
            burned = [t for d in KING_STEPS
                      if (p := b[t := to + d]) > OFF and t != origin and (p & 1) != colour
                      and t not in kills and p not in unburnable]
            if passive and burned_passively(b, to, colour, passive, kills):
                burned = []  # an enemy passive burner next to it burns it first
            emit(out, to, kills + tuple(burned) if burned else kills)


def _end_offsets(g):
    """Every (file, rank) offset a generator's moves can end on (captures or not), None when not
    worked out."""
    if isinstance(g, PatternGenerator):
        return g.ends
    return g.end_offsets


NAMED: dict[str, Callable[..., Generator]] = {"two-stage": TwoStage, "zigzag": ZigZag, "range-jump": RangeJump, "area": Area}
USES_PIECES = (RangeJump, Area)


def named_generator(spec: dict, colour: int, pieces: Pieces = NO_PIECES) -> Generator:
    kind = spec.get("kind")
    maker = NAMED.get(kind) if isinstance(kind, str) else None
    if maker is None:
        raise GeneratorError(f"unknown generator kind {kind!r} (known: {', '.join(sorted(NAMED))})")
    if maker in USES_PIECES:
        return maker(spec, colour, pieces)
    return maker(spec, colour)


def _ends(g: PatternGenerator) -> Offsets:
    """Where a stage of a two-stage move can end (a single-leg move: always worked out)."""
    if g.ends is None:
        raise GeneratorError(f"a stage of a two-stage move must be a single-leg XBetza move, not {g.pattern.text!r}")
    return g.ends


def _moving_only(p: Pattern) -> Pattern:
    from dataclasses import replace
    legs = tuple(replace(leg, modes=frozenset({"m"})) for leg in p.legs)
    return replace(p, legs=legs)


def walk(b: list[int], origin: int, colour: int, pat: Pattern, first: Sequence[tuple[int, int]], k: int, cur: int,
         prev: tuple[int, int] | None, kills: tuple[int, ...], rng: int, out: Effects, limit: int) -> None:
    """Follow leg ``k`` of a pattern from ``cur``; add each effect ``(to, kills)`` to ``out``.

    The board is not updated between legs (a victim still looks occupied), except that the origin
    counts as empty once the piece has left it.
    """
    legs = pat.legs
    leg = legs[k]
    final = k == len(legs) - 1
    modes = leg.modes
    vectors: Sequence[tuple[int, int]] = first if prev is None else [rotate(prev, turn) for turn in leg.directions]
    hopper = final and ("p" in modes or "g" in modes)
    for dx, dy in vectors:
        step = dx + dy * STRIDE
        n = max(abs(dx), abs(dy))
        lame_sq: int | None = None
        if (leg.lame or leg.jump) and n > 1:
            ax, ay = abs(dx), abs(dy)
            if ax == 0 or ay == 0 or ax == ay:
                lame_sq = (dx // n) + (dy // n) * STRIDE  # D, A, H, G: the first square on the way
            else:
                lame_sq = (dx // ax if ax > ay else 0) + (dy // ay if ay > ax else 0) * STRIDE
        t = cur
        hopped = False
        steps = 0
        max_steps = rng if rng else limit
        while steps < max_steps:
            if lame_sq is not None:
                mid = b[t + lame_sq] if t + lame_sq != origin else EMPTY
                if leg.lame and mid != EMPTY:
                    break
                if leg.jump and mid == EMPTY:
                    break
            t += step
            steps += 1
            p = b[t] if t != origin else EMPTY
            if p == OFF:
                break
            if leg.jump and lame_sq is None and steps == 1 and n == 1:
                continue  # 'j' on a W/F rider: skip the first square whatever is on it
            if p == EMPTY:
                if final:
                    if "m" in modes and (not hopper or hopped):
                        emit(out, t, kills)
                    if hopper and hopped and "g" in modes:
                        break
                elif "m" in modes:
                    walk(b, origin, colour, pat, first, k + 1, t, (dx, dy), kills, pat.range, out, limit)
                continue
            enemy = (p & 1) != colour
            if final:
                if hopper and not hopped:
                    hopped = True
                    continue
                if enemy and "c" in modes:
                    emit(out, t, kills)
                break
            if enemy and "c" in modes:
                walk(b, origin, colour, pat, first, k + 1, t, (dx, dy), kills + (t,), pat.range, out, limit)
            if "p" in modes or "g" in modes:
                nxt = (0 if pat.range == 1 else 1) if "g" in modes else pat.range
                walk(b, origin, colour, pat, first, k + 1, t, (dx, dy), kills, nxt, out, limit)
            break


def emit(out: Effects, to: int, kills: tuple[int, ...]) -> None:
    """Add an effect, normalised: no kill on the destination, each kill once, path order kept."""
    if to in kills:
        kills = tuple(k for k in kills if k != to)
    if len(set(kills)) != len(kills):
        kills = tuple(dict.fromkeys(kills))
    out.add((to, kills))
