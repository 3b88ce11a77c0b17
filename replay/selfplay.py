"""Self-play: a small engine plays whole games of any playable variant (sample data, tests, demos).

>>> from daikifu.replay.selfplay import generate_games
>>> games = generate_games("shogi", 1, seed=7, max_plies=20)
>>> games[0].headers["Termination"], len(games[0].moves)
('adjudication', 20)

The games are moves and tags; :meth:`daikifu.formats.Game.from_moves` makes a record of one
(``daikifu generate`` writes them as LSN).

The engine is deliberately simple and fast (see ``docs/selfplay.md``):

* **Piece values** come from the variant's data, not from per-variant constants: the *mobility*
  ``M(T)`` of a piece type is the mean number of distinct squares it can move to from each square
  of the central region of an otherwise empty board (the middle half of the files times the middle
  half of the ranks; passes and igui do not count).  A piece is worth ``V(T) = 1 + M(T)``; a piece
  that can promote to ``P`` gets a promotion bonus of a quarter of what promotion adds,
  ``V(T) = 1 + M(T) + max(0, M(P) - M(T)) / 4``, and a promotion move gains ``V(P) - V(T)``.
  Capturing a piece gains its value, plus in drop variants the value of the (unpromoted) piece
  that goes into the capturer's hand.  The royal piece has no material value (it is never taken).
* **Search**: ``board.legal_moves()`` once per ply; every move gets a one-ply score (material won,
  promotion, check, checkmate, a static exchange estimate for the moved piece and for our pieces
  that were attacked before the move, a small pull towards the enemy king, a penalty for repeating
  positions), plus seeded random noise.  Engines with ``width > 0`` then search the best ``width``
  of them one ply deeper: the opponent's best capture (each capture scored with a static
  exchange: minus the capturer if we can take back) and any checkmate in one it would have.
* **Never en prise**: only legal moves are played, so the King is never left in check; the
  exchange estimates steer the engine away from hanging other pieces.

Games end by ``board.outcome()`` (checkmate, stalemate per the variant's rule, fourfold repetition
or perpetual check) or, at the ply limit, by material adjudication (:func:`adjudicate`).
Everything is deterministic for a seed: game ``n`` of seed ``S`` uses ``random.Random("S:n")``.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field

from .board import FIRST, Board, Move, Outcome
from .position import format_piece
from .rules import Ruleset, compile_rules
from .squares import STRIDE, square, square_file, square_rank
from .variant import Variant, load_variant

__all__ = ["PieceValues", "piece_values", "EngineSettings", "ENGINES", "PAIRINGS", "Searcher",
           "SelfPlayGame", "play_game", "generate_games", "adjudicate", "DEFAULT_MAX_PLIES",
           "ADJUDICATION_MARGIN", "EVENT", "DATE", "game_seed"]

DEFAULT_MAX_PLIES = 400
ADJUDICATION_MARGIN = 0.10  # of one side's material at the start: the lead that wins at the ply limit
EVENT = "daikifu self-play"
DATE = "2026.01.01"  # fixed, so the same arguments give the same bytes
PROMOTION_SHARE = 0.25  # share of a promotion's mobility gain counted in the unpromoted piece
MATE = 1_000_000.0
WIDEN = 24  # moves searched beyond an engine's width while every move searched allows a mate in one
_STEPS = tuple(df + dr * STRIDE for df in (-1, 0, 1) for dr in (-1, 0, 1) if df or dr)


# --- piece values --------------------------------------------------------------------------------


@dataclass(frozen=True)
class PieceValues:
    """Material values of one ruleset's piece types, by piece ID (see the module docstring)."""

    mobility: dict  # ID -> mean number of destinations from the central squares of an empty board
    value: dict  # ID -> value on the board (0 for the royal piece)
    capture: dict  # ID -> what capturing it gains (value, plus the piece in hand in drop variants)
    hand: dict  # ID -> value of that piece in hand (its own value)
    promotes: dict  # ID -> ID of its promoted form
    royal: frozenset
    unit: float  # the smallest value of a non-royal piece: the unit of the engine's bonuses
    cheapest_capture: float  # the smallest capture value: what a defender is assumed to give back

    def material(self, board: Board, colour: int) -> float:
        """Pieces on the board and in hand, by value (the royal piece counts nothing)."""
        v = self.value
        total = sum(v[p.id] for p in board.pieces(colour).values())
        if board.rules.drops:
            total += sum(self.hand[pid] * n for pid, n in board.hand(colour).items())
        return total



