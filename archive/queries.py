"""Queries over the archive: position search, material search and the opening explorer.

>>> archive = Archive("games.db")                                              # doctest: +SKIP
>>> where = target(archive, game_id=12, ply=30)                               # doctest: +SKIP
>>> [(hit.game_id, hit.ply) for hit in search_position(archive, where)]        # doctest: +SKIP
>>> spec = parse_material("S:!LD>=2,R=0; G:K=1", "dai-kagamigi")              # doctest: +SKIP
>>> next(search_material(archive, spec)).ply                                   # doctest: +SKIP
>>> [(m.move, m.games) for m in explore(archive, where).moves]                 # doctest: +SKIP

A position is a :class:`Target`: a variant, a board and the board's 64-bit Zobrist hash (what
``positions.hash`` holds).  Every query looks the hash up first and then **confirms** each
candidate by replaying the game to that ply and comparing position strings (board, side to move
and hands; not the move number), so a hash collision can never produce a wrong hit:

* a row at ply 0 is confirmed without replaying: the game's start position is known (the
  ``games.start`` column, or the variant's start position when it is NULL);
* a row at a later ply is confirmed by replaying the game from its start along its stored
  positions (:meth:`Replayer.walk`: one primary-key lookup of ``positions`` per ply gives the move
  played, and the board computes the next hash).

The opening explorer reads the games at ply 0 from the ``first_moves`` summary (counts per start
position and first move, kept up to date at insert time) and confirms each of its start positions
exactly (so the explorer from the start position never replays anything); among the games that
reach the position later it confirms all of them when there are at most ``sample`` (default
:data:`EXPLORER_SAMPLE`), else a seeded random sample of ``sample`` games; if any game of the
sample fails, every game is confirmed and only the confirmed ones are counted.  The result says
which was done (``confirmed``).

Invalid games have no rows in ``positions``; with ``include_invalid`` they are read again from
their stored text (:meth:`Archive.load_game`, moves up to the first error) and searched by replay.
"""

from __future__ import annotations

import heapq
import json
from itertools import chain, groupby
import random
import re
import time
from dataclasses import asdict, dataclass, field
from typing import Iterable, Iterator

from daikifu.formats.game import parse_ruleset
from daikifu.replay.usi import position_from_text
from daikifu.replay.notation import move_notation
from daikifu.replay import (Board, Move, PositionError, UnknownVariantError, VariantError, VariantRegistry,
                            compile_rules)
from daikifu.replay.rules import Ruleset

from .schema import EXPLORER_SAMPLE
from .store import Archive, is_game_id

__all__ = ["QueryError", "ReplayError", "Target", "Hit", "MaterialTerm", "MaterialSpec", "MaterialHit",
           "ExplorerMove", "Explorer", "Replayer", "tune_for_queries", "position_key", "target", "candidates", "confirm",
           "confirm_candidates", "search_position", "material_counts", "move_effects",
           "parse_material", "search_material", "explore", "EXPLORER_SAMPLE", "RESULT_KEYS"]

RESULT_KEYS = {"1-0": "sente_wins", "0-1": "gote_wins", "1/2-1/2": "draws", "*": "unfinished"}


class QueryError(ValueError):
    """A query that cannot be run: bad position string, unknown game, ply out of range ...
    The message is one line, fit for the command line; ``param`` names the command-line option
    at fault, if one is."""

    def __init__(self, message: str, param: str | None = None):
        super().__init__(message)
        self.param = param


class ReplayError(Exception):
    """A stored game whose positions do not replay (``positions`` has no row for the position the
    board reaches: the variant file changed since the import, or the database was edited)."""

    def __init__(self, game_id: int, ply: int):
        super().__init__(f"game {game_id}: the stored positions stop at ply {ply}")
        self.game_id = game_id
        self.ply = ply


def position_key(text: str) -> str:
    """A position string without its move number: board, side to move and hands (what makes two
    positions the same; the Zobrist hash covers exactly these)."""
    return " ".join(text.split()[:3])


def tune_for_queries(archive: Archive, mmap_mb: int = 1024, cache_mb: int = 64) -> None:
    """Read-side settings for a process that runs queries: the database file memory-mapped (up to
    ``mmap_mb``) and a bigger page cache, for the many scattered page reads of position search
    and of the explorer's replays."""
    archive.conn.execute(f"PRAGMA mmap_size={int(mmap_mb) << 20}")
    archive.conn.execute(f"PRAGMA cache_size=-{int(cache_mb) * 1024}")


# --- replaying stored games -----------------------------------------------------------------------

