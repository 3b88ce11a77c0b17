"""Importing game records into the archive: files in any format daikifu reads, found by content.

>>> summary = import_paths(Archive("games.db"), ["games/", "extra.lsn"], jobs=2)   # doctest: +SKIP
>>> summary.imported, summary.duplicates, summary.invalid                          # doctest: +SKIP

* Files are recognised by what they hold (:func:`formats.reading.detect_format`; the name's
  extension only breaks a tie), and read through the one reading pipeline
  (:mod:`formats.reading`), so an imported file gives the same games and tags as ``daikifu
  validate`` and the web import page.  A file named on the command line that is no record is
  reported in the summary ("not a record in a format daikifu reads") and nothing is stored;
  files met while walking a directory that are no record are skipped.
* LSN files are streamed: one game is read at a time, whatever the size of the file.
* Every file gets an ``imports`` row, updated at every commit and marked finished at the end.
* Games are committed in batches (at least every :data:`COMMIT_SECONDS` seconds), and only
  between two games, so the database never holds part of a game.  Ctrl-C is taken at the end of
  the game being stored: the games read so far are committed.  After a crash (even SIGKILL) the
  uncommitted batch is lost.  Either way running the same import again finishes the job: what is
  already stored is recognised by its digest and counted as a duplicate.
* With ``jobs > 1`` the games are read and validated in worker processes while the main process
  splits the files into games (a cheap scan) and is the only writer.  At most a few chunks of
  games are in flight, so memory stays bounded however large the input.
"""

from __future__ import annotations

import codecs
import functools
import gc
import io
import os
import signal
import sys
import threading
import time
from array import array
from collections import deque
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

from daikifu.formats.csg import SetupFile
from daikifu.formats.game import GameError
from daikifu.formats.limits import ReadLimits
from daikifu.formats.lsn import read_games
from daikifu.formats.reading import (HEAD_BYTES, NotARecordError, expand_paths, finish_game, read_record, reader_failure,
                                    record_text, setup_dir_of, whole_lines)
from daikifu.formats.visitor import MainLineBuilder, Visitor
from daikifu.formats.reading import READ_BUFFER
from daikifu.formats.reading import Prepended as _Prepended
from daikifu.replay import Board
from daikifu.replay.variant import VariantRegistry

from .store import Archive, ArchiveBusy, MainLine, Record, make_record, record_of

__all__ = ["import_paths", "ImportSummary", "FileSummary", "ImportInterrupted", "ImportBusy", "sniff",
           "COMMIT_SECONDS", "WAIT_SECONDS"]

COMMIT_SECONDS = 1.0  # commit at least this often
WAIT_SECONDS = 300.0  # how long an import waits for another writer to let go of the archive
COMMIT_GAMES = 2000  # ... and after this many games
COLLECT_SECONDS = 5.0  # how often cycles are collected when automatic garbage collection is off (CycleCollector)
MAX_ERRORS = 1000  # errors kept per file (in the imports row and the summary)
CHUNK_CHARS = 1 << 16  # text per task sent to a worker process


# --- summaries ------------------------------------------------------------------------------------


@dataclass
class FileSummary:
    file: str
    import_id: int | None = None
    format: str | None = None
    games: int = 0
    imported: int = 0
    duplicates: int = 0
    prefixes: int = 0
    invalid: int = 0
    plies: int = 0
    errors: list = field(default_factory=list)  # first error of each invalid game (dicts), at most MAX_ERRORS
    error: str | None = None  # the file could not be read
    warnings: list = field(default_factory=list)
    finished: bool = False

    def counts(self) -> dict:
        return {"games": self.games, "imported": self.imported, "duplicates": self.duplicates,
                "prefixes": self.prefixes, "invalid": self.invalid, "plies": self.plies}

    def count(self, rec: Record, verdict: str) -> None:
        """Count one game that :meth:`Archive.add_record` stored (or not) with ``verdict``."""
        self.games += 1
        if rec.valid:
            self.plies += rec.ply_count
        if verdict == "imported":
            self.imported += 1
        elif verdict == "duplicate":
            self.duplicates += 1
        elif verdict == "prefix":
            self.prefixes += 1
        else:
            self.invalid += 1
            if len(self.errors) < MAX_ERRORS:
                err = dict(rec.error or {"message": "invalid game"})
                if err.get("file") is None:
                    err["file"] = self.file
                if err.get("game") is None:
                    err["game"] = rec.number
                self.errors.append(err)


