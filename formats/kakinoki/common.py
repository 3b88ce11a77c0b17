"""The tables KIF and KI2 share: handicaps, special moves, header keys, the line patterns, numbers
in kanji and full-width digits, and :class:`KifError`.
"""

from __future__ import annotations

import re
import unicodedata


from ..decoding import decode_record
from ..game import Game, GameError




class KifError(ValueError):
    """Input that cannot be read as KIF at all (or a game that cannot be written as KIF).

    ``error`` is a :class:`GameError` saying where (file, line, column) and what.
    """

    def __init__(self, error: GameError | str):
        if isinstance(error, str):
            error = GameError(error)
        self.error = error
        super().__init__(str(error))


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


HANDICAP_ALIASES = {"飛落ち": "飛車落ち", "飛車香落ち": "飛香落ち", "2枚落ち": "二枚落ち", "4枚落ち": "四枚落ち",
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
SPECIAL_FOR = {}


for _word in ("投了", "詰み", "切れ負け", "反則負け", "反則勝ち", "入玉勝ち", "持将棋", "千日手", "中断", "封じ手", "不詰"):
    SPECIAL_FOR[SPECIALS[_word]] = _word


# KIF header keys -> tags (both directions for the writer)
KEY_TO_TAG = {"棋戦": "Event", "場所": "Site", "先手": "Sente", "下手": "Sente", "後手": "Gote",
               "上手": "Gote", "手合割": "Handicap"}


KNOWN_KEYS = {"開始日時", "終了日時", "対局日", "棋戦", "戦型", "持ち時間", "消費時間", "場所", "掲載", "備考",
               "先手", "後手", "下手", "上手", "手合割", "先手の持駒", "後手の持駒", "下手の持駒", "上手の持駒",
               "先手省略名", "後手省略名", "作者", "作品名", "表題", "変種", "初期局面", "変種オプション",
               "手数", "発表誌", "発表年月", "出典", "記録係", "解説", "観戦", "図", "詰将棋", "レーティング",
               "先手チーム", "後手チーム", "秒読み", "対局ID", "記録ID"}


HAND_KEYS = {"先手の持駒": 0, "下手の持駒": 0, "後手の持駒": 1, "上手の持駒": 1}


TURN_LINES = {"先手番": 0, "下手番": 0, "後手番": 1, "上手番": 1}


FW_DIGITS = "０１２３４５６７８９"


FILE_LABEL_CHARS = "０１２３４５６７８９0123456789 \t\u3000"


KANJI_DIGITS = "〇一二三四五六七八九"


DIGIT_VALUE = {**{c: i for i, c in enumerate(FW_DIGITS)}, **{str(i): i for i in range(10)},
                **{c: i for i, c in enumerate(KANJI_DIGITS) if i}}


SHOGI_MOVE_NAMES = {"+S": "成銀", "+N": "成桂", "+L": "成香"}  # Kifu for Windows' names in moves


KANJI_ALIASES = {"王": "玉", "竜": "龍"}


# board names lishogi's server writes (scalashogi's KifUtils) where its client and the variant file
# have another: 杏 for Chu's promoted Pawn (成歩)
LISHOGI_BOARD_ALIASES = {"杏": "成歩"}


# other ways to write a character of a piece name (王将 for 玉将, 竜王 for 龍王, 酔象 for 醉象)
KANJI_ALIAS_CHARS = str.maketrans({"玉": "王", "龍": "竜", "醉": "酔"})


SPACE = " \t\u3000"


SPACE_BOM = SPACE + "\ufeff"


RE_VARIATION = re.compile(r"^\s*変化\s*[：:]\s*(\d{1,9})\s*手")


RE_MOVES_HEADER = re.compile(r"^\s*手数\s*[-ー－─=]")


RE_BORDER = re.compile(r"^\s*[+＋][-－ー─]{5,}[+＋]?\s*$")


RE_ROW = re.compile(r"^\s*[|｜](.*)[|｜]\s*(\S*)\s*$")


# the ply number, then a separator, or 手目 as lishogi's Chu records write it ("  12手目   7八歩兵")
RE_MOVE_LINE = re.compile(r"^\s*(\d{1,9})(?:\s*手目\s*|[\s.．]+)(\S.*)$")


# the move lines of lishogi's Chu dialect: a Lion's step (一歩目, 二歩目) or an origin as （←7九）
RE_LISHOGI_MOVE = re.compile(r"^[一二]歩目|[（(]←")


RE_LION_STEP = re.compile(r"^([一二])歩目")


# the variant lishogi's KIF implies by a 12-rank board diagram or by its Chu move lines
LISHOGI_12X12 = "chu-shogi"


# any number of digits: a time out of range is an error at its place (check_time), not a move
RE_TIME = re.compile(r"[(（]\s*(?:(\d+):)?(\d+):(\d+)\s*(?:/\s*(\d+):(\d+):(\d+)\s*)?[)）]$")


# its usual shape, whose every field is in range (minutes up to 9,999 without hours, total hours up
# to 9,999: limits.MAX_HOURS)
RE_SHORT_TIME = re.compile(r"[(（] *(\d{1,4}):([0-5]\d) *(?:/ *(\d{1,4}):([0-5]\d):([0-5]\d) *)?[)）]$", re.ASCII)


RE_HEADER = re.compile(r"^([^：]*)：(.*)$")


RE_ASCII_HEADER = re.compile(r"^([^:]*):(.*)$")


RE_RESULT = re.compile(r"^\s*まで\s*(\d{1,9})\s*手(.*)$")


RE_KIF_MAGIC = re.compile(r"^#KIF\b")


RE_PGN_TAG = re.compile(r'^\s*\[\s*[A-Za-z0-9_]+\s+"')


RE_TIME_CMD = re.compile(r"^\[%emt (\d{1,6}):(\d\d):(\d\d)\](?:\[%kiftotal (\d{1,6}):(\d\d):(\d\d)\])?(?: |$)")


RE_DATE = re.compile(r"(\d{4})\s*[/\-.年]\s*(\d{1,2})\s*[/\-.月]\s*(\d{1,2})")


RE_PGN_DATE = re.compile(r"^(?:\d{4}|\?{4})\.(?:\d\d|\?\?)\.(?:\d\d|\?\?)$")


def kif_date(date: str) -> str:
    """A Date tag as KIF writes it: 2024.05.06 -> 2024/05/06 (PGN's ?? dates are kept as they are)."""
    m = re.match(r"^(\d{4})\.(\d{2})\.(\d{2})$", date)
    return f"{m.group(1)}/{m.group(2)}/{m.group(3)}" if m else date


def text_width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in "FW" else 1 for c in text)


