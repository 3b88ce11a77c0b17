"""Drops and hoppers: a drop that screens an enemy cannon, and which squares a piece "could never
move again" from (docs/variants.md), with test variants whose pieces are not among the bundled
ones.

The cannon case was found by comparing with Fairy-Stockfish on a 12x10 drop variant: out of
check, a drop between the mover's royal and an enemy cannon with a screen beyond gives the cannon
its shot.  The grasshopper figure (79 drops on an empty 9x9 board less the two kings) is
Fairy-Stockfish's.
"""

from __future__ import annotations

import json

from click.testing import CliRunner

from daikifu.cli import main
from daikifu.replay.board import Board
from daikifu.replay.rules import compile_rules
from daikifu.replay.squares import parse_square
from daikifu.replay.variant import variant_from_dict

CANNON_TOML = """\
format = 1
slug = "cannon-drops"
name = "Cannon drops"
files = 12
ranks = 10
start = "4k7/12/12/12/12/12/12/12/12/4K7 b - 1"

[rules]
drops = true

[[pieces]]
id = "K"
name = "King"
betza = "K"
royal = true

[[pieces]]
id = "A"
name = "Cannon"
betza = "mRcpR"

[[pieces]]
id = "C"
name = "Copper General"
betza = "WfF"
"""

# the Sente king on e1, a Gote cannon on e8 with the Gote king on e10 behind it: a piece dropped
# on e2..e7 is the screen the cannon needs to take the king on e1
SCREEN = "4k7/12/4a7/12/12/12/12/12/12/4K7 b C 1"


def variant(pieces: list, rules: dict, slug: str = "drop-test"):
    """A 9x9 variant with a King a side and ``pieces``."""
    return variant_from_dict({"slug": slug, "name": slug, "files": 9, "ranks": 9, "start": "4k4/9/9/9/9/9/9/9/4K4 b - 1",
                              "rules": rules,
                              "pieces": [{"id": "K", "name": "King", "betza": "K", "royal": True}, *pieces]})


def cannon_board(position: str = SCREEN) -> Board:
    v = variant_from_dict({"slug": "cannon-drops", "name": "Cannon drops", "files": 12, "ranks": 10,
                           "start": "4k7/12/12/12/12/12/12/12/12/4K7 b - 1", "rules": {"drops": True},
                           "pieces": [{"id": "K", "name": "King", "betza": "K", "royal": True},
                                      {"id": "A", "name": "Cannon", "betza": "mRcpR"},
                                      {"id": "C", "name": "Copper General", "betza": "WfF"}]})
    return Board(v, position)


def drop_squares(moves) -> set:
    return {m.uci().split("*")[1] for m in moves if m.drop is not None}


def test_a_drop_that_screens_an_enemy_cannon_is_not_legal():
    board = cannon_board()
    assert not board.is_check()
    screens = {f"e{r}" for r in range(2, 8)}
    for listed in (board.legal_moves(), board.reference_legal_moves()):
        assert not drop_squares(listed) & screens
        assert "e9" in drop_squares(listed)  # beyond the cannon: no screen between it and the king
    drop = next(m for m in board.pseudo_legal_moves() if m.uci() == "C*e4")
    assert board.illegal_reason(drop) == "it leaves the mover's royal piece in check"


def test_the_moves_command_agrees_with_its_check_of_one_move(tmp_path):
    (tmp_path / "cannon.toml").write_text(CANNON_TOML, encoding="utf-8")
    runner = CliRunner()
    base = ["--variants-dir", str(tmp_path), "moves", "cannon-drops", "-p", SCREEN, "--json"]
    listed = json.loads(runner.invoke(main, base).output)
    assert not {m["to"] for m in listed if m["drop"]} & {f"e{r}" for r in range(2, 8)}
    checked = json.loads(runner.invoke(main, [*base, "--check", "C*e4"]).output)
    assert checked[0]["legal"] is False


def test_only_rule_sets_with_screened_moves_test_drops_out_of_check():
    assert cannon_board().rules.drops_may_expose
    # the bundled drop variants have no such piece: their drops stay untested out of check
    for slug in ("shogi", "chu-kagamigi", "dai-ryu-shogi", "kyoomagi", "planetary-shogi"):
        from daikifu.replay import load_variant
        assert not compile_rules(load_variant(slug)).drops_may_expose, slug
    # a Lion-like kill on the way that may also cross an empty square opens nothing a drop could
    lion = variant([{"id": "L", "name": "Lion", "betza": "KNADmcaKmcabK"}], {"drops": True})
    assert not compile_rules(lion).drops_may_expose
    for betza in ("pR", "gQ", "cafmW", "jN"):  # hop, grasshop, kill then move, jump
        v = variant([{"id": "X", "name": "X", "betza": betza}], {"drops": True}, slug="screen-test")
        assert compile_rules(v).drops_may_expose, betza


# --- a piece that could never move again ------------------------------------------------------


def hopper_variant():
    return variant([{"id": "G", "name": "Grasshopper", "betza": "gQ", "promotes": "+G"},
                    {"id": "+G", "name": "Promoted Grasshopper", "betza": "Q"},
                    {"id": "X", "name": "Backward capturer", "betza": "mfWcbF", "promotes": "+X"},
                    {"id": "+X", "name": "Promoted capturer", "betza": "K"},
                    {"id": "P", "name": "Pawn", "betza": "fW", "promotes": "+P"},
                    {"id": "+P", "name": "Promoted Pawn", "betza": "WfF"}],
                   {"drops": True, "promotion_zone": 3, "promotion_forced": "stuck", "drop_no_dead_squares": True},
                   slug="hopper-test")


def test_a_grasshopper_may_be_dropped_on_every_empty_square():
    board = Board(hopper_variant(), "4k4/9/9/9/9/9/9/9/4K4 b G 1")
    assert len([m for m in board.legal_moves() if m.drop]) == 79


def test_a_capture_only_move_keeps_a_piece_alive_and_a_pawn_on_its_last_rank_is_dead():
    board = Board(hopper_variant(), "4k4/9/9/9/9/9/9/9/4K4 b XP 1")
    x = drop_squares(m for m in board.legal_moves() if m.drop == "X")
    p = drop_squares(m for m in board.legal_moves() if m.drop == "P")
    last_rank = {f"{f}9" for f in "abcdfghi"}
    assert last_rank <= x  # it can take backwards from there
    assert not last_rank & p  # it could never move from there


def test_a_grasshopper_is_not_forced_to_promote_where_it_can_hop_again():
    # G on e6, a hurdle (Gote's pawn) on e7: G hops to e8, in the zone, where it could hop again
    board = Board(hopper_variant(), "4k4/9/4p4/4G4/9/9/9/9/4K4 b - 1")
    to_e8 = [m for m in board.legal_moves() if m.uci().startswith("e6e8")]
    assert sorted(m.promotion for m in to_e8) == [False, True]
    # while a Pawn reaching its last rank must promote
    board = Board(hopper_variant(), "4k4/P8/9/9/9/9/9/9/4K4 b - 1")
    assert [m.promotion for m in board.legal_moves() if m.from_square == parse_square("a8", 9, 9)] == [True]