_NEXT_SQL = "SELECT next FROM positions WHERE hash = ? AND game_id = ? AND ply = ?"


class Replayer:
    """Replays stored games.  Caches compiled rules, start positions and parsed moves, so it is
    worth keeping one for a whole query."""

    def __init__(self, archive: Archive, shared: dict | None = None):
        """Variants are looked up in ``archive.variants``.  ``shared``: a dict kept by the caller
        to share the caches (variants, compiled rules, start keys, parsed moves) between replayers
        of the same variants, e.g. one per web request; compiling Dai Kagamigi's rules takes
        about 60 ms."""
        self.archive = archive
        self.conn = archive.conn
        caches = shared if shared is not None else {}
        self._variants: dict = caches.setdefault("variants", {})
        self._rules: dict = caches.setdefault("rules", {})
        self._start_keys: dict = caches.setdefault("start_keys", {})
        self._parsed: dict = caches.setdefault("parsed", {})

    def variant(self, slug: str):
        v = self._variants.get(slug)
        if v is None:
            try:
                v = self._variants[slug] = self.archive.variants.load(slug)
            except UnknownVariantError as exc:
                raise QueryError(str(exc).strip("\"'")) from None
            except VariantError as exc:
                raise QueryError(str(exc)) from None
        return v

    def rules(self, slug: str, ruleset: str = "") -> Ruleset:
        key = (slug, ruleset or "")
        r = self._rules.get(key)
        if r is None:
            v = self.variant(slug)
            try:
                v.require_playable()
                r = self._rules[key] = compile_rules(v, parse_ruleset(ruleset) if ruleset else None)
            except (VariantError, ValueError) as exc:
                raise QueryError(f"{slug}: {exc}") from None
        return r

    def board(self, slug: str, ruleset: str = "", start: str | None = None) -> Board:
        """A fresh board at a game's start position."""
        rules = self.rules(slug, ruleset)
        try:
            return Board(rules, start)
        except (PositionError, ValueError) as exc:
            raise QueryError(f"{slug}: bad start position {start!r}: {exc}") from None

    def start_key(self, slug: str, ruleset: str = "", start: str | None = None) -> str:
        """:func:`position_key` of a game's start position (cached)."""
        key = (slug, ruleset or "", start)
        k = self._start_keys.get(key)
        if k is None:
            k = self._start_keys[key] = position_key(self.board(slug, ruleset, start).position())
        return k

    def parser(self, rules: Ruleset):
        """``text -> Move`` for the compact moves of ``positions.next`` (cached per variant)."""
        cache = self._parsed.get(rules)  # (a rule set is hashed by identity: the key holds it)
        if cache is None:
            cache = self._parsed[rules] = ({}, Board(rules))
        moves, board = cache

        def parse(text: str) -> Move:
            m = moves.get(text)
            if m is None:
                if len(moves) > 100_000:
                    moves.clear()
                m = moves[text] = board.parse_uci(text)
            return m
        return parse

    def walk(self, game_id: int, board: Board, upto: int | None = None) -> Iterator[Move]:
        """The moves of a stored (not invalid) game's main line, read from ``positions``.

        ``board`` must be at the game's start (:meth:`board`).  Each move is yielded with the
        board still at the position before it, and is played on the board when the next one is
        asked for: after a complete loop the board is at the end (or after ``upto`` plies).
        Raises :class:`ReplayError` if the stored positions do not continue."""
        execute = self.conn.execute
        parse = self.parser(board.rules)
        ply = 0
        while upto is None or ply < upto:
            row = execute(_NEXT_SQL, (board.zobrist, game_id, ply)).fetchone()
            if row is None:
                raise ReplayError(game_id, ply)
            if row[0] is None:
                return
            move = parse(row[0])
            yield move
            board.push(move)
            ply += 1

    def game_moves(self, game: dict) -> tuple[Board, Iterable[Move]]:
        """(start board, moves) of any stored game (``game`` has id, variant, ruleset, start,
        status): read from ``positions`` for a valid game (:meth:`walk`), from the stored text for
        an invalid one (its moves up to the first error).  Either way each move is yielded with the
        board before it and played on the board when the next one is asked for."""
        if game["status"] != "invalid":
            board = self.board(game["variant"], game["ruleset"], game["start"])
            return board, self.walk(game["id"], board)
        loaded = self.archive.load_game(game["id"])
        if loaded is None:
            raise QueryError(f"no game {game['id']}")
        board = loaded.start_board()
        return board, _pushing(board, loaded.mainline_moves())