def central_squares(rules: Ruleset) -> list[int]:
    """The middle half of the files times the middle half of the ranks (at least one of each)."""
    def middle(n):
        lo = n // 4
        hi = n - n // 4
        return range(lo, max(hi, lo + 1))
    return [square(f, r) for r in middle(rules.ranks) for f in middle(rules.files)]


def piece_values(rules: Ruleset) -> PieceValues:
    """The values of a ruleset's pieces, from their mobility on an empty board (worked out once
    per rule set, and kept on it)."""
    return rules.derived(_piece_values)


def _piece_values(rules: Ruleset) -> PieceValues:
    board = Board(rules)
    centre = central_squares(rules)
    mobility = {}
    for p in rules.types:
        total = 0
        token = format_piece(rules, p.index, FIRST)
        for sq in centre:
            f, r = square_file(sq), square_rank(sq)
            rows = []
            for rank in range(rules.ranks - 1, -1, -1):
                if rank == r:
                    rows.append("".join((str(f) if f else "", token,
                                         str(rules.files - f - 1) if f < rules.files - 1 else "")))
                else:
                    rows.append(str(rules.files))
            board.set_position("/".join(rows) + " b - 1")
            targets = {m.to_square for m in board.legal_moves() if m.to_square != m.from_square}
            total += len(targets)
        mobility[p.id] = total / len(centre)
    promotes = {p.id: p.promotes for p in rules.types if p.promotes}
    royal = frozenset(p.id for p in rules.types if p.royal)
    unpromoted = {promoted: base for base, promoted in promotes.items()}
    value = {}
    for p in rules.types:
        if p.royal:
            value[p.id] = 0.0
            continue
        v = 1.0 + mobility[p.id]
        if p.id in promotes:
            v += PROMOTION_SHARE * max(0.0, mobility[promotes[p.id]] - mobility[p.id])
        value[p.id] = v
    hand = dict(value)
    capture = {}
    for pid, v in value.items():
        capture[pid] = v + (hand[unpromoted.get(pid, pid)] if rules.drops else 0.0)
    plain = [v for pid, v in value.items() if pid not in royal]
    unit = min(plain) if plain else 1.0
    cheapest = min((capture[pid] for pid in value if pid not in royal), default=unit)
    return PieceValues(mobility, value, capture, hand, promotes, royal, unit, cheapest)


# --- engines -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EngineSettings:
    """A named setting of the engine: how many moves get the reply search, and how much noise.

    ``width`` is how many of the best one-ply moves are searched a ply deeper (0: none);
    ``noise`` is the range of the random number added to each move's score, in units of the
    smallest piece value (it breaks ties and makes games differ).
    """

    name: str
    width: int
    noise: float
    check_bonus: float = 0.5  # in units of the smallest piece value


ENGINES = (
    EngineSettings("Bot Alpha", width=8, noise=0.4),
    EngineSettings("Bot Beta", width=3, noise=1.5),
    EngineSettings("Bot Gamma", width=0, noise=0.8),
)
# who plays whom in game n (1-based): PAIRINGS[(n - 1) % 6] = (Sente's engine, Gote's engine)
PAIRINGS = ((0, 1), (1, 0), (0, 2), (2, 0), (1, 2), (2, 1))


def _move_key(m: Move):
    return (-1 if m.from_square is None else m.from_square, m.to_square, m.kills,
            {None: 0, True: 1, False: 2}[m.promotion], m.drop or "")


