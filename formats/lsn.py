"""LSN, Large Shogi Notation: a PGN-shaped game-record format for the large shogi variants.

The format is specified in ``docs/notation.md``.  Reading is streaming and visitor-based, like
python-chess's PGN reader: :func:`read_games` yields one game at a time from a file of any size,
and :class:`Visitor` subclasses decide what to keep (:class:`GameBuilder` builds a full
:class:`~formats.game.Game`; :class:`HeadersOnly` skips the moves).

Every move is checked against the rules while reading.  In strict mode (the default) the first
illegal or ambiguous move ends the game and marks it invalid with a :class:`GameError` that names
the file, game number, line, column, ply and move text, says what was expected and suggests legal
moves close to what was written.  In lenient mode the valid prefix is kept and the game is
flagged (a warning and ``ImportStatus "truncated"``) instead; a bad variation is dropped
(``ImportStatus "variations-dropped"`` when the main line is complete).

A :class:`~formats.game.Game` built by :class:`GameBuilder` keeps in ``headers`` only the tags the
model does not hold elsewhere: ``Variant`` is the variant's display name (as for a game made with
``Game(variant)``), ``Result`` goes to ``game.result``, ``RuleSet`` to ``game.options``,
``SetUp``/``SFEN``/``FEN`` to ``game.start``, and roster tags whose value is ``?`` (unknown) are
left out, since the writer writes ``?`` for any that is missing.  Comments lose their surrounding
whitespace and their line ends are normalised to ``\\n`` (see :func:`normalize_comment`); so for
every game the API can build, ``read_game(write_game(g)) == g`` once comments are normalised, and
``write_game(read_game(text)) == text`` for every text the writer produced.
"""

from __future__ import annotations

import re
from urllib.parse import unquote_to_bytes
from typing import Final, IO, Iterable, Iterator

from daikifu.replay import Board, Move, VariantRegistry

from .dialects import find_dialect
from .evals import with_eval
from .longline import LongLine, long_line
from .limits import DEFAULT_LIMITS, ReadLimits, check_number
from .game import (IMPORT_STATUS, MOVE_AFTER_END, RESULTS, TRUNCATED, VARIATIONS_DROPPED, SEVEN_TAG_ROSTER, Game, GameError, GameNode, after_end, format_ruleset,
                   parse_ruleset)
from .visitor import (COLOUR_TAGS, MODEL_TAGS, ROSTER_UNKNOWN, GameBuilder, Visitor,
                      game_from_headers, join_comments, make_visitor)
from daikifu.replay.notation import NotationError, move_notation, parse_move, quick_move

__all__ = ["read_games", "read_game", "write_game",
           "write_games", "LSNError", "parse_ruleset", "format_ruleset", "normalize_comment"]

# A tag name is made of letters, digits and '_' of any script; '%' starts an escape ('%' and two
# hex digits, a byte of the name's UTF-8), so that any name can be written (docs/notation.md 5.2).
_TAG_START_RE = re.compile(r'\s*\[\s*([\w%]+)\s+"')
_TAG_HEAD_RE = re.compile(r'\[\s*([\w%]+)\s+"')
_TAG_TAIL_RE = re.compile(r'\s*\]\s*')
_PLAIN_TAG_NAME_RE = re.compile(r"\w+")
_TOKEN_RE: Final = re.compile(r"""
    \s*                                                       # whitespace before a token: skipped
    (?:
        (?P<comment>\{)                                       # its end is found by _find_close
      | (?P<line_comment>;[^\n]*)
      | (?P<escape>(?<![^\n])%[^\n]*)                         # PGN's escape: '%' in column 1
      | (?P<open>\()
      | (?P<close>\))
      | (?P<nag>\$\d+)
      | (?P<word>[^\s{}();]+)
      | (?P<other>\S)
    )""", re.X)
_TOKEN_SKIPPING_NUMBERS_RE: Final = re.compile(_TOKEN_RE.pattern.replace(
    r"\s*  ", r"(?:\s|\d+\.+(?=\s))*  ", 1), re.X)  # the same, move numbers skipped as white space
_OUTSIDE_SCAN_RE = re.compile(r"[{;]")  # outside a comment: a comment starts
_MOVE_NUMBER_RE: Final = re.compile(r"(\d+)\.+(.*)\Z", re.S)
_GLYPHS: Final = {"!": 1, "?": 2, "!!": 3, "??": 4, "!?": 5, "?!": 6}
_TRAILING_GLYPH_RE: Final = re.compile(r"(.*?[0-9+=])([!?]{1,2})\Z", re.S)
_TRAILING_NAGS_RE: Final = re.compile(r"(.*?)((?:\$\d+)+)\Z", re.S)
_MAX_MOVE: Final = 64  # longer words are not moves (and are not matched against the notation)


class LSNError(ValueError):
    """A record that cannot be read at all (not one bad move: those go into ``Game.errors``).

    The reader itself never raises it: every problem in the text becomes a :class:`GameError` of
    the game it occurs in."""


