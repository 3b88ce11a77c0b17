"""Other programs' PGN for Chu Shogi, read by the LSN reader as dialects: ChuShogiLite's ``.pgn``
and Jocly's ``.pjn``.

Both are PGN-shaped, with algebraic squares as LSN writes them (file ``a`` on the first player's
left, rank 1 on the first player's side), so the LSN reader reads them; a dialect, recognised from
a game's tags (:func:`find_dialect`), only changes what differs:

**ChuShogiLite** (the applet's PGN export, and Tabulon's; recognised by ``[Variant "chu"]``, a
``Site``/``Event`` naming ChuShogiLite, or a ``[FEN]`` with chess's move counters, five or six
fields, which no position string has):

* ``[FEN "7+v1tfl/... w - 0 1"]``: lishogi's letters, but ``w`` means the upper-case side (the first
  player) moves, as in chess (four or five fields: board, side, the square of the last Lion
  capture or ``-``, then ``0 1`` or a move number);
* pieces by their one-letter FEN names (``Q`` Free King, ``O`` Kirin, ``+D`` Soaring Eagle ...),
  which are aliases of ``chu-shogi.toml``;
* a two-step move lists its squares with a comma, ``x`` before them when either step captures:
  ``+Dxj10,i11``, ``+Oxg11,g10``, ``Nxe5,e4`` (igui: back to the start square), ``Nf5,e4`` (a
  pass); ``+`` after a move promotes, ``=`` declines.

**Jocly** (``[JoclyGame "chu-shogi"]`` names the variant; its ``chu-shogi-model.js``): moves from
square to square with Jocly's piece abbreviation in front (``LNg10-f8``; none for a Pawn:
``e4-e5``); ``KN`` is the Kirin and ``RV`` the Reverse Chariot (daikifu's ``KR`` and ``RC``); a
two-step move writes both squares (``+KNxc7xb8``, the origin left out); ``+`` or ``=+ID`` after a
move promotes.  Jocly's board is daikifu's: White, who moves first, on ranks 1-4.  A ``[FEN]`` is
written as ChuShogiLite's (``w`` is the first player), with chess's six fields.

Moves written the LSN way are read too, so a record converted to LSN with its tags kept reads the
same.

>>> find_dialect([("Variant", "chu"), ("FEN", "12/12/12/12/12/12/12/12/12/12/12/12 w - 0 1")]).name
'chushogilite'
>>> find_dialect([("JoclyGame", "chu-shogi")]).tags([("JoclyGame", "chu-shogi")])
[('Variant', 'chu-shogi'), ('JoclyGame', 'chu-shogi')]
>>> find_dialect([("Variant", "chu-shogi")]) is None
True
"""

from __future__ import annotations

import re

from daikifu.replay import Board, Move
from daikifu.replay.notation import NotationError, parse_move
from daikifu.replay.squares import parse_square

__all__ = ["Dialect", "find_dialect", "convert_fen", "pychess_fen", "DIALECTS", "PYCHESS_VARIANTS",
           "foreign_variant"]

_SQUARE = r"[a-z]\d{1,2}"

# pychess.org's variants of the shogi family, by the Variant tag its PGN writes (its variant key,
# capitalised: [Variant "Shoshogi"]), lower-cased -> (the daikifu variant it is, the variant's name).
# The one table of them: a name here that no variant file defines is refused by its name.
PYCHESS_VARIANTS = {
    "shogi": ("shogi", "Shogi"),
    "minishogi": ("minishogi", "Minishogi"),
    "shoshogi": ("sho-shogi", "Sho Shogi"),
    "kyotoshogi": ("kyoto-shogi", "Kyoto Shogi"),
    "dobutsu": ("dobutsu-shogi", "Dobutsu Shogi"),
    "gorogoro": ("goro-goro-shogi", "Goro Goro Shogi"),
    "gorogoroplus": ("goro-goro-plus-shogi", "Goro Goro Plus Shogi"),
    "torishogi": ("tori-shogi", "Tori Shogi"),
    "cannonshogi": ("cannon-shogi", "Cannon Shogi"),
}


def foreign_variant(name: str, variants):
    """The variant another program's Variant tag names when daikifu's own names do not:
    ``(variant, None)`` for a name of :data:`PYCHESS_VARIANTS` that a variant file defines,
    ``(None, "Kyoto Shogi is not a variant daikifu knows")`` for one that none defines, and
    ``(None, None)`` for a name not in the table.

    >>> from daikifu.replay import VariantRegistry
    >>> foreign_variant("Kyotoshogi", VariantRegistry.default())
    (None, 'Kyoto Shogi is not a variant daikifu knows')
    >>> foreign_variant("Chess", VariantRegistry.default())
    (None, None)
    """
    from daikifu.replay import UnknownVariantError
    found = PYCHESS_VARIANTS.get(re.sub(r"[^a-z0-9]", "", name.lower()))
    if found is None:
        return None, None
    slug, title = found
    try:
        return variants.load(slug), None
    except UnknownVariantError:
        return None, f"{title} is not a variant daikifu knows"


