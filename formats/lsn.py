"""LSN, Large Shogi Notation: a PGN-shaped game-record format for the large shogi variants.

The format is specified in ``docs/notation.md``.  Reading is streaming and visitor-based, like
python-chess's PGN reader: :func:`read_games` yields one game at a time from a file of any size,
and :class:`Visitor` subclasses decide what to keep (:class:`GameBuilder` builds a full
:class:`~formats.game.Game`; :class:`HeadersOnly` skips the moves).

Every move is checked against the rules while reading.  In strict mode (the default) the first
illegal or ambiguous move ends the game and marks it invalid with a :class:`GameError` that names
the file, game number, line, column, ply and move text, says what was expected and suggests legal
moves close to what was written.  In lenient mode the valid prefix is kept and the game is
flagged (a warning and ``ImportStatus "truncated"``) instead.
"""

from __future__ import annotations

import difflib
import io
import re
from typing import IO, Iterable, Iterator

from replay import Board, IncompleteVariantError, UnknownVariantError, VariantError, load_variant
from replay.position import PositionError

from .game import RESULTS, SEVEN_TAG_ROSTER, Game, GameError, GameNode
from .notation import NotationError, move_notation, notations, parse_move

__all__ = ["Visitor", "GameBuilder", "HeadersOnly", "read_games", "read_game", "write_game",
           "write_games", "LSNError", "parse_ruleset", "format_ruleset"]

_TAG_RE = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]')
_TOKEN_RE = re.compile(r"""
    (?P<comment>\{(?:[^}\\]|\\.)*(?:\}|$))      # { comment }, may be unterminated at the end
  | (?P<line_comment>;[^\n]*)
  | (?P<open>\()
  | (?P<close>\))
  | (?P<nag>\$\d+)
  | (?P<word>[^\s{}();]+)
  | (?P<space>\s+)
""", re.S | re.X)
_MOVE_NUMBER_RE = re.compile(r"(\d+)\.+(.*)\Z", re.S)
_GLYPHS = {"!": 1, "?": 2, "!!": 3, "??": 4, "!?": 5, "?!": 6}
_NAG_GLYPHS = {v: k for k, v in _GLYPHS.items()}
_TRAILING_GLYPH_RE = re.compile(r"(.*?[0-9+=])([!?]{1,2})\Z", re.S)
_COLOUR_TAGS = {"White": "Sente", "Black": "Gote", "WhiteElo": "SenteElo", "BlackElo": "GoteElo"}


class LSNError(ValueError):
    """A record that cannot be read at all (not one bad move: those go into ``Game.errors``)."""


# --- rule sets ----------------------------------------------------------------------------------


def parse_ruleset(text: str) -> dict:
    """``"soaring-eagle=literal, pass=forbidden"`` -> ``{"soaring-eagle": "literal", ...}``."""
    options = {}
    for part in re.split(r"[,;]\s*|\s+", text.strip()):
        if not part:
            continue
        key, sep, value = part.partition("=")
        if not sep or not key or not value:
            raise ValueError(f"rule set {text!r}: expected option=value, got {part!r}")
        options[key.strip()] = value.strip()
    return options


def format_ruleset(variant, options: dict) -> str:
    """The options that differ from the variant's defaults, as written in the ``RuleSet`` tag."""
    return ", ".join(f"{k}={v}" for k, v in options.items() if variant.options[k].default != v)


# --- visitors -----------------------------------------------------------------------------------


class Visitor:
    """Receives a game while it is read.  Return values of ``begin_game`` / ``end_headers``:
    ``SKIP`` to skip the moves."""

    SKIP = object()

    def begin_game(self, number: int, line: int) -> None: ...
    def visit_header(self, name: str, value: str) -> None: ...
    def end_headers(self): ...
    def visit_move(self, board: Board, move, notation: str, line: int, column: int) -> None: ...
    def visit_comment(self, text: str, before_first_move: bool = False) -> None: ...
    def visit_nag(self, nag: int) -> None: ...
    def begin_variation(self) -> None: ...
    def end_variation(self) -> None: ...
    def visit_result(self, result: str) -> None: ...
    def visit_error(self, error: GameError) -> None: ...
    def end_game(self, source: str, offset: int):
        return None


