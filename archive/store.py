"""The game archive: a SQLite database of game records (see ``docs/archive.md``).

>>> archive = Archive("games.db")                                   # doctest: +SKIP
>>> game_id, verdict = archive.add_game(game)                      # doctest: +SKIP
>>> [g["id"] for g in archive.games(player="Taro", limit=10)]       # doctest: +SKIP

The database is opened in WAL mode, so it stays readable (by daikifu, Datasette, ``sqlite3``)
while an import writes to it.  The Python API mirrors the command line: :meth:`Archive.add_game`,
:meth:`Archive.games`, :meth:`Archive.game`, :meth:`Archive.load_game`, :meth:`Archive.source`,
:meth:`Archive.hash_matches` (positions by hash, unconfirmed: the confirmed search, which
replays the candidates, is :func:`daikifu.archive.queries.search_position`).

A game is turned into a :class:`Record` (every row it needs, computed without the database: this
is the part the importer's worker processes do) and the record is stored in one step:
:meth:`Archive.add_record` writes the ``games`` row, its ``positions``, ``annotations``, the
full-text row and its count in the explorer's ``first_moves`` summary in the open transaction (or
in one of its own), which is only ever committed between two games, so a game is stored whole or
not at all.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sqlite3
import time
import urllib.parse
import zlib
from array import array
from dataclasses import dataclass, field
from itertools import chain, repeat
from pathlib import Path
from typing import Callable, Iterator, NamedTuple


from daikifu.formats.game import Game, GameError
from daikifu.formats.game import format_ruleset, parse_ruleset
from daikifu.replay import Board, MoveStack, UnknownVariantError, VariantRegistry

from . import schema
from .schema import DEFAULT_DB, ENV_DB, STATUSES

__all__ = ["Archive", "Record", "MainLine", "make_record", "record_of", "imported_engine", "default_path", "digest_of",
           "ENV_DB", "DEFAULT_DB", "ArchiveError", "ArchiveBusy", "DataVersion", "is_busy", "STATUSES", "pack_source",
           "unpack_source"]

# tags that have a column of their own (everything else goes to the ``tags`` JSON)
_COLUMN_TAGS = {"Event": "event", "Site": "site", "Date": "date", "Round": "round", "Sente": "sente",
                "Gote": "gote", "Termination": "termination"}
# a record's own analysis (Archive._store_evals): the first score of a position from a source is
# kept; a best line or a judgment fills a row that has none
_EVAL_UPSERT = (
    "INSERT INTO engine_analysis (hash, engine, version, options, depth, movetime, reached, score, best, pv, "
    "engine_pv, cut, cut_reason, nodes, created, mate, judgment) "
    "VALUES (?, ?, '', ?, 0, 0, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?) "
    "ON CONFLICT (hash, engine, version, options, depth, movetime) DO UPDATE SET "
    "best = excluded.best, pv = excluded.pv, engine_pv = excluded.engine_pv, cut = excluded.cut, "
    "cut_reason = excluded.cut_reason "
    "WHERE engine_analysis.engine_pv = '' AND excluded.engine_pv != ''")
_JUDGMENT_FILL = ("UPDATE engine_analysis SET judgment = ? WHERE hash = ? AND engine = ? AND version = '' "
                  "AND options = ? AND depth = 0 AND movetime = 0 AND judgment IS NULL")
_CLOCK_RE = re.compile(r"\[%(clk|emt)\s+([^\]]*?)\s*\]")
PAGE_SIZE = 4096  # of a new database (see docs/archive.md)
_PREFIX_CANDIDATES = 20
_HASHES_PER_QUERY = 1024  # hashes looked up at once for a stored prefix (see _find_extended)


def _sql_count(n) -> int:
    """A LIMIT or OFFSET for SQL text: a whole number, at most SQLite's largest integer (a larger
    one means "all", not an error)."""
    return min(int(n), (1 << 63) - 1)


def is_game_id(game_id) -> bool:
    """Whether ``game_id`` can be a stored game's id (SQLite integers are 64-bit: a larger number
    is no game, not an overflow)."""
    return isinstance(game_id, int) and -(1 << 63) <= game_id < (1 << 63)


class ArchiveError(Exception):
    """A problem with the database itself (missing, not an archive, newer schema)."""


class ArchiveBusy(ArchiveError):
    """Another program kept the archive's write lock for longer than a writer would wait
    (:attr:`Archive.busy_wait`); nothing of the transaction that could not begin was written."""

    def __init__(self, path: str, waited: float):
        super().__init__(f"{path}: busy: another program kept writing to it for {waited:.0f} s")
        self.path = path
        self.waited = waited


def is_busy(exc: BaseException) -> bool:
    """Whether ``exc`` is SQLite giving up on a lock another connection holds (by its result
    code, not its wording)."""
    return (isinstance(exc, sqlite3.OperationalError)
            and getattr(exc, "sqlite_errorcode", 0) & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED))


def default_path(path: str | os.PathLike | None = None) -> str:
    """``path``, else ``$DAIKIFU_DB``, else ``daikifu.db`` in the current directory."""
    return str(path or os.environ.get(ENV_DB) or DEFAULT_DB)


# --- records: everything stored for one game ------------------------------------------------------


@dataclass(slots=True)
class Record:
    """The rows of one game, computed from a :class:`Game` without the database (picklable)."""

    variant: str
    ruleset: str
    start: str | None
    headers: dict  # column tags: event, site, date, round, sente, gote, termination
    result: str
    ply_count: int
    status: str
    error: dict | None
    warnings: list | None
    tags: list | None
    source: bytes  # the game's text exactly as read, packed as stored (see pack_source)
    source_format: str
    source_line: int | None
    number: int | None
    digest: str
    hashes: array | None = None  # the ply_count + 1 position hashes of the main line (valid games)
    moves: str | None = None  # the main-line moves in compact form, space-separated (valid games)
    annotations: list = field(default_factory=list)  # (ply, move, comment, nags, clock)
    # the analysis the record carries (lishogi's [%eval]s): (ply, engine, reached, score, best, pv, engine_pv,
    # cut, cut_reason, mate, judgment), stored in engine_analysis under the position of that ply (see _evaluations)
    evals: list = field(default_factory=list)
    comments: str = ""  # every comment of the game, for the full-text index

    @property
    def valid(self) -> bool:
        return self.status != "invalid"

    @property
    def text(self) -> str:
        return unpack_source(self.source)


def _words(moves: str) -> Iterator[str]:
    """The moves of :attr:`Record.moves` one at a time (a list of them would hold a string object
    per ply: several times the record of a long game).

    >>> list(_words("7g7f 3c3d")), list(_words(""))
    (['7g7f', '3c3d'], [])
    """
    start, end = 0, len(moves)
    while start < end:
        stop = moves.find(" ", start)
        if stop < 0:
            stop = end
        yield moves[start:stop]
        start = stop + 1


# a game up to this long has its moves split at once (see _moves_of): a list of its moves costs
# about 60 bytes a ply, seven times the text of a long game, so longer ones are read one by one
_SPLIT_PLIES = 512


def _moves_of(rec: Record):
    """The moves of a valid record one by one: a list of them made at once (a quarter faster to
    store) unless the game is so long that the list would be big, then :func:`_words`."""
    if rec.ply_count > _SPLIT_PLIES:
        return _words(rec.moves)
    return rec.moves.split(" ") if rec.moves else ()


def digest_of(variant: str, ruleset: str, start: str | None, moves) -> str:
    """The content key of a valid game: variant slug, rule set string, start position string
    (empty for the variant's own) and the main-line moves in compact form (a list, or one string
    with the moves separated by single spaces)."""
    if not isinstance(moves, str):
        moves = " ".join(moves)
    text = "\x1f".join((variant, ruleset, start or "", moves))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def _invalid_digest(source_format: str, source: str) -> str:
    text = "\x1f".join(("invalid", source_format, source))
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


class MainLine:
    """What a :class:`Record` needs of a game's moves, gathered one main-line node at a time: the
    main line's moves, its annotated plies (comment or NAGs), every comment of the game for the
    full-text index (variations' too) and whether the game has variations.

    The same summary is made from a whole game (:meth:`of_game`, for :func:`make_record`) and by
    the importer's reader without a tree (its visitor calls :meth:`add` for each main-line node
    as it is completed), so both give the same record (:func:`record_of`).  ``hashes``: the main
    line's ``len(moves) + 1`` position hashes when the reader collected them, else None.

    >>> from daikifu.formats.lsn import read_game
    >>> game = read_game('[Variant "Shogi"]\\n[Result "*"]\\n\\n{start} 1. P-c4 {a} '
    ...                  '(1. P-g4 {b} (1. P-f4 {c}) 1... P-c6 {d}) 1... P-g6 $1 (1... P-c6 {e}) *\\n')
    >>> main = MainLine.of_game(game)
    >>> len(main.moves), main.marked, main.branched
    (2, [(1, 'a', ()), (2, '', (1,))], True)
    >>> main.comments()    # as a walk of the tree gives them: each line whole, then its variations
    ['start', 'a', 'e', 'b', 'd', 'c']
    """

    __slots__ = ("moves", "marked", "own", "sides", "branched", "hashes", "evals")

    def __init__(self, hashes=None):
        self.moves = MoveStack()  # an int a move (a long game of new moves holds no Move objects)
        self.marked: list = []  # (ply, comment, NAGs) of the main-line plies with a comment or NAGs
        self.own: list = []  # (starting comment, comment) of the main-line nodes that have one
        self.sides: list = []  # the comments of the variations that branch off each main-line node
        self.branched = False
        self.hashes = hashes
        self.evals: list = []  # (ply, Evaluation) of the main-line nodes that carry one (formats.evals)

    def add(self, ply: int, node) -> None:
        """The main-line node of ply ``ply`` (0: the game itself), complete: its comment, NAGs and
        variations (the alternatives to its main child) will not change."""
        if ply:
            self.moves.append(node.move)
            if node.comment or node.nags:
                self.marked.append((ply, node.comment, tuple(node.nags)))
        if node.eval is not None:
            self.evals.append((ply, node.eval))
        starting = node.starting_comment if ply else ""  # (a game's own is never written)
        if starting or node.comment:
            self.own.append((starting, node.comment))
        if len(node.variations) > 1:
            self.branched = True
            self.sides.append(_tree_comments(node.variations[1:]))

    @classmethod
    def of_game(cls, game: Game, hashes=None) -> "MainLine":
        """The summary of a whole game's tree."""
        main = cls(hashes)
        node, ply = game, 0
        while True:
            main.add(ply, node)
            if not node.variations:
                return main
            node, ply = node.variations[0], ply + 1

    def comments(self) -> list:
        """Every comment of the game in the order of a walk of its tree, main line first (a
        variation's whole line before the variations that branch off it, nearest the end first):
        the order the full-text row has always had."""
        if not self.branched:
            return [c for starting, comment in self.own for c in (comment, starting) if c]
        out = [c for pair in self.own for c in pair if c]
        for side in reversed(self.sides):
            out.extend(side)
        return out


