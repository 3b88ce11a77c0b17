"""The KIF writer (:func:`write_kif`); the KI2 writer shares it (:mod:`.ki2_writer`).
"""

from __future__ import annotations

import codecs
import re

from daikifu.replay import Board, Move
from daikifu.replay.squares import square

from ..evals import with_eval
from ..game import Game, GameError, GameNode
from .common import (DRAW, HANDICAP_ALIASES, HANDICAPS, LISHOGI_12X12, LOSS, NONE, RE_PGN_DATE, SPACE, SPECIAL_FOR,
                     SPECIALS, WIN, KifError, first_mover, full_width, kanji_number, kif_date, result_for, text_width,
                     time_of)
from .style import Style


def _time_text(secs: int, total: int) -> str:
    m, s = divmod(secs, 60)
    th, rest = divmod(total, 3600)
    tm, ts = divmod(rest, 60)
    return f"({m:>2}:{s:02d}/{th:02d}:{tm:02d}:{ts:02d})"


def comment_lines(text: str) -> list[str]:
    if not text:
        return []
    return ["*" + line for line in re.split(r"\r\n|\r|\n", text)]


class KifWriter:
    def __init__(self, game: Game):
        self.game = game
        self.style = Style.of(game)
        self.out: list[str] = []
        rules = game.rules
        self.start = game.start or rules.start
        handicap = game.headers.get("Handicap")
        name = handicap.strip(SPACE) if handicap else None
        name = HANDICAP_ALIASES.get(name, name) if name else None
        self.handicap_game = bool(self.style.shogi and name in HANDICAPS and name != "平手")
        board_of = Board(rules, self.start).position()
        self.custom = board_of != Board(rules, rules.start).position()
        if self.style.shogi and name is not None:
            # 手合割 names the start when it is a known handicap with this very position
            known = HANDICAPS.get(name)
            self.custom = known is None or Board(rules, known).position() != board_of
        self.sente_word = "下手" if self.handicap_game else "先手"
        self.gote_word = "上手" if self.handicap_game else "後手"

    def write(self, encoding_name: str) -> str:
        self.write_preamble(f"#KIF version=2.0 encoding={encoding_name}")
        self.out.append("手数----指手---------消費時間--")
        self.out.extend(comment_lines(with_eval(self.game)))
        self.write_tree()
        return "\n".join(self.out) + "\n"

    def write_preamble(self, first_line: str) -> None:
        """The first line, the variant, the headers and the start position (KIF and KI2 alike)."""
        game = self.game
        out = self.out
        out.append(first_line)
        style = self.style
        defaults = game.variant.resolve_options(None) if game.variant.options else {}
        changed = [f"{k}={v}" for k, v in game.options.items() if defaults.get(k) != v]
        # lishogi writes no variant line: its 12-rank diagram or its moves say Chu Shogi
        implied = style.lishogi and game.variant.slug == LISHOGI_12X12 and not changed
        if not style.shogi and not implied:
            out.append(f"変種：{game.variant.slug}")
            if changed:
                out.append("変種オプション：" + " ".join(changed))
        self.write_headers()
        # a Chu game with no move has no move to tell the variant: the diagram tells it
        # (and lishogi, which knows no options, sees a setup option's start only in the diagram)
        if self.custom or self.start.split()[-1] != "1" or (implied and not game.variations) or (
                style.lishogi and changed):
            position = Board(game.rules, self.start).position()
            if style.lishogi and style.diagram:
                self.write_lishogi_diagram()
            elif style.diagram:
                self.write_diagram()
            if not style.diagram or position.split()[-1] != "1":
                # a diagram does not carry the move number: the position string does
                out.append(f"初期局面：{position}")

    def ending_tells_termination(self) -> bool:
        """Whether the main line's end as written (its special move) gives the game's Termination
        back to the reader; else the writer keeps the tag as a ``Termination：`` header line."""
        game = self.game
        termination = game.headers.get("Termination")
        if not termination:
            return True
        plies = sum(1 for _ in game.mainline_moves())
        mover = (first_mover(game) + plies) % 2
        result = game.result if game.result in ("1-0", "0-1", "1/2-1/2", "*") else "*"
        return SPECIAL_FOR.get((termination, _relation(result, mover))) is not None

    def write_headers(self) -> None:
        game = self.game
        items = game.headers.items()
        names = [k for k, _ in items]
        # 開始日時 as read (KIF's KifStartTime; JKF's readers keep the key's own name)
        has_start_time = "KifStartTime" in names or "開始日時" in names
        for name, value in items:
            if name in ("Variant", "Result") or name == "Termination" and self.ending_tells_termination():
                continue
            if name == "Date":
                if has_start_time:
                    continue
                # 開始日時 holds a date the reader writes as PGN does (2024.05.06): a Date tag in
                # another shape keeps its own name, so that it comes back as it was
                key, value = ("開始日時", kif_date(value)) if RE_PGN_DATE.match(value) else ("Date", value)
            elif name in ("KifStartTime", "開始日時"):
                key = "開始日時"
            elif name == "Sente":
                key = self.sente_word
            elif name == "Gote":
                key = self.gote_word
            elif name == "Event":
                key = "棋戦"
            elif name == "Site":
                key = "場所"
            elif name == "Handicap":
                # lishogi reads 手合割 as the start of a Chu game, and knows no other name than
                # 平手 there: the tag (the Chu Shogi server's EVEN ...) keeps its own name
                key = "Handicap" if self.style.lishogi else "手合割"
            else:
                key = name
            for part in re.split(r"\r\n|\r|\n", value):
                self.out.append(f"{key}：{part}")

    def write_diagram(self) -> None:
        style = self.style
        board = Board(self.game.rules, self.start)
        files, ranks = style.files, style.ranks

        def hand(colour):
            return self.hand_text(board, colour)

        out = self.out
        width = style.cell  # kanji a cell holds: 1 for shogi, 2 for names such as 成角 or 獅子
        out.append(f"{self.gote_word}の持駒：{hand(1)}")
        out.append(" " + "".join(full_width(files - f).rjust(2 * width + 1 - len(full_width(files - f)))
                                 for f in range(files)))
        out.append("+" + "-" * (files * (2 * width + 1)) + "+")
        for r in range(ranks - 1, -1, -1):
            cells = []
            for f in range(files):
                p = board.piece_at(square(f, r))
                name = "・" if p is None else style.piece_name(p.id, in_move=False)
                mark = "v" if p is not None and p.colour else " "
                cells.append(mark + "\u3000" * (width - len(name)) + name)
            out.append("|" + "".join(cells) + "|" + kanji_number(ranks - r))
        out.append("+" + "-" * (files * (2 * width + 1)) + "+")
        out.append(f"{self.sente_word}の持駒：{hand(0)}")
        if board.turn == 1:
            out.append(f"{self.gote_word}番")
        else:
            out.append(f"{self.sente_word}番")

    def write_lishogi_diagram(self) -> None:
        """The start as lishogi draws it: full-width file numbers, cells three characters wide
        (``  ・``, `` v獅``, ``v成獅``), kanji ranks, the side to move only when it is Gote, pieces
        in hand only for a variant with drops."""
        style = self.style
        board = Board(self.game.rules, self.start)
        files, ranks = style.files, style.ranks
        out = self.out
        if board.rules.drops:
            out.append(f"{self.gote_word}の持駒：{self.hand_text(board, 1)}")
        out.append((" " + " ".join(full_width(files - f).ljust(2) for f in range(files))).rstrip())
        border = "+" + "-" * (files * 4) + "+"
        out.append(border)
        for r in range(ranks - 1, -1, -1):
            cells = []
            for f in range(files):
                p = board.piece_at(square(f, r))
                cells.append("・".rjust(3) if p is None else (("v" if p.colour else "") + style.kanji[p.id]).rjust(3))
            out.append("|" + "".join(cells) + "|" + kanji_number(ranks - r))
        out.append(border)
        if board.rules.drops:
            out.append(f"{self.sente_word}の持駒：{self.hand_text(board, 0)}")
        if board.turn == 1:
            out.append(f"{self.gote_word}番")

    def hand_text(self, board: Board, colour: int) -> str:
        held = board.hand(colour)
        if not held:
            return "なし"
        parts = []
        for p in self.game.variant.pieces:
            n = held.get(p.id, 0)
            if n:
                parts.append(self.style.piece_name(p.id, in_move=False) + (kanji_number(n) if n > 1 else ""))
        return "　".join(parts) + "　"

    def write_tree(self) -> None:
        game = self.game
        work = [(game.variations[0], True)] if game.variations else []
        if not game.variations:
            self.write_end(game, Board(game.rules, self.start), True, [0, 0])
        while work:
            first, is_main = work.pop()
            nodes = self.write_line(first, is_main)
            alts = []
            for node in reversed(nodes if is_main else nodes[1:]):
                alts.extend(node.parent.variations[1:])
            work.extend((alt, False) for alt in reversed(alts))

    def line_start(self, first: GameNode, is_main: bool):
        """(board, running time totals, ply) where the line of ``first`` branches off; writes the
        変化 line of a variation and the comment before its first move."""
        board = Board(self.game.rules, self.start)
        totals = [0, 0]
        path = []
        node = first.parent
        while node.parent is not None:
            path.append(node)
            node = node.parent
        for node in reversed(path):  # the position and the running time totals at the branch
            self.add_time(node, board.turn, totals)
            board.push(node.move)
        ply = len(path)
        if not is_main:
            self.out.append("")
            self.out.append(f"変化：{ply + 1}手")
        self.out.extend(comment_lines(first.starting_comment))  # on the main line: read as the game's
        return board, totals, ply

    def write_line(self, first: GameNode, is_main: bool) -> list:
        out = self.out
        board, totals, ply = self.line_start(first, is_main)
        nodes = []
        node = first
        while node is not None:
            ply += 1
            move = node.move
            prev_to = node.parent.move.to_square if node.parent.move is not None else None
            try:
                reason = board.illegal_reason(move)
            except (KeyError, IndexError, TypeError, AttributeError) as exc:
                reason = repr(exc)
            if reason is not None:
                raise KifError(GameError(f"cannot write an illegal move: {reason}", ply=ply, move=str(move)))
            time = time_of(node.comment)
            comment = node.comment
            if self.style.lishogi:
                self.write_lishogi_move(board, move, prev_to, ply, time, totals)
                board.push(move)
                out.extend(comment_lines(with_eval(node, time[2] if time is not None else comment)))
                nodes.append(node)
                node = node.next()
                continue
            text = self.style.move_text(board, move, prev_to)
            line = f"{ply:>4} {text}"
            if time is not None:
                secs, total, comment = time
                colour = board.turn
                totals[colour] = total if total is not None else totals[colour] + secs
                line += " " * max(1, 13 - text_width(text)) + _time_text(secs, totals[colour])
            siblings = node.parent.variations
            if siblings[-1] is not node:  # Kifu for Windows' mark: more variations of this ply follow
                line += "+" if time is not None else " " * max(1, 13 - text_width(text)) + "+"
            out.append(line)
            board.push(move)
            out.extend(comment_lines(with_eval(node, comment)))
            nodes.append(node)
            node = node.next()
        self.write_end(nodes[-1], board, is_main, totals)
        return nodes

    def write_lishogi_move(self, board: Board, move: Move, prev_to, ply: int, time, totals) -> None:
        """``   5手目   7八歩兵 （←7九）``, or a Lion's two steps ``   5手目一歩目 ...`` and
        ``   5手目二歩目 ...``, with lishogi's time column ``   (00:05/00:00:12)`` on the last line."""
        steps = self.style.lishogi_steps(board, move, prev_to)
        for k, (label, text) in enumerate(steps):
            line = f"{ply:>4}手目" + (f"{label} " if label else "   ") + text
            if time is not None and k == len(steps) - 1:
                secs, total, _ = time
                colour = board.turn
                totals[colour] = total if total is not None else totals[colour] + secs
                minutes, seconds = divmod(secs, 60)
                hours, rest = divmod(totals[colour], 3600)
                line += f"   ({minutes:02d}:{seconds:02d}/{hours:02d}:{rest // 60:02d}:{rest % 60:02d})"
            self.out.append(line)

    @staticmethod
    def add_time(node, colour, totals) -> None:
        time = time_of(node.comment)
        if time is not None:
            secs, total, _ = time
            totals[colour] = total if total is not None else totals[colour] + secs

    def write_end(self, last: GameNode, board: Board, is_main: bool, totals=None) -> None:
        """The special move and まで line that end a line of play."""
        word, result, stored = self.ending(last, board, is_main)
        mover = board.turn
        n = board.ply
        if word is not None:
            line = f"{n + 1:>4}手目   {word}" if self.style.lishogi else f"{n + 1:>4} {word}"
            secs = stored[1] if stored and stored[0] in SPECIALS and SPECIALS[stored[0]] == SPECIALS[word] else None
            if secs is not None and totals is not None:
                totals = list(totals)
                totals[mover] += secs
                line += " " * max(1, 13 - text_width(word)) + _time_text(secs, totals[mover])
            self.out.append(line)
        made = self.made_line(word, result, n, mover)
        if made:
            self.out.append(made)

    def ending(self, last: GameNode, board: Board, is_main: bool):
        """(special word or None, result, the special as read) that end a line of play."""
        game = self.game
        mover = board.turn
        stored = getattr(last, "kif_special", None)
        word = None
        if is_main:
            termination = game.headers.get("Termination")
            result = game.result if game.result in ("1-0", "0-1", "1/2-1/2", "*") else "*"
            relation = _relation(result, mover)
            if termination:
                word = SPECIAL_FOR.get((termination, relation))
        else:
            result = None
            if stored:
                word = stored[0] if stored[0] in SPECIALS else None
                if word:
                    relation = SPECIALS[word][1]
                    result = result_for(relation, mover)
                    word = SPECIAL_FOR.get(SPECIALS[word], word)
        return word, result, stored

    def made_line(self, word, result, n, mover) -> str | None:
        side = {0: self.sente_word, 1: self.gote_word}
        if word is None:
            if result == "1-0":
                return f"まで{n}手で{side[0]}の勝ち"
            if result == "0-1":
                return f"まで{n}手で{side[1]}の勝ち"
            if result == "1/2-1/2":
                return f"まで{n}手で引き分け"
            return None
        if word in ("投了",):
            winner = mover ^ 1
            return f"まで{n}手で{side[winner]}の勝ち"
        if word == "詰み":
            return f"まで{n}手で詰み"
        if word == "切れ負け":
            return f"まで{n}手で時間切れにより{side[mover ^ 1]}の勝ち"
        if word in ("反則勝ち", "反則負け", "入玉勝ち"):
            return f"まで{n}手で{side[mover]}の{word}"
        return f"まで{n}手で{word}"


