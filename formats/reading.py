"""The reading pipeline: bytes -> text -> format -> games, the same for every entry point.

``daikifu validate``, ``convert`` and ``import`` (its worker processes too) and the web import page
all read records through :func:`read_record`, so the same bytes give the same games and tags
everywhere.

>>> games = list(read_record(b'position startpos moves 7g7f 3c3d', name="line.usi"))
>>> games[0].headers["Variant"], len(games[0].mainline_moves())
('Shogi', 2)

Decoding (:func:`decode_record`), one policy for every format:

1. a byte-order mark decides (UTF-8, UTF-16);
2. else an encoding the record declares (``#KIF version=2.0 encoding=UTF-8``, ``#KI2 ...``, CSA's
   ``'encoding=Shift_JIS`` or ``'CSA encoding=...``) is used *if the bytes are valid in it*: several
   real files declare UTF-8 and are Shift_JIS;
3. else UTF-8 if the bytes are valid UTF-8;
4. else, for the Japanese formats (KIF, KI2, CSA; and for bytes whose format is not known yet),
   cp932 (Microsoft's Shift_JIS), or EUC-JP when the bytes are valid EUC-JP and read as cp932
   they would hold half-width katakana (the way EUC-JP kanji look in cp932);
5. else the candidate with the fewest undecodable bytes, each replaced by U+FFFD.

Undecodable bytes never cost a game: every line that holds a U+FFFD gets a *warning* naming the
line (:data:`REPLACED_MESSAGE`), in every format, and the game is kept.

Detection (:func:`detect_format`) is by content; a file name's extension only breaks a tie (a KIF
or KI2 file with headers and no moves looks the same).  ``fmt=`` overrides it.  Input that is no
record in any format raises :class:`NotARecordError`: "FILE: not a record in a format daikifu reads
(LSN, KIF, KI2, CSA, JKF, USI)".

Formats are registered in :data:`FORMATS` (:func:`register_format`): a name, a detector, a reader
that yields games (visitor-based where the format's module offers visitors), and a writer.
"""

from __future__ import annotations

import codecs
import io
import json
import os
from importlib import import_module
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable, Iterator

from .decoding import Decoded, decode_record
from .detection import (FSY_KIND, control_character, looks_like_csa, looks_like_csg, looks_like_fsy, looks_like_jkf,
                        looks_like_ndjson, looks_like_tnj, looks_like_usi)

if TYPE_CHECKING:  # the Game tree (and the rules core) is imported where a game is made: the
    from .game import Game, GameError  # commands' --help lists the formats without it

__all__ = ["RecordFormat", "FORMATS", "register_format", "NotARecordError", "Decoded", "decode_record",
           "detect_format", "read_record", "read_text", "write_record", "write_records", "format_names",
           "REPLACED_MESSAGE", "UnsupportedConversion", "record_text", "finish_game", "unreadable_game",
           "read_stream", "write_stream", "setup_dir_of", "declared_variant", "check_declared_variant",
           "check_start", "ALLOW_TAG"]

REPLACED_MESSAGE = "undecodable bytes replaced by U+FFFD"
HEAD_CHARS = 65536  # text looked at to recognise a format


class NotARecordError(ValueError):
    """Input that is no record in any format daikifu reads; ``reason`` says so, or says what the
    input is when it is a known kind of file that holds no game (a Chu Shogi server setup)."""

    def __init__(self, name: str | None, reason: str | None = None):
        self.name = name or "input"
        self.reason = reason or f"not a record in a format daikifu reads ({format_names()})"
        super().__init__(f"{self.name}: {self.reason}")


EMPTY = "the file is empty"
BLANK = "the file holds only white space"


def _not_a_record(text: str, name: str | None) -> NotARecordError:
    """The error for a text no format reads, saying what it is when it is empty, blank or a
    setup file."""
    if not text:
        return NotARecordError(name, EMPTY)
    if not text.lstrip("\ufeff").strip():
        return NotARecordError(name, BLANK)
    if looks_like_fsy(text[:HEAD_CHARS]):
        return NotARecordError(name, FSY_KIND)
    return NotARecordError(name)


class UnsupportedConversion(ValueError):
    """A game that a format cannot hold (a variant CSA cannot write, several games in a KIF file)."""


