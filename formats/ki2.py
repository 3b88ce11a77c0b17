"""KI2 game records: KIF's headers, diagrams, comments and 変化 blocks, with moves written as
people write them: ``▲７六歩　△同　歩　▲５八金右``, no origin square.

>>> game = read_ki2("▲７六歩　△３四歩　▲２二角成　△同　銀\\nまで4手で中断\\n")[0]
>>> [str(m) for m in game.mainline_moves()]
['c3c4', 'g7g6', 'b2h8+', 'g9h8']

Reading
    Each move is resolved through the rules core: the pieces of the side to move with the written
    name that can legally reach the destination, narrowed by the relative markers -- 上 (moves
    forward), 引 (backward), 寄 (sideways), 直 (straight forward), 右 / 左 (the piece on the
    mover's right / left among those that can move there), 打 (a drop) -- and by 成 / 不成 (生).
    同 means the destination of the move before.  A name of a promoted piece that no such piece
    can bring there is read as a promotion (``△８八馬`` for 角成, as some engines write).  A
    move that fits no piece, or more than one, is an error at its ply, line and column that says
    what to write ("two 金 can reach ５八: write 右 or 左").  Everything else (headers, board
    diagrams, ``*`` comments, ``変化：N手``, ``まで`` lines, handicaps) is read as the KIF reader
    reads it: the two readers share one implementation (:mod:`formats.kif`).

Writing
    :func:`write_ki2` writes the KIF preamble with ``#KI2``, six moves a line, the markers needed to
    tell the candidates apart (上/引/寄 first, then 直, then 右/左, then 右/左 with 上/引/寄), 打 only
    where a piece on the board could also move there, comments on ``*`` lines and ``まで`` lines;
    times are not written (KI2 has none).  KI2 is written for 9x9 boards.
"""

from __future__ import annotations

import re

from daikifu.replay import Board, Move
from daikifu.replay.squares import square_file, square_rank

from .game import Game, GameNode
from .kif import (_KIND_CODE, _RE_MOVES_HEADER, KifError, _comment_lines, _Item, _Reader, _Style, _time_of, _Writer,
                  _write_with)

__all__ = ["read_ki2", "write_ki2", "looks_like_ki2", "ki2_move_text", "japanese_move_text"]

_MARKERS = "▲△☗☖"
_SENTE_MARKERS = "▲☗"
_MOVE_CHUNK = re.compile(r"[▲△☗☖]([^▲△☗☖]*)")
_RE_KI2_MOVE_LINE = re.compile(r"^\s*[▲△☗☖](?:[同仝]|[１-９1-9][一二三四五六七八九])")
_RE_KIF_MOVE_LINE = re.compile(r"^\s*\d+\s+(?:[同仝]|[１-９][一二三四五六七八九]).*\(\d\d\)")
_COUNT_WORDS = {2: "two", 3: "three", 4: "four"}
_NEVER_STRAIGHT = ("+R", "+B")  # 龍 and 馬
_VERTICAL = {"上": "上", "行": "上", "入": "上", "引": "引", "寄": "寄"}


def _options(marks) -> str:
    """Markers joined for a message, in the usual order (右 before 左 ...)."""
    order = "右左直上引寄打"
    return " or ".join(sorted((m for m in marks if m), key=lambda m: [order.index(c) for c in m]))


def move_lines(head: str) -> str | None:
    """``"ki2"`` when the first move line is KI2's (``▲７六歩``) or the text starts ``#KI2``,
    ``"kif"`` when it is KIF's (``1 ７六歩(77)``, or the ``手数----`` line), None when there is none."""
    for n, line in enumerate(head.splitlines()):
        if n > 400:
            break
        if line.startswith("#KI2"):
            return "ki2"
        if _RE_KIF_MOVE_LINE.match(line) or _RE_MOVES_HEADER.match(line):
            return "kif"
        if _RE_KI2_MOVE_LINE.match(line):
            return "ki2"
    return None


def looks_like_ki2(head: str) -> bool:
    """Whether a text can be KI2: KI2 move lines, or KIF's headers and no move line at all (then
    KIF and KI2 look alike, and the file name decides)."""
    from .kif import looks_like_kif
    found = move_lines(head)
    return found == "ki2" or (found is None and looks_like_kif(head))


# --- markers -------------------------------------------------------------------------------------


