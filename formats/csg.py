"""The Chu Shogi server's game records (``.csg``) and setups (``.fsy``): the historical Chu Shogi
games it keeps, and the positions they start from.

A record is ten header lines, then one move per line::

    3                       format version
    board.data              the setup file (see below)
    EVEN                    the handicap's name
    Mori                    the first player (Black, at the bottom: Sente)
    Fukui                   the second player (White, at the top: Gote)
    See Chu Shogi ...       a comment (up to line 10)

    0 P 1a - 1a             a dummy move, skipped
    1 P 8i - 8h             move number, piece, origin, "-" (to an empty square) or "x" (a capture),
    19 Ln 6g x! 6f          destination; "x!" captures without moving (igui); a Lion's second step
    52 Ln 11g x 12g - 11f   follows as another "-"/"x" and square; "+" promotes, "=" declines
    65 S 8h x 8i =

Squares are written as USI writes them on a 12x12 board (file number from the first player's
right, rank letter from the top).  The records end without a result.

**Setups.**  The server starts a game from a ``.fsy`` file (:func:`read_fsy`): George Hodges'
Forsyth notation, one line, ranks between ``/`` from rank ``a`` (the top) down, each rank's squares
from file 12 to file 1 separated by commas; a number is that many empty squares; a piece is the
server's abbreviation (``L``, ``FL``, ``Ln``, ``Ky``, ``Ph``, ``+DH`` ...), upper case for White
(the second player, at the top) and lower case for Black, with ``+`` for a promoted piece and ``=``
for one that declined promotion (a state daikifu's rules do not need: it is dropped).  A setup file
says nothing about the side to move: as the server does, the handicap giver (the side with fewer
pieces) moves first, and in an even setup Black does.

A record's setup is, in this order: the file passed as ``setup`` (``--setup FILE``); a file beside
the record (in ``setup_dir``) that the record names, by its setup file name (``freekingMSMa.data``,
or ``freekingMSMa.fsy``) or by the server's file for its handicap name (``FK.fsy`` for "Free King");
one of the server's four setups, which ``chu-shogi.toml`` offers as its option ``setup``.  A setup
read from a file that is one of those four gives the game that option; another gives it an SFEN.
A setup that is none of these is an error at line 2.

>>> game = next(read_csg("3\\nboard.data\\nEVEN\\nA\\nB\\n\\n\\n\\n\\n\\n0 P 1a - 1a\\n1 P 8i - 8h\\n"))
>>> game.headers["Sente"], [str(m) for m in game.mainline_moves()]
('A', ['e4e5'])
"""

from __future__ import annotations

import itertools
import os
import re
from typing import Iterator, NamedTuple

from daikifu.replay import Board, IllegalReason, Move, VariantRegistry, compile_rules
from daikifu.replay.position import format_position
from daikifu.replay.squares import square
from daikifu.replay.usi import UsiError, parse_usi_square, usi_square

from .detection import CSG_HEADER_LINES, CSG_LEG_RE, CSG_MOVE_RE, FSY_KIND, looks_like_csg, looks_like_fsy
from .game import GameError
from .playback import MoveTextError, RawGame, RawMoves, iter_lines, play

__all__ = ["read_csg", "looks_like_csg", "looks_like_fsy", "read_fsy", "load_setup", "SetupFile", "SetupError",
           "SERVER_SETUPS", "SETUPS", "FSY_KIND"]

VARIANT = "chu-shogi"
HEADER_LINES = CSG_HEADER_LINES
# The server's setups: the setup file its records name (line 2), the handicap name (line 3), the
# server's .fsy file for it (its src/Handicaps.idr), and the value of chu-shogi's option "setup".
SERVER_SETUPS = (
    ("board.data", "EVEN", "EVEN.fsy", "even"),
    ("freekingMSMa.data", "Free King", "FK.fsy", "free-king"),
    ("freekingMSMb.data", "Free King (alternate)", "FKa.fsy", "free-king-alternate"),
    ("dragonkingMSM.data", "Free King and a Dragon King", "FK+DK.fsy", "free-king-dragon-king"),
)
SETUPS = {data: option for data, _name, _fsy, option in SERVER_SETUPS}  # setup file -> option "setup"
_HANDICAPS = {name: option for _data, name, _fsy, option in SERVER_SETUPS}
_SERVER_FILES = {key: fsy for data, name, fsy, _option in SERVER_SETUPS for key in (data, name)}
_MOVE_RE = CSG_MOVE_RE
_LEG_RE = CSG_LEG_RE
_FSY_ITEM_RE = re.compile(r"(\d+)\Z|(\+)?(=)?([A-Za-z]{1,2})\Z")


class SetupError(ValueError):
    """A ``.fsy`` setup that does not describe a Chu Shogi position: ``reason`` and the 1-based
    ``column`` of the item at fault."""

    def __init__(self, reason: str, column: int | None = None):
        self.reason = reason
        self.column = column
        super().__init__(reason if column is None else f"column {column}: {reason}")


