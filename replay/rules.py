"""A variant compiled for play: move tables per piece and colour, zones, hashing keys.

A :class:`Ruleset` is a :class:`~replay.variant.Variant` with its options applied.  It turns every
piece's XBetza patterns into flat tables that the board walks without interpretation:

* ``leaps[code]``: ``(offset, modes)`` for single leaps and steps;
* ``rays[code]``: ``(offset, modes per distance)`` for slides (W, F and K steps are slides of one);
* ``complex[code]``: patterns that need the general interpreter (multi-leg moves, hoppers, lame
  or jumping leapers, initial-only moves, riders of leapers).

For check detection it builds reverse tables: for each of the eight directions, how far a piece
attacks along it (``ray_attack``), and which pieces attack by a leap from a given offset
(``leap_attack``).

A piece on the board is an integer *code* ``type_index * 2 + colour`` (colour 0 = first player,
1 = second player); 0 is an empty square and 1 an off-board cell.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from .squares import CELLS, STRIDE, square, square_name
from .variant import Variant, VariantError
from .xbetza import COMPASS, Pattern, XBetzaError, parse as parse_betza

EMPTY = 0
OFF = 1
MOVE = 1  # mode bit: may end on an empty square
CAPTURE = 2  # mode bit: may capture an enemy piece

DIRECTIONS = tuple(dx + dy * STRIDE for dx, dy in COMPASS)
_CACHE: dict = {}


def _key(*parts) -> int:
    """A stable 64-bit hashing key, independent of piece order and Python's hash seed."""
    digest = hashlib.blake2b("\x1f".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


@dataclass(frozen=True)
class OrientedPattern:
    """A complex pattern turned towards one side: first-leg vectors already rotated."""

    pattern: Pattern
    first: tuple  # (dx, dy) vectors of the first leg for this colour
    reach: int  # largest Chebyshev distance it can affect, 99 = unbounded


class Ruleset:
    """A variant with its options applied, compiled into move tables."""

    def __init__(self, variant: Variant, options: dict | None = None):
        variant.require_playable()
        self.variant = variant
        self.options = variant.resolve_options(options)
        self.betza, self.rules = variant.configured(self.options)
        self.files, self.ranks = variant.files, variant.ranks
        self.types = variant.pieces
        self.type_by_id = {p.id: p for p in variant.pieces}
        ntypes = len(self.types)
        ncodes = (ntypes + 1) * 2
        self.ncodes = ncodes
        self.squares = tuple(square(f, r) for r in range(self.ranks) for f in range(self.files))
        self.on_board = bytearray(CELLS)
        for sq in self.squares:
            self.on_board[sq] = 1

        self.leaps = [()] * ncodes
        self.rays = [()] * ncodes
        self.complex = [()] * ncodes
        self.dedupe = [False] * ncodes
        self.by_delta = [{} for _ in range(ncodes)]
        self.royal = [False] * ncodes
        self.promote = [0] * ncodes
        self.unpromoted = [0] * ncodes  # code -> code of the unpromoted form (itself if none)
        self.ray_attack = [[(0,) * 8 for _ in range(ncodes)] for _ in range(2)]
        self.leap_attack = [[], []]
        self.complex_attackers = [set(), set()]
        self.uses_initial = False

        promoted_from = {p.promotes: p.id for p in self.types if p.promotes}
        self.promoted_types = frozenset(self.type_by_id[i].index for i in promoted_from)
        self.patterns = {}
        for p in self.types:
            try:
                self.patterns[p.id] = parse_betza(self.betza[p.id])
            except XBetzaError as exc:
                raise VariantError(f"{variant.path}: piece {p.id}: {exc}") from None
        leap_attackers = [{}, {}]
        for p in self.types:
            for colour in (0, 1):
                code = p.index * 2 + colour
                self.royal[code] = p.royal
                self.promote[code] = self.type_by_id[p.promotes].index * 2 + colour if p.promotes else 0
                base = promoted_from.get(p.id)
                self.unpromoted[code] = self.type_by_id[base].index * 2 + colour if base else code
                self._compile(code, colour, self.patterns[p.id], leap_attackers[colour])
        for colour in (0, 1):
            self.leap_attack[colour] = tuple((off, frozenset(codes)) for off, codes in leap_attackers[colour].items())

        r = self.rules
        self.drops = bool(r["drops"])
        depth = r["promotion_zone"]
        self.zone = [bytearray(CELLS), bytearray(CELLS)]
        self.last_rank = [bytearray(CELLS), bytearray(CELLS)]
        for sq in self.squares:
            rank = sq // STRIDE - 3
            if depth and rank >= self.ranks - depth:
                self.zone[0][sq] = 1
            if depth and rank < depth:
                self.zone[1][sq] = 1
            if rank == self.ranks - 1:
                self.last_rank[0][sq] = 1
            if rank == 0:
                self.last_rank[1][sq] = 1
        self.forced_last_rank = r["promotion_forced"] == "last-rank"
        self.dead = [frozenset()] * ncodes
        for p in self.types:
            for colour in (0, 1):
                code = p.index * 2 + colour
                self.dead[code] = frozenset(sq for sq in self.squares if not self._can_ever_move(code, sq))
        self.nifu = frozenset(self.type_by_id[i].index for i in r["drop_nifu"])
        self.drop_mate_forbidden = frozenset(self.type_by_id[i].index for i in r["drop_mate_forbidden"])
        self.drop_no_dead = bool(r["drop_no_dead_squares"])
        self.repetition = r["repetition"]
        self.stalemate_loses = r["stalemate"] == "loss"
        self.droppable = tuple(p.index for p in self.types
                               if p.index not in self.promoted_types and not p.royal)

        # hashing keys: stable across versions (derived from slug, piece ID and square name)
        slug = variant.slug
        self.z_square = [[0] * CELLS for _ in range(ncodes)]
        for p in self.types:
            for colour in (0, 1):
                code = p.index * 2 + colour
                row = self.z_square[code]
                for sq in self.squares:
                    row[sq] = _key(slug, p.id, colour, square_name(sq))
        self.z_hand = [[[0] * 0 for _ in range(ntypes + 1)] for _ in range(2)]
        self.z_turn = _key(slug, "second player to move")

    def hand_key(self, colour: int, type_index: int, count: int) -> int:
        """Key for holding ``count`` pieces of a type in hand (0 when count is 0)."""
        if count == 0:
            return 0
        keys = self.z_hand[colour][type_index]
        while len(keys) <= count:
            keys.append(_key(self.variant.slug, "hand", self.types[type_index - 1].id, colour, len(keys)))
        return keys[count]

    # --- compiling patterns ----------------------------------------------------------------------

    def _compile(self, code: int, colour: int, patterns, leap_attackers: dict) -> None:
        sign = 1 if colour == 0 else -1
        leaps: dict[int, int] = {}
        rays: dict[int, list[int]] = {}
        complex_: list[OrientedPattern] = []
        for pat in patterns:
            leg = pat.legs[0]
            simple = (len(pat.legs) == 1 and not pat.is_hopper and not leg.lame and not leg.jump
                      and not pat.initial_only)
            modes = (MOVE if "m" in leg.modes else 0) | (CAPTURE if "c" in leg.modes else 0)
            vectors = [(dx * sign, dy * sign) for dx, dy in leg.directions]
            if pat.initial_only:
                self.uses_initial = True
            if simple:
                for dx, dy in vectors:
                    n = max(abs(dx), abs(dy))
                    unit = (dx // n, dy // n)
                    compass = unit in COMPASS and (dx == 0 or dy == 0 or abs(dx) == abs(dy)) and n == 1
                    if pat.range == 1 and not compass:
                        off = dx + dy * STRIDE
                        leaps[off] = leaps.get(off, 0) | modes
                        continue
                    if pat.range != 1 and not compass:
                        # riders of leapers (nightrider ...) use the general interpreter
                        simple = False
                        break
                    off = dx + dy * STRIDE
                    limit = pat.range if pat.range else max(self.files, self.ranks)
                    cur = rays.setdefault(off, [])
                    while len(cur) < limit:
                        cur.append(0)
                    for k in range(limit):
                        cur[k] |= modes
            if not simple:
                complex_.append(OrientedPattern(pat, tuple(vectors), _reach(pat)))
        # a leap that lands where a slide of the same piece also lands would give a move twice
        self.dedupe[code] = any(_on_ray(off, rays) for off in leaps)
        self.leaps[code] = tuple(leaps.items())
        self.rays[code] = tuple((off, tuple(m)) for off, m in rays.items())
        self.complex[code] = tuple(complex_)
        table = self.by_delta[code]
        for off, m in leaps.items():
            table.setdefault(off, []).append(("leap", off, 1, m))
        for off, ms in rays.items():
            for k, m in enumerate(ms, start=1):
                table.setdefault(off * k, []).append(("slide", off, k, m))
        # reverse tables for check detection: direction index from the target towards the attacker
        attack = [0] * 8
        for off, ms in rays.items():
            d = DIRECTIONS.index(-off)
            reach = max((k for k, m in enumerate(ms, start=1) if m & CAPTURE), default=0)
            attack[d] = max(attack[d], reach)
        self.ray_attack[colour][code] = tuple(attack)
        for off, m in leaps.items():
            if m & CAPTURE:
                leap_attackers.setdefault(-off, set()).add(code)
        if any(_captures(op.pattern) for op in complex_):
            self.complex_attackers[colour].add(code)

    def _can_ever_move(self, code: int, sq: int) -> bool:
        """Whether a piece on ``sq`` has any move on an otherwise empty board (else it is stuck)."""
        on = self.on_board
        for off, _ in self.leaps[code]:
            if on[sq + off] if 0 <= sq + off < CELLS else False:
                return True
        for off, _ in self.rays[code]:
            if 0 <= sq + off < CELLS and on[sq + off]:
                return True
        for op in self.complex[code]:
            for dx, dy in op.first:
                t = sq + dx + dy * STRIDE
                if 0 <= t < CELLS and on[t]:
                    return True
        return False


def _on_ray(off: int, rays: dict) -> bool:
    for step, ms in rays.items():
        for k in range(2, len(ms) + 1):
            if step * k == off:
                return True
    return False


def _captures(pat: Pattern) -> bool:
    return any("c" in leg.modes for leg in pat.legs)


def _reach(pat: Pattern) -> int:
    """Largest Chebyshev distance from the origin that a pattern can touch."""
    from .xbetza import _ATOMS, atom_vectors  # the atom table is private to the parser
    if pat.range == 0 or pat.is_hopper and pat.range != 1:
        return 99
    size = max(max(abs(x), abs(y)) for x, y in atom_vectors(pat.atom))
    return size * pat.range * len(pat.legs)


def compile_rules(variant: Variant, options: dict | None = None) -> Ruleset:
    """The compiled ruleset for a variant and options (cached: compiling a big variant takes time)."""
    resolved = variant.resolve_options(options)
    key = (id(variant), tuple(sorted(resolved.items())))
    cached = _CACHE.get(key)
    if cached is None or cached.variant is not variant:
        cached = _CACHE[key] = Ruleset(variant, resolved)
    return cached