class GameBuilder(Visitor):
    """Builds a :class:`Game` with its move tree (the default visitor)."""

    def __init__(self, default_variant: str | None = None):
        self.default_variant = default_variant

    def begin_game(self, number, line):
        self.headers = []
        self.game = None
        self.number = number
        self.line = line
        self.errors = []

    def visit_header(self, name, value):
        self.headers.append((name, value))

    def end_headers(self):
        self.game = _game_from_headers(self.headers, self.default_variant, self.errors)
        self.game.number = self.number
        self.game.source_line = self.line
        self.node = self.game
        self.stack = []
        self.pending_comment = ""
        return self.game

    def visit_move(self, board, move, notation, line, column):
        self.node = self.node.add_variation(move)
        self.node.notation = notation
        self.node.source_line, self.node.source_column = line, column
        if self.pending_comment:
            self.node.starting_comment = self.pending_comment
            self.pending_comment = ""

    def visit_comment(self, text, before_first_move=False):
        if before_first_move and self.node is self.game:
            self.game.comment = _join(self.game.comment, text)
        elif before_first_move:
            self.pending_comment = _join(self.pending_comment, text)
        else:
            self.node.comment = _join(self.node.comment, text)

    def visit_nag(self, nag):
        if self.node is not self.game:
            self.node.nags.append(nag)

    def begin_variation(self):
        # a variation is an alternative to the last move: it hangs from that move's parent
        self.stack.append(self.node)
        self.node = self.node.parent

    def end_variation(self):
        self.node = self.stack.pop()
        self.pending_comment = ""

    def visit_result(self, result):
        self.game.result = result

    def visit_error(self, error):
        (self.game.errors if self.game is not None else self.errors).append(error)

    def end_game(self, source, offset):
        if self.game is None:
            self.end_headers()
        self.game.source = source
        self.game.source_offset = offset
        return self.game


class HeadersOnly(Visitor):
    """Reads only the tags of each game (fast scanning of big files)."""

    def begin_game(self, number, line):
        self.headers = []

    def visit_header(self, name, value):
        self.headers.append((name, value))

    def end_headers(self):
        return Visitor.SKIP

    def end_game(self, source, offset):
        return self.headers


def _join(a: str, b: str) -> str:
    return f"{a} {b}" if a and b else a or b


def _game_from_headers(headers, default_variant, errors) -> Game:
    """Create the game from its tags: variant, rule set and start position."""
    values = {}
    for name, value in headers:
        values.setdefault(_COLOUR_TAGS.get(name, name), value)
    variant_name = values.get("Variant") or default_variant
    variant = None
    problem = None
    if not variant_name:
        problem = "the Variant tag is missing"
    else:
        try:
            variant = load_variant(variant_name)
        except UnknownVariantError as exc:
            problem = str(exc)
    options = {}
    if variant is not None and values.get("RuleSet"):
        try:
            options = parse_ruleset(values["RuleSet"])
            variant.resolve_options(options)
        except (ValueError, VariantError) as exc:
            problem = f"RuleSet tag: {exc}"
            options = {}
    if variant is None or problem:
        game = Game(variant or load_variant("shogi"), options if variant else None)
        if variant is None:
            game.variant_missing = True
        game.errors.append(GameError(problem, expected="a Variant tag naming a known variant"
                                     if variant is None else "option=value pairs the variant defines"))
    else:
        game = Game(variant, options)
        if not variant.playable:
            try:
                variant.require_playable()
            except IncompleteVariantError as exc:
                game.errors.append(GameError(str(exc)))
    start = values.get("SFEN") or values.get("FEN")
    if start and game.valid:
        try:
            Board(game.rules, start)
            game.start = start
        except (PositionError, ValueError) as exc:
            game.errors.append(GameError(f"SFEN tag: {exc}", expected="a position string"))
    del game.headers["Variant"]
    for name, value in headers:
        game.headers[_COLOUR_TAGS.get(name, name)] = value
    if variant is not None and "Variant" not in game.headers:
        game.headers["Variant"] = variant.slug
    game.errors[:0] = errors
    return game


# --- reading ------------------------------------------------------------------------------------


