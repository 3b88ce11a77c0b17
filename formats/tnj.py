"""The records of the Tenjiku Shogi analysis program (github.com/firedemon/Tenjiku-Shogi, its
``savegames``; the program offers ``*.tnj`` when it saves and loads a game).

One move a line, the first player's (Black's, at the bottom) first::

    1.  P  7l-7k            number, the moving piece as the program abbreviates it, origin, "-"
    2. SEg 5d-3f            (to an empty square) or "x" (a capture), destination
    10. RGn 7dx7m+          "+": the piece promotes (no "+": it does not)
    1.7l-7k                 the terse form, without the piece (the number may be left out too)
    9nx10n-11m              a Lion's two steps: origin, the square stepped on, destination
    6g!6f                   igui: the piece captures on 6f without moving
    13. FiD 6k-2gx!1        after the move: "x!n", the number of pieces the move burns; or "*"

Squares are a file number from the first player's right and a rank letter from the top (``1a`` to
``16p`` on Tenjiku Shogi's board), as USI writes them (:mod:`replay.usi`).  The record names no
variant: Tenjiku Shogi unless another is asked for (``--variant chu-shogi`` reads a Chu Shogi game
written the same way).

Each move is resolved by its origin, destination, the square stepped on and the promotion through
the rules core, and what is written is checked against it: the piece (the program's abbreviation
of the piece on the origin: ``FiD`` Fire Demon, ``GGn`` Great General, ``LHk`` Lion Hawk, a
promoted piece in lower case, ``dk`` for a promoted Rook; :data:`PIECES`), the number (the ply),
the ``x`` (a capture on the destination or on the square stepped on, or a move that burns: the
program writes ``x`` for some moves that only burn and ``-`` for others) and a burn count ``x!n``
(the enemy pieces the move burns: the rules core puts them among the move's kills, after those
taken on the way).  The rule switches ``tsa``, ``ew``, ``classic`` and ``modern`` before the first
move are the variant's options (:data:`RULE_WORDS`); without them a record is read with the
terminal program's defaults (:data:`PROGRAM_RULES`).  A burn mark ``*`` is accepted and not
checked: the analysis that writes it (``luckydog-comments``) uses it both for a piece that burns
and for one that is burnt.

Text that is not a move line is an error at that line: a commented analysis, prose around
numbered moves, several moves a line, lines of play numbered alike and moves written without their
origin, is refused at its first line that is not a move (docs/formats.md says why).
"""

from __future__ import annotations

import re
from typing import Iterator

from daikifu.replay import Board, IllegalReason, Move, VariantError, VariantRegistry
from daikifu.replay.usi import UsiError, parse_usi_square, usi_square

from .detection import TNJ_MOVE_RE, looks_like_tnj
from .game import GameError
from .game import IMPORT_STATUS, TRUNCATED
from .playback import MoveTextError, RawGame, RawMoves, iter_lines, play

__all__ = ["read_tnj", "looks_like_tnj", "PIECES", "abbreviation", "VARIANT", "MOVE_EXAMPLE", "RULE_WORDS",
           "PROGRAM_RULES"]

VARIANT = "tenjiku-shogi"
HEAD_CHARS = 65536  # the text a detector looks at
MOVE_EXAMPLE = "one move a line: 'N. Piece from-to' such as '1.  P  7l-7k' or '10. RGn 7dx7m+', or 'N.from-to'"