@dataclass
class ImportSummary:
    files: list = field(default_factory=list)  # FileSummary of each file read
    skipped: list = field(default_factory=list)  # files met in directories that hold no game record
    seconds: float = 0.0
    jobs: int = 1
    interrupted: bool = False
    skip_invalid: bool = False  # invalid games were not stored

    def _sum(self, name: str) -> int:
        return sum(getattr(f, name) for f in self.files)

    games = property(lambda self: self._sum("games"))
    imported = property(lambda self: self._sum("imported"))
    duplicates = property(lambda self: self._sum("duplicates"))
    prefixes = property(lambda self: self._sum("prefixes"))
    invalid = property(lambda self: self._sum("invalid"))
    plies = property(lambda self: self._sum("plies"))

    @property
    def stored(self) -> int:
        """Games this import added to the archive: new ones, prefix duplicates (kept) and invalid
        ones (unless they were skipped); the other games read were duplicates, not stored again."""
        return self.imported + self.prefixes + (0 if self.skip_invalid else self.invalid)

    @property
    def errors(self) -> list:
        return [e for f in self.files for e in f.errors]

    @property
    def plies_per_second(self) -> float:
        return self.plies / self.seconds if self.seconds > 0 else 0.0

    def as_dict(self) -> dict:
        return {"games": self.games, "stored": self.stored, "imported": self.imported,
                "duplicates": self.duplicates, "prefixes": self.prefixes, "invalid": self.invalid,
                "plies": self.plies, "seconds": round(self.seconds, 3), "plies_per_second": round(self.plies_per_second),
                "jobs": self.jobs, "interrupted": self.interrupted,
                "errors": self.errors, "skipped": list(self.skipped),
                "files": [asdict(f) for f in self.files]}


class ImportBusy(Exception):
    """Another program kept the archive's write lock longer than the import would wait: the
    games committed before are stored (each whole), the rest not; ``summary`` says what was
    done and :attr:`unstored` names the files not (or not wholly) stored."""

    def __init__(self, summary: ImportSummary, waited: float, unstored: list[str]):
        super().__init__(f"the archive stayed busy for {waited:.0f} s")
        self.summary = summary
        self.waited = waited
        self.unstored = unstored


class ImportInterrupted(KeyboardInterrupt):
    """Ctrl-C during an import: the games read so far are committed; ``summary`` says what was done."""

    def __init__(self, summary: ImportSummary):
        super().__init__("import interrupted")
        self.summary = summary


# --- recognising files ----------------------------------------------------------------------------


def sniff(head: bytes, name: str | None = None) -> str | None:
    """The format of a file from its first bytes (``"lsn"``, ``"kif"``, ``"csa"`` ...), or None
    when it is no game record."""
    if b"\0" in head[:4096]:
        return None  # binary (a database, an image ...)
    try:
        return record_text(whole_lines(head), name=name)[1]
    except NotARecordError:
        return None


def _not_a_record(head: bytes, name: str) -> str:
    """Why a file that :func:`sniff` found no format in is not read ("not a record ...", or what it
    is: a Chu Shogi server setup)."""
    try:
        record_text(head, name=name)
    except NotARecordError as exc:
        return exc.reason
    return NotARecordError(name).reason


class Replacements:
    """Counts the bytes that are not UTF-8, replaced by U+FFFD while a file is decoded.  Python
    registers a codec error handler once, by name, for the whole process, so the count is kept
    here, in one object, and read and started again for each file (:meth:`take`)."""

    NAME = "daikifu-replace"

    def __init__(self):
        self.count = 0

    def __call__(self, exc: UnicodeDecodeError):
        self.count += exc.end - exc.start
        return "\ufffd", exc.end

    def take(self) -> int:
        """The bytes replaced since the last call, and the count started again."""
        count, self.count = self.count, 0
        return count


