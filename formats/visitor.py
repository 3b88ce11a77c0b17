"""Visitors: what a reader hands a game to while it reads it, and the builders of games.

Every reader (LSN, KIF, KI2, CSA, JKF, USI, CSG) calls the same :class:`Visitor` methods, as
python-chess's PGN reader does, so a caller chooses what to keep once for every format:
:class:`GameBuilder` builds the whole :class:`~formats.game.Game`, :class:`MainLineBuilder` keeps
memory flat on long games, :class:`HeadersOnly` reads only the tags.
"""

from __future__ import annotations

import sys

from daikifu.replay import Board, IncompleteVariantError, UnknownVariantError, VariantError, VariantRegistry
from daikifu.replay.position import PositionError

from .dialects import foreign_variant
from .evals import Evaluation, split_eval
from .game import SEVEN_TAG_ROSTER, UNKNOWN_VARIANT, Game, GameError, GameNode, parse_ruleset

__all__ = ["Visitor", "GameBuilder", "MainLineBuilder", "HeadersOnly", "game_from_headers", "join_comments", "make_visitor",
           "COLOUR_TAGS", "MODEL_TAGS", "ROSTER_UNKNOWN"]

# PGN's colour tags, read as the shogi names
COLOUR_TAGS = {"White": "Sente", "Black": "Gote", "WhiteElo": "SenteElo", "BlackElo": "GoteElo"}
# tags the game model holds elsewhere (variant, result, options, start), not kept in ``headers``
MODEL_TAGS = {"Variant", "Result", "RuleSet", "SetUp", "SFEN", "FEN"}
ROSTER_UNKNOWN = "?"  # a roster tag's value when it is not known


class Visitor:
    """Receives a game while it is read, as python-chess's PGN visitors do; subclass it and give
    it to :func:`~formats.lsn.read_games` (``visitor=``, a class or an instance).

    The reader calls, for each game: ``begin_game(number, line)``; ``visit_header(name, value)``
    for each tag; ``end_headers()``, which may return ``Visitor.SKIP`` to skip the moves (else the
    :class:`Game` being built, or None); then in text order ``visit_move(board, move, notation,
    line, column)`` with the board *before* the move, ``visit_comment``, ``visit_nag``,
    ``begin_variation``/``end_variation`` (``drop_variation`` for one abandoned in lenient mode),
    ``visit_error`` for each problem, ``visit_result``; last ``end_game(source, offset)``, whose
    return value :func:`~formats.lsn.read_games` yields.

    >>> from daikifu.formats.lsn import read_games
    >>> class Openings(Visitor):
    ...     def begin_game(self, number, line):
    ...         self.moves, self.players = [], {}
    ...     def visit_header(self, name, value):
    ...         if name in ("Sente", "Gote"):
    ...             self.players[name] = value
    ...     def visit_move(self, board, move, notation, line, column):
    ...         if board.ply < 2 and not self.depth:   # main line, first two plies
    ...             self.moves.append(notation)
    ...     def begin_variation(self):
    ...         self.depth += 1
    ...     def end_variation(self):
    ...         self.depth -= 1
    ...     def end_headers(self):
    ...         self.depth = 0
    ...     def end_game(self, source, offset):
    ...         return self.players.get("Sente"), self.moves
    >>> text = ('[Variant "Shogi"]\\n[Sente "Hanako"]\\n[Result "*"]\\n\\n'
    ...         '1. P-c4 (1. P-g4) P-c6 2. P-g4 *\\n')
    >>> list(read_games(text, visitor=Openings))
    [('Hanako', ['P-c4', 'P-c6'])]
    """

    SKIP = object()
    # True for a visitor whose visit_move also takes None for the board: a reader that would keep
    # a second board in step only for the visitor (KIF's one pass, see read_kif) then gives None
    board_optional = False

    def begin_game(self, number: int, line: int) -> None: ...
    def visit_header(self, name: str, value: str) -> None: ...
    def end_headers(self): ...
    def visit_move(self, board: Board, move, notation: str, line: int, column: int) -> None: ...
    def visit_comment(self, text: str, before_first_move: bool = False) -> None: ...
    def visit_nag(self, nag: int) -> None: ...

    def visit_eval(self, evaluation: Evaluation) -> None:
        """An engine's evaluation of the position after the last move (before the first move: of
        the start) that the record gives as data (lishogi's NDJSON ``analysis``); one written in a
        comment as ``[%eval …]`` comes with the comment (:mod:`~daikifu.formats.evals`)."""

    def begin_variation(self) -> None: ...
    def end_variation(self) -> None: ...

    def drop_variation(self) -> None:
        """The variation being read is abandoned (lenient mode, a bad move in it)."""
        self.end_variation()

    def visit_result(self, result: str) -> None: ...
    def visit_error(self, error: GameError) -> None: ...

    def end_game(self, source: str, offset: int):
        return None