def _pushing(board: Board, moves) -> Iterator[Move]:
    for m in moves:
        yield m
        board.push(m)


# --- the position looked for ----------------------------------------------------------------------


@dataclass
class Target:
    """A position to look for."""

    variant: str  # slug
    ruleset: str
    board: Board
    position: str  # the canonical position string (with the move number)
    key: str  # position_key(position)
    hash: int  # signed 64-bit Zobrist hash, as in positions.hash
    game_id: int | None = None  # when taken from a stored game ...
    ply: int | None = None  # ... after this many plies

    def as_dict(self) -> dict:
        return {"variant": self.variant, "ruleset": self.ruleset, "position": self.position, "hash": self.hash,
                "game": self.game_id, "ply": self.ply}


def _game_setup(archive: Archive, game_id: int) -> dict:
    if not is_game_id(game_id):
        raise QueryError(f"no game {game_id} in {archive.path}")
    row = archive.conn.execute("SELECT id, variant, ruleset, start, status, ply_count FROM games WHERE id = ?",
                               (int(game_id),)).fetchone()
    if row is None:
        raise QueryError(f"no game {game_id} in {archive.path}")
    return dict(zip(("id", "variant", "ruleset", "start", "status", "ply_count"), row))


def target(archive: Archive, position: str | None = None, variant: str | None = None, *,
           game_id: int | None = None, ply: int | None = None, ruleset: str = "",
           replayer: Replayer | None = None) -> Target:
    """The position to look for: a position string of ``variant`` (slug, name or alias), or the
    position of stored game ``game_id`` after ``ply`` plies (its variant; ``variant``, if given,
    must be the same).  Raises :class:`QueryError` with a one-line message."""
    rp = replayer or Replayer(archive)
    if game_id is not None:
        if position is not None:
            raise QueryError("give either a position string or a game and a ply, not both")
        if ply is None:
            raise QueryError("a game needs a ply: the position after that many plies (0 = the start)", "--ply")
        game = _game_setup(archive, game_id)
        if variant is not None:
            want = rp.variant(variant).slug if variant != game["variant"] else variant
            if want != game["variant"]:
                raise QueryError(f"game {game_id} is a game of {game['variant']}, not {want}", "--variant")
        n = game["ply_count"]
        if not 0 <= ply <= n:
            raise QueryError(f"game {game_id} has {n} plies: the ply must be from 0 to {n}", "--ply")
        board, moves = rp.game_moves(game)
        try:
            for i, _ in enumerate(moves):
                if i == ply:
                    break
        except ReplayError as exc:
            raise QueryError(str(exc)) from None
        if board.ply != ply:
            raise QueryError(f"game {game_id}: its moves could be replayed to ply {board.ply} only")
        text = board.position()
        return Target(game["variant"], game["ruleset"], Board(board.rules, text), text, position_key(text),
                      board.zobrist, game["id"], ply)
    if position is None:
        raise QueryError("give a position string, or a game and a ply")
    if variant is None:
        raise QueryError("a position string needs its variant (--variant)", "--variant")
    try:
        v = rp.variant(variant)
    except QueryError as exc:
        raise QueryError(str(exc), "--variant") from None
    rules = rp.rules(v.slug, ruleset)
    try:
        board = Board(rules, position_from_text(rules, position.strip()))
    except (PositionError, ValueError) as exc:
        raise QueryError(f"bad position string for {v.slug}: {exc}", "--position") from None
    text = board.position()
    return Target(v.slug, ruleset or "", board, text, position_key(text), board.zobrist)


# --- position search ------------------------------------------------------------------------------


@dataclass
class Hit:
    """A game that reaches the position: at ``ply`` first, at every ply of ``plies``."""

    game_id: int
    ply: int
    plies: list
    variant: str
    sente: str | None
    gote: str | None
    result: str
    date: str | None
    status: str
    ply_count: int

    def as_dict(self) -> dict:
        d = asdict(self)
        d["id"] = d.pop("game_id")
        return d


_HIT_COLUMNS = ("g.id, g.variant, g.ruleset, g.start, g.status, ps.name, pg.name, g.result, g.date, g.ply_count")
_PLAYERS = "LEFT JOIN players ps ON ps.id = g.sente_id LEFT JOIN players pg ON pg.id = g.gote_id"


