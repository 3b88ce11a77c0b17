"""JKF, the JSON Kifu Format of Kifu for JS (json-kifu-format), for shogi: read and written with
forks (variations), comments and times.

>>> text = '{"header": {"先手": "A"}, "initial": {"preset": "HIRATE"}, "moves": [{}, ' \\
...        '{"move": {"from": {"x": 7, "y": 7}, "to": {"x": 7, "y": 6}, "color": 0, "piece": "FU"}}, ' \\
...        '{"special": "TORYO"}]}'
>>> game = next(read_jkf(text))
>>> game.headers["Sente"], len(game.mainline_moves()), game.result
('A', 1, '1-0')

``header`` keys are KIF's (先手 -> Sente, 後手 -> Gote, 棋戦 -> Event, 場所 -> Site, 手合割 ->
Handicap, as the KIF reader maps them; other keys are kept under their own name).  ``initial`` is a
``preset`` (HIRATE, KY, KA ... OTHER) or a ``data`` board (``board[x-1][y-1]``, hands, colour).
``moves[0]`` holds the comments before the first move; each later entry a ``move`` (``from``,
``to``, ``piece`` before the move, ``promote``), its ``time``, ``comments`` and ``forks`` (the
alternatives to that move), or the ``special`` that ends the line (CSA's words: TORYO, CHUDAN ...).
JSON gives no positions, so an error names the line of the entry's ``"move"`` key, found in
document order.
"""

from __future__ import annotations

import json
import re
from typing import Iterator

from daikifu.replay import Board, Move
from daikifu.replay.squares import square, square_file, square_rank

from .csa import CSA_PIECES, CSA_SPECIALS, game_end_special, can_write_csa
from .detection import looks_like_jkf
from .evals import with_eval
from .game import TOO_DEEP, Game, GameError
from .kakinoki.common import HANDICAPS
from .kakinoki.common import KEY_TO_TAG as _KEY_TO_TAG
from .kakinoki.common import kif_date as _kif_date
from .kakinoki.common import time_of as _time_of
from .limits import DEFAULT_LIMITS, ReadLimits, check_time, json_depth
from .playback import MoveTextError, RawGame, RawMove, play

__all__ = ["read_jkf", "write_jkf", "looks_like_jkf", "PRESETS"]

# JKF preset -> KIF 手合割 name (its position is in formats.kif.HANDICAPS)
PRESETS = {"HIRATE": "平手", "KY": "香落ち", "KY_R": "右香落ち", "KA": "角落ち", "HI": "飛車落ち",
           "HIKY": "飛香落ち", "2": "二枚落ち", "3": "三枚落ち", "4": "四枚落ち", "5": "五枚落ち",
           "5_L": "左五枚落ち", "6": "六枚落ち", "7_L": "左七枚落ち", "7_R": "右七枚落ち", "8": "八枚落ち",
           "10": "十枚落ち"}
_CODES = {v: k for k, v in CSA_PIECES.items()}
_TAG_TO_KEY = {"Event": "棋戦", "Site": "場所", "Sente": "先手", "Gote": "後手", "Handicap": "手合割"}
_MOVE_KEY = re.compile(r'"move"\s*:')


class _Refused(Exception):
    """The text is refused before it is parsed (the problem is already recorded)."""




def _sq(obj) -> int:
    x, y = obj["x"], obj["y"]
    if not (isinstance(x, int) and isinstance(y, int) and 1 <= x <= 9 and 1 <= y <= 9):
        raise ValueError(f"square x={x!r} y={y!r} is not on the board (1 to 9)")
    return square(9 - x, 9 - y)


