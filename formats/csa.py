"""CSA game records (the Computer Shogi Association's format, V2.2 and V3.0), for shogi.

>>> text = "V2.2\\nN+Sente\\nN-Gote\\nPI\\n+\\n+7776FU,T3\\n-3334FU\\n%TORYO\\n"
>>> game = next(read_csa(text))
>>> game.headers["Sente"], len(game.mainline_moves()), game.result, game.headers["Termination"]
('Sente', 2, '0-1', 'resignation')

Reading
    A file holds several games separated by a line ``/``.  Each game: ``V2.2``/``V3.0``, ``N+``/``N-``
    players (tags Sente/Gote), ``$KEY:value`` fields (``$EVENT`` -> Event, ``$SITE`` -> Site,
    ``$START_TIME`` -> Date, plus ``StartTime`` with the original text when it holds a time; any
    other ``$SOME_KEY`` -> tag ``SomeKey``), the start position (``PI`` with the squares of removed
    pieces, ``P1``..``P9`` rows, ``P+``/``P-`` pieces placed or in hand, ``00AL`` for all the rest in
    hand; nothing at all means the standard position, with a warning), the side to move (``+``/``-``),
    moves ``+7776FU`` (the piece *after* the move: ``+2822UM`` promotes), times ``T12`` (V3.0's
    ``T1.5`` too; kept in the comment as ``[%emt 0:00:12]``, as the KIF reader does), comments
    ``'*text`` and ``'text`` (both kept: the text after ``'*`` or ``'``), and a special ``%TORYO``,
    ``%TSUMI``, ``%KACHI`` ... which sets ``Termination`` and the result.  Several statements may
    share a line, separated by commas.  Every problem is a :class:`~formats.game.GameError` with
    file, game, line, column and ply; the reader never raises.

Writing
    :func:`write_csa` writes V2.2 with an ``'encoding=`` line, the tags as ``$KEY:`` fields where
    the reader gives the tag back from its key (``PlyCount`` as ``$PLY_COUNT``), the others as
    comment lines ``'daikifu-tag NAME: VALUE`` before the moves (a Japanese name such as 戦型, a
    Termination the special does not say), which the reader turns back into tags (``$`` and
    ``N+``/``N-`` lines are read whole: their values may hold commas), ``PI`` for the standard position
    (``P1``..``P9`` and ``P+``/``P-`` otherwise), ``T`` lines for move times, ``'*`` comments and the
    special for the game's Termination and result.  CSA has no variations: only the main line is
    written.  Only 9x9 shogi can be written.
"""

from __future__ import annotations

import re
from typing import Iterator

from daikifu.replay import Board, Move
from daikifu.replay.squares import square, square_file, square_rank

from .detection import looks_like_csa
from .evals import with_eval
from .game import Game, GameError
from .playback import DRAW, LOSS, NONE, WIN, MoveTextError, RawGame, RawMoves, iter_lines, play

__all__ = ["read_csa", "write_csa", "looks_like_csa", "CSA_PIECES", "CSA_SPECIALS", "TAG_COMMENT",
           "game_end_special"]

CSA_PIECES = {"FU": "P", "KY": "L", "KE": "N", "GI": "S", "KI": "G", "KA": "B", "HI": "R", "OU": "K",
              "TO": "+P", "NY": "+L", "NK": "+N", "NG": "+S", "UM": "+B", "RY": "+R"}