REPLACEMENTS = Replacements()
codecs.register_error(Replacements.NAME, REPLACEMENTS)


def _text(raw: _Prepended) -> io.TextIOWrapper:
    # newline="": lines keep their own line ends, so each game's text is stored exactly
    return io.TextIOWrapper(io.BufferedReader(raw, READ_BUFFER), encoding="utf-8", errors=Replacements.NAME,
                            newline="")


# --- reading (in the main process or a worker) ----------------------------------------------------


class _RecordBuilder(MainLineBuilder):
    """Reads a game for its :class:`Record` without building its move tree: the main line is kept
    as a :class:`MainLine` (moves, annotated plies, comments) and its position hashes are taken
    from the reader's own board, so they need not be computed again by replaying the moves.  The
    game it returns carries the summary in ``record_main`` (see :func:`_record`).  Given no board
    (``board_optional``: a reader that would keep one in step for it alone), it collects no hashes
    and :func:`record_of` replays the moves once the reader's own board is let go."""

    board_optional = True

    def begin_game(self, number, line):
        super().begin_game(number, line)
        self.main = MainLine(array("q"))
        self.board = None

    def visit_move(self, board, move, notation, line, column):
        if not self.stack and board is not None:  # a move of the main line: the board is the position before it
            self.main.hashes.append(board.zobrist)
            self.board = board
        super().visit_move(board, move, notation, line, column)

    def retire(self, ply, node):
        self.main.add(ply, node)

    def end_game(self, source, offset):
        game = super().end_game(source, offset)
        main, b = self.main, self.board
        # the hashes are whole when the reader's board is at the end of the main line (not in a
        # variation left open) and the first is the start's; else record_of replays the moves
        if (b is not None and game.valid and not self.stack and len(main.moves) == len(main.hashes) == b.ply
                and b.peek() == main.moves[-1] and main.hashes[0] == _start_hash(game)):
            main.hashes.append(b.zobrist)
        else:
            main.hashes = None
        game.record_main = main
        self.board = None  # (a long game's board holds one undo entry per ply)
        return game


def _start_hash(game) -> int:
    return _start_hash_of(game.rules, game.start)


@functools.lru_cache(maxsize=256)
def _start_hash_of(rules, start: str | None) -> int:
    """The hash of a start position (a rule set and a position string; the rule set is held by
    the cache, so it is the same object as long as its entry lives)."""
    return Board(rules, start).zobrist


class _Splitter(Visitor):
    """Cuts an LSN text into games without reading the moves: (number, first line, text)."""

    def begin_game(self, number, line):
        self.number, self.line = number, line

    def end_headers(self):
        return Visitor.SKIP

    def end_game(self, source, offset):
        return self.number, self.line, source


def _record(game, fmt: str) -> Record:
    """The game's record, from the main line :class:`_RecordBuilder` kept (or, for a format whose
    reader builds the whole game, from its tree); a game whose record cannot be made (a bug)
    becomes an invalid game that says so, so that it costs no other game of its file."""
    main = getattr(game, "record_main", None)
    try:
        return record_of(game, main, fmt) if main is not None else make_record(game, fmt)
    except Exception as exc:
        game.errors.append(GameError(f"internal error while storing this game: {type(exc).__name__}: {exc}"[:300],
                                     file=game.source_file, game=game.number, line=game.source_line,
                                     expected="a game this version can store (please report this record)"))
        if main is not None:
            main.hashes = None
        return record_of(game, main or MainLine.of_game(game), fmt)


def _lsn_records(games, name: str) -> Iterator[Record]:
    for game in games:
        rec = _record(finish_game(game, name), "lsn")
        del game  # the game is let go before its record is stored
        yield rec