def candidates(archive: Archive, where: Target) -> list[tuple]:
    """The SQL stage of :func:`search_position` alone: every stored position with the target's hash
    in a (valid or truncated) game of its variant, not yet confirmed, by game id and ply: rows
    ``(ply, game id, variant, ruleset, start, status, sente, gote, result, date, ply_count)``."""
    return archive.conn.execute(_CANDIDATES_SQL, (where.hash, where.variant)).fetchall()


_CANDIDATES_SQL = (f"SELECT p.ply, {_HIT_COLUMNS} FROM positions p JOIN games g ON g.id = p.game_id {_PLAYERS} "
                   "WHERE p.hash = ? AND g.variant = ? ORDER BY p.game_id, p.ply")


def confirm(rp: Replayer, game: dict, plies: list[int], where: Target) -> list[int]:
    """The plies among ``plies`` (ascending) at which the stored game really is in the target
    position (replaying it as far as the last of them)."""
    out = []
    if plies and plies[0] == 0 and rp.start_key(game["variant"], game["ruleset"], game["start"]) == where.key:
        out.append(0)
    later = [p for p in plies if p > 0]
    if not later:
        return out
    board = rp.board(game["variant"], game["ruleset"], game["start"])
    want = set(later)
    try:
        for i, _ in enumerate(rp.walk(game["id"], board, upto=later[-1])):
            if i in want and board.zobrist == where.hash and position_key(board.position()) == where.key:
                out.append(i)
    except ReplayError:
        return out
    if board.ply == later[-1] and board.zobrist == where.hash and position_key(board.position()) == where.key:
        out.append(board.ply)
    return out


def _row_game(row) -> dict:
    return dict(zip(("id", "variant", "ruleset", "start", "status", "sente", "gote", "result", "date",
                     "ply_count"), row))


def _hit(game: dict, plies: list[int]) -> Hit:
    return Hit(game["id"], plies[0], plies, game["variant"], game["sente"], game["gote"], game["result"],
               game["date"], game["status"], game["ply_count"])


def confirm_candidates(rp: Replayer, where: Target, rows: Iterable, counters: dict | None = None) -> Iterator[Hit]:
    """The confirmation stage of :func:`search_position`: the games among :func:`candidates`'
    rows (a list or a cursor, by game id) that really reach the position (replayed), as
    :class:`Hit` s."""
    counters = counters if counters is not None else {"candidates": 0, "rejected": 0}
    for _, group in groupby(rows, key=lambda r: r[1]):
        group = list(group)
        game = _row_game(group[0][1:])
        plies = [r[0] for r in group]
        counters["candidates"] += len(plies)
        good = confirm(rp, game, plies, where)
        counters["rejected"] += len(plies) - len(good)
        if good:
            yield _hit(game, good)


def _scan_invalid(archive: Archive, rp: Replayer, variant: str, counters: dict) -> Iterator[tuple[dict, Board, Iterable]]:
    """(game, start board, moves) of every invalid game of the variant that can be read again."""
    cursor = archive.conn.execute(
        f"SELECT {_HIT_COLUMNS} FROM games g {_PLAYERS} WHERE g.variant = ? AND g.status = 'invalid' ORDER BY g.id",
        (variant,))
    for row in cursor.fetchall():
        game = _row_game(row)
        try:
            board, moves = rp.game_moves(game)
        except Exception:  # noqa: BLE001 - an invalid game's text may not be readable at all
            counters["unreadable"] = counters.get("unreadable", 0) + 1
            continue
        yield game, board, moves


def _invalid_hits(archive: Archive, rp: Replayer, where: Target, counters: dict) -> Iterator[Hit]:
    for game, board, moves in _scan_invalid(archive, rp, where.variant, counters):
        plies = []
        for _ in chain(moves, (None,)):  # the position before each move, then the last one
            if board.zobrist == where.hash and position_key(board.position()) == where.key:
                plies.append(board.ply)
        if plies:
            yield _hit(game, plies)


def search_position(archive: Archive, where: Target, *, include_invalid: bool = False, limit: int | None = None,
                    replayer: Replayer | None = None, counters: dict | None = None) -> Iterator[Hit]:
    """Every game of the target's variant that reaches the position (transpositions included), by
    game id, with the plies where it does; each confirmed by replay (see the module docstring).

    Valid (and truncated) games only, unless ``include_invalid``.  ``counters``, if given, is
    filled with ``candidates`` (hash matches) and ``rejected`` (hash matches that replay showed to
    be another position)."""
    rp = replayer or Replayer(archive)
    counters = counters if counters is not None else {}
    counters.setdefault("candidates", 0)
    counters.setdefault("rejected", 0)
    rows = archive.conn.execute(_CANDIDATES_SQL, (where.hash, where.variant))  # streamed (--limit)
    hits: Iterator[Hit] = confirm_candidates(rp, where, rows, counters)
    if include_invalid:
        hits = heapq.merge(hits, _invalid_hits(archive, rp, where, counters), key=lambda h: h.game_id)
    for n, hit in enumerate(hits):
        if limit is not None and n >= limit:
            return
        yield hit