class SetupFile(NamedTuple):
    """A setup file as read: its name (for messages) and its text; or, for a game read again from
    an archive, the start position the game was stored with (``position``, a position string)."""

    name: str
    text: str
    position: str | None = None


def stored_setup(options: dict, start: str | None, variants: VariantRegistry | None = None) -> SetupFile:
    """The setup a stored game was read with, from its rule-set options and start position: the
    record's text names a setup file that the archive does not keep (it may have come from
    ``--setup`` or from a file beside the record), so reading the text again needs it."""
    if start is None:
        rules = compile_rules((variants or VariantRegistry.default()).load(VARIANT), options)
        start = Board(rules, rules.start).position()
    return SetupFile("the stored start position", "", start)


def load_setup(path: str) -> SetupFile:
    """The setup file at ``path`` (``OSError`` if it cannot be read)."""
    with open(path, encoding="ascii", errors="replace") as fh:
        return SetupFile(path, fh.read(4096))


def read_fsy(text: str, variants: VariantRegistry | None = None) -> str:
    """The position string of a ``.fsy`` setup (see the module documentation); raises
    :class:`SetupError`.

    >>> read_fsy("/" + "/".join(["K,11"] + ["12"] * 10 + ["11,k"]) + "/")
    'k11/12/12/12/12/12/12/12/12/12/12/11K b - 1'
    """
    variant = (variants or VariantRegistry.default()).load(VARIANT)
    index = variant.piece_index()
    body = text.strip()
    if not body.startswith("/"):
        raise SetupError("a setup starts with '/'", 1)
    ranks = body[1:].split("/")
    if ranks and ranks[-1] == "":
        ranks.pop()
    if len(ranks) != variant.ranks:
        raise SetupError(f"{len(ranks)} ranks, Chu Shogi has {variant.ranks}", 1)
    pieces, column = {}, 2
    for row, rank_text in enumerate(ranks):
        rank = variant.ranks - 1 - row  # the first rank written is rank "a", the top
        file = 0
        for item in rank_text.split(","):
            m = _FSY_ITEM_RE.match(item)
            if m is None:
                raise SetupError(f"{item!r} is neither a piece nor a number of empty squares", column)
            if m.group(1):
                file += int(m.group(1))
            else:
                promoted, letters = m.group(2) or "", m.group(4)
                piece = index.get(promoted + letters.upper())
                if piece is None:
                    raise SetupError(f"{item!r} is not a piece of Chu Shogi", column)
                if file >= variant.files:
                    raise SetupError(f"rank {chr(ord('a') + row)} has more than {variant.files} squares", column)
                # upper case is White, the second player (lower case in a position string)
                pieces[square(file, rank)] = (piece.index, 1 if letters[0].isupper() else 0)
                file += 1
            column += len(item) + 1
        if file != variant.files:
            raise SetupError(f"rank {chr(ord('a') + row)} has {file} squares, Chu Shogi has {variant.files}",
                             column - 1)
    counts = [sum(colour == c for _t, colour in pieces.values()) for c in (0, 1)]
    turn = 1 if counts[1] < counts[0] else 0  # the handicap giver moves first
    hands = [[0] * (len(variant.pieces) + 1) for _ in (0, 1)]
    return format_position(variant, lambda f, r: pieces.get(square(f, r)), hands, turn, 1)



def _text_reader(text: str):
    """The ``read`` of a move line's text (one :data:`_MOVE_RE` matched when it was found)."""
    return _reader(_MOVE_RE.match(text))


def _reader(m: re.Match):
    def read(board: Board) -> Move:
        try:
            origin = parse_usi_square(board, m.group("origin"))
            legs = [(sep, parse_usi_square(board, sq)) for sep, sq in _LEG_RE.findall(m.group("legs"))]
        except UsiError as exc:
            raise MoveTextError(exc.reason, "a square such as 8i") from None
        piece = board.piece_at(origin)
        wanted = board.variant.piece_index().get(m.group("piece").upper())
        if piece is None or wanted is None or piece.id != wanted.id:
            raise MoveTextError(f"no {m.group('piece')} of the side to move on {m.group('origin')}",
                                "the piece that stands on the origin square")
        kills = [sq for sep, sq in legs[:-1] if sep != "-"]
        last_sep, to = legs[-1]
        for sep, sq in legs:
            if sep != "-" and board.piece_at(sq) is None:
                raise MoveTextError(f"nothing to capture on {usi_square(board, sq)}", "'-' for a move to an empty square")
        if last_sep == "x!":  # igui: the piece takes and stays
            kills.append(to)
            to = origin
        promo = {"+": True, "=": False}.get(m.group("promo"))
        move = Move(origin, to, tuple(kills), promo)
        refused = board.illegality(move) if promo is None else None
        if refused is not None and refused.code is IllegalReason.PROMOTION_MUST_BE_CHOSEN:
            move = move._replace(promotion=False)  # a promotion not written is declined
        return move
    return read


