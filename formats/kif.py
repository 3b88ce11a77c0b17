"""KIF (Kakinoki format) game records: reading and writing, for shogi and, KIF-style, for the variants.

>>> games = read_kif(open("game.kif", "rb").read(), source="game.kif")   # doctest: +SKIP
>>> data = write_kif(games[0], encoding="cp932")                          # doctest: +SKIP

Reading
    The bytes are decoded by the reading pipeline's one policy (:mod:`formats.reading`: a BOM, a
    declared encoding only when the bytes fit it -- a ``#KIF ... encoding=`` line may lie --, UTF-8,
    cp932, EUC-JP); undecodable bytes give a warning on each line they are in.
    Every move is replayed through the rules core (:meth:`replay.Board.play`).  A move that cannot be
    read or is illegal gives a :class:`~formats.game.GameError` (file, game 1, line, column, ply,
    move text, message, expected, suggestions) and the rest of that line of play is skipped: the
    game keeps the valid prefix.  In the default strict mode every problem is an error (the game is
    invalid); with ``lenient=True`` the same problems are recorded as warnings.  Claims that the
    final position does not show (詰み that is not mate, 千日手 without a fourfold repetition) are
    always warnings.  Input that is not KIF at all raises :class:`KifError`; nothing else escapes.

Writing
    :func:`write_kif` writes the usual Kifu for Windows layout: header lines, a board diagram or
    ``手合割`` for the start, ``手数----指手---------消費時間--``, numbered plies with the origin in
    parentheses, ``同　`` for recaptures, ``成``/``不成`` where there was a choice, ``打`` for drops,
    times, ``*`` comments, the ending (``投了`` ...) with its ``まで`` line, and ``変化：N手`` blocks.

Chu Shogi is read and written in lishogi's dialect (``   1手目   7八歩兵 （←7九）``, a Lion's
double move on two lines ``一歩目``/``二歩目``, lishogi's 12x12 diagram, no variant line: a record
naming no variant is Chu Shogi when its diagram has 12 ranks or its moves are written so); the
other variants use the same layout as shogi with the variant's kanji (else its piece IDs) and, on
boards larger than 9x9, algebraic squares; ``docs/kif.md`` describes both with examples.

Times are kept in the move's comment as ``[%emt H:MM:SS]`` (the time the move took); the running
total of the KIF time column is recomputed when writing (``[%kiftotal H:MM:SS]`` is added only
when a file's total differs from the sum).  KIF keys map to tags: 棋戦→Event, 場所→Site,
開始日時→Date (+ ``KifStartTime`` with the original text when it holds more than the date),
先手/下手→Sente, 後手/上手→Gote, 手合割→Handicap; other keys are kept under their own name.  As in
``formats/lsn.py`` the result is ``game.result`` (no ``Result`` tag) and lenient reading sets
``ImportStatus`` when moves were left out.
"""

from __future__ import annotations

import codecs
import re
from array import array
from collections import Counter
import unicodedata
from dataclasses import dataclass, replace

from daikifu.replay import Board, IllegalMoveError, IllegalReason, Move, PositionError
from daikifu.replay.position import format_position
from daikifu.replay.squares import parse_square, square, square_file, square_name, square_rank
from daikifu.replay.variant import OptionSyntaxError, Variant, VariantError, VariantRegistry, parse_options

from .game import SEVEN_TAG_ROSTER, Game, GameError, GameNode, shared_move
from .limits import check_time
from .lsn import GameBuilder, MainLineBuilder

__all__ = ["KifError", "KifGameBuilder", "read_kif", "write_kif", "looks_like_kif", "HANDICAPS", "SPECIALS",
           "IMPORT_STATUS"]

IMPORT_STATUS = "ImportStatus"  # set in lenient mode when moves were left out (as formats/lsn.py)


class KifError(ValueError):
    """Input that cannot be read as KIF at all (or a game that cannot be written as KIF).

    ``error`` is a :class:`GameError` saying where (file, line, column) and what.
    """

    def __init__(self, error: GameError | str):
        if isinstance(error, str):
            error = GameError(error)
        self.error = error
        super().__init__(str(error))


# --- tables --------------------------------------------------------------------------------------

_STANDARD = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
_SENTE_CAMP = "ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"
# 手合割 name -> SFEN.  The handicap giver (上手) is Gote and moves first.
HANDICAPS = {
    "平手": _STANDARD,
    "香落ち": "lnsgkgsn1/1r5b1/" + _SENTE_CAMP,
    "右香落ち": "1nsgkgsnl/1r5b1/" + _SENTE_CAMP,
    "角落ち": "lnsgkgsnl/1r7/" + _SENTE_CAMP,
    "飛車落ち": "lnsgkgsnl/7b1/" + _SENTE_CAMP,
    "飛香落ち": "lnsgkgsn1/7b1/" + _SENTE_CAMP,
    "二枚落ち": "lnsgkgsnl/9/" + _SENTE_CAMP,
    "三枚落ち": "lnsgkgsn1/9/" + _SENTE_CAMP,
    "四枚落ち": "1nsgkgsn1/9/" + _SENTE_CAMP,
    "五枚落ち": "2sgkgsn1/9/" + _SENTE_CAMP,
    "左五枚落ち": "1nsgkgs2/9/" + _SENTE_CAMP,
    "六枚落ち": "2sgkgs2/9/" + _SENTE_CAMP,
    "左七枚落ち": "2sgkg3/9/" + _SENTE_CAMP,
    "右七枚落ち": "3gkgs2/9/" + _SENTE_CAMP,
    "八枚落ち": "3gkg3/9/" + _SENTE_CAMP,
    "十枚落ち": "4k4/9/" + _SENTE_CAMP,
}
_HANDICAP_ALIASES = {"飛落ち": "飛車落ち", "飛車香落ち": "飛香落ち", "2枚落ち": "二枚落ち", "4枚落ち": "四枚落ち",
                     "6枚落ち": "六枚落ち", "8枚落ち": "八枚落ち", "10枚落ち": "十枚落ち"}

WIN, LOSS, DRAW, NONE = "win", "loss", "draw", "none"  # the result for the side to move at the special
# special "moves" that end a line of play -> (Termination, result for the side to move)
SPECIALS = {
    "投了": ("resignation", LOSS),
    "詰み": ("checkmate", LOSS),
    "詰": ("checkmate", LOSS),
    "切れ負け": ("time-forfeit", LOSS),
    "時間切れ": ("time-forfeit", LOSS),
    "反則負け": ("illegal-move", LOSS),
    "反則勝ち": ("illegal-move", WIN),
    "入玉勝ち": ("impasse", WIN),
    "宣言勝ち": ("impasse", WIN),
    "持将棋": ("impasse", DRAW),
    "千日手": ("repetition", DRAW),
    "先日手": ("repetition", DRAW),
    "中断": ("abandoned", NONE),
    "封じ手": ("sealed", NONE),
    "不詰": ("unterminated", NONE),
}
# what the writer writes for (Termination, result for the side to move)
_SPECIAL_FOR = {}
for _word in ("投了", "詰み", "切れ負け", "反則負け", "反則勝ち", "入玉勝ち", "持将棋", "千日手", "中断", "封じ手", "不詰"):
    _SPECIAL_FOR[SPECIALS[_word]] = _word

# KIF header keys -> tags (both directions for the writer)
_KEY_TO_TAG = {"棋戦": "Event", "場所": "Site", "先手": "Sente", "下手": "Sente", "後手": "Gote",
               "上手": "Gote", "手合割": "Handicap"}
_KNOWN_KEYS = {"開始日時", "終了日時", "対局日", "棋戦", "戦型", "持ち時間", "消費時間", "場所", "掲載", "備考",
               "先手", "後手", "下手", "上手", "手合割", "先手の持駒", "後手の持駒", "下手の持駒", "上手の持駒",
               "先手省略名", "後手省略名", "作者", "作品名", "表題", "変種", "初期局面", "変種オプション",
               "手数", "発表誌", "発表年月", "出典", "記録係", "解説", "観戦", "図", "詰将棋", "レーティング",
               "先手チーム", "後手チーム", "秒読み", "対局ID", "記録ID"}
_HAND_KEYS = {"先手の持駒": 0, "下手の持駒": 0, "後手の持駒": 1, "上手の持駒": 1}
_TURN_LINES = {"先手番": 0, "下手番": 0, "後手番": 1, "上手番": 1}

_FW_DIGITS = "０１２３４５６７８９"
_FILE_LABEL_CHARS = "０１２３４５６７８９0123456789 \t\u3000"
_KANJI_DIGITS = "〇一二三四五六七八九"
_DIGIT_VALUE = {**{c: i for i, c in enumerate(_FW_DIGITS)}, **{str(i): i for i in range(10)},
                **{c: i for i, c in enumerate(_KANJI_DIGITS) if i}}
_SHOGI_MOVE_NAMES = {"+S": "成銀", "+N": "成桂", "+L": "成香"}  # Kifu for Windows' names in moves
_KANJI_ALIASES = {"王": "玉", "竜": "龍"}
# board names lishogi's server writes (scalashogi's KifUtils) where its client and the variant file
# have another: 杏 for Chu's promoted Pawn (成歩)
_LISHOGI_BOARD_ALIASES = {"杏": "成歩"}
# other ways to write a character of a piece name (王将 for 玉将, 竜王 for 龍王, 酔象 for 醉象)
_KANJI_ALIAS_CHARS = str.maketrans({"玉": "王", "龍": "竜", "醉": "酔"})

# --- line shapes ---------------------------------------------------------------------------------

_SPACE = " \t\u3000"
_SPACE_BOM = _SPACE + "\ufeff"
_RE_VARIATION = re.compile(r"^\s*変化\s*[：:]\s*(\d{1,9})\s*手")
_RE_MOVES_HEADER = re.compile(r"^\s*手数\s*[-ー－─=]")
_RE_BORDER = re.compile(r"^\s*[+＋][-－ー─]{5,}[+＋]?\s*$")
_RE_ROW = re.compile(r"^\s*[|｜](.*)[|｜]\s*(\S*)\s*$")
# the ply number, then a separator, or 手目 as lishogi's Chu records write it ("  12手目   7八歩兵")
_RE_MOVE_LINE = re.compile(r"^\s*(\d{1,9})(?:\s*手目\s*|[\s.．]+)(\S.*)$")
# the move lines of lishogi's Chu dialect: a Lion's step (一歩目, 二歩目) or an origin as （←7九）
_RE_LISHOGI_MOVE = re.compile(r"^[一二]歩目|[（(]←")
_RE_LION_STEP = re.compile(r"^([一二])歩目")
# the variant lishogi's KIF implies by a 12-rank board diagram or by its Chu move lines
LISHOGI_12X12 = "chu-shogi"
# any number of digits: a time out of range is an error at its place (check_time), not a move
_RE_TIME = re.compile(r"[(（]\s*(?:(\d+):)?(\d+):(\d+)\s*(?:/\s*(\d+):(\d+):(\d+)\s*)?[)）]$")
# its usual shape, whose every field is in range (minutes up to 9,999 without hours, total hours up
# to 9,999: limits.MAX_HOURS)
_RE_SHORT_TIME = re.compile(r"[(（] *(\d{1,4}):([0-5]\d) *(?:/ *(\d{1,4}):([0-5]\d):([0-5]\d) *)?[)）]$", re.ASCII)
_RE_HEADER = re.compile(r"^([^：]*)：(.*)$")
_RE_ASCII_HEADER = re.compile(r"^([^:]*):(.*)$")
_RE_RESULT = re.compile(r"^\s*まで\s*(\d{1,9})\s*手(.*)$")
_RE_KIF_MAGIC = re.compile(r"^#KIF\b")
_RE_PGN_TAG = re.compile(r'^\s*\[\s*[A-Za-z0-9_]+\s+"')
_RE_TIME_CMD = re.compile(r"^\[%emt (\d{1,6}):(\d\d):(\d\d)\](?:\[%kiftotal (\d{1,6}):(\d\d):(\d\d)\])?(?: |$)")
_RE_DATE = re.compile(r"(\d{4})\s*[/\-.年]\s*(\d{1,2})\s*[/\-.月]\s*(\d{1,2})")
_RE_PGN_DATE = re.compile(r"^(?:\d{4}|\?{4})\.(?:\d\d|\?\?)\.(?:\d\d|\?\?)$")


