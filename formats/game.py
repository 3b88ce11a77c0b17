"""Games: tags, a tree of moves with comments, NAGs and variations, and what validation found.

The model follows python-chess's ``chess.pgn``: a :class:`Game` is the root :class:`GameNode`;
every node below it holds the move that leads to it, the comment after that move, a comment before
it (for the first move of a variation), NAGs, and its child variations, the first being the main
line.  Readers (LSN, KIF) build games; writers turn them back into text; nothing here knows about a
text format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final, Iterator

from daikifu.replay import Board, Move, OptionSyntaxError, compile_rules, parse_options
from daikifu.replay.variant import Variant, VariantRegistry

from .detection import CONTROL_RE

__all__ = ["Headers", "GameNode", "Game", "GameError", "RESULTS", "SEVEN_TAG_ROSTER", "shared_move", "ERROR_CODES",
           "UNKNOWN_VARIANT", "VARIANT_MISMATCH", "CONTROL_CHARACTER", "TOO_DEEP", "MOVE_AFTER_END", "after_end",
           "parse_ruleset", "format_ruleset", "IMPORT_STATUS", "TRUNCATED", "VARIATIONS_DROPPED"]

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
# GameError.code values: a variant no variant file defines; a record whose own header names another
# variant or start than the one it was read as; a control character (NUL ...) in the text; JSON
# nested deeper than the limit; a move after the end of the game (see after_end)
UNKNOWN_VARIANT, VARIANT_MISMATCH, CONTROL_CHARACTER, TOO_DEEP, MOVE_AFTER_END = (
    "unknown-variant", "variant-mismatch", "control-character", "too-deep", "move-after-end")
ERROR_CODES = (UNKNOWN_VARIANT, VARIANT_MISMATCH, CONTROL_CHARACTER, TOO_DEEP, MOVE_AFTER_END)
# the tag a lenient reader sets on a game it kept only in part: its moves after an error were left
# out (TRUNCATED), or variations with an error were (VARIATIONS_DROPPED)
IMPORT_STATUS, TRUNCATED, VARIATIONS_DROPPED = "ImportStatus", "truncated", "variations-dropped"
# the tags every game carries, in this order, before any others (PGN's seven-tag roster, shogi-style)
SEVEN_TAG_ROSTER = ("Variant", "Event", "Site", "Date", "Round", "Sente", "Gote", "Result")


@dataclass
class GameError:
    """Something wrong with a game record, located as precisely as the reader can.

    ``ply`` is the number of the ply (1 = the first move) where replaying stopped, ``move`` the
    move text as written, ``expected`` what would have been acceptable, ``suggestions`` legal moves
    close to what was written ("did you mean").
    """

    message: str
    file: str | None = None
    game: int | None = None  # 1-based number of the game in its file
    line: int | None = None
    column: int | None = None
    ply: int | None = None
    move: str | None = None
    expected: str | None = None
    suggestions: list = field(default_factory=list)
    kind: str = "error"  # "error" (the game is invalid) or "warning" (a flag, e.g. a wrong result claim)
    # what kind of problem, for programs (the message is for people): one of ERROR_CODES, or None
    code: str | None = None

    def __str__(self) -> str:
        where = ":".join(str(x) for x in (self.file, self.line, self.column) if x is not None)
        parts = [where] if where else []
        if self.game is not None:
            parts.append(f"game {self.game}")
        if self.ply is not None:
            parts.append(f"ply {self.ply}")
        if self.move is not None:
            parts.append(f"move {self.move!r}")
        text = ", ".join(parts)
        text = f"{text}: {self.message}" if text else self.message
        if self.expected:
            text += f" (expected {self.expected})"
        if self.suggestions:
            text += "; did you mean " + ", ".join(self.suggestions) + "?"
        return text

    @classmethod
    def from_dict(cls, data: dict) -> "GameError":
        """The error of :meth:`as_dict` (unknown keys ignored): ``str(GameError.from_dict(d))`` is
        how every command writes an error it holds as a dict."""
        return cls(**{k: data[k] for k in cls.__dataclass_fields__ if data.get(k) is not None})

    def as_dict(self) -> dict:
        return {"message": self.message, "file": self.file, "game": self.game, "line": self.line,
                "column": self.column, "ply": self.ply, "move": self.move, "expected": self.expected,
                "suggestions": list(self.suggestions), "kind": self.kind, "code": self.code}


def after_end(board: Board, ply: int) -> tuple[str, str]:
    """The message and the expected text of the error every reader gives for a move played on
    ``board`` after the game ended there (``board.ended``), at ply ``ply`` as the reader counts.

    Where moving into check is legal, the capture of a side's last royal piece and the bare-royal
    rule end the game though moves could still be made: a record that goes on is not valid."""
    ended = board.ended
    if ended.termination == "royal-capture":
        how = "royal capture"
    else:
        names = [board.rules.type_by_id[board.piece_at(board.royal_square(side)).id].name
                 for side in ((0, 1) if ended.winner is None else (ended.winner ^ 1,))]
        how = " against ".join(f"bare {name}" for name in names)
    return "a move after the end of the game", f"no move: the game ended at ply {ply} by {how}"


class SharedMoves(dict):
    """Each :class:`Move` read, by itself: the one object equal to it that a game tree holds
    (moves are values).  A long game repeats the same moves, so its tree then holds one object
    per distinct move, not one per ply (a board keeps its moves as ints: see
    :class:`~daikifu.replay.MoveStack`).  Bounded (many games of many variants): emptied when it
    holds ``MAX`` moves.  Read it through :func:`shared_move`.

    >>> from daikifu.replay import Move
    >>> shared_move(Move(10, 20)) is shared_move(Move(10, 20))
    True
    """

    MAX = 1 << 17

    def __missing__(self, move: Move) -> Move:
        if len(self) >= self.MAX:
            self.clear()
        self[move] = move
        return move


# the one Move object equal to a move (see SharedMoves): a look-up made in C when the move was met
# before (a Python function, or functools.lru_cache, costs more, and this runs for every ply read)
shared_move = SharedMoves().__getitem__


class Headers:
    """Tag pairs in the order they were read; names are case-sensitive, as in PGN."""

    def __init__(self, items=()):
        self._items: list[list[str]] = []
        for k, v in items:
            self[k] = v

    def __getitem__(self, name: str) -> str:
        for k, v in self._items:
            if k == name:
                return v
        raise KeyError(name)

    def get(self, name: str, default=None):
        try:
            return self[name]
        except KeyError:
            return default

    def __setitem__(self, name: str, value: str) -> None:
        for item in self._items:
            if item[0] == name:
                item[1] = value
                return
        self._items.append([name, value])

    def __delitem__(self, name: str) -> None:
        self._items = [i for i in self._items if i[0] != name]

    def __contains__(self, name: str) -> bool:
        return any(k == name for k, _ in self._items)

    def __iter__(self):
        return (k for k, _ in self._items)

    def __len__(self) -> int:
        return len(self._items)

    def items(self):
        return [(k, v) for k, v in self._items]

    def __eq__(self, other) -> bool:
        """The same tags with the same values, in any order (a writer may put them in its own
        order: LSN writes the roster tags first)."""
        return isinstance(other, Headers) and dict(self._items) == dict(other._items)

    def __repr__(self) -> str:
        return f"Headers({self.items()!r})"


_new_node: Final = object.__new__  # a node without its __init__ (GameNode.add_variation)


class GameNode:
    """A position in the game tree, reached by ``move`` from its parent.

    The game itself is the root (a :class:`Game`, with no move); ``variations[0]`` of a node is
    the main line, the others are alternatives.  Navigation, as in python-chess:

    >>> from daikifu.formats import read_game
    >>> game = read_game('[Variant "Shogi"]\\n[Result "*"]\\n\\n'
    ...                  '1. P-c4 {the usual} P-c6 (1... P-g6 2. P-f4) 2. P-g4 *\\n')
    >>> [node.notation for node in game.mainline()]
    ['P-c4', 'P-c6', 'P-g4']
    >>> first = game.next()
    >>> first.comment, first.ply(), first.is_mainline()
    ('the usual', 1, True)
    >>> side = first.variations[1]            # the variation 1... P-g6
    >>> side.notation, side.is_mainline(), [n.notation for n in side.mainline()]
    ('P-g6', False, ['P-f4'])
    >>> side.end().ply(), side.end().game() is game
    (3, True)
    >>> game.end().board().ply                 # board(): the position after the node's move
    3

    ``nags`` are the move's NAGs ($1 = "!" ...): a list, or the empty tuple when it has none (one
    shared tuple: most moves have none, and a long game holds a node per ply).  Add one with
    :meth:`add_nag`, or assign a list:

    >>> first.nags
    ()
    >>> first.add_nag(1); first.nags
    [1]
    """

    # slots for what every node has: a long game holds one node per ply.  What few nodes have
    # (comments, NAGs) and what a reader hangs on a node (the KIF reader's times) go into a
    # ``__dict__`` made only when first used; until then the class gives the empty values.
    __slots__ = ("parent", "move", "variations", "notation", "source_line", "source_column", "__dict__")
    comment: str = ""
    starting_comment: str = ""
    nags: list[int] | tuple = ()
    # an engine's evaluation of the position after the move, as the record gave it (lishogi's
    # [%eval] comments, its NDJSON analysis): a daikifu.formats.evals.Evaluation, kept apart from
    # the comment, which no longer holds it
    eval = None

    def __init__(self, parent: "GameNode | None" = None, move: Move | None = None, share: bool = True,
                 notation: str | None = None, line: int | None = None, column: int | None = None):
        self.parent = parent
        self.move = move if move is None or not share else shared_move(move)
        self.variations: list[GameNode] = []
        self.notation = notation  # the move as written in the source, when read from text
        self.source_line = line
        self.source_column = column

    def add_nag(self, nag: int) -> None:
        """Add a NAG after the move (see ``nags``)."""
        if self.nags:
            self.nags.append(nag)
        else:
            self.nags = [nag]

    def add_variation(self, move: Move, share: bool = True, notation: str | None = None,
                      line: int | None = None, column: int | None = None) -> "GameNode":
        """A new last child of this node, reached by ``move`` (the one object :func:`shared_move`
        gives for it, unless ``share`` is False: a reader that lets its nodes go keeps no moves),
        written ``notation`` at ``line`` and ``column`` of the source when read from text."""
        # what GameNode(self, move, share, notation, line, column) sets, set here without calling
        # __init__: a type's call of a Python __init__ costs more than the six fields, and a reader
        # adds a node per ply (a test pins the two to agree)
        node = _new_node(GameNode)
        node.parent = self
        node.move = shared_move(move) if share else move
        node.variations = []
        node.notation = notation
        node.source_line = line
        node.source_column = column
        if self.variations:
            self.variations.append(node)
        else:
            self.variations = [node]  # a list of one, with no room to grow: most nodes have one child
        return node

    def next(self) -> "GameNode | None":
        return self.variations[0] if self.variations else None

    def game(self) -> "Game":
        node = self
        while node.parent is not None:
            node = node.parent
        return node  # type: ignore[return-value]

    def ply(self) -> int:
        n = 0
        node = self
        while node.parent is not None:
            n += 1
            node = node.parent
        return n

    def moves_to_here(self) -> list[Move]:
        moves = []
        node = self
        while node.parent is not None:
            moves.append(node.move)
            node = node.parent
        return moves[::-1]

    def board(self) -> Board:
        """The position after this node's move (a new board)."""
        b = self.game().start_board()
        for m in self.moves_to_here():
            b.push(m)
        return b

    def mainline(self) -> Iterator["GameNode"]:
        node = self.next()
        while node is not None:
            yield node
            node = node.next()

    def mainline_moves(self) -> list[Move]:
        return [n.move for n in self.mainline()]

    def end(self) -> "GameNode":
        node = self
        while node.variations:
            node = node.variations[0]
        return node

    def is_mainline(self) -> bool:
        node = self
        while node.parent is not None:
            if node.parent.variations[0] is not node:
                return False
            node = node.parent
        return True

    def __eq__(self, other) -> bool:
        """Same moves, comments, NAGs, evaluations and variations below (the written notation may
        differ)."""
        if not isinstance(other, GameNode):
            return NotImplemented
        return (self.move == other.move and self.comment == other.comment
                and self.starting_comment == other.starting_comment and list(self.nags) == list(other.nags)
                and self.eval == other.eval
                and self.variations == other.variations)

    __hash__ = None  # mutable