class GameBuilder(Visitor):
    """Builds a :class:`Game` with its move tree (the default visitor)."""

    share_moves = True  # the tree holds one object per distinct move (see shared_move)

    def __init__(self, default_variant: str | None = None, variants: VariantRegistry | None = None):
        self.default_variant = default_variant
        self.variants = variants  # where the Variant tag's name is looked up (None: the default registry)

    def begin_game(self, number, line):
        self.headers = []
        self.game = None
        self.number = number
        self.line = line
        self.errors = []
        self.places = {}  # tag name -> (line, column), set by the reader

    def visit_header(self, name, value):
        self.headers.append((name, value))

    def new_game(self) -> Game:
        """The game the tags describe (a reader that knows the game better gives its own)."""
        return game_from_headers(self.headers, self.default_variant, self.errors, self.places, self.line,
                                  self.variants)

    def end_headers(self):
        self.game = self.new_game()
        self.game.number = self.number
        self.game.source_line = self.line
        self.node = self.game
        self.stack = []  # (node before the variation, its parent, number of its variations)
        # comments in a row are collected and joined once (joining one at a time is quadratic)
        self.pending_comment: list[str] = []  # before the first move of a variation
        self.comment: list[str] = []  # after self.node's move
        return self.game

    def _flush(self):
        if self.comment:
            text = " ".join(self.comment)
            if "[%eval" in text:  # kept as the node's evaluation, not as text (formats.evals)
                found, text = split_eval(text)
                if found is not None:
                    self._evaluate(self.node, found)
            self.node.comment = join_comments(self.node.comment, text)
            self.comment = []

    @staticmethod
    def _evaluate(node: GameNode, found: Evaluation) -> None:
        node.eval = found if node.eval is None else node.eval.merged(found)

    def visit_eval(self, evaluation):
        self._evaluate(self.node, evaluation)

    def visit_move(self, board, move, notation, line, column):
        if self.comment:
            self._flush()
        # a long game writes the same moves again and again: a tree shares their texts (a builder
        # that lets its nodes go does not: the interpreter's table of them would only grow)
        share = self.share_moves
        self.node = self.node.add_variation(move, share, sys.intern(notation) if share else notation,
                                            line, column)
        if self.pending_comment:
            self.node.starting_comment = " ".join(self.pending_comment)
            self.pending_comment = []

    def visit_comment(self, text, before_first_move=False):
        if not text:
            return
        if before_first_move and self.stack:
            self.pending_comment.append(text)
        else:
            self.comment.append(text)

    def visit_nag(self, nag):
        if self.node is not self.game:
            self.node.add_nag(nag)

    def begin_variation(self):
        # a variation is an alternative to the last move: it hangs from that move's parent
        self._flush()
        parent = self.node.parent
        self.stack.append((self.node, parent, len(parent.variations)))
        self.node = parent
        self.pending_comment = []

    def end_variation(self):
        self._flush()
        self.node = self.stack.pop()[0]
        self.pending_comment = []

    def drop_variation(self):
        self.comment = []
        node, parent, count = self.stack.pop()
        del parent.variations[count:]
        self.node = node
        self.pending_comment = []

    def visit_result(self, result):
        self.game.result = result

    def visit_error(self, error):
        (self.game.errors if self.game is not None else self.errors).append(error)

    def end_game(self, source, offset):
        if self.game is None:
            self.end_headers()
        self._flush()
        self.game.source = source
        self.game.source_offset = offset
        return self.game