def _tree_comments(nodes) -> list:
    """The comments of the trees below ``nodes``, each node's starting comment and comment, in
    the order of a depth-first walk (main child first)."""
    out = []
    stack = list(reversed(nodes))
    while stack:
        node = stack.pop()
        if node.starting_comment:
            out.append(node.starting_comment)
        if node.comment:
            out.append(node.comment)
        stack.extend(reversed(node.variations))
    return out


def make_record(game: Game, source_format: str = "lsn", hashes=None) -> Record:
    """Every row of ``game`` as a :class:`Record`.

    ``hashes`` may give the main line's position hashes (``ply_count + 1`` of them, as the
    importer's reader collects them while reading); otherwise the main line is replayed.
    """
    return record_of(game, MainLine.of_game(game, hashes), source_format)


def record_of(game: Game, main: MainLine, source_format: str = "lsn") -> Record:
    """The :class:`Record` of a game whose moves ``main`` summarises; ``game`` gives the tags,
    variant, start, result, errors and source (its tree is not looked at: the importer reads
    games without one, see :class:`MainLine`)."""
    errors = [e for e in game.errors if e.kind == "error"]
    warnings = [e.as_dict() for e in game.errors if e.kind != "error"] or None
    headers = {}
    tags = []
    unknown_variant = getattr(game, "variant_missing", False)
    for name, value in game.headers.items():
        col = _COLUMN_TAGS.get(name)
        if col is not None:
            headers[col] = value
        elif name == "Variant" and not unknown_variant:
            continue
        else:
            tags.append([name, value])
    variant = game.variant_named
    ruleset = format_ruleset(game.variant, game.options) if game.variant.playable and not unknown_variant else ""
    n = len(main.moves)
    if errors:
        status = "invalid"
    elif game.headers.get("ImportStatus") == "truncated":
        status = "truncated"
    else:
        status = "valid"
    source = game.source
    if not source and game.mainline_plies is None:  # a game made in Python: store its canonical LSN
        from daikifu.formats.lsn import write_game
        source = write_game(game) if game.variant.playable else ""
    packed = pack_source(source)
    rec = Record(variant=variant, ruleset=ruleset, start=game.start, headers=headers, result=game.result,
                 ply_count=n, status=status, error=errors[0].as_dict() if errors else None,
                 warnings=warnings, tags=tags or None, source=packed, source_format=source_format,
                 source_line=game.source_line, number=game.number, digest="", comments="\n".join(main.comments()))
    if status == "invalid":
        rec.digest = _invalid_digest(source_format, source)
        return rec
    if game.start:
        start = game.start_board().position()
        rec.start = None if start == Board(game.rules).position() else start
    # (a chunk at a time: a list of every move's text would hold a string object per ply)
    moves = " ".join(" ".join([m.uci() for m in main.moves[k:k + 256]]) for k in range(0, n, 256))
    hashes = main.hashes
    if hashes is None or len(hashes) != n + 1:
        board = game.start_board()
        hashes = array("q", [board.zobrist])
        for m in main.moves:
            board.push(m)
            hashes.append(board.zobrist)
    rec.hashes = hashes if isinstance(hashes, array) else array("q", hashes)
    rec.moves = moves
    rec.digest = digest_of(variant, ruleset, rec.start, moves)
    rec.annotations = _annotations(game, main)
    if main.evals:
        rec.evals = _evaluations(game, main, source_format)
    return rec