@dataclass(frozen=True)
class RecordFormat:
    """One record format: how to recognise, read and write it.

    ``detect(head)`` says whether the first :data:`HEAD_CHARS` characters of a text look like the
    format; ``read(text, file=, variant=, lenient=, variants=)`` yields the games (and takes ``limits=``, a
    :class:`~daikifu.formats.limits.ReadLimits`, when ``limited``, and ``visitor=``, a
    :class:`~daikifu.formats.visitor.Visitor`, when ``visitors``); ``write(game, encoding)``
    returns one game's bytes.  ``japanese``: the format's files may be cp932/EUC-JP.  ``several``:
    a file may hold several games: ``frame`` is what a file of them has before the first game,
    between two and after the last (a file is written one game at a time, whatever their number).
    ``listed``: named in the "not a record" message; ``dialects``: other programs' forms of the
    format its reader reads too (named there after it).
    """

    name: str
    title: str
    detect: Callable[[str], bool]
    read: Callable[..., Iterable[Game]]
    write: Callable[..., bytes] | None = None
    extensions: tuple = ()
    japanese: bool = False
    several: bool = False
    frame: tuple = (b"", b"", b"")  # (before the first game, between two games, after the last)
    encodings: tuple = ("utf-8",)
    listed: bool = True
    dialects: str = ""
    variants: Callable[[object], bool] | None = None  # which variants the writer can write (None: all)
    limited: bool = False  # the reader takes limits= (ReadLimits)
    setups: bool = False  # the reader takes setup= and setup_dir= (a record that names a setup file)
    visitors: bool = False  # the reader takes visitor= (a formats.visitor.Visitor: what to keep of each game)


FORMATS: dict[str, RecordFormat] = {}
_ORDER: list[str] = []  # detection order


def register_format(fmt: RecordFormat, before: str | None = None) -> None:
    """Add (or replace) a format; ``before`` puts its detector ahead of another format's."""
    FORMATS[fmt.name] = fmt
    if fmt.name in _ORDER:
        _ORDER.remove(fmt.name)
    _ORDER.insert(_ORDER.index(before) if before in _ORDER else len(_ORDER), fmt.name)


_LISTING = ("lsn", "kif", "ki2", "csa", "jkf", "usi")  # the order formats are named in messages


def format_names() -> str:
    """The formats named in the "not a record" message, from the registry (formats registered
    later come last), each with the dialects its reader reads."""
    names = sorted((n for n, f in FORMATS.items() if f.listed),
                   key=lambda n: _LISTING.index(n) if n in _LISTING else len(_LISTING))
    return ", ".join(FORMATS[n].title + (f" (also {FORMATS[n].dialects})" if FORMATS[n].dialects else "")
                     for n in names)


# --- detection -----------------------------------------------------------------------------------


def _extension(name: str | None) -> str:
    if not name:
        return ""
    base = os.path.basename(name).lower()
    if base.endswith(".txt") and base.count(".") > 1:  # game.kif.txt
        base = base[:-4]
    return os.path.splitext(base)[1].lstrip(".")


def detect_format(text: str, name: str | None = None) -> str | None:
    """The name of the format ``text`` is written in, or None; ``name`` (a file name) only breaks
    a tie between formats whose detectors both accept the text."""
    head = text[:HEAD_CHARS].lstrip("\ufeff")
    if "\0" in head[:4096]:
        return None
    ext = _extension(name)
    first = None
    for n in _ORDER:
        fmt = FORMATS[n]
        mine = bool(ext) and ext in fmt.extensions
        if first is not None and not mine:
            continue  # cannot change the answer: its detector (and its module) is not needed
        if fmt.detect(head):
            if mine:
                return n
            first = n
    return first


# --- reading -------------------------------------------------------------------------------------


CONTROL_EXPECTED = "printable text (no control character but tab and line ends)"


def finish_game(game: Game, file: str | None) -> Game:
    """The pipeline's part of every game: its start position checked against the variant's
    position rules (:func:`check_start`), a warning on each line with a U+FFFD, an error at the
    first control character of its text or its tags (a NUL ...: no writer could write the game
    back), and a line on game-level errors (a missing Variant tag ...), the game's first line."""
    from .game import CONTROL_CHARACTER, GameError
    check_start(game)
    finish_errors(game.errors, game.source, game.source_line or 1, file, game.number)
    if not any(e.code == CONTROL_CHARACTER for e in game.errors):
        # the text had none; a JSON record holds them escaped (its reader looks at the comments)
        where = game.control_character(tags_only=True)
        if where is not None:
            game.errors.append(GameError(f"{where}: not kept", file=file, game=game.number,
                                         line=game.source_line or 1, expected=CONTROL_EXPECTED,
                                         code=CONTROL_CHARACTER))
    return game


