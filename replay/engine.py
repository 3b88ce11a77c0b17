"""An XBoard/CECP engine (HaChu) as an analyst, with the rules core as the referee.

:class:`XBoardEngine` runs one engine process: it negotiates the protocol's features, sends
``memory`` before anything that searches (HaChu crashes on a search without it), selects the
variant, sets positions and reads the principal variations of ``analyze``.  Every move the engine
names is translated back into a :class:`~replay.board.Move` and replayed by :class:`Board`: the
first move the rules core finds illegal cuts the line there, and the cut is reported
(:attr:`Analysis.cut`), never dropped silently.

Positions reach the engine in one of two ways (see ``docs/engine.md``):

* a position reached by moves: the game's start (``new``, or ``setboard`` for another setup)
  and the moves, so that the engine knows the history (repetitions);
* a position alone: ``setboard`` with the board only.  HaChu's ``setboard`` reads no side to
  move (a FEN with one is refused), so a position with the second player to move is sent turned
  half round with the colours swapped, and the engine's moves are turned back.

>>> from daikifu.replay.engine import hachu_fen
>>> from daikifu.replay import Board
>>> hachu_fen(Board("chu-shogi"))
'lfcsgekgscfl/a1b1txot1b1a/mvrhdqndhrvm/pppppppppppp/3i4i3/12/12/3I4I3/PPPPPPPPPPPP/MVRHDNQDHRVM/A1B1TOXT1B1A/LFCSGKEGSCFL'
"""

from __future__ import annotations

import os
import queue
import re
import shutil
import subprocess
import threading
import time
from dataclasses import dataclass, field

from .board import FIRST, Board, Move
from .position import board_rows
from .squares import parse_square, square, square_file, square_name, square_rank

__all__ = ["EngineError", "EngineNotFound", "EngineCrashed", "EngineTimeout", "EngineUnsupported", "Analysis",
           "XBoardEngine", "find_engine", "hachu_fen", "engine_move_text", "referee_line", "ENGINE_VARIANTS",
           "NO_ENGINE", "ENGINE_TABLE", "EngineVariant", "engine_cache_directory", "engine_setting"]

NO_ENGINE = "no engine found: install hachu"
MOVES_PER_SYNC = 8  # game moves sent between two pings
# Debian installs games under /usr/games, which is often not on PATH
ENGINE_DIRS = ("/usr/games", "/usr/local/games")
ENGINE_NAMES = ("hachu",)
# the HaChu source scripts/_engine.sh builds (Debian's hachu_0.21-29-gdf26f4a.orig.tar.gz)
HACHU_BUILD = "0.21-29-gdf26f4a"

@dataclass(frozen=True)
class EngineVariant:
    """How an XBoard engine knows one of daikifu's variants."""

    names: tuple  # the engine's names of it (XBoard's, as `feature variants` lists them); the first listed is used
    letters: dict  # daikifu's piece IDs -> the letters of the engine's FEN (a promoted piece: "+" and its letter)
    start: str  # the board part of the engine's own start position, reached by `new` and `variant`
    engines: tuple = ("hachu",)  # the engines looked for, best first
    # engines built by scripts/_engine.sh that play it where the installed one does not, looked for
    # first (paths in engine_cache_directory())
    builds: tuple = ()
    advice: str = ""  # what to do when the engine found cannot play it
    # whether the engine plays a game's moves after a `setboard` (else a position reached from
    # another setup than the engine's own start is sent alone, without its moves)
    moves_after_setboard: bool = True