class Searcher:
    """Chooses moves for one ruleset (piece values and geometry are computed once)."""

    def __init__(self, rules: Ruleset):
        self.rules = rules
        self.values = piece_values(rules)
        self.reach = max(rules.files, rules.ranks)
        self.nodes = 0  # positions looked at (pushes), for speed reports
        self._near: dict = {}

    def choose(self, board: Board, legal: list[Move], engine: EngineSettings,
               rng: random.Random) -> Move:
        """The move ``engine`` plays among ``legal`` (the board's legal moves)."""
        scored = self.score_moves(board, legal, engine, rng)
        if engine.width > 0 and len(scored) > 1:
            ranked = sorted(scored, key=lambda item: -item[0])
            best = None
            for n, (first_score, extra, m) in enumerate(ranked):
                if first_score >= MATE / 2:  # a checkmate needs no deeper look
                    return m
                # past the width, go on only while every move searched so far allows a mate,
                # and not further than WIDEN more moves
                if n >= engine.width and (best[0] > -MATE / 2 or n >= engine.width + WIDEN):
                    break
                s = extra - self.reply_loss(board, m)
                if best is None or s > best[0]:
                    best = (s, m)
            return best[1]
        return max(scored, key=lambda item: item[0])[2]

    def score_moves(self, board: Board, legal: list[Move], engine: EngineSettings,
                    rng: random.Random) -> list[tuple[float, float, Move]]:
        """``(one-ply score, score without the exchange estimate, move)`` for every move.

        The second number is what the reply search starts from: material won, promotion, check,
        king pull, repetition penalty and noise, without the static guess of what the reply takes.
        """
        V = self.values
        value, capture, promotes, royal = V.value, V.capture, V.promotes, V.royal
        unit = V.unit
        cheapest = V.cheapest_capture
        piece_at = board.piece_at
        is_attacked = board.is_attacked
        captured_squares = board.captured_squares
        me = board.turn
        opp = me ^ 1
        in_check = board.is_check()
        sennichite = board.rules.repetition == "sennichite"

        # our pieces the opponent attacks now, with what it would win by taking them
        threatened = []
        for sq, p in board.pieces(me).items():
            if p.id in royal or not is_attacked(sq, opp):
                continue
            loss = capture[p.id]
            if is_attacked(sq, me):
                loss = max(0.0, loss - cheapest)
            if loss > 0:
                threatened.append((loss, sq))
        threatened.sort(reverse=True)

        target = board.royal_square(opp)
        tf = None if target is None else square_file(target)
        tr = None if target is None else square_rank(target)
        half = self.reach / 2
        check_bonus = engine.check_bonus * unit
        pull = 0.1 * unit
        noise = engine.noise * unit
        out = []
        for m in sorted(legal, key=_move_key):
            fr = m.from_square
            to = m.to_square
            pid = m.drop if m.drop is not None else piece_at(fr).id
            gain = 0.0
            for s in captured_squares(m):
                gain += capture[piece_at(s).id]
            new = pid
            if m.promotion:
                new = promotes[pid]
                gain += value[new] - value[pid]
            burned = board.burns_mover(m)  # (it ends next to an enemy piece that burns passively)
            if burned:
                if new in royal and len(board.royal_squares(me)) == 1:
                    out.append((-MATE, -MATE, m))  # it loses its last royal piece
                    continue
                gain -= capture[new]
            bonus = 0.0
            if pid in royal and not in_check:
                bonus -= 0.3 * unit  # the king stays home unless it must move
            elif tf is not None:
                after = max(abs(square_file(to) - tf), abs(square_rank(to) - tr))
                before = half if fr is None else max(abs(square_file(fr) - tf), abs(square_rank(fr) - tr))
                bonus += pull * (before - after)
            board.push(m)
            self.nodes += 1
            try:
                if board.is_check():
                    if not board.has_legal_move():
                        out.append((MATE, MATE, m))
                        continue
                    bonus += check_bonus
                if sennichite:
                    reps = board.repetitions()
                    if reps > 1:
                        bonus -= unit * (reps - 1)
                        if reps >= 4:
                            o = board.outcome()
                            if o is not None and o.winner is not None:
                                bonus += MATE if o.winner == me else -MATE
                # the static exchange: the moved piece, and what was attacked before
                risk = 0.0
                if new not in royal and not burned and is_attacked(to, opp):
                    risk = capture[new]
                    if is_attacked(to, me):
                        risk = max(0.0, risk - cheapest)
                for loss, sq in threatened:
                    if loss <= risk:
                        break
                    if sq != fr and is_attacked(sq, opp):
                        risk = loss
                        break
            finally:
                board.pop()
            extra = gain + bonus + rng.random() * noise
            out.append((extra - risk, extra, m))
        return out

    def reply_loss(self, board: Board, move: Move) -> float:
        """After ``move``: what the opponent's best capture wins (static exchange), or MATE if it
        has a checkmate in one.

        The opponent's pseudo-legal moves are generated (its legal moves when it is in check);
        only captures and the moves that may give check (see :meth:`_check_zone`) are played out.
        So a mate by a long leap, a jump or a drop away from the king is not seen: a cheap
        approximation, like the static exchange itself.
        """
        V = self.values
        value, capture, promotes, royal = V.value, V.capture, V.promotes, V.royal
        piece_at = board.piece_at
        is_attacked = board.is_attacked
        captured_squares = board.captured_squares
        me = board.turn
        opp = me ^ 1
        board.push(move)
        best = 0.0
        try:
            forced = board.is_check()
            replies = board.legal_moves() if forced else board.pseudo_legal_moves()
            king = board.royal_square(me)
            ends, starts, near = self._check_zone(board, king) if king is not None else ((), (), ())
            for r in replies:
                caps = captured_squares(r)
                if not caps:
                    if r.drop is not None:
                        if r.to_square not in near:
                            continue
                    elif r.to_square not in ends and r.from_square not in starts:
                        continue
                g = 0.0
                rid = r.drop if r.drop is not None else piece_at(r.from_square).id
                for s in caps:
                    g += capture[piece_at(s).id]
                rnew = rid
                if r.promotion:
                    rnew = promotes[rid]
                    g += value[rnew] - value[rid]
                board.push(r)
                self.nodes += 1
                try:
                    legal = None
                    if board.is_check():
                        legal = forced or _safe(board, opp)
                        if legal and not board.has_legal_move():
                            return MATE
                    if g <= best:
                        continue
                    if legal is None:
                        legal = forced or _safe(board, opp)
                    if not legal:
                        continue
                    if rnew not in royal and is_attacked(r.to_square, me):
                        g -= capture[rnew]
                finally:
                    board.pop()
                if g > best:
                    best = g
        finally:
            board.pop()
        return best

    def _check_zone(self, board: Board, king: int) -> tuple[set, set, frozenset]:
        """Where a move must end or start to give check to ``king``, as far as cheaply seen:
        ``(ends, starts, near)``.

        It may end next to the king (``near``: up to two steps away, for steppers and short
        leapers) or on a line from the king up to and including the first piece (sliders); it may
        start on that first piece (a discovered check).  Long leaps and jumps over pieces are not
        looked for, and drops only next to the king.
        """
        near = self._near.get(king)
        if near is None:
            kf, kr = square_file(king), square_rank(king)
            near = self._near[king] = frozenset(
                sq for sq in self.rules.squares
                if max(abs(square_file(sq) - kf), abs(square_rank(sq) - kr)) <= 2)
        ends = set(near)
        starts = set()
        on_board = self.rules.on_board
        piece_at = board.piece_at
        for step in _STEPS:
            sq = king + step
            while on_board[sq]:
                ends.add(sq)
                if piece_at(sq) is not None:
                    starts.add(sq)
                    break
                sq += step
        return ends, starts, near