def imported_engine(game: Game, source_format: str) -> str:
    """The engine name a record's own analysis is stored under: ``lishogi`` for lishogi's exports
    (its NDJSON, or a game whose Site is on lishogi), else ``record`` (an ``[%eval]`` comment whose
    source the record does not say)."""
    from daikifu.formats.evals import LISHOGI, RECORD
    site = game.headers.get("Site") or ""
    return LISHOGI if source_format == "ndjson" or "lishogi." in site.lower() else RECORD


def _evaluations(game: Game, main: MainLine, source_format: str) -> list:
    """The rows of :attr:`Record.evals`: each scored evaluation of the main line (ply 0: the start),
    its best move and line replayed by the rules (USI as lishogi writes it) and cut at the first
    move they refuse, as an engine's line is (:func:`~daikifu.replay.engine.referee_line`)."""
    from daikifu.replay.usi import UsiError, usi_to_move
    engine = imported_engine(game, source_format)
    board = game.start_board()
    played, out = 0, []
    for ply, ev in main.evals:
        if not ev.scored or ply > len(main.moves):
            continue  # (a line without a score is no analysis the table can hold)
        line = list(ev.variation) or ([ev.best] if ev.best else [])
        if ev.best and line[0] != ev.best:
            line.insert(0, ev.best)
        pv, reason = [], None
        if line:
            while played < ply:
                board.push(main.moves[played])
                played += 1
            try:
                for i, text in enumerate(line):
                    try:
                        move = usi_to_move(board, text)
                    except (UsiError, ValueError, KeyError, IndexError) as exc:
                        reason = f"move {i + 1} ({text}): {getattr(exc, 'reason', exc)}"
                        break
                    board.push(move)
                    pv.append(move.uci())
            finally:
                for _ in pv:
                    board.pop()
        out.append((ply, engine, ev.depth or 0, ev.score, pv[0] if pv else None, " ".join(pv), " ".join(line),
                    len(line) - len(pv), reason, ev.mate, ev.judgment))
    return out


def _annotations(game: Game, main: MainLine) -> list:
    """(ply, move, comment, nags, clock) for the main-line plies with a comment, NAGs or clock
    (``main.marked``); ply 0 for the comment before the first move.  The move is written as the
    notation writes it, in the position before it (the main line is replayed up to the last one)."""
    out = []
    if game.comment:
        out.append((0, None, game.comment, None, _clock(game.comment)))
    if not main.marked:
        return out
    from daikifu.replay.notation import move_notation
    board = game.start_board()
    played = 0
    for ply, comment, nags in main.marked:
        while played < ply - 1:
            board.push(main.moves[played])
            played += 1
        written = move_notation(board, main.moves[ply - 1])
        out.append((ply, written, comment or None, " ".join(map(str, nags)) or None, _clock(comment)))
    return out


def _clock(comment: str) -> str | None:
    if not comment:
        return None
    m = _CLOCK_RE.search(comment)
    return f"{m.group(1)} {m.group(2)}" if m else None


# --- the archive ----------------------------------------------------------------------------------


def _now() -> str:
    import datetime
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()


class DataVersion(NamedTuple):
    """The version of an archive's data: ``finished`` is (number, last id) of the finished
    imports, ``games`` the archive's :meth:`~Archive.state` (number of games, highest id), or
    None while an import is not finished (it adds games at every commit: a state that is not
    complete).  Two versions with the same ``finished`` and ``games`` None belong to the same
    import in progress (or interrupted, until the next import finishes): what was derived from
    the archive before it, or once during it, still stands for it (:meth:`covers`)."""

    finished: tuple
    games: tuple | None

    def covers(self, other: "DataVersion") -> bool:
        """Whether what was derived at version ``self`` may stand for version ``other``."""
        return self == other or (other.games is None and self.finished == other.finished)