_CODES = {v: k for k, v in CSA_PIECES.items()}
# special -> (Termination, result for the side to move, or the result itself)
CSA_SPECIALS = {
    "TORYO": ("resignation", LOSS), "TSUMI": ("checkmate", LOSS), "TIME_UP": ("time-forfeit", LOSS),
    "ILLEGAL_MOVE": ("illegal-move", LOSS), "+ILLEGAL_ACTION": ("illegal-move", "0-1"),
    "-ILLEGAL_ACTION": ("illegal-move", "1-0"), "KACHI": ("impasse", WIN), "JISHOGI": ("impasse", DRAW),
    "SENNICHITE": ("repetition", DRAW), "HIKIWAKE": (None, DRAW), "MAX_MOVES": ("max-moves", DRAW),
    "CHUDAN": ("abandoned", NONE), "FUZUMI": ("unterminated", NONE), "MATTA": ("abandoned", NONE),
    "ERROR": ("abandoned", NONE),
}
_TAGS = {"EVENT": "Event", "SITE": "Site", "START_TIME": "Date"}
# a tag no $ field holds (a Japanese name, a name $KEY would not give back): a comment line
# "'daikifu-tag NAME: VALUE" before the moves, which the reader turns back into the tag
TAG_COMMENT = "'daikifu-tag "
_HIRATE = [["-KY", "-KE", "-GI", "-KI", "-OU", "-KI", "-GI", "-KE", "-KY"],
           [None, "-HI", None, None, None, None, None, "-KA", None],
           ["-FU"] * 9, [None] * 9, [None] * 9, [None] * 9, ["+FU"] * 9,
           [None, "+KA", None, None, None, None, None, "+HI", None],
           ["+KY", "+KE", "+GI", "+KI", "+OU", "+KI", "+GI", "+KE", "+KY"]]
_ALL_PIECES = {"FU": 18, "KY": 4, "KE": 4, "GI": 4, "KI": 4, "KA": 2, "HI": 2, "OU": 2}
_UNPROMOTED = {"TO": "FU", "NY": "KY", "NK": "KE", "NG": "GI", "UM": "KA", "RY": "HI"}
_MOVE_RE = re.compile(r"([+-])(\d)(\d)(\d)(\d)([A-Z]{2})\Z")
_TIME_RE = re.compile(r"T(\d{1,9})(?:\.\d{1,9})?\Z")
_ROW_RE = re.compile(r"P([1-9])(.*)\Z")
_PLACE_RE = re.compile(r"(\d)(\d)([A-Z]{2})")
_DATE_RE = re.compile(r"(\d{4})/(\d{1,2})/(\d{1,2})")


def _camel(key: str) -> str:
    return "".join(part.capitalize() for part in key.split("_") if part)