class MainLineBuilder(GameBuilder):
    """Builds a :class:`Game` without its move tree: tags, variant, start, result, errors and
    warnings, the comment before the first move, and ``game.mainline_plies`` (the number of
    main-line plies), in memory that does not grow with the game's length.

    Each main-line node is built as :class:`GameBuilder` builds it and handed to
    :meth:`retire` ``(ply, node)`` as soon as nothing more can be added to it (its comment, NAGs
    and alternative variations are complete: two main-line moves later), then let go; ply 0 is
    the game itself.  A subclass keeps what it needs there (the archive's importer keeps a
    compact main line); this class only counts.  The game returned has no variations.

    >>> from daikifu.formats.lsn import read_games
    >>> text = ('[Variant "Shogi"]\\n[Result "*"]\\n\\n'
    ...         '1. P-c4 {good} P-c6 (1... P-g6 {also}) 2. P-g4 $1 *\\n')
    >>> class Notes(MainLineBuilder):
    ...     def retire(self, ply, node):
    ...         self.notes = getattr(self, "notes", []) + [(ply, node.comment, list(node.nags))]
    ...     def end_game(self, source, offset):
    ...         game = super().end_game(source, offset)
    ...         return game.mainline_plies, game.variations, self.notes
    >>> next(read_games(text, visitor=Notes))
    (3, [], [(0, '', []), (1, 'good', []), (2, '', []), (3, '', [1])])
    """

    share_moves = False  # (its nodes are let go: sharing would keep every distinct move)

    def end_headers(self):
        game = super().end_headers()
        self.plies = 0
        self.tail = None  # the last main-line node read
        return game

    def retire(self, ply: int, node: GameNode) -> None:
        """``node`` (ply ``ply`` of the main line; 0: the game) is complete."""

    def _retire(self, node: GameNode, ply: int) -> None:
        self.retire(ply, node)
        node.variations = []  # (the game keeps none; another node is let go with them)

    def visit_move(self, board, move, notation, line, column):
        main = not self.stack
        super().visit_move(board, move, notation, line, column)
        if main:
            self.plies += 1
            self.tail = node = self.node
            if self.plies >= 2:  # two moves back: complete, since variations hang from the parent
                parent = node.parent
                self._retire(parent.parent, self.plies - 2)
                parent.parent = None

    def end_game(self, source, offset):
        game = super().end_game(source, offset)
        if self.plies:
            self._retire(self.tail.parent, self.plies - 1)
            self._retire(self.tail, self.plies)
            self.tail.parent = None
        else:
            self._retire(game, 0)
        self.tail = None
        game.mainline_plies = self.plies
        return game


class HeadersOnly(Visitor):
    """Reads only the tags of each game (fast scanning of big files): ``end_game`` returns the
    list of ``(name, value)`` pairs as written (``White``/``Black`` read as ``Sente``/``Gote``)."""

    def begin_game(self, number, line):
        self.headers = []

    def visit_header(self, name, value):
        self.headers.append((COLOUR_TAGS.get(name, name), value))

    def end_headers(self):
        return Visitor.SKIP

    def end_game(self, source, offset):
        return self.headers


def join_comments(a: str, b: str) -> str:
    return f"{a} {b}" if a and b else a or b