@dataclass(frozen=True)
class _Reading:
    """How every file of an import is read (sent to the workers with each task)."""

    lenient: bool = False
    variant: str | None = None  # the variant of records that name none
    variants: VariantRegistry | None = None
    limits: ReadLimits | None = None
    setup: SetupFile | None = None  # overrides the setup file a record names (Chu Shogi server records)

    def lsn(self, source, name: str, visitor) -> Iterator:
        return read_games(source, visitor=visitor, lenient=self.lenient, file=name, default_variant=self.variant,
                          variants=self.variants, limits=self.limits)


def _whole_records(held: list, name: str, fmt: str, how: _Reading) -> list[Record]:
    """The records of a file read whole (every format but LSN, which is streamed): ``held`` holds
    its bytes, taken from it so that they are let go once decoded."""
    return [_record(g, fmt) for g in read_record(held.pop(), name=name, fmt=fmt, lenient=how.lenient, variant=how.variant,
                                                 variants=how.variants, limits=how.limits, setup=how.setup,
                                                 setup_dir=setup_dir_of(name), visitor=_RecordBuilder)]


def _whole_file(raw, name: str, fmt: str, how: _Reading) -> Iterator[Record]:
    """The records of a file read whole, as a generator: its reading happens at the first
    ``next``, where the caller tells a reader's failure from the storing's."""
    yield from _whole_records([raw.readall()], name, fmt, how)


def _work(task):
    """In a worker: read the games of one task, return (task number, records, problems)."""
    try:
        return _work_on(task)
    except Exception as exc:  # a reader's failure costs its file only (see reader_failure)
        return task[0], None, [reader_failure(exc, task[1])]


def _work_on(task):
    kind, name, payload, how = task[1], task[2], task[3], task[6]
    if kind != "lsn":
        if isinstance(payload, str):
            try:
                payload = Path(payload).read_bytes()
            except OSError as exc:
                return task[0], None, [f"cannot read: {exc.strerror}"]
        return task[0], _whole_records([payload], name, kind, how), []
    records = []
    COLLECTOR.now_and_then()
    for number, line, source in payload:
        games = list(how.lsn(source, name, _RecordBuilder))
        for game in games:
            shift = line - 1
            for e in game.errors:
                if e.line is not None:
                    e.line += shift
                e.game = number
            game.number = number
            game.source_line = line
            records.append(_record(finish_game(game, name), "lsn"))
    return task[0], records, []


def _worker_init():
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's business
    COLLECTOR.restart()  # (a forked worker keeps the parent's collector setting)


class CycleCollector:
    """With automatic garbage collection off (``daikifu import`` turns it off for the rest of its
    process, and its forked workers keep that), a full collection every :data:`COLLECT_SECONDS`,
    so that the few reference cycles an import makes (a few per game) cannot pile up; the
    automatic collections would traverse the rule sets and tables the import keeps again and
    again, to free next to nothing.  One per process (:data:`COLLECTOR`): the collector is."""

    def __init__(self):
        self.last = 0.0

    def restart(self) -> None:
        self.last = time.monotonic()

    def now_and_then(self) -> None:
        if not gc.isenabled() and time.monotonic() - self.last >= COLLECT_SECONDS:
            gc.collect()
            self.last = time.monotonic()


COLLECTOR = CycleCollector()


# --- the import -----------------------------------------------------------------------------------


class _Interrupt:
    """Ctrl-C during an import only sets a flag; :meth:`check` raises KeyboardInterrupt at a safe
    point (between two games).  Only in the main thread (where Python handles signals)."""

    def __init__(self):
        self.flag = False
        self.old = None

    def _handler(self, signum, frame):
        self.flag = True

    def __enter__(self):
        if threading.current_thread() is threading.main_thread():
            try:
                self.old = signal.signal(signal.SIGINT, self._handler)
            except ValueError:
                self.old = None
        return self

    def __exit__(self, *exc):
        if self.old is not None:
            signal.signal(signal.SIGINT, self.old)

    def check(self):
        if self.flag:
            self.flag = False
            raise KeyboardInterrupt