def _reader(entry: dict):
    def read(board: Board) -> Move:
        try:
            to = _sq(entry["to"])
            piece = entry.get("piece")
            pid = CSA_PIECES.get(piece) if isinstance(piece, str) else None
            if pid is None:
                raise ValueError(f"unknown piece {piece!r}")
            if entry.get("color") not in (None, board.turn):
                raise ValueError(f"it is {'Sente' if board.turn == 0 else 'Gote'}'s move (color {board.turn})")
            if not entry.get("from"):
                return Move(None, to, (), None, pid)
            origin = _sq(entry["from"])
        except (KeyError, TypeError, ValueError) as exc:
            raise MoveTextError(f"cannot read the move: {exc}",
                                expected='{"from": {"x": 7, "y": 7}, "to": {"x": 7, "y": 6}, "piece": "FU"}') from None
        on = board.piece_at(origin)
        if on is None or on.id != pid:
            raise MoveTextError(f"the piece on {9 - square_file(origin)}{9 - square_rank(origin)} is "
                                f"{_CODES.get(on.id, on.id) if on else 'nothing'}, not {piece}", expected="a legal move")
        if entry.get("promote") is True:
            return Move(origin, to, (), True)
        declined = Move(origin, to, (), False)
        return declined if board.illegal_reason(declined) is None else Move(origin, to)
    return read


def _seconds(entry: dict) -> tuple[int | None, str | None]:
    """(the seconds the move took or None, None), or (None, what is wrong with its ``time.now``)."""
    now = (entry.get("time") or {}).get("now") if isinstance(entry.get("time"), dict) else None
    if not isinstance(now, dict):
        return None, None
    return check_time(now.get("h"), now.get("m", 0), now.get("s", 0), "time of the move")


class _Builder:
    def __init__(self, text: str, file):
        self.lines = [text.count("\n", 0, m.start()) + 1 for m in _MOVE_KEY.finditer(text)]
        self.next_line = 0
        self.file = file

    def line_of_next_move(self) -> int:
        n = self.lines[self.next_line] if self.next_line < len(self.lines) else 1
        self.next_line += 1
        return n

    def moves(self, entries, raw: RawGame, main: bool) -> tuple[list, list]:
        """(RawMoves, comments before the first move) of one line of play."""
        out: list[RawMove] = []
        before: list[str] = []
        for i, entry in enumerate(entries):
            if not isinstance(entry, dict):
                raise ValueError(f"a move entry must be an object, not {type(entry).__name__}")
            comments = [str(c) for c in entry.get("comments") or []]
            if "move" in entry:
                line = self.line_of_next_move()
                move = entry["move"] if isinstance(entry["move"], dict) else {}
                seconds, problem = _seconds(entry)
                rm = RawMove(json.dumps(move, ensure_ascii=False)[:60], line, 1, _reader(move), comments, seconds)
                if problem is not None:  # the time is left out; the move is read
                    raw.problems.append(GameError(problem, file=self.file, game=1, line=line, column=1,
                                                  ply=len(out) + 1 if main else None, move=rm.text,
                                                  expected='a time {"m": 0 or more, "s": 0 to 59}'))
                for fork in entry.get("forks") or []:
                    moves, fork_before = self.moves(fork if isinstance(fork, list) else [], raw, False)
                    if moves:
                        rm.forks.append(moves)
                        rm.fork_comments.append(fork_before)
                out.append(rm)
            elif "special" in entry:
                if main and isinstance(entry["special"], str) and entry["special"] in CSA_SPECIALS:
                    raw.termination, raw.relation = CSA_SPECIALS[entry["special"]]
                    raw.special_text = entry["special"]
                if out:
                    out[-1].comments.extend(comments)
                break
            elif out:
                out[-1].comments.extend(comments)
            elif i == 0 or not out:
                before.extend(comments)
        return out, before


_DATE_RE = re.compile(r"(\d{4})\s*[/\-.年]\s*(\d{1,2})\s*[/\-.月]\s*(\d{1,2})")


def _header_tags(key: str, value: str) -> list:
    """The tags of one ``header`` entry: 開始日時 gives Date (and ``KifStartTime``, the text as
    written, when it says more than the date), as in KIF; the other keys as the KIF reader names them.

    >>> _header_tags("開始日時", "2014/10/12"), _header_tags("開始日時", "2014/10/12 14:46")
    ([('Date', '2014.10.12')], [('Date', '2014.10.12'), ('KifStartTime', '2014/10/12 14:46')])
    """
    if key == "開始日時":
        m = _DATE_RE.search(value)
        if m is None:
            return [("KifStartTime", value)]
        date = f"{int(m.group(1)):04d}.{int(m.group(2)):02d}.{int(m.group(3)):02d}"
        # the text as the writer writes the date alone (2014/10/12) says no more than Date
        return [("Date", date)] + ([("KifStartTime", value)] if value != date.replace(".", "/") else [])
    return [(_KEY_TO_TAG.get(key, key), value)]