class Archive:
    """A game archive in a SQLite file (created when missing unless ``create=False``).

    ``conn`` is its :class:`sqlite3.Connection` (autocommit: :meth:`transaction` begins and ends
    write transactions), for ad-hoc queries; the file is plain SQLite, which Datasette,
    ``sqlite-utils`` and ``sqlite3`` open directly.
    """

    def __init__(self, path: str | os.PathLike | None = None, *, create: bool = True, timeout: float = 30.0,
                 readonly: bool = False, variants: VariantRegistry | None = None):
        self.path = default_path(path)
        self.readonly = readonly
        #: seconds a write transaction waits for another writer to let go of the archive, and
        #: what is told of the wait (called with the seconds waited so far, about once a second):
        #: with no such callback the connection's ``timeout`` is the wait, as SQLite keeps it
        self.busy_wait = timeout
        self.on_busy: Callable[[float], None] | None = None
        self.timeout = timeout
        # where the variants of stored games are found when a game is read again or replayed
        self.variants = variants or VariantRegistry.default()
        if (readonly or not create) and self.path != ":memory:" and not Path(self.path).exists():
            raise ArchiveError(f"no archive at {self.path}: import games first (daikifu import FILE --db {self.path})")
        if readonly:
            self._open_readonly(timeout)
            self._players = {}
            self._depth = 0
            return
        self._open_writable(timeout)
        self._players: dict[str, int] = {}
        self._depth = 0

    def _open_writable(self, timeout: float) -> None:
        """Open (creating and migrating as needed).  While another process creates or migrates the
        same archive, SQLite may say "busy" at once rather than wait (switching to WAL, or a read
        that would have to become a write): the opening is tried again until ``timeout``."""
        deadline = time.monotonic() + timeout
        self.conn = None
        while True:
            try:
                self.conn = sqlite3.connect(self.path, timeout=timeout, isolation_level=None,
                                            check_same_thread=False)
                if schema.schema_version(self.conn) == 0:  # a new database: before anything is written
                    self.conn.execute(f"PRAGMA page_size={int(os.environ.get('DAIKIFU_PAGE_SIZE', PAGE_SIZE))}")
                self.conn.execute("PRAGMA journal_mode=WAL")
                self.conn.execute("PRAGMA synchronous=NORMAL")
                self.conn.execute("PRAGMA journal_size_limit=67108864")  # WAL file cut back to 64 MB
                self.schema_before = schema.migrate(self.conn)  # the version it had when opened
                return
            except sqlite3.DatabaseError as exc:
                if self.conn is not None:
                    with contextlib.suppress(sqlite3.Error):
                        if self.conn.in_transaction:
                            self.conn.execute("ROLLBACK")
                    self.conn.close()
                    self.conn = None
                if is_busy(exc) and time.monotonic() < deadline:
                    time.sleep(0.05)
                    continue
                raise ArchiveError(f"{self.path}: not a daikifu archive ({exc})") from None
            except RuntimeError as exc:
                raise ArchiveError(f"{self.path}: {exc}") from None

    def _open_readonly(self, timeout: float) -> None:
        """Open with SQLite's read-only mode: nothing (not even a migration) can write.  An
        archive whose schema is older than this daikifu's must be upgraded by a writing command
        first (``daikifu import`` with any file, or ``daikifu upgrade``)."""
        path = Path(self.path).resolve()
        uri = "file:" + urllib.parse.quote(str(path)) + "?mode=ro"
        if not any(Path(f"{path}{suffix}").exists() for suffix in ("-wal", "-shm", "-journal")):
            # no connection is writing (a writer keeps its -wal/-shm while open): immutable, so
            # SQLite creates no -wal/-shm beside the archive (docs/web.md, "Read-only")
            uri += "&immutable=1"
        try:
            self.conn = sqlite3.connect(uri, uri=True, timeout=timeout, isolation_level=None,
                                        check_same_thread=False)
            version = self.schema_before = schema.schema_version(self.conn)
        except sqlite3.DatabaseError as exc:
            raise ArchiveError(f"{self.path}: not a daikifu archive ({exc})") from None
        if version == 0:
            self.conn.close()
            raise ArchiveError(f"{self.path}: not a daikifu archive (no schema version)")
        if version != schema.SCHEMA_VERSION:
            self.conn.close()
            newer = "newer" if version > schema.SCHEMA_VERSION else "older"
            fix = "upgrade daikifu" if version > schema.SCHEMA_VERSION else f"run 'daikifu upgrade --db {self.path}'"
            raise ArchiveError(f"{self.path}: schema version {version} is {newer} than this daikifu's "
                               f"({schema.SCHEMA_VERSION}); opened read-only, it cannot be migrated: {fix}")

    # --- housekeeping ---------------------------------------------------------------------------

    def close(self) -> None:
        if self.conn is not None:
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            self.conn.close()
            self.conn = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def tune_for_import(self, cache_mb: int = 128) -> None:
        """A bigger page cache and rarer checkpoints while importing (random inserts into the
        position index touch many pages; see docs/archive.md)."""
        self.conn.execute(f"PRAGMA cache_size=-{cache_mb * 1024}")
        self.conn.execute("PRAGMA wal_autocheckpoint=8192")

    def checkpoint(self) -> None:
        """Copy the write-ahead log into the database file (it is not truncated while readers use it)."""
        self.conn.execute("PRAGMA wal_checkpoint(PASSIVE)")

    @contextlib.contextmanager
    def transaction(self):
        """A write transaction (nested calls join the outer one); committed at the end, rolled back
        on an exception."""
        if self._depth:
            self._depth += 1
            try:
                yield
            finally:
                self._depth -= 1
            return
        self._begin()
        self._depth = 1
        try:
            yield
        except BaseException:
            self._depth = 0
            if self.conn.in_transaction:
                self.conn.execute("ROLLBACK")
            self._players.clear()  # ids handed out in the rolled-back transaction are gone
            raise
        self._depth = 0
        self.conn.execute("COMMIT")

    def commit(self) -> None:
        """Commit the open transaction and start a new one (inside :meth:`transaction`)."""
        if self._depth and self.conn.in_transaction:
            self.conn.execute("COMMIT")
            self._begin()

    def _begin(self) -> None:
        """``BEGIN IMMEDIATE``: takes the write lock, waiting for another writer up to
        :attr:`busy_wait` seconds, telling :attr:`on_busy` about the wait a second at a time;
        raises :class:`ArchiveBusy` when the wait is over (nothing is begun)."""
        if self.on_busy is None:
            self.conn.execute("BEGIN IMMEDIATE")
            return
        start = time.monotonic()
        try:
            while True:
                left = self.busy_wait - (time.monotonic() - start)
                self.conn.execute(f"PRAGMA busy_timeout = {max(0, int(min(1.0, left) * 1000))}")
                try:
                    self.conn.execute("BEGIN IMMEDIATE")
                    return
                except sqlite3.OperationalError as exc:
                    waited = time.monotonic() - start
                    if not is_busy(exc):
                        raise
                    if waited >= self.busy_wait:
                        raise ArchiveBusy(self.path, waited) from None
                    self.on_busy(waited)
        finally:
            self.conn.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")

    # --- writing --------------------------------------------------------------------------------

    def add_game(self, game: Game, import_id: int | None = None, skip_invalid: bool = False,
                 source_format: str = "lsn") -> tuple[int | None, str]:
        """Store a game; returns ``(game_id, verdict)``.

        The verdict is ``"imported"``, ``"duplicate"`` (a game with the same digest is stored:
        nothing is added, the id is that game's), ``"prefix"`` (stored; its main line is a proper
        prefix of a stored game's, or a stored game's is a proper prefix of it: see the
        ``prefix_of`` and ``extends`` columns) or ``"invalid"`` (stored with status invalid, or not
        stored and the id None when ``skip_invalid``).
        """
        return self.add_record(make_record(game, source_format), import_id, skip_invalid)

    def add_record(self, rec: Record, import_id: int | None = None,
                   skip_invalid: bool = False) -> tuple[int | None, str]:
        """Store a :class:`Record` (see :meth:`add_game`).

        Outside :meth:`transaction` the game is committed on its own.  Inside, it is part of the
        open transaction: if anything fails half-way the exception leaves :meth:`transaction`,
        which rolls everything back, so a half-written game is never committed.  (A savepoint
        per game would cost a copy of every page the game's position rows touch.)"""
        if not rec.valid and skip_invalid:
            return None, "invalid"
        with self.transaction():
            row = self.conn.execute("SELECT id FROM games WHERE digest = ?", (rec.digest,)).fetchone()
            if row is not None:
                self._store_evals(rec)  # (the same game may come with its analysis the second time)
                return row[0], "duplicate"
            return self._insert(rec, import_id)

    def _player(self, name: str | None) -> int | None:
        if name is None:
            return None
        pid = self._players.get(name)
        if pid is None:
            c = self.conn
            row = c.execute("SELECT id FROM players WHERE name = ?", (name,)).fetchone()
            if row is None:
                pid = c.execute("INSERT INTO players (name) VALUES (?)", (name,)).lastrowid
            else:
                pid = row[0]
            if len(self._players) > 100_000:
                self._players.clear()
            self._players[name] = pid
        return pid

    def _insert(self, rec: Record, import_id) -> tuple[int, str]:
        c = self.conn
        h = rec.headers
        extends = prefix_of = None
        if rec.valid:
            extends = self._find_extended(rec)
            prefix_of = self._find_longer(rec)
        game_id = c.execute(
            "INSERT INTO games (variant, ruleset, start, event, site, date, round, sente_id, gote_id, result, "
            "termination, ply_count, status, error, warnings, tags, source, source_format, source_line, "
            "import_id, digest, end_hash, prefix_of, extends) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (rec.variant, rec.ruleset, rec.start, h.get("event"), h.get("site"), h.get("date"), h.get("round"),
             self._player(h.get("sente")), self._player(h.get("gote")), rec.result, h.get("termination"),
             rec.ply_count, rec.status,
             json.dumps(rec.error, ensure_ascii=False) if rec.error else None,
             json.dumps(rec.warnings, ensure_ascii=False) if rec.warnings else None,
             json.dumps(rec.tags, ensure_ascii=False) if rec.tags else None,
             rec.source, rec.source_format, rec.source_line, import_id, rec.digest,
             rec.hashes[-1] if rec.valid else None, prefix_of, extends)).lastrowid
        if rec.valid:
            n = rec.ply_count
            c.executemany("INSERT INTO positions (hash, game_id, ply, next) VALUES (?,?,?,?)",
                          zip(rec.hashes, repeat(game_id, n + 1), range(n + 1), chain(_moves_of(rec), (None,))))
            if rec.annotations:
                c.executemany("INSERT INTO annotations (game_id, ply, move, comment, nags, clock) "
                              "VALUES (?,?,?,?,?,?)", [(game_id, *a) for a in rec.annotations])
            self._count_first_move(rec, next(_words(rec.moves), None))
            self._store_evals(rec)
            if extends is not None:
                c.execute("UPDATE games SET prefix_of = ? WHERE id = ? AND prefix_of IS NULL", (game_id, extends))
            if prefix_of is not None:
                c.execute("UPDATE games SET extends = ? WHERE id = ? AND extends IS NULL", (game_id, prefix_of))
        c.execute("INSERT INTO games_fts (rowid, event, site, sente, gote, comments) VALUES (?,?,?,?,?,?)",
                  (game_id, h.get("event"), h.get("site"), h.get("sente"), h.get("gote"), rec.comments or None))
        if not rec.valid:
            return game_id, "invalid"
        return game_id, "prefix" if extends is not None or prefix_of is not None else "imported"

    def _store_evals(self, rec: Record) -> None:
        """The analysis the record carries, in ``engine_analysis`` under each position's hash
        (engine ``lishogi`` or ``record``, no version, the game's rule set, depth and time 0): a
        position that already has one from that source keeps its score, and gains a best line or
        a judgment it lacked (a game cut before the next ply has no best line for its last
        position; a longer one has)."""
        if not rec.evals or not rec.valid:
            return
        created = _now()
        self.conn.executemany(_EVAL_UPSERT, [
            (rec.hashes[ply], engine, ";" + rec.ruleset, reached, score, best, pv, engine_pv, cut, reason, created,
             mate, judgment)
            for ply, engine, reached, score, best, pv, engine_pv, cut, reason, mate, judgment in rec.evals])
        judged = [(judgment, rec.hashes[ply], engine, ";" + rec.ruleset)
                  for ply, engine, *_, judgment in rec.evals if judgment]
        if judged:
            self.conn.executemany(_JUDGMENT_FILL, judged)

    def _count_first_move(self, rec: Record, first: str | None) -> None:
        """Add a (valid or truncated) game to its ``first_moves`` summary row, in the open
        transaction: the row's counts always equal an aggregate of ``positions`` at ply 0 joined
        to ``games`` (see ``archive/schema.py``)."""
        date = rec.headers.get("date")
        result = rec.result
        self.conn.execute(_FIRST_MOVE_UPSERT, (
            rec.hashes[0], rec.variant, rec.ruleset, rec.start or "", first or "",
            result == "1-0", result == "0-1", result == "1/2-1/2", rec.ply_count,
            date if date is not None and "?" not in date else None))

    def _same_line(self, rec: Record, other: int, plies: int) -> bool:
        """Whether game ``other`` plays the same first ``plies`` moves as ``rec`` (checked on its
        stored positions: the same position at every ply and the same move from it)."""
        c = self.conn
        for i, move in zip(range(plies), _words(rec.moves)):
            row = c.execute("SELECT next FROM positions WHERE hash = ? AND game_id = ? AND ply = ?",
                            (rec.hashes[i], other, i)).fetchone()
            if row is None or row[0] != move:
                return False
        return True

    def _same_setup(self, rec: Record, other: int) -> bool:
        row = self.conn.execute("SELECT variant, ruleset, start FROM games WHERE id = ?", (other,)).fetchone()
        return row is not None and tuple(row) == (rec.variant, rec.ruleset, rec.start)

    def _find_extended(self, rec: Record) -> int | None:
        """The longest stored game whose main line is a proper prefix of ``rec``'s."""
        hashes = rec.hashes
        n = rec.ply_count
        if not n:
            return None
        # a query for each slice of the hashes, given as JSON (json_each is much cheaper than a
        # long IN list; a slice at a time, so that the text of a long game's hashes is never whole)
        found: dict = {}
        for i in range(0, n, _HASHES_PER_QUERY):
            text = "[" + ",".join(map(str, hashes[i:min(i + _HASHES_PER_QUERY, n)])) + "]"
            for row in self.conn.execute(
                    "SELECT g.id, g.ply_count, g.end_hash FROM (SELECT DISTINCT value FROM json_each(?)) j "
                    f"JOIN games g ON g.end_hash = j.value LIMIT {_PREFIX_CANDIDATES - len(found)}", (text,)):
                found[row[0]] = row
            if len(found) >= _PREFIX_CANDIDATES:
                break
        rows = found.values()
        for gid, count, end in sorted(rows, key=lambda r: -r[1]):  # the longest stored prefix first
            if count < n and hashes[count] == end and self._same_setup(rec, gid) \
                    and self._same_line(rec, gid, count):
                return gid
        return None

    def _find_longer(self, rec: Record) -> int | None:
        """A stored game whose main line has ``rec``'s as a proper prefix."""
        n = rec.ply_count
        rows = self.conn.execute(
            f"SELECT game_id FROM positions WHERE hash = ? AND ply = ? AND next IS NOT NULL "
            f"LIMIT {_PREFIX_CANDIDATES}", (rec.hashes[n], n)).fetchall()
        for (gid,) in rows:
            if self._same_setup(rec, gid) and self._same_line(rec, gid, n):
                return gid
        return None

    # --- imports --------------------------------------------------------------------------------

    def start_import(self, file: str) -> int:
        with self.transaction():
            return self.conn.execute("INSERT INTO imports (file, started) VALUES (?, ?)", (file, _now())).lastrowid

    def update_import(self, import_id: int, finished: bool = False, **counts) -> None:
        sets = [f"{k} = ?" for k in counts]
        values = [json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict)) else v for v in counts.values()]
        if finished:
            sets.append("finished = ?")
            values.append(_now())
        if not sets:
            return
        with self.transaction():
            self.conn.execute(f"UPDATE imports SET {', '.join(sets)} WHERE id = ?", (*values, import_id))

    def imports(self) -> list[dict]:
        cursor = self.conn.execute("SELECT * FROM imports ORDER BY id")
        names = [d[0] for d in cursor.description]
        return [_import_row(dict(zip(names, r))) for r in cursor]

    # --- reading --------------------------------------------------------------------------------

    _GAME_COLUMNS = ("g.id, g.variant, g.ruleset, g.start, g.event, g.site, g.date, g.round, ps.name AS sente, "
                     "pg.name AS gote, g.result, g.termination, g.ply_count, g.status, g.error, g.warnings, "
                     "g.tags, g.source_format, g.source_line, g.import_id, i.file AS file, g.digest, "
                     "g.prefix_of, g.extends")
    _GAME_FROM = ("games g LEFT JOIN players ps ON ps.id = g.sente_id LEFT JOIN players pg ON pg.id = g.gote_id "
                  "LEFT JOIN imports i ON i.id = g.import_id")

    def games(self, *, variant: str | None = None, player: str | None = None, sente: str | None = None,
              gote: str | None = None, result: str | None = None, status: str | None = None,
              since: str | None = None, until: str | None = None, search: str | None = None,
              ids=None, limit: int | None = None, offset: int = 0, sort: str = "id",
              descending: bool = False) -> Iterator[dict]:
        """Games matching every filter given, by id (or by ``sort``: one of :data:`GAME_SORTS`,
        ties by id; games without a date come last either way).

        ``variant`` is a slug; ``player`` matches Sente or Gote (case-insensitive; ``*`` is a
        wildcard); ``result`` is ``1-0``, ``0-1``, ``1/2-1/2``, ``*``; ``status`` is ``valid``,
        ``truncated``, ``invalid`` or ``all`` (default: every game but the invalid ones);
        ``since``/``until`` are dates (``2024``, ``2024-05``, ``2024-05-17`` or ``2024.05.17``,
        inclusive); ``search`` is full-text search over event, site, players and comments.
        """
        where, params = self._filters(variant=variant, player=player, sente=sente, gote=gote, result=result,
                                      status=status, since=since, until=until, search=search, ids=ids)
        sql = f"SELECT {self._GAME_COLUMNS} FROM {self._GAME_FROM}"
        if where:
            sql += " WHERE " + " AND ".join(where)
        if sort not in GAME_SORTS:
            raise ValueError(f"sort {sort!r}: expected one of {', '.join(GAME_SORTS)}")
        way = " DESC" if descending else ""
        column = GAME_SORTS[sort]
        sql += f" ORDER BY {column}{way} NULLS LAST, g.id{way}" if column != "g.id" else f" ORDER BY g.id{way}"
        if limit is not None:
            sql += f" LIMIT {_sql_count(limit)} OFFSET {_sql_count(offset)}"
        elif offset:
            sql += f" LIMIT -1 OFFSET {_sql_count(offset)}"
        cursor = self.conn.execute(sql, params)
        names = [d[0] for d in cursor.description]
        for row in cursor:
            yield _game_row(dict(zip(names, row)))

    def count(self, **filters) -> int:
        """The number of games :meth:`games` gives for these filters (without ``limit``)."""
        where, params = self._filters(**filters)
        sql = f"SELECT count(*) FROM {self._GAME_FROM}" + (" WHERE " + " AND ".join(where) if where else "")
        return self.conn.execute(sql, params).fetchone()[0]

    def _filters(self, variant=None, player=None, sente=None, gote=None, result=None, status=None,
                 since=None, until=None, search=None, ids=None):
        where, params = [], []
        if variant:
            where.append("g.variant = ?")
            params.append(variant)
        for col, name in (("ps.name", sente), ("pg.name", gote)):
            if name:
                op, value = _name_match(name)
                where.append(f"{col} {op}")
                params.append(value)
        if player:
            op, value = _name_match(player)
            where.append(f"(ps.name {op} OR pg.name {op})")
            params += [value, value]
        if result:
            where.append("g.result = ?")
            params.append(_RESULT_ALIASES.get(result.lower(), result))
        if status in (None, ""):
            where.append("g.status != 'invalid'")
        elif status != "all":
            if status not in STATUSES:
                raise ValueError(f"status {status!r}: expected one of {', '.join(STATUSES)}, all")
            where.append("g.status = ?")
            params.append(status)
        if since:
            where.append("g.date >= ?")
            params.append(_date_bound(since))
        if until:
            where.append("g.date <= ?")
            params.append(_date_bound(until) + "~")
        if search:
            where.append("g.id IN (SELECT rowid FROM games_fts WHERE games_fts MATCH ?)")
            params.append(self._search_query(search))
        if ids is not None:
            ids = [int(i) for i in ids]
            where.append(f"g.id IN ({','.join('?' * len(ids))})" if ids else "0")
            params += ids
        return where, params

    def _search_query(self, text: str) -> str:
        """The FTS5 query for a ``search`` text, tried on the full-text index alone first: the
        query's one variable part is the text, so any SQLite error it gives is the text's (a
        ValueError saying so), whatever SQLite's wording."""
        query = _fts_query(text)
        try:
            self.conn.execute("SELECT rowid FROM games_fts WHERE games_fts MATCH ? LIMIT 1", (query,)).fetchall()
        except sqlite3.OperationalError as exc:
            if is_busy(exc):
                raise
            raise ValueError(f"bad search text {text!r}: {exc}") from None
        return query

    def game(self, game_id: int) -> dict | None:
        """Everything stored about one game (with ``source`` and ``annotations``), or None."""
        if not is_game_id(game_id):
            return None
        cursor = self.conn.execute(f"SELECT {self._GAME_COLUMNS}, g.source FROM {self._GAME_FROM} WHERE g.id = ?",
                                   (int(game_id),))
        row = cursor.fetchone()
        if row is None:
            return None
        data = _game_row(dict(zip([d[0] for d in cursor.description], row)))
        data["annotations"] = [
            {"ply": p, "move": m, "comment": cm, "nags": [int(x) for x in (ng or "").split()], "clock": ck}
            for p, m, cm, ng, ck in self.conn.execute(
                "SELECT ply, move, comment, nags, clock FROM annotations WHERE game_id = ? ORDER BY ply",
                (int(game_id),))]
        return data

    def source(self, game_id: int) -> str | None:
        """The game's text exactly as it was read."""
        if not is_game_id(game_id):
            return None
        row = self.conn.execute("SELECT source FROM games WHERE id = ?", (int(game_id),)).fetchone()
        return unpack_source(row[0]) if row else None

    def _knows_variant(self, name: str | None) -> bool:
        """Whether ``name`` (a stored game's variant column) is a variant this archive can read
        (an unknown variant is stored as the record wrote it)."""
        if not name:
            return False
        try:
            self.variants.load(name)
        except UnknownVariantError:
            return False
        return True

    def load_game(self, game_id: int, plies: int | None = None) -> Game | None:
        """The game rebuilt from its stored text (read again, leniently: an invalid game gives
        its moves up to the error, which is in ``game.errors``).  ``plies``: read the main line
        of an LSN text only that far (the start of a long game, quickly)."""
        if not is_game_id(game_id):
            return None
        row = self.conn.execute("SELECT source, source_format, error, import_id, source_line, ruleset, start, variant "
                                "FROM games WHERE id = ?", (int(game_id),)).fetchone()
        if row is None:
            return None
        source, fmt, error, import_id, line, ruleset, start, variant = row
        source = unpack_source(source)
        file = None
        if import_id is not None:
            r = self.conn.execute("SELECT file FROM imports WHERE id = ?", (import_id,)).fetchone()
            file = r[0] if r else None
        setup = None
        if fmt == "csg" and (not error or json.loads(error).get("ply")):
            # the record names a setup file the archive does not keep: the game's stored start is it
            # (unless the setup was the game's problem: then the text is read as it was at import)
            from daikifu.formats.csg import stored_setup
            setup = stored_setup(parse_ruleset(ruleset or ""), start, self.variants)
        # the variant the game was stored under: a record that does not name its own variant (a USI
        # line, a Chu game in the Tenjiku program's form) was read with the one the import was given
        known = variant if self._knows_variant(variant) else None
        game = read_stored(source, fmt, file, plies, self.variants, setup, variant=known)
        if error:
            stored = GameError(**{k: v for k, v in json.loads(error).items()
                                  if k in GameError.__dataclass_fields__})
            game.errors = [stored] + [e for e in game.errors if e.kind == "warning" and e.message != stored.message]
        game.source = source
        game.source_line = line
        return game

    def hash_matches(self, hash_: int, limit: int | None = None) -> list[tuple[int, int]]:
        """``(game_id, ply)`` of every stored main-line position with this hash (valid games only).

        Unconfirmed: two positions may share a hash.  :func:`daikifu.archive.queries.search_position`
        replays the candidates and returns only the games that really reach the position."""
        sql = "SELECT game_id, ply FROM positions WHERE hash = ? ORDER BY game_id, ply"
        if limit is not None:
            sql += f" LIMIT {_sql_count(limit)}"
        return [tuple(r) for r in self.conn.execute(sql, (int(hash_),))]

    def variant_counts(self) -> list[tuple[str, int]]:
        """``(variant slug, number of games)`` of every variant in the archive, by slug."""
        return [tuple(r) for r in self.conn.execute(
            "SELECT variant, count(*) FROM games GROUP BY variant ORDER BY variant")]

    def has_variant(self, slug: str) -> bool:
        """Whether any game of ``slug`` is stored (also one whose variant is not installed here)."""
        return self.conn.execute("SELECT 1 FROM games WHERE variant = ? LIMIT 1", (slug,)).fetchone() is not None

    def has_game(self, game_id: int) -> bool:
        """Whether a game with this id is stored."""
        return is_game_id(game_id) and self.conn.execute(
            "SELECT 1 FROM games WHERE id = ?", (int(game_id),)).fetchone() is not None

    def game_id_of(self, digest: str) -> int | None:
        """The id of the stored game with this digest (see :func:`digest_of`), or None."""
        row = self.conn.execute("SELECT id FROM games WHERE digest = ?", (digest,)).fetchone()
        return row[0] if row else None

    def state(self) -> tuple[int, int | None]:
        """``(number of games, highest id)``: changes whenever games are added or removed."""
        return tuple(self.conn.execute("SELECT count(*), max(id) FROM games").fetchone())

    def data_version(self) -> "DataVersion":
        """What the archive's stored state is, as far as what is derived from every game (the
        statistics) is concerned; see :class:`DataVersion`."""
        c = self.conn
        running = c.execute("SELECT 1 FROM imports WHERE finished IS NULL LIMIT 1").fetchone() is not None
        finished = tuple(c.execute("SELECT count(*), max(id) FROM imports WHERE finished IS NOT NULL").fetchone())
        return DataVersion(finished, None if running else self.state())

    def stats(self) -> dict:
        """Counts of games by status, plies and positions."""
        out = {s: 0 for s in STATUSES}
        for status, n in self.conn.execute("SELECT status, count(*) FROM games GROUP BY status"):
            out[status] = n
        out["games"] = sum(out[s] for s in STATUSES)
        out["plies"] = self.conn.execute("SELECT coalesce(sum(ply_count), 0) FROM games WHERE status != 'invalid'"
                                         ).fetchone()[0]
        return out