class Game(GameNode):
    """A whole game: tags, the variant and rule set, and the tree of moves.

    ``errors`` collects what the reader found (see :class:`GameError`); a game is ``valid`` when
    no error (as opposed to a warning) was found.  ``source`` is the game's text as read.
    """

    def __init__(self, variant: Variant | str = "shogi", options: dict | None = None,
                 start: str | None = None, *, variants: VariantRegistry | None = None):
        """``variant``: a :class:`Variant`, or a name looked up in ``variants`` (default: the
        bundled variants and those of ``DAIKIFU_VARIANTS``)."""
        super().__init__()
        if isinstance(variant, str):
            variant = (variants or VariantRegistry.default()).load(variant)
        self.variant = variant
        self.options = variant.resolve_options(options) if variant.playable else dict(options or {})
        self.headers = Headers()
        self.headers["Variant"] = variant.name
        self.start = start  # position string, None for the variant's start position
        self.result = "*"
        self.errors: list[GameError] = []
        self.source = ""
        self.source_file: str | None = None
        self.source_offset: int | None = None
        self.source_line: int | None = None
        self.number: int | None = None
        # set by a reader's visitor that keeps no move tree (formats.visitor.MainLineBuilder): the
        # number of main-line plies read, which the game's own (empty) tree does not show
        self.mainline_plies: int | None = None
        # the record names a variant no variant file defines (or none): ``variant`` is a stand-in,
        # the game carries the error, and its Variant tag says what the record named
        self.variant_missing = False

    @classmethod
    def from_moves(cls, variant: Variant | str, moves, *, options: dict | None = None, headers=(),
                   result: str = "*", start: str | None = None) -> "Game":
        """A game whose main line is ``moves`` (played from ``start``, and trusted to be legal),
        with ``headers`` (a dict or name/value pairs) after ``Variant``.

        >>> from daikifu.replay.selfplay import play_game
        >>> g = play_game("shogi", seed=7, max_plies=6)
        >>> game = Game.from_moves(g.variant, g.moves, options=g.options, headers=g.headers, result=g.result)
        >>> len(game.mainline_moves()), game.headers["Termination"], game.result
        (6, 'adjudication', '1/2-1/2')
        """
        game = cls(variant, options, start)
        for name, value in (headers.items() if isinstance(headers, dict) else headers):
            game.headers[name] = value
        game.result = result
        node = game
        for move in moves:
            node = node.add_variation(move)
        return game

    @property
    def rules(self):
        return compile_rules(self.variant, self.options)

    def start_board(self) -> Board:
        return Board(self.rules, self.start)

    @property
    def variant_named(self) -> str:
        """The game's variant as every verdict names it (validate, import, the web viewer): its
        slug, or, when the record names a variant that is not known here (the game is then
        invalid), the name as the record writes it (``?`` when it writes none)."""
        if getattr(self, "variant_missing", False):
            return self.headers.get("Variant") or "?"
        return self.variant.slug

    @property
    def valid(self) -> bool:
        return not any(e.kind == "error" for e in self.errors)

    @property
    def status(self) -> str:
        return "valid" if self.valid else "invalid"

    def warnings(self) -> list[GameError]:
        return [e for e in self.errors if e.kind == "warning"]

    def control_character(self, tags_only: bool = False) -> str | None:
        """Where the game holds a control character no record format keeps (a NUL ...: see
        :data:`~formats.detection.CONTROL_RE`), said in words, or None: the writers write no such game.

        >>> game = Game("shogi"); game.headers["Site"] = "a\\x00b"
        >>> game.control_character()
        "the tag 'Site' holds the control character U+0000"
        """
        def found(text):
            m = CONTROL_RE.search(text)
            return None if m is None else f"U+{ord(m.group()):04X}"

        for name, value in self.headers.items():
            char = found(name) or found(value)
            if char:
                return f"the tag {name!r} holds the control character {char}"
        if tags_only:
            return None
        if found(self.comment):
            return f"the comment before the first move holds the control character {found(self.comment)}"
        stack = [(child, 1) for child in reversed(self.variations)]
        while stack:  # not recursive: variations may nest deep
            node, ply = stack.pop()
            char = found(node.comment) or found(node.starting_comment)
            if char:
                return f"the comment at ply {ply} holds the control character {char}"
            stack.extend((child, ply + 1) for child in reversed(node.variations))
        return None

    def __eq__(self, other) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return (self.variant.slug == other.variant.slug and self.options == other.options
                and (self.start or self.rules.start) == (other.start or other.rules.start)
                and self.headers == other.headers and self.result == other.result
                and GameNode.__eq__(self, other))

    __hash__ = None


# --- rule sets ----------------------------------------------------------------------------------


def parse_ruleset(text: str) -> dict:
    """``"soaring-eagle=literal, pass=forbidden"`` -> ``{"soaring-eagle": "literal", ...}`` (the
    rules core's one option parser, :func:`daikifu.replay.parse_options`); a malformed part is a
    ``ValueError`` naming the tag's text."""
    try:
        return parse_options(text)
    except OptionSyntaxError as exc:
        raise ValueError(f"rule set {text!r}: expected option=value: {exc}") from None


def format_ruleset(variant, options: dict) -> str:
    """The options that differ from the variant's defaults, as written in the ``RuleSet`` tag."""
    return ", ".join(f"{k}={v}" for k, v in options.items()
                     if k in variant.options and variant.options[k].default != v)
