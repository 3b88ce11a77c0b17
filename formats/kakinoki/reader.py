"""The KIF reader (:func:`read_kif`); the KI2 reader shares it (:mod:`.ki2_reader`).
"""

from __future__ import annotations

import re
from dataclasses import replace

from daikifu.replay import Board, IllegalMoveError, IllegalReason, Move, PositionError
from daikifu.replay.position import format_position
from daikifu.replay.usi import UsiError, usi_square, usi_to_move
from daikifu.replay.variant import OptionSyntaxError, Variant, VariantError, VariantRegistry, parse_options

from ..game import IMPORT_STATUS, MOVE_AFTER_END, SEVEN_TAG_ROSTER, TRUNCATED, VARIATIONS_DROPPED, Game, GameError, after_end, format_ruleset, shared_move
from ..reading import finish_errors
from ..visitor import Visitor
from .builder import KifGameBuilder, collects_tags
from .common import (EMT, HANDICAPS, HANDICAP_ALIASES, HAND_KEYS, KANJI_ALIASES, KEY_TO_TAG, KifError,
                     LISHOGI_12X12, RE_DATE, RE_KIF_MAGIC, RE_LION_STEP, RE_LISHOGI_MOVE, RE_PGN_DATE, SPACE, SPECIALS,
                     decode, first_mover, hms, japanese_number, kif_date, result_for)
from .feeder import OnePassFeeder
from .lines import Item, KIND_CODE, LineIndex, RE_LINE_END, classify_line, text_lines
from .style import Style
from .tree import MoveTree, PlayLine, ROOT


