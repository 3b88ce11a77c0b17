"""KI2's moves: the markers (右 左 直 上 引 寄 打) that tell the candidate pieces apart, and the
text of a move.
"""

from __future__ import annotations

import re

from daikifu.replay import Board, Move
from daikifu.replay.squares import square_file, square_rank

from .style import Style


MARKERS = "▲△☗☖"


SENTE_MARKERS = "▲☗"


MOVE_CHUNK = re.compile(r"[▲△☗☖]([^▲△☗☖]*)")


COUNT_WORDS = {2: "two", 3: "three", 4: "four"}


NEVER_STRAIGHT = ("+R", "+B")  # 龍 and 馬


VERTICAL = {"上": "上", "行": "上", "入": "上", "引": "引", "寄": "寄"}


def marker_options(marks) -> str:
    """Markers joined for a message, in the usual order (右 before 左 ...)."""
    order = "右左直上引寄打"
    return " or ".join(sorted((m for m in marks if m), key=lambda m: [order.index(c) for c in m]))


def _sign(colour: int) -> int:
    return 1 if colour == 0 else -1


def _vertical_ok(origin: int, to: int, colour: int, mark: str) -> bool:
    dy = (square_rank(to) - square_rank(origin)) * _sign(colour)
    return dy > 0 if mark == "上" else dy < 0 if mark == "引" else dy == 0


def filter_origins(origins: list, to: int, colour: int, rel: str, vert: str) -> list:
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


def markers_for(origins: list, origin: int, to: int, colour: int, straight: bool = True) -> str | None:
    """The shortest markers that single ``origin`` out of ``origins`` ("" if it is alone);
    ``straight=False`` for the pieces that are never written 直 (a Dragon, a Horse: the JSA's
    notation tells two of them apart by 右 and 左)."""
    if len(origins) <= 1:
        return ""
    for rel, vert in [("", v) for v in "上引寄"] + ([("直", "")] if straight else []) + [(r, "") for r in "右左"] + \
                     [(r, v) for r in "右左" for v in "上引寄"]:
        if filter_origins(origins, to, colour, rel, vert) == [origin]:
            return rel + vert
    return None


def origins_of(board: Board, pid: str, to: int) -> dict:
    """origin -> the legal moves to ``to`` from it by pieces ``pid`` of the side to move."""
    found: dict = {}
    for origin in board.squares_of(pid, board.turn):
        for promotion in (None, True, False):
            move = Move(origin, to, (), promotion)
            if board.illegal_reason(move) is None:
                found.setdefault(origin, []).append(move)
    return found


def ki2_move_text(style: Style, board: Board, move: Move, prev_to: int | None) -> str:
    """The move as KI2 writes it (without the ▲/△), for the position on ``board`` before it."""
    if move.drop is not None:
        pid = move.drop
        dest = style.square_text(move.to_square)
        rivals = origins_of(board, pid, move.to_square)
        return dest + style.piece_name(pid) + ("打" if rivals else "")
    pid = board.piece_at(move.from_square).id
    dest = "同　" if prev_to == move.to_square else style.square_text(move.to_square)
    origins = list(origins_of(board, pid, move.to_square))
    marks = markers_for(origins, move.from_square, move.to_square, board.turn, pid not in NEVER_STRAIGHT) or ""
    return dest + style.piece_name(pid) + marks + {True: "成", False: "不成", None: ""}[move.promotion]


def japanese_move_text(board: Board, move: Move, prev_to: int | None = None) -> str:
    """:func:`ki2_move_text` for the rule set ``board`` plays (a style needs only a rule set,
    which a board carries as a game does)."""
    return ki2_move_text(Style.of(board), board, move, prev_to)