def _beside(setup_dir: str, data_name: str, handicap: str) -> str | None:
    """The path of a setup file in ``setup_dir`` that the record names, or None.  Only plain file
    names are looked up (a name with a directory in it is not followed)."""
    stem = os.path.splitext(data_name)[0]
    for name in (data_name, stem + ".fsy", _SERVER_FILES.get(data_name), _SERVER_FILES.get(handicap)):
        if name and os.path.basename(name) == name and name not in (".", ".."):
            path = os.path.join(setup_dir, name)
            if os.path.isfile(path):
                return path
    return None


def _known_setup(position: str, variants: VariantRegistry) -> str | None:
    """The value of chu-shogi's option ``setup`` whose start is ``position``, or None."""
    variant = variants.load(VARIANT)
    for option in SETUPS.values():
        rules = compile_rules(variant, {"setup": option})
        if Board(rules, rules.start).position() == position:
            return option
    return None


def _setup(head: list, file, setup: SetupFile | None, setup_dir: str | None, variants: VariantRegistry):
    """(option value or None, SFEN or None, problem or None) of a record's setup (module doc)."""
    data_name, handicap = head[1], head[2]
    if setup is None and setup_dir is not None:
        path = _beside(setup_dir, data_name, handicap)
        if path is not None:
            try:
                setup = load_setup(path)
            except OSError as exc:
                return None, None, GameError(f"cannot read the setup file {path}: {exc.strerror or exc}",
                                             file=file, game=1, line=2, column=1)
    if setup is not None and setup.position is not None:
        position = setup.position
    elif setup is not None:
        try:
            position = read_fsy(setup.text, variants)
        except SetupError as exc:
            return None, None, GameError(f"setup file {setup.name}: {exc.reason}", file=setup.name, game=1, line=1,
                                         column=exc.column, expected="a Chu Shogi server setup such as /L,FL,C,.../")
    if setup is not None:
        option = _known_setup(position, variants)
        return (option, None, None) if option is not None else (None, position, None)
    option = SETUPS.get(data_name) or _HANDICAPS.get(handicap)
    if option is not None:
        return option, None, None
    where = f"beside the record ({setup_dir or '.'})" if setup_dir is not None else "given with --setup"
    return None, None, GameError(
        f"unknown setup {data_name!r} ({handicap!r}): no such file {where}, and not one of the server's setups",
        file=file, game=1, line=2, column=1,
        expected="a .fsy file beside the record or given with --setup FILE, or one of " + ", ".join(SETUPS))


def read_csg(text: str, *, file: str | None = None, variant: str | None = None, lenient: bool = False,
             visitor=None, variants=None, setup: SetupFile | None = None, setup_dir: str | None = None) -> Iterator:
    """The game of a ``.csg`` record (a :class:`Game` by default).

    ``setup``: a setup file that overrides the one the record names; ``setup_dir``: the folder where
    a setup file the record names is looked for (None: nowhere, only the server's known setups)."""
    variants = variants or VariantRegistry.default()
    lines = iter_lines(text)
    head = [line.strip() for _, line in itertools.islice(lines, HEADER_LINES)]
    head += [""] * (HEADER_LINES - len(head))
    raw = RawGame(1, 1, 0, text)
    raw.moves = RawMoves(text, _text_reader)
    option, position, problem = _setup(head, file, setup, setup_dir, variants)
    if problem is not None:  # the moves are not read: they would only be wrong from another start
        raw.problems.append(problem)
    raw.headers.append(("Variant", variant or VARIANT))
    if option not in (None, "even"):
        raw.headers.append(("RuleSet", f"setup={option}"))
    if position is not None:
        raw.headers.append(("SFEN", position))
    # the server's Black (line 4) is at the bottom: Sente; in a handicap game White, Gote, moves first
    raw.headers += [("Sente", head[3] or "?"), ("Gote", head[4] or "?"), ("Handicap", head[2] or "?"),
                    ("Result", "*")]
    comment = " ".join(h for h in head[5:] if h)
    if comment:
        raw.comments.append(comment)
    for n, (offset, line) in enumerate(lines if problem is None else (), start=HEADER_LINES + 1):
        if not line.strip():
            continue
        m = _MOVE_RE.match(line)
        if m is None:
            raw.problems.append(GameError("not a move line", file=file, game=1, line=n, column=1, move=line.strip(),
                                          expected="e.g. '1 P 8i - 8h' or '52 Ln 11g x 12g - 11f'"))
            break
        if m.group("number") == "0":
            continue  # the server's dummy first line
        start = offset + len(line) - len(line.lstrip())  # the move's text in the record
        raw.moves.add(start, start + len(line.strip()), n, line.index(m.group("piece")) + 1)
    yield play(raw, variant or VARIANT, visitor=visitor, lenient=lenient, file=file, variants=variants)