class KifReader:
    def __init__(self, text: str, source, variant, lenient: bool, replaced: bool, variants=None):
        self.text = text
        self.source = source
        self.variant_arg = variant
        self.variants = variants or VariantRegistry.default()
        self.lenient = lenient
        self.replaced = replaced
        self.errors: list[GameError] = []
        self.dead = False
        self.termination: str | None = None
        self.truncated = False  # the main line was cut short by an error
        self.dropped = False  # some variation (or part of one) was not read
        self.implied = "shogi"  # the variant when the record names none (see implied_variant)
        # the items of the last line made again from the text (see item), and where it starts
        self._cached_start = -1
        self._cached: list[Item] = []

    def line_items(self, line: str, number: int) -> list:
        """What line ``number`` says: no item, or one (a KI2 move line says several)."""
        it = classify_line(line, number)
        return [] if it is None else [it]

    def classify(self):
        """The items of the text, one line at a time, each knowing where its line is."""
        if type(self).line_items is KifReader.line_items:  # (KIF: a line says one item at most)
            for number, start, line in text_lines(self.text):
                it = classify_line(line, number)
                if it is not None:
                    it.start = start
                    yield it
            return
        for number, start, line in text_lines(self.text):
            for sub, it in enumerate(self.line_items(line, number)):
                it.start, it.sub = start, sub
                yield it

    def item(self, index: LineIndex, k: int) -> Item:
        """Item ``k`` of the moves: as kept (:data:`KEPT_ITEMS`), or made again from its line."""
        kept = index.kept
        if k < len(kept):
            return kept[k]
        j = k - len(kept)
        start = index.starts[j]
        if start != self._cached_start:  # (a KI2 line holds several items, read one after the other)
            m = RE_LINE_END.search(self.text, start)
            line = self.text[start:m.start() if m else len(self.text)]
            self._cached_start, self._cached = start, self.line_items(line, index.lines[j])
        it = self._cached[index.subs[j]]
        it.kind, it.number, it.index, it.start = index.kind(k), index.numbers[j], k, start
        return it

    def move_item(self, index: LineIndex, k: int) -> tuple[Item, int]:
        """(item ``k``, the index after it); in lishogi's KIF a Lion's two lines (``一歩目``, then
        ``二歩目``) are one move item holding the second in ``second`` (a step without its partner
        is left alone, for :meth:`parse_lion_move` to report)."""
        it = self.item(index, k)
        if (self.style.lishogi and it.kind == "move" and it.text.startswith("一歩目") and k + 1 < len(index)
                and index.kinds[k + 1] == KIND_CODE["move"]):
            nxt = self.item(index, k + 1)
            if nxt.text.startswith("二歩目"):  # (a new item: the items kept are not changed)
                return replace(it, second=nxt, time=nxt.time), k + 2
        return it, k + 1

    def items(self, index: LineIndex):
        """The items of the moves in order (see :meth:`move_item`)."""
        k, n = 0, len(index.kinds)
        if not self.style.lishogi:  # (one item a move: those kept first)
            yield from index.kept
            k = len(index.kept)
        while k < n:
            it, k = self.move_item(index, k)
            yield it

    # problems
    def problem(self, message, *, kind="error", line=None, column=None, ply=None, move=None,
                expected=None, suggestions=(), code=None):
        if self.lenient and kind == "error":
            kind = "warning"
        self.errors.append(GameError(message, file=self.source, game=1, line=line, column=column, ply=ply,
                                     move=move, expected=expected, suggestions=list(suggestions), kind=kind,
                                     code=code))

    def fatal(self, message, line=None, column=None):
        raise KifError(GameError(message, file=self.source, game=1, line=line, column=column))

    # the whole game
    def read(self, visitor=None):
        """The game, given to ``visitor`` (default: a :class:`KifGameBuilder`, which builds the
        :class:`Game`); what its ``end_game`` returns."""
        # one pass over the lines: the items before the first move (headers, diagram, comments)
        # are kept, those after it in the compact index (see LineIndex); then the moves are replayed,
        # given to the visitor as they are (no 変化 block: read_in_one_pass) or after (emit)
        preamble: list[Item] = []
        headers: list[Item] = []
        index = self.index = LineIndex()
        self._cached_start, self._cached = -1, []
        first_line = None
        kif_like = magic = lishogi_moves = in_moves = False
        for it in self.classify():
            if first_line is None:
                first_line = it.line
            kind = it.kind
            if kind == "move":  # (most items)
                kif_like = in_moves = True
                text = it.text
                if not lishogi_moves and ("←" in text or "歩目" in text) and RE_LISHOGI_MOVE.search(text):
                    lishogi_moves = True
            else:
                if kind == "header":
                    headers.append(it)
                if kind not in ("junk", "program"):
                    kif_like = True
                elif kind == "program" and RE_KIF_MAGIC.match(it.text):
                    magic = True
                if not (in_moves or kind in ("variation", "result")):
                    preamble.append(it)
                    continue
                in_moves = True
            index.add(it)
        if not kif_like and not magic:
            self.fatal("not a KIF record: no header, board, move or comment line found", line=first_line)

        self.implied = self.implied_variant(preamble, lishogi_moves)
        game = self.make_game(headers)
        self.setup_start(game, preamble, headers)
        tags = self.collect_tags(headers)
        for it in preamble:
            if it.kind == "junk":
                self.problem(f"unrecognised line {it.text.strip()!r}", line=it.line, column=1,
                             expected="a header line 'key：value', a board diagram, a comment or a move")
        root_comments = [it.text for it in preamble if it.kind == "comment"]
        del preamble
        game.source_file = self.source
        game.number = 1
        first_line = first_line if first_line is not None else 1
        visitor = KifGameBuilder() if visitor is None else visitor() if isinstance(visitor, type) else visitor
        if isinstance(visitor, KifGameBuilder):
            visitor.prepared = game
        if self.in_one_pass(index, visitor, tags):
            return self.read_in_one_pass(visitor, game, index, tags, root_comments, first_line)
        tree = self.read_moves(game, index, root_comments)
        self.set_tags(game, tags)
        self.set_outcome_tags(game)
        self.finish_errors(first_line)
        return self.emit(visitor, game, tree, "\n".join(root_comments), first_line)

    def finish_errors(self, first_line: int) -> None:
        if self.replaced:  # bytes given here, not through the pipeline: its warnings, one per line
            finish_errors(self.errors, self.text, first_line, self.source, 1)

    def in_one_pass(self, index: LineIndex, visitor, tags) -> bool:
        """Whether the moves are given to ``visitor`` while they are replayed (:meth:`read_in_one_pass`):
        a record without 変化 blocks, whose tags the replay cannot change (no ending is claimed, so
        no Termination; strict, so no ImportStatus) or read by a builder that only collects the
        tags (:func:`collects_tags`; and no tag of the record is called ImportStatus)."""
        if self.dead or KIND_CODE["variation"] in index.kinds:
            return False
        if collects_tags(visitor):
            return all(tag[0] != IMPORT_STATUS for tag in tags)
        return (not self.lenient and KIND_CODE["result"] not in index.kinds
                and not any(word in self.text for word in SPECIALS))

    def read_in_one_pass(self, visitor, game: Game, index: LineIndex, tags, root_comments, first_line: int):
        """The game of a record without 変化 blocks given to ``visitor`` while its moves are replayed:
        the same calls as :meth:`emit` after :meth:`read_moves` (no move tree is built), but for
        the tags only the replay tells (Termination, ImportStatus), given after the moves to a
        builder that only collects them (:func:`collects_tags`)."""
        self.set_tags(game, tags)
        visitor.begin_game(1, first_line)
        for name, value in self.headers(game):
            visitor.visit_header(name, value)
        giver = None
        if visitor.end_headers() is not Visitor.SKIP:
            giver = OnePassFeeder(self, visitor, game, root_comments)
        self.read_moves(game, index, root_comments, giver)
        if giver is not None:
            giver.finish()
        for name, value in self.set_outcome_tags(game):
            visitor.visit_header(name, value)
        self.finish_errors(first_line)
        if giver is not None:
            visitor.visit_result(game.result)
        for error in self.errors:
            visitor.visit_error(error)
        return visitor.end_game(self.text, 0)

    @staticmethod
    def implied_variant(preamble, lishogi_moves: bool) -> str:
        """The variant a record without ``変種：`` is read in, by lishogi's rule: Chu Shogi when the
        board diagram has 12 ranks or a move is written as lishogi writes Chu moves (``（←7九）``,
        ``一歩目``: ``lishogi_moves``), else shogi."""
        if sum(1 for it in preamble if it.kind == "row") == 12 or lishogi_moves:
            return LISHOGI_12X12
        return "shogi"

    def make_game(self, headers) -> Game:
        declared = next((h for h in headers if h.key == "変種"), None)
        options = {}
        opt = next((h for h in headers if h.key == "変種オプション"), None)
        if opt:
            try:
                options = parse_options(opt.value)
            except OptionSyntaxError as exc:  # read with the variant's defaults, and say so
                self.problem(f"variant options {opt.value!r}: {exc}", line=opt.line)
        name = self.variant_arg
        if name is None:
            name = declared.value.strip() if declared and declared.value.strip() else self.implied
        try:
            variant = name if isinstance(name, Variant) else self.variants.load(name)
            try:
                game = Game(variant, options)
                game.rules  # noqa: B018 - compile now, so that an incomplete variant fails here
            except VariantError as exc:
                if not options or opt is None:
                    raise
                self.problem(f"variant options {opt.value!r}: {exc}", line=opt.line)
                game = Game(variant)
                game.rules  # noqa: B018
        except VariantError as exc:
            where = declared.line if declared and self.variant_arg is None else None
            self.fatal(f"cannot read the moves: {exc}", line=where)
        if declared and self.variant_arg is not None:
            try:
                other = self.variants.load(declared.value.strip())
            except VariantError:
                other = None
            if other is None or other.slug != game.variant.slug:
                self.problem(f"the file says 変種：{declared.value.strip()}, read as {game.variant.name}",
                             line=declared.line)
        self.style = Style.of(game)
        return game

    # start position
    def setup_start(self, game: Game, items, headers) -> None:
        style = self.style
        start = None
        handicap = next((h for h in headers if h.key == "手合割"), None)
        explicit = next((h for h in headers if h.key == "初期局面"), None)
        rows = [it for it in items if it.kind == "row"]
        borders = [it for it in items if it.kind == "border"]
        hands_items = [h for h in headers if h.key in HAND_KEYS]
        turn_items = [it for it in items if it.kind == "turn"]
        if explicit is not None:
            start = explicit.value.strip()
            where = explicit.line
        elif rows or borders:
            start = self.parse_diagram(game, rows, borders, hands_items, turn_items)
            where = rows[0].line if rows else borders[0].line
            if start is None:
                self.dead = True
                return
        elif handicap is not None and style.shogi:
            name = handicap.value.strip(SPACE)
            name = HANDICAP_ALIASES.get(name, name)
            if name in HANDICAPS:
                start = HANDICAPS[name] if name != "平手" else None
            else:
                self.problem(f"unknown handicap 手合割：{name} and no board diagram",
                             line=handicap.line, expected="one of " + " ".join(HANDICAPS) + " or a board diagram")
                self.dead = True
                return
            where = handicap.line
        self.dead = False
        if start is not None:
            try:
                board = Board(game.rules, start)
                start = board.position()
            except (PositionError, ValueError, KeyError, IndexError) as exc:
                self.problem(f"bad start position: {exc}", line=where)
                self.dead = True
                return
            game.start = None if start == game.rules.start else start

    def parse_diagram(self, game, rows, borders, hands_items, turn_items) -> str | None:
        style = self.style
        if not style.diagram_readable:
            self.problem(f"board diagrams are not supported for {game.variant.name}: use 初期局面",
                         line=(rows or borders)[0].line)
            return None
        ranks = style.ranks
        if len(rows) != ranks:
            self.problem(f"the board diagram has {len(rows)} ranks, {game.variant.name} has {ranks}",
                         line=(rows or borders)[0].line, expected=f"{ranks} rows between two borders")
            return None
        cells = self.diagram_cells(game, rows)
        if cells is None:
            return None
        hands = self.diagram_hands(game, hands_items)
        if hands is None:
            return None
        turn = turn_items[-1].number if turn_items else 0
        return format_position(game.variant, lambda f, r: cells.get((f, r)), hands, turn, 1)

    def diagram_cells(self, game: Game, rows) -> dict | None:
        """(file, rank) -> (piece type index, colour) of a board diagram's rows, None after a problem."""
        style = self.style
        files, ranks = style.files, style.ranks
        cells = {}
        for r_index, row in enumerate(rows):
            rank = ranks - 1 - r_index
            f = 0
            gote = False
            text = row.text
            i = 0
            while i < len(text):
                c = text[i]
                if c in " \u3000\t":
                    i += 1
                    continue
                if c in "vV^":
                    gote = True
                    i += 1
                    continue
                if f >= files:
                    self.problem(f"board row has more than {files} squares", line=row.line)
                    return None
                if c in "・･.":
                    f += 1
                    gote = False
                    i += 1
                    continue
                name = self.board_name(text, i)
                ids = style.piece_ids(name) if name else []
                if name is None or len(ids) != 1:
                    what = (f"the name {name!r} is shared by {' and '.join(ids)}: the diagram cannot tell them "
                            f"apart (use 初期局面)") if ids else f"unknown piece {text[i:i + 2]!r} in the board diagram"
                    self.problem(what, line=row.line, column=row.column + i)
                    return None
                cells[(f, rank)] = (game.rules.type_by_id[ids[0]].index, 1 if gote else 0)
                gote = False
                f += 1
                i += len(name)
            if f != files:
                self.problem(f"board row has {f} squares, expected {files}", line=row.line)
                return None
        return cells

    def diagram_hands(self, game: Game, hands_items) -> list | None:
        """The pieces in hand of a diagram's 持駒 lines (per colour, per type index), None after a problem."""
        style = self.style
        ntypes = len(game.variant.pieces)
        hands = [[0] * (ntypes + 1), [0] * (ntypes + 1)]
        for h in hands_items:
            colour = HAND_KEYS[h.key]
            value = h.value.strip(SPACE)
            if value in ("", "なし"):
                continue
            for token in re.split(r"[\s\u3000、,]+", value):
                if not token:
                    continue
                name = self.board_name(token, 0) or token[0]
                pid = style.piece_id(name)
                count = japanese_number(token[len(name):]) if len(token) > len(name) else 1
                if pid is None or count is None:
                    self.problem(f"cannot read {token!r} in the pieces in hand", line=h.line)
                    return None
                hands[colour][game.rules.type_by_id[pid].index] += count
        return hands

    def board_name(self, text: str, i: int) -> str | None:
        """The longest piece name (or alias such as 王, 竜) at ``text[i]``, or None."""
        style = self.style
        for name in style.board_names + list(style.shared) + list(KANJI_ALIASES):
            if text.startswith(name, i):
                return name
        return None

    # tags
    def collect_tags(self, headers) -> list:
        tags: list[list[str]] = []

        def add(name, value):
            for item in tags:
                if item[0] == name:
                    item[1] += "\n" + value
                    return
            tags.append([name, value])

        for h in headers:
            key, value = h.key, h.value
            if key in HAND_KEYS or key in ("変種", "初期局面", "変種オプション"):
                continue
            if key == "開始日時":
                if any(t[0] in ("Date", "KifStartTime") for t in tags):
                    continue  # all the 開始日時 lines are handled at the first
                raw = "\n".join(x.value for x in headers if x.key == "開始日時")
                m = RE_DATE.search(value)
                if RE_PGN_DATE.match(value):
                    date = value
                elif m:
                    date = f"{int(m.group(1)):04d}.{int(m.group(2)):02d}.{int(m.group(3)):02d}"
                else:
                    date = None
                if date is not None:
                    add("Date", date)
                if date is None or raw != kif_date(date):
                    add("KifStartTime", raw)
                continue
            if key == "手合割":
                value = value.strip(SPACE)
            add(KEY_TO_TAG.get(key, key), value)
        return tags

    def set_tags(self, game: Game, tags) -> None:
        """The record's tags on ``game`` (:meth:`set_outcome_tags` adds those the replay tells)."""
        # as formats/lsn.py: the model holds Variant and Result itself; unknown ("?") roster tags
        # are left out; the roster comes first
        # a Termination header line is the writer's where the end of the moves cannot tell it (an
        # adjudication; KI2, which has no special moves): the replay's claim, if any, replaces it
        tags = [t for t in tags if t[0] not in ("Variant", "Result")
                and not (t[0] in SEVEN_TAG_ROSTER and t[1] in ("?", "????.??.??"))]
        by_name = {t[0]: t[1] for t in tags}
        for name in SEVEN_TAG_ROSTER[1:]:
            if name in by_name:
                game.headers[name] = by_name[name]
        for name, value in tags:
            if name not in SEVEN_TAG_ROSTER:
                game.headers[name] = value

    def set_outcome_tags(self, game: Game) -> list:
        """The tags the replay tells (ImportStatus, Termination), after the others on ``game``: the
        pairs set."""
        added = []
        if self.lenient and (self.truncated or self.dropped):
            added.append((IMPORT_STATUS, TRUNCATED if self.truncated else VARIATIONS_DROPPED))
        if self.termination:
            added.append(("Termination", self.termination))
        for name, value in added:
            game.headers[name] = value
        return added

    # moves
    def read_moves(self, game: Game, index: LineIndex, root_comments, giver: OnePassFeeder | None = None) -> MoveTree:
        """The moves of every line of play, in file order, into a :class:`MoveTree` (and what the lines
        claim: :attr:`specials`, :attr:`comments`, :attr:`starting`), replayed on one board; or,
        for a record without 変化 blocks, each move given to ``giver`` as it is replayed (no tree)."""
        tree = MoveTree()
        if not self.begin_moves(index):
            return tree
        comments = self.comments
        cur = PlayLine(1, ROOT, main=True)
        lines = [cur]
        board = game.start_board()
        targets, positions = _branch_points(index, board)
        prev_to = None
        stopped = False  # after a special or an error in the current block
        pending: list[str] = []  # comments before the first move of a variation
        block_dead = False
        for it in self.items(index):
            kind = it.kind
            if kind != "move":  # (most items are moves: one test for them)
                if kind == "variation":
                    pending = []
                    started = self.start_variation(it, game, tree, lines, cur, board, positions)
                    block_dead = started is None
                    if started is not None:
                        cur, board, prev_to = started
                        stopped = False
                elif block_dead:
                    pass
                elif kind == "comment":  # (the most frequent after moves: read here, not by a call)
                    if stopped and cur.special is None:
                        continue  # comments on moves that were not read
                    if cur.count:
                        comments.setdefault(cur.last(), []).append(it.text)
                    elif cur.main:
                        root_comments.append(it.text)
                    else:
                        pending.append(it.text)
                else:
                    self.note_item(it, cur)
                continue
            if block_dead:
                continue
            # a move line
            if stopped:
                block_dead = self.move_after_end(it, cur)
                continue
            ply = cur.start + cur.count
            text = it.text
            if it.problem is not None or it.number != ply:
                self.check_move_line(it, ply)
            word = text.split(None, 1)
            word = word[0] if word else ""
            if word in SPECIALS:
                self.end_line(cur, word, it, ply)
                stopped = True
                continue
            if board.ended is not None:
                message, expected = after_end(board, ply - 1)
                self.problem(message, line=it.line, column=it.column, ply=ply, move=text, expected=expected,
                             code=MOVE_AFTER_END)
                move = None
            else:
                move = self.parse_move(board, text, prev_to, it, ply)
            if move is None:
                stopped = True
                cur.broken = True
                self.cut(cur)
                continue
            if giver is None:  # (the tree holds one object per distinct move)
                node = tree.add(cur.last(), shared_move(move), it.index)
            else:  # (the visitor shares the moves it keeps, if it keeps them)
                node = giver.move(it, move)
            if pending:
                self.starting[node] = "\n".join(pending)
                pending = []
            if not cur.count:
                cur.first = node
            cur.count += 1
            prev_to = move.to_square
            if cur.start + cur.count - 1 in targets:
                positions[node] = board.position()
        cur.end_position = board.position()
        del positions
        # (with a giver there are no variations: the board is at the end of the one line)
        self.finish_lines(game, tree, lines, board if giver is not None else None)
        return tree

    def begin_moves(self, index: LineIndex) -> bool:
        """What the lines claim, emptied; False (the problem reported) when the moves cannot be
        replayed."""
        self.termination = None
        self.specials: dict = {}  # node -> (special word, seconds or None) ending its line (kif_special)
        self.comments: dict = {}  # node -> the comment lines after its move
        self.starting: dict = {}  # node -> the comment before the first move of a variation
        if self.dead:
            if KIND_CODE["move"] in index.kinds:
                self.problem("the moves cannot be replayed without a start position", line=index.line(0))
                self.truncated = True
            return False
        return True

    def move_after_end(self, it: Item, line: PlayLine) -> bool:
        """A move line after ``line`` stopped: whether the rest of the block is skipped (after a
        special move, reported once; after a move that could not be read, its moves are skipped
        one by one, silently)."""
        if line.special is None:
            return False
        self.problem(f"move after the end of the line ({line.special})", line=it.line, column=it.column,
                     move=it.text, ply=it.number)
        self.cut(line)
        return True

    def cut(self, line: PlayLine) -> None:
        """A line of play stops before its end: the main line is truncated, a variation dropped."""
        if line.main:
            self.truncated = True
        else:
            self.dropped = True

    def check_move_line(self, it: Item, ply: int) -> None:
        """The problems of a move line that do not stop its move: a bad time, a wrong ply number."""
        if it.problem is not None:  # the time is left out; the move is read
            self.problem(it.problem[0], line=it.line, column=it.problem[1], ply=ply, move=it.text,
                         expected="a time m:ss/h:mm:ss whose minutes after hours and seconds run from 0 to 59")
        if it.number != ply:
            self.problem(f"ply number {it.number}, expected {ply} (read as ply {ply})", kind="warning",
                         line=it.line, column=1, ply=ply, move=it.text)

    def end_line(self, line: PlayLine, word: str, it: Item, ply: int) -> None:
        """A special move (投了 ...) ends ``line``."""
        line.special = word
        line.special_item = it
        if line.count or line.main:
            self.specials[line.last()] = (word, it.time[0] if it.time else None)
        else:
            self.problem(f"variation with no move before {word} dropped", kind="warning", line=it.line,
                         ply=ply, move=it.text)

    def start_variation(self, it: Item, game: Game, tree: MoveTree, lines: list[PlayLine], cur: PlayLine, board: Board,
                        positions: dict):
        """A 変化：N手 item: (the line of play it starts, the board before its first move, the
        destination of the move before), the line just read ending at ``board``; None when it
        branches from no line read so far (then its block is skipped)."""
        n = it.number
        parent_line: PlayLine | None = None
        if n >= 1:
            parent_line = next((ln for ln in reversed(lines) if ln.covers(n)), None)
        if parent_line is None and n >= 1:
            # a 変化 one ply after the end of a line (激指 writes these): its continuation
            parent_line = next((ln for ln in reversed(lines) if ln.special is None and ln.count
                                and not ln.broken and ln.start + ln.count == n), None)
            if parent_line is not None:
                self.problem(f"変化：{n}手 starts after the last move of its line: read as the "
                             f"line's continuation", kind="warning", line=it.line, ply=n)
        cur.end_position = board.position()
        if not cur.count and cur.special is None and not cur.main and lines[-1] is cur:
            lines.pop()  # an empty block: nothing can branch from it
        if parent_line is None:
            self.problem(f"変化：{n}手 does not branch from any line read so far", line=it.line,
                         column=1, ply=n, expected="a ply number of a move already read")
            self.dropped = True
            return None
        if parent_line.special is not None and n == parent_line.start + parent_line.count:
            # an alternative to the line's ending (投了 ...): the moves continue the line
            self.problem(f"変化：{n}手 replaces the ending {parent_line.special}: read as the line's "
                         f"continuation", kind="warning", line=it.line, ply=n)
            self.specials.pop(parent_line.last(), None)
            parent_line.special = None
            parent_line.special_item = None
            parent_line.result_item = None
        parent = parent_line.node_before(n)
        cur = PlayLine(n, parent)
        lines.append(cur)
        if parent in positions:
            board = Board(game.rules, positions[parent])
        else:  # pragma: no cover - every branching point is in targets
            board = tree.board(game, parent)
        prev_to = tree.moves[parent].to_square if parent != ROOT else None
        return cur, board, prev_to

    def note_item(self, it: Item, cur: PlayLine) -> None:
        """An item of the moves that is not a move, a 変化 nor a comment: a まで line, or something
        out of place."""
        kind = it.kind
        if kind == "result":
            cur.result_item = it
            return
        if kind in ("header", "moves-header", "program"):
            return
        if kind in ("row", "border", "turn"):
            self.problem("board diagram after the moves", line=it.line, column=1)
            return
        if kind == "junk":
            self.problem(f"unrecognised line {it.text.strip()!r}", line=it.line, column=1,
                         expected="a move line such as '   1 ７六歩(77)', a comment '*...' or 変化：N手")

    def parse_move(self, board: Board, text: str, prev_to, it: Item, ply: int) -> Move | None:
        style = self.style
        where = {"line": it.line, "column": it.column, "ply": ply, "move": text}
        if style.lishogi and RE_LION_STEP.match(text):
            return self.parse_lion_move(board, prev_to, it, ply)
        m = style.move_re.match(text)
        if not m:
            example = "７六歩(77)" if style.numeric else "7八歩兵 （←7九）" if style.lishogi else "e5 P(e4)"
            self.problem("cannot read the move", expected=f"destination, piece, origin, e.g. {example!r}",
                         suggestions=self.suggest(board, None, prev_to), **where)
            return None
        if style.lishogi and m.group("mark"):
            self.problem(f"{m.group('mark')} marks the second step of a Lion's double move",
                         expected="二歩目 before the move, after a 一歩目 line", **where)
            return None
        same, dest, kill_text, origin_text, name, promo_text, drop = m.group(
            "same", "dest", "kills", "origin", "piece", "promo", "drop")
        try:
            if same:
                if prev_to is None:
                    self.problem("同 (same square) with no previous move", expected="a destination square",
                                 **where)
                    return None
                to = prev_to
            else:
                to = style.parse_square(dest)
            kills = tuple(style.parse_square(k) for k in style.kill_re.findall(kill_text)) if kill_text else ()
            origin = style.parse_origin(origin_text) if origin_text else None
        except (ValueError, KeyError, IndexError) as exc:
            self.problem(str(exc), expected="a square on the board", **where)
            return None
        ids = style.piece_ids(name, in_move=True)
        pid = ids[0] if ids else None
        drop = bool(drop)
        if pid is None:  # pragma: no cover - the regular expression only matches known names
            self.problem("unknown piece", **where)
            return None
        if drop or (origin is None and not kills):
            if origin is not None or promo_text or kills:
                self.problem("a drop has no origin, promotion or captures", **where)
                return None
            if not drop and not board.rules.drops:
                self.problem("the move has no origin square", expected="an origin in parentheses, e.g. (77)",
                             suggestions=self.suggest(board, to, prev_to), **where)
                return None
            if len(ids) > 1:  # a shared name: the piece in hand tells, if only one of them is
                held = [i for i in ids if board.hand(board.turn).get(i)]
                if len(held) != 1:
                    self.problem(f"{m.group('piece')} names {' and '.join(ids)}: which one is dropped?",
                                 expected="the piece ID instead of the shared name", **where)
                    return None
                pid = held[0]
            move = Move(None, to, (), None, pid)
        else:
            if origin is None:
                self.problem("the move has no origin square", expected="an origin in parentheses",
                             suggestions=self.suggest(board, to, prev_to), **where)
                return None
            piece = board.piece_at(origin)
            if piece is None:
                self.problem(f"there is no piece on {style.square_text(origin)}",
                             suggestions=self.suggest(board, to, prev_to), expected="a legal move", **where)
                return None
            if piece.id in ids:
                pid = piece.id  # a shared name is resolved by the piece on the origin square
            if piece.id != pid:
                self.problem(f"the piece on {style.square_text(origin)} is {style.piece_name(piece.id)}, "
                             f"not {m.group('piece')}", suggestions=self.suggest(board, to, prev_to),
                             expected="a legal move", **where)
                return None
            promotion: bool | None
            if promo_text == "成":
                promotion = True
            elif promo_text:
                promotion = False
            else:
                promotion = False if self.can_promote(board, origin, to, piece) else None
            move = Move(origin, to, kills, promotion)
        return self.play(board, move, to, prev_to, where)

    def play(self, board: Board, move: Move, to: int, prev_to, where: dict) -> Move | None:
        """``move`` played on ``board``, or None and a problem saying why it is illegal."""
        rules = board.rules
        if move.promotion is False and (rules.promote_on_entry or rules.promote_last_rank):
            # no promotion written: declined where the rules offered one (a shape of the zone
            # alone does not tell under Chu's rule), else none
            refused = board.illegality(move)
            if refused is not None and refused.code is IllegalReason.CANNOT_PROMOTE:
                move = move._replace(promotion=None)
        try:
            board.play(move)
        except IllegalMoveError as exc:
            self.problem(f"illegal move: {exc.reason}", expected="a legal move",
                         suggestions=self.suggest(board, to, prev_to), **where)
            return None
        except (KeyError, IndexError, ValueError) as exc:
            self.problem(f"illegal move: {exc}", expected="a legal move", **where)
            return None
        return move

    def parse_lion_move(self, board: Board, prev_to, it: Item, ply: int) -> Move | None:
        """A Lion's double move in lishogi's two lines, ``一歩目 6六獅子 （←7七）`` then
        ``二歩目 7七獅子（居食い） （←6六）``, read as one move: origin, the first step's square,
        destination (lishogi's USI ``7g6f7g``)."""
        style = self.style
        first, second = it, it.second
        step = RE_LION_STEP.match(it.text)
        if step is not None and step.group(1) == "二":
            self.problem("a second step (二歩目) with no first step (一歩目) on the line before",
                         expected="一歩目 on the move line before", line=it.line, column=it.column, ply=ply,
                         move=it.text)
            return None
        if second is None:
            self.problem("a first step (一歩目) with no second step (二歩目) on the next line",
                         expected="the Lion's second step, 二歩目, on the next move line", line=it.line,
                         column=it.column, ply=ply, move=it.text)
            return None
        steps = self.lion_steps(first, second, prev_to, ply)
        if steps is None:
            return None
        (m1, origin, mid, where1), (m2, origin2, to, where2) = steps
        if origin2 != mid:
            self.problem(f"the second step starts on {style.square_text(origin2)}, the first ended on "
                         f"{style.square_text(mid)}", expected=f"（←{style.square_text(mid)}）", **where2)
            return None
        piece = board.piece_at(origin)
        for m, where in ((m1, where1), (m2, where2)):
            if piece is None or piece.id not in style.piece_ids(m.group("piece"), in_move=True):
                what = f"there is no piece on {style.square_text(origin)}" if piece is None else \
                    f"the piece on {style.square_text(origin)} is {style.piece_name(piece.id)}, not {m.group('piece')}"
                self.problem(what, expected="a legal move", suggestions=self.suggest(board, None, prev_to), **where)
                return None
        if m1.group("mark") or m1.group("promo") or m1.group("drop"):
            self.problem("the first step of a double move has no mark, promotion or drop", **where1)
            return None
        mark = (m2.group("mark") or "")[1:-1]
        igui = to == origin and board.piece_at(mid) is not None
        if mark and mark != ("居食い" if igui else "じっと" if to == origin else ""):
            self.problem(f"the move is marked {mark}, but it is "
                         f"{'igui' if igui else 'a pass' if to == origin else 'no capture without moving'}",
                         expected="居食い only on igui, じっと only on a pass", **where2)
            return None
        usi = "".join(usi_square(board, sq) for sq in (origin, mid, to)) + ("+" if m2.group("promo") == "成" else "")
        try:
            move = usi_to_move(board, usi)
        except UsiError as exc:
            self.problem(f"illegal move: {exc.reason.removeprefix('illegal: ')}", expected="a legal move",
                         suggestions=self.suggest(board, to, prev_to), **where2)
            return None
        return self.play(board, move, to, prev_to, where2)

    def lion_steps(self, first: Item, second: Item, prev_to, ply: int) -> list | None:
        """The two steps' (match, origin, destination, where) as written, None after a problem."""
        style = self.style
        steps = []
        for step in (first, second):
            where = dict(line=step.line, column=step.column, ply=ply, move=step.text)
            m = style.move_re.match(step.text)
            if not m or not m.group("origin"):
                self.problem("cannot read the step", expected="destination, piece, origin, e.g. '一歩目 7九獅子 （←7十）'",
                             **where)
                return None
            try:
                to = prev_to if m.group("same") else style.parse_square(m.group("dest"))
                origin = style.parse_square(m.group("origin"))
            except (ValueError, KeyError, IndexError, TypeError) as exc:
                self.problem(str(exc), expected="a square on the board", **where)
                return None
            if to is None:
                self.problem("仝 (same square) with no previous move", expected="a destination square", **where)
                return None
            steps.append((m, origin, to, where))
        return steps

    @staticmethod
    def can_promote(board: Board, origin: int, to: int, piece) -> bool:
        """Whether ``piece``, on ``origin``, may promote moving to ``to`` (by the zone's shape)."""
        rules = board.rules
        code = rules.type_by_id[piece.id].index * 2 + piece.colour
        if not rules.promote[code]:
            return False
        zone = rules.zone[piece.colour]
        return bool(zone[origin] or zone[to])

    def suggest(self, board: Board, to, prev_to) -> list[str]:
        """Legal moves to the same square (or a few legal moves), in KIF notation."""
        try:
            legal = board.legal_moves()
        except Exception:  # pragma: no cover - the rules core should not fail here
            return []
        chosen = [m for m in legal if m.to_square == to] if to is not None else []
        out = []
        for m in chosen[:5]:
            try:
                out.append(self.style.move_text(board, m, prev_to))
            except (KeyError, IndexError, ValueError):  # pragma: no cover
                continue
        return out

    def finish_lines(self, game: Game, tree: MoveTree, lines: list, end_board: Board | None = None) -> None:
        """The result and ending the lines claim, checked; ``end_board``: the position at the end of
        the only line, with its history (else each is replayed from ``tree``)."""
        budget = 200_000  # plies replayed to check repetition claims (a bound for huge records)
        unchecked = 0
        for ln in lines:
            if ln.broken or ln.end_position is None or (ln.special is None and ln.result_item is None):
                continue  # the claims of a line cut short by an error are not checked
            mover = 1 if ln.end_position.split()[1] == "w" else 0
            claimed = self.line_outcome(ln, mover)
            if claimed is None:
                continue
            termination, result, where = claimed
            if ln.main:
                self.termination = termination
                game.result = result
            if termination == "checkmate":
                self.check_claim(termination, Board(game.rules, ln.end_position), where, ln)
            elif termination == "repetition":
                depth = ln.start - 1 + ln.count
                if depth > budget:
                    unchecked += 1
                    continue
                budget -= depth
                board = end_board if end_board is not None else tree.board(game, ln.last())
                self.check_claim(termination, board, where, ln)
        if unchecked:
            self.problem(f"{unchecked} repetition claims not checked (record too large)", kind="warning")

    def line_outcome(self, ln: PlayLine, mover: int):
        """(Termination, result, item) claimed for the end of a line, from its special or まで line."""
        from_special = None
        if ln.special is not None:
            termination, rel = SPECIALS[ln.special]
            from_special = (termination, result_for(rel, mover))
        from_line = None
        result_line = ln.result_item.line if ln.result_item is not None else None
        if ln.result_item is not None:
            from_line = _parse_made(ln.result_item.text, mover)
            n_moves = ln.start - 1 + ln.count
            if ln.result_item.number != n_moves and ln.special is not None:
                self.problem(f"the まで line counts {ln.result_item.number} moves, the line has {n_moves}",
                             kind="warning", line=ln.result_item.line)
        if from_special is not None:
            if from_line is not None and from_line[1] is not None and from_line[1] != from_special[1]:
                self.problem(f"the まで line says {from_line[1]}, {ln.special} means {from_special[1]}",
                             kind="warning", line=result_line)
            return from_special[0], from_special[1], ln.special_item
        if from_line is not None and from_line[1] is not None:
            return from_line[0], from_line[1], ln.result_item
        return None

    def check_claim(self, termination, board: Board, item: Item, ln: PlayLine) -> None:
        ply = ln.start + ln.count
        where = dict(line=item.line if item else None, ply=ply, kind="warning")
        if termination == "checkmate":
            if not board.is_checkmate():
                self.problem("claimed checkmate (詰み), but the final position is not checkmate", **where)
        elif termination == "repetition":
            outcome = board.outcome()
            if outcome is not None and outcome.termination == "perpetual-check":
                self.problem("claimed repetition (千日手), but it is perpetual check: the checking side loses",
                             **where)
            elif board.repetitions() < 4:
                self.problem(f"claimed repetition (千日手), but the final position occurred "
                             f"{board.repetitions()} times, not 4", **where)

    def headers(self, game: Game):
        """The tags a visitor is given: ``Variant``, ``RuleSet`` and ``SFEN`` when the options and
        the start are not the variant's, then the game's tags."""
        yield "Variant", game.variant.name
        ruleset = format_ruleset(game.variant, game.options)
        if ruleset:
            yield "RuleSet", ruleset
        if game.start is not None:
            yield "SFEN", game.start
        for name, value in game.headers.items():
            if name != "Variant":
                yield name, value

    def emit(self, visitor, game: Game, tree: MoveTree, root_comment: str, first_line: int):
        """The game read, given to ``visitor`` as LSN's reader gives one (:class:`formats.visitor.Visitor`):
        headers; moves depth-first, each variation (a 変化 block) right after the move it replaces,
        with the board before each move; the result; the problems; ``end_game``.  A visitor with
        ``visit_kif_time(time)`` and ``visit_kif_special(word, seconds)`` is also given the time
        column of each move and the special move (投了 ...) ending a line (see
        :class:`KifGameBuilder`)."""
        visitor.begin_game(1, first_line)
        for name, value in self.headers(game):
            visitor.visit_header(name, value)
        if visitor.end_headers() is not Visitor.SKIP:
            self.give_start(visitor, root_comment)
            if tree.moves:
                self.walk(visitor, game, tree)
            visitor.visit_result(game.result)
        for error in self.errors:
            visitor.visit_error(error)
        return visitor.end_game(self.text, 0)

    def give_start(self, visitor, root_comment: str) -> None:
        """What comes before the first move: the comment, and a special move (投了 ...) with no move
        before it."""
        if root_comment:
            visitor.visit_comment(root_comment)
        special = getattr(visitor, "visit_kif_special", None)
        if special is not None and ROOT in self.specials:
            special(*self.specials[ROOT])

    @staticmethod
    def give_move(visitor, board: Board | None, move: Move, it: Item, totals: tuple, colour: int,
                  time_hook) -> tuple[tuple, str]:
        """``move`` (item ``it``, played by ``colour``) given to ``visitor`` with ``board`` before
        it, and its time column: (the running totals of the time column after it, Sente's and
        Gote's; the time as its comment starts, ``[%emt ...]``)."""
        visitor.visit_move(board, move, it.text, it.line, it.column)
        if it.time is None:
            return totals, ""
        if time_hook is not None:
            time_hook(it.time)
        secs, total = it.time
        spent = list(totals)
        spent[colour] += secs
        prefix = EMT.get(secs) or f"[%emt {hms(secs)}]"
        if total is not None and total != spent[colour]:
            prefix += f"[%kiftotal {hms(total)}]"
            spent[colour] = total
        return (spent[0], spent[1]), prefix

    def give_notes(self, visitor, node: int, prefix: str, special_hook) -> None:
        """What follows node ``node``'s move: the special move ending its line, its comment (the
        time ``prefix`` and the comment lines after it)."""
        if special_hook is not None and node in self.specials:
            special_hook(*self.specials[node])
        text = "\n".join(self.comments.pop(node, ()))
        comment = prefix + (" " + text if prefix and text else text)
        if comment:
            visitor.visit_comment(comment)

    def walk(self, visitor, game: Game, tree: MoveTree) -> None:
        """The moves of ``tree`` depth-first, on one board pushed and popped (iterative: a record
        may nest thousands of 変化 blocks)."""
        time_hook = getattr(visitor, "visit_kif_time", None)
        special_hook = getattr(visitor, "visit_kif_special", None)
        index, starting = self.index, self.starting
        first_turn = first_mover(game)
        board = game.start_board()
        stack: list = []  # [node read before its variations, the variation read, plies, totals before, after]
        totals = (0, 0)  # the running totals of the time column, Sente's and Gote's
        node = tree.root
        while True:
            if node >= 0:
                it, _ = self.move_item(index, tree.items[node])
                if node in starting:
                    visitor.visit_comment(starting[node], True)
                before = totals
                colour = (len(board.move_stack) + first_turn) % 2
                totals, prefix = self.give_move(visitor, board, tree.moves[node], it, totals, colour, time_hook)
                self.give_notes(visitor, node, prefix, special_hook)
                alternative = tree.next[node] if tree.is_first_child(node) else -1
                if alternative >= 0:
                    stack.append([node, alternative, len(board.move_stack), before, totals])
                    visitor.begin_variation()
                    node, totals = alternative, before
                    continue
                board.push(tree.moves[node])
                node = tree.first[node]
                continue
            if not stack:
                return
            frame = stack[-1]
            while len(board.move_stack) > frame[2]:
                board.pop()
            visitor.end_variation()
            alternative = tree.next[frame[1]]
            if alternative >= 0:
                frame[1] = alternative
                visitor.begin_variation()
                node, totals = alternative, frame[3]
                continue
            stack.pop()
            board.push(tree.moves[frame[0]])
            node, totals = tree.first[frame[0]], frame[4]