def _parse_move(board: Board, text: str):
    """The move that ``text`` names on ``board``: the common one-leg forms from a cached plan, anything
    else through the general reading (which also explains a move that cannot be played)."""
    return quick_move(board, text) or parse_move(board, text)


def normalize_comment(text: str) -> str:
    """A comment as the reader keeps it: line ends as ``\\n``, surrounding whitespace removed.

    A comment that is empty or only whitespace is no comment (``""``); the writer leaves it out.
    """
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text.strip()


# --- splitting a file into games ----------------------------------------------------------------


def _string_lines(text: str) -> Iterator[str]:
    """The lines of a string, each with its line end (as a text file gives them)."""
    start, end = 0, len(text)
    while start < end:
        stop = text.find("\n", start)
        stop = end if stop < 0 else stop + 1
        yield text[start:stop]
        start = stop


def _lines(source, limit: int) -> Iterator[str]:
    """The lines of ``source``; one longer than ``limit`` characters (without its line end) is read
    in pieces of at most that size and given as a :class:`LongLine`, so memory stays bounded."""
    readline = getattr(source, "readline", None)
    if readline is None:
        for line in source:
            yield long_line(len(line.rstrip("\r\n"))) if len(line) > limit and len(line.rstrip("\r\n")) > limit else line
        return
    while True:
        line = readline(limit + 1)
        if not line:
            return
        if len(line) > limit and not line.endswith("\n"):
            length = len(line)
            while not line.endswith("\n"):
                line = readline(limit + 1)
                if not line:
                    break
                length += len(line)
            yield long_line(length - line.endswith("\n"))
        else:
            yield line


def _find_close(text: str, char: str, start: int) -> int:
    """The index of the first ``char`` at or after ``start`` that no backslash escapes, or -1.

    A backslash escapes the character after it, so ``char`` ends the text when an even number of
    backslashes stands before it (linear: each backslash is counted once).

    >>> _find_close(r'a\\"b"c', '"', 0)
    4
    >>> _find_close(r'a\\\\"b', '"', 0)
    3
    """
    i = start
    while True:
        j = text.find(char, i)
        if j < 0:
            return -1
        k = j
        while k > start and text[k - 1] == "\\":
            k -= 1
        if (j - k) % 2 == 0:
            return j
        i = j + 1


def _scan_tags(line: str) -> tuple[list[tuple[str, str, int]], int]:
    """The tag pairs at the start of ``line``: ``([(name, raw value, column)], end)`` where ``end``
    is the index after the last pair and the whitespace after it.  The name is as written (see
    :func:`_read_tag_name`), the value still escaped."""
    pos = len(line) - len(line.lstrip())
    tags = []
    while True:
        head = _TAG_HEAD_RE.match(line, pos)
        if head is None:
            break
        close = _find_close(line, '"', head.end())
        tail = _TAG_TAIL_RE.match(line, close + 1) if close >= 0 else None
        if tail is None:
            break
        tags.append((head.group(1), line[head.end():close], pos + 1))
        pos = tail.end()
    return tags, pos


def _read_tag_name(name: str) -> str:
    """A tag name as written -> the name (``%`` escapes decoded, docs/notation.md 5.2)."""
    if "%" not in name:
        return name
    try:
        return unquote_to_bytes(name).decode("utf-8")
    except UnicodeDecodeError:
        return name  # not an escape this writer makes: keep the name as written


def _write_tag_name(name: str) -> str:
    """A tag name as LSN writes it: letters, digits and '_' as they are, anything else (and '%')
    as '%' and two hex digits per UTF-8 byte.

    >>> _write_tag_name("終了日時"), _write_tag_name("Time Control"), _write_tag_name("50%")
    ('終了日時', 'Time%20Control', '50%25')
    """
    if _PLAIN_TAG_NAME_RE.fullmatch(name):
        return name
    if not name:
        raise ValueError("a tag name cannot be empty")
    return "".join(c if _PLAIN_TAG_NAME_RE.fullmatch(c)
                   else "".join(f"%{b:02X}" for b in c.encode("utf-8")) for c in name)