# One entry per variant an engine plays: HaChu's names, letters and start arrays are those of its
# variant table (hachu.c: chuArray/chuIDs, daiArray/daiIDs). Sho Shogi has none: HaChu 0.21 exits
# on `variant sho` (docs/engine.md, rule difference 4).
ENGINE_TABLE = {
    "chu-shogi": EngineVariant(
        ("chu",),
        {"K": "k", "DE": "e", "G": "g", "S": "s", "C": "c", "FL": "f", "L": "l", "RC": "a", "B": "b", "BT": "t",
         "PH": "x", "KR": "o", "SM": "m", "VM": "v", "R": "r", "DH": "h", "DK": "d", "FK": "q", "LN": "n", "P": "p",
         "GB": "i"},
        "lfcsgekgscfl/a1b1txot1b1a/mvrhdqndhrvm/pppppppppppp/3i4i3/12/12/3I4I3/PPPPPPPPPPPP/MVRHDNQDHRVM/"
        "A1B1TOXT1B1A/LFCSGKEGSCFL"),
    # CrazyWa (H. G. Muller's XBoard engine for the shogi variants with drops, Debian package
    # crazywa) first: HaChu 0.21 lists shogi but refuses it
    "shogi": EngineVariant(
        ("shogi", "9x9+0_shogi"),
        {"K": "k", "G": "g", "S": "s", "N": "n", "L": "l", "B": "b", "R": "r", "P": "p"},
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL",
        ("crazywa", "hachu")),
    # HaChu writes Dai's extra pieces with a ' or ! after the letter (its daiIDs)
    "dai-shogi": EngineVariant(
        ("dai",),
        {"K": "k", "DE": "e", "G": "g", "S": "s", "C": "c", "FL": "f", "L": "l", "RC": "a", "B": "b", "BT": "t",
         "PH": "x", "KR": "o", "SM": "m", "VM": "v", "R": "r", "DH": "h", "DK": "d", "FK": "q", "LN": "l!", "P": "p",
         "GB": "p'", "N": "n", "I": "i", "SG": "u", "EW": "w", "VO": "x'", "AB": "a'", "CS": "c'", "FD": "f'"},
        "lnuicsgkgsciunl/a1c'1f1tet1f1c'1a/1x'1a'1wxl!ow1a'1x'1/rf'mvbhdqdhbvmf'r/ppppppppppppppp/4p'5p'4/"
        "15/15/15/4P'5P'4/PPPPPPPPPPPPPPP/RF'MVBHDQDHBVMF'R/1X'1A'1WOL!XW1A'1X'1/A1C'1F1TET1F1C'1A/LNUICSGKGSCIUNL"),
    # Tenjiku: HaChu's letters (its tenIDs) put a ' or ! after the letter; its start array has
    # slips (docs/rules/tenjiku.md), so daikifu's start is never taken for it: positions go by setboard
    "tenjiku-shogi": EngineVariant(
        ("tenjiku",),
        {"K": "k", "DE": "e", "G": "g", "S": "s", "C": "c", "I": "i", "FL": "f", "N": "n", "L": "l", "RC": "a",
         "CS": "c!", "BT": "t", "KR": "o", "PH": "x", "FK": "q", "LN": "l!", "SM": "m", "VM": "v", "SS": "s'",
         "VS": "v'", "R": "r", "B": "b", "DH": "h", "DK": "d", "HF": "f!", "SE": "e!", "WB": "w!", "FD": "d!",
         "FE": "q'", "LH": "h!", "BG": "b!", "RG": "r!", "VG": "v!", "GG": "q!", "P": "p", "D": "d'"},
        "lnficsgekgscifnl/a1c!c!1txql!ot1c!c!1a/s'v'bhdw!d!q!h!d!w!dhbv's'/mvrf!e!b!r!v!q!r!b!e!f!rvm/"
        "pppppppppppppppp/4d6d4/16/16/16/16/4D6D4/PPPPPPPPPPPPPPPP/MVRF!E!B!R!Q!V!R!B!E!F!RVM/"
        "S'V'BHDW!D!H!Q'D!W!DHBV'S'/A1C!C!TOL!QXT1C!C!1A/LNFICSGKEGSCIFNL",
        # Debian's build of HaChu 0.21 crashes when it selects tenjiku after `memory`; a build of the
        # same source with ordinary flags plays it (docs/engine.md, "Tenjiku Shogi")
        builds=(f"hachu-{HACHU_BUILD}/hachu",),
        advice=("Debian's build of HaChu 0.21 crashes on Tenjiku Shogi, a build of the same source plays it: "
                "scripts/test and scripts/demo build one into the engine cache, or set "
                "DAIKIFU_ENGINE_TENJIKU to one; see docs/engine.md, Tenjiku Shogi"),
        # after a `setboard`, HaChu 0.21 accepts a Tenjiku move and then shows a board without the
        # moved piece (its lift targets go through the square the piece went to)
        moves_after_setboard=False),
}
# daikifu's variant slug -> the engine's variant names
ENGINE_VARIANTS = {slug: e.names for slug, e in ENGINE_TABLE.items()}
# the engine's options as daikifu sets them: HaChu's defaults, named so that they are part of what
# an analysis is stored under (a change of option is another analysis)
DEFAULT_OPTIONS = {"Allow repeats": 0, "Promote on entry": 1, "Okazaki rule": 0}