def _initial(initial, headers: list) -> str | None:
    """The SFEN of ``initial`` (None for the standard position)."""
    if not initial:
        return None
    preset = initial.get("preset", "HIRATE")
    if preset in PRESETS and preset != "OTHER":
        if preset != "HIRATE":
            headers.append(("Handicap", PRESETS[preset]))
        return HANDICAPS[PRESETS[preset]] if preset != "HIRATE" else None
    data = initial.get("data")
    if not isinstance(data, dict):
        raise ValueError(f"initial: preset {preset!r} needs a 'data' board")
    rows = []
    board = data.get("board")
    if not (isinstance(board, list) and len(board) == 9 and all(isinstance(c, list) and len(c) == 9 for c in board)):
        raise ValueError("initial.data.board must be 9 columns of 9 squares")
    for y in range(9):
        text, empty = "", 0
        for x in range(8, -1, -1):
            cell = board[x][y] or {}
            if not cell:
                empty += 1
                continue
            pid = CSA_PIECES.get(cell.get("kind"))
            if pid is None:
                raise ValueError(f"initial board: unknown piece {cell.get('kind')!r}")
            text += (str(empty) if empty else "") + (pid if cell.get("color", 0) == 0 else pid.lower())
            empty = 0
        rows.append(text + (str(empty) if empty else ""))
    hand = ""
    for colour, held in enumerate(data.get("hands") or [{}, {}]):
        for code, n in (held or {}).items():
            if not isinstance(n, int) or n < 0 or n > 18 or code not in CSA_PIECES:
                raise ValueError(f"initial hands: cannot read {code!r}: {n!r}")
            if n:
                pid = CSA_PIECES[code]
                hand += ("" if n == 1 else str(n)) + (pid if colour == 0 else pid.lower())
    return f"{'/'.join(rows)} {'bw'[1 if data.get('color') == 1 else 0]} {hand or '-'} 1"


def read_jkf(text: str, *, file: str | None = None, variant: str | None = None, lenient: bool = False,
             visitor=None, variants=None, limits: ReadLimits = DEFAULT_LIMITS) -> Iterator:
    """The game of a JKF text (a JKF file holds one); a :class:`Game` by default.  ``limits``:
    forks nested deeper than ``limits.max_depth`` are an error at the line of the bracket."""
    raw = RawGame(1, 1, 0, text)
    try:
        deep = json_depth(text, limits.max_json_depth)
        if deep is not None:
            raw.problems.append(GameError(f"JSON nested deeper than {limits.max_json_depth} levels (forks inside "
                                          f"forks deeper than {limits.max_depth})", file=file, game=1,
                                          line=deep[0], column=deep[1],
                                          expected="fewer nested forks (--limit depth=N raises the limit)",
                                          code=TOO_DEEP))
            raise _Refused
        data = json.loads(text)
        if not isinstance(data, dict):
            raise ValueError("a JKF record is a JSON object")
        for key, value in (data.get("header") or {}).items():
            raw.headers.extend(_header_tags(key, str(value).strip()))
        start = _initial(data.get("initial"), raw.headers)
        if start:
            raw.headers.append(("SFEN", start))
        moves = data.get("moves") or []
        if not isinstance(moves, list):
            raise ValueError("'moves' must be a list")
        raw.moves, raw.comments = _Builder(text, file).moves(moves, raw, True)
    except _Refused:
        raw.moves = []
    except (ValueError, TypeError, AttributeError, KeyError) as exc:
        line = getattr(exc, "lineno", None)
        raw.moves = []
        raw.problems.append(GameError(f"cannot read JKF: {exc}", file=file, game=1, line=line or 1,
                                      column=getattr(exc, "colno", None), expected="a JSON Kifu Format object"))
    yield play(raw, variant or "shogi", visitor=visitor, lenient=lenient, file=file, variants=variants)


# --- writing -------------------------------------------------------------------------------------


def _xy(sq: int) -> dict:
    return {"x": 9 - square_file(sq), "y": 9 - square_rank(sq)}


def _add_time(node, colour: int, totals: list) -> None:
    time = _time_of(node.comment)
    if time is not None:
        totals[colour] += time[0]