# --- material search ------------------------------------------------------------------------------

_OPS = {"=": lambda a, b: a == b, "==": lambda a, b: a == b, "!=": lambda a, b: a != b,
        ">=": lambda a, b: a >= b, "<=": lambda a, b: a <= b, ">": lambda a, b: a > b, "<": lambda a, b: a < b}
_OP_RE = re.compile(r"\s*(>=|<=|==|!=|=|>|<)\s*")
_SIDE_RE = re.compile(r"(?i)(sente|gote|s|g)\s*:\s*")
_TERM_RE = re.compile(r"(?P<id>.+?)(?:(?P<op>>=|<=|==|!=|=|>|<)(?P<n>\d+))?\Z")
SIDES = ("Sente", "Gote")


@dataclass(frozen=True)
class MaterialTerm:
    piece: str  # the canonical piece ID
    colour: int  # 0 = Sente, 1 = Gote
    op: str
    count: int
    code: int  # type index * 2 + colour (the board's piece code)

    def __str__(self) -> str:
        return f"{SIDES[self.colour]} {self.piece} {self.op} {self.count}"


@dataclass
class MaterialSpec:
    """A material condition: every term must hold (see :func:`parse_material`)."""

    text: str
    variant: str
    terms: list

    def matches(self, counts) -> bool:
        return all(_OPS[t.op](counts[t.code], t.count) for t in self.terms)

    def describe(self) -> str:
        return " and ".join(map(str, self.terms))


def parse_material(text: str, variant, variants: VariantRegistry | None = None) -> MaterialSpec:
    """Read a material spec for ``variant`` (a slug, looked up in ``variants``; a Variant; or a
    Ruleset).

    ``TERM [TERM ...]``, terms separated by spaces or commas, each ``ID``, ``ID>=N``, ``ID<=N``,
    ``ID=N`` (also ``==``, ``!=``, ``>``, ``<``); a bare ``ID`` means ``ID>=1``.  An ID is a piece
    ID or alias of the variant, written as in position strings: upper case for Sente's pieces,
    lower case for Gote's (``!LD>=2 r=0``).  ``S:`` (or ``sente:``) and ``G:`` (``gote:``) before
    terms make them Sente's or Gote's whatever their case, up to the next ``;`` or side prefix
    (``S:!LD=2,R=0; G:K=1``).  A count is the pieces with exactly that ID on the board plus in
    hand (promoted pieces count under their own ID; a captured piece goes to the hand under its
    unpromoted ID).  Every term must hold."""
    v = variant
    if isinstance(v, str):
        try:
            v = (variants or VariantRegistry.default()).load(v)
        except VariantError as exc:
            raise QueryError(str(exc)) from None
    if isinstance(v, Ruleset):
        v = v.variant
    index = v.piece_index()
    terms = []
    spec = _OP_RE.sub(lambda m: m.group(1), text)
    spec = _SIDE_RE.sub(lambda m: " " + m.group(1) + ": ", spec)
    for clause in spec.split(";"):
        side = None
        for token in re.split(r"[\s,]+", clause.strip()):
            if not token:
                continue
            m = re.fullmatch(r"(?i)(sente|gote|s|g):", token)
            if m:
                side = 0 if m.group(1).lower().startswith("s") else 1
                continue
            t = _TERM_RE.match(token)
            if t is None or not any(c.isalpha() for c in t.group("id")):
                raise QueryError(f"material {text!r}: cannot read {token!r} (expected ID, ID>=N, ID<=N or ID=N)")
            ident = t.group("id")
            letters = [c for c in ident if c.isalpha()]
            if side is not None:
                colour = side
            elif all(c.isupper() for c in letters):
                colour = 0
            elif all(c.islower() for c in letters):
                colour = 1
            else:
                raise QueryError(f"material {text!r}: {ident!r} mixes upper and lower case (upper case = "
                                 f"Sente's pieces, lower case = Gote's; or put S: or G: before the terms)")
            piece = index.get(ident.upper())
            if piece is None:
                raise QueryError(f"material {text!r}: {v.name} has no piece {ident.upper()!r}")
            op = t.group("op") or ">="
            count = int(t.group("n")) if t.group("n") is not None else 1
            terms.append(MaterialTerm(piece.id, colour, op, count, piece.index * 2 + colour))
    if not terms:
        raise QueryError(f"material {text!r}: no terms (e.g. '!LD>=2 r=0' or 'S:R=0; G:R>=1')")
    return MaterialSpec(text, v.slug, terms)