def convert_fen(value: str) -> str:
    """A PGN ``[FEN]`` in ChuShogiLite's and Jocly's convention as a position string: the side
    to move swapped (their ``w`` is the upper-case side, the first player: daikifu's ``b``), the
    Lion-capture square kept, the move counters dropped.  A value of another shape is returned as
    it is (the position reader then says what is wrong with it).

    >>> convert_fen("7k4/12/12/12/12/12/12/12/12/12/12/5K6 w - 0 1")
    '7k4/12/12/12/12/12/12/12/12/12/12/5K6 b - 1'
    >>> convert_fen("7k4/12/12/12/12/12/12/12/12/12/12/5K6 b e5 1")
    '7k4/12/12/12/12/12/12/12/12/12/12/5K6 w e5 1'
    """
    fields = value.split()
    if len(fields) < 2 or fields[1] not in ("w", "b"):
        return value
    board, side, rest = fields[0], "b" if fields[1] == "w" else "w", fields[2:]
    # chess's castling and en-passant fields (Jocly) or ChuShogiLite's Lion-capture square
    lion = rest[0] if rest and not rest[0].isdigit() else "-"
    return f"{board} {side} {lion} 1"


class Dialect:
    """What a dialect changes in the LSN reader: the tags (:meth:`tags`) and how a move is read
    (:meth:`parse_move`, which raises :class:`~daikifu.replay.notation.NotationError`)."""

    name = ""

    def tags(self, headers: list) -> list:
        return [(name, convert_fen(value) if name == "FEN" else value) for name, value in headers]

    def rewrite(self, board: Board, text: str) -> str | None:
        """The move text written the LSN way, or None when it already is."""
        return None

    def parse_move(self, board: Board, text: str) -> Move:
        lsn = self.rewrite(board, text)
        if lsn is None or lsn == text:
            return parse_move(board, text)
        try:
            return parse_move(board, lsn)
        except NotationError as exc:  # said of the text as written
            raise NotationError(text, exc.reason, exc.expected, exc.suggestions, exc.code) from None


def _piece(board: Board, square: str):
    try:
        return board.piece_at(parse_square(square, board.rules.files, board.rules.ranks))
    except ValueError:
        return None


def _own(board: Board, square: str) -> bool:
    piece = _piece(board, square)
    return piece is not None and piece.colour == board.turn


def _leg(board: Board, square: str) -> str:
    """``x`` before a square that holds an opponent's piece (a capture), ``-`` before another (an
    empty square, or the mover's own start square when the move returns to it)."""
    piece = _piece(board, square)
    return ("x" if piece is not None and piece.colour != board.turn else "-") + square


# the piece, then the origin's file or rank or both when two pieces could move ("x" is no file of
# Chu's 12x12 board: it is the capture mark)
_CSL_DOUBLE = re.compile(rf"(?P<piece>\+?[A-Z])(?P<which>[a-wyz]?\d*)x?(?P<mid>{_SQUARE}),(?P<to>{_SQUARE})"
                         r"(?P<tail>[+=]?)\Z")


class ChuShogiLite(Dialect):
    name = "chushogilite"

    def rewrite(self, board, text):
        m = _CSL_DOUBLE.match(text)
        if m is None:
            return None
        # both steps get their own mark from the board: the first square is passed over (a
        # capture, or a step to an empty square), the second is the destination
        head = m.group("piece") + m.group("which")
        to = _leg(board, m.group("to"))
        if to[0] == "-" and _own(board, m.group("to")):  # back to its start (igui, or a pass):
            head = m.group("piece") + m.group("to")  # LSN writes the origin of such a move
        return head + _leg(board, m.group("mid")) + to + m.group("tail")


# Jocly's chu-shogi abbreviations that are not daikifu's IDs or aliases (chu-shogi-model.js)
_JOCLY_IDS = {"chu-shogi": {"KN": "KR", "+KN": "+KR", "RV": "RC", "+RV": "+RC"}}
_JOCLY_MOVE = re.compile(rf"(?P<piece>\+?[A-Z]{{1,2}})?(?P<origin>{_SQUARE})?(?P<legs>(?:[-x]{_SQUARE})+)"
                         r"(?P<promo>=\+?[A-Z]{1,2}|[+=])?\Z")


class Jocly(Dialect):
    name = "jocly"

    def __init__(self, game: str):
        self.game = game
        self.ids = _JOCLY_IDS.get(game, {})

    def tags(self, headers):
        headers = super().tags(headers)
        if not any(name == "Variant" for name, _ in headers):
            headers.insert(0, ("Variant", self.game))
        return headers

    def rewrite(self, board, text):
        m = _JOCLY_MOVE.match(text)
        if m is None:
            return None
        piece = m.group("piece") or ("" if m.group("origin") else None)
        if piece is None:
            return None
        piece = self.ids.get(piece, piece) or "P"
        promo = m.group("promo") or ""
        if promo.startswith("="):
            promo = "+" if promo.startswith("=+") else "="
        return piece + (m.group("origin") or "") + m.group("legs") + promo