ALLOW_TAG = "AllowImpossible"  # a game's tag relaxing the position rules: yes, or rule names


def check_start(game: Game) -> None:
    """A set-up start position (any reader's: SFEN and FEN tags, KIF and CSA diagrams, JKF's
    initial, USI's sfen) checked against the variant's position rules
    (:mod:`~daikifu.replay.legality`): an error first in the game's errors when it breaks one,
    naming each rule; a warning naming those the variant file or the game's ``AllowImpossible``
    tag (``yes``, or rule names separated by commas) relaxes."""
    if not game.start or getattr(game, "variant_missing", False) or not game.variant.playable:
        return
    from daikifu.replay.legality import POSITION_RULES, position_problems
    from .game import GameError
    tag = (game.headers.get(ALLOW_TAG) or "").strip()
    allow = None
    if tag.lower() in ("yes", "true", "1", "all"):
        allow = True
    elif tag:
        allow = [name.strip() for name in tag.replace(" ", ",").split(",") if name.strip()]
        unknown = [name for name in allow if name not in POSITION_RULES]
        if unknown:
            game.errors.append(GameError(f"{ALLOW_TAG} tag: unknown position rule {unknown[0]!r}",
                                         expected="yes, or some of " + ", ".join(POSITION_RULES), kind="warning"))
            allow = [name for name in allow if name in POSITION_RULES]
    try:
        problems = position_problems(game.rules, game.start, allow)
    except ValueError:  # a start the reader kept but the rules refuse: reported by the reader
        return
    refused = [p for p in problems if not p.relaxed and p.kind != "syntax"]
    if refused:
        game.errors.insert(0, GameError("impossible start position: " + "; ".join(str(p) for p in refused),
                                        expected=f"a position a game can reach (or an {ALLOW_TAG} tag)"))
    relaxed = [p for p in problems if p.relaxed]
    if relaxed:
        game.errors.append(GameError("start position breaks rules allowed for it: " + "; ".join(
            f"{p.kind}: {p.message}" for p in relaxed), kind="warning"))


def finish_errors(errors: list, source: str | None, start: int, file: str | None, number: int | None) -> list:
    """:func:`finish_game` for the ``errors`` of a game whose text ``source`` starts at line
    ``start`` (for a reader that gives its game to a visitor, which builds no game)."""
    from .game import CONTROL_CHARACTER, GameError
    found = control_character(source) if source else None
    if found is not None:
        n, column, char = found
        errors.append(GameError(f"control character U+{ord(char):04X} in the record: not kept", file=file,
                                game=number, line=start + n - 1, column=column, expected=CONTROL_EXPECTED,
                                code=CONTROL_CHARACTER))
    if "\ufffd" in (source or ""):
        for n, line in enumerate(source.splitlines(), start=start):
            if "\ufffd" in line:
                errors.append(GameError(REPLACED_MESSAGE, file=file, game=number, line=n,
                                        column=line.index("\ufffd") + 1, kind="warning"))
    for e in errors:
        if e.line is None:
            e.line = start
        if e.file is None:
            e.file = file
        if e.game is None:
            e.game = number
    return errors


def unreadable_game(text: str, error: GameError, file: str | None) -> Game:
    """An invalid game holding a whole text its format's reader could not read at all."""
    from .game import Game
    game = Game("shogi")
    error.file = error.file or file
    game.errors = [error]
    game.source = text
    game.number = 1
    game.source_line = 1
    game.variant_missing = True
    return game