def _relation(result: str, mover: int) -> str:
    if result == "1/2-1/2":
        return DRAW
    if result == "*":
        return NONE
    winner = 0 if result == "1-0" else 1
    return WIN if winner == mover else LOSS


def write_kif(game: Game, encoding: str = "utf-8", *, newline: str | None = None,
              errors: str = "strict") -> bytes:
    """The game as KIF bytes.

    ``encoding`` is ``"utf-8"`` (``.kifu``) or ``"cp932"`` (Shift_JIS, ``.kif``); ``newline`` defaults
    to CRLF for cp932 and LF for UTF-8.  Text that cp932 cannot encode raises :class:`KifError`
    unless ``errors="replace"`` (then it becomes ``?``).
    """
    return write_with(KifWriter, game, encoding, newline, errors)


def write_with(writer, game: Game, encoding: str, newline: str | None, errors: str) -> bytes:
    """The text ``writer`` (KIF's or KI2's) writes for ``game``, encoded (see :func:`write_kif`)."""
    enc = encoding.lower().replace("_", "-")
    if enc in ("utf-8", "utf8", "utf-8-sig"):
        codec, declared, default_nl = "utf-8", "UTF-8", "\n"
    elif enc in ("cp932", "shift-jis", "sjis", "shift-jis-2004", "ms932", "windows-31j"):
        codec, declared, default_nl = "cp932", "Shift_JIS", "\r\n"
    else:
        raise KifError(f"KIF and KI2 are written in utf-8 or cp932, not {encoding!r}")
    if not game.variant.playable:
        raise KifError(f"{game.variant.name} is not playable: its moves cannot be written")
    text = writer(game).write(declared)
    nl = default_nl if newline is None else newline
    if nl != "\n":
        text = text.replace("\n", nl)
    try:
        data = text.encode(codec, errors=errors)
    except UnicodeEncodeError as exc:
        bad = exc.object[exc.start:exc.end]
        line = exc.object.count(nl, 0, exc.start) + 1
        raise KifError(GameError(f"{bad!r} cannot be written in {codec} (use utf-8, or errors='replace')",
                                 line=line)) from exc
    if enc == "utf-8-sig":
        data = codecs.BOM_UTF8 + data
    return data