def _kif_date(date: str) -> str:
    """A Date tag as KIF writes it: 2024.05.06 -> 2024/05/06 (PGN's ?? dates are kept as they are)."""
    m = re.match(r"^(\d{4})\.(\d{2})\.(\d{2})$", date)
    return f"{m.group(1)}/{m.group(2)}/{m.group(3)}" if m else date


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "FW" else 1 for c in text)


def _japanese_number(text: str) -> int | None:
    """十七 -> 17, 二 -> 2, 十 -> 10, 17 -> 17; None if not a number."""
    if not text:
        return None
    if len(text) > 6:
        return None
    if text.isascii() and text.isdigit():
        return int(text)
    if all(c in _FW_DIGITS for c in text):
        return int("".join(str(_FW_DIGITS.index(c)) for c in text))
    if "十" in text:
        tens, _, ones = text.partition("十")
        t = 1 if not tens else _DIGIT_VALUE.get(tens) if len(tens) == 1 else None
        o = 0 if not ones else _DIGIT_VALUE.get(ones) if len(ones) == 1 else None
        if t is None or o is None:
            return None
        return t * 10 + o
    if len(text) == 1 and text in _DIGIT_VALUE:
        return _DIGIT_VALUE[text]
    return None


def _kanji_number(n: int) -> str:
    if n < 10:
        return _KANJI_DIGITS[n]
    tens, ones = divmod(n, 10)
    return ("" if tens == 1 else _kanji_number(tens)) + "十" + (_KANJI_DIGITS[ones] if ones else "")


def _full_width(n: int) -> str:
    """12 -> １２ (file numbers above a diagram)."""
    return "".join(_FW_DIGITS[int(d)] for d in str(n))


def _hms(seconds: int) -> str:
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}"


_EMT = {secs: f"[%emt {_hms(secs)}]" for secs in range(600)}  # a move's time as its comment starts


# --- decoding ------------------------------------------------------------------------------------


def _decode(data) -> tuple[str, str, bool]:
    """(text, encoding found, whether undecodable bytes were replaced), by the reading pipeline's
    one decoding policy (:func:`formats.reading.decode_record`)."""
    from .reading import decode_record
    if not isinstance(data, (str, bytes, bytearray, memoryview)):
        raise KifError(f"expected bytes or str, got {type(data).__name__}")
    decoded = decode_record(bytes(data) if isinstance(data, memoryview) else data)
    return decoded.text, decoded.encoding, decoded.replaced > 0