def _safe(board: Board, colour: int) -> bool:
    """Whether ``colour``'s royal piece is not attacked (its last move was legal)."""
    k = board.royal_square(colour)
    return k is None or not board.is_attacked(k, colour ^ 1)


# --- adjudication --------------------------------------------------------------------------------


def adjudicate(board: Board, values: PieceValues, start_material: float) -> tuple[str, str]:
    """The result at the ply limit and the rule applied, as ``(result, explanation)``.

    The side ahead in material (pieces on the board and in hand, by the engine's values) wins when
    its lead is at least ``ADJUDICATION_MARGIN`` of one side's material at the start; otherwise the
    game is a draw.
    """
    first = values.material(board, 0)
    second = values.material(board, 1)
    margin = ADJUDICATION_MARGIN * start_material
    if first - second >= margin:
        result = "1-0"
    elif second - first >= margin:
        result = "0-1"
    else:
        result = "1/2-1/2"
    text = (f"ply limit {board.ply}: material {first:.1f} to {second:.1f}, "
            f"a lead of {margin:.1f} ({ADJUDICATION_MARGIN:.0%} of the starting material) wins")
    return result, text


# --- games ---------------------------------------------------------------------------------------


@dataclass
class SelfPlayGame:
    """One self-play game: its moves, tags (in the order a record writes them) and result."""

    variant: Variant
    options: dict
    headers: dict
    result: str
    moves: list = field(default_factory=list)
    outcome: Outcome | None = None
    termination: str = ""
    seconds: float = 0.0
    nodes: int = 0

    @property
    def plies(self) -> int:
        return len(self.moves)