@dataclass
class MaterialHit:
    """A game where the material matches, first after ``ply`` plies."""

    game_id: int
    ply: int
    variant: str
    sente: str | None
    gote: str | None
    result: str
    date: str | None
    status: str
    ply_count: int
    counts: dict = field(default_factory=dict)  # "Sente !LD" -> count at that ply, per term

    def as_dict(self) -> dict:
        d = asdict(self)
        d["id"] = d.pop("game_id")
        return d


def material_counts(board: Board) -> list[int]:
    """Pieces by code (type index * 2 + colour): on the board plus in hand."""
    rules = board.rules
    counts = [0] * rules.ncodes
    for colour in (0, 1):
        for p in board.pieces(colour).values():
            counts[rules.type_by_id[p.id].index * 2 + colour] += 1
        for t, n in enumerate(board.hands[colour]):
            if n:
                counts[t * 2 + colour] += n
    return counts


def move_effects(board: Board, move: Move) -> tuple[int, int | None, list[int]]:
    """``(code of the moving piece, code it promotes to or None, codes of the pieces it removes)``
    for a move about to be played on ``board`` (a drop: the dropped piece, None, []).  The pieces
    removed are those it captures (burns included) and, when it ends next to an enemy piece that
    burns passively, the moving piece itself as it ends (promoted or not)."""
    rules = board.rules
    colour = board.turn
    if move.drop is not None:
        return rules.type_by_id[move.drop].index * 2 + colour, None, []
    p = board.piece_at(move.from_square)
    code = rules.type_by_id[p.id].index * 2 + colour
    caps = []
    for sq in board.captured_squares(move):
        q = board.piece_at(sq)
        if q is not None:
            caps.append(rules.type_by_id[q.id].index * 2 + q.colour)
    promoted = rules.promote[code] if move.promotion else None
    if board.burns_mover(move):
        caps.append(code if promoted is None else promoted)
    return code, promoted, caps


def _update_counts(counts: list, rules: Ruleset, colour: int, effects) -> bool:
    """Apply a move's effects to material counts; whether any count changed."""
    code, promoted, caps = effects
    changed = False
    if promoted:
        counts[code] -= 1
        counts[promoted] += 1
        changed = True
    for cap in caps:
        counts[cap] -= 1
        changed = True
        if rules.drops and not rules.royal[rules.unpromoted[cap]]:
            counts[(rules.unpromoted[cap] & ~1) | colour] += 1
    return changed


def search_material(archive: Archive, spec: MaterialSpec, *, include_invalid: bool = False,
                    limit: int | None = None, ids: Iterable[int] | None = None, replayer: Replayer | None = None,
                    counters: dict | None = None) -> Iterator[MaterialHit]:
    """Games of the spec's variant, by id, in which the material matches at some ply (0 = the
    start), with the first such ply.  Streams: each game is replayed (:meth:`Replayer.walk`) and
    the counts are updated move by move; ``limit`` stops after that many games, ``ids`` looks only
    at these games.  ``counters`` gets ``games`` (games replayed) and ``plies`` (plies replayed)."""
    rp = replayer or Replayer(archive)
    counters = counters if counters is not None else {}
    counters.setdefault("games", 0)
    counters.setdefault("plies", 0)
    status = "" if include_invalid else " AND g.status != 'invalid'"
    params: list = [spec.variant]
    if ids is not None:
        status += " AND g.id IN (SELECT value FROM json_each(?))"
        params.append(json.dumps([int(i) for i in ids]))
    cursor = archive.conn.execute(
        f"SELECT {_HIT_COLUMNS} FROM games g {_PLAYERS} WHERE g.variant = ?{status} ORDER BY g.id", params)
    found = 0
    while True:
        batch = cursor.fetchmany(500)
        if not batch:
            break
        for row in batch:
            game = _row_game(row)
            try:
                board, moves = rp.game_moves(game)
            except QueryError:
                raise
            except Exception:  # noqa: BLE001 - an invalid game's text that cannot be read again
                continue
            counts = material_counts(board)
            rules = board.rules
            counters["games"] += 1
            ply = None
            if spec.matches(counts):
                ply = 0
            else:
                try:
                    for move in moves:
                        if _update_counts(counts, rules, board.turn, move_effects(board, move)) \
                                and spec.matches(counts):
                            ply = board.ply + 1
                            break
                except ReplayError:
                    pass
                counters["plies"] += board.ply + (ply is not None)
            if ply is None:
                continue
            yield MaterialHit(game["id"], ply, game["variant"], game["sente"], game["gote"], game["result"],
                              game["date"], game["status"], game["ply_count"],
                              {f"{SIDES[t.colour]} {t.piece}": counts[t.code] for t in spec.terms})
            found += 1
            if limit is not None and found >= limit:
                return