def _split_lines(text: str) -> list[str]:
    lines = re.split(r"\r\n|\r|\n", text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


# --- squares and pieces for one variant ----------------------------------------------------------


class _Style:
    """How squares and pieces of one variant are written in KIF (see docs/kif.md)."""

    @classmethod
    def of(cls, game: Game) -> _Style:
        """The style of ``game``'s rule set, made once per rule set (reading a record should not pay
        for the patterns of its variant's names)."""
        rules = game.rules
        style = _STYLES.get(id(rules))
        if style is None or style.rules is not rules:
            if len(_STYLES) >= 64:
                _STYLES.clear()
            style = _STYLES[id(rules)] = cls(game)
        return style

    def __init__(self, game: Game):
        rules = game.rules
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
        self.alike: dict[str, list] = {}
        if self.lishogi:
            same_kanji: dict[str, list] = {}
            for p in pieces:
                same_kanji.setdefault(p.kanji or p.id, []).append(p)
            for group in same_kanji.values():
                for name in {n for p in group for n in (p.kanji_name, p.kanji) if n}:
                    ids = self.alike.setdefault(name, [])
                    ids.extend(p.id for p in group if p.id not in ids)
            for name, ids in self.alike.items():
                if len(ids) == 1:
                    names.setdefault(name, ids[0])
            self.alike = {name: ids for name, ids in self.alike.items() if len(ids) > 1}
        self.names = names
        for table in (names, self.shared, self.alike):
            for name in list(table):
                alias = name.translate(_KANJI_ALIAS_CHARS)
                if alias != name:
                    table.setdefault(alias, table[name])
        alternatives = sorted(set(names) | set(self.shared) | set(self.alike), key=len, reverse=True)
        piece_re = "|".join(re.escape(n) for n in alternatives)
        if self.lishogi:
            # half-width (or full-width) file numbers, kanji ranks: 7八, 10十一, １２十二; まで after
            # the piece is passed over (lishogi's rules library reads the last move "7三獅子まで")
            sq = r"(?:1[0-6]|[1-9]|１[０-６]|[１-９])(?:十[一二三四五六]|[一二三四五六七八九十])"
            self.move_re = re.compile(
                rf"^(?:(?P<step>[一二])歩目\s*)?[▲△☗☖]?\s*(?:(?P<same>[同仝])\s*|(?P<dest>{sq})\s*)"
                rf"(?P<piece>{piece_re})\s*(?P<mark>[（(](?:居食い|じっと)[）)])?\s*(?:まで\s*)?(?P<promo>不成|成|生)?"
                rf"(?P<drop>打)?\s*(?:[（(]\s*←?\s*(?P<origin>{sq})\s*[）)])?(?P<kills>)\s*$", re.IGNORECASE)
        else:
            if self.numeric:
                sq = r"[１-９1-9][一二三四五六七八九1-9１-９]"
                origin = r"[1-9１-９][1-9１-９]"
            else:
                sq = r"[a-pA-P]\d{1,2}"
                origin = sq
            self.move_re = re.compile(
                rf"^(?:(?P<same>[同仝])[\s]*|(?P<dest>{sq})\s*)(?P<piece>{piece_re})\s*"
                rf"(?P<promo>不成|成|生)?(?P<drop>打)?\s*"
                rf"(?:[(（]\s*(?P<origin>{origin})\s*[)）])?"
                rf"(?P<kills>(?:\s*[xX×]\s*{sq})*)\s*$", re.IGNORECASE)
        self.kill_re = re.compile(rf"[xX×]\s*({sq})")
        # the diagram needs a kanji name for every piece (names of one or more kanji, boards up to 16x16)
        self.diagram = all(self.kanji.get(p.id) for p in pieces)
        self.cell = max((len(k) for k in self.kanji.values()), default=1)
        board_names = list(self.kanji.values())
        if self.lishogi:
            for alias, canonical in _LISHOGI_BOARD_ALIASES.items():
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
            f = self.files - _DIGIT_VALUE[text[0]]
            r = self.ranks - _DIGIT_VALUE[text[1]]
        elif self.lishogi:  # 10十一: the file number, then the rank in kanji
            digits = len(text) - len(text.lstrip(_FW_DIGITS + "0123456789"))
            f = self.files - _japanese_number(text[:digits])
            r = self.ranks - _japanese_number(text[digits:])
        else:
            return parse_square(text.lower(), self.files, self.ranks)
        if not (0 <= f < self.files and 0 <= r < self.ranks):
            raise ValueError(f"square {text} is off the {self.files}x{self.ranks} board")
        return square(f, r)

    def square_text(self, sq: int) -> str:
        if self.numeric:
            return _FW_DIGITS[self.files - square_file(sq)] + _KANJI_DIGITS[self.ranks - square_rank(sq)]
        if self.lishogi:
            return f"{self.files - square_file(sq)}{_kanji_number(self.ranks - square_rank(sq))}"
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
            f = self.files - _DIGIT_VALUE[text[0]]
            r = self.ranks - _DIGIT_VALUE[text[1]]
            if not (0 <= f < self.files and 0 <= r < self.ranks):
                raise ValueError(f"square ({text}) is off the {self.files}x{self.ranks} board")
            return square(f, r)
        return self.parse_square(text)

    # pieces
    def piece_name(self, pid: str, in_move: bool = True) -> str:
        if in_move and self.lishogi:
            return self.record_names[pid]
        if self.shogi and in_move and pid in _SHOGI_MOVE_NAMES:
            return _SHOGI_MOVE_NAMES[pid]
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
        >>> _Style(game).lishogi_steps(board, usi_to_move(board, "7i7h"), None)
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


_STYLES: dict[int, _Style] = {}  # id of a rule set -> its style (see _Style.of)


# --- reading -------------------------------------------------------------------------------------


@dataclass(eq=False, slots=True)  # slots: many are made while a record is read
class _Item:
    """One thing a line says (a KI2 move line says several): made from the line when it is needed,
    and not kept (:class:`_Index` keeps where it is)."""

    kind: str  # header, row, border, turn, move, comment, variation, result, junk, moves-header
    line: int
    text: str = ""
    key: str = ""
    value: str = ""
    number: int = 0
    column: int = 1
    time: tuple | None = None  # (seconds, total seconds or None)
    second: _Item | None = None  # the second step (二歩目) of a Lion's double move, in lishogi's KIF
    problem: tuple | None = None  # (message, column): a time out of range, reported with the move's ply
    start: int = 0  # offset of its line in the text
    sub: int = 0  # its place among the items of its line (KI2 move lines)
    index: int = -1  # its place in the :class:`_Index` of the moves


_KINDS = ("header", "row", "border", "turn", "move", "comment", "variation", "result", "junk", "moves-header",
          "program")
_KIND_CODE = {kind: code for code, kind in enumerate(_KINDS)}
_RE_LINE_END = re.compile(r"\r\n|\r|\n")


def _text_lines(text: str):
    """(line number, offset, line) for each line of ``text`` (without its line end), one at a time:
    a long record is never held as a list of lines."""
    start, end, number = 0, len(text), 1
    cr = "\r" in text
    if not cr or text.count("\r") == text.count("\r\n"):  # LF or CRLF line ends: found by find
        find = text.find
        while start < end:
            nl = find("\n", start)
            if nl < 0:
                nl = end
            yield number, start, text[start:nl - 1 if cr and nl > start and text[nl - 1] == "\r" else nl]
            start = nl + 1
            number += 1
        return
    while start < end:
        m = _RE_LINE_END.search(text, start)
        stop, after = (m.start(), m.end()) if m else (end, end)
        yield number, start, text[start:stop]
        start = after
        number += 1


# this many items after the first move are kept as made, since the reader reads each up to three
# times (to index, to replay, to give to the visitor): every item of an ordinary game, and a bounded
# part of a long one (about 200 KB); the others are made again from their line when read
KEPT_ITEMS = 1024


class _Index:
    """The items from the first move on: the first :data:`KEPT_ITEMS` as made, the others in a few
    bytes each (kind, line, offset of the line, place in the line, number), made again from their
    line when read (:meth:`_Reader.item`), so that a record of 100,000 moves is not held as
    100,000 objects."""

    __slots__ = ("kinds", "kept", "lines", "starts", "subs", "numbers")

    def __init__(self):
        self.kinds = bytearray()  # of every item
        self.kept: list[_Item] = []
        self.lines = array("i")  # the others' (item k is the (k - KEPT_ITEMS)th)
        self.starts = array("q")
        self.subs = array("i")
        self.numbers = array("i")

    def add(self, it: _Item) -> None:
        it.index = len(self.kinds)
        self.kinds.append(_KIND_CODE[it.kind])
        if len(self.kept) < KEPT_ITEMS:
            self.kept.append(it)
            return
        self.lines.append(it.line)
        self.starts.append(it.start)
        self.subs.append(it.sub)
        self.numbers.append(it.number)

    def __len__(self) -> int:
        return len(self.kinds)

    def kind(self, k: int) -> str:
        return _KINDS[self.kinds[k]]

    def number(self, k: int) -> int:
        kept = self.kept
        return kept[k].number if k < len(kept) else self.numbers[k - len(kept)]

    def line(self, k: int) -> int:
        kept = self.kept
        return kept[k].line if k < len(kept) else self.lines[k - len(kept)]


ROOT = -1  # the start position in a :class:`_Tree`


class _Tree:
    """The moves read, in a few bytes a ply: node ``k`` holds ``moves[k]`` (one shared
    :class:`Move` object per distinct move), its parent node (:data:`ROOT` for the start), the
    index of its item (its line, column, text and time are read again from the line), its first
    child and its next sibling.  The nodes of one line of play are numbered one after the other."""

    __slots__ = ("moves", "parents", "items", "first", "next", "root")

    def __init__(self):
        self.moves: list[Move] = []
        self.parents = array("i")
        self.items = array("i")
        self.first = array("i")  # the first child (the main line), or -1
        self.next = array("i")  # the next sibling, or -1
        self.root = -1  # the first child of the start position

    def add(self, parent: int, move: Move, item: int) -> int:
        """A new child of ``parent`` (after its other children), its number."""
        k = len(self.moves)
        self.moves.append(move)
        self.parents.append(parent)
        self.items.append(item)
        self.first.append(-1)
        self.next.append(-1)
        head = self.root if parent == ROOT else self.first[parent]
        if head < 0:
            if parent == ROOT:
                self.root = k
            else:
                self.first[parent] = k
        else:
            while self.next[head] >= 0:
                head = self.next[head]
            self.next[head] = k
        return k

    def is_first_child(self, k: int) -> bool:
        parent = self.parents[k]
        return (self.root if parent == ROOT else self.first[parent]) == k

    def board(self, game: Game, k: int) -> Board:
        """The position after node ``k``'s move (a new board)."""
        moves = []
        while k != ROOT:
            moves.append(self.moves[k])
            k = self.parents[k]
        board = game.start_board()
        for move in reversed(moves):
            board.push(move)
        return board


@dataclass(eq=False)
class _Line:
    """One line of play as read: the main line or one 変化 block."""

    start: int  # ply of its first move
    parent: int  # the node its first move is played from (ROOT: the start position)
    first: int = -1  # its first node; its nodes are first, first + 1, ... (see _Tree)
    count: int = 0  # its nodes
    special: str | None = None
    special_item: _Item | None = None
    result_item: _Item | None = None
    main: bool = False
    broken: bool = False  # replaying stopped at a move that could not be read or was illegal
    end_position: str | None = None  # the position after its last move

    def covers(self, ply: int) -> bool:
        last = self.start + self.count - 1 + (1 if self.special else 0)
        return self.start <= ply <= last

    def node_before(self, ply: int) -> int:
        i = ply - 1 - self.start
        return self.first + i if i >= 0 else self.parent

    def last(self) -> int:
        """Its last node, or the node it starts from when it has none."""
        return self.first + self.count - 1 if self.count else self.parent


def _read_time(t: re.Match, column: int) -> tuple:
    """((seconds, total seconds or None), None) from a match of :data:`_RE_TIME` in a move line's
    text starting at ``column``, or (None, (message, column of the time out of range))."""
    secs, problem = check_time(t.group(1), t.group(2), t.group(3), "time of the move")
    if problem is not None:
        return None, (problem, column + t.start(1 if t.group(1) else 2))
    total = None
    if t.group(4) is not None:
        total, problem = check_time(t.group(4), t.group(5), t.group(6), "total time")
        if problem is not None:
            return None, (problem, column + t.start(4))
    return (secs, total), None


def _move_time(rest: str, column: int):
    """(time or None, problem or None, where the time starts in ``rest``) for the time column at
    the end of a move line's text ``rest`` (starting at ``column``; see :func:`_read_time`), or
    None when it has none.

    >>> _move_time("７六歩(77)   ( 0:05/00:00:05)", 6)
    ((5, 5), None, 10)
    """
    if not rest.endswith((")", "）")):
        return None
    # the time holds no parenthesis: it can only start at the last one
    start = max(rest.rfind("("), rest.rfind("（"))
    t = _RE_SHORT_TIME.match(rest, start)
    if t is not None:  # the usual m:ss or m:ss/hh:mm:ss: in range by its shape
        minutes, seconds, hours, total_m, total_s = t.groups()
        total = None if hours is None else int(hours) * 3600 + int(total_m) * 60 + int(total_s)
        return (int(minutes) * 60 + int(seconds), total), None, start
    t = _RE_TIME.match(rest, start)
    if t is None:
        return None
    time, problem = _read_time(t, column)
    return time, problem, start


def _classify_line(line: str, i: int) -> _Item | None:
    """The item line ``i`` says, or None for a blank line, a bookmark or the file numbers above a
    board diagram."""
    stripped = line.strip(_SPACE_BOM)
    if not stripped:
        return None
    first = stripped[0]
    if line.startswith("#") or first == "#":
        return _Item("program", i, text=line)
    if first == "*":
        lead = line.lstrip(_SPACE)
        if lead.startswith("*"):
            return _Item("comment", i, lead[1:])  # (kind, line, text)
    if first in "&＆":
        return None  # bookmark
    # a line starting with an ASCII digit (a move, or the file numbers over a diagram) is none
    # of these five kinds: most lines are moves, so their patterns are not tried on them
    if not "0" <= first <= "9":
        m = _RE_VARIATION.match(line)
        if m:
            return _Item("variation", i, number=int(m.group(1)), text=stripped)
        m = _RE_RESULT.match(line)
        if m:
            return _Item("result", i, number=int(m.group(1)), text=m.group(2).strip(_SPACE))
        if _RE_MOVES_HEADER.match(line):
            return _Item("moves-header", i)
        if _RE_BORDER.match(line):
            return _Item("border", i)
        m = _RE_ROW.match(line)
        if m:
            return _Item("row", i, text=m.group(1), column=line.index(m.group(1)) + 1 if m.group(1) else 1)
    if len(stripped) > 1 and not stripped.strip(_FILE_LABEL_CHARS):
        return None  # the file numbers above a board diagram
    if stripped in _TURN_LINES:
        return _Item("turn", i, number=_TURN_LINES[stripped])
    m = _RE_MOVE_LINE.match(line)
    if m:
        rest = m.group(2).rstrip(_SPACE)
        if rest.endswith("+"):  # Kifu for Windows' mark of a move with variations
            rest = rest[:-1].rstrip(_SPACE)
        time = problem = None
        column = m.start(2) + 1
        found = _move_time(rest, column)
        if found is not None:
            time, problem, at = found
            rest = rest[:at].rstrip(_SPACE)
        try:
            number = int(m.group(1))
        except ValueError:  # pragma: no cover - int() of digits does not fail
            number = 0
        return _Item("move", i, text=rest, number=number, column=column, time=time, problem=problem)
    m = _RE_HEADER.match(line)
    if m and not m.group(1).strip(_SPACE):
        m = None
    if not m:
        m2 = _RE_ASCII_HEADER.match(line)
        if m2 and m2.group(1).strip(_SPACE) in _KNOWN_KEYS:
            m = m2
    if m:
        key = m.group(1).strip(_SPACE)
        value = m.group(2).strip(_SPACE)
        return _Item("header", i, key=key, value=value)
    return _Item("junk", i, text=line)


class _Reader:
    def __init__(self, text: str, source, variant, lenient: bool, replaced: bool, variants=None):
        self.text = text
        self.source = source
        self.variant_arg = variant
        self.variants = variants or VariantRegistry.default()
        self.lenient = lenient
        self.replaced = replaced
        self.errors: list[GameError] = []
        self.dead = False
        self.termination = None
        self.truncated = False  # the main line was cut short by an error
        self.dropped = False  # some variation (or part of one) was not read
        self.implied = "shogi"  # the variant when the record names none (see implied_variant)

    def line_items(self, line: str, number: int) -> list:
        """What line ``number`` says: no item, or one (a KI2 move line says several)."""
        it = _classify_line(line, number)
        return [] if it is None else [it]

    def classify(self):
        """The items of the text, one line at a time, each knowing where its line is."""
        if type(self).line_items is _Reader.line_items:  # (KIF: a line says one item at most)
            for number, start, line in _text_lines(self.text):
                it = _classify_line(line, number)
                if it is not None:
                    it.start = start
                    yield it
            return
        for number, start, line in _text_lines(self.text):
            for sub, it in enumerate(self.line_items(line, number)):
                it.start, it.sub = start, sub
                yield it

    def item(self, index: _Index, k: int) -> _Item:
        """Item ``k`` of the moves: as kept (:data:`KEPT_ITEMS`), or made again from its line."""
        kept = index.kept
        if k < len(kept):
            return kept[k]
        j = k - len(kept)
        start = index.starts[j]
        if start != self._cached_start:  # (a KI2 line holds several items, read one after the other)
            m = _RE_LINE_END.search(self.text, start)
            line = self.text[start:m.start() if m else len(self.text)]
            self._cached_start, self._cached = start, self.line_items(line, index.lines[j])
        it = self._cached[index.subs[j]]
        it.kind, it.number, it.index, it.start = index.kind(k), index.numbers[j], k, start
        return it

    def move_item(self, index: _Index, k: int) -> tuple[_Item, int]:
        """(item ``k``, the index after it); in lishogi's KIF a Lion's two lines (``一歩目``, then
        ``二歩目``) are one move item holding the second in ``second`` (a step without its partner
        is left alone, for :meth:`parse_lion_move` to report)."""
        it = self.item(index, k)
        if (self.style.lishogi and it.kind == "move" and it.text.startswith("一歩目") and k + 1 < len(index)
                and index.kinds[k + 1] == _KIND_CODE["move"]):
            nxt = self.item(index, k + 1)
            if nxt.text.startswith("二歩目"):  # (a new item: the items kept are not changed)
                return replace(it, second=nxt, time=nxt.time), k + 2
        return it, k + 1

    def items(self, index: _Index):
        """The items of the moves in order (see :meth:`move_item`)."""
        k, n = 0, len(index.kinds)
        if not self.style.lishogi:  # (one item a move: those kept first)
            yield from index.kept
            k = len(index.kept)
        while k < n:
            it, k = self.move_item(index, k)
            yield it

    # problems
    def problem(self, message, *, kind="error", line=None, column=None, ply=None, move=None,
                expected=None, suggestions=()):
        if self.lenient and kind == "error":
            kind = "warning"
        self.errors.append(GameError(message, file=self.source, game=1, line=line, column=column, ply=ply,
                                     move=move, expected=expected, suggestions=list(suggestions), kind=kind))

    def fatal(self, message, line=None, column=None):
        raise KifError(GameError(message, file=self.source, game=1, line=line, column=column))

    # the whole game
    def read(self, visitor=None):
        """The game, given to ``visitor`` (default: a :class:`KifGameBuilder`, which builds the
        :class:`Game`); what its ``end_game`` returns."""
        # one pass over the lines: the items before the first move (headers, diagram, comments)
        # are kept, those after it in the compact index (see _Index); then the moves are replayed,
        # given to the visitor as they are (no 変化 block: read_in_one_pass) or after (emit)
        preamble: list[_Item] = []
        headers: list[_Item] = []
        index = self.index = _Index()
        self._cached_start, self._cached = -1, []
        first_line = None
        kif_like = magic = lishogi_moves = in_moves = False
        for it in self.classify():
            if first_line is None:
                first_line = it.line
            kind = it.kind
            if kind == "move":  # (most items)
                kif_like = in_moves = True
                text = it.text
                if not lishogi_moves and ("←" in text or "歩目" in text) and _RE_LISHOGI_MOVE.search(text):
                    lishogi_moves = True
            else:
                if kind == "header":
                    headers.append(it)
                if kind not in ("junk", "program"):
                    kif_like = True
                elif kind == "program" and _RE_KIF_MAGIC.match(it.text):
                    magic = True
                if not (in_moves or kind in ("variation", "result")):
                    preamble.append(it)
                    continue
                in_moves = True
            index.add(it)
        if not kif_like and not magic:
            self.fatal("not a KIF record: no header, board, move or comment line found", line=first_line)

        self.implied = self.implied_variant(preamble, lishogi_moves)
        game = self.make_game(headers)
        self.setup_start(game, preamble, headers)
        tags = self.collect_tags(headers)
        for it in preamble:
            if it.kind == "junk":
                self.problem(f"unrecognised line {it.text.strip()!r}", line=it.line, column=1,
                             expected="a header line 'key：value', a board diagram, a comment or a move")
        root_comments = [it.text for it in preamble if it.kind == "comment"]
        del preamble
        game.source_file = self.source
        game.number = 1
        first_line = first_line if first_line is not None else 1
        visitor = KifGameBuilder() if visitor is None else visitor() if isinstance(visitor, type) else visitor
        if isinstance(visitor, KifGameBuilder):
            visitor.prepared = game
        if self.in_one_pass(index, visitor, tags):
            return self.read_in_one_pass(visitor, game, index, tags, root_comments, first_line)
        tree = self.read_moves(game, index, root_comments)
        self.set_tags(game, tags)
        self.set_outcome_tags(game)
        self.finish_errors(first_line)
        return self.emit(visitor, game, tree, "\n".join(root_comments), first_line)

    def finish_errors(self, first_line: int) -> None:
        if self.replaced:  # bytes given here, not through the pipeline: its warnings, one per line
            from .reading import finish_errors
            finish_errors(self.errors, self.text, first_line, self.source, 1)

    def in_one_pass(self, index: _Index, visitor, tags) -> bool:
        """Whether the moves are given to ``visitor`` while they are replayed (:meth:`read_in_one_pass`):
        a record without 変化 blocks, whose tags the replay cannot change (no ending is claimed, so
        no Termination; strict, so no ImportStatus) or read by a builder that only collects the
        tags (:func:`_collects_tags`; and no tag of the record is called ImportStatus)."""
        if self.dead or _KIND_CODE["variation"] in index.kinds:
            return False
        if _collects_tags(visitor):
            return all(tag[0] != IMPORT_STATUS for tag in tags)
        return (not self.lenient and _KIND_CODE["result"] not in index.kinds
                and not any(word in self.text for word in SPECIALS))

    def read_in_one_pass(self, visitor, game: Game, index: _Index, tags, root_comments, first_line: int):
        """The game of a record without 変化 blocks given to ``visitor`` while its moves are replayed:
        the same calls as :meth:`emit` after :meth:`read_moves` (no move tree is built), but for
        the tags only the replay tells (Termination, ImportStatus), given after the moves to a
        builder that only collects them (:func:`_collects_tags`)."""
        from .lsn import Visitor
        self.set_tags(game, tags)
        visitor.begin_game(1, first_line)
        for name, value in self.headers(game):
            visitor.visit_header(name, value)
        giver = None
        if visitor.end_headers() is not Visitor.SKIP:
            giver = _Giver(self, visitor, game, root_comments)
        self.read_moves(game, index, root_comments, giver)
        if giver is not None:
            giver.finish()
        for name, value in self.set_outcome_tags(game):
            visitor.visit_header(name, value)
        self.finish_errors(first_line)
        if giver is not None:
            visitor.visit_result(game.result)
        for error in self.errors:
            visitor.visit_error(error)
        return visitor.end_game(self.text, 0)

    @staticmethod
    def implied_variant(preamble, lishogi_moves: bool) -> str:
        """The variant a record without ``変種：`` is read in, by lishogi's rule: Chu Shogi when the
        board diagram has 12 ranks or a move is written as lishogi writes Chu moves (``（←7九）``,
        ``一歩目``: ``lishogi_moves``), else shogi."""
        if sum(1 for it in preamble if it.kind == "row") == 12 or lishogi_moves:
            return LISHOGI_12X12
        return "shogi"

    def make_game(self, headers) -> Game:
        declared = next((h for h in headers if h.key == "変種"), None)
        options = {}
        opt = next((h for h in headers if h.key == "変種オプション"), None)
        if opt:
            try:
                options = parse_options(opt.value)
            except OptionSyntaxError as exc:  # read with the variant's defaults, and say so
                self.problem(f"variant options {opt.value!r}: {exc}", line=opt.line)
        name = self.variant_arg
        if name is None:
            name = declared.value.strip() if declared and declared.value.strip() else self.implied
        try:
            variant = name if isinstance(name, Variant) else self.variants.load(name)
            try:
                game = Game(variant, options)
                game.rules  # noqa: B018 - compile now, so that an incomplete variant fails here
            except VariantError as exc:
                if not options:
                    raise
                self.problem(f"variant options {opt.value!r}: {exc}", line=opt.line)
                game = Game(variant)
                game.rules  # noqa: B018
        except VariantError as exc:
            where = declared.line if declared and self.variant_arg is None else None
            self.fatal(f"cannot read the moves: {exc}", line=where)
        if declared and self.variant_arg is not None:
            try:
                other = self.variants.load(declared.value.strip())
            except VariantError:
                other = None
            if other is None or other.slug != game.variant.slug:
                self.problem(f"the file says 変種：{declared.value.strip()}, read as {game.variant.name}",
                             line=declared.line)
        self.style = _Style.of(game)
        return game

    # start position
    def setup_start(self, game: Game, items, headers) -> None:
        style = self.style
        start = None
        handicap = next((h for h in headers if h.key == "手合割"), None)
        explicit = next((h for h in headers if h.key == "初期局面"), None)
        rows = [it for it in items if it.kind == "row"]
        borders = [it for it in items if it.kind == "border"]
        hands_items = [h for h in headers if h.key in _HAND_KEYS]
        turn_items = [it for it in items if it.kind == "turn"]
        if explicit is not None:
            start = explicit.value.strip()
            where = explicit.line
        elif rows or borders:
            start = self.parse_diagram(game, rows, borders, hands_items, turn_items)
            where = rows[0].line if rows else borders[0].line
            if start is None:
                self.dead = True
                return
        elif handicap is not None and style.shogi:
            name = handicap.value.strip(_SPACE)
            name = _HANDICAP_ALIASES.get(name, name)
            if name in HANDICAPS:
                start = HANDICAPS[name] if name != "平手" else None
            else:
                self.problem(f"unknown handicap 手合割：{name} and no board diagram",
                             line=handicap.line, expected="one of " + " ".join(HANDICAPS) + " or a board diagram")
                self.dead = True
                return
            where = handicap.line
        self.dead = False
        if start is not None:
            try:
                board = Board(game.rules, start)
                start = board.position()
            except (PositionError, ValueError, KeyError, IndexError) as exc:
                self.problem(f"bad start position: {exc}", line=where)
                self.dead = True
                return
            game.start = None if start == game.rules.start else start

    def parse_diagram(self, game, rows, borders, hands_items, turn_items) -> str | None:
        style = self.style
        if not style.diagram_readable:
            self.problem(f"board diagrams are not supported for {game.variant.name}: use 初期局面",
                         line=(rows or borders)[0].line)
            return None
        files, ranks = style.files, style.ranks
        if len(rows) != ranks:
            self.problem(f"the board diagram has {len(rows)} ranks, {game.variant.name} has {ranks}",
                         line=(rows or borders)[0].line, expected=f"{ranks} rows between two borders")
            return None
        cells = {}
        for r_index, row in enumerate(rows):
            rank = ranks - 1 - r_index
            f = 0
            gote = False
            text = row.text
            i = 0
            while i < len(text):
                c = text[i]
                if c in " \u3000\t":
                    i += 1
                    continue
                if c in "vV^":
                    gote = True
                    i += 1
                    continue
                if f >= files:
                    self.problem(f"board row has more than {files} squares", line=row.line)
                    return None
                if c in "・･.":
                    f += 1
                    gote = False
                    i += 1
                    continue
                name = self.board_name(text, i)
                ids = style.piece_ids(name) if name else []
                if len(ids) != 1:
                    what = (f"the name {name!r} is shared by {' and '.join(ids)}: the diagram cannot tell them "
                            f"apart (use 初期局面)") if ids else f"unknown piece {text[i:i + 2]!r} in the board diagram"
                    self.problem(what, line=row.line, column=row.column + i)
                    return None
                cells[(f, rank)] = (game.rules.type_by_id[ids[0]].index, 1 if gote else 0)
                gote = False
                f += 1
                i += len(name)
            if f != files:
                self.problem(f"board row has {f} squares, expected {files}", line=row.line)
                return None
        ntypes = len(game.variant.pieces)
        hands = [[0] * (ntypes + 1), [0] * (ntypes + 1)]
        for h in hands_items:
            colour = _HAND_KEYS[h.key]
            value = h.value.strip(_SPACE)
            if value in ("", "なし"):
                continue
            for token in re.split(r"[\s\u3000、,]+", value):
                if not token:
                    continue
                name = self.board_name(token, 0) or token[0]
                pid = style.piece_id(name)
                count = _japanese_number(token[len(name):]) if len(token) > len(name) else 1
                if pid is None or count is None:
                    self.problem(f"cannot read {token!r} in the pieces in hand", line=h.line)
                    return None
                hands[colour][game.rules.type_by_id[pid].index] += count
        turn = turn_items[-1].number if turn_items else 0
        return format_position(game.variant, lambda f, r: cells.get((f, r)), hands, turn, 1)

    def board_name(self, text: str, i: int) -> str | None:
        """The longest piece name (or alias such as 王, 竜) at ``text[i]``, or None."""
        style = self.style
        for name in style.board_names + list(style.shared) + list(_KANJI_ALIASES):
            if text.startswith(name, i):
                return name
        return None

    # tags
    def collect_tags(self, headers) -> list:
        tags: list[list[str]] = []

        def add(name, value):
            for item in tags:
                if item[0] == name:
                    item[1] += "\n" + value
                    return
            tags.append([name, value])

        for h in headers:
            key, value = h.key, h.value
            if key in _HAND_KEYS or key in ("変種", "初期局面", "変種オプション"):
                continue
            if key == "開始日時":
                if any(t[0] in ("Date", "KifStartTime") for t in tags):
                    continue  # all the 開始日時 lines are handled at the first
                raw = "\n".join(x.value for x in headers if x.key == "開始日時")
                m = _RE_DATE.search(value)
                if _RE_PGN_DATE.match(value):
                    date = value
                elif m:
                    date = f"{int(m.group(1)):04d}.{int(m.group(2)):02d}.{int(m.group(3)):02d}"
                else:
                    date = None
                if date is not None:
                    add("Date", date)
                if date is None or raw != _kif_date(date):
                    add("KifStartTime", raw)
                continue
            if key == "手合割":
                value = value.strip(_SPACE)
            add(_KEY_TO_TAG.get(key, key), value)
        return tags

    def set_tags(self, game: Game, tags) -> None:
        """The record's tags on ``game`` (:meth:`set_outcome_tags` adds those the replay tells)."""
        # as formats/lsn.py: the model holds Variant and Result itself; unknown ("?") roster tags
        # are left out; the roster comes first
        tags = [t for t in tags if t[0] not in ("Variant", "Result", "Termination")
                and not (t[0] in SEVEN_TAG_ROSTER and t[1] in ("?", "????.??.??"))]
        by_name = {t[0]: t[1] for t in tags}
        for name in SEVEN_TAG_ROSTER[1:]:
            if name in by_name:
                game.headers[name] = by_name[name]
        for name, value in tags:
            if name not in SEVEN_TAG_ROSTER:
                game.headers[name] = value

    def set_outcome_tags(self, game: Game) -> list:
        """The tags the replay tells (ImportStatus, Termination), after the others on ``game``: the
        pairs set."""
        added = []
        if self.lenient and (self.truncated or self.dropped):
            added.append((IMPORT_STATUS, "truncated" if self.truncated else "variations-dropped"))
        if self.termination:
            added.append(("Termination", self.termination))
        for name, value in added:
            game.headers[name] = value
        return added

    # moves
    def read_moves(self, game: Game, index: _Index, root_comments, giver: _Giver | None = None) -> _Tree:
        """The moves of every line of play, in file order, into a :class:`_Tree` (and what the lines
        claim: :attr:`specials`, :attr:`comments`, :attr:`starting`), replayed on one board; or,
        for a record without 変化 blocks, each move given to ``giver`` as it is replayed (no tree)."""
        self.termination = None
        tree = _Tree()
        self.specials: dict = {}  # node -> (special word, seconds or None) ending its line (kif_special)
        self.comments: dict = {}  # node -> the comment lines after its move
        self.starting: dict = {}  # node -> the comment before the first move of a variation
        comments = self.comments
        main = _Line(1, ROOT, main=True)
        lines = [main]
        cur = main
        dead = self.dead
        if dead:
            if _KIND_CODE["move"] in index.kinds:
                self.problem("the moves cannot be replayed without a start position", line=index.line(0))
                self.truncated = True
            return tree
        board = game.start_board()
        # positions of the nodes that variations may branch from, so that a variation does not
        # replay its whole path (a record may hold thousands of 変化 blocks)
        variation = _KIND_CODE["variation"]
        targets = {index.number(k) - 1 for k, code in enumerate(index.kinds) if code == variation}
        positions = {ROOT: board.position()} if targets else {}
        prev_to = None
        stopped = False  # after a special or an error in the current block
        pending: list[str] = []  # comments before the first move of a variation
        block_dead = False
        for it in self.items(index):
            kind = it.kind
            if kind != "move":  # (most items are moves: one test for them)
                if kind == "variation":
                    n = it.number
                    parent_line = next((ln for ln in reversed(lines) if ln.covers(n)), None) if n >= 1 else None
                    pending = []
                    if parent_line is None and n >= 1:
                        # a 変化 one ply after the end of a line (激指 writes these): its continuation
                        parent_line = next((ln for ln in reversed(lines) if ln.special is None and ln.count
                                            and not ln.broken and ln.start + ln.count == n), None)
                        if parent_line is not None:
                            self.problem(f"変化：{n}手 starts after the last move of its line: read as the "
                                         f"line's continuation", kind="warning", line=it.line, ply=n)
                    cur.end_position = board.position()
                    if not cur.count and cur.special is None and not cur.main and lines[-1] is cur:
                        lines.pop()  # an empty block: nothing can branch from it
                    if parent_line is None:
                        self.problem(f"変化：{n}手 does not branch from any line read so far", line=it.line,
                                     column=1, ply=n, expected="a ply number of a move already read")
                        self.dropped = True
                        block_dead = True
                        continue
                    if parent_line.special is not None and n == parent_line.start + parent_line.count:
                        # an alternative to the line's ending (投了 ...): the moves continue the line
                        self.problem(f"変化：{n}手 replaces the ending {parent_line.special}: read as the line's "
                                     f"continuation", kind="warning", line=it.line, ply=n)
                        self.specials.pop(parent_line.last(), None)
                        parent_line.special = None
                        parent_line.special_item = None
                        parent_line.result_item = None
                    parent = parent_line.node_before(n)
                    cur = _Line(n, parent)
                    lines.append(cur)
                    if parent in positions:
                        board = Board(game.rules, positions[parent])
                    else:  # pragma: no cover - every branching point is in targets
                        board = tree.board(game, parent)
                    prev_to = tree.moves[parent].to_square if parent != ROOT else None
                    stopped = False
                    block_dead = False
                    continue
                if block_dead:
                    continue
                if kind == "comment":
                    if stopped and cur.special is None:
                        continue  # comments on moves that were not read
                    if cur.count:
                        comments.setdefault(cur.last(), []).append(it.text)
                    elif cur.main:
                        root_comments.append(it.text)
                    else:
                        pending.append(it.text)
                    continue
                if kind == "result":
                    cur.result_item = it
                    continue
                if kind in ("header", "moves-header", "program"):
                    continue
                if kind in ("row", "border", "turn"):
                    self.problem("board diagram after the moves", line=it.line, column=1)
                    continue
                if kind == "junk":
                    self.problem(f"unrecognised line {it.text.strip()!r}", line=it.line, column=1,
                                 expected="a move line such as '   1 ７六歩(77)', a comment '*...' or 変化：N手")
                    continue
                continue
            if block_dead:
                continue
            # a move line
            if stopped:
                if cur.special is not None:  # reported once; the rest of the block is skipped
                    self.problem(f"move after the end of the line ({cur.special})", line=it.line,
                                 column=it.column, move=it.text, ply=it.number)
                    block_dead = True
                    if cur.main:
                        self.truncated = True
                    else:
                        self.dropped = True
                continue
            ply = cur.start + cur.count
            text = it.text
            if it.problem is not None:  # the time is left out; the move is read
                self.problem(it.problem[0], line=it.line, column=it.problem[1], ply=ply, move=text,
                             expected="a time m:ss/h:mm:ss whose minutes after hours and seconds run from 0 to 59")
            if it.number != ply:
                self.problem(f"ply number {it.number}, expected {ply} (read as ply {ply})", kind="warning",
                             line=it.line, column=1, ply=ply, move=text)
            word = text.split(None, 1)
            word = word[0] if word else ""
            if word in SPECIALS:
                cur.special = word
                cur.special_item = it
                if cur.count or cur.main:
                    self.specials[cur.last()] = (word, it.time[0] if it.time else None)
                else:
                    self.problem(f"variation with no move before {word} dropped", kind="warning", line=it.line,
                                 ply=ply, move=text)
                stopped = True
                continue
            move = self.parse_move(board, text, prev_to, it, ply)
            if move is None:
                stopped = True
                cur.broken = True
                if cur.main:
                    self.truncated = True
                else:
                    self.dropped = True
                continue
            if giver is None:  # (the tree holds one object per distinct move)
                node = tree.add(cur.last(), shared_move(move), it.index)
            else:  # (the visitor shares the moves it keeps, if it keeps them)
                node = giver.move(it, move)
            if pending:
                self.starting[node] = "\n".join(pending)
                pending = []
            if not cur.count:
                cur.first = node
            cur.count += 1
            prev_to = move.to_square
            if cur.start + cur.count - 1 in targets:
                positions[node] = board.position()
        cur.end_position = board.position()
        del positions
        # (with a giver there are no variations: the board is at the end of the one line)
        self.finish_lines(game, tree, lines, board if giver is not None else None)
        return tree

    def parse_move(self, board: Board, text: str, prev_to, it: _Item, ply: int) -> Move | None:
        style = self.style
        where = {"line": it.line, "column": it.column, "ply": ply, "move": text}
        if style.lishogi and _RE_LION_STEP.match(text):
            return self.parse_lion_move(board, prev_to, it, ply)
        m = style.move_re.match(text)
        if not m:
            example = "７六歩(77)" if style.numeric else "7八歩兵 （←7九）" if style.lishogi else "e5 P(e4)"
            self.problem("cannot read the move", expected=f"destination, piece, origin, e.g. {example!r}",
                         suggestions=self.suggest(board, None, prev_to), **where)
            return None
        if style.lishogi and m.group("mark"):
            self.problem(f"{m.group('mark')} marks the second step of a Lion's double move",
                         expected="二歩目 before the move, after a 一歩目 line", **where)
            return None
        same, dest, kill_text, origin_text, name, promo_text, drop = m.group(
            "same", "dest", "kills", "origin", "piece", "promo", "drop")
        try:
            if same:
                if prev_to is None:
                    self.problem("同 (same square) with no previous move", expected="a destination square",
                                 **where)
                    return None
                to = prev_to
            else:
                to = style.parse_square(dest)
            kills = tuple(style.parse_square(k) for k in style.kill_re.findall(kill_text)) if kill_text else ()
            origin = style.parse_origin(origin_text) if origin_text else None
        except (ValueError, KeyError, IndexError) as exc:
            self.problem(str(exc), expected="a square on the board", **where)
            return None
        ids = style.piece_ids(name, in_move=True)
        pid = ids[0] if ids else None
        drop = bool(drop)
        if pid is None:  # pragma: no cover - the regular expression only matches known names
            self.problem("unknown piece", **where)
            return None
        if drop or (origin is None and not kills):
            if origin is not None or promo_text or kills:
                self.problem("a drop has no origin, promotion or captures", **where)
                return None
            if not drop and not board.rules.drops:
                self.problem("the move has no origin square", expected="an origin in parentheses, e.g. (77)",
                             suggestions=self.suggest(board, to, prev_to), **where)
                return None
            if len(ids) > 1:  # a shared name: the piece in hand tells, if only one of them is
                held = [i for i in ids if board.hand(board.turn).get(i)]
                if len(held) != 1:
                    self.problem(f"{m.group('piece')} names {' and '.join(ids)}: which one is dropped?",
                                 expected="the piece ID instead of the shared name", **where)
                    return None
                pid = held[0]
            move = Move(None, to, (), None, pid)
        else:
            if origin is None:
                self.problem("the move has no origin square", expected="an origin in parentheses",
                             suggestions=self.suggest(board, to, prev_to), **where)
                return None
            piece = board.piece_at(origin)
            if piece is None:
                self.problem(f"there is no piece on {style.square_text(origin)}",
                             suggestions=self.suggest(board, to, prev_to), expected="a legal move", **where)
                return None
            if piece.id in ids:
                pid = piece.id  # a shared name is resolved by the piece on the origin square
            if piece.id != pid:
                self.problem(f"the piece on {style.square_text(origin)} is {style.piece_name(piece.id)}, "
                             f"not {m.group('piece')}", suggestions=self.suggest(board, to, prev_to),
                             expected="a legal move", **where)
                return None
            if promo_text == "成":
                promotion = True
            elif promo_text:
                promotion = False
            else:
                promotion = False if self.can_promote(board, origin, to, piece) else None
            move = Move(origin, to, kills, promotion)
        return self.play(board, move, to, prev_to, where)

    def play(self, board: Board, move: Move, to: int, prev_to, where: dict) -> Move | None:
        """``move`` played on ``board``, or None and a problem saying why it is illegal."""
        rules = board.rules
        if move.promotion is False and (rules.promote_on_entry or rules.promote_last_rank):
            # no promotion written: declined where the rules offered one (a shape of the zone
            # alone does not tell under Chu's rule), else none
            refused = board.illegality(move)
            if refused is not None and refused.code is IllegalReason.CANNOT_PROMOTE:
                move = move._replace(promotion=None)
        try:
            board.play(move)
        except IllegalMoveError as exc:
            self.problem(f"illegal move: {exc.reason}", expected="a legal move",
                         suggestions=self.suggest(board, to, prev_to), **where)
            return None
        except (KeyError, IndexError, ValueError) as exc:
            self.problem(f"illegal move: {exc}", expected="a legal move", **where)
            return None
        return move

    def parse_lion_move(self, board: Board, prev_to, it: _Item, ply: int) -> Move | None:
        """A Lion's double move in lishogi's two lines, ``一歩目 6六獅子 （←7七）`` then
        ``二歩目 7七獅子（居食い） （←6六）``, read as one move: origin, the first step's square,
        destination (lishogi's USI ``7g6f7g``)."""
        from daikifu.replay.usi import UsiError, usi_square, usi_to_move
        style = self.style
        first, second = it, it.second
        if _RE_LION_STEP.match(it.text).group(1) == "二":
            self.problem("a second step (二歩目) with no first step (一歩目) on the line before",
                         expected="一歩目 on the move line before", line=it.line, column=it.column, ply=ply,
                         move=it.text)
            return None
        if second is None:
            self.problem("a first step (一歩目) with no second step (二歩目) on the next line",
                         expected="the Lion's second step, 二歩目, on the next move line", line=it.line,
                         column=it.column, ply=ply, move=it.text)
            return None
        steps = []
        for step in (first, second):
            where = dict(line=step.line, column=step.column, ply=ply, move=step.text)
            m = style.move_re.match(step.text)
            if not m or not m.group("origin"):
                self.problem("cannot read the step", expected="destination, piece, origin, e.g. '一歩目 7九獅子 （←7十）'",
                             **where)
                return None
            try:
                to = prev_to if m.group("same") else style.parse_square(m.group("dest"))
                origin = style.parse_square(m.group("origin"))
            except (ValueError, KeyError, IndexError, TypeError) as exc:
                self.problem(str(exc), expected="a square on the board", **where)
                return None
            if to is None:
                self.problem("仝 (same square) with no previous move", expected="a destination square", **where)
                return None
            steps.append((m, origin, to, where))
        (m1, origin, mid, where1), (m2, origin2, to, where2) = steps
        if origin2 != mid:
            self.problem(f"the second step starts on {style.square_text(origin2)}, the first ended on "
                         f"{style.square_text(mid)}", expected=f"（←{style.square_text(mid)}）", **where2)
            return None
        piece = board.piece_at(origin)
        for m, where in ((m1, where1), (m2, where2)):
            if piece is None or piece.id not in style.piece_ids(m.group("piece"), in_move=True):
                what = f"there is no piece on {style.square_text(origin)}" if piece is None else \
                    f"the piece on {style.square_text(origin)} is {style.piece_name(piece.id)}, not {m.group('piece')}"
                self.problem(what, expected="a legal move", suggestions=self.suggest(board, None, prev_to), **where)
                return None
        if m1.group("mark") or m1.group("promo") or m1.group("drop"):
            self.problem("the first step of a double move has no mark, promotion or drop", **where1)
            return None
        mark = (m2.group("mark") or "")[1:-1]
        igui = to == origin and board.piece_at(mid) is not None
        if mark and mark != ("居食い" if igui else "じっと" if to == origin else ""):
            self.problem(f"the move is marked {mark}, but it is "
                         f"{'igui' if igui else 'a pass' if to == origin else 'no capture without moving'}",
                         expected="居食い only on igui, じっと only on a pass", **where2)
            return None
        usi = "".join(usi_square(board, sq) for sq in (origin, mid, to)) + ("+" if m2.group("promo") == "成" else "")
        try:
            move = usi_to_move(board, usi)
        except UsiError as exc:
            self.problem(f"illegal move: {exc.reason.removeprefix('illegal: ')}", expected="a legal move",
                         suggestions=self.suggest(board, to, prev_to), **where2)
            return None
        return self.play(board, move, to, prev_to, where2)

    @staticmethod
    def can_promote(board: Board, origin: int, to: int, piece) -> bool:
        """Whether ``piece``, on ``origin``, may promote moving to ``to`` (by the zone's shape)."""
        rules = board.rules
        code = rules.type_by_id[piece.id].index * 2 + piece.colour
        if not rules.promote[code]:
            return False
        zone = rules.zone[piece.colour]
        return bool(zone[origin] or zone[to])

    def suggest(self, board: Board, to, prev_to) -> list[str]:
        """Legal moves to the same square (or a few legal moves), in KIF notation."""
        try:
            legal = board.legal_moves()
        except Exception:  # pragma: no cover - the rules core should not fail here
            return []
        chosen = [m for m in legal if m.to_square == to] if to is not None else []
        out = []
        for m in chosen[:5]:
            try:
                out.append(self.style.move_text(board, m, prev_to))
            except (KeyError, IndexError, ValueError):  # pragma: no cover
                continue
        return out

    def finish_lines(self, game: Game, tree: _Tree, lines: list, end_board: Board | None = None) -> None:
        """The result and ending the lines claim, checked; ``end_board``: the position at the end of
        the only line, with its history (else each is replayed from ``tree``)."""
        budget = 200_000  # plies replayed to check repetition claims (a bound for huge records)
        unchecked = 0
        for ln in lines:
            if ln.broken or ln.end_position is None or (ln.special is None and ln.result_item is None):
                continue  # the claims of a line cut short by an error are not checked
            mover = 1 if ln.end_position.split()[1] == "w" else 0
            claimed = self.line_outcome(ln, mover)
            if claimed is None:
                continue
            termination, result, where = claimed
            if ln.main:
                self.termination = termination
                game.result = result
            if termination == "checkmate":
                self.check_claim(termination, Board(game.rules, ln.end_position), where, ln)
            elif termination == "repetition":
                depth = ln.start - 1 + ln.count
                if depth > budget:
                    unchecked += 1
                    continue
                budget -= depth
                board = end_board if end_board is not None else tree.board(game, ln.last())
                self.check_claim(termination, board, where, ln)
        if unchecked:
            self.problem(f"{unchecked} repetition claims not checked (record too large)", kind="warning")

    def line_outcome(self, ln: _Line, mover: int):
        """(Termination, result, item) claimed for the end of a line, from its special or まで line."""
        from_special = None
        if ln.special is not None:
            termination, rel = SPECIALS[ln.special]
            from_special = (termination, _result_for(rel, mover))
        from_line = None
        if ln.result_item is not None:
            from_line = _parse_made(ln.result_item.text, mover)
            n_moves = ln.start - 1 + ln.count
            if ln.result_item.number != n_moves and ln.special is not None:
                self.problem(f"the まで line counts {ln.result_item.number} moves, the line has {n_moves}",
                             kind="warning", line=ln.result_item.line)
        if from_special is not None:
            if from_line is not None and from_line[1] is not None and from_line[1] != from_special[1]:
                self.problem(f"the まで line says {from_line[1]}, {ln.special} means {from_special[1]}",
                             kind="warning", line=ln.result_item.line)
            return from_special[0], from_special[1], ln.special_item
        if from_line is not None and from_line[1] is not None:
            return from_line[0], from_line[1], ln.result_item
        return None

    def check_claim(self, termination, board: Board, item: _Item, ln: _Line) -> None:
        ply = ln.start + ln.count
        where = dict(line=item.line if item else None, ply=ply, kind="warning")
        if termination == "checkmate":
            if not board.is_checkmate():
                self.problem("claimed checkmate (詰み), but the final position is not checkmate", **where)
        elif termination == "repetition":
            outcome = board.outcome()
            if outcome is not None and outcome.termination == "perpetual-check":
                self.problem("claimed repetition (千日手), but it is perpetual check: the checking side loses",
                             **where)
            elif board.repetitions() < 4:
                self.problem(f"claimed repetition (千日手), but the final position occurred "
                             f"{board.repetitions()} times, not 4", **where)

    def headers(self, game: Game):
        """The tags a visitor is given: ``Variant``, ``RuleSet`` and ``SFEN`` when the options and
        the start are not the variant's, then the game's tags."""
        from .lsn import format_ruleset
        yield "Variant", game.variant.name
        ruleset = format_ruleset(game.variant, game.options)
        if ruleset:
            yield "RuleSet", ruleset
        if game.start is not None:
            yield "SFEN", game.start
        for name, value in game.headers.items():
            if name != "Variant":
                yield name, value

    def emit(self, visitor, game: Game, tree: _Tree, root_comment: str, first_line: int):
        """The game read, given to ``visitor`` as LSN's reader gives one (:class:`formats.lsn.Visitor`):
        headers; moves depth-first, each variation (a 変化 block) right after the move it replaces,
        with the board before each move; the result; the problems; ``end_game``.  A visitor with
        ``visit_kif_time(time)`` and ``visit_kif_special(word, seconds)`` is also given the time
        column of each move and the special move (投了 ...) ending a line (see
        :class:`KifGameBuilder`)."""
        from .lsn import Visitor
        visitor.begin_game(1, first_line)
        for name, value in self.headers(game):
            visitor.visit_header(name, value)
        if visitor.end_headers() is not Visitor.SKIP:
            self.give_start(visitor, root_comment)
            if tree.moves:
                self.walk(visitor, game, tree)
            visitor.visit_result(game.result)
        for error in self.errors:
            visitor.visit_error(error)
        return visitor.end_game(self.text, 0)

    def give_start(self, visitor, root_comment: str) -> None:
        """What comes before the first move: the comment, and a special move (投了 ...) with no move
        before it."""
        if root_comment:
            visitor.visit_comment(root_comment)
        special = getattr(visitor, "visit_kif_special", None)
        if special is not None and ROOT in self.specials:
            special(*self.specials[ROOT])

    @staticmethod
    def give_move(visitor, board: Board | None, move: Move, it: _Item, totals: tuple, colour: int,
                  time_hook) -> tuple[tuple, str]:
        """``move`` (item ``it``, played by ``colour``) given to ``visitor`` with ``board`` before
        it, and its time column: (the running totals of the time column after it, Sente's and
        Gote's; the time as its comment starts, ``[%emt ...]``)."""
        visitor.visit_move(board, move, it.text, it.line, it.column)
        if it.time is None:
            return totals, ""
        if time_hook is not None:
            time_hook(it.time)
        secs, total = it.time
        spent = list(totals)
        spent[colour] += secs
        prefix = _EMT.get(secs) or f"[%emt {_hms(secs)}]"
        if total is not None and total != spent[colour]:
            prefix += f"[%kiftotal {_hms(total)}]"
            spent[colour] = total
        return (spent[0], spent[1]), prefix

    def give_notes(self, visitor, node: int, prefix: str, special_hook) -> None:
        """What follows node ``node``'s move: the special move ending its line, its comment (the
        time ``prefix`` and the comment lines after it)."""
        if special_hook is not None and node in self.specials:
            special_hook(*self.specials[node])
        text = "\n".join(self.comments.pop(node, ()))
        comment = prefix + (" " + text if prefix and text else text)
        if comment:
            visitor.visit_comment(comment)

    def walk(self, visitor, game: Game, tree: _Tree) -> None:
        """The moves of ``tree`` depth-first, on one board pushed and popped (iterative: a record
        may nest thousands of 変化 blocks)."""
        time_hook = getattr(visitor, "visit_kif_time", None)
        special_hook = getattr(visitor, "visit_kif_special", None)
        index, starting = self.index, self.starting
        first_turn = _first_turn(game)
        board = game.start_board()
        stack: list = []  # [node read before its variations, the variation read, plies, totals before, after]
        totals = (0, 0)  # the running totals of the time column, Sente's and Gote's
        node = tree.root
        while True:
            if node >= 0:
                it, _ = self.move_item(index, tree.items[node])
                if node in starting:
                    visitor.visit_comment(starting[node], True)
                before = totals
                colour = (len(board.move_stack) + first_turn) % 2
                totals, prefix = self.give_move(visitor, board, tree.moves[node], it, totals, colour, time_hook)
                self.give_notes(visitor, node, prefix, special_hook)
                alternative = tree.next[node] if tree.is_first_child(node) else -1
                if alternative >= 0:
                    stack.append([node, alternative, len(board.move_stack), before, totals])
                    visitor.begin_variation()
                    node, totals = alternative, before
                    continue
                board.push(tree.moves[node])
                node = tree.first[node]
                continue
            if not stack:
                return
            frame = stack[-1]
            while len(board.move_stack) > frame[2]:
                board.pop()
            visitor.end_variation()
            alternative = tree.next[frame[1]]
            if alternative >= 0:
                frame[1] = alternative
                visitor.begin_variation()
                node, totals = alternative, frame[3]
                continue
            stack.pop()
            board.push(tree.moves[frame[0]])
            node, totals = tree.first[frame[0]], frame[4]


class _Giver:
    """Gives the moves of a record without 変化 blocks to a visitor while :meth:`_Reader.read_moves`
    replays them, as :meth:`_Reader.walk` gives them from the tree: each move with the board before
    it (a board of the visitor's, one move behind the replay's; None for a builder known not to
    look at it: :func:`_looks_at_board`), then, when the next move (or the end) shows that nothing
    more follows it, the special move ending the line and its comment."""

    def __init__(self, reader: _Reader, visitor, game: Game, root_comments: list):
        self.reader, self.visitor, self.root_comments = reader, visitor, root_comments
        self.board = game.start_board() if _looks_at_board(visitor) else None
        self.first_turn = _first_turn(game)
        self.time_hook = getattr(visitor, "visit_kif_time", None)
        self.special_hook = getattr(visitor, "visit_kif_special", None)
        self.totals = (0, 0)
        self.nodes = 0
        self.started = False  # what comes before the first move given
        self.last = None  # (node, move, time prefix) of the last move given

    def move(self, it: _Item, move: Move) -> int:
        """``move`` (item ``it``) given to the visitor: its node number."""
        self.flush()
        self.totals, prefix = self.reader.give_move(self.visitor, self.board, move, it, self.totals,
                                                    (self.nodes + self.first_turn) % 2, self.time_hook)
        node = self.nodes
        self.nodes += 1
        self.last = (node, move, prefix)
        return node

    def flush(self) -> None:
        """What follows the last move given, or, before the first, what comes before it."""
        if not self.started:
            self.started = True
            self.reader.give_start(self.visitor, "\n".join(self.root_comments))
        elif self.last is not None:
            node, move, prefix = self.last
            self.reader.give_notes(self.visitor, node, prefix, self.special_hook)
            if self.board is not None:
                self.board.push(move)
            self.last = None

    finish = flush  # (the end: what follows the last move)


def _first_turn(game: Game) -> int:
    start = game.start or game.rules.start
    fields = start.split()
    return 1 if len(fields) > 1 and fields[1] == "w" else 0


def _result_for(relation: str, mover: int) -> str:
    if relation == DRAW:
        return "1/2-1/2"
    if relation == NONE:
        return "*"
    winner = mover if relation == WIN else mover ^ 1
    return "1-0" if winner == 0 else "0-1"


def _parse_made(text: str, mover: int):
    """(Termination or None, result or None) from the text after まで N手."""
    text = text.lstrip("で").strip(_SPACE)
    m = re.search(r"(先手|下手|後手|上手)の(勝ち|反則勝ち|反則負け|入玉勝ち|宣言勝ち|負け)", text)
    if m:
        side = 0 if m.group(1) in ("先手", "下手") else 1
        what = m.group(2)
        won = what in ("勝ち", "反則勝ち", "入玉勝ち", "宣言勝ち")
        winner = side if won else side ^ 1
        result = "1-0" if winner == 0 else "0-1"
        if "反則" in what:
            return "illegal-move", result
        if what in ("入玉勝ち", "宣言勝ち"):
            return "impasse", result
        if "時間切れ" in text or "切れ負け" in text:
            return "time-forfeit", result
        return None, result
    for word, termination, result in (("千日手", "repetition", "1/2-1/2"), ("持将棋", "impasse", "1/2-1/2"),
                                      ("中断", "abandoned", "*"), ("封じ手", "sealed", "*"),
                                      ("不詰", "unterminated", "*"), ("引き分け", None, "1/2-1/2")):
        if word in text:
            return termination, result
    if text.startswith("詰"):
        # the side that made the last move mated the side to move
        return "checkmate", "1-0" if mover == 1 else "0-1"
    return None, None


class KifGameBuilder(GameBuilder):
    """The default visitor of :func:`read_kif` and :func:`~formats.ki2.read_ki2`: builds the
    :class:`Game` the reader prepared (variant, options, start, tags), with the KIF reader's
    extras on the nodes: ``kif_time`` (the move's time column, ``(seconds, total or None)``) and
    ``kif_special`` (the special move that ends the line, ``(word, seconds or None)``, on the
    line's last node or on the game), which :func:`write_kif` writes back."""

    prepared: Game | None = None  # set by the reader before begin_game

    def new_game(self) -> Game:
        return self.prepared

    def visit_comment(self, text, before_first_move=False):
        if before_first_move and text:  # also before a line's continuation (変化 after its end)
            self.pending_comment.append(text)
        else:
            super().visit_comment(text)

    def visit_kif_time(self, time: tuple) -> None:
        self.node.kif_time = time

    def visit_kif_special(self, word: str, seconds: int | None) -> None:
        self.node.kif_special = (word, seconds)


def _collects_tags(visitor) -> bool:
    """Whether ``visitor`` is a :class:`KifGameBuilder` that only collects the tags it is given
    (:class:`~formats.lsn.GameBuilder`'s ``visit_header``, ``end_headers`` and the KIF builder's
    ``new_game``: the game is the one the reader prepared), so that the tags only the replay tells
    (Termination, ImportStatus) may reach it after the moves: it ends the same."""
    cls = type(visitor)
    return (isinstance(visitor, KifGameBuilder) and cls.visit_header is GameBuilder.visit_header
            and cls.new_game is KifGameBuilder.new_game
            and cls.end_headers in (GameBuilder.end_headers, MainLineBuilder.end_headers))


def _looks_at_board(visitor) -> bool:
    """Whether ``visitor`` may look at the board it is given with each move: all but the game
    builders, whose ``visit_move`` (:class:`~formats.lsn.GameBuilder`'s, or
    :class:`~formats.lsn.MainLineBuilder`'s) does not, and those that can do without it
    (``board_optional``)."""
    if getattr(visitor, "board_optional", False):
        return False
    return type(visitor).visit_move not in (GameBuilder.visit_move, MainLineBuilder.visit_move)


def read_kif(data: bytes | str, *, source: str | None = None, variant: str | Variant | None = None,
             lenient: bool = False, variants: VariantRegistry | None = None, visitor=None) -> list:
    """Read a KIF file (bytes or text) into a list of games (a KIF file holds one game).

    ``variant`` names the variant when the file does not (a ``変種：`` line); by default shogi, or
    Chu Shogi for a record with a 12-rank diagram or lishogi's Chu move lines.
    Names are looked up in ``variants`` (default: the bundled variants and ``DAIKIFU_VARIANTS``).
    Problems are recorded in ``game.errors`` (see the module documentation); input that is not KIF
    raises :class:`KifError`.  No other exception escapes.

    ``visitor`` (a :class:`formats.lsn.Visitor`, class or instance) is given the game instead, as
    LSN's reader gives one: the tags (``Variant``, and ``RuleSet`` and ``SFEN`` when they are not
    the variant's), the moves depth-first with the board before each (a 変化 block right after the
    move it replaces), comments, the result, the problems; the list then holds what its
    ``end_game`` returns.  The record is held in a few bytes a line while it is read, and no
    move tree is built unless the visitor builds one.  A record without 変化 blocks is read in one
    pass, each move given to the visitor as it is replayed; a game builder that only collects the
    tags (as :class:`KifGameBuilder` does) may then be given those only the replay tells,
    ``Termination`` and ``ImportStatus``, after the moves, and the builders whose ``visit_move``
    does not look at the board are given None for it:

    >>> from daikifu.formats.lsn import Visitor
    >>> class Plies(Visitor):
    ...     def begin_game(self, number, line):
    ...         self.plies = []
    ...     def visit_move(self, board, move, notation, line, column):
    ...         self.plies.append((board.ply + 1, notation))
    ...     def end_game(self, source, offset):
    ...         return self.plies
    >>> read_kif("手数----指手--\\n1 ７六歩(77)\\n2 ３四歩(33)\\n\\n変化：2手\\n2 ８四歩(83)\\n", visitor=Plies)
    [[(1, '７六歩(77)'), (2, '３四歩(33)'), (2, '８四歩(83)')]]
    """
    return read_with(_Reader, "KIF", data, source, variant, lenient, variants, visitor)


def read_with(reader: type, title: str, data: bytes | str, source, variant, lenient: bool, variants,
              visitor=None) -> list:
    """The one game of a KIF-family record read by ``reader`` (:class:`_Reader` or KI2's) and
    given to ``visitor`` (see :func:`read_kif`): bytes decoded by the pipeline's policy, and no
    exception but :class:`KifError` escaping."""
    try:
        text, _encoding, replaced = _decode(data)
        return [reader(text, source, variant, lenient, replaced, variants).read(visitor)]
    except KifError:
        raise
    except RecursionError as exc:  # pragma: no cover - the reader does not recurse
        raise KifError(GameError(f"record too deeply nested: {exc}", file=source)) from exc
    except Exception as exc:  # pragma: no cover - a bug: report it as a reading error, never crash
        raise KifError(GameError(f"internal error while reading {title}: {exc!r}", file=source)) from exc


def looks_like_kif(data: bytes | str) -> bool:
    """Whether the data looks like a KIF record (by content, never by file name).

    True when a KIF-only line comes before any PGN/LSN tag line: ``#KIF``, ``手数----指手``, a
    ``key：value`` header with a known KIF key, ``変化：N手``, a board border, or a numbered move
    line in KIF's shape.
    """
    try:
        text, _, _ = _decode(data[:65536] if isinstance(data, (bytes, bytearray, memoryview, str)) else data)
    except KifError:
        return False
    for n, line in enumerate(_split_lines(text)):
        if n > 400:
            break
        stripped = line.strip(_SPACE)
        if not stripped:
            continue
        if _RE_PGN_TAG.match(line):
            return False
        if _RE_KIF_MAGIC.match(stripped) or _RE_MOVES_HEADER.match(line) or _RE_VARIATION.match(line):
            return True
        if _RE_BORDER.match(line) and "-" * 9 in line:
            return True
        row = _RE_ROW.match(line)
        if row and row.group(2) and _japanese_number(row.group(2)) is not None:  # | ・ ・ ...|一
            return True
        m = _RE_HEADER.match(line)
        if m and m.group(1).strip(_SPACE) in _KNOWN_KEYS:
            return True
        m = _RE_MOVE_LINE.match(line)
        if m and (re.match(r"^(?:[同仝]|[１-９][一二三四五六七八九]|(?:投了|中断|詰み|千日手|持将棋))", m.group(2))
                  or _RE_LISHOGI_MOVE.search(m.group(2))):
            return True
    return False


# --- writing -------------------------------------------------------------------------------------


def _time_of(comment: str):
    """(seconds, total or None, the comment without the time commands) or None."""
    m = _RE_TIME_CMD.match(comment)
    if not m:
        return None
    secs = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3))
    total = None
    if m.group(4) is not None:
        total = int(m.group(4)) * 3600 + int(m.group(5)) * 60 + int(m.group(6))
    return secs, total, comment[m.end():]