def japanese_number(text: str) -> int | None:
    """十七 -> 17, 二 -> 2, 十 -> 10, 17 -> 17; None if not a number."""
    if not text:
        return None
    if len(text) > 6:
        return None
    if text.isascii() and text.isdigit():
        return int(text)
    if all(c in FW_DIGITS for c in text):
        return int("".join(str(FW_DIGITS.index(c)) for c in text))
    if "十" in text:
        tens, _, ones = text.partition("十")
        t = 1 if not tens else DIGIT_VALUE.get(tens) if len(tens) == 1 else None
        o = 0 if not ones else DIGIT_VALUE.get(ones) if len(ones) == 1 else None
        if t is None or o is None:
            return None
        return t * 10 + o
    if len(text) == 1 and text in DIGIT_VALUE:
        return DIGIT_VALUE[text]
    return None


def kanji_number(n: int) -> str:
    if n < 10:
        return KANJI_DIGITS[n]
    tens, ones = divmod(n, 10)
    return ("" if tens == 1 else kanji_number(tens)) + "十" + (KANJI_DIGITS[ones] if ones else "")


def full_width(n: int) -> str:
    """12 -> １２ (file numbers above a diagram)."""
    return "".join(FW_DIGITS[int(d)] for d in str(n))


def hms(seconds: int) -> str:
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}"


EMT = {secs: f"[%emt {hms(secs)}]" for secs in range(600)}  # a move's time as its comment starts


def decode(data) -> tuple[str, str, bool]:
    """(text, encoding found, whether undecodable bytes were replaced), by the reading pipeline's
    one decoding policy (:func:`formats.reading.decode_record`)."""
    if not isinstance(data, (str, bytes, bytearray, memoryview)):
        raise KifError(f"expected bytes or str, got {type(data).__name__}")
    decoded = decode_record(bytes(data) if isinstance(data, memoryview) else data)
    return decoded.text, decoded.encoding, decoded.replaced > 0


def split_lines(text: str) -> list[str]:
    lines = re.split(r"\r\n|\r|\n", text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def first_mover(game: Game) -> int:
    start = game.start or game.rules.start
    fields = start.split()
    return 1 if len(fields) > 1 and fields[1] == "w" else 0


def result_for(relation: str, mover: int) -> str:
    if relation == DRAW:
        return "1/2-1/2"
    if relation == NONE:
        return "*"
    winner = mover if relation == WIN else mover ^ 1
    return "1-0" if winner == 0 else "0-1"


def time_of(comment: str):
    """(seconds, total or None, the comment without the time commands) or None: the time a move
    took as readers keep it at the start of its comment (``[%emt H:MM:SS]``, see :data:`EMT`)."""
    m = RE_TIME_CMD.match(comment)
    if not m:
        return None
    secs = int(m.group(1)) * 3600 + int(m.group(2)) * 60 + int(m.group(3))
    total = None
    if m.group(4) is not None:
        total = int(m.group(4)) * 3600 + int(m.group(5)) * 60 + int(m.group(6))
    return secs, total, comment[m.end():]
