"""A KIF or KI2 record without 変化 blocks is read in one pass: each move is given to the visitor
while it is replayed, and no move tree is built.  Whatever the record, what a reader gives must be
exactly what the general path (the tree, then the moves depth-first) gives: the game the default
builder builds (tags, moves, comments, times, endings, places), the problems, the visitor's calls
in their order, and the records and verdicts built without a tree."""

from __future__ import annotations

from pathlib import Path

import pytest

from daikifu.archive.importer import _Reading, _RecordBuilder, _whole_records
from daikifu.archive.store import Record
from daikifu.formats.kakinoki import kif_visitor
from daikifu.formats.kakinoki import lines as kif_lines
from daikifu.formats.kakinoki.reader import KifReader
from daikifu.formats.ki2 import read_ki2
from daikifu.formats.kif import KifError, KifGameBuilder, read_kif
from daikifu.formats.visitor import MainLineBuilder, Visitor
from daikifu.formats.validate import verdicts

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted(p for folder in (ROOT / "data" / "sample", ROOT / "tests" / "data" / "real")
               for p in folder.rglob("*") if p.suffix in (".kif", ".kifu", ".ki2", ".ki2u"))

GAME = """手合割：平手
先手：Sente
後手：Gote
手数----指手---------消費時間--
*before the first move
   1 ７六歩(77)   ( 0:05/00:00:05)
*first
*first again
   2 ３四歩(33)   ( 0:07/00:00:07)
   3 ２六歩(27)   ( 1:03/00:01:08)
   4 ８四歩(83)   ( 0:02/00:00:30)
*the total is not the sum
   5 投了         ( 0:10/00:01:18)
*after the ending
まで4手で後手の勝ち
"""
ILLEGAL = GAME.replace("２六歩(27)", "２五歩(27)")  # two squares: illegal, with an ending claimed
ILLEGAL_UNCLAIMED = "手数----指手--\n1 ７六歩(77)\n2 ３四歩(33)\n3 ２五歩(27)\n*after\n"
UNREADABLE = GAME.replace("２六歩(27)", "２六金(27)")  # the piece on 27 is no gold
# the ending first: no move is played; comments after it belong to the start
ENDING_FIRST = "手数----指手---------消費時間--\n*one\n   1 中断\n*two\n"
MOVE_AFTER_END = GAME.replace("*after the ending\n", "*after the ending\n   6 ５六歩(57)\n*lost\n")
# the silvers' kings stepping to and fro: the start comes back after plies 4, 8 and 12
CYCLE = ["５八玉(59)", "５二玉(51)", "５九玉(58)", "５一玉(52)"] * 3
REPETITION = "手数----指手--\n" + "".join(f"{n + 1} {m}\n" for n, m in enumerate(CYCLE)) + "13 千日手\n"
SHORT_REPETITION = "手数----指手--\n" + "".join(f"{n + 1} {m}\n" for n, m in enumerate(CYCLE[:8])) + "9 千日手\n"
FALSE_MATE = "手数----指手--\n1 ７六歩(77)\n2 詰み\nまで1手で詰み\n"
ODDITIES = """#KIF version=2.0 encoding=UTF-8
手合割：平手
ImportStatus：as written
手数----指手---------消費時間--
   1 ７六歩(77)   ( 0:75/00:00:05)
   3 ３四歩(33)
what is this line?
|・|
終了日時：2024/01/02
   3 ２六歩(27)
"""
NO_MOVES = "手合割：平手\n先手：A\n*only a comment\n"
DEAD = "手合割：百枚落ち\n手数----指手--\n1 ７六歩(77)\n2 投了\n"
RESULT_ONLY = "手数----指手--\n1 ７六歩(77)\n2 ３四歩(33)\nまで2手で先手の勝ち\n"
KI2 = """手合割：平手
*before
▲７六歩    △３四歩    ▲２六歩    △８四歩
*a comment
▲２五歩    △８五歩    ▲７八金    △３二金
▲２四歩    △同　歩    ▲同　飛    △２三歩打
まで12手で中断
"""
KI2_BAD = KI2.replace("△８五歩", "△８六歩")
TEXTS = {"game": GAME, "illegal": ILLEGAL, "illegal-unclaimed": ILLEGAL_UNCLAIMED, "unreadable": UNREADABLE, "ending-first": ENDING_FIRST,
         "move-after-end": MOVE_AFTER_END, "repetition": REPETITION, "short-repetition": SHORT_REPETITION,
         "false-mate": FALSE_MATE, "oddities": ODDITIES, "no-moves": NO_MOVES, "dead": DEAD,
         "result-only": RESULT_ONLY, "undecodable": GAME.encode("cp932").replace("Sente".encode(), b"\xff\xfe")}