def _time_text(secs: int, total: int) -> str:
    m, s = divmod(secs, 60)
    th, rest = divmod(total, 3600)
    tm, ts = divmod(rest, 60)
    return f"({m:>2}:{s:02d}/{th:02d}:{tm:02d}:{ts:02d})"


def _comment_lines(text: str) -> list[str]:
    if not text:
        return []
    return ["*" + line for line in re.split(r"\r\n|\r|\n", text)]


class _Writer:
    def __init__(self, game: Game):
        self.game = game
        self.style = _Style.of(game)
        self.out: list[str] = []
        rules = game.rules
        self.start = game.start or rules.start
        handicap = game.headers.get("Handicap")
        name = handicap.strip(_SPACE) if handicap else None
        name = _HANDICAP_ALIASES.get(name, name) if name else None
        self.handicap_game = bool(self.style.shogi and name in HANDICAPS and name != "平手")
        board_of = Board(rules, self.start).position()
        self.custom = board_of != Board(rules, rules.start).position()
        if self.style.shogi and name is not None:
            # 手合割 names the start when it is a known handicap with this very position
            known = HANDICAPS.get(name)
            self.custom = known is None or Board(rules, known).position() != board_of
        self.sente_word = "下手" if self.handicap_game else "先手"
        self.gote_word = "上手" if self.handicap_game else "後手"

    def write(self, encoding_name: str) -> str:
        self.write_preamble(f"#KIF version=2.0 encoding={encoding_name}")
        self.out.append("手数----指手---------消費時間--")
        self.out.extend(_comment_lines(self.game.comment))
        self.write_tree()
        return "\n".join(self.out) + "\n"

    def write_preamble(self, first_line: str) -> None:
        """The first line, the variant, the headers and the start position (KIF and KI2 alike)."""
        game = self.game
        out = self.out
        out.append(first_line)
        style = self.style
        defaults = game.variant.resolve_options(None) if game.variant.options else {}
        changed = [f"{k}={v}" for k, v in game.options.items() if defaults.get(k) != v]
        # lishogi writes no variant line: its 12-rank diagram or its moves say Chu Shogi
        implied = style.lishogi and game.variant.slug == LISHOGI_12X12 and not changed
        if not style.shogi and not implied:
            out.append(f"変種：{game.variant.slug}")
            if changed:
                out.append("変種オプション：" + " ".join(changed))
        self.write_headers()
        # a Chu game with no move has no move to tell the variant: the diagram tells it
        # (and lishogi, which knows no options, sees a setup option's start only in the diagram)
        if self.custom or self.start.split()[-1] != "1" or (implied and not game.variations) or (
                style.lishogi and changed):
            position = Board(game.rules, self.start).position()
            if style.lishogi and style.diagram:
                self.write_lishogi_diagram()
            elif style.diagram:
                self.write_diagram()
            if not style.diagram or position.split()[-1] != "1":
                # a diagram does not carry the move number: the position string does
                out.append(f"初期局面：{position}")

    def write_headers(self) -> None:
        game = self.game
        items = game.headers.items()
        names = [k for k, _ in items]
        has_start_time = "KifStartTime" in names
        for name, value in items:
            if name in ("Variant", "Result", "Termination"):
                continue
            if name == "Date":
                if has_start_time:
                    continue
                key, value = "開始日時", _kif_date(value)
            elif name == "KifStartTime":
                key = "開始日時"
            elif name == "Sente":
                key = self.sente_word
            elif name == "Gote":
                key = self.gote_word
            elif name == "Event":
                key = "棋戦"
            elif name == "Site":
                key = "場所"
            elif name == "Handicap":
                # lishogi reads 手合割 as the start of a Chu game, and knows no other name than
                # 平手 there: the tag (the Chu Shogi server's EVEN ...) keeps its own name
                key = "Handicap" if self.style.lishogi else "手合割"
            else:
                key = name
            for part in re.split(r"\r\n|\r|\n", value):
                self.out.append(f"{key}：{part}")

    def write_diagram(self) -> None:
        style = self.style
        board = Board(self.game.rules, self.start)
        files, ranks = style.files, style.ranks

        def hand(colour):
            return self.hand_text(board, colour)

        out = self.out
        width = style.cell  # kanji a cell holds: 1 for shogi, 2 for names such as 成角 or 獅子
        out.append(f"{self.gote_word}の持駒：{hand(1)}")
        out.append(" " + "".join(_full_width(files - f).rjust(2 * width + 1 - len(_full_width(files - f)))
                                 for f in range(files)))
        out.append("+" + "-" * (files * (2 * width + 1)) + "+")
        for r in range(ranks - 1, -1, -1):
            cells = []
            for f in range(files):
                p = board.piece_at(square(f, r))
                name = "・" if p is None else style.piece_name(p.id, in_move=False)
                mark = "v" if p is not None and p.colour else " "
                cells.append(mark + "\u3000" * (width - len(name)) + name)
            out.append("|" + "".join(cells) + "|" + _kanji_number(ranks - r))
        out.append("+" + "-" * (files * (2 * width + 1)) + "+")
        out.append(f"{self.sente_word}の持駒：{hand(0)}")
        if board.turn == 1:
            out.append(f"{self.gote_word}番")
        else:
            out.append(f"{self.sente_word}番")

    def write_lishogi_diagram(self) -> None:
        """The start as lishogi draws it: full-width file numbers, cells three characters wide
        (``  ・``, `` v獅``, ``v成獅``), kanji ranks, the side to move only when it is Gote, pieces
        in hand only for a variant with drops."""
        style = self.style
        board = Board(self.game.rules, self.start)
        files, ranks = style.files, style.ranks
        out = self.out
        if board.rules.drops:
            out.append(f"{self.gote_word}の持駒：{self.hand_text(board, 1)}")
        out.append((" " + " ".join(_full_width(files - f).ljust(2) for f in range(files))).rstrip())
        border = "+" + "-" * (files * 4) + "+"
        out.append(border)
        for r in range(ranks - 1, -1, -1):
            cells = []
            for f in range(files):
                p = board.piece_at(square(f, r))
                cells.append("・".rjust(3) if p is None else (("v" if p.colour else "") + style.kanji[p.id]).rjust(3))
            out.append("|" + "".join(cells) + "|" + _kanji_number(ranks - r))
        out.append(border)
        if board.rules.drops:
            out.append(f"{self.sente_word}の持駒：{self.hand_text(board, 0)}")
        if board.turn == 1:
            out.append(f"{self.gote_word}番")

    def hand_text(self, board: Board, colour: int) -> str:
        held = board.hand(colour)
        if not held:
            return "なし"
        parts = []
        for p in self.game.variant.pieces:
            n = held.get(p.id, 0)
            if n:
                parts.append(self.style.piece_name(p.id, in_move=False) + (_kanji_number(n) if n > 1 else ""))
        return "　".join(parts) + "　"

    def write_tree(self) -> None:
        game = self.game
        work = [(game.variations[0], True)] if game.variations else []
        if not game.variations:
            self.write_end(game, Board(game.rules, self.start), True, [0, 0])
        while work:
            first, is_main = work.pop()
            nodes = self.write_line(first, is_main)
            alts = []
            for node in reversed(nodes if is_main else nodes[1:]):
                alts.extend(node.parent.variations[1:])
            work.extend((alt, False) for alt in reversed(alts))

    def line_start(self, first: GameNode, is_main: bool):
        """(board, running time totals, ply) where the line of ``first`` branches off; writes the
        変化 line of a variation and the comment before its first move."""
        board = Board(self.game.rules, self.start)
        totals = [0, 0]
        path = []
        node = first.parent
        while node.parent is not None:
            path.append(node)
            node = node.parent
        for node in reversed(path):  # the position and the running time totals at the branch
            self.add_time(node, board.turn, totals)
            board.push(node.move)
        ply = len(path)
        if not is_main:
            self.out.append("")
            self.out.append(f"変化：{ply + 1}手")
        self.out.extend(_comment_lines(first.starting_comment))  # on the main line: read as the game's
        return board, totals, ply

    def write_line(self, first: GameNode, is_main: bool) -> list:
        out = self.out
        board, totals, ply = self.line_start(first, is_main)
        nodes = []
        node = first
        while node is not None:
            ply += 1
            move = node.move
            prev_to = node.parent.move.to_square if node.parent.move is not None else None
            try:
                reason = board.illegal_reason(move)
            except (KeyError, IndexError, TypeError, AttributeError) as exc:
                reason = repr(exc)
            if reason is not None:
                raise KifError(GameError(f"cannot write an illegal move: {reason}", ply=ply, move=str(move)))
            time = _time_of(node.comment)
            comment = node.comment
            if self.style.lishogi:
                self.write_lishogi_move(board, move, prev_to, ply, time, totals)
                board.push(move)
                out.extend(_comment_lines(time[2] if time is not None else comment))
                nodes.append(node)
                node = node.next()
                continue
            text = self.style.move_text(board, move, prev_to)
            line = f"{ply:>4} {text}"
            if time is not None:
                secs, total, comment = time
                colour = board.turn
                totals[colour] = total if total is not None else totals[colour] + secs
                line += " " * max(1, 13 - _width(text)) + _time_text(secs, totals[colour])
            siblings = node.parent.variations
            if siblings[-1] is not node:  # Kifu for Windows' mark: more variations of this ply follow
                line += "+" if time is not None else " " * max(1, 13 - _width(text)) + "+"
            out.append(line)
            board.push(move)
            out.extend(_comment_lines(comment))
            nodes.append(node)
            node = node.next()
        self.write_end(nodes[-1], board, is_main, totals)
        return nodes

    def write_lishogi_move(self, board: Board, move: Move, prev_to, ply: int, time, totals) -> None:
        """``   5手目   7八歩兵 （←7九）``, or a Lion's two steps ``   5手目一歩目 ...`` and
        ``   5手目二歩目 ...``, with lishogi's time column ``   (00:05/00:00:12)`` on the last line."""
        steps = self.style.lishogi_steps(board, move, prev_to)
        for k, (label, text) in enumerate(steps):
            line = f"{ply:>4}手目" + (f"{label} " if label else "   ") + text
            if time is not None and k == len(steps) - 1:
                secs, total, _ = time
                colour = board.turn
                totals[colour] = total if total is not None else totals[colour] + secs
                minutes, seconds = divmod(secs, 60)
                hours, rest = divmod(totals[colour], 3600)
                line += f"   ({minutes:02d}:{seconds:02d}/{hours:02d}:{rest // 60:02d}:{rest % 60:02d})"
            self.out.append(line)

    @staticmethod
    def add_time(node, colour, totals) -> None:
        time = _time_of(node.comment)
        if time is not None:
            secs, total, _ = time
            totals[colour] = total if total is not None else totals[colour] + secs

    def write_end(self, last: GameNode, board: Board, is_main: bool, totals=None) -> None:
        """The special move and まで line that end a line of play."""
        word, result, stored = self.ending(last, board, is_main)
        mover = board.turn
        n = board.ply
        if word is not None:
            line = f"{n + 1:>4}手目   {word}" if self.style.lishogi else f"{n + 1:>4} {word}"
            secs = stored[1] if stored and stored[0] in SPECIALS and SPECIALS[stored[0]] == SPECIALS[word] else None
            if secs is not None and totals is not None:
                totals = list(totals)
                totals[mover] += secs
                line += " " * max(1, 13 - _width(word)) + _time_text(secs, totals[mover])
            self.out.append(line)
        made = self.made_line(word, result, n, mover)
        if made:
            self.out.append(made)

    def ending(self, last: GameNode, board: Board, is_main: bool):
        """(special word or None, result, the special as read) that end a line of play."""
        game = self.game
        mover = board.turn
        stored = getattr(last, "kif_special", None)
        word = None
        if is_main:
            termination = game.headers.get("Termination")
            result = game.result if game.result in ("1-0", "0-1", "1/2-1/2", "*") else "*"
            relation = _relation(result, mover)
            if termination:
                word = _SPECIAL_FOR.get((termination, relation))
        else:
            result = None
            if stored:
                word = stored[0] if stored[0] in SPECIALS else None
                if word:
                    relation = SPECIALS[word][1]
                    result = _result_for(relation, mover)
                    word = _SPECIAL_FOR.get(SPECIALS[word], word)
        return word, result, stored

    def made_line(self, word, result, n, mover) -> str | None:
        side = {0: self.sente_word, 1: self.gote_word}
        if word is None:
            if result == "1-0":
                return f"まで{n}手で{side[0]}の勝ち"
            if result == "0-1":
                return f"まで{n}手で{side[1]}の勝ち"
            if result == "1/2-1/2":
                return f"まで{n}手で引き分け"
            return None
        if word in ("投了",):
            winner = mover ^ 1
            return f"まで{n}手で{side[winner]}の勝ち"
        if word == "詰み":
            return f"まで{n}手で詰み"
        if word == "切れ負け":
            return f"まで{n}手で時間切れにより{side[mover ^ 1]}の勝ち"
        if word in ("反則勝ち", "反則負け", "入玉勝ち"):
            return f"まで{n}手で{side[mover]}の{word}"
        return f"まで{n}手で{word}"