def _snake(tag: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", tag).upper()


# --- reading -------------------------------------------------------------------------------------


class _Position:
    """The start position being set up from P lines."""

    def __init__(self):
        self.grid = [[None] * 9 for _ in range(9)]
        self.hands = [{}, {}]
        self.seen = False
        self.turn = 0
        self.all_rest = None  # the colour that gets every piece not placed (00AL)

    def sfen(self) -> str:
        counts = dict(_ALL_PIECES)
        rows = []
        for row in self.grid:
            text, empty = "", 0
            for cell in row:
                if cell is None:
                    empty += 1
                    continue
                if empty:
                    text += str(empty)
                    empty = 0
                base = _UNPROMOTED.get(cell[1:], cell[1:])
                counts[base] = counts.get(base, 0) - 1
                pid = CSA_PIECES[cell[1:]]
                text += pid if cell[0] == "+" else pid.lower()
            rows.append(text + (str(empty) if empty else ""))
        for colour in (0, 1):
            for code, n in self.hands[colour].items():
                counts[code] = counts.get(code, 0) - n
        if self.all_rest is not None:
            for code, n in counts.items():
                if n > 0 and code != "OU":
                    self.hands[self.all_rest][code] = self.hands[self.all_rest].get(code, 0) + n
        hand = ""
        for colour in (0, 1):
            for code in ("HI", "KA", "KI", "GI", "KE", "KY", "FU"):
                n = self.hands[colour].get(code, 0)
                if n:
                    pid = CSA_PIECES[code]
                    hand += ("" if n == 1 else str(n)) + (pid if colour == 0 else pid.lower())
        return f"{'/'.join(rows)} {'bw'[self.turn]} {hand or '-'} 1"


def _square(x: str, y: str) -> int:
    """The square of CSA's file and rank digits (both 1-9; 11 is Gote's upper right)."""
    fx, ry = int(x), int(y)
    if not (1 <= fx <= 9 and 1 <= ry <= 9):
        raise ValueError(f"square {x}{y} is not on the board (11 to 99)")
    return square(9 - fx, 9 - ry)


def _move_reader(sign: str, x1, y1, x2, y2, code: str):
    def read(board: Board) -> Move:
        colour = 0 if sign == "+" else 1
        if board.turn != colour:
            raise MoveTextError(f"it is {'Sente' if board.turn == 0 else 'Gote'}'s move, not "
                                f"{'Sente' if colour == 0 else 'Gote'}'s",
                                expected=f"a move beginning {'+-'[board.turn]}")
        if code not in CSA_PIECES:
            raise MoveTextError(f"unknown piece {code!r}", expected="a CSA piece code (FU, KY ... RY)")
        try:
            to = _square(x2, y2)
            origin = None if x1 + y1 == "00" else _square(x1, y1)
        except ValueError as exc:
            raise MoveTextError(str(exc), expected="squares 11 to 99 (00 as the origin of a drop)") from None
        pid = CSA_PIECES[code]
        if origin is None:
            return Move(None, to, (), None, pid)
        piece = board.piece_at(origin)
        if piece is None or piece.colour != colour:
            raise MoveTextError(f"no {'Sente' if colour == 0 else 'Gote'} piece on {x1}{y1}", expected="a legal move")
        if piece.id == pid:
            declined = Move(origin, to, (), False)
            return declined if board.illegal_reason(declined) is None else Move(origin, to)
        if "+" + piece.id == pid:
            return Move(origin, to, (), True)
        raise MoveTextError(f"the piece on {x1}{y1} is {_CODES.get(piece.id, piece.id)}, not {code}",
                            expected="the piece on the origin square, or its promoted form")
    return read


def _text_reader(text: str):
    """The ``read`` of a move statement (one :data:`_MOVE_RE` matched when it was found)."""
    return _move_reader(*_MOVE_RE.match(text).groups())


class _GameText:
    """Cuts one game's lines into a :class:`RawGame`."""

    def __init__(self, number, first_line, offset, source, file):
        self.raw = RawGame(number, first_line, offset, source)
        self.raw.moves = RawMoves(source, _text_reader)
        self.line_offset = 0  # where the line being read starts in the source
        self.first_line = first_line
        self.file = file
        self.position = _Position()
        self.moves_started = False
        self.tags: list = []  # from tag comments (TAG_COMMENT)

    def problem(self, message, line, column=1, ply=None, kind="error", move=None, expected=None):
        self.raw.problems.append(GameError(message, file=self.file, game=self.raw.number, line=line,
                                           column=column, ply=ply, move=move, expected=expected, kind=kind))

    def comment(self, text: str) -> None:
        body = text[2:] if text.startswith("'*") else text[1:]
        if not self.moves_started and re.match(r"\s*(?:CSA\s+)?encoding\s*=", body, re.I):
            return
        if not self.moves_started and text.startswith(TAG_COMMENT) and ": " in text:
            name, _, value = text[len(TAG_COMMENT):].partition(": ")
            self.tags.append((name, value.rstrip()))
            return
        (self.raw.moves.last_comments() if self.raw.moves else self.raw.comments).append(body)

    def read(self) -> RawGame:
        headers = []
        raw = self.raw
        for n, (line_offset, line) in enumerate(iter_lines(raw.source), start=self.first_line):
            self.line_offset = line_offset
            line = line.rstrip("\r\n")
            if line.startswith("'"):
                self.comment(line)
                continue
            if line.startswith(("$", "N+", "N-")):  # a field's value may hold commas
                self.statement(line.strip(), n, 1, headers)
                continue
            column = 1
            quote = line.find(",'")  # a comment after statements on the same line
            if quote >= 0:
                self.comment_after = line[quote + 1:]
                line = line[:quote]
            else:
                self.comment_after = None
            for statement in line.split(","):
                s = statement.strip()
                here = column + len(statement) - len(statement.lstrip())
                column += len(statement) + 1
                if s:
                    self.statement(s, n, here, headers)
            if self.comment_after is not None:
                self.comment(self.comment_after)
        if not self.position.seen:
            where = raw.moves.line(0) if raw.moves else self.first_line
            self.problem("no start position (PI or P1..P9): the standard position is assumed", where,
                         kind="warning")
            self.position.grid = [list(r) for r in _HIRATE]
        headers.extend(self.tags)
        sfen = self.position.sfen()
        headers.append(("SFEN", sfen))
        raw.headers = headers
        return raw

    def statement(self, s: str, n: int, column: int, headers: list) -> None:
        raw = self.raw
        ply = len(raw.moves) + 1
        if raw.special_text is not None:
            if s == raw.special_text:  # servers repeat the special (floodgate): nothing new
                self.problem(f"{s} repeated", n, column, ply, kind="warning", move=s)
            elif not s.startswith("T"):
                self.problem(f"{s!r} after the end of the game ({raw.special_text})", n, column, ply, move=s,
                             expected="'/' before the next game")
            return
        m = _MOVE_RE.match(s)
        if m:
            self.moves_started = True
            start = self.line_offset + column - 1  # the statement's text in the game's source
            raw.moves.add(start, start + len(s), n, column)
            return
        if s.startswith("T") and _TIME_RE.match(s):
            if raw.moves:
                raw.moves.set_seconds(int(_TIME_RE.match(s).group(1)))
            return
        if s.startswith("%"):
            word = s[1:]
            if word not in CSA_SPECIALS:
                self.problem(f"unknown special {s!r}", n, column, ply, kind="warning", move=s,
                             expected="%TORYO, %CHUDAN, %SENNICHITE ...")
                return
            termination, relation = CSA_SPECIALS[word]
            raw.termination, raw.relation, raw.special_line, raw.special_text = termination, relation, n, s
            return
        if self.moves_started:
            what = "a side-to-move line" if s in ("+", "-") else f"{s!r}"
            self.problem(f"{what} among the moves", n, column, ply, move=s,
                         expected="a move such as +7776FU, a time T12, a comment or a special %TORYO")
            raw.special_text = raw.special_text or "an error"
            return
        if s in ("+", "-"):
            self.position.turn = 0 if s == "+" else 1
        elif re.match(r"V\d", s):
            pass
        elif s.startswith(("N+", "N-")):
            headers.append(("Sente" if s[1] == "+" else "Gote", s[2:].strip()))
        elif s.startswith("$"):
            key, sep, value = s[1:].partition(":")
            if not sep:
                self.problem(f"a $ field without ':' {s!r}", n, column, kind="warning")
                return
            self.field(key.strip(), value.strip(), headers)
        elif s.startswith("PI"):
            self.position.seen = True
            self.position.grid = [list(r) for r in _HIRATE]
            rest = s[2:]
            for x, y, _code in _PLACE_RE.findall(rest):
                try:
                    sq = _square(x, y)
                except ValueError as exc:
                    self.problem(str(exc), n, column)
                    continue
                self.position.grid[8 - square_rank(sq)][square_file(sq)] = None
        elif s[:2] in ("P+", "P-"):
            self.place(s, n, column)
        elif _ROW_RE.match(s):
            self.row(s, n, column)
        else:
            self.problem(f"unrecognised line {s[:40]!r}", n, column, kind="warning",
                         expected="a CSA statement (V2.2, N+, $EVENT:, PI, P1, +, +7776FU, T12, %TORYO, '...)")

    def field(self, key, value, headers):
        tag = _TAGS.get(key, _camel(key))
        if key == "START_TIME":
            m = _DATE_RE.search(value)
            if m:
                headers.append(("Date", f"{int(m.group(1)):04d}.{int(m.group(2)):02d}.{int(m.group(3)):02d}"))
                if value.strip() != m.group(0):
                    headers.append(("StartTime", value))
                return
            tag = "StartTime"
        headers.append((tag, value))

    def row(self, s, n, column):
        self.position.seen = True
        rank = int(s[1])
        cells = s[2:]
        row = []
        for i in range(9):
            cell = cells[i * 3:i * 3 + 3]
            if cell.strip() in ("*", ""):
                row.append(None)
            elif len(cell) == 3 and cell[0] in "+-" and cell[1:] in CSA_PIECES:
                row.append(cell)
            else:
                self.problem(f"P{rank}: cannot read {cell!r} (file {9 - i})", n, column + 2 + i * 3,
                             expected="' * ' or a piece such as +FU or -KY")
                row.append(None)
        self.position.grid[rank - 1] = row

    def place(self, s, n, column):
        self.position.seen = True
        colour = 0 if s[1] == "+" else 1
        body = s[2:]
        if len(body) % 4:
            self.problem(f"cannot read {s!r}", n, column, expected="P+ followed by squares and pieces, e.g. P+00FU")
        for k in range(0, len(body) - len(body) % 4, 4):
            x, y, code = body[k], body[k + 1], body[k + 2:k + 4]
            if not (x.isdigit() and y.isdigit()) or (code not in CSA_PIECES and code != "AL"):
                self.problem(f"cannot read {body[k:k + 4]!r}", n, column + 2 + k, expected="e.g. 00FU or 55KA")
                continue
            if code == "AL":
                self.position.all_rest = colour
            elif x + y == "00":
                self.position.hands[colour][code] = self.position.hands[colour].get(code, 0) + 1
            else:
                try:
                    sq = _square(x, y)
                except ValueError as exc:
                    self.problem(str(exc), n, column + 2 + k)
                    continue
                self.position.grid[8 - square_rank(sq)][square_file(sq)] = ("+" if colour == 0 else "-") + code


def _split(text: str):
    """(first line number, offset, end) of each game: games are separated by a line '/'."""
    start_line, start_offset, blank = 1, 0, True
    for n, (offset, line) in enumerate(iter_lines(text), start=1):
        if line.strip() == "/":
            if not blank:
                yield start_line, start_offset, offset
            start_line, start_offset, blank = n + 1, offset + len(line), True
        elif blank and line.strip():
            blank = False
    if not blank:
        yield start_line, start_offset, len(text)


def read_csa(text: str, *, file: str | None = None, variant: str | None = None, lenient: bool = False,
             visitor=None, variants=None) -> Iterator:
    """Every game of a CSA text, one at a time (what the visitor's ``end_game`` returns: a
    :class:`Game` by default).  ``variant`` must be a 9x9 variant with shogi's pieces (default shogi)."""
    name = variant or "shogi"
    for number, (line, offset, end) in enumerate(_split(text), start=1):
        raw = _GameText(number, line, offset, text[offset:end], file).read()
        yield play(raw, name, visitor=visitor, lenient=lenient, file=file, variants=variants)


# --- writing -------------------------------------------------------------------------------------


def _csa_square(sq: int) -> str:
    return f"{9 - square_file(sq)}{9 - square_rank(sq)}"


def game_end_special(game: Game, mover: int) -> str | None:
    """The CSA special move (``%TORYO``, ``%SENNICHITE`` ...) that ends ``game``, if its result and
    Termination say how it ended; ``mover`` is the side to move at its end (JKF writes the same)."""
    termination = game.headers.get("Termination")
    result = game.result
    if result == "*":
        relation = NONE
    elif result == "1/2-1/2":
        relation = DRAW
    else:
        relation = WIN if (result == "1-0") == (mover == 0) else LOSS
    for word, (term, rel) in CSA_SPECIALS.items():
        if term == termination and (rel == relation or rel == result) and word not in ("MATTA", "ERROR"):
            return "%" + word
    if relation == LOSS:
        return "%TORYO"
    if relation == DRAW:
        return "%SENNICHITE" if termination == "repetition" else "%HIKIWAKE"
    if relation == WIN and termination != "illegal-move":
        return "%KACHI" if termination == "impasse" else "%" + ("+" if mover == 1 else "-") + "ILLEGAL_ACTION"
    return "%CHUDAN" if termination else None


def can_write_csa(variant) -> bool:
    return variant.files == 9 and variant.ranks == 9 and all(p.id in _CODES for p in variant.pieces)


def write_csa(game: Game, encoding: str = "utf-8") -> bytes:
    """The game's main line as CSA V2.2 (bytes in ``encoding``: utf-8 or cp932)."""
    from .kakinoki.common import time_of as _time_of  # the [%emt] time convention is the KIF reader's
    if not can_write_csa(game.variant):
        raise ValueError(f"CSA holds shogi games only, not {game.variant.name}")
    declared = "UTF-8" if encoding.replace("_", "-").lower() in ("utf-8", "utf8") else "Shift_JIS"
    out = [f"'encoding={declared}", "V2.2"]
    if "Sente" in game.headers:
        out.append("N+" + game.headers["Sente"].replace("\n", " "))
    if "Gote" in game.headers:
        out.append("N-" + game.headers["Gote"].replace("\n", " "))
    reverse = {v: k for k, v in _TAGS.items()}
    board = game.start_board()
    special = game_end_special(game, (board.turn + len(game.mainline_moves())) % 2)
    kept = []  # tags no $ field gives back: written as comments the reader restores
    for name, value in game.headers.items():
        value = value.replace("\n", " ")
        if name in ("Sente", "Gote", "Variant", "ImportStatus"):
            continue
        if name == "Termination" and special and CSA_SPECIALS[special[1:]][0] == value:
            continue  # the special says it
        if name == "Date":
            if "StartTime" in game.headers:
                continue
            value = value.replace(".", "/")
        key = reverse.get(name, "START_TIME" if name == "StartTime" else _snake(name))
        if name in ("Date", "StartTime") or (re.fullmatch(r"[A-Za-z]\w*", name) and _camel(key) == name):
            out.append(f"${key}:{value}")
        else:
            kept.append(f"{TAG_COMMENT}{name}: {value}")
    out.extend(kept)
    if board.position() == Board(game.rules).position():
        out.append("PI")
    else:
        hands = {0: [], 1: []}
        for r in range(9):
            cells = []
            for f in range(9):
                p = board.piece_at(square(f, 8 - r))
                cells.append(" * " if p is None else "+-"[p.colour] + _CODES[p.id])
            out.append(f"P{r + 1}" + "".join(cells))
        for colour in (0, 1):
            for pid, n in board.hand(colour).items():
                hands[colour].extend(["00" + _CODES[pid]] * n)
            if hands[colour]:
                out.append("P" + "+-"[colour] + "".join(hands[colour]))
    out.append("+-"[board.turn])
    out.extend("'*" + line for line in with_eval(game).splitlines() if with_eval(game).strip())
    node = game
    while node.variations:
        node = node.variations[0]
        move = node.move
        sign = "+-"[board.turn]
        if move.drop is not None:
            out.append(f"{sign}00{_csa_square(move.to_square)}{_CODES[move.drop]}")
        else:
            piece = board.piece_at(move.from_square)
            pid = "+" + piece.id if move.promotion else piece.id
            out.append(f"{sign}{_csa_square(move.from_square)}{_csa_square(move.to_square)}{_CODES[pid]}")
        board.push(move)
        comment = node.comment
        time = _time_of(comment)
        if time is not None:
            out[-1] += f",T{time[0]}"
            comment = time[2]
        comment = with_eval(node, comment)
        out.extend("'*" + line for line in comment.strip().splitlines())
    if special:
        out.append(special)
    text = "\n".join(out) + "\n"
    codec = "utf-8" if declared == "UTF-8" else "cp932"
    newline = "\n" if codec == "utf-8" else "\r\n"
    try:
        return text.replace("\n", newline).encode(codec)
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start:exc.end]
        raise ValueError(f"{bad!r} cannot be written in {codec}: write UTF-8") from None