class EngineError(Exception):
    """A problem with the engine: ``code`` (a short name) and a message."""

    code = "engine-error"

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message


class EngineNotFound(EngineError):
    code = "no-engine"


class EngineCrashed(EngineError):
    code = "engine-crashed"


class EngineTimeout(EngineError):
    code = "engine-timeout"


class EngineUnsupported(EngineError):
    """The engine does not play this variant (or cannot set up this position)."""

    code = "engine-unsupported"


def engine_cache_directory() -> str:
    """Where the engines scripts/_engine.sh builds are: ``$XDG_CACHE_HOME/daikifu/engines`` (else
    ``~/.cache/daikifu/engines``).  Not ``$DAIKIFU_CACHE_DIR``: that is the rule-set cache, which the
    tests point elsewhere and may turn off."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "daikifu", "engines")


def engine_setting(variant: str) -> str:
    """The environment variable naming the engine for one variant: ``DAIKIFU_ENGINE_TENJIKU`` for
    ``tenjiku-shogi``, ``DAIKIFU_ENGINE_CHU``, ``DAIKIFU_ENGINE_SHOGI``..."""
    short = variant.removesuffix("-shogi") if variant != "shogi" else variant
    return "DAIKIFU_ENGINE_" + re.sub(r"\W", "_", short).upper()


def find_engine(name: str | None = None, variant: str | None = None) -> str | None:
    """The path of the engine to run: ``name`` (a path or a command name), else the variant's own
    setting (``$DAIKIFU_ENGINE_TENJIKU``: :func:`engine_setting`), else ``$DAIKIFU_ENGINE``, else
    the engines that play ``variant`` (:data:`ENGINE_TABLE`; HaChu by default): its builds in
    :func:`engine_cache_directory`, then the engines on PATH or in /usr/games; None when there is
    none."""
    name = name or (os.environ.get(engine_setting(variant)) if variant else None) or os.environ.get("DAIKIFU_ENGINE")
    if name:
        names = (name,)
    elif variant in ENGINE_TABLE:
        entry = ENGINE_TABLE[variant]
        names = tuple(os.path.join(engine_cache_directory(), b) for b in entry.builds) + entry.engines
    else:
        names = ENGINE_NAMES
    for n in names:
        if os.sep in n:
            if os.access(n, os.X_OK):
                return n
            continue
        found = shutil.which(n)
        if found:
            return found
        for d in ENGINE_DIRS:
            path = os.path.join(d, n)
            if os.access(path, os.X_OK):
                return path
    return None


@dataclass
class Info:
    """One line of ``analyze`` output: ``depth score time nodes pv...`` (score in centipawns for
    the side to move, time in centiseconds)."""

    depth: int
    score: int
    time_cs: int
    nodes: int
    pv: list


_INFO_RE = re.compile(r"\s*(\d+)\s+(-?\d+)\s+(\d+)\s+(\d+)\s*(.*)")


def parse_info(line: str) -> Info | None:
    m = _INFO_RE.match(line)
    if not m:
        return None
    rest = m.group(5).split("{")[0]  # HaChu appends a {comment} to the first line
    return Info(int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4)), rest.split())


@dataclass
class Analysis:
    """An engine's verdict on a position, refereed: ``pv`` holds the moves daikifu found legal
    (compact form, :meth:`Move.uci`), ``engine_pv`` the line as the engine wrote it, ``cut`` the
    number of the engine's moves dropped from the first illegal one on, with ``cut_reason``."""

    depth: int
    score: int  # centipawns, from the side to move's point of view
    nodes: int
    pv: list = field(default_factory=list)
    engine_pv: list = field(default_factory=list)
    cut: int = 0
    cut_reason: str | None = None

    @property
    def best(self) -> str | None:
        return self.pv[0] if self.pv else None

    def as_dict(self) -> dict:
        return {"depth": self.depth, "score": self.score, "nodes": self.nodes, "best": self.best, "pv": self.pv,
                "engine_pv": self.engine_pv, "cut": self.cut, "cut_reason": self.cut_reason}


# --- positions and moves in the engine's terms ------------------------------------------------------


def _turned(sq: int, files: int, ranks: int) -> int:
    return square(files - 1 - square_file(sq), ranks - 1 - square_rank(sq))