def _split_games(lines: Iterable[str]) -> Iterator[tuple[int, int, list[str]]]:
    """Group lines into games: (first line number, character offset, lines)."""
    current: list[str] = []
    start_line = 1
    offset = 0
    start_offset = 0
    seen_moves = False
    depth = 0  # inside { } across lines
    for number, line in enumerate(lines, start=1):
        if number == 1 and line.startswith("\ufeff"):
            line = line[1:]
        stripped = line.strip()
        if depth == 0 and stripped.startswith("[") and _TAG_RE.match(stripped) and seen_moves:
            yield start_line, start_offset, current
            current, seen_moves = [], False
            start_line, start_offset = number, offset
        if not current and not stripped:
            start_line, start_offset = number + 1, offset + len(line)
            offset += len(line)
            continue
        current.append(line)
        offset += len(line)
        if depth == 0 and (not stripped or stripped.startswith("[") and _TAG_RE.match(stripped)):
            continue
        if stripped.startswith("%"):
            continue
        if stripped:
            seen_moves = True
        # track comment braces so a "[" inside a multi-line comment does not start a game
        for ch in _strip_line_comment(line, depth):
            if ch == "{":
                depth += 1
            elif ch == "}" and depth:
                depth -= 1
    if any(l.strip() for l in current):
        yield start_line, start_offset, current


def _strip_line_comment(line: str, depth: int) -> str:
    if depth:
        return line
    i = line.find(";")
    j = line.find("{")
    return line[:i] if i >= 0 and (j < 0 or i < j) else line


def read_games(source: IO[str] | str | Iterable[str], *, visitor: type[Visitor] | Visitor | None = None,
               lenient: bool = False, file: str | None = None,
               default_variant: str | None = None) -> Iterator:
    """Read every game of an LSN text, one at a time (constant memory in the number of games).

    ``source`` is an open text file, an iterable of lines, or a whole string.  Yields what the
    visitor's ``end_game`` returns (a :class:`Game` for the default :class:`GameBuilder`).
    """
    if isinstance(source, str):
        source = io.StringIO(source)
    for n, (line, offset, lines) in enumerate(_split_games(source), start=1):
        v = visitor() if isinstance(visitor, type) else visitor or GameBuilder(default_variant)
        if isinstance(v, GameBuilder) and default_variant and not v.default_variant:
            v.default_variant = default_variant
        yield _read_one(lines, line, offset, n, v, lenient, file)


def read_game(source, **kwargs):
    """The first game of an LSN text, or None."""
    return next(read_games(source, **kwargs), None)


def _read_one(lines, first_line, offset, number, visitor, lenient, file):
    text = "".join(lines)
    visitor.begin_game(number, first_line)
    # tags
    pos = 0
    line_no = first_line
    body_start_line = first_line
    body_lines = []
    in_tags = True
    for raw in lines:
        stripped = raw.strip()
        if in_tags and (not stripped or stripped.startswith("%")):
            line_no += 1
            continue
        m = _TAG_RE.match(stripped) if in_tags else None
        if m and stripped.startswith("["):
            # tags may share a line: [A "1"] [B "2"]
            rest = stripped
            while rest:
                m = _TAG_RE.match(rest)
                if not m:
                    break
                visitor.visit_header(m.group(1), _unescape(m.group(2)))
                rest = rest[m.end():].lstrip()
            line_no += 1
            continue
        if in_tags:
            in_tags = False
            body_start_line = line_no
        body_lines.append(raw)
    game = visitor.end_headers()
    if game is Visitor.SKIP:
        return visitor.end_game(text, offset)
    ctx = _Context(visitor, game, lenient, file, number)
    if not game.valid:
        ctx.stopped = True
    ctx.run("".join(body_lines), body_start_line)
    if isinstance(game, Game):
        _check_result(game, ctx)
    return visitor.end_game(text, offset)