KI2_TEXTS = {"ki2": KI2, "ki2-bad": KI2_BAD}
CASES = [(name, read_kif, data) for name, data in TEXTS.items()] + \
        [(name, read_ki2, data) for name, data in KI2_TEXTS.items()] + \
        [(str(p.relative_to(ROOT)), read_ki2 if p.suffix.startswith(".ki2") else read_kif, p.read_bytes())
         for p in FILES]


@pytest.fixture
def one_pass(monkeypatch):
    """Counts the readings in one pass."""
    taken = []
    original = KifReader.read_in_one_pass

    def counted(self, *args):
        taken.append(self)
        return original(self, *args)

    monkeypatch.setattr(KifReader, "read_in_one_pass", counted)
    return taken


def _general(monkeypatch, read, *args, **kwargs):
    """``read(*args, **kwargs)`` with the general path forced."""
    with monkeypatch.context() as m:
        m.setattr(KifReader, "in_one_pass", lambda self, index, visitor, tags: False)
        return read(*args, **kwargs)


def _node_facts(node) -> tuple:
    return (str(node.move), node.notation, node.comment, node.starting_comment, list(node.nags),
            getattr(node, "kif_time", None), getattr(node, "kif_special", None), node.source_line,
            node.source_column)


def _facts(game) -> list:
    """Everything a game read from a record holds, its whole tree in order."""
    out = [game.variant.slug, game.options, game.start, list(game.headers.items()), game.result, game.comment,
           getattr(game, "kif_special", None), game.source_file, game.number, game.source_line, game.valid,
           [e.as_dict() for e in game.errors]]
    work = [(game, 0)]
    while work:
        node, depth = work.pop()
        if node is not game:
            out.append((depth, _node_facts(node)))
        work.extend((child, depth + 1) for child in reversed(node.variations))
    return out


def _names(cases):
    return [c[0] for c in cases]


@pytest.mark.parametrize("lenient", [False, True], ids=["strict", "lenient"])
@pytest.mark.parametrize("name,read,data", CASES, ids=_names(CASES))
def test_the_default_builder_builds_the_same_game_in_one_pass(name, read, data, lenient, monkeypatch):
    try:
        expected = [_facts(g) for g in _general(monkeypatch, read, data, source=name, lenient=lenient)]
    except KifError as exc:
        with pytest.raises(KifError) as again:
            read(data, source=name, lenient=lenient)
        assert str(again.value) == str(exc)
        return
    assert [_facts(g) for g in read(data, source=name, lenient=lenient)] == expected


def test_most_records_are_read_in_one_pass(one_pass):
    taken = 0
    for name, read, data in CASES:
        del one_pass[:]
        try:
            games = read(data, source=name)
        except KifError:
            continue
        has_variations = any(len(n.variations) > 1 for g in games for n in _nodes(g))
        assert not (one_pass and has_variations), name
        taken += bool(one_pass)
    assert taken >= len(CASES) * 2 // 3


def _nodes(game):
    work = [game]
    while work:
        node = work.pop()
        yield node
        work.extend(node.variations)


class Events(Visitor):
    """Every call, in order."""

    def begin_game(self, number, line):
        self.events = [("begin_game", number, line)]

    def visit_header(self, name, value):
        self.events.append(("header", name, value))

    def end_headers(self):
        self.events.append(("end_headers",))

    def visit_move(self, board, move, notation, line, column):
        self.events.append(("move", board.zobrist, len(board.move_stack), str(move), notation, line, column))

    def visit_comment(self, text, before_first_move=False):
        self.events.append(("comment", text, before_first_move))

    def visit_kif_time(self, time):
        self.events.append(("time", time))

    def visit_kif_special(self, word, seconds):
        self.events.append(("special", word, seconds))

    def begin_variation(self):
        self.events.append(("begin_variation",))

    def end_variation(self):
        self.events.append(("end_variation",))

    def visit_result(self, result):
        self.events.append(("result", result))

    def visit_error(self, error):
        self.events.append(("error", error.as_dict()))

    def end_game(self, source, offset):
        self.events.append(("end_game", offset))
        return self.events


class Skipping(Events):
    def end_headers(self):
        super().end_headers()
        return Visitor.SKIP