# The program's abbreviations (its data.c, piece_string) -> the names of the piece in the variant
# files (the name a promoted piece moves as: a promoted Gold is a "Rook").  A name written in
# lower case is a promoted piece moving as that piece ("dk": a promoted Rook); an upper-case name
# that only a promoted piece has (CP, FO, +P ...) is that promoted piece.  GB (Chu Shogi's
# Go-Between, which the program has no piece for) reads Chu Shogi games written in this form.
PIECES = {
    "P": ("Pawn",), "K": ("King",), "DE": ("Drunk Elephant", "Drunken Elephant"), "G": ("Gold General",),
    "S": ("Silver General",), "C": ("Copper General",), "I": ("Iron General",), "FL": ("Ferocious Leopard",),
    "N": ("Knight",), "L": ("Lance",), "RC": ("Reverse Chariot",), "ChS": ("Chariot Soldier",),
    "BT": ("Blind Tiger",), "Ky": ("Kirin", "Kylin"), "Ph": ("Phoenix",), "FK": ("Free King",),
    "SM": ("Side Mover",), "SSd": ("Side Soldier",), "VM": ("Vertical Mover",), "VSd": ("Vertical Soldier",),
    "R": ("Rook",), "Ln": ("Lion",), "B": ("Bishop",), "DH": ("Dragon Horse",), "DK": ("Dragon King",),
    "HF": ("Horned Falcon",), "SEg": ("Soaring Eagle",), "WB": ("Water Buffalo",), "Dg": ("Dog",),
    "BGn": ("Bishop General",), "RGn": ("Rook General",), "GGn": ("Great General",), "FEg": ("Free Eagle",),
    "LHk": ("Lion Hawk",), "VGn": ("Vice General",), "FiD": ("Fire Demon",), "CP": ("Crown Prince",),
    "FO": ("Flying Ox",), "FS": ("Flying Stag",), "FBo": ("Free Boar",),
    "HT": ("Heavenly Tetrarchs", "Heavenly Tetrarch"), "MGn": ("Multi General", "Multi-General"),
    "W": ("Whale",), "WH": ("White Horse",), "GB": ("Go-Between", "Go Between"),
}
PROMOTED_PAWN = "+P"  # the program's Tokin: the piece a Pawn promotes to, whatever the variant names it
# the program's promoted pieces written in lower case (those that move as a piece that also exists unpromoted)
_LOWER = ("fk", "sm", "ssd", "vm", "vsd", "r", "ln", "b", "dh", "dk", "hf", "seg", "wb", "bgn", "rgn", "chs")
_LOWER_NAMES = {name.lower(): name for name in PIECES if name.lower() in _LOWER}


def _key(name: str) -> str:
    return re.sub(r"[^a-z]", "", name.lower())


_BY_NAME = {_key(n): abbr for abbr, names in PIECES.items() for n in names}


class _Kinds:
    """What a variant's pieces are in the program's terms: each piece type's name and whether it
    is promoted (some piece promotes to it)."""

    def __init__(self, variant):
        self.variant = variant
        self.promoted = {p.promotes for p in variant.pieces if p.promotes}
        self.unpromoted_names = {_key(p.name) for p in variant.pieces if p.id not in self.promoted}
        pawn = next((p for p in variant.pieces if p.id == "P"), None)
        self.promoted_pawn = pawn.promotes if pawn is not None else None

    def abbreviation(self, piece_id: str) -> str | None:
        """The program's name for the piece type ``piece_id`` (None for a piece it has no name for)."""
        if piece_id == self.promoted_pawn:
            return PROMOTED_PAWN
        p = self.variant.piece(piece_id)
        abbr = _BY_NAME.get(_key(p.name))
        if abbr is None:
            return None
        if piece_id in self.promoted and _key(p.name) in self.unpromoted_names and abbr.lower() in _LOWER:
            return abbr.lower()
        return abbr

    def fits(self, written: str, piece_id: str) -> bool:
        """Whether the program's name ``written`` names the piece type ``piece_id``."""
        if written == PROMOTED_PAWN:
            return piece_id == self.promoted_pawn
        mine = self.abbreviation(piece_id)
        return mine is not None and mine == written


def abbreviation(variant, piece_id: str) -> str | None:
    """The Tenjiku program's name of a piece of ``variant`` (a :class:`~daikifu.replay.Variant`):
    ``FiD``, ``GGn``, ``dk`` for a promoted Rook; None for a piece the program has no name for.

    >>> from daikifu.replay import load_variant
    >>> chu = load_variant("chu-shogi")
    >>> [abbreviation(chu, i) for i in ("LN", "KR", "+G", "+DE", "+P", "GB")]
    ['Ln', 'Ky', 'r', 'CP', '+P', 'GB']
    """
    return _Kinds(variant).abbreviation(piece_id)


def _described(written: str) -> str:
    """``written`` with the piece it names, for messages: "'SEg' (Soaring Eagle)"."""
    if written == PROMOTED_PAWN:
        return "'+P' (a promoted Pawn)"
    if written in PIECES:
        return f"{written!r} ({PIECES[written][0]})"
    if written in _LOWER_NAMES:
        return f"{written!r} (a promoted piece moving as a {PIECES[_LOWER_NAMES[written]][0]})"
    return repr(written)