def _sign(colour: int) -> int:
    return 1 if colour == 0 else -1


def _vertical_ok(origin: int, to: int, colour: int, mark: str) -> bool:
    dy = (square_rank(to) - square_rank(origin)) * _sign(colour)
    return dy > 0 if mark == "上" else dy < 0 if mark == "引" else dy == 0


def _filter(origins: list, to: int, colour: int, rel: str, vert: str) -> list:
    """The origins the markers leave (``rel`` one of 右 左 直 or "", ``vert`` 上 引 寄 or "")."""
    out = list(origins)
    if vert:
        out = [o for o in out if _vertical_ok(o, to, colour, vert)]
    if rel == "直":
        out = [o for o in out if square_file(o) == square_file(to) and _vertical_ok(o, to, colour, "上")]
    elif rel in ("右", "左") and out:
        # the mover's right is the higher file index for Sente, the lower for Gote
        key = [square_file(o) * _sign(colour) for o in out]
        best = max(key) if rel == "右" else min(key)
        out = [o for o, k in zip(out, key) if k == best]
    return out


def _markers(origins: list, origin: int, to: int, colour: int, straight: bool = True) -> str | None:
    """The shortest markers that single ``origin`` out of ``origins`` ("" if it is alone);
    ``straight=False`` for the pieces that are never written 直 (a Dragon, a Horse: the JSA's
    notation tells two of them apart by 右 and 左)."""
    if len(origins) <= 1:
        return ""
    for rel, vert in [("", v) for v in "上引寄"] + ([("直", "")] if straight else []) + [(r, "") for r in "右左"] + \
                     [(r, v) for r in "右左" for v in "上引寄"]:
        if _filter(origins, to, colour, rel, vert) == [origin]:
            return rel + vert
    return None


def _origins(board: Board, pid: str, to: int) -> dict:
    """origin -> the legal moves to ``to`` from it by pieces ``pid`` of the side to move."""
    found: dict = {}
    for origin in board.squares_of(pid, board.turn):
        for promotion in (None, True, False):
            move = Move(origin, to, (), promotion)
            if board.illegal_reason(move) is None:
                found.setdefault(origin, []).append(move)
    return found


def ki2_move_text(style: _Style, board: Board, move: Move, prev_to: int | None) -> str:
    """The move as KI2 writes it (without the ▲/△), for the position on ``board`` before it."""
    if move.drop is not None:
        pid = move.drop
        dest = style.square_text(move.to_square)
        rivals = _origins(board, pid, move.to_square)
        return dest + style.piece_name(pid) + ("打" if rivals else "")
    pid = board.piece_at(move.from_square).id
    dest = "同　" if prev_to == move.to_square else style.square_text(move.to_square)
    origins = list(_origins(board, pid, move.to_square))
    marks = _markers(origins, move.from_square, move.to_square, board.turn, pid not in _NEVER_STRAIGHT) or ""
    return dest + style.piece_name(pid) + marks + {True: "成", False: "不成", None: ""}[move.promotion]


def japanese_move_text(board: Board, move: Move, prev_to: int | None = None) -> str:
    """:func:`ki2_move_text` for the rule set ``board`` plays (a style needs only a rule set)."""
    return ki2_move_text(_Style.of(board), board, move, prev_to)


# --- reading -------------------------------------------------------------------------------------


LOOK_AHEAD = 400  # plies read ahead to settle a move written without the markers it needs
LOOK_AHEAD_BUDGET = 200_000  # moves resolved while looking ahead, per record (bounds the time on any input)


class _Problem(Exception):
    def __init__(self, message: str, expected: str | None = None, to: int | None = None):
        super().__init__(message)
        self.message, self.expected, self.to = message, expected, to


class _Following:
    """Move items after one move, made from their lines only when the look-ahead reads them (it
    stops at the first it cannot read, or when its budget is spent)."""

    def __init__(self, reader: "_Ki2Reader", indices: list):
        self.reader, self.indices = reader, indices

    def __len__(self) -> int:
        return len(self.indices)

    def __getitem__(self, key):
        if isinstance(key, slice):
            return _Following(self.reader, self.indices[key])
        return self.reader.item(self.reader.index, self.indices[key])

    def __iter__(self):
        for k in self.indices:
            yield self.reader.item(self.reader.index, k)