class _Writer:
    """The main process's side: stores records, keeps the counts, commits in batches."""

    def __init__(self, archive: Archive, skip_invalid: bool, summary: ImportSummary, progress,
                 commit_seconds: float = COMMIT_SECONDS, interrupt: _Interrupt | None = None):
        self.archive = archive
        self.interrupt = interrupt or _Interrupt()
        self.commit_seconds = commit_seconds
        self.skip_invalid = skip_invalid
        self.summary = summary
        self.progress = progress
        self.file: FileSummary | None = None
        self.last_commit = time.monotonic()
        self.since_commit = 0

    def begin_file(self, name: str, fmt: str) -> FileSummary:
        f = FileSummary(file=name, format=fmt)
        f.import_id = self.archive.start_import(name)
        self.archive.update_import(f.import_id, format=fmt)
        self.summary.files.append(f)
        self.file = f
        return f

    def store(self, rec: Record) -> None:
        f = self.file
        _, verdict = self.archive.add_record(rec, f.import_id, self.skip_invalid)
        f.count(rec, verdict)
        self.since_commit += 1
        self.interrupt.check()
        if self.since_commit >= COMMIT_GAMES or time.monotonic() - self.last_commit >= self.commit_seconds:
            self.commit()
        COLLECTOR.now_and_then()

    def save_counts(self, finished: bool = False) -> None:
        f = self.file
        if f is not None and f.import_id is not None:
            self.archive.update_import(f.import_id, finished=finished, errors=f.errors or None,
                                       error=f.error, **f.counts())

    def commit(self) -> None:
        self.save_counts()
        self.archive.commit()
        self.last_commit = time.monotonic()
        self.since_commit = 0

    def end_file(self, replaced: int = 0) -> None:
        f = self.file
        if f is None:
            return
        if replaced:
            f.warnings.append(f"{replaced} bytes that are not UTF-8 were replaced by U+FFFD")
        f.finished = True
        self.save_counts(finished=True)
        self.archive.commit()
        self.last_commit = time.monotonic()
        self.since_commit = 0
        self.file = None


def _open_source(path: str):
    """(binary stream, size or None, display name)."""
    if path == "-":
        return sys.stdin.buffer, None, "-"
    fh = open(path, "rb")
    try:
        size = os.fstat(fh.fileno()).st_size
    except OSError:
        size = None
    return fh, size, path


def _plan(paths, summary: ImportSummary, fmt: str | None = None):
    """(path, format, the file's bytes as a stream (its head already read, then the rest), its
    binary stream, size) for each file to read; ``fmt`` overrides the format found by content."""
    for path, named in expand_paths(paths):
        try:
            fh, size, name = _open_source(path)
            head = fh.read(HEAD_BYTES)
        except OSError as exc:
            f = FileSummary(file=path, error=f"cannot read: {exc.strerror}")
            summary.files.append(f)
            continue
        found = fmt or sniff(head, path)
        if found is None:
            if fh is not sys.stdin.buffer:
                fh.close()
            if named:  # said in the summary: the user asked for this file (and what it is, if known)
                summary.files.append(FileSummary(file=path, error=_not_a_record(head, path), finished=True))
            else:
                summary.skipped.append(path)
            continue
        raw = _Prepended(head, fh)
        del head  # (given once through ``raw``, then let go: this frame must not keep it)
        yield path, found, raw, fh, size


def import_records(archive: Archive, records: Iterable[Record], name: str, fmt: str | None = None,
                   skip_invalid: bool = False) -> tuple[FileSummary, list[tuple[int | None, str]]]:
    """Store records already read (e.g. a record pasted into the web viewer) in one transaction,
    with an ``imports`` row named ``name``; returns the summary and, for each record, the id of
    its game (None when nothing was stored) and the verdict (imported, duplicate, prefix, invalid).
    """
    summary = FileSummary(file=name, format=fmt)
    stored = []
    with archive.transaction():
        summary.import_id = archive.start_import(name)
        for rec in records:
            game_id, verdict = archive.add_record(rec, summary.import_id, skip_invalid)
            summary.count(rec, verdict)
            stored.append((game_id, verdict))
        summary.finished = True
        archive.update_import(summary.import_id, finished=True, format=fmt, errors=summary.errors or None,
                              **summary.counts())
    return summary, stored