def _relation(result: str, mover: int) -> str:
    if result == "1/2-1/2":
        return DRAW
    if result == "*":
        return NONE
    winner = 0 if result == "1-0" else 1
    return WIN if winner == mover else LOSS


def write_kif(game: Game, encoding: str = "utf-8", *, newline: str | None = None,
              errors: str = "strict") -> bytes:
    """The game as KIF bytes.

    ``encoding`` is ``"utf-8"`` (``.kifu``) or ``"cp932"`` (Shift_JIS, ``.kif``); ``newline`` defaults
    to CRLF for cp932 and LF for UTF-8.  Text that cp932 cannot encode raises :class:`KifError`
    unless ``errors="replace"`` (then it becomes ``?``).
    """
    return _write_with(_Writer, game, encoding, newline, errors)


def _write_with(writer, game: Game, encoding: str, newline: str | None, errors: str) -> bytes:
    """The text ``writer`` (KIF's or KI2's) writes for ``game``, encoded (see :func:`write_kif`)."""
    enc = encoding.lower().replace("_", "-")
    if enc in ("utf-8", "utf8", "utf-8-sig"):
        codec, declared, default_nl = "utf-8", "UTF-8", "\n"
    elif enc in ("cp932", "shift-jis", "sjis", "shift-jis-2004", "ms932", "windows-31j"):
        codec, declared, default_nl = "cp932", "Shift_JIS", "\r\n"
    else:
        raise KifError(f"KIF and KI2 are written in utf-8 or cp932, not {encoding!r}")
    if not game.variant.playable:
        raise KifError(f"{game.variant.name} is not playable: its moves cannot be written")
    text = writer(game).write(declared)
    nl = default_nl if newline is None else newline
    if nl != "\n":
        text = text.replace("\n", nl)
    try:
        data = text.encode(codec, errors=errors)
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start:exc.end]
        line = exc.object.count(nl, 0, exc.start) + 1
        raise KifError(GameError(f"{bad!r} cannot be written in {codec} (use utf-8, or errors='replace')",
                                 line=line)) from exc
    if enc == "utf-8-sig":
        data = codecs.BOM_UTF8 + data
    return data