def game_from_headers(headers, default_variant, errors, places=None, first_line=None, variants=None) -> Game:
    """Create the game from its tags: variant, rule set and start position.

    ``places`` maps a tag name to the (line, column) where it was read and ``first_line`` is the
    game's first line: a problem with a tag is located at the tag, a missing tag at the game."""
    places = places or {}
    variants = variants or VariantRegistry.default()

    def at(name):
        line, column = places.get(name, (first_line, None))
        return {"line": line, "column": column}

    values = {}
    for name, value in headers:
        values.setdefault(COLOUR_TAGS.get(name, name), value)
    variant_name = values.get("Variant") or default_variant
    variant = None
    problem = None
    if not variant_name:
        problem = "the Variant tag is missing"
    else:
        try:
            variant = variants.load(variant_name)
        except UnknownVariantError as exc:
            variant, problem = foreign_variant(variant_name, variants)  # pychess's names (dialects.py)
            problem = problem or (None if variant is not None else str(exc))
    options = {}
    ruleset_ok = True
    if variant is not None and values.get("RuleSet", "").strip():
        try:
            options = parse_ruleset(values["RuleSet"])
            if variant.playable:
                variant.resolve_options(options)
        except (ValueError, VariantError) as exc:
            problem = f"RuleSet tag: {exc}"
            options = {}
            ruleset_ok = False
    if variant is None or problem:
        game = Game(variant or variants.load("shogi"), options if variant else None)
        if variant is None:
            game.variant_missing = True
        game.errors.append(GameError(problem, expected="a Variant tag naming a known variant"
                                     if variant is None else "option=value pairs the variant defines",
                                     code=UNKNOWN_VARIANT if variant is None and variant_name else None,
                                     **at("Variant" if variant is None else "RuleSet")))
    else:
        try:
            game = Game(variant, options)
        except (ValueError, VariantError) as exc:  # options the rules compiler refuses
            game = Game(variant)
            game.errors.append(GameError(f"RuleSet tag: {exc}", expected="options the variant can use",
                                         **at("RuleSet")))
            ruleset_ok = False
        if not variant.playable:
            try:
                variant.require_playable()
            except IncompleteVariantError as exc:
                game.errors.append(GameError(str(exc), **at("Variant")))
    start_ok = _set_start(game, values, at)
    if variant is None:
        del game.headers["Variant"]
    _keep_tags(game, headers, variant is not None, ruleset_ok, start_ok)
    game.errors[:0] = errors
    return game


def _set_start(game: Game, values: dict, at) -> bool:
    """The start position the SFEN (or FEN) tag names on ``game``: whether it is (or there is none)."""
    start = values.get("SFEN") or values.get("FEN")
    if not start:
        return True
    if not game.valid:
        return False
    try:
        Board(game.rules, start)
    except (PositionError, ValueError, KeyError, IndexError) as exc:
        game.errors.append(GameError(f"SFEN tag: {exc}", expected="a position string",
                                     **at("SFEN" if values.get("SFEN") else "FEN")))
        return False
    game.start = start
    return True


def _keep_tags(game: Game, headers, known_variant: bool, ruleset_ok: bool, start_ok: bool) -> None:
    """The tags the model does not hold elsewhere into ``game.headers`` (and those it could not
    take: a RuleSet or a start that was refused, an unknown Variant), in the record's order."""
    dropped = set(MODEL_TAGS)
    if not ruleset_ok:
        dropped.discard("RuleSet")
    if not start_ok:
        dropped -= {"SetUp", "SFEN", "FEN"}
    for name, value in headers:
        name = COLOUR_TAGS.get(name, name)
        if name in dropped and not (name == "Variant" and not known_variant):
            continue
        if value == ROSTER_UNKNOWN and name in SEVEN_TAG_ROSTER:
            continue
        game.headers[name] = value


def make_visitor(visitor: type[Visitor] | Visitor | None, default_variant: str | None = None,
                 variants: VariantRegistry | None = None) -> Visitor:
    """The visitor of one game: ``visitor`` (an instance, or a class made here), by default a
    :class:`GameBuilder`; a game builder that names no default variant or registry gets the
    reader's."""
    v = visitor() if isinstance(visitor, type) else visitor or GameBuilder(default_variant, variants)
    if isinstance(v, GameBuilder):
        if default_variant and not v.default_variant:
            v.default_variant = default_variant
        if variants is not None and v.variants is None:
            v.variants = variants
    return v