# the games of a first_moves row counted one more; last_date is the latest date, NULL for none
# (max() of SQLite is NULL when either side is)
_FIRST_MOVE_UPSERT = (
    "INSERT INTO first_moves (hash, variant, ruleset, start, next, games, sente_wins, gote_wins, draws, plies, "
    "last_date) VALUES (?, ?, ?, ?, ?, 1, ?, ?, ?, ?, ?) "
    "ON CONFLICT (hash, variant, ruleset, start, next) DO UPDATE SET games = games + 1, "
    "sente_wins = sente_wins + excluded.sente_wins, gote_wins = gote_wins + excluded.gote_wins, "
    "draws = draws + excluded.draws, plies = plies + excluded.plies, "
    "last_date = CASE WHEN last_date IS NULL OR excluded.last_date > last_date THEN excluded.last_date "
    "ELSE last_date END")

#: ``Archive.games(sort=...)``: the orders a game list can have, and their column
GAME_SORTS = {"id": "g.id", "date": "g.date", "plies": "g.ply_count", "variant": "g.variant"}

_RESULT_ALIASES = {"sente": "1-0", "gote": "0-1", "draw": "1/2-1/2", "unfinished": "*"}


def _name_match(name: str) -> tuple[str, str]:
    if "*" in name or "%" in name:
        return "LIKE ? ESCAPE '\\'", name.replace("\\", "\\\\").replace("_", "\\_").replace("*", "%")
    return "= ? COLLATE NOCASE", name