def _square(board: Board, text: str) -> int:
    try:
        return parse_usi_square(board, text)
    except UsiError as exc:
        raise MoveTextError(f"{text}: {exc.reason}", "a square such as 7l (file number, rank letter from the top)") \
            from None


def _kinds_of(rules) -> _Kinds:
    """The :class:`_Kinds` of a rule set's variant (kept on the rule set)."""
    return _Kinds(rules.variant)


def _text_reader(text: str):
    """The ``read`` of a move line's text (one :data:`TNJ_MOVE_RE` matched when it was found)."""
    return _reader(TNJ_MOVE_RE.match(text))


def _reader(m: re.Match):
    def read(board: Board) -> Move:
        ply = board.ply + 1
        if m.group("number") is not None and int(m.group("number")) != ply:
            raise MoveTextError(f"move number {m.group('number')} at ply {ply}", f"the number {ply}")
        origin = _square(board, m.group("origin"))
        legs = re.findall(r"([-x!])(\d{1,2}[a-p])", m.group("legs"))
        squares = [_square(board, sq) for _sep, sq in legs]
        piece = board.piece_at(origin)
        if piece is None or piece.colour != board.turn:
            raise MoveTextError(f"no piece of the side to move on {m.group('origin')}",
                                "the origin square of a piece of the side to move")
        variant = board.variant
        kind = board.rules.derived(_kinds_of)
        written = m.group("piece")
        if written is not None and not kind.fits(written, piece.id):
            mine = kind.abbreviation(piece.id)
            raise MoveTextError(
                f"the piece on {m.group('origin')} is a {variant.piece(piece.id).name}, not {_described(written)}",
                f"{mine!r}, the program's name of the piece on {m.group('origin')}" if mine
                else f"a name of the program for a {variant.piece(piece.id).name}")
        seps = [sep for sep, _sq in legs]
        if seps[0] == "!":  # igui: the piece captures on the square and stays
            if len(squares) != 1:
                raise MoveTextError("igui ('!') captures on one square", "'!' and one square, as 6g!6f")
            kills, to = (squares[0],), origin
            taken = [squares[0]] if board.piece_at(squares[0]) is not None else []
        elif "!" in seps:
            raise MoveTextError("'!' (igui) stands right after the origin", "'-' or 'x' between the squares")
        elif len(squares) == 2:  # a Lion's two steps: the square stepped on, then the destination
            over, to = squares
            kills = (over,) if board.piece_at(over) is not None else ()
            taken = [sq for sq in (over, to) if sq != origin and board.piece_at(sq) is not None]
        else:
            kills, to = (), squares[0]
            taken = [to] if board.piece_at(to) is not None else []
        capture = "x" in seps or "!" in seps
        if taken and not capture:
            raise MoveTextError(f"{usi_square(board, taken[0])} holds a piece: the move captures it",
                                "'x' for a capture")
        move = _resolve(board, Move(origin, to, kills, True if m.group("promo") else None))
        burned = len(board.burned_squares(move))
        if capture and not taken and not burned:  # (the program writes "x" for some moves that only burn)
            where = " or ".join(sq for _sep, sq in legs)
            legal = board.illegality(move) is None
            raise MoveTextError(f"'{'!' if '!' in seps else 'x'}' written, but {where} holds no piece to capture"
                                + (" and the move burns nothing" if legal else ""), "'-' for a move to an empty square")
        if m.group("burned") is not None and int(m.group("burned")) != burned:
            raise MoveTextError(f"the move burns {burned} piece{'s' * (burned != 1)}, the record says "
                                f"x!{m.group('burned')}", f"x!{burned}" if burned else "no burn count: the move burns nothing")
        return move
    return read


def _resolve(board: Board, move: Move) -> Move:
    """The move the written one is: with the squares its piece burns (the rules core keeps them
    among its kills; the program does not write them), and no "+" a promotion declined where the
    piece could promote (the program writes "+" for every promotion).  Its legality is the
    caller's to check."""
    move = board.with_burns(move)
    if move.promotion is None:
        refused = board.illegality(move)
        if refused is not None and refused.code is IllegalReason.PROMOTION_MUST_BE_CHOSEN:
            return move._replace(promotion=False)
    return move