def hachu_fen(board: Board, turned: bool = False) -> str:
    """The board part of XBoard's FEN of ``board`` (HaChu's letters); ``turned``: the board turned
    half round with the colours swapped (the second player's move as the first player's)."""
    entry = ENGINE_TABLE.get(board.variant.slug)
    if entry is None:
        raise EngineUnsupported(f"{board.variant.name}: no FEN letters for the engine")
    files, ranks = board.rules.files, board.rules.ranks

    def token(f: int, r: int) -> str | None:
        sq = square(f, r)
        piece = board.piece_at(_turned(sq, files, ranks) if turned else sq)
        if piece is None:
            return None
        pid, promoted = (piece.id[1:], "+") if piece.id.startswith("+") else (piece.id, "")
        letter = entry.letters.get(pid)
        if letter is None:
            raise EngineUnsupported(f"{board.variant.name}: the engine has no letter for piece {piece.id}")
        first = (piece.colour == FIRST) != turned
        return promoted + (letter.upper() if first else letter)
    return board_rows(files, ranks, token)


def _letters(board: Board) -> dict:
    entry = ENGINE_TABLE.get(board.variant.slug)
    return entry.letters if entry is not None else {}


def _name(sq: int, board: Board, turned: bool) -> str:
    if turned:
        sq = _turned(sq, board.rules.files, board.rules.ranks)
    return square_name(sq)


def engine_move_text(board: Board, move: Move, turned: bool = False) -> str:
    """``move`` (a legal move of ``board``) as the engine writes it: ``h4h5``, ``h4h5+``, a Lion's
    double move as two legs ``f5f6,f6g7`` (igui ``f5f6,f6f5``), a pass ``@@@@``, a drop ``P@e5``."""
    if move.drop is not None:
        letter = _letters(board).get(move.drop, move.drop)
        return f"{letter.upper()}@{_name(move.to_square, board, turned)}"
    if move.is_pass:
        return "@@@@"
    path = [move.from_square, *move.kills, move.to_square]
    names = [_name(sq, board, turned) for sq in path]
    text = ",".join(names[i] + names[i + 1] for i in range(len(names) - 1))
    return text + ("+" if move.promotion else "")


_LEG_RE = re.compile(r"([a-p])(\d{1,2})([a-p])(\d{1,2})")


def parse_engine_move(board: Board, text: str, turned: bool = False, legal: list | None = None) -> Move | None:
    """The legal move of ``board`` that the engine's ``text`` names, or None when daikifu's rules
    have no such move (the referee's verdict)."""
    legal = board.legal_moves() if legal is None else legal
    files, ranks = board.rules.files, board.rules.ranks

    def sq(f: str, r: str) -> int:
        s = parse_square(f + r, files, ranks)
        return _turned(s, files, ranks) if turned else s

    if text == "@@@@":
        return next((m for m in legal if m.is_pass), None)
    if "@" in text:
        letter, _, where = text.partition("@")
        letters = {v: k for k, v in _letters(board).items()}
        pid = letters.get(letter.lower())
        try:
            to = sq(where[0], where[1:])
        except (ValueError, IndexError):
            return None
        return next((m for m in legal if m.drop == pid and m.to_square == to), None)
    promote = text.endswith("+")
    body = text.rstrip("+=")
    path = []
    try:
        for leg in body.split(","):
            m = _LEG_RE.fullmatch(leg)
            if not m:
                return None
            a, b = sq(m.group(1), m.group(2)), sq(m.group(3), m.group(4))
            if path and path[-1] != a:
                return None
            if not path:
                path.append(a)
            path.append(b)
    except ValueError:
        return None
    fr, to = path[0], path[-1]
    # the squares between where a piece stands are captured on the way; empty ones are a route
    kills = tuple(s for s in path[1:-1] if board.piece_at(s) is not None)
    for m in legal:
        if m.from_square == fr and m.to_square == to and m.kills == kills and m.drop is None \
                and bool(m.promotion) == promote:
            return m
    return None


def referee_line(board: Board, texts: list, turned: bool = False) -> tuple[list, int, str | None]:
    """Replay the engine's line ``texts`` from ``board`` (left unchanged): the moves daikifu finds
    legal (compact form), how many of the engine's moves were cut, and why."""
    played = []
    reason = None
    try:
        for i, text in enumerate(texts):
            if board.outcome() is not None:
                reason = f"move {i + 1} ({text}): the game is over by daikifu's rules"
                break
            # (a line sent turned stays turned for both sides: the engine's board is the turned one)
            move = parse_engine_move(board, text, turned)
            if move is None:
                reason = f"move {i + 1} ({text}): not a legal move by daikifu's rules"
                break
            board.push(move)
            played.append(move)
    finally:
        for _ in played:
            board.pop()
    return [m.uci() for m in played], len(texts) - len(played), reason