class _Ki2Reader(_Reader):
    def __init__(self, *args):
        super().__init__(*args)
        self.budget = [LOOK_AHEAD_BUDGET]  # shared by every look-ahead of the record

    def line_items(self, line: str, number: int) -> list:
        """KIF's items, a KI2 move line (``▲７六歩　△３四歩``) as one move item per move."""
        items = super().line_items(line, number)
        if items and items[0].kind == "junk" and line.lstrip(" \t\u3000").startswith(tuple(_MARKERS)):
            return [_Item("move", number, text=m.group(1).strip(" \t\u3000"), column=m.start() + 1,
                          key=line[m.start()]) for m in _MOVE_CHUNK.finditer(line)]
        return items

    def classify(self):
        """The items, the moves numbered by their ply in their line of play; other lines after the
        moves are a program's footer, ignored with a warning."""
        ply = 1
        moves_seen = False
        for it in super().classify():
            if it.kind == "variation":
                ply = it.number
            elif it.kind == "move" and it.key:  # a KI2 move (a KIF move line keeps its number)
                it.number = ply
                ply += 1
                moves_seen = True
            elif it.kind == "junk" and moves_seen:  # a program's footer ("generated by ...")
                self.problem(f"line ignored: {it.text.strip()[:40]!r}", kind="warning", line=it.line, column=1)
                it.kind = "program"
            yield it

    def following(self, it: _Item) -> "_Following":
        """The move items after ``it`` in its line of play (at most :data:`LOOK_AHEAD`)."""
        index = self.index
        found = []
        move, ends = _KIND_CODE["move"], (_KIND_CODE["variation"], _KIND_CODE["result"])
        for k in range(it.index + 1, len(index)):
            code = index.kinds[k]
            if code in ends or len(found) == LOOK_AHEAD:
                break
            if code == move:
                found.append(k)
        return _Following(self, found)

    def make_game(self, headers) -> Game:
        game = super().make_game(headers)
        if not self.style.numeric:
            self.fatal(f"KI2 is read for 9x9 boards, not for {game.variant.name}")
        return game

    def parse_move(self, board: Board, text: str, prev_to, it: _Item, ply: int) -> Move | None:
        where = dict(line=it.line, column=it.column, ply=ply, move=it.key + text)
        try:
            moves = self.resolve(board, text, prev_to, it.key, drops=True)
            if len(moves) > 1:
                moves = self.look_ahead(board, moves, it, where)
        except _Problem as exc:
            self.problem(exc.message, expected=exc.expected, suggestions=self.suggest(board, exc.to, prev_to), **where)
            return None
        move = moves[0]
        board.push(move)
        return move

    def look_ahead(self, board: Board, moves: list, it: _Item, where: dict) -> list:
        """The candidate of an ambiguous move (several pieces, or a drop with 打 left out) with which
        the most of the moves after it can be read (records written without the markers they
        need); :class:`_Problem` if the record cannot tell.  A move on the board is preferred to
        a drop the text does not mark, as KI2 reads it."""
        following = self.following(it)
        reach = []
        for move in moves:
            board.push(move)
            reach.append(self.quiet_depth(board, following, move.to_square, self.budget))
            board.pop()
        best = max(reach)
        winners = [m for m, r in zip(moves, reach) if r == best]
        on_board = [m for m in moves if m.drop is None]
        name = self.style.piece_name(moves[0].drop or board.piece_at(moves[0].from_square).id)
        dest = self.style.square_text(moves[0].to_square)
        origins = [m.from_square for m in on_board]
        options = {m: _markers(origins, m.from_square, m.to_square, board.turn) if m.drop is None else "打"
                   for m in moves}
        count = _COUNT_WORDS.get(len(moves), str(len(moves)))
        message = f"{count} {name} can reach {dest}: write " + _options(options.values())
        chosen = winners[0]
        board_winners = [m for m in winners if m.drop is None]
        if len(board_winners) <= 1 and chosen.drop is None and len(on_board) == 1:
            return [chosen]  # the move on the board, as written: the drop is only what 打 would say
        if len(winners) == 1:
            self.problem(f"{message}; read as {name}{options[chosen]}, the only one the next moves allow",
                         kind="warning", **where)
        elif best == len(following) and best:
            # every reading replays the rest of the record: the text cannot tell them apart
            self.problem(f"{message}; the record does not say which (each reading replays the rest): "
                         f"read as {name}{options[chosen]}", kind="warning", **where)
        else:
            raise _Problem(message, "a relative marker (右 左 上 引 寄 直) or 打", moves[0].to_square)
        return [chosen]

    def quiet_depth(self, board: Board, items: list, prev_to, budget: list | None = None) -> int:
        """How many of ``items`` can be read one after the other, trying every candidate of an
        ambiguous one (within ``budget`` moves resolved); the board is left as it was."""
        budget = budget if budget is not None else self.budget
        pushed = 0
        depth = len(items)
        for k, it in enumerate(items):
            budget[0] -= 1
            try:
                if budget[0] < 0:
                    raise _Problem("look-ahead budget spent")
                moves = self.resolve(board, it.text, prev_to, it.key, drops=True)
            except _Problem:
                depth = k
                break
            if len(moves) > 1:
                best = 0
                for move in moves:
                    board.push(move)
                    best = max(best, self.quiet_depth(board, items[k + 1:], move.to_square, budget))
                    board.pop()
                depth = k + 1 + best
                break
            board.push(moves[0])
            pushed += 1
            prev_to = moves[0].to_square
        for _ in range(pushed):
            board.pop()
        return depth

    def resolve(self, board: Board, text: str, prev_to, key: str, drops: bool = False) -> list:
        """The legal moves ``text`` can mean (one per origin square); :class:`_Problem` if none."""
        style = self.style
        if (key in _SENTE_MARKERS) != (board.turn == 0):
            side = "Sente" if board.turn == 0 else "Gote"
            raise _Problem(f"{key} marks a move of the other side: {side} is to move",
                           ("▲" if board.turn == 0 else "△") + text)
        m = self.move_re.match(text)
        if not m:
            raise _Problem("cannot read the move", "destination, piece, markers, e.g. ７六歩, 同　銀, ５八金右")
        if m.group("same"):
            if prev_to is None:
                raise _Problem("同 (same square) with no previous move", "a destination square")
            to = prev_to
        else:
            try:
                to = style.parse_square(m.group("dest"))
            except (ValueError, KeyError, IndexError) as exc:
                raise _Problem(str(exc), "a square on the board") from None
        dest = style.square_text(to)
        name = m.group("piece")
        pid = style.piece_id(name)
        mods = m.group("mods")
        promo = False if ("不成" in mods or "生" in mods) else True if "成" in mods else None
        rel = next((c for c in mods if c in "右左直"), "")
        vert = next((_VERTICAL[c] for c in mods if c in _VERTICAL), "")
        if "打" in mods:
            move = Move(None, to, (), None, pid)
            reason = board.illegal_reason(move)
            if reason is not None:
                raise _Problem(f"cannot drop {name} on {dest}: {reason}", "a legal move", to)
            return [move]
        found = _origins(board, pid, to)
        if not found and promo is None:  # 馬 for 角成: the promoted name of a promotion
            for p in board.variant.pieces:
                if p.promotes == pid:
                    for origin, moves in _origins(board, p.id, to).items():
                        found.setdefault(origin, []).extend(x for x in moves if x.promotion)
            found = {o: ms for o, ms in found.items() if ms}
            if found:
                promo = True
        if not found:
            if promo is None and not rel and not vert and board.hand(board.turn).get(pid):
                drop = Move(None, to, (), None, pid)  # 打 left out: no piece on the board can move there
                reason = board.illegal_reason(drop)
                if reason is None:
                    return [drop]
                raise _Problem(f"no {name} on the board can reach {dest}, and dropping one is illegal: {reason}",
                               "a legal move", to)
            raise _Problem(f"no {name} can reach {dest}", "a legal move", to)
        origins = _filter(list(found), to, board.turn, rel, vert)
        if not origins:
            raise _Problem(f"no {name} reaches {dest} as {rel + vert} says", "a legal move", to)
        out = []
        for origin in origins:
            moves = found[origin]
            chosen = [x for x in moves if x.promotion == promo]
            if not chosen and promo is None:
                chosen = [x for x in moves if x.promotion is False]  # 不成 left out
            if not chosen:
                raise _Problem(f"{name} cannot {'promote' if promo else 'stay unpromoted'} moving to {dest}",
                               "成 or 不成 as the move allows", to)
            out.append(chosen[0])
        if len(out) > 1 and (rel or vert):  # markers written, and still several: no guessing
            options = [_markers(origins, o, to, board.turn) for o in origins]
            count = _COUNT_WORDS.get(len(out), str(len(out)))
            raise _Problem(f"{count} {name} can reach {dest}: write " + _options(options),
                           "a relative marker (右 左 上 引 寄 直)", to)
        if drops and promo is None and not rel and not vert and board.hand(board.turn).get(pid):
            drop = Move(None, to, (), None, pid)  # 打 left out where a piece could also move there
            if board.illegal_reason(drop) is None:
                out.append(drop)
        return out

    @property
    def move_re(self):
        pattern = getattr(self, "_move_re", None)
        if pattern is None:
            names = "|".join(re.escape(n) for n in sorted(self.style.names, key=len, reverse=True))
            pattern = self._move_re = re.compile(
                rf"^(?:(?P<same>[同仝])[\s\u3000]*|(?P<dest>[１-９1-9][一二三四五六七八九1-9１-９]))"
                rf"(?P<piece>{names})(?P<mods>(?:[右左直上引寄行入打生]|不成|成)*)$")
        return pattern

    def suggest(self, board: Board, to, prev_to) -> list[str]:
        try:
            legal = [m for m in board.legal_moves() if to is None or m.to_square == to]
            mark = "▲" if board.turn == 0 else "△"
            return [mark + ki2_move_text(self.style, board, m, prev_to) for m in legal[:5]]
        except (KeyError, IndexError, ValueError, AttributeError):  # pragma: no cover
            return []