class _Context:
    """Replays movetext tokens through the rules core, feeding the visitor.

    ``board`` is the position of the line being read and ``moves`` the number of moves read in that
    line; ``stack`` keeps them for the lines that enclose open variations.
    """

    def __init__(self, visitor, game, lenient, file, number):
        self.visitor = visitor
        self.game = game
        self.lenient = lenient
        self.file = file
        self.number = number
        self.board = game.start_board() if isinstance(game, Game) and game.valid else None
        self.moves = 0
        self.stack = []
        self.stopped = False
        self.skip_depth = 0  # depth inside variations skipped after an error (lenient mode)
        self.result = None

    def error(self, message, line, column, move=None, expected=None, suggestions=()):
        err = GameError(message, file=self.file, game=self.number, line=line, column=column,
                        ply=None if self.board is None else self.board.ply + 1,
                        move=move, expected=expected, suggestions=list(suggestions),
                        kind="warning" if self.lenient else "error")
        self.visitor.visit_error(err)
        return err

    @property
    def active(self) -> bool:
        return not self.stopped and not self.skip_depth and self.board is not None

    def run(self, body: str, first_line: int):
        for e in getattr(self.game, "errors", ()):
            e.file = e.file or self.file
            e.game = e.game or self.number
        line, line_start = first_line, 0
        for m in _TOKEN_RE.finditer(body):
            kind = m.lastgroup
            tok = m.group()
            column = m.start() - line_start + 1
            if kind in ("space", "line_comment", "comment"):
                if kind == "comment" and self.active:
                    closed = tok.endswith("}") and not tok.endswith("\\}")
                    if not closed:
                        self.error("comment not closed", line, column, expected="'}'")
                        self.stopped = True
                    else:
                        self.visitor.visit_comment(_unescape_comment(tok[1:-1]), self.moves == 0)
                newlines = tok.count("\n")
                if newlines:
                    line += newlines
                    line_start = m.start() + tok.rfind("\n") + 1
                continue
            if self.result is not None:
                if self.active:
                    self.error(f"text after the result: {tok!r}", line, column, expected="the end of the game")
                    self.stopped = True
                break
            if kind == "open":
                self.open_variation(line, column)
            elif kind == "close":
                self.close_variation(line, column)
            elif kind == "nag":
                if self.active and self.moves:
                    self.visitor.visit_nag(int(tok[1:]))
            else:
                self.word(tok, line, column)
        if self.stack and self.active:
            self.error("variation not closed", line, 1, expected="')'")

    def open_variation(self, line, column):
        if not self.active:
            if self.skip_depth or self.stopped:
                self.skip_depth += 1
            return
        if not self.moves:
            self.error("a variation must follow a move", line, column, move="(", expected="a move before '('")
            self.skip_depth = 1
            self.stopped = not self.lenient
            return
        self.stack.append((self.board, self.moves))
        self.board = self.board.copy(stack=True)
        self.board.pop()
        self.moves = 0
        self.visitor.begin_variation()

    def close_variation(self, line, column):
        if self.skip_depth:
            self.skip_depth -= 1
            return
        if self.stopped or self.board is None:
            return
        if not self.stack:
            self.error("')' without a variation to close", line, column, move=")", expected="a move")
            self.stopped = True
            return
        self.board, self.moves = self.stack.pop()
        self.visitor.end_variation()

    def word(self, tok, line, column):
        if tok in RESULTS and not self.stack:
            self.result = tok
            self.visitor.visit_result(tok)
            return
        if not self.active:
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
        glyph = None
        g = _TRAILING_GLYPH_RE.match(tok)
        if g:
            tok, glyph = g.group(1), g.group(2)
        try:
            move = parse_move(self.board, tok)
        except NotationError as exc:
            self.error(exc.reason, line, column, move=tok, expected=exc.expected, suggestions=exc.suggestions)
            if self.stack and self.lenient:
                # drop the rest of this variation and go on with the enclosing line
                self.skip_depth = 1
                self.board, self.moves = self.stack.pop()
                self.visitor.end_variation()
            else:
                self.stopped = True
            return
        self.visitor.visit_move(self.board, move, tok, line, column)
        self.board.push(move)
        self.moves += 1
        if glyph:
            self.visitor.visit_nag(_GLYPHS[glyph])