def _split_games(lines: Iterable[str], max_record: int = DEFAULT_LIMITS.max_record
                 ) -> Iterator[tuple[int, int, list[list[str]], int | None]]:
    """Group lines into games: (first line number, character offset, [lines], overflow).  The
    lines come in a list of one, which the reader empties: a long game's lines are let go once
    its text is joined.

    A game starts with a tag line that follows movetext, or that repeats a tag name of the game
    being collected (so games without movetext are told apart).  Comments (which may span lines
    and contain anything, also '[') are followed, so nothing inside one starts a game.  Lines
    beyond ``max_record`` characters of one game are not kept: ``overflow`` is then the number of
    the line where the game went over the limit (else None).
    """
    current: list[str] = []
    start_line = 1
    offset = 0
    start_offset = 0
    size = 0
    overflow: int | None = None
    seen_moves = False
    tag_names: set = set()
    in_comment = False

    def keep(line, number):
        nonlocal size, overflow
        size += line.length if isinstance(line, LongLine) else len(line)
        if overflow is None and size > max_record:
            overflow = number
        if overflow is None:
            current.append(line)

    for number, line in enumerate(lines, start=1):
        length = line.length if isinstance(line, LongLine) else len(line)
        if number == 1 and line.startswith("\ufeff") and not isinstance(line, LongLine):
            line = line[1:]
        if isinstance(line, LongLine):
            pass  # movetext (or a tag line) that is not kept: an error of its game
        elif not in_comment:
            tag = _TAG_START_RE.match(line)
            if tag is not None:
                tags, end = _scan_tags(line)
                whole = bool(tags) and end == len(line)
                names = {name for name, _, _ in tags} if whole else {tag.group(1)}
                if current and (seen_moves or names & tag_names):
                    box, current = [current], []  # (not held here while the game is read)
                    yield start_line, start_offset, box, overflow
                    seen_moves, tag_names, size, overflow = False, set(), 0, None
                    start_line, start_offset = number, offset
                tag_names |= names
                keep(line, number)
                offset += length
                continue  # (a broken tag line is reported by the reader)
            if not current and not line.strip():
                start_line, start_offset = number + 1, offset + length
                offset += length
                continue
            if line.startswith("%") or line.lstrip().startswith(";"):  # escape or line comment
                keep(line, number)
                offset += length
                continue
        keep(line, number)
        offset += length
        if in_comment or isinstance(line, LongLine) or line.strip():
            seen_moves = True
        if not isinstance(line, LongLine):
            in_comment = _scan_comments(line, in_comment)
    if any(isinstance(x, LongLine) or x.strip() for x in current):
        yield start_line, start_offset, [current], overflow


def _scan_comments(line: str, in_comment: bool) -> bool:
    """Whether a ``{`` comment is still open at the end of ``line``."""
    if not in_comment and "{" not in line:
        return False  # (most lines: one search for a character costs less than the regex below)
    pos = 0
    while True:
        if in_comment:
            end = line.find("}", pos)
            if end > 0 and line[end - 1] == "\\":
                end = _find_close(line, "}", pos)
            if end < 0:
                return True
            in_comment = False
            pos = end + 1
        else:
            m = _OUTSIDE_SCAN_RE.search(line, pos)
            if m is None or m.group() == ";":
                return False
            in_comment = True
            pos = m.end()


# --- reading ------------------------------------------------------------------------------------


def read_games(source: IO[str] | str | Iterable[str], *, visitor: type[Visitor] | Visitor | None = None,
               lenient: bool = False, file: str | None = None,
               default_variant: str | None = None, limits: ReadLimits | None = None,
               until_ply: int | None = None, variants: VariantRegistry | None = None) -> Iterator:
    """Read every game of an LSN text, one at a time (constant memory in the number of games).

    ``source`` is an open text file, an iterable of lines, or a whole string.  Yields what the
    visitor's ``end_game`` returns (a :class:`Game` for the default :class:`GameBuilder`).
    ``file`` names the source in errors (default: the open file's name).  Problems in the text
    never raise: they become errors (or, in lenient mode, warnings) of the game concerned.
    ``limits`` bounds a game's size, a line, a comment and the nesting of variations (see
    :class:`~formats.limits.ReadLimits`): a game beyond one is an invalid game with a located
    error, found without reading the rest of it into memory; the other games are read as usual.
    ``until_ply`` stops reading each game's main line after that many plies (the rest of its
    movetext is not read; its result comes from the ``Result`` tag): for showing the start of a
    long game without replaying all of it.  ``variants`` is where the ``Variant`` tag's name is
    looked up (default: the bundled variants and those of ``DAIKIFU_VARIANTS``).
    """
    limits = limits or DEFAULT_LIMITS
    if isinstance(source, str):
        source = _string_lines(source)  # (a StringIO would hold the text again, 4 bytes a character)
    if file is None:
        name = getattr(source, "name", None)
        file = name if isinstance(name, str) else None
    games = _split_games(_lines(source, limits.max_line), limits.max_record)
    for n, part in enumerate(games, start=1):
        # what a game leaves (its tree, the reader's board) is not held here while the caller
        # works on it: the caller can let a long game go before it reads the next one
        yield _read_part(part, n, visitor, lenient, file, default_variant, limits, until_ply, variants)


def _read_part(part, n, visitor, lenient, file, default_variant, limits, until_ply, variants):
    line, offset, box, overflow = part
    text = "".join(box[0])
    v = make_visitor(visitor, default_variant, variants)
    try:
        return _read_one(box, text, line, offset, n, v, lenient, file, limits, overflow, until_ply)
    except Exception as exc:  # a bug must cost this game only, never the rest of the file
        return _failed_game(visitor, default_variant, text, line, offset, n, file, exc, variants)


