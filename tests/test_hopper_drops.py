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
import random
from collections import Counter

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings, strategies as st

from daikifu.cli import main
from daikifu.replay import list_variants, load_variant
from daikifu.replay.board import Board
from daikifu.replay.randomplay import random_game
from daikifu.replay.rules import compile_rules
from daikifu.replay.squares import parse_square
from daikifu.replay.variant import variant_from_dict

CANNON_TOML = """\
format = 1
slug = "cannon-drops"
name = "Cannon drops"
files = 12
ranks = 10
start = "4k7/4a7/4c7/12/12/12/12/4C7/4A7/4K7 b - 1"

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
                           "start": "4k7/4a7/4c7/12/12/12/12/4C7/4A7/4K7 b - 1", "rules": {"drops": True},
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


# --- legal_moves() against playing every pseudo-legal move -----------------------------------------
#
# The reference: every pseudo-legal move and drop is played and the mover's royal piece looked at
# (with public methods only); a drop of a piece that may not mate by drop is left out when the
# opponent then has no reply that leaves its royal piece safe.  legal_moves() (the fast paths) and
# reference_legal_moves() must list exactly those moves.


def leaves_royal_attacked(board: Board, colour: int) -> bool:
    """After a move of ``colour``: whether it left the royal piece the rules protect attacked
    (its last one, where a royal piece may not be left attacked)."""
    royals = board.royal_squares(colour)
    return not board.rules.royal_capture and len(royals) == 1 and board.is_attacked(royals[0], colour ^ 1)


def mated(board: Board) -> bool:
    """Whether the side to move is in check with no pseudo-legal move that leaves its royal safe."""
    mover = board.turn
    if not board.is_check():
        return False
    for reply in board.pseudo_legal_moves():
        board.push(reply)
        safe = not leaves_royal_attacked(board, mover)
        board.pop()
        if safe:
            return False
    return True


def played_out(board: Board) -> list:
    rules = board.rules
    mover = board.turn
    out = []
    for move in board.pseudo_legal_moves():
        board.push(move)
        try:
            if leaves_royal_attacked(board, mover):
                continue
            if (move.drop is not None and rules.type_by_id[move.drop].index in rules.drop_mate_forbidden
                    and mated(board)):
                continue
            out.append(move)
        finally:
            board.pop()
    return out


def assert_legal_moves_played_out(board: Board) -> None:
    expected = Counter(played_out(board))
    assert Counter(board.legal_moves()) == expected, board.position()
    assert Counter(board.reference_legal_moves()) == expected, board.position()


HOPPER_DROPS = variant_from_dict({
    "slug": "hopper-drops", "name": "Hopper drops", "files": 9, "ranks": 9, "start": "4k4/9/9/9/9/9/9/9/4K4 b - 1",
    "rules": {"drops": True, "promotion_zone": 3, "promotion_forced": "stuck", "drop_nifu": ["P"],
              "drop_mate_forbidden": ["P"], "drop_no_dead_squares": True},
    "pieces": [{"id": "K", "name": "King", "betza": "K", "royal": True},
               {"id": "P", "name": "Pawn", "betza": "fW", "promotes": "+P"},
               {"id": "+P", "name": "Tokin", "betza": "WfF"},
               {"id": "A", "name": "Cannon", "betza": "mRcpR"},
               {"id": "G", "name": "Grasshopper", "betza": "gQ", "promotes": "+G"},
               {"id": "+G", "name": "Queen", "betza": "Q"},
               {"id": "J", "name": "Jumper", "betza": "jfDmcaW"},
               {"id": "L", "name": "Lion", "betza": "KNADmcaKmcabK"}]})
CANNON_12X10 = cannon_board().variant
TEST_VARIANTS = (HOPPER_DROPS, CANNON_12X10)


def random_placement(variant, rng) -> str | None:
    """A random position of a test variant: a King a side, some other pieces and pieces in hand
    (None when it is no position the board accepts: the side not to move in check ...)."""
    files, ranks = variant.files, variant.ranks
    squares = rng.sample([(f, r) for f in range(files) for r in range(ranks)], rng.randrange(2, 14))
    others = [p.id for p in variant.pieces if not p.royal]
    cells = {squares[0]: "K", squares[1]: "k"}
    for sq in squares[2:]:
        pid = rng.choice(others)
        cells[sq] = pid if rng.random() < 0.5 else pid.lower()
    droppable = [p.id for p in variant.pieces if not p.royal and not p.id.startswith("+")]
    hands = "".join(rng.choice(droppable) if rng.random() < 0.5 else rng.choice(droppable).lower()
                    for _ in range(rng.randrange(0, 4)))
    rows = []
    for r in range(ranks - 1, -1, -1):
        row, empty = "", 0
        for f in range(files):
            token = cells.get((f, r))
            if token is None:
                empty += 1
                continue
            row += (str(empty) if empty else "") + (token if len(token) == 1 else f"({token})")
            empty = 0
        rows.append(row + (str(empty) if empty else ""))
    text = f"{'/'.join(rows)} {rng.choice('bw')} {hands or '-'} 1"
    try:
        Board(variant, text)
    except ValueError:
        return None
    return text


BUNDLED = [v.slug for v in list_variants() if v.playable]


def positions_of_play(slug: str, seed: int, plies: int) -> Board:
    board = Board(load_variant(slug))
    random_game(board, plies, random.Random(seed), 0.8)
    return board


def check_placements(seeds) -> int:
    checked = 0
    for seed in seeds:
        rng = random.Random(seed)
        variant = TEST_VARIANTS[seed % len(TEST_VARIANTS)]
        text = random_placement(variant, rng)
        if text is None:
            continue
        assert_legal_moves_played_out(Board(variant, text))
        checked += 1
    return checked


SLOW = settings(max_examples=150, suppress_health_check=[HealthCheck.too_slow])


@settings(max_examples=12, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(BUNDLED), st.integers(0, 10**6), st.integers(0, 40))
def test_legal_moves_are_the_pseudo_legal_moves_that_keep_the_royal_safe(slug, seed, plies):
    assert_legal_moves_played_out(positions_of_play(slug, seed, plies))


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6))
def test_legal_moves_in_random_positions_of_hopper_and_drop_variants(seed):
    check_placements([seed])


def test_every_bundled_variant_and_the_test_variants_are_covered():
    # one position of play per bundled variant, and placements of each test variant
    for n, slug in enumerate(BUNDLED):
        assert_legal_moves_played_out(positions_of_play(slug, n, 12))
    assert check_placements(range(40)) >= 10


@pytest.mark.slow
@SLOW
@given(st.sampled_from(BUNDLED), st.integers(0, 10**6), st.integers(0, 200))
def test_legal_moves_played_out_in_long_games(slug, seed, plies):
    assert_legal_moves_played_out(positions_of_play(slug, seed, plies))


@pytest.mark.slow
@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 10**6))
def test_legal_moves_in_many_random_positions_of_hopper_and_drop_variants(seed):
    check_placements([seed])