def read_text(text: str, *, fmt: str | None = None, name: str | None = None, variant: str | None = None,
              lenient: bool = False, limits=None, variants=None, setup=None, setup_dir: str | None = None,
              visitor=None) -> Iterator[Game]:
    """The games of a decoded text (see :func:`read_record`)."""
    if fmt is None:
        fmt = detect_format(text, name)
        if fmt is None:
            raise _not_a_record(text, name)
    if fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")
    if text.startswith("\ufeff"):
        text = text[1:]
    extra = {"limits": limits} if limits is not None and FORMATS[fmt].limited else {}
    if FORMATS[fmt].setups:
        extra.update(setup=setup, setup_dir=setup_dir)
    if visitor is not None and FORMATS[fmt].visitors:
        extra["visitor"] = visitor
    for game in FORMATS[fmt].read(text, file=name, variant=variant, lenient=lenient, variants=variants, **extra):
        game = finish_game(game, name)
        if variant is not None:
            check_declared_variant(game, fmt, name)
        yield game


def declared_variant(game: Game, fmt: str) -> tuple[str, str, int] | None:
    """What a record says of its own variant where the reader was told another: (the words of the
    record, the variant they mean, where they are in the game's text or -1), or None when it says
    nothing.  Each reader reports it in the game's tags: KIF, KI2 and JKF the handicap (手合割,
    JKF's preset) as ``Handicap``, a name of shogi's; CSA and JKF are shogi by their format; a KIF
    or KI2 board diagram with shogi's nine files says shogi too.  (LSN and USI name their variant
    in the record, which the reader follows: the variant given is for records that name none.)"""
    source = game.source or ""
    handicap = game.headers.get("Handicap")
    if handicap:
        if handicap in _kakinoki().HANDICAPS or handicap.endswith("落ち"):
            return f"its header says 手合割：{handicap}", "shogi", source.find("手合割")
    if fmt in ("csa", "jkf"):
        return f"it is a {FORMATS[fmt].title} record", "shogi", -1
    found = _KIF_9X9_FILES.search(source) if fmt in ("kif", "ki2") else None
    if found is not None:
        return "its board diagram is 9x9", "shogi", found.start()
    return None


_KIF_9X9_FILES = re.compile(r"^\s*９\s*８\s*７\s*６\s*５\s*４\s*３\s*２\s*１\s*$", re.M)  # a diagram's file numbers


def check_declared_variant(game: Game, fmt: str, file: str | None = None) -> None:
    """Put first among the game's errors the clash between the variant it was read as (the one the
    caller asked for: ``--variant``) and the one its own header names (:func:`declared_variant`):
    an error when the game could not be read, a warning when it could.  A record of shogi read as
    a variant on shogi's board with shogi's pieces is no clash."""
    from .csa import can_write_csa
    from .game import VARIANT_MISMATCH, GameError
    said = declared_variant(game, fmt)
    if said is None or game.variant_missing or can_write_csa(game.variant):
        return
    words, slug, where = said
    line = (game.source_line or 1) + (game.source.count("\n", 0, where) if where >= 0 else 0)
    game.errors.insert(0, GameError(
        f"the record is {slug} ({words}), but it was read as {game.variant.name}, the variant asked for",
        file=file, game=game.number, line=line, kind="warning" if game.valid else "error",
        expected=f"the variant {slug}, or no variant given", code=VARIANT_MISMATCH))


def record_text(data: bytes | str, *, name: str | None = None, fmt: str | None = None) -> tuple[str, str]:
    """(text, format) of a record: the bytes decoded by the policy above (UTF-8 formats are not
    read as cp932 or EUC-JP) and the format detected (or ``fmt``).  Raises
    :class:`NotARecordError` when no format fits."""
    if fmt is not None and fmt not in FORMATS:
        raise ValueError(f"unknown format {fmt!r}: expected one of {', '.join(FORMATS)}")
    decoded = decode_record(data, japanese=fmt is None or FORMATS[fmt].japanese)
    found = fmt or detect_format(decoded.text, name)
    if found is None:
        raise _not_a_record(decoded.text, name)
    if not FORMATS[found].japanese and decoded.encoding in ("cp932", "euc_jp"):
        decoded = decode_record(data, japanese=False)  # UTF-8 formats: bad bytes are bad bytes
    text = decoded.text
    return (text[1:] if text.startswith("\ufeff") else text), found