def _failed_game(visitor, default_variant, text, first_line, offset, number, file, exc, variants=None):
    """What the visitor makes of a game whose reading raised ``exc``: an invalid game whose error
    says so, at the game's first line."""
    v = make_visitor(visitor, default_variant, variants)
    v.begin_game(number, first_line)
    try:  # the tags, so that the game keeps its variant and names
        for raw in _string_lines(text):
            if _TAG_START_RE.match(raw):
                for name, value, _ in _scan_tags(raw)[0]:
                    v.visit_header(_read_tag_name(name), _unescape(value))
            elif raw.strip():
                break
    except Exception:  # the error below says what matters
        pass
    v.visit_error(GameError(f"internal error while reading this game: {type(exc).__name__}: {exc}"[:300],
                            file=file, game=number, line=first_line,
                            expected="a game this reader can read (please report this record)"))
    return v.end_game(text, offset)


def read_game(source, **kwargs):
    """The first game of an LSN text, or None."""
    return next(read_games(source, **kwargs), None)


def _read_one(box, text, first_line, offset, number, visitor, lenient, file, limits, overflow, until_ply=None):
    """Read one game: ``box`` holds its lines (emptied here, so that they are let go once the tags
    are read: the movetext is read in ``text``, the lines joined)."""
    lines = box.pop()
    visitor.begin_game(number, first_line)
    headers = []
    places: dict[str, tuple[int, int]] = {}  # tag name -> (line, column) of its first occurrence
    tag_errors = []
    fatal = []  # beyond a limit: the game is not read further, in lenient mode too
    body_start_line = first_line
    # the movetext is the text from the first line after the tags: (where that line starts, where
    # its movetext starts: after the tags when it follows them on the same line)
    body_at = (len(text), len(text))
    in_tags = True
    line_end = 0
    for line_no, raw in enumerate(lines, start=first_line):
        line_start = line_end
        line_end += len(raw)
        if isinstance(raw, LongLine):
            fatal.append((f"a line of {raw.length} characters, over the limit of {limits.max_line}",
                          line_no, limits.max_line + 1))
            continue
        if in_tags:
            if not raw.strip() or raw.startswith("%") or raw.lstrip().startswith(";"):
                continue
            if _TAG_START_RE.match(raw):
                tags, pos = _scan_tags(raw)
                for name, value, column in tags:
                    name = _read_tag_name(name)
                    headers.append((name, _unescape(value)))
                    places.setdefault(COLOUR_TAGS.get(name, name), (line_no, column))
                if pos < len(raw) and raw[pos] != ";":  # (a ';' comment after the tags is dropped)
                    if raw[pos] == "[":
                        tag_errors.append((f"malformed tag pair {raw[pos:pos + 40].rstrip()!r}", line_no, pos + 1))
                    else:  # movetext after the tags on the same line: keep its columns
                        in_tags = False
                        body_start_line = line_no
                        body_at = (line_start, line_start + pos)
                continue
            in_tags = False
            body_start_line = line_no
            body_at = (line_start, line_start)
    del lines  # (the caller keeps only the emptied box)
    if overflow is not None:
        fatal.append((f"the game is longer than the limit of {limits.max_record} characters",
                      overflow, 1))
    dialect = find_dialect(headers) if headers else None  # another program's PGN (formats/dialects.py)
    if dialect is not None:
        headers = dialect.tags(headers)
    for header in headers:
        visitor.visit_header(*header)
    if isinstance(visitor, GameBuilder):
        visitor.places = places
    game = visitor.end_headers()
    if game is Visitor.SKIP:
        return visitor.end_game(text, offset)
    if not isinstance(game, Game):  # a visitor that builds no game: replay on a game of our own
        errors: list[GameError] = []
        game = game_from_headers(headers, None, errors, places, first_line)
        for e in game.errors:
            visitor.visit_error(e)
        own = game
    else:
        own = None
    if own is None:
        game.source_file = file
    ctx = _Context(visitor, game, lenient, file, number, limits)
    ctx.until_ply = until_ply
    if dialect is not None:
        ctx.parse_move = dialect.parse_move
    for message, line, column in fatal:
        ctx.error(message, line, column, expected="a game within the reader's limits (--limit record=N or line=N raises them)",
                  ply=False, kind="error")
        ctx.stopped = True
    for message, line, column in tag_errors:
        ctx.error(message, line, column, expected='[Name "value"]', ply=False)
        if not lenient:
            ctx.stopped = True
    if not fatal:
        ctx.run(text, body_start_line, *body_at)
    else:
        ctx.claim_errors()
    _finish(game, ctx, headers, report=visitor.visit_error if own is not None else game.errors.append)
    return visitor.end_game(text, offset)