_DATE_RE = re.compile(r"(\d{4})(?:[-./](\d{1,2}|\?\?)(?:[-./](\d{1,2}|\?\?))?)?\Z")


def _date_bound(text: str) -> str:
    """``2024-5-7`` -> ``2024.05.07`` (the form of the Date tag), ``2024`` -> ``2024``."""
    m = _DATE_RE.match(text.strip())
    if not m:
        raise ValueError(f"date {text!r}: expected YYYY, YYYY-MM or YYYY-MM-DD")
    parts = [m.group(1)] + [p.zfill(2) for p in m.groups()[1:] if p]
    return ".".join(parts)


_FTS_SYNTAX = re.compile(r'["*():^]|\b(?:AND|OR|NOT|NEAR)\b')


def _fts_query(text: str) -> str:
    """Plain words are each quoted (so ``dai-kagamigi`` or ``O'Neil`` is no syntax error); text with
    FTS5 operators (quotes, ``*``, AND/OR/NOT ...) is passed on as it is."""
    if _FTS_SYNTAX.search(text):
        return text
    words = text.split()
    return " ".join('"' + w.replace('"', '""') + '"' for w in words) or '""'


def pack_source(text: str) -> bytes:
    """How ``games.source`` is stored: the UTF-8 text compressed with zlib (``zlib.decompress``
    reads it back).  An 8 KB window and a small state: a game's text repeats itself within a few
    lines, and the default state (about 300 KB a call) would be several times a short game's text."""
    packer = zlib.compressobj(6, zlib.DEFLATED, 13, 5)
    # (encoded a slice at a time: the bytes of a long game's whole text are never made)
    packed = [packer.compress(text[i:i + 16384].encode("utf-8")) for i in range(0, len(text), 16384)]
    packed.append(packer.flush())
    return b"".join(packed)