# --- the process ----------------------------------------------------------------------------------


class XBoardEngine:
    """One XBoard/CECP engine process (HaChu), restarted when it crashes or hangs.

    ``timeout``: seconds a single answer may take before the process is killed (a search's own
    limit comes on top).  Use as a context manager, or call :meth:`close`.
    """

    def __init__(self, path: str | None = None, *, variant: str | None = None, memory_mb: int = 16,
                 timeout: float = 10.0, options: dict | None = None):
        self.path = find_engine(path, variant)
        if self.path is None:
            wanted = " or ".join(ENGINE_TABLE[variant].engines if variant in ENGINE_TABLE else ENGINE_NAMES)
            raise EngineNotFound(f"no engine found: install {wanted}" if not path
                                 else f"no engine found at {path}: install hachu")
        self.memory_mb = memory_mb
        self.timeout = timeout
        self.options = dict(DEFAULT_OPTIONS if "hachu" in os.path.basename(self.path).lower() else {},
                            **(options or {}))
        self.proc: subprocess.Popen | None = None
        self.features: dict = {}
        self.name = "?"
        self.restarts = 0
        self._lines: queue.Queue = queue.Queue()
        self._variant = None  # the engine variant selected in this process
        self._sent: tuple | None = None  # (root key, [move texts]) the engine's board holds
        self._ping = 0
        self._refused: dict = {}  # engine variant -> why the engine refused it
        self.start()

    # --- life cycle ---

    def start(self) -> None:
        self.proc = subprocess.Popen([self.path], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1,
                                     # (HaChu's debugging lines can hold stray bytes: a strict decoder
                                     # would stop the reading thread, and every answer would time out)
                                     encoding="utf-8", errors="replace")
        self._lines = queue.Queue()
        threading.Thread(target=self._read, args=(self.proc, self._lines), daemon=True).start()
        self._variant = None
        self._sent = None
        self._send("xboard")
        self._send("protover 2")
        deadline = time.monotonic() + self.timeout
        while True:
            line = self._line(deadline)
            if line.startswith("feature "):
                for key, value in re.findall(r'(\w+)=("[^"]*"|\S+)', line[8:]):
                    value = value.strip('"')
                    if key == "option":
                        self.features.setdefault("options", []).append(value)
                    else:
                        self.features[key] = value
                if self.features.get("done") == "1":
                    break
        self.name = self.features.get("myname", os.path.basename(self.path))
        # HaChu crashes on a search unless memory has been set first
        self._send(f"memory {self.memory_mb}")
        for name, value in self.options.items():
            self._send(f"option {name}={value}")
        self._send("post")
        self._sync()

    @staticmethod
    def _read(proc, lines) -> None:
        for line in proc.stdout:
            lines.put(line.rstrip("\n"))
        lines.put(None)  # end of output: the process is gone

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        try:
            if proc.poll() is None:
                proc.stdin.write("quit\n")
                proc.stdin.flush()
                proc.wait(timeout=2)
        except (OSError, subprocess.TimeoutExpired, ValueError):
            pass
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    def kill(self) -> None:
        """End the process at once (a hang); the next request starts a new one."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def restart(self) -> None:
        self.kill()
        self.close()
        self.restarts += 1
        self.start()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    @property
    def version(self) -> str:
        return self.name

    def option_text(self) -> str:
        """The engine options as stored with an analysis: ``name=value`` parts, sorted."""
        return ",".join(f"{k}={v}" for k, v in sorted(self.options.items()))

    def engine_variant(self, slug: str) -> str | None:
        """The engine's name of daikifu's variant ``slug``, None when it lists none."""
        listed = self.features.get("variants", "").split(",")
        return next((n for n in ENGINE_VARIANTS.get(slug, ()) if n in listed), None)

    def supports(self, slug: str) -> bool:
        return self.engine_variant(slug) is not None

    # --- talking ---

    def _send(self, text: str) -> None:
        if self.proc is None or self.proc.poll() is not None:
            raise EngineCrashed(f"{self.name}: the engine process ended")
        try:
            self.proc.stdin.write(text + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise EngineCrashed(f"{self.name}: the engine process ended") from None

    def _line(self, deadline: float) -> str:
        left = deadline - time.monotonic()
        try:
            line = self._lines.get(timeout=max(left, 0.001))
        except queue.Empty:
            self.kill()
            raise EngineTimeout(f"{self.name}: no answer in {self.timeout:g} s; the process was stopped") from None
        if line is None:
            raise EngineCrashed(f"{self.name}: the engine process ended")
        return line

    def _sync(self) -> list:
        """Send ``ping`` and read up to its ``pong``: the lines in between (errors, refusals)."""
        self._ping += 1
        self._send(f"ping {self._ping}")
        out = []
        while True:
            # a hang is `timeout` seconds without a line (HaChu writes lines for every move it is
            # sent: a long game's moves take longer than the timeout on a busy machine)
            line = self._line(time.monotonic() + self.timeout)
            if line == f"pong {self._ping}":
                return out
            if not line.startswith("#"):
                out.append(line)

    # --- positions ---

    def _select_variant(self, board: Board) -> None:
        name = self.engine_variant(board.variant.slug)
        if name is None:
            raise EngineUnsupported(f"{self.name} does not play {board.variant.name}")
        if self._variant == name:
            return
        if name in self._refused:
            raise EngineUnsupported(self._refused[name])
        try:
            # `new` first: it resets the variant to the engine's default (XBoard's order; HaChu's
            # `new` sets up Chu, so `variant dai` before it would leave a Chu board)
            self._send("new")
            self._send(f"variant {name}")
            self._send("force")
            answer = self._sync()
        except EngineCrashed:
            answer = ["the engine process ended when the variant was selected"]
            self.restart()
            advice = ENGINE_TABLE[board.variant.slug].advice
            answer = [f"tellusererror {answer[0]}" + (f" ({advice})" if advice else "")]
        refused = [x for x in answer if x.startswith(("tellusererror", "Error"))]
        if refused:
            # (HaChu 0.21 refuses 9x9+0_shogi: "Unknown piece 'LN' in setup")
            self._refused[name] = (f"{self.name} cannot play {board.variant.name} ({name}): "
                                   f"{refused[0].replace('tellusererror ', '')}")
            self._variant = None
            raise EngineUnsupported(self._refused[name])
        self._variant = name
        self._sent = ("new", [])

    def set_position(self, board: Board, history: bool = True) -> bool:
        """Put ``board``'s position on the engine's board; returns True when it is sent turned
        (the second player to move, by ``setboard``).  ``history``: send the moves from the start
        when there are any (else the position alone, by ``setboard``)."""
        self._select_variant(board)
        moves = list(board.move_stack)
        root = board.copy(stack=True)
        for _ in moves:
            root.pop()
        turned = root.turn != FIRST
        standard = not turned and hachu_fen(root) == ENGINE_TABLE[board.variant.slug].start
        if (history and root.lion_capture_square is None
                and (standard or (moves and ENGINE_TABLE[board.variant.slug].moves_after_setboard))):
            # the game's start (by `new`, or by `setboard` for another setup: HaChu's setboard is
            # reliable for a start position, not for one far from it) and the moves from there
            key = "new" if standard else ("setboard", root.position())
            fen = None if standard else hachu_fen(root, turned)
            texts = []
            for m in moves:
                texts.append(engine_move_text(root, m, turned))
                root.push(m)
            sent_root, sent = self._sent or (None, [])
            if sent_root == key and sent == texts[:len(sent)]:
                todo = texts[len(sent):]
            else:
                self._fresh(board)
                if fen is not None:
                    self._setboard(fen)
                todo = texts
            answer = []
            for i in range(0, len(todo), MOVES_PER_SYNC):
                for t in todo[i:i + MOVES_PER_SYNC]:
                    self._send(f"usermove {t}")
                # (HaChu flushes its output at a pong, and a move can take it half a second on a
                # busy machine: the answer to a whole game's moves could exceed the timeout)
                answer += self._sync()
            if fen and not todo:
                answer += self._sync()
            if not any(x.startswith(("Illegal move", "tellusererror")) for x in answer):
                self._sent = (key, texts)
                return turned
            # the engine refuses a move of the game (a rule difference): the position alone
        turned = board.turn != FIRST
        if any(board.hand(c) for c in (0, 1)):
            # (daikifu writes no XBoard holdings: the engine would see another position)
            raise EngineUnsupported(f"{self.name}: a position with pieces in hand can only be sent with the "
                                    "moves that led to it")
        self._fresh(board)
        self._setboard(hachu_fen(board, turned))
        answer = self._sync()
        if any(x.startswith(("tellusererror", "Error")) and "unknown command" not in x for x in answer):
            raise EngineUnsupported(f"{self.name} cannot set up the position: {answer[0]}")
        self._sent = (("setboard", board.position()), [])
        return turned

    def _setboard(self, fen: str) -> None:
        # sent twice: HaChu lists the legal moves of a new position with a search that tries the
        # killer moves of the position before it, and keeps those that fit the new board, so the
        # first list (which `lift` and `usermove` read) can hold a stale move such as the Dai
        # start position's g5g6 for whatever piece now stands on g5; the second is clean
        self._send(f"setboard {fen}")
        self._send(f"setboard {fen}")

    def _fresh(self, board: Board) -> None:
        """A new process for a new game or position: HaChu keeps positions of earlier games
        after ``new`` and ``setboard`` (its repetition rule then refuses moves, and ``lift`` shows
        stale targets), and a process starts in tens of milliseconds."""
        self.kill()
        self.close()
        self.start()
        self._select_variant(board)

    # --- searching ---

    def analyse(self, board: Board, *, depth: int | None = None, movetime: float | None = None) -> Analysis:
        """Analyse ``board``'s position to ``depth`` plies or for ``movetime`` seconds (one of
        them; at most ``timeout`` more); the engine is restarted once if it crashes or hangs."""
        if depth is None and movetime is None:
            raise ValueError("give a depth or a movetime")
        try:
            return self._analyse(board, depth, movetime)
        except (EngineCrashed, EngineTimeout):
            self.restart()
            return self._analyse(board, depth, movetime)

    def _analyse(self, board: Board, depth, movetime) -> Analysis:
        turned = self.set_position(board)
        self._send("analyze")
        started = last = time.monotonic()
        stop = started + movetime if movetime is not None else None
        best: Info | None = None
        try:
            while True:
                hang = last + self.timeout  # a hang: no line (debug lines count) for `timeout` seconds
                until = min(stop, hang) if stop is not None and best is not None else hang
                line = self._line_or_none(until)
                if line is None:
                    if best is not None and stop is not None and time.monotonic() >= stop:
                        break  # the movetime is up
                    self.kill()
                    raise EngineTimeout(f"{self.name}: no line in {self.timeout:g} s after "
                                        f"{time.monotonic() - started:.1f} s of search; the process was stopped")
                last = time.monotonic()
                info = parse_info(line)
                if info is None or not info.pv:
                    continue
                best = info
                # HaChu prints one line per finished iteration (and per new best move within one)
                if depth is not None and info.depth >= depth:
                    break
        finally:
            if self.proc is not None and self.proc.poll() is None:
                self._send("exit")
        self._sync()  # (the engine's board is unchanged by analyze: the moves sent stay sent)
        pv, cut, reason = referee_line(board, best.pv, turned)
        return Analysis(best.depth, best.score, best.nodes, pv, list(best.pv), cut, reason)

    def _line_or_none(self, until: float) -> str | None:
        left = until - time.monotonic()
        if left <= 0:
            return None
        try:
            line = self._lines.get(timeout=left)
        except queue.Empty:
            return None
        if line is None:
            raise EngineCrashed(f"{self.name}: the engine process ended")
        return line

    def lift(self, board: Board, sq: int, history: bool = True) -> set:
        """The squares the engine highlights for the piece on ``sq`` (XBoard's ``lift``): where it
        may go, as the engine's rules see it."""
        turned = self.set_position(board, history)
        files, ranks = board.rules.files, board.rules.ranks
        self._send(f"lift {_name(sq, board, turned)}")
        answer = [x for x in self._sync() if x.startswith("highlight ")]
        out: set = set()
        if not answer:  # (no piece of the side to move there)
            return out
        line = answer[0]
        for i, row in enumerate(line.split()[1].split("/")):
            r = ranks - 1 - i
            f = 0
            for token in re.findall(r"\d+|.", row):
                if token.isdigit():
                    f += int(token)
                    continue
                s = square(f, r)
                out.add(_turned(s, files, ranks) if turned else s)
                f += 1
        return out