class _Context:
    """Replays movetext tokens through the rules core, feeding the visitor.

    ``board`` is the position of the line being read and ``moves`` the number of moves read in that
    line; a variation takes back the last move on the same board and ``stack`` remembers it.
    """

    def __init__(self, visitor, game, lenient, file, number, limits=DEFAULT_LIMITS):
        self.visitor = visitor
        self.limits = limits
        self.game = game
        self.lenient = lenient
        self.file = file
        self.number = number
        self.board: Board | None = None
        if game.valid:
            try:
                self.board = game.start_board()
            except (ValueError, KeyError, IndexError) as exc:  # rules that cannot be set up
                self.error(f"cannot set up the game: {exc}", None, None, ply=False, kind="error")
        self.moves = 0
        self.until_ply: int | None = None  # stop after this many main-line plies
        self.stack: list[tuple[int, Move]] = []  # (moves of the enclosing line, the move taken back)
        self.depth = 0  # open parentheses, also in skipped text
        self.skip_level: int | None = None  # depth of a variation being dropped (lenient mode)
        self.stopped = self.board is None
        self.truncated = False
        self.dropped = False
        self.result: str | None = None
        self.result_at: tuple[int | None, int | None] = (None, None)  # (line, column) of the result
        self.parse_move = _parse_move  # or a dialect's (formats/dialects.py) for other programs' PGN

    def error(self, message, line, column, move=None, expected=None, suggestions=(), ply=True, kind=None, code=None):
        err = GameError(message, file=self.file, game=self.number, line=line, column=column,
                        ply=self.board.ply + 1 if ply and self.board is not None else None,
                        move=move, expected=expected, suggestions=list(suggestions),
                        kind=kind or ("warning" if self.lenient else "error"), code=code)
        self.visitor.visit_error(err)
        return err

    def stop(self):
        """The rest of the movetext is not read (the game is invalid, or truncated if lenient)."""
        self.stopped = True
        self.truncated = True

    @property
    def active(self) -> bool:
        return not self.stopped and self.skip_level is None

    def claim_errors(self):
        """Errors found before the movetext (from the tags) name this file and game."""
        for e in self.game.errors:
            e.file = e.file or self.file
            e.game = e.game or self.number

    def run(self, body: str, first_line: int, line_start: int = 0, pos: int = 0):
        """Read the movetext: one pass over ``body`` from ``pos`` (on line ``first_line``, which
        starts at ``line_start``), comments found with :func:`_find_close`, so time and memory
        are linear in its length.

        The rest of a line that holds only words (move texts and move numbers: none of the
        characters ``{ } ( ) ; $ %``, which begin or end the other tokens) is split at white
        space, which gives the tokens the token pattern gives there, more cheaply; any other
        line is read token by token.  Either way every word is read in one place (the loop over
        ``words``)."""
        self.claim_errors()
        line = first_line
        end = len(body)
        # a move number followed by white space is skipped with the white space before a token
        # (it does nothing) unless the reader stops at a ply, where numbers are counted (word())
        match = (_TOKEN_RE if self.until_ply is not None else _TOKEN_SKIPPING_NUMBERS_RE).match
        visit_move = self.visitor.visit_move
        board = self.board
        # a move text found by quick_move is played here; anything else, and every move while the
        # reader is not simply reading moves (stopped, skipping, after the result, a dialect's
        # notation), goes through _play or word()
        plain = (self.parse_move is _parse_move and not self.stopped and self.skip_level is None and self.result is None
                 and self.until_ply is None)
        blocked = -1  # the end of a line found to hold other tokens: read token by token up to there
        while pos < end:
            words: list[str] | tuple[str] | None = None
            if plain and pos > blocked:
                stop = body.find("\n", pos)
                if stop < 0:
                    stop = end
                rest = body[pos:stop]
                # (seven searches for one character each cost less than a regex's character set)
                if ("{" in rest or "}" in rest or "(" in rest or ")" in rest or ";" in rest or "$" in rest
                        or "%" in rest):
                    blocked = stop
                else:
                    words = rest.split()
                    # where the word before ends (its column is found from there); when the words
                    # are one space apart, as the writer writes them, the next begins after it
                    spaced = " ".join(words) == rest
                    at = pos - 1 if spaced else pos
                    # once every word is read: the next line (its line end counted, as the token
                    # pattern counts the line ends in the white space it skips)
                    after, next_line = (stop + 1, True) if stop < end else (end, False)
            if words is None:
                m = match(body, pos)
                if m is None:  # only whitespace is left
                    start = end
                else:
                    kind = m.lastgroup or ""
                    start = m.start(kind)
                if start > pos:  # line ends in the whitespace before the token
                    newlines = body.count("\n", pos, start)
                    if newlines:
                        line += newlines
                        line_start = body.rfind("\n", pos, start) + 1
                if m is None:
                    break
                pos = m.end()
                column = start - line_start + 1
                if kind == "word" and self.result is None:
                    words = (m.group(kind),)
                    at, after, next_line, spaced = start, pos, False, False
                elif kind == "word":
                    if self.active:
                        self.error(f"text after the result: {m.group(kind)[:30]!r}", line, column,
                                   expected="the end of the game")
                        self.stop()
                    break
                else:
                    if kind == "comment":
                        close = body.find("}", pos)
                        if close > 0 and body[close - 1] == "\\":  # an escaped brace, or an escaped backslash
                            close = _find_close(body, "}", pos)
                        pos = end if close < 0 else close + 1
                        if self.active:
                            if close < 0:
                                self.error("comment not closed", line, column, expected="'}'")
                                self.stop()
                            elif close - start - 1 > self.limits.max_comment:
                                self.error(f"a comment of {close - start - 1} characters, over the limit of "
                                           f"{self.limits.max_comment}", line, column,
                                           expected="a comment within the limit (--limit comment=N raises it)",
                                           kind="error")
                                self.stop()
                            else:
                                self.visitor.visit_comment(_unescape_comment(body[start + 1:close]), self.moves == 0)
                        newlines = body.count("\n", start, pos)  # a comment may span lines
                        if newlines:
                            line += newlines
                            line_start = body.rfind("\n", start, pos) + 1
                    elif kind == "line_comment" or kind == "escape":
                        pass
                    elif self.result is not None:
                        if self.active:
                            self.error(f"text after the result: {m.group(kind)[:30]!r}", line, column,
                                       expected="the end of the game")
                            self.stop()
                        break
                    elif kind == "open":
                        self.open_variation(line, column)
                    elif kind == "close":
                        self.close_variation(line, column)
                    elif kind == "nag":
                        if self.active:
                            nag = self.nag(m.group(kind), line, column)
                            if nag is not None and self.moves:
                                self.visitor.visit_nag(nag)
                    elif self.active:
                        self.error(f"unexpected {m.group(kind)!r}", line, column, expected="a move")
                        if not self.lenient:
                            self.stop()
                    # what the token did may have stopped the reading, begun a skip or ended the movetext
                    plain = (self.parse_move is _parse_move and not self.stopped and self.skip_level is None
                             and self.result is None and self.until_ply is None)
                    if self.result is not None:
                        match = _TOKEN_RE.match  # a move number after the result is reported, not skipped
                    continue
            for tok in words:
                start = at + 1 if spaced else body.find(tok, at)
                column = start - line_start + 1
                at = start + len(tok)
                if tok[0].isalpha():  # most words are moves: the checks of word(), in short
                    if tok[-1] not in "!?" and "$" not in tok and len(tok) <= _MAX_MOVE:
                        if plain and board is not None and board.ended is None:
                            move = quick_move(board, tok)
                            if move is not None:
                                visit_move(board, move, tok, line, column)
                                board.push(move)
                                self.moves += 1
                                continue
                        if not self.stopped and self.skip_level is None and self.until_ply is None:
                            self._play(tok, line, column)
                        else:
                            self.word(tok, line, column)
                    else:
                        self.word(tok, line, column)
                elif tok[-1] != "." or self.until_ply is not None or not tok.rstrip(".").isdecimal():
                    self.word(tok, line, column)
                else:
                    continue  # a move number alone does nothing
                # what the word did may have stopped the reading, begun a skip or ended the movetext
                plain = (self.parse_move is _parse_move and not self.stopped and self.skip_level is None
                         and self.result is None and self.until_ply is None)
                if self.result is not None:
                    match = _TOKEN_RE.match  # a move number after the result is reported, not skipped
                if not plain:
                    pos = at  # the rest of the line, token by token
                    break
            else:
                pos = after
                if next_line:
                    line += 1
                    line_start = after
        if self.active and self.stack:
            self.error("variation not closed", line, len(body) - line_start + 1, expected="')'")
            if not self.lenient:
                self.stopped = True

    def nag(self, text, line, column) -> int | None:
        """The NAG ``$n`` as a number, or None after reporting one out of range."""
        value, problem = check_number(text[1:], 0, 255, "NAG")
        if problem is None:
            return value
        self.error(problem, line, column, move=text if len(text) <= 12 else text[:12] + "...",
                   expected="a NAG from $0 to $255")
        if not self.lenient:
            self.stop()
        return None

    def open_variation(self, line, column):
        self.depth += 1
        if not self.active:
            return
        if self.depth > self.limits.max_depth:
            self.error(f"variations nested deeper than the limit of {self.limits.max_depth}", line, column,
                       move="(", expected="fewer nested variations (--limit depth=N raises the limit)",
                       kind="error")
            self.stop()
            return
        if not self.moves:
            self.error("a variation must follow a move", line, column, move="(", expected="a move before '('")
            if self.lenient:
                self.skip_level = self.depth
                self.dropped = True
            else:
                self.stop()
            return
        self.stack.append((self.moves, self._board().pop()))
        self.moves = 0
        self.visitor.begin_variation()

    def close_variation(self, line, column):
        if not self.depth:
            if self.active:
                self.error("')' without a variation to close", line, column, move=")", expected="a move")
                if not self.lenient:
                    self.stop()
            return
        self.depth -= 1
        if self.skip_level is not None:
            if self.depth < self.skip_level:
                self.skip_level = None
            return
        if self.stopped:
            return
        self._leave_variation()
        self.visitor.end_variation()

    def _failed(self):
        """After a bad move: drop the variation (lenient mode) or stop reading."""
        if self.stack and self.lenient:
            self._leave_variation()
            self.visitor.drop_variation()
            self.skip_level = self.depth
            self.dropped = True
        else:
            self.stop()

    def _leave_variation(self):
        board = self._board()
        for _ in range(self.moves):
            board.pop()
        self.moves, move = self.stack.pop()
        board.push(move)

    def _board(self) -> Board:
        """The board, while the movetext is read (there is none only when reading stopped at once)."""
        board = self.board
        if board is None:
            raise RuntimeError("movetext read without a board")  # (stopped is set then: never)
        return board

    def word(self, tok, line, column):
        if tok in RESULTS:
            if not self.depth:
                self.result = tok
                self.result_at = (line, column)
                self.visitor.visit_result(tok)
            return  # a result inside a variation is ignored
        if not self.active:
            return
        if self.until_ply is not None and not self.stack and self.moves >= self.until_ply:
            self.stopped = True  # as asked: the rest is not read (not an error, not truncated)
            return
        m = _MOVE_NUMBER_RE.match(tok)
        if m:
            rest = m.group(2)
            if not rest:
                return
            column += len(tok) - len(rest)
            tok = rest
        if tok in _GLYPHS:
            if self.moves:
                self.visitor.visit_nag(_GLYPHS[tok])
            return
        if len(tok) > _MAX_MOVE:
            self.error("not a move: too long", line, column, move=tok[:_MAX_MOVE] + "...",
                       expected="a move such as P-e5")
            self._failed()
            return
        nags = []
        if "$" in tok:  # NAGs glued to the move: P-e5$1$14
            n = _TRAILING_NAGS_RE.match(tok)
            if n:
                tok, at = n.group(1), column + len(n.group(1))
                for text in n.group(2).split("$")[1:]:
                    nag = self.nag("$" + text, line, at)
                    if nag is None:
                        if not self.lenient:
                            return
                    else:
                        nags.append(nag)
                    at += 1 + len(text)
        g = _TRAILING_GLYPH_RE.match(tok)
        if g:
            tok = g.group(1)
            nags.insert(0, _GLYPHS[g.group(2)])
        if self._play(tok, line, column):
            for nag in nags:
                self.visitor.visit_nag(nag)

    def _play(self, tok, line, column) -> bool:
        """Resolve the move text ``tok``, hand it to the visitor and play it; False after reporting
        a move that is not legal (or one after the end of the game)."""
        board = self._board()
        if board.ended is not None:
            message, expected = after_end(board, board.ply)
            self.error(message, line, column, move=tok, expected=expected, code=MOVE_AFTER_END)
            self._failed()
            return False
        try:
            move = self.parse_move(board, tok)
        except NotationError as exc:
            self.error(exc.reason, line, column, move=tok, expected=exc.expected, suggestions=exc.suggestions)
            self._failed()
            return False
        self.visitor.visit_move(board, move, tok, line, column)
        board.push(move)
        self.moves += 1
        return True