def read_record(data: bytes | str, *, name: str | None = None, fmt: str | None = None,
                variant: str | None = None, lenient: bool = False, limits=None,
                variants=None, setup=None, setup_dir: str | None = None, visitor=None) -> Iterator[Game]:
    """Every game of a record (bytes as read from a file, or text), one at a time.

    ``name`` names the source in errors and is the extension hint; ``fmt`` names the format
    (default: detected); ``variant`` is the variant of records that name none (default shogi for
    the Japanese formats and USI); ``lenient`` keeps the moves before a bad one (the game is
    flagged instead of invalid); ``limits`` (:class:`~daikifu.formats.limits.ReadLimits`) bounds
    what the readers that take limits accept; ``variants``
    (:class:`~daikifu.replay.VariantRegistry`) is where variant names are looked up (default: the
    bundled variants and those of ``DAIKIFU_VARIANTS``).  For records that start from a setup file
    (the Chu Shogi server's ``.csg``): ``setup`` (:class:`~daikifu.formats.csg.SetupFile`) overrides
    the setup the record names, and ``setup_dir`` is the folder where a setup file the record names
    is looked for (None: nowhere; see :func:`setup_dir_of`).  ``visitor`` (a
    :class:`~daikifu.formats.visitor.Visitor` class or instance that returns a :class:`Game` from
    ``end_game``, such as :class:`~daikifu.formats.visitor.MainLineBuilder`) is what the formats whose
    readers take visitors (all but JSON) read each game with (KIF and KI2: a game builder with the
    KIF builder's part too, see :func:`daikifu.formats.kakinoki.kif_visitor`); JSON builds the whole game.  Raises
    :class:`NotARecordError` when no format fits.
    """
    text, found = record_text(data, name=name, fmt=fmt)
    return read_text(text, fmt=found, name=name, variant=variant, lenient=lenient, limits=limits, variants=variants,
                     setup=setup, setup_dir=setup_dir, visitor=visitor)


def setup_dir_of(path: str | None) -> str | None:
    """The folder of a record file, where a setup file it names is looked for (None for standard
    input): the command-line entry points pass it; the web import page does not."""
    if not path or path in ("-", "<stdin>"):
        return None
    return os.path.dirname(path) or "."


HEAD_BYTES = 1 << 16  # bytes looked at to recognise a streamed record's format
READ_BUFFER = 1 << 13  # bytes read at a time from a streamed record (a game's text is held apart)


class Prepended(io.RawIOBase):
    """A binary stream that gives ``head`` (bytes already read from ``stream``) and then the rest
    of ``stream``; ``consumed`` counts the bytes given."""

    def __init__(self, head: bytes, stream):
        self.head = memoryview(head)
        self.stream = stream
        self.consumed = 0

    def readable(self):
        return True

    def readinto(self, buf):
        if self.head:
            n = min(len(buf), len(self.head))
            buf[:n] = self.head[:n]
            # an empty view would still hold the head's bytes: let them go once given
            self.head = self.head[n:] if n < len(self.head) else None
        else:
            data = self.stream.read(len(buf))
            n = len(data)
            buf[:n] = data
        self.consumed += n
        return n


def whole_lines(head: bytes) -> bytes:
    """The first bytes of a file cut after their last line end (when there is one), so that no
    character cut in two misleads the decoder or the format detection."""
    if len(head) >= HEAD_BYTES and b"\n" in head:
        return head[:head.rfind(b"\n") + 1]
    return head


def read_stream(stream, *, name: str | None = None, fmt: str | None = None, variant: str | None = None,
                lenient: bool = False, limits=None, variants=None, setup=None,
                setup_dir: str | None = None, visitor=None) -> Iterator[Game]:
    """Every game of a record read from a binary ``stream`` (an open file, standard input), one
    at a time, as :func:`read_record` reads them from bytes.

    An LSN file of any size is read as it streams, so memory is bounded by its largest game, not
    by the file (a UTF-8 format: undecodable bytes become U+FFFD, with a warning on their line, as
    :func:`read_record` does); the other formats, which hold one game or a few to a file, are read
    whole.  The format is found from the first :data:`HEAD_BYTES` bytes.  ``setup``,
    ``setup_dir`` and ``visitor``: as for :func:`read_record`.
    """
    head = stream.read(HEAD_BYTES)
    if len(head) < HEAD_BYTES or head.startswith((codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)):
        held, head = [head], None  # (so that this frame holds neither the head nor the whole)
        yield from read_record(held.pop() + stream.read(), name=name, fmt=fmt, variant=variant, lenient=lenient,
                               limits=limits, variants=variants, setup=setup, setup_dir=setup_dir,
                               visitor=visitor)
        return
    found = record_text(whole_lines(head), name=name, fmt=fmt)[1]
    if found != "lsn":
        held, head = [head], None
        yield from read_record(held.pop() + stream.read(), name=name, fmt=found, variant=variant, lenient=lenient,
                               limits=limits, variants=variants, setup=setup, setup_dir=setup_dir,
                               visitor=visitor)
        return
    # utf-8-sig: a byte-order mark is dropped, as decode_record drops it
    text = io.TextIOWrapper(io.BufferedReader(Prepended(head, stream), READ_BUFFER), encoding="utf-8-sig",
                            errors="replace", newline="")
    del head  # given through the reader, and let go once read
    for game in FORMATS["lsn"].read(text, file=name, variant=variant, lenient=lenient, variants=variants,
                                    visitor=visitor, **({"limits": limits} if limits is not None else {})):
        yield finish_game(game, name)