# the lines the program's loader takes besides moves (its main.c, really_load): rule switches,
# read before the first move as the variant's options, and a take-back
RULE_WORDS = {"tsa": ("jumping-generals", "tsa", "the Jumping Generals as the TSA leaflet has them"),
              "ew": ("jumping-generals", "blocker", "the Jumping Generals as E. Werner has them"),
              "classic": ("lion-hawk", "area", "the Lion Hawk as the TSA leaflet has it"),
              "modern": ("lion-hawk", "lion", "the Lion Hawk as Colin Paul Adams has it")}
# the rules of a record that switches none: the terminal program's (main-nox11.c: jgs_tsa = FALSE,
# modern_lion_hawk = TRUE), which the records need (RGn 7dx7m+ takes a Rook General after a jump)
PROGRAM_RULES = {"jumping-generals": "blocker", "lion-hawk": "lion"}
_PROGRAM_WORDS = {"undo": "take the last move back"}


def _why_not_a_move(text: str, whole: str, first: bool) -> str:
    """What a line that is not a move line is, in a few words (``first``: no move came before it
    in ``whole``, the text)."""
    word = text.split()[0]
    if word == "setup":
        return "the program's setup line (a start position from its positions folder), which daikifu does not read"
    if word in _PROGRAM_WORDS:
        return f"the program's command {word!r} ({_PROGRAM_WORDS[word]}), which daikifu does not read"
    if word in RULE_WORDS:
        return (f"the program's rule switch {word!r} ({RULE_WORDS[word][2]}) after the first move or in a record "
                "of another variant than Tenjiku Shogi: a game is read under one rule set")
    if first and not looks_like_tnj(text) and looks_like_tnj(whole[:HEAD_CHARS]):
        return ("the text is a commented analysis, not a record: its numbered moves stand among prose, several "
                "on a line and in lines of play numbered alike, and which of them make the game it does not say")
    numbered = re.findall(r"(?<![\w.])\d+\s*[.:]", text)
    if len(numbered) > 1:
        return "several moves on one line"
    if numbered and re.search(r"\d+\s*[.:]\s*\+?[A-Za-z]{1,3}-\d{1,2}[a-p]", text):
        return "a move without its origin square"
    return "text that is not a move"


def read_tnj(text: str, *, file: str | None = None, variant: str | None = None, lenient: bool = False,
             visitor=None, variants=None) -> Iterator:
    """The game of a Tenjiku program record (a :class:`Game` by default); ``variant``: the variant
    the record is read as (default Tenjiku Shogi).

    >>> game = next(read_tnj("1.  P  7i-7h\\n2.6d-6e\\n", variant="chu-shogi"))
    >>> game.valid, [str(m) for m in game.mainline_moves()]
    (True, ['f4f5', 'g9g8'])
    """
    variants = variants or VariantRegistry.default()
    name = variant or VARIANT
    try:
        found = variants.load(name)
    except VariantError:  # said by the game builder
        found = None
    rules = dict(PROGRAM_RULES) if found is not None and found.slug == VARIANT else None
    raw = RawGame(1, 1, 0, text)
    raw.moves = RawMoves(text, _text_reader)
    raw.headers += [("Variant", name), ("Result", "*")]
    refused = False
    for n, (offset, line) in enumerate(iter_lines(text), start=1):
        stripped = line.strip()
        if not stripped:
            continue
        m = TNJ_MOVE_RE.match(line)
        if m is None and stripped in RULE_WORDS and rules is not None and not raw.moves:
            key, value, _what = RULE_WORDS[stripped]
            rules[key] = value
            continue
        if m is None:
            ply = len(raw.moves) + 1
            refused = not raw.moves  # nothing read: the text is no record, even when read leniently
            if lenient and not refused:
                raw.headers.append((IMPORT_STATUS, TRUNCATED))  # the moves after the line are not read
            raw.problems.append(GameError(
                f"not a move line: {_why_not_a_move(stripped, text, not raw.moves)}", file=file, game=1, line=n,
                column=len(line) - len(line.lstrip()) + 1, ply=ply, move=stripped[:80], expected=MOVE_EXAMPLE))
            break
        indent = len(line) - len(line.lstrip())
        raw.moves.add(offset + indent, offset + indent + len(stripped), n, indent + 1)
    if rules is not None:
        changed = {k: v for k, v in rules.items() if k in found.options and found.options[k].default != v}
        if changed:
            raw.headers.append(("RuleSet", ", ".join(f"{k}={v}" for k, v in changed.items())))
    yield play(raw, name, visitor=visitor, lenient=lenient and not refused, file=file, variants=variants)