# The Termination claims that the final position alone shows (a resignation, a time forfeit ... it does not)
CHECKED_TERMINATIONS = ("checkmate", "repetition", "perpetual-check", "stalemate", "royal-capture", "bare-royal")


def _finish(game: Game, ctx: _Context, headers, report) -> None:
    """Result, import status, and the check of Result/Termination claims (never rejects)."""
    tag = None
    for name, value in headers:
        if name == "Result":
            tag = value.strip()
    if ctx.result is not None and tag in RESULTS and tag != ctx.result:
        line, column = ctx.result_at
        report(GameError(f"the Result tag says {tag} but the movetext ends with {ctx.result}",
                         file=ctx.file, game=ctx.number, line=line, column=column, move=ctx.result,
                         expected=f"the result {tag}", kind="warning"))
    if (ctx.result is None or ctx.result == "*") and tag in RESULTS:
        game.result = tag
    if ctx.lenient and game.valid and ctx.board is not None and (ctx.truncated or ctx.dropped):
        game.headers[IMPORT_STATUS] = TRUNCATED if ctx.truncated else VARIATIONS_DROPPED
    if not game.valid or ctx.truncated or ctx.board is None:
        return
    termination = (game.headers.get("Termination") or "").strip().lower()
    if termination not in CHECKED_TERMINATIONS:
        return
    while ctx.stack:  # a variation left open (lenient mode): back to the end of the main line
        ctx._leave_variation()
    board = ctx.board  # the end of the main line (read from the reader's board: a visitor may keep no tree)
    outcome = board.outcome()
    shown = outcome.termination if outcome else None
    if shown != termination:
        report(GameError(
            f"Termination says {termination} but the final position shows {shown or 'no end of game'}",
            file=ctx.file, game=ctx.number, ply=board.ply, kind="warning"))


