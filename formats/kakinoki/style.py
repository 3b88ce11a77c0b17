"""How one variant's squares and pieces are written in KIF and KI2 (:class:`Style`, one per rule set).
"""

from __future__ import annotations

import functools
import re
from collections import Counter

from daikifu.replay import Board, Move
from daikifu.replay.squares import parse_square, square, square_file, square_name, square_rank

from ..game import Game, GameError
from .common import (DIGIT_VALUE, FW_DIGITS, KANJI_ALIAS_CHARS, KANJI_DIGITS, KifError, LISHOGI_BOARD_ALIASES,
                     SHOGI_MOVE_NAMES, japanese_number, kanji_number)


class Style:
    """How squares and pieces of one variant are written in KIF (see docs/kif.md)."""

    @staticmethod
    def of(game: Game) -> Style:
        """The style of ``game``'s rule set, made once per rule set (reading a record should not pay
        for the patterns of its variant's names)."""
        return _style_of(game.rules)

    def __init__(self, rules):
        self.rules = rules
        self.variant = rules.variant
        pieces = self.variant.pieces
        self.files, self.ranks = rules.files, rules.ranks
        self.numeric = self.files <= 9 and self.ranks <= 9
        self.shogi = self.variant.slug == "shogi"
        # lishogi's dialect (docs/kif.md section 5) where every piece has the name records write
        self.lishogi = not self.numeric and self.ranks <= 16 and all(p.kanji_name for p in pieces)
        names: dict[str, str] = {}  # upper-cased name -> piece ID
        for p in pieces:
            names[p.id.upper()] = p.id
            for a in p.aliases:
                names.setdefault(a.upper(), p.id)
        # the name on the board: kanji_board where the variant gives one (lishogi's 成角), else kanji
        board_of = {p.id: p.kanji_board or p.kanji for p in pieces if p.kanji_board or p.kanji}
        kanji_count = Counter(board_of.values())
        # a kanji two pieces share cannot name either: those pieces are written by ID
        self.kanji = {pid: k for pid, k in board_of.items() if kanji_count[k] == 1}
        for pid, kanji in self.kanji.items():
            names[kanji] = pid
        if not self.lishogi:
            for p in pieces:
                if p.id in self.kanji and p.promotes:
                    names.setdefault("成" + p.kanji, p.promotes)
        # a kanji two pieces share names no piece by itself: it is resolved by the piece on the
        # origin square (a move) and refused where nothing tells (a drop, a diagram)
        self.shared: dict[str, list] = {}
        for pid, k in board_of.items():
            if kanji_count[k] > 1 and k not in names:
                self.shared.setdefault(k, []).append(pid)
        # lishogi's moves name pieces by their record names and accept the one-kanji names; a
        # name several pieces have (金将: Gold and promoted Pawn; 獅: Lion and promoted Kirin) is
        # resolved by the piece on the origin square, as shared kanji are
        # (and, as lishogi reads them, a promoted piece by the names of the piece it moves as:
        # 角行 for the promoted Ferocious Leopard, a Bishop; ChuShogiLite writes so)
        self.alike: dict[str, list] = _alike(pieces, names) if self.lishogi else {}
        self.names = names
        for table in (names, self.shared, self.alike):
            for name in list(table):
                alias = name.translate(KANJI_ALIAS_CHARS)
                if alias != name:
                    table.setdefault(alias, table[name])
        alternatives = sorted(set(names) | set(self.shared) | set(self.alike), key=len, reverse=True)
        piece_re = "|".join(re.escape(n) for n in alternatives)
        self.move_re, self.kill_re = _move_patterns(piece_re, self.lishogi, self.numeric)
        # the diagram needs a kanji name for every piece (names of one or more kanji, boards up to 16x16)
        self.diagram = all(self.kanji.get(p.id) for p in pieces)
        self.cell = max((len(k) for k in self.kanji.values()), default=1)
        board_names = list(self.kanji.values())
        if self.lishogi:
            for alias, canonical in LISHOGI_BOARD_ALIASES.items():
                if canonical in names and alias not in names:
                    names[alias] = names[canonical]
                    board_names.append(alias)
        self.board_names = sorted(board_names, key=len, reverse=True)
        self.diagram_readable = all(p.id in board_of for p in pieces)  # shared names found as met
        self.record_names = {p.id: p.kanji_name for p in pieces} if self.lishogi else {}
        # what the squares and the names in moves read (only texts the patterns accept: bounded)
        self._squares: dict[str, int] = {}
        self._origins: dict[str, int] = {}
        self._move_ids: dict[str, tuple] = {}

    # squares
    def parse_square(self, text: str) -> int:
        """The square ``text`` names (a ValueError if it is off the board)."""
        found = self._squares.get(text)
        if found is None:  # (a record names the same few squares again and again)
            found = self._squares[text] = self._parse_square(text)
        return found

    def _parse_square(self, text: str) -> int:
        if self.numeric:
            f = self.files - DIGIT_VALUE[text[0]]
            r = self.ranks - DIGIT_VALUE[text[1]]
        elif self.lishogi:  # 10十一: the file number, then the rank in kanji
            digits = len(text) - len(text.lstrip(FW_DIGITS + "0123456789"))
            f = self.files - japanese_number(text[:digits])
            r = self.ranks - japanese_number(text[digits:])
        else:
            return parse_square(text.lower(), self.files, self.ranks)
        if not (0 <= f < self.files and 0 <= r < self.ranks):
            raise ValueError(f"square {text} is off the {self.files}x{self.ranks} board")
        return square(f, r)

    def square_text(self, sq: int) -> str:
        if self.numeric:
            return FW_DIGITS[self.files - square_file(sq)] + KANJI_DIGITS[self.ranks - square_rank(sq)]
        if self.lishogi:
            return f"{self.files - square_file(sq)}{kanji_number(self.ranks - square_rank(sq))}"
        return square_name(sq)

    def origin_text(self, sq: int) -> str:
        if self.numeric:
            return f"{self.files - square_file(sq)}{self.ranks - square_rank(sq)}"
        return self.square_text(sq)

    def parse_origin(self, text: str) -> int:
        """The square an origin in parentheses names (``77`` on a 9x9 board)."""
        found = self._origins.get(text)
        if found is None:
            found = self._origins[text] = self._parse_origin(text)
        return found

    def _parse_origin(self, text: str) -> int:
        if self.numeric:
            f = self.files - DIGIT_VALUE[text[0]]
            r = self.ranks - DIGIT_VALUE[text[1]]
            if not (0 <= f < self.files and 0 <= r < self.ranks):
                raise ValueError(f"square ({text}) is off the {self.files}x{self.ranks} board")
            return square(f, r)
        return self.parse_square(text)

    # pieces
    def piece_name(self, pid: str, in_move: bool = True) -> str:
        if in_move and self.lishogi:
            return self.record_names[pid]
        if self.shogi and in_move and pid in SHOGI_MOVE_NAMES:
            return SHOGI_MOVE_NAMES[pid]
        return self.kanji.get(pid, pid)

    def piece_id(self, name: str) -> str | None:
        return self.names.get(name) or self.names.get(name.upper())

    def piece_ids(self, name: str, in_move: bool = False) -> list | tuple:
        """Every piece ID a name can mean: one, or those sharing the kanji (in a move, also the
        pieces sharing a record name, such as 金将 for the Gold and the promoted Pawn)."""
        if in_move:
            found = self._move_ids.get(name)
            if found is None:
                found = self._move_ids[name] = tuple(self._piece_ids(name, True))
            return found
        return self._piece_ids(name, False)

    def _piece_ids(self, name: str, in_move: bool) -> list:
        if in_move and name in self.alike:
            return list(self.alike[name])
        pid = self.piece_id(name)
        return [pid] if pid is not None else list(self.shared.get(name, ()))

    # moves
    def move_text(self, board: Board, move: Move, prev_to: int | None) -> str:
        """The move as written in KIF, for the position on ``board`` before the move."""
        if self.lishogi:
            return " ".join(f"{label} {text}" if label else text
                            for label, text in self.lishogi_steps(board, move, prev_to))
        if move.drop is not None:
            pid = move.drop
        else:
            piece = board.piece_at(move.from_square)
            pid = piece.id if piece is not None else "?"
        if self.numeric and prev_to is not None and move.to_square == prev_to:
            dest = "同　"
        else:
            dest = self.square_text(move.to_square) + ("" if self.numeric else " ")
        text = dest + self.piece_name(pid)
        text += {True: "成", False: "不成", None: ""}[move.promotion]
        if move.drop is not None:
            return text + "打"
        text += f"({self.origin_text(move.from_square)})"
        text += "".join(" x " + self.square_text(k) for k in move.kills)
        return text

    def lishogi_steps(self, board: Board, move: Move, prev_to: int | None) -> list[tuple[str, str]]:
        """The move as lishogi writes it: ``[("", "7八歩兵 （←7九）")]``, or a Lion's double move
        (a capture on the way, igui, a pass) as its two steps ``[("一歩目", ...), ("二歩目", ...)]``.
        ``仝`` stands for the destination of the previous move, but never on a second step (lishogi
        reads a second step without it).  A declined promotion is not marked (lishogi writes
        ``成`` only).

        >>> from daikifu.replay.usi import usi_to_move
        >>> game = Game("chu-shogi")
        >>> board = game.start_board()
        >>> Style(game.rules).lishogi_steps(board, usi_to_move(board, "7i7h"), None)
        [('', '7八歩兵 （←7九）')]
        """
        if move.drop is not None:
            return [("", self.square_text(move.to_square) + self.record_names[move.drop] + "打")]
        piece = board.piece_at(move.from_square)
        name = self.record_names[piece.id] if piece is not None else "?"

        def dest(sq):
            return "仝" if sq == prev_to else self.square_text(sq)

        promote = "成" if move.promotion else ""
        if not move.kills and not move.is_pass:
            return [("", f"{dest(move.to_square)}{name}{promote} （←{self.square_text(move.from_square)}）")]
        mid = move.kills if move.kills else tuple(board.routes(move)[:1])
        if len(mid) != 1:
            what = "captures more than one square" if move.kills else "is a pass with no square to step to"
            raise KifError(GameError(f"lishogi's KIF cannot write this move: it {what}", move=str(move)))
        mid = mid[0]
        mark = "（居食い）" if move.kills and move.to_square == move.from_square else ""
        return [("一歩目", f"{dest(mid)}{name} （←{self.square_text(move.from_square)}）"),
                ("二歩目", f"{self.square_text(move.to_square)}{name}{mark}{promote} （←{self.square_text(mid)}）")]


