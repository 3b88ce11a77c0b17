"""The KIF and KI2 readers give a game to a visitor (formats/lsn.py's protocol) as LSN's reader
does: tags, then the moves depth-first with the board before each move (each 変化 block right
after the move it replaces, although KIF writes it after the main line), comments, the result,
the problems, ``end_game``.  The default builder gives the game ``read_kif`` always gave."""

from __future__ import annotations

import tracemalloc

import pytest

from daikifu.formats.ki2 import read_ki2
from daikifu.formats.kif import KifGameBuilder, read_kif, write_kif
from daikifu.formats.visitor import GameBuilder, Visitor

# main line 1-4; 変化：2手 (two moves); inside it 変化：3手 twice (the second an alternative to the
# first: the most recent line covering ply 3 is the first 変化：3手); last 変化：1手, written after
# everything although it replaces the first move
TREE = """手合割：平手
手数----指手---------消費時間--
*before the first move
   1 ７六歩(77)   ( 0:05/00:00:05)
   2 ３四歩(33)   ( 0:07/00:00:07)
*main two
   3 ２六歩(27)   ( 0:03/00:00:08)
   4 ８四歩(83)   ( 0:02/00:00:09)
   5 投了         ( 0:10/00:00:18)
まで4手で後手の勝ち

変化：2手
*before the variation
   2 ８四歩(83)
   3 ２六歩(27)

変化：3手
   3 ６八銀(79)

変化：3手
   3 ５六歩(57)
*fifth

変化：1手
   1 ２六歩(27)
"""


class Events(Visitor):
    """Every call, as (name, arguments); a move as (ply, notation), checked legal on the board given."""

    def begin_game(self, number, line):
        self.events = [("begin_game", number, line)]
        self.skip = False

    def visit_header(self, name, value):
        self.events.append(("header", name, value))

    def end_headers(self):
        self.events.append(("end_headers",))
        return Visitor.SKIP if self.skip else None

    def visit_move(self, board, move, notation, line, column):
        assert board.illegal_reason(move) is None, (board.position(), move)
        self.events.append(("move", board.ply + 1, notation, line, column))

    def visit_comment(self, text, before_first_move=False):
        self.events.append(("comment", text, before_first_move))

    def begin_variation(self):
        self.events.append(("begin_variation",))

    def end_variation(self):
        self.events.append(("end_variation",))

    def visit_result(self, result):
        self.events.append(("result", result))

    def visit_error(self, error):
        self.events.append(("error", error.kind, error.line, error.message))

    def end_game(self, source, offset):
        self.events.append(("end_game", offset))
        return self.events


def test_the_moves_come_depth_first_with_each_variation_after_the_move_it_replaces():
    (events,) = read_kif(TREE, visitor=Events)
    moves = [e for e in events if e[0] in ("move", "begin_variation", "end_variation")]
    assert moves == [
        ("move", 1, "７六歩(77)", 4, 6),
        ("begin_variation",), ("move", 1, "２六歩(27)", 25, 6), ("end_variation",),
        ("move", 2, "３四歩(33)", 5, 6),
        ("begin_variation",),
        ("move", 2, "８四歩(83)", 14, 6),
        ("move", 3, "２六歩(27)", 15, 6),
        ("begin_variation",), ("move", 3, "６八銀(79)", 18, 6), ("end_variation",),
        ("begin_variation",), ("move", 3, "５六歩(57)", 21, 6), ("end_variation",),
        ("end_variation",),
        ("move", 3, "２六歩(27)", 7, 6),
        ("move", 4, "８四歩(83)", 8, 6),
    ]
    assert events[0] == ("begin_game", 1, 1)
    assert ("header", "Variant", "Shogi") in events and ("header", "Termination", "resignation") in events
    assert events.index(("end_headers",)) < events.index(("move", 1, "７六歩(77)", 4, 6))
    # comments: the game's before the first move, times as [%emt], a comment before a variation's first move
    assert events[events.index(("end_headers",)) + 1] == ("comment", "before the first move", False)
    after_two = events.index(("move", 2, "３四歩(33)", 5, 6)) + 1
    assert events[after_two] == ("comment", "[%emt 0:00:07] main two", False)
    assert events[events.index(("move", 2, "８四歩(83)", 14, 6)) - 1] == ("comment", "before the variation", True)
    assert events[events.index(("move", 3, "５六歩(57)", 21, 6)) + 1] == ("comment", "fifth", False)
    assert events[-2:] == [("result", "0-1"), ("end_game", 0)]  # no problem in this record