# --- the opening explorer -------------------------------------------------------------------------

_FIRST_MOVES_SQL = ("SELECT ruleset, start, next, games, sente_wins, gote_wins, draws, plies, last_date "
                    "FROM first_moves WHERE hash = ? AND variant = ?")


@dataclass
class ExplorerMove:
    """One move played from the position: in how many games, and how those games ended."""

    move: str  # canonical notation in the target position
    uci: str  # compact form, as in positions.next
    games: int = 0
    sente_wins: int = 0
    gote_wins: int = 0
    draws: int = 0
    unfinished: int = 0
    plies: int = 0  # sum of the games' lengths (for the average)
    last_date: str | None = None

    @property
    def avg_plies(self) -> float:
        return round(self.plies / self.games, 1) if self.games else 0.0

    def add(self, result: str, n: int = 1, plies: int = 0, date: str | None = None) -> None:
        self.games += n
        key = RESULT_KEYS.get(result)
        if key:
            setattr(self, key, getattr(self, key) + n)
        self.plies += plies
        if date and "?" not in date and (self.last_date is None or date > self.last_date):
            self.last_date = date

    def add_counts(self, n: int, sente_wins: int, gote_wins: int, draws: int, plies: int = 0,
                   date: str | None = None) -> None:
        self.games += n
        self.sente_wins += sente_wins
        self.gote_wins += gote_wins
        self.draws += draws
        self.unfinished += n - sente_wins - gote_wins - draws
        self.plies += plies
        if date and "?" not in date and (self.last_date is None or date > self.last_date):
            self.last_date = date

    def as_dict(self) -> dict:
        return {"move": self.move, "uci": self.uci, "games": self.games, "sente_wins": self.sente_wins,
                "gote_wins": self.gote_wins, "draws": self.draws, "unfinished": self.unfinished,
                "avg_plies": self.avg_plies, "last_date": self.last_date}


@dataclass
class Explorer:
    """What was played from a position (see :func:`explore`)."""

    target: Target
    moves: list  # ExplorerMove, most played first
    ended: ExplorerMove  # games whose main line ends in the position (move "(end)")
    games: int  # distinct games that reach the position
    confirmed: str  # "all" or "sample"
    checked: int  # games confirmed by replay (beyond the ply-0 rows, which need none)
    rejected: int  # hash matches that were another position
    seconds: float = 0.0

    def as_dict(self) -> dict:
        return {**self.target.as_dict(), "games": self.games, "confirmed": self.confirmed,
                "replayed": self.checked, "rejected": self.rejected,
                "moves": [m.as_dict() for m in self.moves],
                "ended": self.ended.as_dict() if self.ended.games else None}


