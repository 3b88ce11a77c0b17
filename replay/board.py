"""The board: a position of a variant, legal moves, and playing moves.

>>> from daikifu.replay import Board
>>> board = Board("shogi")
>>> len(board.legal_moves())
30
>>> board.push(board.parse_uci("c3c4"))  # doctest: +SKIP

Two ways to check a move:

* :meth:`Board.legal_moves` generates every legal move (perft, move lists, "did you mean");
* :meth:`Board.play` checks one given move and plays it.  It does not generate the other moves, and
  it is what replaying a game record uses once per ply.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Collection, Iterable, Sequence
from operator import itemgetter
from typing import Callable, Final, cast

from .generators import UNBOUNDED, Effects, Generator, PatternGenerator, burned_passively, walk
from .move import FIRST, SECOND, IllegalMoveError, IllegalReason, Illegality, Move, Outcome, Piece
from .position import ParsedPosition, PositionError, format_hands, parse_position
from .rules import CAPTURE, DIRECTIONS, EMPTY, MOVE, OFF, ZONE_TABLE, Ruleset, compile_rules, drop_region as _region
from .squares import (CELLS, MAX_FILES, MAX_RANKS, SQUARE_OF_BYTE, STRIDE, parse_square, square, square_name,
                      square_rank)
from .variant import Variant, load_variant

# Move, Piece, Outcome and the reasons live in .move; they are imported from here too
__all__ = ["Board", "Move", "MoveStack", "Piece", "Outcome", "IllegalMoveError", "IllegalReason", "Illegality",
           "FIRST", "SECOND"]

# the fields of an undo entry (see Board.push): shifts and masks
_U_CODE: Final = (1 << 12) - 1  # a piece code (rules.MAX_TYPES keeps codes below this)
_U_TAKEN: Final = 12
_U_FROM_UNMOVED: Final = 1 << 24
_U_TO_UNMOVED: Final = 1 << 25
_U_LION: Final = 26
_U_SQUARE: Final = (1 << 10) - 1  # a square + 1 (CELLS < 1023)
_U_ROYAL: Final = 36
_U_ROYAL_TAKEN: Final = 41
_U_INDEX: Final = (1 << 5) - 1  # an index + 1 among a side's royal squares (a larger one: a rare entry)
_U_ROYAL_TAKEN_MASK: Final = _U_INDEX << _U_ROYAL_TAKEN
_U_BURNED: Final = 1 << 46  # the moved piece was removed after its move (passive burning)
_U_RARE: Final = 1 << 47

# A move in a MoveStack is one int (4 bytes: a long game holds one per ply, and a game of new
# moves would otherwise hold a Move object for each): the origin, or for a drop the number of the
# dropped piece's ID (its type's index on a board), in bits 0-10; the destination in bits 11-20;
# the promotion choice in bits 21-22; a drop sets _M_DROP.  A move that takes on the way is kept
# whole, by its index, and marked _M_ODD.
_M_FROM: Final = (1 << 11) - 1
_M_TO: Final = 11
_M_SQUARE: Final = (1 << 10) - 1
_M_PROMO: Final = 21
_M_DROP: Final = 1 << 23
_M_ODD: Final = 1 << 24
_PROMO_BITS: Final = {None: 0, False: 1 << _M_PROMO, True: 2 << _M_PROMO}
_PROMO_OF_BITS: Final = (None, False, True)


class MoveStack(Sequence):
    """Moves in the order played, each held as one int and made again when read (equal to the
    move given).  A board's ``move_stack`` is one (read it; :meth:`Board.push` and
    :meth:`Board.pop` change it); the archive keeps a game's main line in one.

    >>> stack = MoveStack()
    >>> stack.append(Move(165, 197)); stack.append(Move(None, 200, drop="P"))
    >>> stack
    MoveStack([Move(from_square=165, to_square=197, kills=(), promotion=None, drop=None), \
Move(from_square=None, to_square=200, kills=(), promotion=None, drop='P')])
    >>> stack == [Move(165, 197), Move(None, 200, (), None, "P")], len(stack), stack[-1].drop
    (True, 2, 'P')
    """

    __slots__ = ("_ints", "_odd", "_ids", "_index")

    def __init__(self, drop_ids: Iterable[str] = ()):
        self._ints = array("I")  # (unsigned: appending one is cheaper than to a signed array)
        self._odd: dict[int, Move] = {}  # index -> a move that takes on the way
        # the dropped pieces' IDs by their number (a board: type index; none is number 0)
        self._ids: list[str | None] = [None, *drop_ids]
        self._index: dict[str, int] | None = None  # ID -> number, made on the first drop appended

    def append(self, move: Move) -> None:
        ints = self._ints
        drop = move.drop
        if drop is not None:
            index = self._index
            if index is None:
                index = self._index = {pid: n for n, pid in enumerate(self._ids) if pid is not None}
            n = index.get(drop)
            if n is None:
                n = index[drop] = len(self._ids)
                self._ids.append(drop)
            m = n | move.to_square << _M_TO | _M_DROP | _PROMO_BITS[move.promotion]
        else:
            fr = move.from_square
            if fr is None:
                raise ValueError(f"a move with no origin that is not a drop: {move!r}")
            m = fr | move.to_square << _M_TO | _PROMO_BITS[move.promotion]
            if move.kills:
                m |= _M_ODD
                self._odd[len(ints)] = move
        ints.append(m)

    def _decode(self, m: int, index: int, odd: dict[int, Move] | None = None) -> Move:
        """The move held as ``m`` at ``index`` (``odd``: the moves kept whole, if not this
        stack's own)."""
        if m & _M_ODD:
            return (self._odd if odd is None else odd)[index]
        to = (m >> _M_TO) & _M_SQUARE
        promotion = _PROMO_OF_BITS[(m >> _M_PROMO) & 3]
        if m & _M_DROP:
            return Move(None, to, (), promotion, self._ids[m & _M_FROM])
        return Move(m & _M_FROM, to, (), promotion)

    def __len__(self) -> int:
        return len(self._ints)

    def __getitem__(self, index):
        ints = self._ints
        if isinstance(index, slice):
            return [self._decode(ints[k], k) for k in range(*index.indices(len(ints)))]
        if index < 0:
            index += len(ints)
        if not 0 <= index < len(ints):
            raise IndexError("move index out of range")
        return self._decode(ints[index], index)

    def __iter__(self):
        decode, ints = self._decode, self._ints
        return (decode(ints[k], k) for k in range(len(ints)))

    def __eq__(self, other) -> bool:
        if isinstance(other, (MoveStack, list, tuple)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # (equal to a list: unhashable like one)

    def __repr__(self) -> str:
        return f"MoveStack({list(self)!r})"
assert CELLS < _U_SQUARE


_LEAVES_ROYAL_IN_CHECK: Final = Illegality(IllegalReason.LEAVES_ROYAL_IN_CHECK, "it leaves the mover's royal piece in check")
_MUST_CHOOSE, _COMPULSORY = IllegalReason.PROMOTION_MUST_BE_CHOSEN, IllegalReason.PROMOTION_COMPULSORY
_new_move: Final = tuple.__new__  # Move(...) without the Python call of a named tuple's __new__


def _drop_mate(move: Move) -> Illegality:
    return Illegality(IllegalReason.DROP_MATE, f"dropping {move.drop} may not give checkmate")


def _picker(squares: list[int]) -> Callable[[Sequence[Move | None]], Sequence[Move | None]]:
    """The entries of a table on ``squares``, in one call: ``itemgetter(*squares)``, which gives a
    tuple for two squares or more; for none or one a function that also gives a tuple."""
    if len(squares) > 1:
        getter: Callable[[Sequence[Move | None]], Sequence[Move | None]] = itemgetter(*squares)
        return getter
    return lambda table: tuple([table[sq] for sq in squares])


_UCI_SQUARE_RE: Final = re.compile(r"[a-p]\d{1,2}")


def _line_table() -> list[int]:
    """The direction (index into DIRECTIONS) from a square to another on one of its eight lines, by
    their difference + CELLS; -1 off the lines (STRIDE leaves every difference on a board its own)."""
    table = [-1] * (2 * CELLS)
    for d, step in enumerate(DIRECTIONS):
        for k in range(1, max(MAX_FILES, MAX_RANKS)):
            table[step * k + CELLS] = d
    return table


_LINE: Final = _line_table()


# an undo entry that does not fit in an int: the captures (square, code), the royal squares before
# the move when they changed, the squares that lost their "not moved yet" mark
RareUndo = tuple[Sequence[tuple[int, int]], tuple[tuple[int, ...], tuple[int, ...]] | None, tuple[int, ...] | None]


class Board:
    """A position of a variant with the history of moves that led to it.

    ``ended`` is the :class:`Outcome` of a game that is over though moves could still be made:
    where moving into check is legal, a side lost its last royal piece, or the bare-royal rule
    (:meth:`outcome`) ended the game; None while the game goes on.  :meth:`push` notes it at the
    move that ends the game (it looks only after a move that takes a royal piece or leaves a side
    bare, so reading stays cheap), it stays set for any move pushed after it, and taking that move
    back clears it.  The moves listed and checked here are those of the position alone: whether
    a move may still be played is for the caller to ask (a record's readers refuse it).
    """

    rules: Ruleset
    variant: Variant
    hands: list[list[int]]  # [colour][type index]: pieces in hand
    turn: int
    move_number: int
    move_stack: MoveStack
    _board: list[int]  # square -> piece code (EMPTY, OFF)
    _pieces: list[dict[int, int]]  # [colour]: square -> code
    _complex_sq: list[set[int]]  # [colour]: the squares of pieces with generators
    _royals: list[tuple[int, ...]]  # [colour]: the squares of the royal pieces
    _lion_sq: int | None
    _unmoved: set[int] | None  # the squares of pieces not moved yet (only when a rule asks)
    _undo: array[int]
    _rare: list[RareUndo]
    _moves: array[int]
    _odd_moves: dict[int, Move]
    _zobrist: int
    _seen: dict[int, int] | None
    _asked: int
    _history: array[int]
    # per colour, (plies played, move as held in the move stack) when a check of that move there
    # found the colour's one royal piece not attacked after it (see _known_unchecked); None after
    # pop() (other moves may follow: a position of that length may then differ)
    _marks: list[tuple[int, int] | None] | None
    ended: Outcome | None  # see above
    # (see _start_history) from which ply push looks for the end, whether it still does, the ply
    # of the end; the most pieces a bare side can have (see _bare_bound)
    _watch: int | None
    _looking: bool
    _ended_at: int | None
    _bare_bound: int

    def __init__(self, variant: Variant | Ruleset | str, position: str | ParsedPosition | None = None,
                 options: dict | None = None, *, allow_exposed: bool = False):
        """A board of ``variant`` (a name, a variant or a compiled rule set) in ``position`` (a
        position string, or one parsed; default: the start position); ``allow_exposed`` as for
        :meth:`set_position`."""
        if isinstance(variant, str):
            variant = load_variant(variant)
        rules = variant if isinstance(variant, Ruleset) else compile_rules(variant, options)
        self.rules = rules
        self.variant = rules.variant
        if isinstance(position, ParsedPosition):
            self._setup(position, allow_exposed)
        else:
            self.set_position(position or rules.start, allow_exposed=allow_exposed)

    # --- setting up ------------------------------------------------------------------------------

    def set_position(self, text: str, *, allow_exposed: bool = False) -> None:
        """Set up a position from a position string; the move history is cleared.

        Raises :class:`PositionError` for a string that is not a position of the variant (or not a
        possible one: the side not to move in check, unless ``allow_exposed``: for explaining such a
        position, see :mod:`replay.legality`); the board is then left as it was.
        """
        if text == self.rules.start and self._set_start():
            return
        parsed = self.rules.parsed_start() if text == self.rules.start else parse_position(self.rules, text)
        # set up on a new board, so that this one is left as it was when the position is refused
        self._adopt(Board(self.rules, parsed, allow_exposed=allow_exposed))

    def _adopt(self, other: Board) -> None:
        """Take over the position and the history of ``other``, a board of the same rule set that
        is not used again."""
        self._board, self._pieces, self._complex_sq = other._board, other._pieces, other._complex_sq
        self._royals, self.hands, self.turn, self.move_number = other._royals, other.hands, other.turn, other.move_number
        self._lion_sq, self._unmoved = other._lion_sq, other._unmoved
        self._undo, self._rare, self.move_stack = other._undo, other._rare, other.move_stack
        self._moves, self._odd_moves, self._zobrist = other._moves, other._odd_moves, other._zobrist
        self._seen, self._asked, self._history, self._marks = other._seen, other._asked, other._history, other._marks
        self._watch, self._looking, self.ended, self._ended_at = other._watch, other._looking, other.ended, other._ended_at
        self._bare_bound = other._bare_bound

    def _set_start(self) -> bool:
        """Set up the rule set's start position by copying a board set up once (a reader sets up a
        board per game); False when the start position is not a possible one (_setup says why)."""
        first = self.rules.derived(_start_board)
        if first is None:
            return False
        self._board = first._board[:]
        self._pieces = [first._pieces[0].copy(), first._pieces[1].copy()]
        self._complex_sq = [first._complex_sq[0].copy(), first._complex_sq[1].copy()]
        self._royals = first._royals[:]
        self.hands = [first.hands[0][:], first.hands[1][:]]
        self.turn = first.turn
        self.move_number = first.move_number
        self._lion_sq = first._lion_sq
        self._unmoved = None if first._unmoved is None else first._unmoved.copy()
        self._start_history(first._zobrist)
        self._watch, self._looking, self.ended, self._ended_at = first._watch, first._looking, first.ended, first._ended_at
        self._bare_bound = first._bare_bound
        return True

    def _start_history(self, zobrist: int) -> None:
        """No moves played yet, in the position of hash ``zobrist``."""
        R = self.rules
        self._undo = array("Q")  # one int per move played (see push; unsigned: cheaper to append)
        self._rare = []  # the undo entries that do not fit in an int
        self.move_stack = MoveStack(p.id for p in R.types)  # a drop's number: its type's index
        self._moves = self.move_stack._ints  # (push and _pop write these themselves)
        self._odd_moves = self.move_stack._odd
        self._zobrist = zobrist
        self._seen = None  # hash -> times seen, made when asked often (repetitions)
        self._asked = 0
        self._history = array("Q", [zobrist])  # the hash of every position played, 8 bytes each
        self._marks = None
        # the end of a game that leaves moves possible (see ``ended``): the ply from which push
        # looks for it (a royal piece was taken or a side is bare; None: neither), whether it
        # still looks (not once the game has ended), and the ply at which the game ended
        self._watch = None
        self._looking = False
        self.ended = None
        self._ended_at = None

    def _setup(self, parsed: ParsedPosition, allow_exposed: bool = False) -> None:
        R = self.rules
        b = [OFF] * CELLS
        for sq in R.squares:
            b[sq] = EMPTY
        self._board = b
        self._pieces = [{}, {}]
        self._complex_sq = [set(), set()]
        for sq, (t, colour) in parsed.pieces.items():
            code = t * 2 + colour
            self._place(sq, code)
        # the squares of each side's royal pieces (tuples: saved and restored as they are)
        self._royals = [tuple(sq for sq, code in self._pieces[colour].items() if R.royal[code]) for colour in (0, 1)]
        if not R.drops and any(any(h) for h in parsed.hands):
            raise PositionError(f"{self.variant.name} has no drops, so no pieces in hand")
        self.hands = [list(parsed.hands[0]), list(parsed.hands[1])]
        self.turn = parsed.turn
        self.move_number = parsed.move_number
        self._lion_sq = self._lion_state(parsed.lion_capture)
        self._unmoved = set(self._pieces[0]) | set(self._pieces[1]) if R.uses_initial else None
        self._start_history(self._compute_zobrist())
        self._bare_bound = R.derived(_bare_bound)
        if R.bare_royal and (self._bare(0) or self._bare(1)):
            self._watch = 0
            self.ended = self._bare_royal_outcome()
            self._ended_at = 0 if self.ended is not None else None
            self._looking = self.ended is None
        if not allow_exposed and self._exposed(self.turn ^ 1):
            raise PositionError("the side not to move is in check: its royal piece could be captured")

    def _lion_state(self, sq: int | None) -> int | None:
        """Check the square of a Lion just taken by a non-Lion, as read from a position string."""
        if sq is None:
            return None
        if not self.rules.counter_strike:
            raise PositionError(f"{self.variant.name} has no counter-strike rule: no Lion-capture square")
        code = self._board[sq]
        # the square where the Lion stood: the piece that took it is there, or it is empty when the
        # Lion was taken without moving there (igui, or on the first step of a two-step move)
        if code >= 2 and (code & 1) == self.turn:
            raise PositionError(f"the Lion-capture square {square_name(sq)} must be empty or hold a piece of "
                                f"the side that just moved (the piece that took the Lion)")
        return sq

    def _place(self, sq: int, code: int) -> None:
        self._board[sq] = code
        self._pieces[code & 1][sq] = code
        if self.rules.complex[code]:
            self._complex_sq[code & 1].add(sq)

    def _compute_zobrist(self) -> int:
        R = self.rules
        z = 0
        for colour in (0, 1):
            for sq, code in self._pieces[colour].items():
                z ^= R.z_square[code][sq]
            for t, n in enumerate(self.hands[colour]):
                if n:
                    z ^= R.hand_key(colour, t, n)
        if self.turn:
            z ^= R.z_turn
        if self._lion_sq is not None:
            z ^= R.z_lion[self._lion_sq]
        return z

    def copy(self, stack: bool = True) -> "Board":
        """A copy of the board (with the move history unless ``stack`` is False)."""
        other = Board(self.rules)
        if stack:
            other.set_position(self.root_position())
            for m in self.move_stack:
                other.push(m)
        else:
            other.set_position(self.position())
        return other

    # --- reading the position --------------------------------------------------------------------

    def piece_at(self, sq: int) -> Piece | None:
        code = self._board[sq]
        if code < 2:
            return None
        return Piece(self.rules.types[(code >> 1) - 1].id, code & 1)

    def pieces(self, colour: int | None = None) -> dict:
        """Square -> :class:`Piece` for one side, or both."""
        colours = (0, 1) if colour is None else (colour,)
        return {sq: self.piece_at(sq) for c in colours for sq in self._pieces[c]}

    def squares_of(self, piece_id: str, colour: int) -> list[int]:
        """The squares of ``colour``'s pieces with this ID (cheap: no Piece objects are made)."""
        t = self.rules.type_by_id.get(piece_id)
        if t is None:
            return []
        code = t.index * 2 + colour
        return [sq for sq, c in self._pieces[colour].items() if c == code]

    def hand(self, colour: int) -> dict:
        """Piece ID -> count held by ``colour``."""
        return {self.rules.types[t - 1].id: n for t, n in enumerate(self.hands[colour]) if n}

    def royal_square(self, colour: int) -> int | None:
        """The square of ``colour``'s royal piece (the first one when it has several), or None."""
        royals = self._royals[colour]
        return royals[0] if royals else None

    def royal_squares(self, colour: int) -> tuple:
        """The squares of all of ``colour``'s royal pieces."""
        return self._royals[colour]

    @property
    def lion_capture_square(self) -> int | None:
        """Where the last move took a Lion with a non-Lion (counter-strike rule), else None."""
        return self._lion_sq

    @property
    def zobrist(self) -> int:
        """The 64-bit position hash as a signed integer (what SQLite stores)."""
        z = self._zobrist
        return z - (1 << 64) if z >= 1 << 63 else z

    @property
    def ply(self) -> int:
        """Plies played since the position the board was set up from."""
        return len(self._moves)

    def position(self) -> str:
        """The position string of the current position (as :func:`format_position` writes it,
        from tables precomputed per rule set: the viewer writes one for every ply)."""
        rows, tokens = self.rules.position_tables()
        return self._position_text([self._rank_text(row, tokens) for row in rows])

    def _position_text(self, ranks: list, hands: str | None = None) -> str:
        """The position string from its ranks' texts (top rank first) and the board's side to
        move, hands (``hands``: their text, when known) and move number."""
        if self._lion_sq is not None:
            hands = square_name(self._lion_sq)  # the counter-strike square goes where hands go (no drops then)
        elif hands is None:
            hands = format_hands(self.rules, self.hands)
        return f"{'/'.join(ranks)} {'bw'[self.turn]} {hands} {self.move_number}"

    def _rank_text(self, row: list, tokens: list) -> str:
        """One rank of the position string (``row``: its squares, files a, b, c ...)."""
        b = self._board
        out = []
        empty = 0
        for sq in row:
            token = tokens[b[sq]]
            if token is None:
                empty += 1
                continue
            if empty:
                out.append(str(empty))
                empty = 0
            out.append(token)
        if empty:
            out.append(str(empty))
        return "".join(out)

    def positions_after(self, moves) -> list[str]:
        """The position string after each of ``moves`` (pseudo-legal moves of the side to move),
        the board unchanged: only the ranks a move changes are written again (an analysis board
        asks for every legal move's position at once).

        >>> board = Board("shogi")
        >>> move = board.parse_uci("c3c4")
        >>> board.positions_after([move])[0] == (board.push(move) or board.position())
        True
        """
        R = self.rules
        rows, tokens = R.position_tables()
        top = R.ranks - 1
        ranks = [self._rank_text(row, tokens) for row in rows]
        hands = format_hands(R, self.hands)
        out = []
        for move in moves:
            # only drops and captures change the hands
            new_hands = R.drops and (move.drop is not None or move.kills or self._board[move.to_square] >= 2)
            self.push(move)
            try:
                text = list(ranks)
                for sq in (move.from_square, *move.kills, move.to_square):
                    if sq is not None:
                        i = top - square_rank(sq)
                        text[i] = self._rank_text(rows[i], tokens)
                out.append(self._position_text(text, None if new_hands else hands))
            finally:
                self._pop()
        return out

    def root_position(self) -> str:
        """The position string of the position before the first move of ``move_stack``."""
        if not self._moves:
            return self.position()
        moves = list(self.move_stack)
        for _ in moves:
            self.pop()
        text = self.position()
        for m in moves:
            self.push(m)
        return text

    def __str__(self) -> str:
        return self.diagram()

    def diagram(self, file_labels: list[str] | None = None, rank_labels: list[str] | None = None) -> str:
        """A text picture of the board, first player at the bottom, with hands.  The coordinates
        are algebraic (files a, b, ... from the left; ranks 1, 2, ... from the bottom) unless the
        labels are given, each list from index 0 (the first player's left, the first player's
        side): a notation style's (``formats.styles.diagram``)."""
        width = max(2, max(len(p.id) for p in self.rules.types) + 1)
        files = file_labels or list("abcdefghijklmnop"[: self.rules.files])
        ranks = rank_labels or [str(r + 1) for r in range(self.rules.ranks)]
        margin = max(2, max(len(label) for label in ranks))
        lines = []
        if self.rules.drops:
            lines.append("hand of second player: " + _hand_text(self.hand(1)))
        for r in range(self.rules.ranks - 1, -1, -1):
            cells = []
            for f in range(self.rules.files):
                p = self.piece_at(square(f, r))
                cells.append((str(p) if p else ".").rjust(width))
            lines.append(f"{ranks[r]:>{margin}} " + "".join(cells))
        lines.append(" " * (margin + 1) + "".join(c.rjust(width) for c in files))
        if self.rules.drops:
            lines.append("hand of first player: " + _hand_text(self.hand(0)))
        lines.append(("first" if self.turn == 0 else "second") + " player to move")
        return "\n".join(lines)

    # --- attacks ---------------------------------------------------------------------------------

    def is_attacked(self, sq: int, by: int, found: list | None = None) -> bool:
        """Whether a piece of colour ``by`` could capture on ``sq``.  With a list ``found``, the
        squares of every piece that attacks by a slide or a leap are added to it instead
        (:meth:`_checkers`; pieces with generators are then not looked at)."""
        b = self._board
        R = self.rules
        ra = R.ray_attack[by]
        d = 0
        for step in DIRECTIONS:
            t = sq + step
            k = 1
            p = b[t]
            while not p:
                t += step
                k += 1
                p = b[t]
            if ra[p][d] >= k and (not R.verify[p] or self._zone_slide_attacks(t, p, sq, d, k)):
                if found is None:
                    return True
                found.append(t)
            d += 1
        for off, codes in R.leap_attack[by]:
            p = b[sq + off]
            if p in codes and (not R.verify[p] or self._zone_leap_attacks(sq + off, p, sq)):
                if found is None:
                    return True
                found.append(sq + off)
        if found is not None:
            return bool(found)
        if self._complex_sq[by]:
            for s, code, gens in self._complex_attackers(sq, by):
                for to, kills in self._complex_targets(s, code, gens):
                    if sq in kills or (to == sq and to != s):
                        return True
        return False

    def _complex_attackers(self, sq: int, by: int):
        """``(square, code, generators)`` for each piece of ``by`` with generators that could ever
        capture on ``sq`` from where it stands (whatever stands between): the generators that can."""
        R = self.rules
        b = self._board
        attackers = R.complex_attackers[by]
        f0, r0 = sq % STRIDE, sq // STRIDE
        for s in self._complex_sq[by]:
            code = b[s]
            if code not in attackers:
                continue
            table = R.table_of(code, s)
            d = (f0 - s % STRIDE, r0 - s // STRIDE)
            offsets = R.complex_offsets[table]
            if offsets is not None and d not in offsets:
                continue  # none of its generators can ever capture there
            dist = max(abs(d[0]), abs(d[1]))
            gens = [g for g in R.complex[table] if g.captures and dist <= g.reach
                    and (g.capture_offsets is None or d in g.capture_offsets)]
            if gens:
                yield s, code, gens

    # A piece that moves by zone (R.verify) is in the attack tables by the moves of all its zones:
    # an attack found there is confirmed by the tables of the zone it stands in.

    def _zone_slide_attacks(self, s: int, code: int, target: int, d: int, k: int) -> bool:
        """Whether the piece ``code`` on ``s``, which moves by zone, captures on ``target`` by a
        slide from there (``k`` squares away, in direction ``d`` seen from the target, the squares
        between empty)."""
        R = self.rules
        if R.verify[code] == ZONE_TABLE:
            zoned = R.zoned[code]
            return zoned is not None and R.ray_attack[code & 1][zoned[s]][d] >= k
        return self._reaches(s, code, target)

    def _zone_leap_attacks(self, s: int, code: int, target: int) -> bool:
        """Whether the piece ``code`` on ``s``, which moves by zone, captures on ``target`` by one
        of its leaps from there."""
        R = self.rules
        if R.verify[code] == ZONE_TABLE:
            zoned = R.zoned[code]
            return zoned is not None and target - s in R.leap_captures[zoned[s]]
        return self._reaches(s, code, target)

    def _reaches(self, s: int, code: int, target: int) -> bool:
        """Whether the piece ``code`` on ``s`` can capture on ``target`` (used to confirm attacks)."""
        R = self.rules
        zoned = R.zoned[code]
        idx = code if zoned is None else zoned[s]
        if R.complex[idx]:
            return any(to == target or target in kills for to, kills in self._piece_targets(s, code))
        # leaps and slides only: look the step up, as _pseudo_reason does
        b = self._board
        p = b[target]
        if p == EMPTY:
            need = MOVE
        elif p != OFF and (p & 1) != (code & 1):
            need = CAPTURE
        else:
            return False
        for kind, step, k, m in R.by_delta[idx].get(target - s, ()):
            if m & need and (kind == "leap" or all(b[s + step * i] == EMPTY for i in range(1, k))):
                return True
        return False

    def is_check(self) -> bool:
        """Whether the side to move has a royal piece attacked."""
        royals = self._royals[self.turn]
        if len(royals) == 1:
            return self.is_attacked(royals[0], self.turn ^ 1)
        by = self.turn ^ 1
        return any(self.is_attacked(r, by) for r in royals)

    def _protected_royal(self, colour: int) -> int | None:
        """The square of the royal piece a move of ``colour`` may not leave attacked: its last one
        (``royal_loss = "checkmate"``; while it has several, none), never with ``"capture"``
        (moving into check is legal)."""
        royals = self._royals[colour]
        return royals[0] if len(royals) == 1 and not self.rules.royal_capture else None

    def _exposed(self, colour: int) -> bool:
        """Whether ``colour`` has left attacked the royal piece the rules protect
        (:meth:`_protected_royal`, written out here: this runs for every move tried)."""
        royals = self._royals[colour]
        if len(royals) == 1:
            return not self.rules.royal_capture and self.is_attacked(royals[0], colour ^ 1)
        # its last royal piece lost by its own move: burned passively
        return not royals and self.rules.passive_burning and not self.rules.royal_capture and self._burned_royal()

    def _burned_royal(self) -> bool:
        """Whether the last move's piece was a royal one and was burned passively."""
        undo = self._undo
        if not undo or not undo[-1] & _U_BURNED:
            return False
        R = self.rules
        moved = undo[-1] & _U_CODE
        promoted = _PROMO_OF_BITS[(self._moves[-1] >> _M_PROMO) & 3]
        return R.royal[R.promote[moved] if promoted else moved]

    # --- move generation -------------------------------------------------------------------------

    def _complex_targets(self, sq: int, code: int, generators: Sequence[Generator] | None = None) -> Effects:
        """Effects ``(to, kills)`` of a piece's generators from ``sq`` (a set)."""
        R = self.rules
        out: Effects = set()
        limit = max(R.files, R.ranks)
        for g in generators if generators is not None else R.complex[R.table_of(code, sq)]:
            g.targets(self._board, sq, code & 1, out, limit, self._unmoved)
        if not R.null_move:
            out.discard((sq, ()))
        return out

    def _piece_targets(self, sq: int, code: int):
        """Every ``(to, kills)`` a piece could reach, ignoring check."""
        b = self._board
        colour = code & 1
        R = self.rules
        zoned = R.zoned[code]
        idx = code if zoned is None else zoned[sq]
        out = []
        for off, m in R.leaps[idx]:
            t = sq + off
            p = b[t]
            if p == EMPTY:
                if m & MOVE:
                    out.append((t, ()))
            elif p != OFF and (p & 1) != colour and m & CAPTURE:
                out.append((t, ()))
        for off, ms in R.rays[idx]:
            t = sq
            for m in ms:
                t += off
                p = b[t]
                if p == EMPTY:
                    if m & MOVE:
                        out.append((t, ()))
                    continue
                if p != OFF and (p & 1) != colour and m & CAPTURE:
                    out.append((t, ()))
                break
        if R.complex[idx]:
            found = self._complex_targets(sq, code)
            found.update(out)
            return found
        if R.dedupe[idx]:
            return set(out)
        return out

    def _with_promotion(self, sq: int, code: int, to: int, kills, out: list) -> None:
        R = self.rules
        colour = code & 1
        promo = R.promote[code]
        if promo and to != sq and (self._may_promote(code, sq, to, kills) if R.promote_on_entry or R.promote_last_rank
                                   else R.zone[colour][sq] or R.zone[colour][to]):
            if (R.forced_stuck and to in R.dead[code]) or (R.forced_last_rank and R.last_rank[colour][to]):
                out.append(Move(sq, to, kills, True))
            else:
                out.append(Move(sq, to, kills, True))
                out.append(Move(sq, to, kills, False))
        else:
            out.append(Move(sq, to, kills, None))

    def _may_promote(self, code: int, fr: int, to: int, kills) -> bool:
        """Whether a move of a promotable piece may promote, under ``promotion_rule`` and
        ``promotion_last_rank`` (the plain shogi rule is tested inline where moves are made)."""
        R = self.rules
        zone = R.zone[code & 1]
        if R.promote_on_entry:
            # entering the zone, or capturing with a move that starts or ends in it
            if zone[to] and not zone[fr]:
                return True
            if (kills or self._board[to] >= 2) and (zone[fr] or zone[to]):
                return True
        elif zone[fr] or zone[to]:
            return True
        return (code >> 1) in R.promote_last_rank and bool(R.last_rank[code & 1][to])

    def pseudo_legal_moves(self) -> list[Move]:
        """Moves that follow the pieces' movement and the drop rules, not yet checked for check
        (nor for a royal piece left attacked; the Lion-trading rules are applied)."""
        out: list[Move] = []
        for moves in self._pseudo_chunks():
            out += moves
        return out

    def reference_legal_moves(self) -> list[Move]:
        """:meth:`legal_moves` the plain way, for tests of the fast path: every piece's targets
        worked out square by square, every move played and the royal piece looked at."""
        return list(self._legal(self._reference_pseudo_moves()))

    def _reference_pseudo_moves(self) -> list[Move]:
        out: list[Move] = []
        c = self.turn
        for sq, code in list(self._pieces[c].items()):
            for to, kills in self._piece_targets(sq, code):
                self._with_promotion(sq, code, to, kills, out)
        if self.rules.drops:
            out.extend(self._drops())
        if self.rules.lion_rules:
            out = [m for m in out if self._lion_reason(m) is None]
        return out

    def _drops(self) -> list[Move]:
        R = self.rules
        c = self.turn
        hand = self.hands[c]
        b = self._board
        empties = None
        out = []
        for t in R.droppable:
            if not hand[t]:
                continue
            if empties is None:
                empties = [sq for sq in R.squares if b[sq] == EMPTY]
            code = t * 2 + c
            pid = R.types[t - 1].id
            dead = R.dead[code] if R.drop_no_dead else ()
            full = self._full_regions(t, c)
            for sq in empties:
                if sq in dead or (full and any(_region(per, sq) in regions for per, regions in full)):
                    continue
                out.append(Move(None, sq, (), None, pid))
        return out

    def _full_regions(self, t: int, colour: int) -> list:
        """For each drop cap on piece type ``t``: the regions where the mover has reached the cap."""
        caps = self.rules.drop_caps[t]
        if not caps:
            return []
        out = []
        mine = self._pieces[colour]
        for types, per, limit in caps:
            keys = [_region(per, sq) for sq, code in mine.items() if code >> 1 in types]
            out.append((per, set(keys) if limit == 1 else {key for key in set(keys) if keys.count(key) >= limit}))
        return out

    def legal_moves(self) -> list[Move]:
        """Every legal move in the position (in the order of :meth:`pseudo_legal_moves`)."""
        out: list[Move] = []
        for moves in self._legal_chunks():
            out += moves
        return out

    def _legal_chunks(self):
        """The legal moves, a list per piece and then the drops, in the order of
        :meth:`pseudo_legal_moves`.

        The plain way plays every move and looks for an attack on the royal piece.  When no enemy
        piece with a generator could capture on the royal's square from where it stands (its reach
        and capture offsets say), every attack on the royal is a leap or a slide, and then:

        * out of check, a move can only expose the royal by opening a line to an enemy slider: only
          moves of the royal, of a piece that may stand alone between the royal and such a slider
          (an over-approximation from the attack tables) and moves that capture on the way are
          played to check; drops need no check at all;
        * in check, a move other than the royal's that neither captures nor lands on an empty
          square between the royal and a checker on one of its lines leaves every attack standing
          (it blocks no slide, and a leap cannot be blocked): only the others are played to
          check, and drops only on those squares.

        In check by a leap or a slide, the same holds when a piece with generators could also
        capture on the royal's square (a move must answer every attack, that one too): only the
        moves that answer the leaps and slides are played to check, which sees every attack
        (the checkmate confirmation at the end of a game).
        """
        R = self.rules
        c = self.turn
        royal = self._protected_royal(c)
        b = self._board
        checkers = self._checkers(royal, c ^ 1) if royal is not None else ()
        # (a piece burned passively leaves its destination empty: the shortcuts below assume that
        # it stands there, so every move is played)
        if royal is not None and (R.passive_burning or (not checkers and self._complex_may_attack(royal, c ^ 1))):
            near = self._generator_check(royal, c ^ 1) if not checkers and not R.passive_burning else None
            for moves in self._pseudo_chunks():
                if near is not None:
                    # in check by a piece with generators, whose attack reads only the squares
                    # ``near``: a move that changes none of them leaves it standing, unless it is
                    # the royal's own or makes a second royal piece (then neither is protected)
                    moves = [m for m in moves if m.to_square in near or m.from_square in near
                             or m.from_square == royal or any(k in near for k in m.kills)
                             or (m.promotion and R.royal[R.promote[b[m.from_square]]])]
                yield list(self._legal(moves))
            return
        if royal is not None and checkers:
            lines = self._lines_to(royal, checkers)
            safe = self._stays_safe
            # a one-leg move of another piece answers the check only by taking a checker or by
            # landing between it and the royal: a piece whose tables reach none of those squares
            # has no move to try (its moves are not even generated)
            targets = lines.union(checkers)
            zoned, complex_, by_delta = R.zoned, R.complex, R.by_delta
            for sq, code in list(self._pieces[c].items()):
                # a piece promoting to a royal one (Sho Shogi's Elephant to Crown Prince) answers the
                # check by that alone: the side then has two royal pieces, and may leave either attacked
                crowns = bool(R.promote[code]) and R.royal[R.promote[code]]
                if sq != royal and not crowns:
                    z = zoned[code]
                    idx = code if z is None else z[sq]
                    if not complex_[idx]:
                        deltas = by_delta[idx]
                        if not any(t - sq in deltas for t in targets):
                            continue
                moves = self._piece_moves(sq, code)
                if sq == royal:
                    yield [m for m in moves if safe(m, c)]
                else:
                    yield [m for m in moves
                           if (m.kills or b[m.to_square] or m.to_square in lines or (crowns and m.promotion))
                           and safe(m, c)]
            if R.drops:
                yield from self._drop_chunks(lines)
            return
        pinned = () if royal is None else self._pin_candidates(royal, c)
        for sq, code in list(self._pieces[c].items()):
            moves = self._piece_moves(sq, code)
            if royal is None:
                yield moves
            elif sq == royal or sq in pinned:
                yield [m for m in moves if self._stays_safe(m, c)]
            elif R.complex[code]:
                yield [m for m in moves if not m.kills or self._stays_safe(m, c)]
            else:
                yield moves
        if R.drops:
            yield from self._drop_chunks(None)

    def _generator_check(self, royal: int, by: int) -> set[int] | None:
        """When a piece of ``by`` with generators attacks the royal piece on ``royal`` and its
        generators that can capture there have a bounded reach: the squares a path of that
        attack can pass, a superset of those whose contents it depends on (some may be off the
        board); None otherwise.  A generator's path moves at most its reach in all (the legs of
        a pattern, the steps of an area move, the stages of a two-stage move and a burn's
        step add up to it, see :mod:`replay.generators`) and depends on the squares it passes
        alone: every square of a path from the piece to the royal lies within the reach of both
        when its distances to them add up to no more than the reach."""
        for s, code, gens in self._complex_attackers(royal, by):
            reach = max(g.reach for g in gens)
            if reach >= UNBOUNDED:
                continue
            if any(royal in kills or (to == royal and to != s) for to, kills in self._complex_targets(s, code, gens)):
                box = (s + dx + dy * STRIDE for dx in range(-reach, reach + 1) for dy in range(-reach, reach + 1))
                return {t for t in box if _distance(s, t) + _distance(t, royal) <= reach}
        return None

    def _drop_chunks(self, lines):
        """The legal drops, a sequence per piece type in hand; in check, only on the squares
        ``lines`` (each then played to check), else anywhere the drop rules allow."""
        R = self.rules
        c = self.turn
        b = self._board
        hand = self.hands[c]
        enemy_royals = self._royals[c ^ 1]
        enemy_royal = enemy_royals[0] if len(enemy_royals) == 1 else None
        targets: list[int] | None = None
        for t in R.droppable:
            if not hand[t]:
                continue
            if targets is None:
                targets = [sq for sq in R.squares if not b[sq]] if lines is None else sorted(lines)
                # the drops of each type on those squares read from its table in one call
                pick = _picker(targets)
            code = t * 2 + c
            table, some_dead = R.drop_tables.get(code) or R.drop_table(code)
            capped: set[int] = set()
            if R.drop_caps[t]:
                capped = set().union(*(R.region_squares(per)[key]
                                       for per, regions in self._full_regions(t, c) for key in regions))
            # a tuple, or without the squares of the regions where a cap is reached a list; a dead
            # square's entry is None, which filter(None) leaves out
            picked = [table[s] for s in targets if s not in capped] if capped else pick(table)
            moves: Sequence[Move] = (list(filter(None, picked)) if some_dead
                                     else cast("Sequence[Move]", picked))  # (None only on dead squares)
            if lines is not None:
                moves = [m for m in moves if self._stays_safe(m, c)]
            if t in R.drop_mate_forbidden and enemy_royals and moves:
                # the drop mates only if it checks; without hoppers of the mover's that could use
                # it as a screen, only the dropped piece itself can give that check: only the drops
                # on the squares it would check from are tried, and of those, when its moves are
                # leaps and slides, only the ones that check and leave the royal no move are
                # played out
                deltas = (None if enemy_royal is None or self._complex_may_attack(enemy_royal, c)
                          else R.attack_deltas(code))
                if deltas is None:
                    tried = moves
                elif lines is None:
                    # out of check every empty square not ruled out is among the moves: the
                    # checking squares are looked up rather than the moves searched
                    tried = [table[s] for s in {enemy_royal - d for d in deltas}
                             if 0 <= s < CELLS and not b[s] and table[s] is not None and s not in capped]
                else:
                    checking = {enemy_royal - d for d in deltas}
                    tried = [m for m in moves if m.to_square in checking]
                if tried and enemy_royal is not None and not R.complex[code]:
                    tried = [m for m in tried if self._drop_may_mate(m.to_square, code, enemy_royal)]
                mates = [m for m in tried if self._is_drop_mate(m)]
                if mates:
                    moves = [m for m in moves if m not in mates]
            yield moves

    def _drop_may_mate(self, sq: int, code: int, royal: int) -> bool:
        """A first look at whether dropping the piece ``code``, a piece of leaps and slides, on the
        empty square ``sq`` mates the royal piece on ``royal``: False when the drop does not
        attack it, or when the royal piece has a move of its own out of every attack (most checks
        by drop); True when the drop must be played out to know (:meth:`_is_drop_mate`).  The
        piece is set on the board for the look, not played."""
        R = self.rules
        b = self._board
        b[sq] = code
        try:
            if not self.is_attacked(royal, code & 1):
                return False
            king = b[royal]
            zoned = R.zoned[king]
            idx = king if zoned is None else zoned[royal]
            if not R.table_moves or R.complex[idx]:
                return True
            # its moves from the tables take nothing on the way: each is looked at on the squares
            return not self._royal_escapes(royal)
        finally:
            b[sq] = EMPTY

    def _lines_to(self, sq: int, ends: Collection[int]) -> set[int]:
        """The empty squares on those of the eight lines from ``sq`` whose first piece stands on
        one of the squares ``ends``, up to that piece."""
        b = self._board
        out: set[int] = set()
        for step in DIRECTIONS:
            t = sq + step
            while not b[t]:
                t += step
            if t in ends:
                out.update(range(sq + step, t, step))
        return out

    def _pseudo_chunks(self):
        """The pseudo-legal moves, a list per piece and then the drops."""
        for sq, code in list(self._pieces[self.turn].items()):
            yield self._piece_moves(sq, code)
        if self.rules.drops:
            yield self._drops()

    def _piece_moves(self, sq: int, code: int) -> list[Move]:
        """The pseudo-legal moves of one piece, from the ready-made tables of the rule set."""
        R = self.rules
        zoned = R.zoned[code]
        idx = code if zoned is None else zoned[sq]
        if R.complex[idx] or not R.table_moves:
            out: list[Move] = []
            for to, kills in self._piece_targets(sq, code):
                self._with_promotion(sq, code, to, kills, out)
            if R.lion_rules:
                out = [m for m in out if self._lion_reason(m) is None]
            return out
        b = self._board
        colour = code & 1
        leaps, rays = R.move_tables.get(code * CELLS + sq) or R.move_table(code, sq)
        out = []
        for to, m, moves in leaps:
            p = b[to]
            if not p:
                if m & MOVE:
                    out += moves
            elif (p & 1) != colour and m & CAPTURE:
                out += moves
        for ray in rays:
            for to, m, moves in ray:
                p = b[to]
                if not p:
                    if m & MOVE:
                        out += moves
                    continue
                if (p & 1) != colour and m & CAPTURE:
                    out += moves
                break
        if R.dedupe[idx]:
            return list(dict.fromkeys(out))
        return out

    def _stays_safe(self, move: Move, colour: int) -> bool:
        """Whether ``colour``'s royal piece is not attacked after ``move``.  A move without captures
        on the way is made on the squares alone (attacks read nothing else), others (and a move
        whose piece is burned passively) are played."""
        if move.kills or (self.rules.passive_burning and self.burns_mover(move)):
            self.push(move)
            exposed = self._exposed(colour)
            self._pop()
            return not exposed
        R = self.rules
        b = self._board
        to = move.to_square
        if move.drop is not None:  # a dropped piece is never royal
            royal = self._protected_royal(colour)
            b[to] = R.type_by_id[move.drop].index * 2 + colour
            safe = royal is None or not self.is_attacked(royal, colour ^ 1)
            b[to] = EMPTY
            return safe
        fr = move.from_square
        if fr is None:
            raise IllegalMoveError(move, "no origin square", IllegalReason.NO_ORIGIN)
        moved = b[fr]
        taken = b[to]
        code = R.promote[moved] if move.promotion else moved
        # the royal pieces after the move: the one protected is the only one left, if only one
        royals: Sequence[int]
        if R.royal[moved] or R.royal[code]:
            royals = [s for s in self._royals[colour] if s != fr] + ([to] if R.royal[code] else [])
        else:
            royals = self._royals[colour]
        royal = royals[0] if len(royals) == 1 and not R.royal_capture else None
        b[fr] = EMPTY
        b[to] = code
        safe = royal is None or not self.is_attacked(royal, colour ^ 1)
        b[to] = taken
        b[fr] = moved
        return safe

    def _checkers(self, sq: int, by: int) -> list:
        """The squares of the pieces of ``by`` that attack ``sq`` by a slide or a leap (pieces with
        generators are not looked at: callers rule them out first)."""
        found: list = []
        self.is_attacked(sq, by, found)
        return found

    def _pin_candidates(self, royal: int, colour: int) -> set:
        """The mover's pieces that may stand alone between its royal piece and an enemy slider
        that attacks along that line (from the attack tables, which may over-approximate)."""
        b = self._board
        ra = self.rules.ray_attack[colour ^ 1]
        out = set()
        d = 0
        for step in DIRECTIONS:
            t = royal + step
            p = b[t]
            while not p:
                t += step
                p = b[t]
            if p != OFF and (p & 1) == colour:
                first = t
                t += step
                k = (t - royal) // step
                p = b[t]
                while not p:
                    t += step
                    k += 1
                    p = b[t]
                if p != OFF and (p & 1) != colour and ra[p][d] >= k:
                    out.add(first)
            d += 1
        return out

    def _complex_may_attack(self, sq: int, by: int) -> bool:
        """Whether some piece of ``by`` with generators could ever capture on ``sq`` from where it
        stands, whatever stands between (its reach and capture offsets say)."""
        return next(self._complex_attackers(sq, by), None) is not None

    def _legal(self, moves):
        """The legal ones among pseudo-legal ``moves`` (the board is unchanged at each yield)."""
        c = self.turn
        # adding a piece exposes an unchecked royal only by screening for an enemy's hopper
        safe_drops = not self.rules.drops_may_expose and not self.is_check()
        for m in moves:
            if m.drop is not None and safe_drops:
                ok = True
            else:
                self.push(m)
                ok = not self._exposed(c)
                self._pop()
            if ok and (m.drop is None or not self._is_drop_mate(m)):
                yield m

    def _is_drop_mate(self, move: Move) -> bool:
        """Whether a drop of a piece that may not give mate by drop (pawn) mates."""
        R = self.rules
        if move.drop is None:
            return False
        t = R.type_by_id[move.drop].index
        if t not in R.drop_mate_forbidden:
            return False
        self.push(move)
        try:
            if not self.is_check():
                return False
            return not self.has_legal_move()
        finally:
            self._pop()

    def has_legal_move(self) -> bool:
        """Whether the side to move has a legal move: tries the royal piece's moves first (the
        usual way out of a check), then stops at the first piece that has one.  The end-of-game
        test and the self-play engine's mate test use it; it generates only the moves it must.

        >>> board = Board("shogi", "4k4/4G4/4G4/9/9/9/9/9/4K4 w - 1")   # mated: the Gold is protected
        >>> board.has_legal_move(), board.is_checkmate()
        (False, True)
        """
        royal = self._protected_royal(self.turn)
        if royal is not None and self._royal_escapes(royal):
            return True
        return any(self._legal_chunks())

    def _royal_escapes(self, royal: int) -> bool:
        """Whether the royal piece on ``royal`` has a move of its own after which it is not
        attacked."""
        king = self._board[royal]
        return any(self._stays_safe(m, king & 1) for m in self._piece_moves(royal, king))

    # --- checking one move -----------------------------------------------------------------------

    def illegality(self, move: Move) -> Illegality | None:
        """Why ``move`` is illegal here (a code and a message), or None if it is legal.  Cheap:
        generates no other moves."""
        found = self._pseudo_reason(move)
        if found:
            return found
        if not self._stays_safe(move, self.turn):
            return _LEAVES_ROYAL_IN_CHECK
        if move.drop is not None and self._is_drop_mate(move):
            return _drop_mate(move)
        return None

    def illegal_reason(self, move: Move) -> str | None:
        """Why ``move`` is illegal here, or None if it is legal: the message of
        :meth:`illegality` (code that decides on the reason reads its ``code``)."""
        found = self.illegality(move)
        return None if found is None else found.message

    def may_make(self, move: Move) -> bool:
        """A cheap first test for a board move: False only when the piece on the origin certainly
        cannot make it (no piece there, or a piece with only leaps and slides, none of which ends
        there, or the move captures on the way or passes).  Blockers, modes, promotion and check
        are not looked at: True says nothing about legality.  Readers of move text use it to
        narrow the pieces a move may be by before the full check."""
        fr = move.from_square
        if fr is None or not 0 <= fr < CELLS:
            return False
        code = self._board[fr]
        if code < 2:
            return False
        R = self.rules
        zoned = R.zoned[code]
        idx = code if zoned is None else zoned[fr]
        if R.complex[idx]:
            return True
        return not move.kills and move.to_square != fr and (move.to_square - fr) in R.by_delta[idx]

    def is_legal(self, move: Move) -> bool:
        return self.illegality(move) is None

    def play(self, move: Move) -> None:
        """Check ``move`` and play it; raise :class:`IllegalMoveError` (board unchanged) if illegal."""
        found = self._pseudo_reason(move)
        if found:
            raise IllegalMoveError(move, found.message, found.code)
        c = self.turn
        R = self.rules
        royals = self._royals[c]
        fr = move.from_square
        if (self._marks is not None and len(royals) == 1 and not move.kills and fr != royals[0]
                and not R.royal_capture and self._known_unchecked(c, royals[0])):
            # the royal piece is not attacked now: only a line the move opens can attack it
            # (a drop opens none, unless an enemy piece could hop over the dropped one)
            if fr is not None:
                b = self._board
                to = move.to_square
                moved, taken = b[fr], b[to]
                code = R.promote[moved] if move.promotion else moved
                if R.royal[code]:
                    exposed = False  # a second royal piece: neither is protected then
                else:
                    b[fr] = EMPTY
                    b[to] = code
                    exposed = self._opened(royals[0], fr, c ^ 1)
                    b[to] = taken
                    b[fr] = moved
                if exposed:
                    raise IllegalMoveError(move, _LEAVES_ROYAL_IN_CHECK.message, _LEAVES_ROYAL_IN_CHECK.code)
                self.push(move)
            elif R.drops_may_expose:
                self.push(move)
                if self._exposed(c):
                    self._pop()
                    raise IllegalMoveError(move, _LEAVES_ROYAL_IN_CHECK.message, _LEAVES_ROYAL_IN_CHECK.code)
            else:
                self.push(move)
        else:
            self.push(move)
            if self._exposed(c):
                self._pop()
                raise IllegalMoveError(move, _LEAVES_ROYAL_IN_CHECK.message, _LEAVES_ROYAL_IN_CHECK.code)
        if move.drop is not None and R.drop_mate_forbidden and R.type_by_id[move.drop].index in R.drop_mate_forbidden:
            self._pop()
            if self._is_drop_mate(move):
                found = _drop_mate(move)
                raise IllegalMoveError(move, found.message, found.code)
            self.push(move)
        self._mark(c)

    def _mark(self, colour: int) -> None:
        """Note that the last move, a move of ``colour`` found legal, leaves its royal piece not
        attacked, when it has one royal piece the rules protect (see :meth:`_known_unchecked`)."""
        if len(self._royals[colour]) == 1 and not self.rules.royal_capture:
            marks = self._marks
            if marks is None:
                marks = self._marks = [None, None]
            moves = self._moves
            marks[colour] = (len(moves) - 1, moves[-1])

    def _known_unchecked(self, colour: int, royal: int) -> bool:
        """Whether ``colour``, to move, is known not to be in check, its royal piece on ``royal``,
        without looking at every line and leap to that square: true when a check of its last move
        found the royal piece not attacked after it (``_marks``, forgotten by :meth:`pop`)
        and the opponent's move since then attacks it neither with the piece moved (or dropped)
        nor along the line it left, and no piece of the opponent's with generators could capture
        there.  False says nothing.  A move of a piece other than the royal one can then attack
        the royal piece only along the line it leaves (:meth:`_opened`)."""
        marks = self._marks
        if marks is None or self.rules.passive_burning:
            return False  # (a piece burned passively after its move leaves an empty square)
        mark = marks[colour]
        moves = self._moves
        n = len(moves)
        if mark is None or mark[0] != n - 2 or moves[n - 2] != mark[1]:
            return False
        last = moves[n - 1]
        if last & _M_ODD:
            return False  # it took on the way: more than one line may have opened
        by = colour ^ 1
        if self._complex_sq[by] and self._complex_may_attack(royal, by):
            return False
        R = self.rules
        b = self._board
        to = (last >> _M_TO) & _M_SQUARE
        code = b[to]
        zoned = R.zoned[code]
        idx = code if zoned is None else zoned[to]
        for kind, step, k, m in R.by_delta[idx].get(royal - to, ()):
            if m & CAPTURE:
                if kind == "leap":
                    return False
                t = to + step
                for _ in range(k - 1):
                    if b[t]:
                        break
                    t += step
                else:
                    return False
        return bool(last & _M_DROP) or not self._opened(royal, last & _M_FROM, by)

    def _opened(self, royal: int, fr: int, by: int) -> bool:
        """Whether a slider of ``by`` attacks ``royal`` along the line from there through ``fr``
        (none when ``fr`` is on none of its lines): the one attack a move from ``fr`` can open.
        (The scan is :meth:`is_attacked`'s for one direction, written out again: this runs for
        every move read, and a shared helper would cost a call per direction there.)"""
        d = _LINE[fr - royal + CELLS]
        if d < 0:
            return False
        step = DIRECTIONS[d]
        b = self._board
        t = royal + step
        k = 1
        p = b[t]
        while not p:
            t += step
            k += 1
            p = b[t]
        R = self.rules
        return R.ray_attack[by][p][d] >= k and (not R.verify[p] or self._zone_slide_attacks(t, p, royal, d, k))

    def step_move(self, type_index: int, to: int, origins: bytes, promotion: bool | None) -> Move | None:
        """The one legal move of a piece of type ``type_index`` of the side to move to ``to`` in one
        leg (nothing taken on the way, not a pass) from one of the squares ``origins`` (one byte a
        square, see :data:`~replay.squares.SQUARE_OF_BYTE`; an origin that does not hold such a
        piece is passed over); ``promotion`` as written, None when not written (a compulsory
        promotion is then read as made).  None when no such move is legal, or more than one is.
        The board is left as it was.

        The fast path of reading move text (:func:`replay.notation.quick_move`, once a ply): a
        move of the piece's own leaps and slides with no promotion written, neither into nor out
        of its promotion zone, is checked here on the move tables (the rule set's ``plain_steps``)
        and by the safety of the royal piece alone (along the one line the move leaves when the
        side to move is known not to be in check, see :meth:`_known_unchecked`); every other
        move by :meth:`illegality`'s own checks.  Same answer as trying each origin with
        :meth:`illegality`.
        """
        b = self._board
        c = self.turn
        p = b[to]
        if p >= 2 and (p & 1) == c:
            return None  # onto the mover's own piece: a pass, or illegal
        code = type_index * 2 + c
        lean = self.rules.plain_steps[code] if promotion is None else None
        unchecked = False  # whether the side to move is known not to be in check
        if lean is not None:
            steps, zone, guard = lean
            need = MOVE if p == EMPTY else CAPTURE
            royal = None  # the royal piece to keep safe here (None: _stays_safe decides)
            if guard:
                royals = self._royals[c]
                if len(royals) == 1:
                    royal = royals[0]
                    unchecked = self._marks is not None and self._known_unchecked(c, royal)
        found = None
        square_of = SQUARE_OF_BYTE
        for n in origins:
            fr = square_of[n]
            if b[fr] != code:
                continue
            if lean is not None and (zone is None or not (zone[fr] or zone[to])):
                for kind, step, k, m in steps.get(to - fr, ()):
                    if m & need:
                        if kind == "slide":
                            t = fr + step
                            for _ in range(k - 1):
                                if b[t]:
                                    break
                                t += step
                            else:
                                break
                        else:
                            break
                else:
                    continue  # no step of its tables gets there: _pseudo_reason says so too
                if royal is None:
                    move = _new_move(Move, (fr, to, (), None, None))
                    if not self._stays_safe(move, c):
                        continue
                else:  # _stays_safe, written out
                    b[fr] = EMPTY
                    b[to] = code
                    attacked = self._opened(royal, fr, c ^ 1) if unchecked else self.is_attacked(royal, c ^ 1)
                    b[to] = p
                    b[fr] = code
                    if attacked:
                        continue
                    move = _new_move(Move, (fr, to, (), None, None))
            else:
                move = Move(fr, to, (), promotion)
                reason = self._pseudo_reason(move)
                if reason is not None and promotion is None and reason.code is _MUST_CHOOSE:
                    # not written: read as made where declining is illegal (compulsory)
                    declined = self._pseudo_reason(move._replace(promotion=False))
                    if declined is not None and declined.code is _COMPULSORY:
                        move = move._replace(promotion=True)
                        reason = self._pseudo_reason(move)
                if reason is not None or not self._stays_safe(move, c):
                    continue
            if found is not None:
                return None  # ambiguous
            found = move
            origin = fr
        if found is not None:
            R = self.rules
            if len(self._royals[c]) == 1 and not R.royal_capture and not (found.promotion and R.royal[R.promote[code]]):
                # checked: the royal piece is not attacked after it (see _known_unchecked)
                marks = self._marks
                if marks is None:
                    marks = self._marks = [None, None]
                marks[c] = (len(self._moves), origin | to << _M_TO | _PROMO_BITS[found.promotion])
        return found

    def _pseudo_reason(self, move: Move) -> Illegality | None:
        """Why ``move`` does not follow the pieces' moves, the drop and promotion rules and the
        Lion-trading rules (check is not looked at), or None."""
        R = self.rules
        b = self._board
        c = self.turn
        to = move.to_square
        if not (0 <= to < CELLS) or b[to] == OFF:
            return Illegality(IllegalReason.OFF_BOARD, "the destination is off the board")
        if move.drop is not None:
            if not R.drops:
                return Illegality(IllegalReason.NO_DROPS, f"{self.variant.name} has no drops")
            if move.from_square is not None or move.kills or move.promotion is not None:
                return Illegality(IllegalReason.MALFORMED_DROP, "a drop has no origin, captures or promotion")
            pt = R.type_by_id.get(move.drop)
            if pt is None:
                return Illegality(IllegalReason.UNKNOWN_PIECE, f"no piece {move.drop!r} in {self.variant.name}")
            t = pt.index
            if not self.hands[c][t]:
                return Illegality(IllegalReason.NOT_IN_HAND, f"no {move.drop} in hand")
            if b[to] != EMPTY:
                return Illegality(IllegalReason.DROP_SQUARE_OCCUPIED, "the drop square is not empty")
            code = t * 2 + c
            if R.drop_no_dead and to in R.dead[code]:
                return Illegality(IllegalReason.DROP_ON_DEAD_SQUARE, f"a {move.drop} dropped there could never move")
            for per, regions in self._full_regions(t, c):
                if _region(per, to) in regions:
                    what = {"file": "file", "file-parity": "group of alternate files",
                            "square-colour": "square colour", "board": "board"}[per]
                    return Illegality(IllegalReason.DROP_CAP_REACHED,
                                      f"the mover already has the most unpromoted {move.drop} allowed on that {what}")
            return None
        fr = move.from_square
        if fr is None or not (0 <= fr < CELLS):
            return Illegality(IllegalReason.NO_ORIGIN, "no origin square")
        code = b[fr]
        if code < 2:
            return Illegality(IllegalReason.EMPTY_ORIGIN, "there is no piece on the origin square")
        if (code & 1) != c:
            return Illegality(IllegalReason.OPPONENTS_PIECE, "the piece on the origin square belongs to the opponent")
        kills = move.kills
        found = False
        zoned = R.zoned[code]
        idx = code if zoned is None else zoned[fr]
        if not kills and fr != to:
            entries = R.by_delta[idx].get(to - fr)
            if entries:
                p = b[to]
                if p == EMPTY:
                    need = MOVE
                elif (p & 1) != c:
                    need = CAPTURE
                else:
                    return Illegality(IllegalReason.OWN_PIECE_ON_DESTINATION, "the destination holds the mover's own piece")
                for kind, step, k, m in entries:
                    if not m & need:
                        continue
                    if kind == "slide":
                        t = fr + step
                        for _ in range(k - 1):
                            if b[t] != EMPTY:
                                break
                            t += step
                        else:
                            found = True
                            break
                    else:
                        found = True
                        break
        if not found and R.complex[idx]:
            # only the generators that can end there: within reach, and on one of the squares a
            # single-leg move can end on when that is worked out
            d = (to % STRIDE - fr % STRIDE, to // STRIDE - fr // STRIDE)
            dist = max(abs(d[0]), abs(d[1]))
            gens = [g for g in R.complex[idx] if (dist <= g.reach or to == fr or kills)
                    and (g.ends is None or kills or d in g.ends)]
            found = bool(gens) and (to, tuple(kills)) in self._complex_targets(fr, code, gens)
        if not found:
            name = R.types[(code >> 1) - 1].id
            return Illegality(IllegalReason.PIECE_CANNOT_MOVE_SO, f"the {name} on {square_name(fr)} cannot make that move")
        promo = R.promote[code]
        # promotion needs a move into, within or out of the zone: a pass or igui does not move
        can = promo and to != fr and (self._may_promote(code, fr, to, kills) if R.promote_on_entry or R.promote_last_rank
                                      else R.zone[c][fr] or R.zone[c][to])
        if move.promotion is None:
            if can:
                return Illegality(IllegalReason.PROMOTION_MUST_BE_CHOSEN, "the move can promote: promotion must be chosen")
        elif not can:
            return Illegality(IllegalReason.CANNOT_PROMOTE, "the piece cannot promote on this move")
        elif move.promotion is False and ((R.forced_stuck and to in R.dead[code])
                                          or (R.forced_last_rank and R.last_rank[c][to])):
            return Illegality(IllegalReason.PROMOTION_COMPULSORY, "promotion is compulsory here")
        if R.lion_rules:
            return self._lion_reason(move)
        return None

    def _lion_reason(self, move: Move) -> Illegality | None:
        """Why a pseudo-legal move breaks a Lion-trading rule, or None (rules ``lions``,
        ``lion_protected``, ``lion_cheap``, ``lion_counter_strike``; the board is unchanged)."""
        R = self.rules
        b = self._board
        fr = move.from_square
        if fr is None:
            return None
        lion = R.lion
        to = move.to_square
        taken = [k for k in move.kills if lion[b[k]]]
        if to != fr and lion[b[to]]:
            taken.append(to)
        if not taken:
            return None
        if lion[b[fr]]:
            if not R.lion_protected:
                return None
            kills = move.kills
            # the bridge: a first step that took a piece other than the cheap ones (Pawn, Go-Between)
            if kills and _distance(fr, kills[0]) == 1 and (b[kills[0]] >> 1) not in R.lion_cheap:
                return None
            for sq in taken:
                if _distance(fr, sq) > 1 and self._lion_protected_after(move, sq):
                    return Illegality(IllegalReason.PROTECTED_LION,
                                      f"a Lion may not take the protected Lion on {square_name(sq)} from two squares "
                                      f"away" + (" (a Pawn or Go-Between taken first is no bridge)" if kills else ""))
            return None
        held = self._lion_sq
        if held is not None:
            for sq in taken:
                if sq != held or R.counter_strike == "strict":
                    return Illegality(IllegalReason.COUNTER_STRIKE,
                                      f"counter-strike: a Lion was just taken by a non-Lion on {square_name(held)}, "
                                      f"so only a Lion may take a Lion on this move"
                                      + ("" if R.counter_strike == "strict" else f" (except on {square_name(held)})"))
        return None

    def _lion_protected_after(self, move: Move, sq: int) -> bool:
        """Whether the opponent could take back on ``sq`` after ``move`` (the Lion's start square and
        the first step's square are empty then).  As in lishogi, a piece taken on the first step
        still counts as a protector."""
        c = self.turn
        first = move.kills[0] if move.kills else None
        first_code = self._board[first] if first is not None else 0
        self.push(move)
        try:
            if self.is_attacked(sq, c ^ 1):
                return True
            return first is not None and first_code >= 2 and self._reaches(first, first_code, sq)
        finally:
            self._pop()

    # --- making and unmaking moves ---------------------------------------------------------------

    def pop(self) -> Move:
        """Take back the last move."""
        move = self.move_stack[-1]
        self._marks = None  # other moves may follow: a position of a marked length may then differ
        self._pop()
        return move

    def peek(self) -> Move:
        return self.move_stack[-1]

    # An undo entry is one int of the array ``_undo`` (8 bytes a ply: a long game holds one per
    # move).  Its fields: the code of the piece that moved; the code taken on the destination (0:
    # none); whether the origin and the destination lose their "not moved yet" mark; the
    # Lion-capture square before the move + 1 (0: none); the index + 1 of the origin among the
    # mover's royal squares and of the destination among the opponent's (0: not royal), so that
    # taking the move back puts each royal square back where it was in its tuple; whether the
    # moved piece was burned passively after its move (_U_BURNED: it is not on the destination
    # then, and its code follows from the piece moved and the promotion).  A move that
    # takes on the way (``kills``), or whose fields do not fit, keeps what it changed in ``_rare``
    # and sets _U_RARE.  The move itself is the last of ``_moves``, the hash before it the
    # history's last but one.

    def push(self, move: Move) -> None:
        """Play a move without checking it (see :meth:`play` for the checked version)."""
        R = self.rules
        b = self._board
        c = self.turn
        mine = self._pieces[c]
        theirs = self._pieces[c ^ 1]
        zsq = R.z_square
        z = self._zobrist
        old_lion = self._lion_sq
        to = move.to_square
        entry = 0 if old_lion is None else (old_lion + 1) << _U_LION
        captured: Sequence[tuple[int, int]] = ()  # (square, code) of each piece taken
        if move.drop is not None:
            t = R.type_by_id[move.drop].index
            code = t * 2 + c
            moved = code
            played = t | to << _M_TO | _M_DROP | _PROMO_BITS[move.promotion]
            h = self.hands[c]
            n = h[t]
            h[t] = n - 1
            z ^= R.hand_key(c, t, n) ^ R.hand_key(c, t, n - 1) ^ zsq[code][to]
            b[to] = code
            mine[to] = code
            if R.complex[code]:
                self._complex_sq[c].add(to)
        else:
            fr = move.from_square
            if fr is None:
                raise IllegalMoveError(move, "no origin square", IllegalReason.NO_ORIGIN)
            moved = code = b[fr]
            b[fr] = EMPTY
            del mine[fr]
            z ^= zsq[code][fr]
            played = fr | to << _M_TO | _PROMO_BITS[move.promotion]
            kills = move.kills
            if kills:
                played |= _M_ODD
                self._odd_moves[len(self._moves)] = move
                on_way: list[tuple[int, int]] = []
                for k in kills:
                    cap = b[k]
                    b[k] = EMPTY
                    del theirs[k]
                    z ^= zsq[cap][k]
                    on_way.append((k, cap))
                captured = on_way
            cap = b[to]
            if cap:
                del theirs[to]
                z ^= zsq[cap][to]
                if kills:
                    on_way.append((to, cap))
                else:
                    captured = ((to, cap),)
                    entry |= cap << _U_TAKEN
            if move.promotion:
                code = R.promote[code]
            b[to] = code
            mine[to] = code
            z ^= zsq[code][to]
            if len(mine) <= self._bare_bound and to in R.dead[code] and self._watch is None and self._bare(c):
                self._watch = len(self._moves) + 1  # its last piece that counts can never move again
                self._looking = True
            royals = self._royals
            old_royal: tuple[tuple[int, ...], tuple[int, ...]] | None = None
            if R.royal[code] or R.royal[moved]:
                old_royal = (royals[0], royals[1])
                mover = royals[c]
                if R.royal[moved]:
                    i = mover.index(fr) + 1
                    entry |= (i << _U_ROYAL) if i <= _U_INDEX else _U_RARE
                royals[c] = tuple(s for s in mover if s != fr) + ((to,) if R.royal[code] else ())
            if R.complex[moved] or R.complex[code]:
                self._complex_sq[c].discard(fr)
                if R.complex[code]:
                    self._complex_sq[c].add(to)
            if captured:
                hand = self.hands[c]
                for k, cap in captured:
                    if R.royal[cap]:
                        if old_royal is None:
                            old_royal = (royals[0], royals[1])
                        theirs_royal = royals[c ^ 1]
                        i = theirs_royal.index(k) + 1
                        entry |= (i << _U_ROYAL_TAKEN) if i <= _U_INDEX and not kills else _U_RARE
                        royals[c ^ 1] = tuple(s for s in theirs_royal if s != k)
                        if not royals[c ^ 1] and self.ended is None:
                            self.ended = Outcome("royal-capture", c)
                            self._ended_at = len(self._moves) + 1
                            self._looking = False
                            if self._watch is None:
                                self._watch = self._ended_at
                    if R.complex[cap]:
                        self._complex_sq[c ^ 1].discard(k)
                    if R.drops and not R.royal[R.unpromoted[cap]]:
                        t = R.unpromoted[cap] >> 1
                        n = hand[t]
                        hand[t] = n + 1
                        z ^= R.hand_key(c, t, n) ^ R.hand_key(c, t, n + 1)
                if len(theirs) <= self._bare_bound and self._watch is None and self._bare(c ^ 1):
                    self._watch = len(self._moves) + 1
                    self._looking = True
            restore: tuple[int, ...] | None = None
            unmoved = self._unmoved
            if unmoved is not None and (fr in unmoved or to in unmoved):
                # the squares that lose their "not moved yet" mark, restored by _pop
                restore = tuple(s for s in (fr, to) if s in unmoved)
                entry |= (_U_FROM_UNMOVED if fr in unmoved else 0) | (_U_TO_UNMOVED if to in unmoved else 0)
                unmoved.difference_update(restore)
            if kills or entry & _U_RARE:
                # captures on the way, or fields that do not fit: the whole entry on the side
                self._rare.append((captured, old_royal, restore))
                entry = _U_RARE | (entry & (_U_SQUARE << _U_LION))
            if R.passive_burning and burned_passively(b, to, c, R.passive_burners):
                z ^= self._burn_mover(to, code, c)
                entry |= _U_BURNED
        if R.counter_strike:
            # counter-strike: remember where a non-Lion took a Lion (the last such square in the path)
            lion = R.lion
            new: int | None = None
            if move.drop is None and not lion[moved]:
                for k, cap in captured:
                    if lion[cap]:
                        new = k
            if new != old_lion:
                z ^= (R.z_lion[old_lion] if old_lion is not None else 0) ^ (R.z_lion[new] if new is not None else 0)
                self._lion_sq = new
        z ^= R.z_turn
        self._undo.append(entry | moved)
        self._moves.append(played)
        self._zobrist = z
        self.turn = c ^ 1
        self.move_number += 1
        seen = self._seen
        if seen is not None:
            seen[z] = seen.get(z, 0) + 1
        self._history.append(z)
        if self._looking:
            self._note_end()

    def _burn_mover(self, to: int, code: int, colour: int) -> int:
        """Remove the piece ``code`` of ``colour`` that has just moved to ``to`` (it ended next to
        an enemy piece that burns passively), as a capture of it would: its square, its royal
        square (the game ends when it was the last), the bare-royal watch.  Gives the change of
        the position hash.  _pop puts it back from the move and the undo entry's _U_BURNED."""
        R = self.rules
        self._board[to] = EMPTY
        mine = self._pieces[colour]
        del mine[to]
        self._complex_sq[colour].discard(to)
        if R.royal[code]:
            royals = self._royals[colour] = tuple(s for s in self._royals[colour] if s != to)
            if not royals and self.ended is None:
                self.ended = Outcome("royal-capture", colour ^ 1)
                self._ended_at = len(self._moves) + 1
                self._looking = False
                if self._watch is None:
                    self._watch = self._ended_at
        if len(mine) <= self._bare_bound and self._watch is None and self._bare(colour):
            self._watch = len(self._moves) + 1
            self._looking = True
        return R.z_square[code][to]

    def _note_end(self) -> None:
        """After a move played while a side is bare: whether the bare-royal rule ended the game."""
        if self.rules.bare_royal:
            ended = self._bare_royal_outcome()
            if ended is not None:
                self.ended = ended
                self._ended_at = len(self._moves)
                self._looking = False

    def _bare(self, colour: int) -> bool:
        """Whether ``colour`` has at most one piece that counts for the bare-royal rule (a piece
        that can never move again does not)."""
        dead = self.rules.dead
        live = 0
        for sq, code in self._pieces[colour].items():
            if sq not in dead[code]:
                live += 1
                if live > 1:
                    return False
        return True

    def _pop(self) -> None:
        """Take back the last move (the internal way: only to take back a move tried here, or to
        play the same moves again, which leaves ``_marks`` true; :meth:`pop` forgets them)."""
        entry = self._undo.pop()
        played = self._moves.pop()
        R = self.rules
        b = self._board
        moved = entry & _U_CODE
        lion = (entry >> _U_LION) & _U_SQUARE
        self._lion_sq = lion - 1 if lion else None
        z = self._zobrist
        seen = self._seen
        if seen is not None:
            n = seen[z] - 1
            if n:
                seen[z] = n
            else:
                del seen[z]
        history = self._history
        history.pop()
        z_before = history[-1]
        c = self.turn ^ 1
        self.turn = c
        self.move_number -= 1
        mine = self._pieces[c]
        theirs = self._pieces[c ^ 1]
        to = (played >> _M_TO) & _M_SQUARE
        if entry & _U_BURNED:
            # the piece was burned passively after its move: not on the board, its code from the move
            code_now = R.promote[moved] if _PROMO_OF_BITS[(played >> _M_PROMO) & 3] else moved
        else:
            code_now = b[to]
            b[to] = EMPTY
            del mine[to]
        if R.complex[code_now]:
            self._complex_sq[c].discard(to)
        if played & _M_DROP:
            self.hands[c][moved >> 1] += 1
        else:
            if played & _M_ODD:
                del self._odd_moves[len(self._moves)]
            fr = played & _M_FROM
            b[fr] = moved
            mine[fr] = moved
            if R.complex[moved]:
                self._complex_sq[c].add(fr)
            royals = self._royals
            if entry & _U_RARE:
                captured, old_royal, restore = self._rare.pop()
                if old_royal is not None:
                    royals[0], royals[1] = old_royal
                if restore is not None and self._unmoved is not None:
                    self._unmoved.update(restore)
            else:
                taken = (entry >> _U_TAKEN) & _U_CODE
                captured = ((to, taken),) if taken else ()
                if R.royal[code_now] or R.royal[moved]:
                    mover = list(royals[c])
                    if R.royal[code_now] and not entry & _U_BURNED:
                        mover.pop()  # the destination, added last (not there when burned)
                    if R.royal[moved]:
                        mover.insert(((entry >> _U_ROYAL) & _U_INDEX) - 1, fr)
                    royals[c] = tuple(mover)
                if entry & _U_ROYAL_TAKEN_MASK:
                    other = list(royals[c ^ 1])
                    other.insert(((entry >> _U_ROYAL_TAKEN) & _U_INDEX) - 1, to)
                    royals[c ^ 1] = tuple(other)
                if entry & (_U_FROM_UNMOVED | _U_TO_UNMOVED) and self._unmoved is not None:
                    self._unmoved.update(s for s, bit in ((fr, _U_FROM_UNMOVED), (to, _U_TO_UNMOVED)) if entry & bit)
            hand = self.hands[c]
            for k, cap in captured:
                b[k] = cap
                theirs[k] = cap
                if R.complex[cap]:
                    self._complex_sq[c ^ 1].add(k)
                if R.drops and not R.royal[R.unpromoted[cap]]:
                    hand[R.unpromoted[cap] >> 1] -= 1
        self._zobrist = z_before
        watch = self._watch
        if watch is not None:
            ply = len(self._moves)
            ended_at = self._ended_at
            if ply < watch:
                self._watch = None
                self.ended = self._ended_at = None
                self._looking = False
            elif ended_at is not None and ply < ended_at:
                self.ended = self._ended_at = None
                self._looking = True

    # --- game end --------------------------------------------------------------------------------

    def is_checkmate(self) -> bool:
        return self.is_check() and not self.has_legal_move()

    def is_stalemate(self) -> bool:
        return not self.is_check() and not self.has_legal_move()

    def repetitions(self) -> int:
        """How often the current position (board, hands, side to move) has occurred."""
        seen = self._seen
        if seen is None:
            # a reader asks once or twice, at the end of a game: count in the history (no memory);
            # a program asking at every move gets a count kept up to date by push and pop
            self._asked += 1
            if self._asked < 8:
                return self._history.count(self._zobrist)
            seen = self._seen = {}
            for z in self._history:
                seen[z] = seen.get(z, 0) + 1
        return seen.get(self._zobrist, 0)

    def is_fourfold_repetition(self) -> bool:
        return self.repetitions() >= 4

    def perpetual_checker(self) -> int | None:
        """On a fourfold repetition: the side that gave check on every move of the cycle, if any."""
        if not self.is_fourfold_repetition():
            return None
        z = self._zobrist
        first = self._history.index(z)
        played = self._moves[first:]  # (ints: the cycle of a long game may be long)
        if len(played) != len(self._history) - 1 - first:
            return None
        odd = {k: m for k, m in self._odd_moves.items() if k >= first}
        # walk back through the cycle: was each side in check after every move that left it to
        # move (two flags each, not a list: the cycle of a long game may be long)
        always = [True, True]
        moved_into = [False, False]
        for _ in range(len(played)):
            side = self.turn
            moved_into[side] = True
            if always[side] and not self.is_check():
                always[side] = False
            self._pop()
        for k, m in enumerate(played, first):
            self.push(self.move_stack._decode(m, k, odd))
        for colour in (0, 1):
            victim = colour ^ 1
            if moved_into[victim] and always[victim]:
                return colour
        return None

    def outcome(self) -> Outcome | None:
        """The result if the game is over in this position, else None."""
        R = self.rules
        if R.repetition == "sennichite" and self.is_fourfold_repetition():
            checker = self.perpetual_checker()
            if checker is not None:
                return Outcome("perpetual-check", checker ^ 1)
            return Outcome("repetition", None)
        if not self._royals[self.turn] and any(R.royal[c] for c in range(R.ncodes)):
            return Outcome("royal-capture", self.turn ^ 1)
        if not self.has_legal_move():
            if self.is_check():
                return Outcome("checkmate", self.turn ^ 1)
            return Outcome("stalemate", self.turn ^ 1 if R.stalemate_loses else None)
        return self.ended  # the bare-royal rule, as push noted it (the loss of royals is above)

    def _bare_royal_outcome(self) -> Outcome | None:
        """The bare-royal rule (``bare_royal = "loses"``), as lishogi decides it for Chu Shogi.

        Pieces that can never move again (a Pawn or Lance on its last rank) do not count.  A side
        is *bare* when its one royal piece is all it has; it loses when the opponent has one royal
        and more material (pieces listed in ``bare_royal_uncounted`` do not count), that royal is
        not in check, and the bare royal cannot take back at once: the opponent has two or more
        pieces besides its royal, or the bare royal attacks none of them.  Two lone royals, neither
        in check, are a draw."""
        R = self.rules
        counted: list[list[tuple[int, int]]] = [[], []]
        for colour in (0, 1):
            dead = R.dead
            counted[colour] = [(sq, code) for sq, code in self._pieces[colour].items() if sq not in dead[code]]
        royals = self._royals
        if len(counted[0]) + len(counted[1]) == 2 and len(royals[0]) == 1 and len(royals[1]) == 1:
            if not any(self.is_attacked(royals[c][0], c ^ 1) for c in (0, 1)):
                return Outcome("bare-royal", None)
            return None
        for bare in (0, 1):
            other = bare ^ 1
            if len(counted[bare]) != 1 or len(royals[bare]) != 1 or len(royals[other]) != 1:
                continue
            material = [(sq, code) for sq, code in counted[other] if (code >> 1) not in R.bare_uncounted]
            if len(material) < 2 or self.is_attacked(royals[other][0], bare):
                continue
            if len(material) > 2 or not any(self._reaches(royals[bare][0], self._board[royals[bare][0]], sq)
                                            for sq, _ in material):
                return Outcome("bare-royal", other)
        return None

    # --- helpers for other modules ---------------------------------------------------------------

    def routes(self, move: Move) -> list[int]:
        """The empty squares through which ``move``, a move that captures nothing on its way, can
        also be made in two steps by a two-leg move of its piece (a Lion's step out and on, or out
        and back for a pass), in square order.  lishogi writes such a move through one of them
        (``6f5e6d``; a pass ``6f5e6f``) and counts each as a move of its own (see
        :func:`replay.perft.route_count`)."""
        fr, to = move.from_square, move.to_square
        if fr is None or move.kills:
            return []
        R = self.rules
        b = self._board
        code = b[fr]
        if code < 2:
            return []
        limit = max(R.files, R.ranks)
        out = set()
        for g in R.complex[R.table_of(code, fr)]:
            if not isinstance(g, PatternGenerator) or len(g.pattern.legs) != 2 or "m" not in g.pattern.legs[0].modes:
                continue
            for dx, dy in g.first:
                mid = fr + dx + dy * STRIDE
                if max(abs(dx), abs(dy)) != 1 or b[mid] != EMPTY or mid in out:
                    continue  # a route through an occupied square captures there: another move
                found: set = set()
                walk(b, fr, code & 1, g.pattern, g.first, 1, mid, (dx, dy), (), g.pattern.range, found, limit)
                if (to, ()) in found:
                    out.add(mid)
        return sorted(out)

    def captured_squares(self, move: Move) -> list[int]:
        """Every square whose piece the move removes, in path order (destination last)."""
        out = list(move.kills)
        if move.drop is None and move.to_square != move.from_square and self._board[move.to_square] >= 2:
            out.append(move.to_square)
        return out

    def burned_squares(self, move: Move) -> list[int]:
        """The squares ``move`` burns (a piece with ``burns``): its kills next to its destination,
        in the order of ``move.kills`` (a burning piece takes nothing on its way in daikifu's
        variants, so these are all its kills but one taken on the way next to the destination).
        Empty for a move of any other piece."""
        fr = move.from_square
        if fr is None or not self.rules.burns[self._board[fr]]:
            return []
        to = move.to_square
        return [k for k in move.kills if _distance(k, to) == 1]

    def burns_mover(self, move: Move) -> bool:
        """Whether the piece that makes ``move`` is removed after it: it ends next to an enemy
        piece that burns passively (rule ``burns_passively``: Tenjiku Shogi's Fire Demon) and did
        not take that piece on the way.  Such a piece takes and burns what its move says first; a
        burning piece burns nothing then (its move's kills have no burned squares).  False for
        a drop (a variant with drops has no passive burning)."""
        fr = move.from_square
        R = self.rules
        if fr is None or not R.passive_burning:
            return False
        code = self._board[fr]
        return code >= 2 and burned_passively(self._board, move.to_square, code & 1, R.passive_burners, move.kills)

    def with_burns(self, move: Move) -> Move:
        """``move`` with the squares its piece would burn added to its kills (move text does not
        write burns: they follow from the position); ``move`` itself for any other piece, or
        when the piece is burned passively first (:meth:`burns_mover`)."""
        fr = move.from_square
        b = self._board
        R = self.rules
        if fr is None or not R.burns[b[fr]] or self.burns_mover(move):
            return move
        colour = b[fr] & 1
        to = move.to_square
        burned = tuple(t for d in DIRECTIONS if (p := b[t := to + d]) >= 2 and t != fr and (p & 1) != colour
                       and t not in move.kills and p not in R.burn_spared)
        return move._replace(kills=tuple(move.kills) + burned) if burned else move

    def parse_uci(self, text: str) -> Move:
        """Read the compact form written by :meth:`Move.uci` (``h2h3``, ``e4f5f6+``, ``P*e5``)."""
        files, ranks = self.rules.files, self.rules.ranks
        if "*" in text:
            pid, _, sq = text.partition("*")
            return Move(None, parse_square(sq, files, ranks), (), None, self.variant.piece(pid).id)
        promo = None
        if text.endswith(("+", "=")):
            promo = text[-1] == "+"
            text = text[:-1]
        names = _UCI_SQUARE_RE.findall(text)
        if len(names) < 2 or "".join(names) != text:
            raise ValueError(f"not a move: {text!r}")
        sqs = [parse_square(n, files, ranks) for n in names]
        return Move(sqs[0], sqs[-1], tuple(sqs[1:-1]), promo)


def _bare_bound(rules: Ruleset) -> int:
    """With the bare-royal rule, the most pieces a bare side can have: one that counts, and one
    on each square where a piece of its could never move again; 0 without the rule (push asks
    whether a side is bare only when it has no more pieces than this)."""
    if not rules.bare_royal:
        return 0
    return 1 + max(len(frozenset().union(*(rules.dead[t * 2 + colour] for t in range(1, rules.ncodes // 2))))
                   for colour in (0, 1))


def _start_board(rules: Ruleset) -> Board | None:
    """A board set up in the rule set's start position, kept on the rule set (each board set up
    there copies it); None when the start position is not a possible one."""
    try:
        return Board(rules, rules.parsed_start())
    except PositionError:
        return None


def _hand_text(hand: dict) -> str:
    return " ".join(f"{pid}x{n}" if n > 1 else pid for pid, n in hand.items()) or "-"


def _distance(a: int, b: int) -> int:
    """Squares between two squares as a King walks."""
    return max(abs(a % STRIDE - b % STRIDE), abs(a // STRIDE - b // STRIDE))