def import_paths(archive: Archive, paths: Iterable[str], jobs: int = 1, lenient: bool = False,
                 skip_invalid: bool = False, progress: Callable[[int, int], None] | None = None,
                 commit_seconds: float | None = None, fmt: str | None = None,
                 variant: str | None = None, variants: VariantRegistry | None = None,
                 limits: ReadLimits | None = None, setup: SetupFile | None = None,
                 wait: float = WAIT_SECONDS, on_busy: Callable[[float], None] | None = None) -> ImportSummary:
    """Import every game of ``paths`` (files, directories walked recursively, ``-`` for standard
    input) into ``archive``; returns an :class:`ImportSummary`.

    ``jobs`` worker processes read and validate the games (1: everything in this process);
    ``lenient`` keeps the valid part of a game with a bad move (status ``truncated``);
    ``skip_invalid`` does not store invalid games (they are still counted and reported);
    ``progress(done, total)`` is called now and then with the bytes read so far and the total
    size of the files (0 when unknown, e.g. standard input); ``commit_seconds`` (default
    ``$DAIKIFU_COMMIT_SECONDS``, else :data:`COMMIT_SECONDS`) is the longest time between commits;
    ``fmt`` names the format of every file (default: found by content); ``variant`` is the variant
    of records that name none; ``variants`` is where variant names are looked up, in this process
    and in the workers (default: the archive's, ``archive.variants``); ``limits`` bounds what the
    readers accept (:class:`~daikifu.formats.limits.ReadLimits`; a game over a limit is an invalid
    game with a located error); ``setup`` (:class:`~daikifu.formats.csg.SetupFile`) is the setup
    of Chu Shogi server records, instead of the one a record names (looked for beside it).
    While another program holds the archive's write lock, the import waits for it up to
    ``wait`` seconds at each commit, calling ``on_busy(seconds waited)`` about once a second.

    Raises :class:`FileNotFoundError` before anything is done if a path does not exist,
    :class:`ImportInterrupted` (a KeyboardInterrupt) on Ctrl-C, after committing what was read,
    and :class:`ImportBusy` when the lock was not had in ``wait`` seconds (the games committed
    before are stored; the files not wholly stored are named).
    """
    how = _Reading(lenient, variant, variants or archive.variants, limits, setup)
    paths = list(paths)
    for p in paths:
        if p != "-" and not os.path.exists(p):
            raise FileNotFoundError(f"{p}: no such file or directory")
    summary = ImportSummary(jobs=max(1, jobs), skip_invalid=skip_invalid)
    total = sum(os.path.getsize(p) for p, named in expand_paths(paths) if p != "-" and os.path.isfile(p))
    state = {"done": 0, "base": 0, "last": 0.0}

    def report(consumed: int, final: bool = False):
        if progress is None:
            return
        now = time.monotonic()
        if final or now - state["last"] >= 0.1:
            state["last"] = now
            progress(min(total, state["base"] + consumed), total)

    start = time.perf_counter()
    interrupt = _Interrupt()
    if commit_seconds is None:
        commit_seconds = float(os.environ.get("DAIKIFU_COMMIT_SECONDS") or COMMIT_SECONDS)
    writer = _Writer(archive, skip_invalid, summary, progress, commit_seconds, interrupt)
    COLLECTOR.restart()
    archive.tune_for_import()
    archive.busy_wait, archive.on_busy = wait, on_busy or (lambda waited: None)
    try:
        with interrupt, archive.transaction():
            try:
                if summary.jobs == 1:
                    _import_serial(paths, fmt, how, writer, summary, report, state)
                else:
                    _import_parallel(paths, fmt, how, writer, summary, report, state, summary.jobs)
            except KeyboardInterrupt:
                summary.interrupted = True
                writer.save_counts()
                archive.commit()
                raise
    except KeyboardInterrupt:
        summary.seconds = time.perf_counter() - start
        raise ImportInterrupted(summary) from None
    except ArchiveBusy as exc:
        summary.seconds = time.perf_counter() - start
        done = {f.file for f in summary.files if f.finished} | set(summary.skipped)
        unstored = [p for p, named in expand_paths(paths) if p not in done]
        raise ImportBusy(summary, exc.waited, unstored) from None
    finally:
        archive.on_busy = None
    archive.checkpoint()
    summary.seconds = time.perf_counter() - start
    report(0, final=True)
    return summary