def test_the_default_builder_keeps_times_and_the_ending_for_the_writer():
    (game,) = read_kif(TREE)
    (built,) = read_kif(TREE, visitor=KifGameBuilder())
    assert built == game and built.errors == game.errors
    for g in (game, built):
        nodes = list(g.mainline())
        assert [n.kif_time for n in nodes] == [(5, 5), (7, 7), (3, 8), (2, 9)]
        assert nodes[-1].kif_special == ("投了", 10)
        side = g.variations[0].variations[1]  # 変化：2手
        assert [v.notation for v in side.variations] == ["２六歩(27)", "６八銀(79)", "５六歩(57)"]
        assert side.starting_comment == "before the variation"
    text = write_kif(game).decode()
    assert "   5 投了" in text and "( 0:10/00:00:18)" in text and text.count("変化：3手") == 2


def test_a_plain_game_builder_builds_the_same_game_from_the_tags():
    """The tags given (Variant, SFEN for a handicap's start) are enough to build the game."""
    handicap = "手合割：香落ち\n手数----指手--\n   1 ３四歩(33)\n   2 ７六歩(77)\n\n変化：1手\n   1 ５二金(61)\n"
    for text in (TREE, handicap):
        (game,) = read_kif(text)
        (built,) = read_kif(text, visitor=GameBuilder)
        assert built == game and built.start == game.start
    assert game.start is not None and len(game.variations) == 2


def test_errors_reach_the_visitor_located_as_in_the_game():
    bad = TREE.replace("   4 ８四歩(83)", "   4 ８五歩(83)")
    (game,) = read_kif(bad)
    (events,) = read_kif(bad, visitor=Events)
    assert [e for e in events if e[0] == "error"] == [("error", e.kind, e.line, e.message) for e in game.errors]
    assert any(e.kind == "error" and e.line == 8 for e in game.errors)
    assert not any(e[0] == "move" and e[1] == 4 and e[3] == 8 for e in events)  # the illegal move is not given


class Skipping(Events):
    def end_headers(self):
        super().end_headers()
        return Visitor.SKIP


def test_a_visitor_that_skips_the_moves_gets_none():
    (events,) = read_kif(TREE, visitor=Skipping)
    assert not any(e[0] in ("move", "comment", "result") for e in events)
    assert events[-1] == ("end_game", 0)


KI2 = """手合割：平手
▲７六歩　△３四歩　▲２六歩
まで3手で中断

変化：2手
△８四歩　▲２六歩
"""


def test_ki2_gives_its_moves_to_a_visitor_in_the_same_order():
    (events,) = read_ki2(KI2, visitor=Events)
    assert [e[:3] for e in events if e[0] in ("move", "begin_variation", "end_variation")] == [
        ("move", 1, "７六歩"), ("move", 2, "３四歩"),
        ("begin_variation",), ("move", 2, "８四歩"), ("move", 3, "２六歩"), ("end_variation",),
        ("move", 3, "２六歩")]
    (game,) = read_ki2(KI2)
    (built,) = read_ki2(KI2, visitor=GameBuilder)
    assert built == game


@pytest.mark.slow
def test_reading_a_long_kif_with_a_visitor_holds_a_few_times_its_text():
    """Issue 15's target, at most 10 times the game's text, for a reader that builds no tree: the
    text, a compact index of its lines and of the moves (measured: about 3 times)."""
    plies = 20_000
    cycle = ["２八銀(39)", "８二銀(71)", "３九銀(28)", "７一銀(82)"]
    lines = "\n".join(f"{n + 1:>4} {cycle[n % 4]}" for n in range(plies))
    data = f"手合割：平手\n手数----指手--\n{lines}\n".encode()
    read_kif(data[:200], visitor=Visitor)  # rules compiled, modules loaded
    tracemalloc.start()
    try:
        (result,) = read_kif(data, visitor=Visitor)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert result is None
    assert peak < 10 * len(data), (peak / plies, peak / len(data))