def explore(archive: Archive, where: Target, *, sample: int | None = EXPLORER_SAMPLE, include_invalid: bool = False,
            replayer: Replayer | None = None, seed: int = 0) -> Explorer:
    """The moves played from the position, with counts and results, most played first.

    Only games of the target's variant and rule set count (a move of Dai Mitregi's stepping
    subvariant may be illegal under the leaping rules); :func:`search_position` finds games of
    every rule set.

    A move's ``games`` counts each game once however often it played that move from the
    position (a game that comes back to the position and plays another move counts for both
    moves).  Rows at ply 0 are confirmed exactly without replaying; the games that reach the
    position later are all confirmed by replay when there are at most ``sample`` of them (or
    ``sample`` is None), else a seeded random sample of ``sample`` is (and all of them if any of
    the sample fails).  Results and lengths come from the ``first_moves`` summary for the games
    that start in the position, from the ``games`` rows for the others."""
    started = time.perf_counter()
    rp = replayer or Replayer(archive)
    conn = archive.conn
    moves: dict[str | None, ExplorerMove] = {}

    def entry(uci):
        e = moves.get(uci)
        if e is None:
            e = moves[uci] = ExplorerMove("", uci or "")
        return e

    def starts_here(ruleset, start) -> bool:
        try:
            return rp.start_key(where.variant, ruleset, start) == where.key
        except (QueryError, PositionError, ValueError):
            return False

    # ply 0: read from the first_moves summary (one row per start position and first move,
    # counted when each game was stored), no replay: a game's start position is known exactly, so
    # each rule set and start position among the rows with the target's hash is confirmed once
    total = rejected = 0
    rows = conn.execute(_FIRST_MOVES_SQL, (where.hash, where.variant)).fetchall()
    confirmed_start: dict = {}
    for ruleset, start, nxt, n, sente, gote, draws, plies, date in rows:
        if ruleset != where.ruleset:
            continue  # moves of games under other rules may be illegal here (e.g. Dai Mitregi stepping)
        start = start or None  # '' in the summary's key: the variant's start position
        ok = confirmed_start.get((ruleset, start))
        if ok is None:
            ok = confirmed_start[(ruleset, start)] = starts_here(ruleset, start)
        if not ok:
            rejected += n
            continue
        entry(nxt or None).add_counts(n, sente, gote, draws, plies, date)  # '' = the game ends there
        total += n
    # later plies: confirmed by replay (all, or a sample)
    later = conn.execute(
        f"SELECT p.ply, p.next, {_HIT_COLUMNS} FROM positions p JOIN games g ON g.id = p.game_id {_PLAYERS} "
        "WHERE p.hash = ? AND p.ply > 0 AND g.variant = ? AND g.ruleset = ? AND g.status != 'invalid' "
        "ORDER BY p.game_id, p.ply", (where.hash, where.variant, where.ruleset)).fetchall()
    by_game: dict[int, tuple[dict, list]] = {}
    for ply, nxt, *row in later:
        game = _row_game(row)
        by_game.setdefault(game["id"], (game, []))[1].append((ply, nxt))
    ids = sorted(by_game)
    confirmed = "all"
    checked = 0
    good: dict[int, set] = {}
    if ids:
        if sample is not None and 0 < sample < len(ids):
            chosen = random.Random(f"{where.hash}:{seed}").sample(ids, sample)
            confirmed = "sample"
        else:
            chosen = ids
        for gid in chosen:
            game, rows_ = by_game[gid]
            good[gid] = set(confirm(rp, game, [p for p, _ in rows_], where))
            checked += 1
        if confirmed == "sample" and any(len(good[g]) != len(by_game[g][1]) for g in chosen):
            confirmed = "all"  # a collision in the sample: confirm every game
            for gid in ids:
                if gid not in good:
                    game, rows_ = by_game[gid]
                    good[gid] = set(confirm(rp, game, [p for p, _ in rows_], where))
                    checked += 1
        for gid in ids:
            game, rows_ = by_game[gid]
            ok_plies = good.get(gid)  # None: not in the sample (taken as confirmed)
            plays = set()
            for ply, nxt in rows_:
                if ok_plies is not None and ply not in ok_plies:
                    rejected += 1
                else:
                    plays.add(nxt)
            if not plays:
                continue
            if starts_here(game["ruleset"], game["start"]):
                # the game starts in the position: it was counted with the ply-0 rows, and so was
                # the move it played there; count only the other moves it played from here later
                row0 = conn.execute(_NEXT_SQL, (where.hash, gid, 0)).fetchone()
                plays.discard(row0[0] if row0 else None)
            else:
                total += 1
            for nxt in plays:
                entry(nxt).add(game["result"], 1, game["ply_count"], game["date"])
    if include_invalid:
        counters: dict = {}
        for game, board, game_moves in _scan_invalid(archive, rp, where.variant, counters):
            plays = set()
            for m in game_moves:
                if board.zobrist == where.hash and position_key(board.position()) == where.key:
                    plays.add(m.uci())
            if board.zobrist == where.hash and position_key(board.position()) == where.key:
                plays.add(None)
            if plays:
                total += 1
                for nxt in plays:
                    entry(nxt).add(game["result"], 1, game["ply_count"], game["date"])
    board = where.board
    ended = moves.pop(None, None) or ExplorerMove("(end)", "")
    ended.move = "(end)"
    out = []
    for uci, e in moves.items():
        try:
            move = board.parse_uci(uci)
            e.move = move_notation(board, move) if board.is_legal(move) else uci
        except (ValueError, KeyError, VariantError):
            e.move = uci
        out.append(e)
    out.sort(key=lambda e: (-e.games, e.move))
    return Explorer(where, out, ended, total, confirmed, checked, rejected, time.perf_counter() - started)