def _branch_points(index: LineIndex, board: Board) -> tuple[set, dict]:
    """(the plies that 変化 blocks branch after, node -> position, the start's so far): the
    positions of the nodes that variations may branch from are kept, so that a variation does not
    replay its whole path (a record may hold thousands of 変化 blocks)."""
    variation = KIND_CODE["variation"]
    kinds = index.kinds
    targets = {index.number(k) - 1 for k in range(len(kinds)) if kinds[k] == variation}
    return targets, ({ROOT: board.position()} if targets else {})


def _parse_made(text: str, mover: int):
    """(Termination or None, result or None) from the text after まで N手."""
    text = text.lstrip("で").strip(SPACE)
    m = re.search(r"(先手|下手|後手|上手)の(勝ち|反則勝ち|反則負け|入玉勝ち|宣言勝ち|負け)", text)
    if m:
        side = 0 if m.group(1) in ("先手", "下手") else 1
        what = m.group(2)
        won = what in ("勝ち", "反則勝ち", "入玉勝ち", "宣言勝ち")
        winner = side if won else side ^ 1
        result = "1-0" if winner == 0 else "0-1"
        if "反則" in what:
            return "illegal-move", result
        if what in ("入玉勝ち", "宣言勝ち"):
            return "impasse", result
        if "時間切れ" in text or "切れ負け" in text:
            return "time-forfeit", result
        return None, result
    for word, termination, result in (("千日手", "repetition", "1/2-1/2"), ("持将棋", "impasse", "1/2-1/2"),
                                      ("中断", "abandoned", "*"), ("封じ手", "sealed", "*"),
                                      ("不詰", "unterminated", "*"), ("引き分け", None, "1/2-1/2")):
        if word in text:
            return termination, result
    if text.startswith("詰"):
        # the side that made the last move mated the side to move
        return "checkmate", "1-0" if mover == 1 else "0-1"
    return None, None