# --- writing -------------------------------------------------------------------------------------


def _writer(fmt: str) -> RecordFormat:
    f = FORMATS.get(fmt)
    if f is None or f.write is None:
        writable = ", ".join(n for n, x in FORMATS.items() if x.write is not None)
        raise ValueError(f"cannot write {fmt!r}: the formats written are {writable}")
    return f


def write_record(game: Game, fmt: str, encoding: str | None = None) -> bytes:
    """One game in format ``fmt`` (``encoding``: utf-8 by default; cp932 for the Japanese formats)."""
    f = _writer(fmt)
    encoding = encoding or f.encodings[0]
    if encoding not in f.encodings:
        raise UnsupportedConversion(f"{f.title} is written in {' or '.join(f.encodings)}, not {encoding}")
    if f.variants is not None and not f.variants(game.variant):
        raise UnsupportedConversion(f"{f.title} cannot hold a game of {game.variant.name}")
    if game.variant_missing and fmt != "lsn":  # (LSN writes the Variant tag as the record gave it)
        named = game.headers.get("Variant")
        raise UnsupportedConversion(f"the game's variant {named!r} is not one daikifu knows: it would be written "
                                    f"as {game.variant.name}" if named else
                                    f"the game names no variant: it would be written as {game.variant.name}")
    where = game.control_character()
    if where is not None:  # no format holds one, and a reader would refuse the file
        raise UnsupportedConversion(f"{where}: the game is not written")
    return f.write(game, encoding)


def write_records(games: list, fmt: str, encoding: str | None = None) -> bytes:
    """Several games in one file of format ``fmt`` (:class:`UnsupportedConversion` if it holds one)."""
    out = io.BytesIO()
    write_stream(games, fmt, out, encoding)
    return out.getvalue()


def write_stream(games: Iterable[Game], fmt: str, out, encoding: str | None = None) -> int:
    """Write ``games`` one at a time to the binary stream ``out`` as one file of format ``fmt``
    (so any number of games costs the memory of one); returns how many were written.  Raises
    :class:`UnsupportedConversion` for a second game when a file of ``fmt`` holds one, or for a
    game the format cannot hold (what was written before stays written)."""
    f = _writer(fmt)
    before, between, after = f.frame
    count = 0
    for game in games:
        if count and not f.several:
            raise UnsupportedConversion(f"a {f.title} file holds one game, not several")
        data = write_record(game, fmt, encoding)
        if not count and data.endswith(b"\r\n"):  # (cp932 KIF, CSA: the frame ends its lines as the games do)
            before, between, after = (part.replace(b"\n", b"\r\n") for part in f.frame)
        out.write((between if count else before) + data)
        count += 1
    if not count:
        out.write(before)
    out.write(after)
    return count


# --- the formats ---------------------------------------------------------------------------------


def _first_line(head: str, skip=("%", ";")) -> str:
    for line in head.splitlines():
        s = line.strip()
        if s and not s.startswith(skip):
            return s
    return ""


_LSN_TAG = re.compile(r'\[\s*[A-Za-z0-9_]+\s+"')


def _detect_lsn(head: str) -> bool:
    return _LSN_TAG.match(_first_line(head)) is not None


def _read_lsn(text, *, file, variant, lenient, variants=None, limits=None, visitor=None):
    from .lsn import read_games
    return read_games(text, visitor=visitor, file=file, lenient=lenient, default_variant=variant, limits=limits,
                      variants=variants)


def _write_lsn(game, encoding):
    from .lsn import write_game
    return write_game(game).encode(encoding)