_UNESCAPE_RE = re.compile(r"\\(.)", re.S)


def _unescape_pairs(text: str, quote: str, any_char: bool = False) -> str:
    r"""``text`` with ``\\`` and ``\<quote>`` (with ``any_char``: a backslash before any character)
    read as the character escaped, with ``str.replace`` (memory linear in the text; a regex
    substitution keeps every piece alive at once).

    >>> _unescape_pairs(r'a\\\}b\}\x', "}"), _unescape_pairs(r'\\x\y\"', '"', any_char=True)
    ('a\\}b}\\x', '\\xy"')
    """
    if "\\" not in text:
        return text
    if "\x00" in text:  # pragma: no cover - a NUL in a record: the slower way
        return re.sub(r"\\(.)" if any_char else r"\\([\\" + re.escape(quote) + "])", r"\1", text, flags=re.S)
    text = text.replace("\\\\", "\x00").replace("\\" + quote, quote)
    if any_char and "\\" in text:
        text = _UNESCAPE_RE.sub(r"\1", text)
    return text.replace("\x00", "\\")


def _unescape(value: str) -> str:
    """A tag value as written -> the value: a backslash escapes the character after it."""
    return _unescape_pairs(value, '"', any_char=True)


def _unescape_comment(text: str) -> str:
    return normalize_comment(_unescape_pairs(text, "}"))


