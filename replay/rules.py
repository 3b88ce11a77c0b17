"""A variant compiled for play: move tables per piece and colour, zones, hashing keys.

A :class:`Ruleset` is a :class:`~replay.variant.Variant` with its options applied.  It turns every
piece's XBetza patterns into flat tables that the board walks without interpretation:

* ``leaps[code]``: ``(offset, modes)`` for single leaps and steps;
* ``rays[code]``: ``(offset, modes per distance)`` for slides (W, F and K steps are slides of one);
* ``complex[code]``: generators (:mod:`replay.generators`) for everything else: multi-leg moves,
  hoppers, lame or jumping leapers, initial-only moves, riders of leapers, named generators.

A piece whose moves depend on the zone it stands in has one table set per zone; ``zoned[code]``
then maps each square to the table index to use (``table_of``).

For check detection it builds reverse tables: for each of the eight directions, how far a piece
attacks along it (``ray_attack``), and which pieces attack by a leap from a given offset
(``leap_attack``).

A piece on the board is an integer *code* ``type_index * 2 + colour`` (colour 0 = first player,
1 = second player); 0 is an empty square and 1 an off-board cell.
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Sequence
from functools import lru_cache
from itertools import chain
from typing import Any, Callable, Final, NoReturn, TypeVar

from .generators import Burning, Generator, GeneratorError, PatternGenerator, Pieces, named_generator
from .move import Move
from .position import ParsedPosition, format_piece, parse_position
from .rulecache import load_or_compile
from .squares import CELLS, PAD, STRIDE, square, square_name
from .variant import PieceType, Variant, VariantError
from .xbetza import COMPASS, Pattern, XBetzaError, parse as parse_betza, rotate

EMPTY: Final = 0
OFF: Final = 1
MAX_TYPES: Final = 2047  # piece types a variant may have: (types + 1) * 2 piece codes below 4096
ZONE_TABLE, ZONE_MOVES = 1, 2  # Ruleset.verify: how an attack of a piece that moves by zone is confirmed
MOVE: Final = 1  # mode bit: may end on an empty square
CAPTURE: Final = 2  # mode bit: may capture an enemy piece

DIRECTIONS: Final = tuple(dx + dy * STRIDE for dx, dy in COMPASS)

# the shapes of the tables (see Ruleset)
Leaps = tuple[tuple[int, int], ...]  # (offset, modes) per leap
Rays = tuple[tuple[int, tuple[int, ...]], ...]  # (offset, modes per distance) per slide
Step = tuple[str, int, int, int]  # ("leap" or "slide", offset of one step, steps, modes)
MoveEntry = tuple[int, int, tuple[Move, ...]]  # (to, modes, moves) in a ready-made move table
MoveTable = tuple[tuple[MoveEntry, ...], tuple[tuple[MoveEntry, ...], ...]]  # (leaps, rays)
DropTable = tuple[tuple[Move | None, ...], bool]
T = TypeVar("T")


def _key(*parts) -> int:
    """A stable 64-bit hashing key, independent of piece order and Python's hash seed."""
    digest = hashlib.blake2b("\x1f".join(map(str, parts)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little")


class Ruleset:
    """A variant with its options applied, compiled into move tables."""

    def __init__(self, variant: Variant, options: dict | None = None):
        variant.require_playable()
        self.variant = variant
        self.name = variant.name
        self.pieces = variant.pieces
        self.options = variant.resolve_options(options)
        self.betza, self.rules, board = variant.configured(self.options)
        self.files, self.ranks, self.start = board["files"], board["ranks"], board["start"]
        if not (1 <= self.files <= 16 and 1 <= self.ranks <= 16):
            self._fail(f"board {self.files}x{self.ranks} is larger than 16x16")
        self.types = variant.pieces
        self.type_by_id = {p.id: p for p in variant.pieces}
        ntypes = len(self.types)
        if ntypes > MAX_TYPES:  # a piece code must fit in a board's undo entry
            self._fail(f"{ntypes} piece types: at most {MAX_TYPES}")
        ncodes = (ntypes + 1) * 2
        self.ncodes = ncodes
        self.squares = tuple(square(f, r) for r in range(self.ranks) for f in range(self.files))
        self.on_board = bytearray(CELLS)
        for sq in self.squares:
            self.on_board[sq] = 1
        r = self.rules

        # zones for zone-dependent moves: zone_of[colour][square] = 0, 1, 2 ... from the mover's side
        zones = list(r["zones"])
        if zones and sum(zones) != self.ranks:
            self._fail(f"[rules] zones {zones} add up to {sum(zones)} ranks, the board has {self.ranks}")
        self.zone_of = [bytearray(CELLS), bytearray(CELLS)]
        bounds = [sum(zones[:i + 1]) for i in range(len(zones))]
        for sq in self.squares:
            rank = sq // STRIDE - PAD
            for colour, own_rank in ((0, rank), (1, self.ranks - 1 - rank)):
                self.zone_of[colour][sq] = next((i for i, b in enumerate(bounds) if own_rank < b), 0)

        # tables are indexed by a "table index": the piece code, or an extra index per zone
        self.leaps: list[Leaps] = []
        self.rays: list[Rays] = []
        self.complex: list[tuple[Generator, ...]] = []
        self.dedupe: list[bool] = []
        self.by_delta: list[dict[int, Sequence[Step]]] = []
        self.ray_attack: list[list[tuple[int, ...]]] = [[], []]  # [colour][table]: reach in each direction
        self.leap_attack: list[tuple[tuple[int, frozenset[int]], ...]] = [(), ()]  # [colour]: (offset, codes)
        self.zoned: list[tuple[int, ...] | None] = [None] * ncodes
        # a piece that moves by zone has attack tables that hold the union of its zones': an attack
        # found in them is confirmed by its zone's table (ZONE_TABLE), or by generating its moves
        # when one of its zones has generators (ZONE_MOVES); 0 for every other piece
        self.verify = [0] * ncodes
        self.royal = [False] * ncodes
        self.promote = [0] * ncodes
        self.unpromoted = [0] * ncodes  # code -> code of the unpromoted form (itself if none)
        self.uses_initial = False
        for _ in range(ncodes):
            self._new_table()

        promoted_from = {p.promotes: p.id for p in self.types if p.promotes}
        self.promoted_types = frozenset(self.type_by_id[i].index for i in promoted_from)
        leap_attackers: list[dict[int, set[int]]] = [{}, {}]
        self.complex_attackers: list[set[int]] = [set(), set()]
        # what range jumps and burns need to know of the pieces, by code
        rank_of: list[int] = [0] * ncodes
        for p in self.types:
            rank_of[p.index * 2] = rank_of[p.index * 2 + 1] = p.rank
        spared = frozenset(self.type_by_id[i].index * 2 + c for i in r["burn_spared"] for c in (0, 1))
        self.burns: list[bool] = [False] * ncodes  # whether a piece's moves burn the enemy pieces next to where it ends
        self.burn_spared = spared  # the codes a burn never removes
        # the codes that burn passively (both colours), and whether there are any: a move that ends
        # next to an enemy one loses its piece (Board.burns_mover)
        self.passive_burners: frozenset[int] = frozenset(self.type_by_id[i].index * 2 + c for i in r["burns_passively"]
                                         for c in (0, 1))
        self.passive_burning: bool = bool(self.passive_burners)
        for p in self.types:
            spec = self.betza[p.id]
            strings = spec if isinstance(spec, list) else [spec]
            if isinstance(spec, list) and len(spec) != len(zones):
                self._fail(f"piece {p.id}: {len(spec)} zone move strings for {len(zones)} zones")
            patterns: list[tuple[Pattern, ...]] = []
            for text in strings:
                try:
                    patterns.append(parse_betza(text) if text else ())
                except XBetzaError as exc:
                    self._fail(f"piece {p.id}: {exc}")
            for colour in (0, 1):
                code = p.index * 2 + colour
                self.royal[code] = p.royal
                self.promote[code] = self.type_by_id[p.promotes].index * 2 + colour if p.promotes else 0
                base = promoted_from.get(p.id)
                self.unpromoted[code] = self.type_by_id[base].index * 2 + colour if base else code
                pieces = Pieces(rank_of, p.rank, bool(r["jump_capture_blocker"]), spared, self.passive_burners)
                try:
                    generators = [named_generator(g, colour, pieces) for g in p.generators]
                except GeneratorError as exc:
                    self._fail(f"piece {p.id}: {exc}")
                self.burns[code] = p.burns is not None
                if len(patterns) == 1:
                    self._compile(code, colour, patterns[0], generators, pieces if p.burns else None)
                else:
                    # one table per zone; attack tables hold the union and are confirmed per piece
                    indices = []
                    for pats in patterns:
                        idx = len(self.leaps)
                        self._new_table()
                        self._compile(idx, colour, pats, generators, pieces if p.burns else None)
                        indices.append(idx)
                    by_square = [code] * CELLS
                    for sq in self.squares:
                        by_square[sq] = indices[self.zone_of[colour][sq]]
                    self.zoned[code] = tuple(by_square)
                    self.verify[code] = ZONE_MOVES if any(self.complex[i] for i in indices) else ZONE_TABLE
                    self.ray_attack[colour][code] = tuple(
                        max(self.ray_attack[colour][i][d] for i in indices) for d in range(8))
                    self.complex[code] = tuple(g for i in indices for g in self.complex[i])
                self._collect_attackers(code, colour, leap_attackers[colour])
        for colour in (0, 1):
            self.leap_attack[colour] = tuple((off, frozenset(codes)) for off, codes in leap_attackers[colour].items())
        # per table: the (file, rank) offsets its generators can capture on, or None when some
        # generator's are not worked out; check detection skips a piece that cannot reach
        self.complex_offsets = [_capture_offsets(gens) for gens in self.complex]
        # per table: the offsets its leaps capture by; with ray_attack of the same table index, an
        # attack found in the union tables of a piece that moves by zone is confirmed by a look-up
        self.leap_captures = [frozenset(off for off, m in leaps if m & CAPTURE) for leaps in self.leaps]
        # read-only from here on: each delta's entries a tuple, equal ones one object (a big
        # variant has tens of thousands of them but a few hundred different ones), so that the
        # cache file holds each once and the garbage collector stops tracking them
        shared: dict = {}
        self.by_delta = [{d: _shared(shared, tuple(_shared(shared, e) for e in entries))
                          for d, entries in table.items()} for table in self.by_delta]

        self.drops = bool(r["drops"])
        # whether a drop may expose the mover's own royal piece: only by giving an enemy piece a
        # hurdle, a square to jump or a victim on the way (a cannon's screen); a piece put on the
        # board blocks every other move
        self.drops_may_expose = self.drops and any(g.screened for gens in self.complex for g in gens)
        depth = r["promotion_zone"]
        self.zone = [bytearray(CELLS), bytearray(CELLS)]
        self.last_rank = [bytearray(CELLS), bytearray(CELLS)]
        for sq in self.squares:
            rank = sq // STRIDE - PAD
            if depth and rank >= self.ranks - depth:
                self.zone[0][sq] = 1
            if depth and rank < depth:
                self.zone[1][sq] = 1
            if rank == self.ranks - 1:
                self.last_rank[0][sq] = 1
            if rank == 0:
                self.last_rank[1][sq] = 1
        self.forced_last_rank = r["promotion_forced"] == "last-rank"
        self.forced_stuck = r["promotion_forced"] != "never"  # a piece that could never move again must promote
        # Chu Shogi's rule: promotion on entering the zone, or on a capture that starts or ends in it
        self.promote_on_entry = r["promotion_rule"] == "enter-or-capture"
        self.promote_last_rank = frozenset(self.type_by_id[i].index for i in r["promotion_last_rank"])
        self.royal_capture = r["royal_loss"] == "capture"
        self.bare_royal = r["bare_royal"] == "loses"
        self.bare_uncounted = frozenset(self.type_by_id[i].index for i in r["bare_royal_uncounted"])
        # Lion-trading rules: lion[code] marks the Lions; lion_rules is False for every other variant
        self.lion = [False] * ncodes
        for pid in r["lions"]:
            t = self.type_by_id[pid].index
            self.lion[t * 2] = self.lion[t * 2 + 1] = True
        self.lion_protected = bool(r["lion_protected"])
        self.lion_cheap = frozenset(self.type_by_id[i].index for i in r["lion_cheap"])
        self.counter_strike = None if r["lion_counter_strike"] == "none" else r["lion_counter_strike"]
        self.lion_rules = self.lion_protected or self.counter_strike is not None
        # whether the ready-made move tables (move_table) give every non-complex piece's moves: not
        # with promotions that depend on capturing, nor with the Lion-trading rules
        self.table_moves = not (self.promote_on_entry or self.promote_last_rank or self.lion_rules)
        self.dead: list[frozenset[int]] = [frozenset()] * ncodes
        for p in self.types:
            for colour in (0, 1):
                code = p.index * 2 + colour
                self.dead[code] = frozenset(sq for sq in self.squares if not self._can_ever_move(code, sq))
        # drop caps: nifu is a cap of one unpromoted piece per file
        caps = [{"pieces": [pid], "per": "file", "max": 1} for pid in r["drop_nifu"]] + list(r["drop_caps"])
        self.drop_caps: list[list[tuple[frozenset[int], str, int]]] = [[] for _ in range(ntypes + 1)]
        for cap in caps:
            types = frozenset(self.type_by_id[pid].index for pid in cap["pieces"])
            for t in types:
                self.drop_caps[t].append((types, cap["per"], cap["max"]))
        self.drop_mate_forbidden = frozenset(self.type_by_id[i].index for i in r["drop_mate_forbidden"])
        self.drop_no_dead = bool(r["drop_no_dead_squares"])
        self.null_move = bool(r["null_move"])
        self.repetition = r["repetition"]
        self.stalemate_loses = r["stalemate"] == "loss"
        self.droppable = tuple(p.index for p in self.types
                               if p.index not in self.promoted_types and not p.royal)

        # hashing keys: stable across versions (derived from slug, piece ID and square name)
        slug = variant.slug
        # (tuples: the collector stops tracking them; not (0,) * CELLS, which a checker types as a
        # tuple of CELLS ints: a compiled build then holds a struct of them)
        self.z_square: list[tuple[int, ...]] = [tuple([0] * CELLS)] * ncodes
        for p in self.types:
            for colour in (0, 1):
                code = p.index * 2 + colour
                row = [0] * CELLS
                for sq in self.squares:
                    row[sq] = _key(slug, p.id, colour, square_name(sq))
                self.z_square[code] = tuple(row)
        self.z_hand: list[list[list[int]]] = [[[] for _ in range(ntypes + 1)] for _ in range(2)]
        self.z_turn = _key(slug, "second player to move")
        # the square of a Lion just taken by a non-Lion (counter-strike rule), when there is one
        z_lion = [0] * CELLS
        if self.counter_strike:
            for sq in self.squares:
                z_lion[sq] = _key(slug, "lion taken on", square_name(sq))
        self.z_lion = tuple(z_lion)
        self._set_lazy()

    def _set_lazy(self) -> None:
        """The tables built on first use, or quickly from the others (not stored with the compiled
        tables)."""
        # the ready-made moves of a piece on a square, by code * CELLS + square (see move_table:
        # the board reads this dict itself first, which saves the call for every piece it asks)
        self.move_tables: dict[int, MoveTable] = {}
        # the drops of a piece code (see drop_table; read first by the board, like move_tables)
        self.drop_tables: dict[int, DropTable] = {}
        self._attack_deltas: dict[int, frozenset[int] | None] = {}
        self._regions: dict[str, dict[int, frozenset[int]]] = {}
        # what other modules work out from this rule set, by the function that made it (see
        # derived; a hot path reads this dict first, as the board reads move_tables)
        self.kept: dict[Callable[[Ruleset], Any], Any] = {}
        self._parsed_start: ParsedPosition | None = None
        self._position_tables: tuple[list[list[int]], list[str | None]] | None = None
        # for each piece code: (its steps by delta (by_delta), its promotion zone or None when it
        # cannot promote, whether its moves must be tested for the safety of the royal piece)
        # when the move tables hold all its moves (no generators, no tables by zone, no promotion
        # on entering, no Lion-trading rules), else None: what Board.step_move checks a move by
        # (with passive burning the piece may not stand on its destination after the move:
        # _stays_safe, which plays such a move, decides)
        guard = not self.royal_capture and not self.passive_burning
        self.plain_steps: list[tuple[dict[int, Sequence[Step]], bytearray | None, bool] | None] = [
            None if not self.table_moves or self.zoned[code] is not None or self.complex[code]
            else (self.by_delta[code], self.zone[code & 1] if self.promote[code] else None, guard and not self.royal[code])
            for code in range(len(self.zoned))]

    def _fail(self, message: str) -> NoReturn:
        raise VariantError(f"{self.variant.path}: {message}")

    # What is stored with the compiled tables, by name: every attribute but the variant's own objects
    # (set again by attach) and what _set_lazy makes.  Named here rather than read from __dict__,
    # which a compiled build's objects do not have (tests/test_rulecache.py checks the list).
    STORED = ("name", "options", "betza", "rules", "files", "ranks", "start", "ncodes", "squares", "on_board",
              "zone_of", "leaps", "rays", "complex", "dedupe", "by_delta", "ray_attack", "leap_attack", "zoned",
              "verify", "royal", "promote", "unpromoted", "uses_initial", "promoted_types", "complex_attackers",
              "complex_offsets", "leap_captures", "drops", "drops_may_expose", "zone", "last_rank",
              "forced_last_rank", "forced_stuck", "promote_on_entry", "promote_last_rank", "royal_capture",
              "bare_royal", "bare_uncounted", "lion", "lion_protected", "lion_cheap", "counter_strike", "lion_rules",
              "table_moves", "dead", "drop_caps", "drop_mate_forbidden", "drop_no_dead", "null_move", "repetition",
              "stalemate_loses", "droppable", "z_square", "z_hand", "z_turn", "z_lion", "burns", "burn_spared",
              "passive_burners", "passive_burning")

    def __getstate__(self) -> dict[str, Any]:
        state = {name: getattr(self, name) for name in self.STORED}
        # the hashing keys as 8 bytes each: a pickled int is an object to make, and the keys are
        # most of a rule set (a new process loads a 15x15 variant's in a fifth of the time)
        state["z_square"] = array("Q", chain.from_iterable(self.z_square)).tobytes()
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        keys = array("Q")
        keys.frombytes(state.pop("z_square"))
        flat = keys.tolist()
        self.z_square = [tuple(flat[i:i + CELLS]) for i in range(0, len(flat), CELLS)]
        for name, value in state.items():
            setattr(self, name, value)
        self._set_lazy()

    def attach(self, variant: Variant) -> None:
        """Use ``variant``'s objects (after loading the compiled tables of that same variant)."""
        self.variant = variant
        self.pieces = self.types = variant.pieces
        self.type_by_id = {p.id: p for p in variant.pieces}

    def piece_index(self) -> dict[str, PieceType]:
        return self.variant.piece_index()

    def derived(self, make: Callable[[Ruleset], T]) -> T:
        """``make(self)``, made once per rule set and kept on it: where another module keeps what
        it works out from a rule set (a board in the start position, the move reader's plans, the
        viewer's tables), so that it lives and goes with the rule set.  ``make`` is the key: a
        function of the rule set alone.  Not stored with the compiled tables."""
        kept = self.kept
        if make in kept:
            found: T = kept[make]
            return found
        value = kept[make] = make(self)
        return value

    def parsed_start(self) -> ParsedPosition:
        """The start position, parsed once (boards are set up from it for every game replayed)."""
        parsed = self._parsed_start
        if parsed is None:
            parsed = self._parsed_start = parse_position(self, self.start)
        return parsed

    def position_tables(self) -> tuple[list[list[int]], list[str | None]]:
        """(rows, tokens) for writing position strings fast: the squares of each rank from the top
        rank down, files a, b, c ...; and each board code's piece as written (None: empty)."""
        tables = self._position_tables
        if tables is None:
            rows = [[square(f, r) for f in range(self.files)] for r in range(self.ranks - 1, -1, -1)]
            tokens: list[str | None] = [None, None]
            tokens += [format_piece(self, code >> 1, code & 1)
                                     for code in range(2, 2 * len(self.variant.pieces) + 2)]
            tables = self._position_tables = (rows, tokens)
        return tables

    def move_table(self, code: int, sq: int) -> MoveTable:
        """The ready-made moves of the piece ``code`` on ``sq``, for fast move generation.

        ``(leaps, rays)``: ``leaps`` holds ``(to, modes, moves)`` for each leap that stays on the
        board, ``rays`` one tuple of such entries per slide, nearest square first; ``moves`` are
        the :class:`~replay.board.Move` objects the board adds when the square may be reached
        (with and without promotion where the piece may choose).  Built on first use per piece and
        square: only squares pieces stand on are ever built.
        """
        key = code * CELLS + sq
        table = self.move_tables.get(key)
        if table is None:
            table = self.move_tables[key] = self._build_move_table(code, sq)
        return table

    def _build_move_table(self, code: int, sq: int) -> MoveTable:
        idx = self.table_of(code, sq)
        on = self.on_board
        colour = code & 1
        promo = self.promote[code]
        zone = self.zone[colour]
        dead = self.dead[code]
        last = self.last_rank[colour]

        new = tuple.__new__  # Move(sq, to, (), promotion) without the call of Move.__new__

        def moves(to):
            if promo and to != sq and (zone[sq] or zone[to]):
                if (self.forced_stuck and to in dead) or (self.forced_last_rank and last[to]):
                    return (new(Move, (sq, to, (), True, None)),)
                return (new(Move, (sq, to, (), True, None)), new(Move, (sq, to, (), False, None)))
            return (new(Move, (sq, to, (), None, None)),)

        leaps = tuple((sq + off, m, moves(sq + off)) for off, m in self.leaps[idx] if on[sq + off])
        rays = []
        for off, ms in self.rays[idx]:
            ray = []
            to = sq
            for m in ms:
                to += off
                if not on[to]:
                    break
                ray.append((to, m, moves(to)))
            if ray:
                rays.append(tuple(ray))
        return leaps, tuple(rays)

    def drop_table(self, code: int) -> DropTable:
        """The drops of the piece ``code``: a tuple indexed by square of the drop move there, or None
        where it may never be dropped (a square where it could never move, when the rules say
        so); and whether there is such a square."""
        table = self.drop_tables.get(code)
        if table is not None:
            return table
        # the moves are the same for both sides: made once per piece type (kept under minus the
        # type's index: a piece code is 2 or more)
        shared = self.drop_tables.get(-(code >> 1))
        if shared is None:
            pid = self.types[(code >> 1) - 1].id
            made: list[Move | None] = [None] * CELLS
            for sq in self.squares:
                made[sq] = tuple.__new__(Move, (None, sq, (), None, pid))  # Move(None, sq, (), None, pid)
            shared = self.drop_tables[-(code >> 1)] = (tuple(made), False)
        moves = shared[0]
        dead = self.dead[code] if self.drop_no_dead else frozenset()
        if dead:
            some = list(moves)
            for sq in dead:
                some[sq] = None
            moves = tuple(some)
        table = self.drop_tables[code] = (moves, bool(dead))
        return table

    def region_squares(self, per: str) -> dict[int, frozenset[int]]:
        """Region -> the squares in it (a frozenset), for a drop cap counted ``per`` file, group
        of alternate files, square colour or the whole board (see :func:`drop_region`)."""
        regions = self._regions.get(per)
        if regions is None:
            found: dict = {}
            for sq in self.squares:
                found.setdefault(drop_region(per, sq), set()).add(sq)
            regions = self._regions[per] = {key: frozenset(sqs) for key, sqs in found.items()}
        return regions

    def attack_deltas(self, code: int) -> frozenset | None:
        """Every ``target - square`` on which the piece ``code`` could ever capture from ``square``
        (None when its generators' capture offsets are not worked out; with moves that depend on
        the zone, those of every zone).  Used to skip the mate test of drops that cannot check."""
        if code in self._attack_deltas:
            return self._attack_deltas[code]
        zoned = self.zoned[code]
        indices = {code} if zoned is None else set(zoned[sq] for sq in self.squares)
        found: set[int] = set()
        deltas: frozenset[int] | None = None
        for idx in indices:
            offsets = self.complex_offsets[idx]
            if self.complex[idx] and offsets is None:
                break
            found.update(off for off, m in self.leaps[idx] if m & CAPTURE)
            for off, ms in self.rays[idx]:
                found.update(off * k for k, m in enumerate(ms, start=1) if m & CAPTURE)
            if offsets:
                found.update(dx + dy * STRIDE for dx, dy in offsets)
        else:
            deltas = frozenset(found)
        self._attack_deltas[code] = deltas
        return deltas

    def table_of(self, code: int, sq: int) -> int:
        """The table index for a piece on a square (the code itself unless moves depend on zones)."""
        z = self.zoned[code]
        return code if z is None else z[sq]

    def _new_table(self):
        self.leaps.append(())
        self.rays.append(())
        self.complex.append(())
        self.dedupe.append(False)
        self.by_delta.append({})
        for colour in (0, 1):
            self.ray_attack[colour].append((0,) * 8)

    def hand_key(self, colour: int, type_index: int, count: int) -> int:
        """Key for holding ``count`` pieces of a type in hand (0 when count is 0)."""
        if count == 0:
            return 0
        keys = self.z_hand[colour][type_index]
        while len(keys) <= count:
            keys.append(_key(self.variant.slug, "hand", self.types[type_index - 1].id, colour, len(keys)))
        return keys[count]

    # --- compiling patterns ----------------------------------------------------------------------

    def _compile(self, code: int, colour: int, patterns: Sequence[Pattern], generators: list[Generator],
                 burning: Pieces | None = None) -> None:
        """Fill the tables at index ``code`` from XBetza patterns and named generators; for a piece
        that burns (``burning``: what the burn needs to know), every move is one of a
        :class:`~replay.generators.Burning` generator (its captures are not those of the tables)."""
        sign = 1 if colour == 0 else -1
        leaps: dict[int, int] = {}
        rays: dict[int, list[int]] = {}
        complex_: list[Generator] = list(generators)
        for pat in patterns:
            leg = pat.legs[0]
            simple = (len(pat.legs) == 1 and not pat.is_hopper and not leg.lame and not leg.jump
                      and not pat.initial_only and burning is None)
            if pat.initial_only:
                self.uses_initial = True
            vectors = [(dx * sign, dy * sign) for dx, dy in leg.directions]
            if simple and pat.range != 1 and any(not _unit(v) for v in vectors):
                simple = False  # riders of leapers (nightrider ...) use the general interpreter
            if not simple:
                complex_.append(PatternGenerator(pat, colour))
                continue
            modes = (MOVE if "m" in leg.modes else 0) | (CAPTURE if "c" in leg.modes else 0)
            for dx, dy in vectors:
                off = dx + dy * STRIDE
                if not _unit((dx, dy)):
                    leaps[off] = leaps.get(off, 0) | modes
                    continue
                limit = pat.range if pat.range else max(self.files, self.ranks)
                cur = rays.setdefault(off, [])
                cur.extend([0] * (limit - len(cur)))
                for k in range(limit):
                    cur[k] |= modes
        if burning is not None and complex_:
            complex_ = [Burning(complex_, colour, burning)]
        # a leap that lands where a slide of the same piece also lands would give a move twice
        self.dedupe[code] = any(_on_ray(off, rays) for off in leaps)
        self.leaps[code] = tuple(leaps.items())
        self.rays[code] = tuple((off, tuple(m)) for off, m in rays.items())
        self.complex[code] = tuple(complex_)
        table: dict[int, list[Step]] = {}
        for off, m in leaps.items():
            table.setdefault(off, []).append(("leap", off, 1, m))
        for off, ms in rays.items():
            for k, m in enumerate(ms, start=1):
                table.setdefault(off * k, []).append(("slide", off, k, m))
        self.by_delta[code] = dict(table)
        # reverse table for check detection: direction index from the target towards the attacker
        attack = [0] * 8
        for off, ms in rays.items():
            d = DIRECTIONS.index(-off)
            attack[d] = max(attack[d], max((k for k, m in enumerate(ms, start=1) if m & CAPTURE), default=0))
        self.ray_attack[colour][code] = tuple(attack)

    def _collect_attackers(self, code: int, colour: int, leap_attackers: dict) -> None:
        zoned = self.zoned[code]
        indices = {code} if zoned is None else set(zoned[sq] for sq in self.squares)
        for idx in indices:
            for off, m in self.leaps[idx]:
                if m & CAPTURE:
                    leap_attackers.setdefault(-off, set()).add(code)
        if any(g.captures for g in self.complex[code]):
            self.complex_attackers[colour].add(code)

    def _can_ever_move(self, code: int, sq: int) -> bool:
        """Whether a piece on ``sq`` could ever move from there again: whether one of its moves
        ends on another square of the board, whatever stands on the other squares.  A piece to
        capture, a hurdle to hop or a victim to take on the way may stand there later, so only the
        board's edges decide (docs/variants.md, "A piece that could never move again"); a move
        for a piece's first move only (``i``) does not count, nor does a pass."""
        on = self.on_board
        idx = self.table_of(code, sq)
        if any(on[sq + off] for off, _ in self.leaps[idx]) or any(on[sq + off] for off, _ in self.rays[idx]):
            return True
        empty = None
        for g in self.complex[idx]:
            if isinstance(g, PatternGenerator):
                if not g.initial_only and _ends_on_board(g.pattern, g.first, sq, self.files, self.ranks):
                    return True
                continue
            # a named generator: its moves on an empty board
            if empty is None:
                empty = [EMPTY if on[i] else OFF for i in range(CELLS)]
            out: set = set()
            g.targets(empty, sq, code & 1, out, max(self.files, self.ranks), None)
            out.discard((sq, ()))  # a pass is not a move that frees a stuck piece
            if out:
                return True
        return False

def _ends_on_board(pattern, first, sq: int, files: int, ranks: int) -> bool:
    """Whether some move of the XBetza ``pattern`` (first-leg vectors ``first``, as the piece's
    side sees them) from ``sq`` ends on another square of a ``files`` x ``ranks`` board, for some
    arrangement of the other pieces: a leg that goes on may go on from any square it crosses (a
    victim, a hurdle or an empty square there as it needs), a hop lands beyond its hurdle."""
    f0, r0 = sq % STRIDE - PAD, sq // STRIDE - PAD
    legs = pattern.legs
    last = len(legs) - 1
    longest = max(files, ranks)

    def follow(k: int, f: int, r: int, vectors, rng: int) -> bool:
        leg = legs[k]
        hop = bool(leg.modes & {"p", "g"})
        for dx, dy in vectors:
            skip = 1 if leg.jump and max(abs(dx), abs(dy)) == 1 else 0  # 'j' on a W/F rider
            for n in range(1, (rng or longest) + 1):
                x, y = f + dx * n, r + dy * n
                if not (0 <= x < files and 0 <= y < ranks):
                    break
                if k < last:
                    nxt = (0 if pattern.range == 1 else 1) if "g" in leg.modes else pattern.range
                    if follow(k + 1, x, y, [rotate((dx, dy), t) for t in legs[k + 1].directions], nxt):
                        return True
                elif n > skip + hop and (x, y) != (f0, r0):
                    return True
        return False

    return follow(0, f0, r0, first, pattern.range)


def drop_region(per: str, sq: int) -> int:
    """The region of a square that a drop cap counts in: its file, its group of alternate files,
    its square colour, or 0 for the whole board."""
    f, r = sq % STRIDE, sq // STRIDE
    if per == "file":
        return f
    if per == "file-parity":
        return f & 1
    if per == "square-colour":
        return (f + r) & 1
    return 0


def _unit(v) -> bool:
    """One step in one of the eight directions (these become rays)."""
    return max(abs(v[0]), abs(v[1])) == 1


def _on_ray(off: int, rays: dict) -> bool:
    for step, ms in rays.items():
        for k in range(2, len(ms) + 1):
            if step * k == off:
                return True
    return False


def compile_rules(variant: Variant, options: dict | None = None) -> Ruleset:
    """The compiled ruleset for a variant and options (kept: compiling a big variant takes time)."""
    return _compiled(variant, tuple(sorted(variant.resolve_options(options).items())))


@lru_cache(maxsize=128)
def _compiled(variant: Variant, options: tuple) -> Ruleset:
    """The rule set of ``variant`` (compared by identity: a Variant is not equal to a copy of
    itself) with ``options`` (resolved, as sorted pairs), from the disk cache when there."""
    return load_or_compile(variant, dict(options), Ruleset)


def _shared(objects: dict[Any, Any], value: T) -> T:
    """``value``, or the equal object met before (kept in ``objects``)."""
    return objects.setdefault(value, value)


def _capture_offsets(generators: Sequence[Generator]) -> frozenset[tuple[int, int]] | None:
    found: set[tuple[int, int]] = set()
    for g in generators:
        if g.captures:
            if g.capture_offsets is None:
                return None
            found.update(g.capture_offsets)
    return frozenset(found)