def _kakinoki():
    """The KIF and KI2 package, imported when a record is first looked at as KIF or KI2 (this
    module imports no reader: a command's ``--help`` lists the formats without them)."""
    return import_module("daikifu.formats.kakinoki")


def _detect_kif(head: str) -> bool:
    kakinoki = _kakinoki()
    return kakinoki.looks_like_kif(head) and kakinoki.move_lines(head) != "ki2"


def _read_kakinoki(read):
    """A reader of the KIF family (``read`` is :func:`read_kif` or :func:`read_ki2`'s name) for the
    registry: a record that is not one gives an unreadable game, as the other formats do."""
    def one(text, file, variant, lenient, variants, visitor):
        kakinoki = _kakinoki()
        try:
            return getattr(kakinoki, read)(text, source=file, variant=variant, lenient=lenient, variants=variants,
                                           visitor=kakinoki.kif_visitor(visitor))
        except kakinoki.KifError as exc:
            return [unreadable_game(text, exc.error, file)]

    def call(text, *, file, variant, lenient, variants=None, visitor=None):
        if read != "read_kif":
            return one(text, file, variant, lenient, variants, visitor)
        from .lishogi import split_kif_stream
        parts = split_kif_stream(text)
        if len(parts) == 1:
            return one(text, file, variant, lenient, variants, visitor)
        return _kif_stream(parts, one, file, variant, lenient, variants, visitor)
    return call


def _kif_stream(parts, one, file, variant, lenient, variants, visitor):
    """The games of a KIF stream (lishogi's bulk export), one record at a time: each game is
    numbered in the stream and its errors name their line in the whole text."""
    from .game import Game
    for number, (first, text) in enumerate(parts, 1):
        for game in one(text, file, variant, lenient, variants, visitor):
            if isinstance(game, Game):  # (a visitor's result is its own: its lines are the record's)
                shift = first - 1
                game.number = number
                game.source_line = (game.source_line or 1) + shift
                for e in game.errors:
                    e.game = number
                    if e.line is not None:
                        e.line += shift
            yield game


def _write_kakinoki(write):
    def call(game, encoding):
        kakinoki = _kakinoki()
        try:
            return getattr(kakinoki, write)(game, encoding=encoding)
        except kakinoki.KifError as exc:
            raise UnsupportedConversion(str(exc)) from None
    return call


def _detect_json(head: str) -> bool:
    s = head.lstrip()
    return s[:1] in "[{" and '"variant"' in s[:4096] and '"moves"' in s