def read_ki2(data: bytes | str, *, source: str | None = None, variant=None, lenient: bool = False,
             variants=None, visitor=None) -> list:
    """Read a KI2 record into a list of games (a KI2 file holds one game), as
    :func:`formats.kif.read_kif` reads KIF: problems are recorded in ``game.errors``; input that is
    not a record raises :class:`~formats.kif.KifError`; ``visitor`` as for :func:`~formats.kif.read_kif`."""
    from .kif import read_with
    return read_with(_Ki2Reader, "KI2", data, source, variant, lenient, variants, visitor)


# --- writing -------------------------------------------------------------------------------------


class _Ki2Writer(_Writer):
    PER_LINE = 6

    def write(self, encoding_name: str) -> str:
        if not self.style.numeric:
            raise KifError(f"KI2 is written for 9x9 boards, not for {self.game.variant.name}")
        self.write_preamble(f"#KI2 version=2.0 encoding={encoding_name}")
        self.out.extend(_comment_lines(self.game.comment))
        self.write_tree()
        return "\n".join(self.out) + "\n"

    def write_line(self, first: GameNode, is_main: bool) -> list:
        out = self.out
        board, _totals, _ply = self.line_start(first, is_main)
        nodes, tokens = [], []
        node = first
        while node is not None:
            move = node.move
            reason = board.illegal_reason(move)
            if reason is not None:
                raise KifError(f"cannot write an illegal move at ply {board.ply + 1}: {reason}")
            prev_to = node.parent.move.to_square if node.parent.move is not None else None
            text = ("▲" if board.turn == 0 else "△") + ki2_move_text(self.style, board, move, prev_to)
            tokens.append(text)
            board.push(move)
            time = _time_of(node.comment)
            comment = time[2] if time is not None else node.comment
            if comment.strip() or len(tokens) == self.PER_LINE:
                out.append("".join(t.ljust(6, "\u3000") for t in tokens).rstrip("\u3000"))
                tokens = []
            out.extend(_comment_lines(comment.strip()))
            nodes.append(node)
            node = node.next()
        if tokens:
            out.append("".join(t.ljust(6, "\u3000") for t in tokens).rstrip("\u3000"))
        word, result, _stored = self.ending(nodes[-1], board, is_main)
        made = self.made_line(word, result, board.ply, board.turn)
        if made:
            out.append(made)
        return nodes

    def write_end(self, last, board, is_main, totals=None) -> None:  # a game without moves
        word, result, _stored = self.ending(last, board, is_main)
        made = self.made_line(word, result, board.ply, board.turn)
        if made:
            self.out.append(made)


def write_ki2(game: Game, encoding: str = "utf-8", *, newline: str | None = None, errors: str = "strict") -> bytes:
    """The game as KI2 bytes (``encoding`` utf-8 or cp932, as :func:`formats.kif.write_kif`)."""
    return _write_with(_Ki2Writer, game, encoding, newline, errors)