# --- writing ------------------------------------------------------------------------------------


def _escape_tag(value: str) -> str:
    value = re.sub(r"\r\n|[\r\n]", " ", value)  # a tag is one line
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _comment(text: str) -> str | None:
    text = normalize_comment(text)
    return "{" + text.replace("\\", "\\\\").replace("}", "\\}") + "}" if text else None


def write_game(game: Game, *, width: int = 80, comments: bool = True, variations: bool = True) -> str:
    """The game in canonical LSN: tags, movetext with minimal disambiguation, result.

    A ``starting_comment`` is written where LSN can place it, before the first move of a
    variation; on any other node it is joined to the comment of the move before (or to the game
    comment), which is where the reader puts a comment written there.
    """
    headers = game.headers
    out = []
    variant = headers.get("Variant", "?") if getattr(game, "variant_missing", False) else game.variant.slug
    tags = [("Variant", variant)]
    for name in SEVEN_TAG_ROSTER[1:]:
        if name == "Result":
            tags.append(("Result", game.result))
        else:
            tags.append((name, headers.get(name, ROSTER_UNKNOWN)))
    ruleset = format_ruleset(game.variant, game.options) if game.variant.playable else ""
    if ruleset:
        tags.append(("RuleSet", ruleset))
    if game.start and game.start != game.rules.start:
        tags.append(("SetUp", "1"))
        tags.append(("SFEN", game.start))
    done = {n for n, _ in tags} | MODEL_TAGS
    for name, value in headers.items():
        if name not in done:
            tags.append((name, value))
    for name, value in tags:
        out.append(f'[{_write_tag_name(name)} "{_escape_tag(value)}"]')
    out.append("")
    tokens: list[str] = []
    board = game.start_board()
    _write_line(game, board, tokens, comments, variations, with_eval(game) if comments else "")
    closing = _comment(with_eval(game)) if comments and not game.variations else None
    if closing:
        tokens.append(closing)
    tokens.append(game.result)
    out.extend(_wrap(tokens, width))
    return "\n".join(out) + "\n"


def _write_line(node: GameNode, board: Board, tokens: list, comments: bool, variations: bool,
                before: str):
    """Write the line from ``node``'s first child on, with side variations; ``board`` is left as
    it was.  ``before`` is the comment to write before the first move."""
    need_number = True
    first = True
    pushed = 0
    while node.variations:
        main = node.variations[0]
        if first and comments:
            # before the first move of a variation: its starting comment; before the first move of
            # the game: the reader joins it to the game comment
            before = join_comments(normalize_comment(before), normalize_comment(main.starting_comment))
        text = _comment(before) if comments else None
        if text:
            tokens.append(text)
            need_number = True
        move = main.move
        assert move is not None  # (only a game's root has no move)
        move_no = (board.move_number + 1) // 2
        written = move_notation(board, move)
        if board.turn == 0:
            written = f"{move_no}. {written}"
        elif need_number:
            written = f"{move_no}... {written}"
        tokens.append(written)
        tokens.extend(f"${nag}" for nag in main.nags)
        need_number = False
        if comments:
            after = normalize_comment(with_eval(main))
            # the next main move's starting comment cannot be written before it: join it here
            if main.variations:
                after = join_comments(after, normalize_comment(main.variations[0].starting_comment))
            text = _comment(after)
            if text:
                tokens.append(text)
                need_number = True
        if variations and len(node.variations) > 1:
            for side in node.variations[1:]:
                tokens.append("(")
                holder = GameNode()
                holder.variations = [side]
                _write_line(holder, board, tokens, comments, variations, "")
                tokens.append(")")
            need_number = True
        board.push(move)
        pushed += 1
        node = main
        before = ""
        first = False
    for _ in range(pushed):
        board.pop()


def _wrap(tokens: list[str], width: int) -> list[str]:
    """Tokens joined by spaces into lines of at most ``width`` characters where possible;
    parentheses stick to the token inside them."""
    glued: list[str] = []
    opening = ""
    for t in tokens:
        if t == "(":
            opening += "("
        elif t == ")" and glued:
            glued[-1] += ")"
        else:
            glued.append(opening + t)
            opening = ""
    lines, cur = [], ""
    for t in glued:
        if cur and len(cur) + 1 + len(t) > width:
            lines.append(cur)
            cur = t
        else:
            cur = f"{cur} {t}" if cur else t
    if cur:
        lines.append(cur)
    return lines


def write_games(games: Iterable[Game], **kwargs) -> Iterator[str]:
    """Each game's LSN followed by a blank line (concatenate them to write a file)."""
    for g in games:
        yield write_game(g, **kwargs) + "\n"