def _read_json(text, *, file, variant, lenient, variants=None, limits=None):
    from .game import CONTROL_CHARACTER, TOO_DEEP, GameError
    from .jsonexport import game_from_dict
    from .limits import DEFAULT_LIMITS, json_depth
    limits = limits or DEFAULT_LIMITS
    deep = json_depth(text, limits.max_json_depth)
    if deep is not None:  # measured first: the parser and the game builder recurse per level
        return [unreadable_game(text, GameError(
            f"JSON nested deeper than {limits.max_json_depth} levels (variations inside variations deeper "
            f"than {limits.max_depth})", line=deep[0], column=deep[1],
            expected="fewer nested variations (--limit depth=N raises the limit)", code=TOO_DEEP), file)]
    try:
        data = json.loads(text)
    except ValueError as exc:
        line = getattr(exc, "lineno", None)
        return [unreadable_game(text, GameError(f"not valid JSON: {exc.msg if hasattr(exc, 'msg') else exc}",
                                                line=line, column=getattr(exc, "colno", None)), file)]
    items = data if isinstance(data, list) else [data]
    out = []
    for n, item in enumerate(items, 1):
        try:
            game = game_from_dict(item, variants)
        except (ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:
            game = unreadable_game(text, GameError(f"game {n}: {exc}"), file)
        game.number = n
        game.source = text if len(items) == 1 else json.dumps(item, ensure_ascii=False)
        where = game.control_character()  # escaped in JSON, so not seen in its text
        if where is not None:
            game.errors.append(GameError(f"{where}: not kept", expected=CONTROL_EXPECTED, code=CONTROL_CHARACTER))
        out.append(game)
    return out


def _write_json(game, encoding):
    from .jsonexport import game_to_dict
    return json.dumps(game_to_dict(game), indent=2, ensure_ascii=False).encode(encoding)


register_format(RecordFormat("json", "daikifu JSON", _detect_json, _read_json, _write_json, ("json",),
                             several=True, frame=(b"[\n", b",\n", b"\n]\n"), limited=True))
register_format(RecordFormat("lsn", "LSN", _detect_lsn, _read_lsn, _write_lsn, ("lsn", "pgn"),
                             dialects="the PGN of ChuShogiLite and Jocly", several=True, frame=(b"", b"\n", b""), limited=True, visitors=True))
# several games to a file as lishogi's bulk exports write them: each game followed by two blank lines
register_format(RecordFormat("kif", "KIF", _detect_kif, _read_kakinoki("read_kif"), _write_kakinoki("write_kif"),
                             ("kif", "kifu"), japanese=True, several=True, frame=(b"", b"\n\n", b""),
                             encodings=("utf-8", "cp932"), visitors=True))


def _lazy(module: str, name: str):
    """A function of a format module, imported when first called (reading.py imports no reader)."""
    def call(*args, **kwargs):
        return getattr(import_module(f"daikifu.formats.{module}"), name)(*args, **kwargs)
    return call


def _shogi_board(variant) -> bool:
    return _lazy("csa", "can_write_csa")(variant)


register_format(RecordFormat("csa", "CSA", looks_like_csa, _lazy("csa", "read_csa"),
                             _lazy("csa", "write_csa"), ("csa",), japanese=True, several=True, frame=(b"", b"/\n", b""),
                             encodings=("utf-8", "cp932"), variants=_shogi_board, visitors=True), before="kif")
register_format(RecordFormat("usi", "USI", looks_like_usi, _lazy("usi", "read_usi"),
                             _lazy("usi", "write_usi"), ("usi", "sfen"), several=True, visitors=True),
                before="kif")
register_format(RecordFormat("jkf", "JKF", looks_like_jkf, _lazy("jkf", "read_jkf"),
                             _lazy("jkf", "write_jkf"), ("jkf",), variants=_shogi_board, visitors=True,
                             limited=True),
                before="lsn")


register_format(RecordFormat("ki2", "KI2", _lazy("kakinoki", "looks_like_ki2"), _read_kakinoki("read_ki2"),
                             _write_kakinoki("write_ki2"), ("ki2", "ki2u"), japanese=True, encodings=("utf-8", "cp932"),
                             variants=_shogi_board, visitors=True))
# read only (a format of one historical archive)
register_format(RecordFormat("csg", "Chu Shogi server (.csg)", looks_like_csg, _lazy("csg", "read_csg"),
                             None, ("csg",), setups=True, visitors=True), before="usi")
# read only: lishogi's NDJSON export, one game a line (its one-line objects come before daikifu JSON's)
register_format(RecordFormat("ndjson", "lishogi NDJSON", looks_like_ndjson,
                             _lazy("lishogi", "read_ndjson"), None, ("ndjson",), several=True, visitors=True),
                before="json")
# read only: the Tenjiku Shogi program's records; asked last, as its move lines are the loosest shape
register_format(RecordFormat("tnj", "Tenjiku Shogi program (.tnj)", looks_like_tnj, _lazy("tnj", "read_tnj"),
                             None, ("tnj",), visitors=True))


def expand_paths(paths: Iterable[str]) -> Iterator[tuple[str, bool]]:
    """(path, named) for every file of ``paths``, as ``validate`` and ``import`` read them:
    named files (and ``-``) as given, directories walked recursively (hidden files and
    directories left out), in sorted order; ``named`` is False for a file found in a directory
    (one that holds no record is skipped, not an error)."""
    for p in paths:
        if p == "-" or not os.path.isdir(p):
            yield p, True
            continue
        for root, dirs, files in os.walk(p):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for name in sorted(files):
                if not name.startswith("."):
                    yield os.path.join(root, name), False


def reader_failure(exc: Exception, fmt: str | None = None) -> str:
    """What is said of a file when its reader failed on it (a bug, or a limit the reader does
    not check, such as nesting deeper than Python's recursion), so that the failure costs that
    file only: ``validate``, ``import`` and the web import page go on with the next."""
    reader = f"the {FORMATS[fmt].title} reader" if fmt in FORMATS else "reading"
    return f"cannot read: {reader} failed on this file ({type(exc).__name__}: {str(exc)[:200]}); please report it"