def _import_serial(paths, override, how: _Reading, writer: _Writer, summary, report, state):
    for path, fmt, raw, fh, size in _plan(paths, summary, override):
        name = path
        try:
            writer.begin_file(name, fmt)
            REPLACEMENTS.take()
            if fmt != "lsn":
                records = _whole_file(raw, name, fmt, how)
            else:
                records = _lsn_records(how.lsn(_text(raw), name, _RecordBuilder), name)
            while True:
                try:
                    rec = next(records)
                except StopIteration:
                    break
                except OSError:
                    raise
                except Exception as exc:  # the reader's failure costs its file only (not the storing's)
                    writer.file.error = reader_failure(exc, fmt)
                    break
                writer.store(rec)
                report(raw.consumed)
            report(raw.consumed)
            writer.end_file(REPLACEMENTS.take())
        except OSError as exc:
            if writer.file is not None:
                writer.file.error = f"cannot read: {exc.strerror or exc}"
                writer.end_file()
        finally:
            if fh is not sys.stdin.buffer:
                fh.close()
        state["base"] += size or 0


def _tasks(paths, override, how: _Reading, summary, files: list, report, state) -> Iterator[tuple]:
    """Tasks for the workers: (number, kind, name, payload, file index, last of its file, how to
    read it).

    ``files`` receives [name, format, replaced bytes] of each file as it is reached."""
    number = 0
    for path, fmt, raw, fh, size in _plan(paths, summary, override):
        index = len(files)
        files.append([path, fmt, 0])
        REPLACEMENTS.take()
        try:
            if fmt != "lsn":
                payload = path if path != "-" else raw.readall()
                yield (number, fmt, path, payload, index, True, how)
                number += 1
                continue
            chunk, chars = [], 0
            for item in read_games(_text(raw), visitor=_Splitter, file=path):
                chunk.append(item)
                chars += len(item[2])
                if chars >= CHUNK_CHARS:
                    yield (number, "lsn", path, chunk, index, False, how)
                    number += 1
                    chunk, chars = [], 0
                    report(raw.consumed)
            files[index][2] = REPLACEMENTS.take()
            yield (number, "lsn", path, chunk, index, True, how)
            number += 1
        finally:
            if fh is not sys.stdin.buffer:
                fh.close()
            state["base"] += size or 0


def _import_parallel(paths, override, how: _Reading, writer: _Writer, summary, report, state, jobs: int):
    import multiprocessing  # (here: one job does without it, and it is slow to import)

    methods = multiprocessing.get_all_start_methods()
    ctx = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
    files: list = []
    pool = ctx.Pool(jobs, initializer=_worker_init)
    try:
        pending: deque = deque()
        tasks = _tasks(paths, override, how, summary, files, report, state)
        window = jobs * 3
        current = None
        exhausted = False
        while True:
            while not exhausted and len(pending) < window:
                task = next(tasks, None)
                if task is None:
                    exhausted = True
                    break
                pending.append((task[4], task[5], pool.apply_async(_work, (task,))))
            if not pending:
                break
            index, last, result = pending.popleft()
            _, records, problems = result.get()
            writer.interrupt.check()
            if index != current:
                if writer.file is not None:
                    writer.end_file()
                name, fmt, _ = files[index]
                writer.begin_file(name, fmt)
                current = index
            if records is None:
                writer.file.error = "; ".join(problems)
            else:
                for rec in records:
                    writer.store(rec)
            if last:
                writer.end_file(files[index][2])
                current = None
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()