def unpack_source(data) -> str:
    """The text of a stored ``games.source`` (see :func:`pack_source`)."""
    if isinstance(data, str):
        return data
    return zlib.decompress(data).decode("utf-8")


def _game_row(row: dict) -> dict:
    if "source" in row and row["source"] is not None:
        row["source"] = unpack_source(row["source"])
    for key in ("error",):
        if row.get(key):
            row[key] = json.loads(row[key])
    row["warnings"] = json.loads(row["warnings"]) if row.get("warnings") else []
    row["tags"] = json.loads(row["tags"]) if row.get("tags") else []
    return row


def _import_row(row: dict) -> dict:
    row = dict(row)
    row["errors"] = json.loads(row["errors"]) if row.get("errors") else []
    return row


def read_stored(source: str, source_format: str, file: str | None = None, plies: int | None = None,
                variants: VariantRegistry | None = None, setup=None, variant: str | None = None) -> Game:
    """Read a stored game text again (in its format), leniently; with ``plies``, an LSN main line
    only that far (the start of a long game, without replaying the rest); ``setup``: the setup of a
    Chu Shogi server record (:class:`~daikifu.formats.csg.SetupFile`); ``variant``: the variant
    the game was stored under, for a text that does not name its own."""
    from daikifu.formats.reading import finish_game, read_text
    if plies is not None and source_format == "lsn":
        from daikifu.formats.lsn import read_game
        game = read_game(source, file=file, lenient=True, until_ply=plies, variants=variants,
                         default_variant=variant)
        game = finish_game(game, file) if game is not None else None
    else:
        game = next(iter(read_text(source, fmt=source_format, name=file, lenient=True, variants=variants,
                                   setup=setup, variant=variant)), None)
    if game is None:
        raise ArchiveError("the stored text holds no game")
    return game