def _entries(node, board: Board, prev_to, totals: list) -> list:
    """The entries of the line from ``node``'s first child on; ``board`` is left as it was."""
    out = []
    pushed = 0
    while node.variations:
        child = node.variations[0]
        out.append(_entry(child, board, prev_to, totals))
        for alt in node.variations[1:]:
            fork_totals = list(totals)
            fork = [_entry(alt, board, prev_to, fork_totals)]
            _add_time(alt, board.turn, fork_totals)
            board.push(alt.move)
            fork.extend(_entries(alt, board, alt.move.to_square, fork_totals))
            board.pop()
            out[-1].setdefault("forks", []).append(fork)
        _add_time(child, board.turn, totals)
        board.push(child.move)
        pushed += 1
        prev_to = child.move.to_square
        node = child
    for _ in range(pushed):
        board.pop()
    return out


def _entry(node, board: Board, prev_to, totals) -> dict:
    move = node.move
    m: dict = {"color": board.turn}
    if move.drop is not None:
        m["piece"] = _CODES[move.drop]
    else:
        piece = board.piece_at(move.from_square)
        m["from"] = _xy(move.from_square)
        m["piece"] = _CODES[piece.id]
        if move.promotion is not None:
            m["promote"] = bool(move.promotion)
        captured = board.piece_at(move.to_square)
        if captured is not None:
            m["capture"] = _CODES[captured.id]
    m["to"] = _xy(move.to_square)
    if prev_to == move.to_square:
        m["same"] = True
    entry: dict = {"move": m}
    comment = node.comment
    time = _time_of(comment)
    if time is not None:
        secs, _, comment = time
        total = totals[board.turn] + secs
        entry["time"] = {"now": {"m": secs // 60, "s": secs % 60},
                         "total": {"h": total // 3600, "m": total % 3600 // 60, "s": total % 60}}
    comment = with_eval(node, comment)
    lines = [line for line in comment.strip().splitlines()] if comment.strip() else []
    if lines:
        entry["comments"] = lines
    return entry


def write_jkf(game: Game, encoding: str = "utf-8") -> bytes:
    """The game as JKF (UTF-8 JSON), variations as forks."""
    if not can_write_csa(game.variant):
        raise ValueError(f"JKF holds shogi games only, not {game.variant.name}")
    board = game.start_board()
    special = game_end_special(game, (board.turn + len(game.mainline_moves())) % 2)
    header = {}
    for name, value in game.headers.items():
        if name in ("Variant", "ImportStatus", "SFEN"):
            continue
        if name == "Termination" and special and CSA_SPECIALS[special[1:]][0] == value:
            continue  # the special says it
        key = _TAG_TO_KEY.get(name, name)
        if name == "Date":
            if "KifStartTime" in game.headers:
                continue  # 開始日時 as written, which gives the date back
            key, value = "開始日時", _kif_date(value)
        elif name == "KifStartTime":
            key = "開始日時"
        header[key] = value
    handicap = next((k for k, v in PRESETS.items() if v == game.headers.get("Handicap")), None)
    if board.position() == Board(game.rules).position():
        initial = {"preset": "HIRATE"}
    elif handicap and Board(game.rules, HANDICAPS[PRESETS[handicap]]).position() == board.position():
        initial = {"preset": handicap}
    else:
        cols = []
        for x in range(1, 10):
            col = []
            for y in range(1, 10):
                p = board.piece_at(square(9 - x, 9 - y))
                col.append({} if p is None else {"color": p.colour, "kind": _CODES[p.id]})
            cols.append(col)
        hands = [{code: board.hand(c).get(pid, 0) for code, pid in CSA_PIECES.items() if not pid.startswith("+") and pid != "K"}
                 for c in (0, 1)]
        initial = {"preset": "OTHER", "data": {"color": board.turn, "board": cols, "hands": hands}}
    first: dict = {}
    if with_eval(game).strip():
        first["comments"] = with_eval(game).strip().splitlines()
    moves = [first] + _entries(game, board, None, [0, 0])
    if special:
        moves.append({"special": special[1:]})
    data = {"header": header, "initial": initial, "moves": moves}
    return (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode("utf-8")