def read_kif(data: object, *, source: str | None = None, variant: str | Variant | None = None,
             lenient: bool = False, variants: VariantRegistry | None = None, visitor=None) -> list:
    """Read a KIF file (bytes or text; anything else raises KifError) into a list of games (a KIF
    file holds one game).

    ``variant`` names the variant when the file does not (a ``変種：`` line); by default shogi, or
    Chu Shogi for a record with a 12-rank diagram or lishogi's Chu move lines.
    Names are looked up in ``variants`` (default: the bundled variants and ``DAIKIFU_VARIANTS``).
    Problems are recorded in ``game.errors`` (see the module documentation); input that is not KIF
    raises :class:`KifError`.  No other exception escapes.

    ``visitor`` (a :class:`formats.visitor.Visitor`, class or instance) is given the game instead, as
    LSN's reader gives one: the tags (``Variant``, and ``RuleSet`` and ``SFEN`` when they are not
    the variant's), the moves depth-first with the board before each (a 変化 block right after the
    move it replaces), comments, the result, the problems; the list then holds what its
    ``end_game`` returns.  The record is held in a few bytes a line while it is read, and no
    move tree is built unless the visitor builds one.  A record without 変化 blocks is read in one
    pass, each move given to the visitor as it is replayed; a game builder that only collects the
    tags (as :class:`KifGameBuilder` does) may then be given those only the replay tells,
    ``Termination`` and ``ImportStatus``, after the moves, and the builders whose ``visit_move``
    does not look at the board are given None for it:

    >>> from daikifu.formats.visitor import Visitor
    >>> class Plies(Visitor):
    ...     def begin_game(self, number, line):
    ...         self.plies = []
    ...     def visit_move(self, board, move, notation, line, column):
    ...         self.plies.append((board.ply + 1, notation))
    ...     def end_game(self, source, offset):
    ...         return self.plies
    >>> read_kif("手数----指手--\\n1 ７六歩(77)\\n2 ３四歩(33)\\n\\n変化：2手\\n2 ８四歩(83)\\n", visitor=Plies)
    [[(1, '７六歩(77)'), (2, '３四歩(33)'), (2, '８四歩(83)')]]
    """
    return read_with(KifReader, "KIF", data, source, variant, lenient, variants, visitor)


def read_with(reader: type, title: str, data: object, source, variant, lenient: bool, variants,
              visitor=None) -> list:
    """The one game of a KIF-family record read by ``reader`` (:class:`KifReader` or KI2's) and
    given to ``visitor`` (see :func:`read_kif`): bytes decoded by the pipeline's policy, and no
    exception but :class:`KifError` escaping."""
    if not isinstance(data, (bytes, str)):
        raise KifError(GameError(f"not a {title} record: bytes or text expected, not {type(data).__name__}",
                                 file=source))
    try:
        text, _encoding, replaced = decode(data)
        return [reader(text, source, variant, lenient, replaced, variants).read(visitor)]
    except KifError:
        raise
    except RecursionError as exc:  # pragma: no cover - the reader does not recurse
        raise KifError(GameError(f"record too deeply nested: {exc}", file=source)) from exc
    except Exception as exc:  # pragma: no cover - a bug: report it as a reading error, never crash
        raise KifError(GameError(f"internal error while reading {title}: {exc!r}", file=source)) from exc