def _alike(pieces, names: dict) -> dict[str, list]:
    """lishogi's names that several pieces have (name -> their IDs); a name one piece has goes to
    ``names``."""
    alike: dict[str, list] = {}
    same_kanji: dict[str, list] = {}
    for p in pieces:
        same_kanji.setdefault(p.kanji or p.id, []).append(p)
    for group in same_kanji.values():
        for name in {n for p in group for n in (p.kanji_name, p.kanji) if n}:
            ids = alike.setdefault(name, [])
            ids.extend(p.id for p in group if p.id not in ids)
    for name, ids in alike.items():
        if len(ids) == 1:
            names.setdefault(name, ids[0])
    return {name: ids for name, ids in alike.items() if len(ids) > 1}


def _move_patterns(piece_re: str, lishogi: bool, numeric: bool) -> tuple[re.Pattern, re.Pattern]:
    """(a move line's pattern, a captured square's) for pieces named by ``piece_re``."""
    if lishogi:
        # half-width (or full-width) file numbers, kanji ranks: 7八, 10十一, １２十二; まで after
        # the piece is passed over (lishogi's rules library reads the last move "7三獅子まで")
        sq = r"(?:1[0-6]|[1-9]|１[０-６]|[１-９])(?:十[一二三四五六]|[一二三四五六七八九十])"
        move_re = re.compile(
            rf"^(?:(?P<step>[一二])歩目\s*)?[▲△☗☖]?\s*(?:(?P<same>[同仝])\s*|(?P<dest>{sq})\s*)"
            rf"(?P<piece>{piece_re})\s*(?P<mark>[（(](?:居食い|じっと)[）)])?\s*(?:まで\s*)?(?P<promo>不成|成|生)?"
            rf"(?P<drop>打)?\s*(?:[（(]\s*←?\s*(?P<origin>{sq})\s*[）)])?(?P<kills>)\s*$", re.IGNORECASE)
    else:
        if numeric:
            sq = r"[１-９1-9][一二三四五六七八九1-9１-９]"
            origin = r"[1-9１-９][1-9１-９]"
        else:
            sq = r"[a-pA-P]\d{1,2}"
            origin = sq
        move_re = re.compile(
            rf"^(?:(?P<same>[同仝])[\s]*|(?P<dest>{sq})\s*)(?P<piece>{piece_re})\s*"
            rf"(?P<promo>不成|成|生)?(?P<drop>打)?\s*"
            rf"(?:[(（]\s*(?P<origin>{origin})\s*[)）])?"
            rf"(?P<kills>(?:\s*[xX×]\s*{sq})*)\s*$", re.IGNORECASE)
    return move_re, re.compile(rf"[xX×]\s*({sq})")


@functools.lru_cache(maxsize=64)  # a style holds its rule set: the cache keeps the few in use
def _style_of(rules) -> Style:
    return Style(rules)