def _check_result(game: Game, ctx: _Context) -> None:
    """Flag a Result/Termination claim that the final position does not show (never rejects)."""
    tag = game.headers.get("Result")
    if ctx.result is not None and tag and tag != ctx.result and tag in RESULTS:
        game.errors.append(GameError(f"the Result tag says {tag} but the movetext ends with {ctx.result}",
                                     file=ctx.file, game=ctx.number, kind="warning"))
    if game.result == "*" and tag in RESULTS:
        game.result = tag
    if not game.valid:
        return
    termination = (game.headers.get("Termination") or "").lower()
    if termination not in ("checkmate", "repetition", "perpetual-check", "stalemate"):
        return
    board = game.end().board()
    outcome = board.outcome()
    shown = outcome.termination if outcome else None
    if shown != termination:
        game.errors.append(GameError(
            f"Termination says {termination} but the final position shows {shown or 'no end of game'}",
            file=ctx.file, game=ctx.number, ply=board.ply, kind="warning"))


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", r"\1", value)


def _unescape_comment(text: str) -> str:
    return re.sub(r"\\([\\}])", r"\1", text).strip()


# --- writing ------------------------------------------------------------------------------------


def _escape_tag(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _escape_comment(text: str) -> str:
    return text.replace("\\", "\\\\").replace("}", "\\}")


def write_game(game: Game, *, width: int = 80, comments: bool = True, variations: bool = True) -> str:
    """The game in canonical LSN: tags, movetext with minimal disambiguation, result."""
    headers = game.headers
    out = []
    tags = [("Variant", game.variant.slug)]
    for name in SEVEN_TAG_ROSTER[1:]:
        if name == "Result":
            tags.append(("Result", game.result))
        else:
            tags.append((name, headers.get(name, "?")))
    ruleset = format_ruleset(game.variant, game.options) if game.variant.playable else ""
    if ruleset:
        tags.append(("RuleSet", ruleset))
    if game.start and game.start != game.rules.start:
        tags.append(("SetUp", "1"))
        tags.append(("SFEN", game.start))
    done = {n for n, _ in tags} | {"SetUp", "SFEN", "FEN", "RuleSet"}
    for name, value in headers.items():
        if name not in done:
            tags.append((name, value))
    for name, value in tags:
        out.append(f'[{name} "{_escape_tag(value)}"]')
    out.append("")
    tokens: list[str] = []
    if game.comment and comments:
        tokens.append("{" + _escape_comment(game.comment) + "}")
    board = game.start_board()
    _write_line(game, board, tokens, comments, variations, first=True)
    tokens.append(game.result)
    out.extend(_wrap(tokens, width))
    return "\n".join(out) + "\n"


def _write_line(node: GameNode, board: Board, tokens: list, comments: bool, variations: bool, first: bool):
    """Write the line starting at ``node``'s first child, with side variations."""
    need_number = True
    while node.variations:
        main = node.variations[0]
        _write_move(main, board, tokens, comments, need_number or first)
        first = False
        need_number = False
        if variations and len(node.variations) > 1:
            for side in node.variations[1:]:
                tokens.append("(")
                branch = board.copy(stack=True)
                holder = GameNode()
                holder.variations = [side]
                _write_line(holder, branch, tokens, comments, variations, first=True)
                tokens.append(")")
            need_number = True
        if main.comment and comments:
            need_number = True
        board.push(main.move)
        node = main


def _write_move(node: GameNode, board: Board, tokens: list, comments: bool, number: bool):
    if node.starting_comment and comments:
        tokens.append("{" + _escape_comment(node.starting_comment) + "}")
    move_no = (board.move_number + 1) // 2
    if board.turn == 0:
        tokens.append(f"{move_no}.")
    elif number:
        tokens.append(f"{move_no}...")
    tokens.append(move_notation(board, node.move))
    for nag in node.nags:
        tokens.append(f"${nag}")
    if node.comment and comments:
        tokens.append("{" + _escape_comment(node.comment) + "}")


def _wrap(tokens: list[str], width: int) -> list[str]:
    lines, cur = [], ""
    for t in tokens:
        if cur and len(cur) + 1 + len(t) > width:
            lines.append(cur)
            cur = t
        else:
            cur = f"{cur} {t}" if cur else t
    if cur:
        lines.append(cur)
    return lines


def write_games(games: Iterable[Game], **kwargs) -> Iterator[str]:
    for g in games:
        yield write_game(g, **kwargs) + "\n"