class BuilderEvents(KifGameBuilder):
    """A KIF builder that only collects the tags (the one pass may give it those the replay tells
    after the moves) and records its other calls."""

    def begin_game(self, number, line):
        super().begin_game(number, line)
        self.events = []

    def visit_move(self, board, move, notation, line, column):
        self.events.append(("move", board.zobrist, str(move), notation, line, column))
        super().visit_move(board, move, notation, line, column)

    def visit_comment(self, text, before_first_move=False):
        self.events.append(("comment", text, before_first_move))
        super().visit_comment(text, before_first_move)

    def visit_kif_time(self, time):
        self.events.append(("time", time))
        super().visit_kif_time(time)

    def visit_kif_special(self, word, seconds):
        self.events.append(("special", word, seconds))
        super().visit_kif_special(word, seconds)

    def visit_result(self, result):
        self.events.append(("result", result))
        super().visit_result(result)

    def end_game(self, source, offset):
        game = super().end_game(source, offset)
        return self.events, list(self.headers), _facts(game)


@pytest.mark.parametrize("lenient", [False, True], ids=["strict", "lenient"])
@pytest.mark.parametrize("visitor", [Events, Skipping, BuilderEvents])
@pytest.mark.parametrize("name,read,data", CASES, ids=_names(CASES))
def test_a_visitor_is_given_the_same_calls_in_one_pass(name, read, data, visitor, lenient, monkeypatch):
    try:
        expected = _general(monkeypatch, read, data, source=name, lenient=lenient, visitor=visitor)
    except KifError:
        return
    assert read(data, source=name, lenient=lenient, visitor=visitor) == expected


def test_a_visitor_that_is_no_builder_waits_for_the_tags_the_replay_tells(monkeypatch, one_pass):
    # an ending is claimed: whether the replay reaches it (Termination) is known only at the end
    (events,) = read_kif(ILLEGAL, visitor=Events)
    assert not one_pass and ("header", "Termination", "resignation") not in events
    (events,) = read_kif(GAME, visitor=Events)
    assert events.index(("header", "Termination", "resignation")) < events.index(("end_headers",))
    # nothing claimed, strict: the tags are known before the replay
    (events,) = read_kif(GAME.replace("   5 投了", "*").replace("まで4手で後手の勝ち", ""), visitor=Events)
    assert one_pass and [e for e in events if e[0] == "move"][-1][4] == "８四歩(83)"


def test_a_builder_that_reads_the_tags_is_given_them_before_the_moves(one_pass):
    class Looking(KifGameBuilder):
        def visit_header(self, name, value):
            super().visit_header(name, value)
            self.last = name

        def end_game(self, source, offset):
            return self.last

    assert read_kif(GAME, visitor=Looking) == ["Termination"] and not one_pass


@pytest.mark.parametrize("lenient", [False, True], ids=["strict", "lenient"])
@pytest.mark.parametrize("name,read,data", [c for c in CASES if not isinstance(c[2], str)], ids=_names(
    [c for c in CASES if not isinstance(c[2], str)]))
def test_records_and_verdicts_without_a_tree_are_the_same_in_one_pass(name, read, data, lenient, monkeypatch):
    fmt = "ki2" if read is read_ki2 else "kif"
    how = _Reading(lenient=lenient)

    def records():
        return [{f: getattr(r, f) for f in Record.__slots__} for r in _whole_records([data], name, fmt, how)]

    def judged():
        return list(verdicts(data, name, lenient=lenient))

    assert records() == _general(monkeypatch, records)
    assert judged() == _general(monkeypatch, judged)
    main_line = [g.mainline_plies for g in read(data, source=name, lenient=lenient, visitor=_kif_main_line())]
    assert main_line == _general(monkeypatch, lambda: [g.mainline_plies for g in read(
        data, source=name, lenient=lenient, visitor=_kif_main_line())])


def _kif_main_line():
    return kif_visitor(MainLineBuilder)


def test_the_builders_of_the_commands_are_read_in_one_pass(one_pass):
    for builder in (kif_visitor(MainLineBuilder), kif_visitor(_RecordBuilder), KifGameBuilder, None):
        del one_pass[:]
        read_kif(GAME, visitor=builder)
        assert one_pass, builder


@pytest.mark.parametrize("name,read,data", CASES, ids=_names(CASES))
def test_items_made_again_from_their_lines_read_as_those_kept(name, read, data, monkeypatch):
    # a record longer than the items kept is read partly from its lines again (on both paths)
    try:
        expected = [_facts(g) for g in read(data, source=name, lenient=True)]
    except KifError:
        return
    events = read(data, source=name, lenient=True, visitor=Events)
    monkeypatch.setattr(kif_lines, "KEPT_ITEMS", 3)
    assert [_facts(g) for g in read(data, source=name, lenient=True)] == expected
    assert read(data, source=name, lenient=True, visitor=Events) == events