def game_seed(seed: int, number: int) -> str:
    """The seed of game ``number``'s random generator: each game can be replayed on its own."""
    return f"{seed}:{number}"


def play_game(variant: Variant | str, seed: int = 1, number: int = 1, *, options: dict | None = None,
              max_plies: int = DEFAULT_MAX_PLIES, engines=None) -> SelfPlayGame:
    """Play game ``number`` of a self-play run with ``seed``: the same arguments, the same game.

    ``engines`` is ``(Sente's settings, Gote's settings)``; by default the pairing of ``PAIRINGS``
    for the game number.  Raises ``IncompleteVariantError`` for a variant that is not playable.
    """
    if isinstance(variant, str):
        variant = load_variant(variant)
    variant.require_playable()
    rules = compile_rules(variant, options)
    if engines is None:
        a, b = PAIRINGS[(number - 1) % len(PAIRINGS)]
        engines = (ENGINES[a], ENGINES[b])
    rng = random.Random(game_seed(seed, number))
    board = Board(rules)
    searcher = Searcher(rules)
    values = searcher.values
    start_material = max(values.material(board, 0), values.material(board, 1))
    sennichite = rules.repetition == "sennichite"
    ends_with_moves_left = rules.royal_capture or rules.bare_royal
    moves = []
    outcome = None
    clock = time.process_time  # CPU time: what a speed report should measure on a shared machine
    started = clock()
    while True:
        if sennichite and board.repetitions() >= 4:
            outcome = board.outcome()
            if outcome is not None:
                break
        if board.ply >= max_plies:
            outcome = board.outcome()
            break
        if ends_with_moves_left:
            # a royal captured or a bare royal ends the game though the loser may have moves
            outcome = board.outcome()
            if outcome is not None:
                break
        legal = board.legal_moves()
        if not legal:
            outcome = board.outcome()
            break
        move = searcher.choose(board, legal, engines[board.turn], rng)
        board.push(move)
        moves.append(move)
    seconds = clock() - started

    h = {}
    h["Event"] = EVENT
    h["Site"] = "?"
    h["Date"] = DATE
    h["Round"] = str(number)
    h["Sente"] = engines[0].name
    h["Gote"] = engines[1].name
    if outcome is not None:
        result = outcome.result()
        termination = outcome.termination
    else:
        result, rule = adjudicate(board, values, start_material)
        termination = "adjudication"
    h["Termination"] = termination
    if outcome is None:
        h["Adjudication"] = rule
    h["PlyCount"] = str(len(moves))
    h["Seed"] = str(seed)
    return SelfPlayGame(variant, dict(rules.options), h, result, moves, outcome, termination, seconds,
                        searcher.nodes)


def generate_games(variant: Variant | str, count: int, seed: int = 1, *, options: dict | None = None,
                   max_plies: int = DEFAULT_MAX_PLIES, on_game=None) -> list[SelfPlayGame]:
    """Games 1..``count`` of a self-play run; ``on_game(result)`` is called after each."""
    if isinstance(variant, str):
        variant = load_variant(variant)
    variant.require_playable()
    out = []
    for n in range(1, count + 1):
        g = play_game(variant, seed, n, options=options, max_plies=max_plies)
        out.append(g)
        if on_game is not None:
            on_game(g)
    return out