# pychess.org's PGN moves (Fairy-Stockfish's SAN): the piece letter, the origin's file or rank when
# two pieces could move, ``x`` for a capture, the square; ``=`` and the promoted piece's letter to
# promote; ``P@c3`` drops; ``+`` and ``#`` mark check and mate
_PYCHESS_PROMOTION = re.compile(r"=\+?[A-Z]\Z")


class PyChess(Dialect):
    """pychess.org's PGN of the shogi family (``[Variant "Shoshogi"]``), recognised by its
    ``[FEN]``, which is Fairy-Stockfish's (``w`` is the first player, hands in brackets after the board:
    ``rbsgk/4p/5/P4/KGSBR[-] w 0 1``), and a move that could promote and is written without
    ``=`` declines."""

    name = "pychess"

    def tags(self, headers):
        return [(name, pychess_fen(value) if name == "FEN" else value) for name, value in headers]

    def rewrite(self, board, text):
        body = text.rstrip("+#")  # check and mate marks, never a promotion here
        promote = _PYCHESS_PROMOTION.search(body)
        if promote:
            body = body[:promote.start()]
        found = {}
        for spelling in _pychess_spellings(board, body):
            for suffix in ("+",) if promote else ("", "="):
                try:
                    move = parse_move(board, spelling + suffix)
                except NotationError:
                    continue
                found.setdefault(move, spelling + suffix)
                break
        if len(found) == 1:
            return next(iter(found.values()))
        return None if body == text else body + ("+" if promote else "")  # read as written: its error


# pychess writes a promoted piece by the letter of the piece it moves as: a Tokin (or any piece
# promoted to a Gold's move) as G, the Dragon Horse as H, the Dragon King as D, the Crown Prince as K
_PYCHESS_PROMOTED = {"G": ("+P", "+N", "+L", "+S"), "H": ("+B",), "D": ("+R",), "K": ("+E",)}


def _pychess_spellings(board: Board, body: str) -> list:
    """``body`` with its piece letter as written, then as each promoted piece it may stand for."""
    if not body or body[1:2] == "@":
        return [body]
    ids = {p.id for p in board.variant.pieces}
    return [body] + [pid + body[1:] for pid in _PYCHESS_PROMOTED.get(body[0], ()) if pid in ids]


def pychess_fen(value: str) -> str:
    """A pychess ``[FEN]`` (Fairy-Stockfish's) as a position string: the side to move swapped
    (its ``w`` is the first player), the bracketed hands counted, the move counters dropped.
    A value of another shape is returned as it is (the position reader then says what is wrong).

    >>> pychess_fen("rbsgk/4p/5/P4/KGSBR[-] w 0 1")
    'rbsgk/4p/5/P4/KGSBR b - 1'
    >>> pychess_fen("k4/5/5/5/K4[PPBp] b 0 12")
    'k4/5/5/5/K4 w 2PBp 1'
    >>> pychess_fen("k4/5/5/5/K4 b 2PBp 1")  # a position string (a record written by daikifu)
    'k4/5/5/5/K4 b 2PBp 1'
    """
    fields = value.split()
    m = re.fullmatch(r"([^\[\]]+)(?:\[([A-Za-z+]*|-)\])?", fields[0]) if fields else None
    if m is None or len(fields) < 2 or fields[1] not in ("w", "b"):
        return value
    if not m.group(2) and not (len(fields) == 4 and fields[2].isdigit()):
        return value  # no hands in brackets, no move counters: a position string already
    counts: dict = {}
    for piece in re.findall(r"\+?[A-Za-z]", (m.group(2) or "").replace("-", "")):
        counts[piece] = counts.get(piece, 0) + 1
    hands = "".join((str(n) if n > 1 else "") + piece for piece, n in counts.items()) or "-"
    return f"{m.group(1)} {'b' if fields[1] == 'w' else 'w'} {hands} 1"


_CSL_SITES = ("chushogilite",)


def find_dialect(headers: list) -> Dialect | None:
    """The dialect a game's tags announce, or None for LSN itself."""
    values = {}
    for name, value in headers:
        values.setdefault(name, value)
    if "JoclyGame" in values:
        return Jocly(values["JoclyGame"].strip())
    named = " ".join(values.get(k, "") for k in ("Site", "Event")).lower().replace(" ", "")
    if pychess_fen(values.get("FEN", "")) != values.get("FEN", ""):
        # recognised by its FEN alone (which pychess writes in every game of the shogi family): a
        # record written by daikifu keeps pychess's Site but has LSN's moves and a position string
        return PyChess()
    if values.get("Variant", "").strip().lower() == "chu" or any(s in named for s in _CSL_SITES):
        return ChuShogiLite()
    if "SFEN" not in values and len(values.get("FEN", "").split()) in (5, 6):
        return ChuShogiLite()  # chess's move counters: a PGN FEN, where "w" is the first player
    return None


DIALECTS = ("chushogilite", "jocly", "pychess")
