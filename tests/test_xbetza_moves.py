"""Generated moves of XBetza pieces, checked against the reference notes.

Reference: docs/rules/xbetza.md ("the notes").  All offsets are ``(dx, dy)`` for the
player to move, ``dx > 0`` = towards the mover's right, ``dy > 0`` = forwards.  The second player's
moves are the first player's rotated by 180 degrees (notes, section 1).  Every piece stands on h8
of a 15x15 board, so rays reach 7 squares in each direction, as in the notes' tables.

* Appendix A: the move sets of the 68 Dai Kagamigi pieces, read from the notes at test time.
* Section 6 and 5.1: worked examples, including multi-leg (Lion) moves with blockers.
* Section 3: what each direction letter selects on each kind of atom.
* Section 4/5: hoppers, lame and jumping leapers, riders, ranges, continuation legs.
* A property test: the second player's moves are the first player's rotated.

Expected values are written from the notes (or from first principles where the notes only give
the rule), never from what the engine produces.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from daikifu.replay.variant import VariantError
from daikifu.replay.xbetza import XBetzaError
from xbetza_support import (PASS, REFERENCE, absolute_effects, describe, effects, make_variant,
                            plain, raw_effects, ray, rotated, setup)

ORTHOGONAL = ((0, 1), (1, 0), (0, -1), (-1, 0))
DIAGONAL = ((1, 1), (1, -1), (-1, -1), (-1, 1))
KNIGHT = {(1, 2), (2, 1), (2, -1), (1, -2), (-1, -2), (-2, -1), (-2, 1), (-1, 2)}


def rays(*directions, n: int = 7) -> set:
    out = set()
    for dx, dy in directions:
        out |= ray(dx, dy, n)
    return out


def check(betza: str, expected: set, **kwargs) -> None:
    """The piece's effects are exactly ``expected``, for both players (second one rotated setup)."""
    for second in (False, True):
        actual = effects(betza, second_player=second, **kwargs)
        who = "second" if second else "first"
        assert actual == expected, f"{betza} ({who} player): {describe(actual, expected)}"


# =================================================================================================
# Appendix A: the 68 Dai Kagamigi definition-line pieces (XBoard's generator)
# =================================================================================================


@dataclass(frozen=True)
class Row:
    number: int
    name: str
    pid: str
    betza: str
    count: int
    effects: frozenset

    def __str__(self):
        return f"{self.number}-{self.name}-{self.betza}"


_ROW_RE = re.compile(r"(\d+) (.+) \((\S+)\) (\S+) : (\d+) moves : (.*)\Z")
_OFFSET_RE = re.compile(r"\((-?\d+),(-?\d+)\)|pass")


def load_appendix_a():
    """The rows of the Appendix A code block, or None if the reference file is absent."""
    if not REFERENCE.is_file():
        return None
    text = REFERENCE.read_text(encoding="utf-8")
    head = text.index("## Appendix A")
    start = text.index("```", head) + 3
    end = text.index("```", start)
    rows = []
    for line in text[start:end].strip().splitlines():
        m = _ROW_RE.match(line.strip())
        assert m, f"Appendix A line not understood: {line!r}"
        number, name, pid, betza, count, listed = m.groups()
        found = set()
        for om in _OFFSET_RE.finditer(listed):
            found.add(PASS if om.group(0) == "pass" else ((int(om.group(1)), int(om.group(2))), ()))
        rows.append(Row(int(number), name, pid, betza, int(count), frozenset(found)))
    return rows


APPENDIX_A = load_appendix_a()
_MISSING = f"reference notes not found at {REFERENCE}: Appendix A tests need docs/rules/xbetza.md"
WRESTLER = "F3SW"  # see the notes, Appendix A preamble and 7.3


def _rows(*, wrestler: bool):
    if APPENDIX_A is None:
        return [pytest.param(None, marks=pytest.mark.skip(reason=_MISSING))]
    return [pytest.param(r, id=str(r)) for r in APPENDIX_A if (r.betza == WRESTLER) == wrestler]


def _row(betza: str) -> Row:
    if APPENDIX_A is None:
        pytest.skip(_MISSING)
    (row,) = [r for r in APPENDIX_A if r.betza == betza]
    return row


def test_appendix_a_has_68_consistent_rows():
    if APPENDIX_A is None:
        pytest.skip(_MISSING)
    assert len(APPENDIX_A) == 68
    assert [r.number for r in APPENDIX_A] == list(range(1, 69))
    for r in APPENDIX_A:
        assert len(r.effects) == r.count, f"row {r}: {r.count} moves announced, {len(r.effects)} listed"


@pytest.mark.parametrize("row", _rows(wrestler=False))
def test_appendix_a_first_player_moves_match_xboard(row):
    actual = effects(row.betza, pid=row.pid)
    assert actual == set(row.effects), f"{row.betza}: {describe(actual, set(row.effects))}"


@pytest.mark.parametrize("row", _rows(wrestler=False))
def test_appendix_a_second_player_moves_are_the_table_rotated_180_degrees(row):
    actual = absolute_effects(row.betza, second_player=True, pid=row.pid)
    expected = rotated(set(row.effects))
    assert actual == expected, f"{row.betza} (second player): {describe(actual, expected)}"


def test_appendix_a_wrestler_definition_F3SW_is_rejected_naming_S_and_its_position():
    # The table row is what XBoard made of F3 + W; the capital S is not an atom (notes 2.1, 7.3),
    # and the engine must not silently drop it.
    row = _row(WRESTLER)
    assert row.count == 16
    with pytest.raises((VariantError, XBetzaError)) as info:
        make_variant(row.betza, pid=row.pid)
    message = str(info.value)
    assert "'S'" in message and "position 3" in message, message


def test_appendix_a_wrestler_as_written_in_the_prose_F3sW_is_F3_plus_sideways_steps():
    row = _row(WRESTLER)
    wazir = plain(ORTHOGONAL)
    f3 = set(row.effects) - wazir  # the table row is F3 + all four W steps
    assert len(f3) == 12  # 4 diagonals x 3
    expected = f3 | plain({(1, 0), (-1, 0)})
    check("F3sW", expected, pid=row.pid)


def test_appendix_a_soaring_eagle_has_43_moves_including_one_pass_on_an_empty_board():
    row = _row("RbBcmfavK")
    assert row.count == 43 and PASS in row.effects
    for second in (False, True):
        board = setup(row.betza, second_player=second, pid=row.pid)
        found = raw_effects(board, second)
        assert set(found) == set(row.effects), describe(set(found), set(row.effects))
        assert found.count(PASS) == 1


# =================================================================================================
# Section 6: worked examples
# =================================================================================================

SECTION_6_SIMPLE = {
    # Left Chariot: fR (0,1)..(0,7); flB (-1,1)..(-7,7); brB (1,-1)..(7,-7); bW (0,-1) - 22 moves
    "fRflBbrBbW": (rays((0, 1), (-1, 1), (1, -1)) | {(0, -1)}, 22),
    # Blue Gecko: frB4; lbW2 = left and back up to 2; flF; brF; fW - 11 moves
    "frB4lbW2flFbrFfW": (ray(1, 1, 4) | ray(-1, 0, 2) | ray(0, -1, 2) | {(-1, 1), (1, -1), (0, 1)}, 11),
    # east wind: rB both right diagonals; rR; vW3; llN = (-2, +-1) - 29 moves
    "rBrRvW3llN": (rays((1, 1), (1, -1), (1, 0)) | rays((0, 1), (0, -1), n=3) | {(-2, 1), (-2, -1)}, 29),
    # Poisonous Snake: sW; fD = (0,2) leap; bA = (+-2,-2) leaps - 5 moves
    "sWfDbA": ({(1, 0), (-1, 0), (0, 2), (2, -2), (-2, -2)}, 5),
    # Prancing Stag: F; fW; sW2 - 9 moves
    "FfWsW2": (set(DIAGONAL) | {(0, 1)} | rays((1, 0), (-1, 0), n=2), 9),
    # White Tiger: vR; flB; frF; sW2 - 26 moves
    "vRflBfrFsW2": (rays((0, 1), (0, -1), (-1, 1)) | {(1, 1)} | rays((1, 0), (-1, 0), n=2), 26),
    # Left Army: K (8 neighbours) + rhQ = rays right, forward-right, backward-right - 26 moves
    "KrhQ": (set(ORTHOGONAL) | set(DIAGONAL) | rays((1, 0), (1, 1), (1, -1)), 26),
    # Left Dragon: rhQ + lW2 - 23 moves
    "rhQlW2": (rays((1, 0), (1, 1), (1, -1)) | ray(-1, 0, 2), 23),
    # Gold Pashtun: W; fF; D leaps; fA leaps - 12 moves
    "WfFDfA": (set(ORTHOGONAL) | {(1, 1), (-1, 1)} | {(0, 2), (0, -2), (2, 0), (-2, 0)} | {(2, 2), (-2, 2)}, 12),
    # Knight
    "ffN": ({(-1, 2), (1, 2)}, 2),
}


@pytest.mark.parametrize("betza", list(SECTION_6_SIMPLE))
def test_section_6_worked_example(betza):
    offsets, count = SECTION_6_SIMPLE[betza]
    assert len(offsets) == count  # the expectation itself matches the count in the notes
    check(betza, plain(offsets))


# --- 5.1 and 6: Lion-type moves (effects = destination + squares captured on the way) -----------

SOARING_EAGLE = "RbBcmfavK"
SE_PLAIN = rays(*ORTHOGONAL) | rays((1, -1), (-1, -1))  # R + bB on an empty board: 42 squares


def _lion_case(betza, own, enemy, expected, passes):
    for second in (False, True):
        board = setup(betza, second_player=second, own=own, enemy=enemy)
        found = raw_effects(board, second)
        who = "second" if second else "first"
        assert set(found) == expected, f"{betza} ({who} player): {describe(set(found), expected)}"
        assert found.count(PASS) == passes, f"{betza} ({who} player): {found.count(PASS)} passes"
        assert len(found) == len(set(found)), f"{betza} ({who} player): the same effect is listed twice"


def test_soaring_eagle_on_an_empty_board_adds_only_0_2_and_one_pass():
    expected = plain(SE_PLAIN) | {PASS}
    assert len(expected) == 43
    _lion_case(SOARING_EAGLE, (), (), expected, passes=1)


def test_soaring_eagle_enemy_in_front_gives_igui_and_double_move_capturing_it():
    north_ray_stops = plain(rays((1, 0), (0, -1), (-1, 0), (1, -1), (-1, -1))) | plain({(0, 1)})
    lion = {((0, 0), ((0, 1),)),  # igui: capture (0,1) and stay
            ((0, 2), ((0, 1),))}  # capture (0,1) on the way to (0,2)
    # no pass: the only first step (straight forward) cannot end on an empty square
    _lion_case(SOARING_EAGLE, (), [(0, 1)], north_ray_stops | lion, passes=0)


def test_soaring_eagle_two_enemies_in_front_can_both_be_captured():
    north_ray_stops = plain(rays((1, 0), (0, -1), (-1, 0), (1, -1), (-1, -1))) | plain({(0, 1)})
    lion = {((0, 0), ((0, 1),)),  # igui
            ((0, 2), ((0, 1),))}  # (0,2)x(0,1),(0,2): the capture on the destination is not a "kill"
    _lion_case(SOARING_EAGLE, (), [(0, 1), (0, 2)], north_ray_stops | lion, passes=0)


def test_soaring_eagle_own_piece_in_front_gives_nothing_extra():
    expected = plain(rays((1, 0), (0, -1), (-1, 0), (1, -1), (-1, -1)))
    _lion_case(SOARING_EAGLE, [(0, 1)], (), expected, passes=0)


def test_black_cmfavK_is_the_forward_double_step_and_pass_rotated():
    # notes 6: Black `cmfavK` = (0,-2) and pass on the board, i.e. (0,2) and pass in its own frame
    assert absolute_effects("cmfavK", second_player=True) == {((0, -2), ()), PASS}
    _lion_case("cmfavK", (), (), {((0, 2), ()), PASS}, passes=1)


LION_DOG = "KmcavKmcafmcavK"
ALL_LINES = ORTHOGONAL + DIAGONAL


def test_lion_dog_on_an_empty_board_reaches_three_squares_on_every_line_and_can_pass():
    expected = plain(rays(*ALL_LINES, n=3)) | {PASS}
    assert len(expected) == 25
    _lion_case(LION_DOG, (), (), expected, passes=1)


def test_lion_dog_with_blockers_gives_the_23_effects_of_the_notes():
    # enemy (0,1), own piece (1,1), enemy (0,3): the NE line is blocked entirely
    free_lines = [d for d in ALL_LINES if d not in ((0, 1), (1, 1))]
    expected = plain(rays(*free_lines, n=3))  # 6 lines x 3
    expected |= {((0, 1), ()),  # capture (0,1)
                 ((0, 0), ((0, 1),)),  # igui
                 ((0, 2), ((0, 1),)),  # capture (0,1), go on to the empty (0,2)
                 ((0, 3), ((0, 1),)),  # capture (0,1) and (0,3)
                 PASS}  # via one of the empty neighbours
    assert len(expected) == 23
    _lion_case(LION_DOG, [(1, 1)], [(0, 1), (0, 3)], expected, passes=1)


def test_lion_dog_double_locust_capture_lists_kills_in_path_order():
    # enemies on (0,1) and (0,2), (0,3) empty.  Per 5.7 the board is not updated between legs, so
    # "out two, back one" ends on the first victim's square: that victim counts as the capture on
    # the destination, and only (0,2) is a capture on the way.
    others = [d for d in ALL_LINES if d != (0, 1)]
    expected = plain(rays(*others, n=3)) | {PASS}
    expected |= {((0, 1), ()),  # K: capture (0,1)
                 ((0, 0), ((0, 1),)),  # igui
                 ((0, 2), ((0, 1),)),  # capture both, end on (0,2)
                 ((0, 3), ((0, 1), (0, 2))),  # capture both on the way, in path order, end on (0,3)
                 ((0, 1), ((0, 2),))}  # capture both, come back to (0,1)
    assert len(expected) == 27
    _lion_case(LION_DOG, (), [(0, 1), (0, 2)], expected, passes=1)


def test_mcavK_turning_back_over_an_own_piece_is_impossible():
    # 5.1: the first step can never go onto an own piece (no p/d); all 8 neighbours own = no move
    _lion_case("mcavK", list(ALL_LINES), (), set(), passes=0)


# =================================================================================================
# Section 3: direction letters
# =================================================================================================

DIRECTION_CASES = {
    # 3.1 orthogonal atoms: each of f b l r is one direction; letters add up
    "fW": {(0, 1)},
    "bW": {(0, -1)},
    "lW": {(-1, 0)},
    "rW": {(1, 0)},
    "vR": rays((0, 1), (0, -1)),
    "sW2": rays((1, 0), (-1, 0), n=2),
    "lbW2": rays((-1, 0), (0, -1), n=2),
    "FrvW": set(DIAGONAL) | {(1, 0), (0, 1), (0, -1)},
    "fD": {(0, 2)},
    "sH": {(3, 0), (-3, 0)},
    # 3.2 diagonal atoms: single letters name pairs, perpendicular pairs one diagonal
    "fF": {(-1, 1), (1, 1)},
    "bF": {(-1, -1), (1, -1)},
    "lF": {(-1, 1), (-1, -1)},
    "rF": {(1, 1), (1, -1)},
    "vF": set(DIAGONAL),
    "sF": set(DIAGONAL),
    "flB": ray(-1, 1),
    "lfB": ray(-1, 1),
    "lbB": ray(-1, -1),
    "brB": ray(1, -1),
    "frB4": ray(1, 1, 4),
    "fA": {(-2, 2), (2, 2)},
    "bG": {(-3, -3), (3, -3)},
    # 3.3 oblique atoms: narrow pairs, perpendicular pairs, one move per two different letters
    "fN": {(-1, 2), (1, 2)},
    "ffN": {(-1, 2), (1, 2)},
    "bbN": {(-1, -2), (1, -2)},
    "llN": {(-2, 1), (-2, -1)},
    "rrN": {(2, 1), (2, -1)},
    "fsN": {(-2, 1), (2, 1)},
    "bsN": {(-2, -1), (2, -1)},
    "lvN": {(-1, 2), (-1, -2)},
    "rvN": {(1, 2), (1, -2)},
    "frN": {(2, 1)},
    "rfN": {(1, 2)},
    "flN": {(-2, 1)},
    "lfN": {(-1, 2)},
    "brN": {(2, -1)},
    "rbN": {(1, -2)},
    "blN": {(-2, -1)},
    "lbN": {(-1, -2)},
    "fhN": {(-2, 1), (-1, 2), (1, 2), (2, 1)},
    "bhN": {(-2, -1), (-1, -2), (1, -2), (2, -1)},
    "lhN": {(-2, 1), (-2, -1), (-1, 2), (-1, -2)},
    "rhN": {(2, 1), (2, -1), (1, 2), (1, -2)},
    "hrN": {(1, 2), (2, -1), (-1, -2), (-2, 1)},
    "hlN": {(-1, 2), (-2, -1), (1, -2), (2, 1)},  # the mirror image of hr
    "ffC": {(-1, 3), (1, 3)},
    "frZ": {(3, 2)},
    # 3.4 K-system: single letters are orthogonal directions, perpendicular pairs diagonals
    "fK": {(0, 1)},
    "bK": {(0, -1)},
    "vK": {(0, 1), (0, -1)},
    "sK": {(1, 0), (-1, 0)},
    "fsK": {(-1, 1), (1, 1)},
    "bsK": {(-1, -1), (1, -1)},
    "lvK": {(-1, 1), (-1, -1)},
    "rvK": {(1, 1), (1, -1)},
    "frK": {(1, 1)},
    "rfK": {(1, 1)},
    "blK": {(-1, -1)},
    "rQ": ray(1, 0),
    "fhQ": rays((0, 1), (-1, 1), (1, 1)),
    "bhQ": rays((0, -1), (-1, -1), (1, -1)),
    "lhQ": rays((-1, 0), (-1, 1), (-1, -1)),
    "rhQ": rays((1, 0), (1, 1), (1, -1)),
    "fK3": ray(0, 1, 3),
}


@pytest.mark.parametrize("betza", list(DIRECTION_CASES))
def test_direction_letters_select(betza):
    check(betza, plain(DIRECTION_CASES[betza]))


def test_no_direction_letters_means_all_directions():
    check("K", plain(ORTHOGONAL, DIAGONAL))
    check("N", plain(KNIGHT))
    check("Q", plain(rays(*ALL_LINES)))


def test_several_direction_groups_in_one_leg_form_a_union():
    check("fsbK", plain({(-1, 1), (1, 1), (0, -1)}))
    check("flbrB", plain(rays((-1, 1), (1, -1))))


# =================================================================================================
# Sections 4 and 5: modes, continuation legs, hoppers, lame leapers, riders, ranges
# =================================================================================================


def test_continuation_afsW_is_the_mao_W_then_outward_F():
    # 5.2: W step, then a 45-degree turn either way turns the W into an F: knight squares
    check("afsW", plain(KNIGHT))


def test_continuation_afsW_is_blocked_when_the_W_square_is_occupied():
    # a non-final leg defaults to m: it cannot end on an own piece, nor on an enemy (no c)
    without_north = plain(KNIGHT - {(1, 2), (-1, 2)})
    check("afsW", without_north, own=[(0, 1)])
    check("afsW", without_north, enemy=[(0, 1)])
    # blocking the destination's diagonal neighbour instead does not matter (the path is W then F)
    check("afsW", plain(KNIGHT), own=[(1, 1)])


def test_continuation_afsW_captures_on_its_destination():
    check("afsW", plain(KNIGHT), enemy=[(1, 2)])
    check("afsW", plain(KNIGHT - {(1, 2)}), own=[(1, 2)])


# 5.2: directions of later legs are relative to the previous step, in the K-system.  The first
# leg is fixed to one direction so that each relative letter shows up as one destination.
RELATIVE_TURNS = {
    # first step straight forward (0,1), then:
    "fafK": {(0, 2)},  # straight on
    "fabK": {(0, 0)},  # straight back: to the origin, i.e. a pass
    "favK": {(0, 2), (0, 0)},  # straight on or back
    "farK": {(1, 1)},  # 90 degrees right: (1,0)
    "falK": {(-1, 1)},  # 90 degrees left: (-1,0)
    "fasK": {(1, 1), (-1, 1)},  # both 90-degree turns
    "fafrK": {(1, 2)},  # 45 degrees right: (1,1)
    "faflK": {(-1, 2)},  # 45 degrees left: (-1,1)
    "fafsK": {(1, 2), (-1, 2)},  # both 45-degree turns
    "fabrK": {(1, 0)},  # 135 degrees right: (1,-1)
    "fablK": {(-1, 0)},  # 135 degrees left: (-1,-1)
    # first step diagonally forward-right (1,1), then:
    "frafK": {(2, 2)},
    "fralK": {(0, 2)},  # 90 degrees left of (1,1) is (-1,1)
    "frarK": {(2, 0)},  # 90 degrees right of (1,1) is (1,-1)
    "fraflK": {(1, 2)},  # 45 degrees left of (1,1) is (0,1)
    "frafrK": {(2, 1)},  # 45 degrees right of (1,1) is (1,0)
    # a 45-degree turn turns W into F and D into A
    "fafrW": {(1, 2)},
    "fafsD": {(2, 4), (-2, 4)},
}


@pytest.mark.parametrize("betza", list(RELATIVE_TURNS))
def test_later_legs_turn_relative_to_the_previous_step(betza):
    check(betza, {((dx, dy), ()) for dx, dy in RELATIVE_TURNS[betza]})


def test_a_move_may_start_with_an_empty_leg():
    # `aW`: the first leg has no letters (m, all directions), the second the 4-fold default
    check("aW", plain({(0, 2), (0, -2), (2, 0), (-2, 0)}, DIAGONAL))


def test_continuation_leg_without_directions_on_a_4_fold_atom_goes_straight_or_turns_90_degrees():
    # 5.3: `maW` = W, then W straight on, left or right (never back): (0,+-2), (+-2,0), (+-1,+-1)
    check("maW", plain({(0, 2), (0, -2), (2, 0), (-2, 0)}, DIAGONAL))


def test_continuation_leg_without_directions_on_K_goes_anywhere_but_straight_back():
    # 5.3: `caK` captures a neighbour and continues in 7 directions; no return to the origin
    victim = ((0, 1),)
    expected = {((0, 2), victim), ((1, 2), victim), ((1, 1), victim), ((1, 0), victim),
                ((-1, 0), victim), ((-1, 1), victim), ((-1, 2), victim)}
    check("caK", expected, enemy=[(0, 1)])
    check("caK", set())  # nothing to capture on the first leg


def test_hook_mover_first_leg_may_stop_anywhere_on_its_ray():
    # 5.8: `masR` = slide, stop on any empty square, turn 90 degrees, slide again
    off_lines = {(x, y) for x in range(-7, 8) for y in range(-7, 8) if x and y}
    check("masR", plain(off_lines))
    check("RmasR", plain(off_lines, rays(*ORTHOGONAL)))


def test_cannon_mRcpR_moves_like_a_rook_and_captures_by_hopping_one_screen():
    # screen (own) on (0,2), enemy on (0,5): north = move to (0,1), or hop and capture (0,5)
    expected = plain(rays((1, 0), (0, -1), (-1, 0)), {(0, 1), (0, 5)})
    check("mRcpR", expected, own=[(0, 2)], enemy=[(0, 5)])
    # the screen may be an enemy too, and an enemy next to the cannon is not capturable directly
    expected = plain(rays((1, 0), (0, -1), (-1, 0)), {(0, 5)})
    check("mRcpR", expected, enemy=[(0, 1), (0, 5)])


def test_cannon_cannot_capture_without_a_screen_nor_move_beyond_one():
    check("mRcpR", plain(rays(*ORTHOGONAL)))
    # screen on (0,2), nothing behind it: no capture, no move to the empty squares behind it
    check("mRcpR", plain(rays((1, 0), (0, -1), (-1, 0)), {(0, 1)}), own=[(0, 2)])


def test_grasshopper_gQ_lands_directly_behind_the_first_piece_on_a_queen_line():
    # own screen (0,3): lands on (0,4); enemy screen (2,2) with an enemy behind: captures (3,3);
    # own piece directly behind an enemy screen on the left: no move; no screen: no move
    expected = plain({(0, 4), (3, 3)})
    check("gQ", expected, own=[(0, 3), (-2, 0)], enemy=[(2, 2), (3, 3), (-1, 0)])
    check("gQ", set())


def test_lame_knight_nN_is_blocked_by_the_orthogonally_adjacent_square():
    expected = plain({(-2, 1), (-2, -1), (1, -2), (-1, -2)})
    check("nN", expected, own=[(0, 1)], enemy=[(1, 0)])
    check("nN", plain(KNIGHT))


def test_lame_dabbaba_nD_is_blocked_by_the_midpoint():
    check("nD", plain({(0, -2), (2, 0), (-2, 0)}), enemy=[(0, 1)])
    check("nD", plain({(0, -2), (2, 0), (-2, 0)}), own=[(0, 1)])
    check("nD", plain({(0, 2), (0, -2), (2, 0), (-2, 0)}))


def test_jumping_dabbaba_jD_must_jump_over_an_occupied_midpoint():
    check("jD", set())
    check("jD", plain({(0, 2)}), own=[(0, 1)])
    check("jD", plain({(0, -2)}), enemy=[(0, -1)])


def test_nightrider_NN_repeats_the_knight_leap_until_blocked():
    # from h8: (1,2) x3 fits (3,6), (4,8) is off the board; (2,1) x3 fits (6,3), (8,4) is off
    expected = set()
    for dx, dy in KNIGHT:
        expected |= ray(dx, dy, 3)
    check("NN", plain(expected))
    # own piece on (1,2) closes that ray; enemy on (4,2) is captured and closes the (2,1) ray
    blocked = expected - {(1, 2), (2, 4), (3, 6)} - {(6, 3)}
    check("NN", plain(blocked), own=[(1, 2)], enemy=[(4, 2)])


def test_ranges_W3_and_B4():
    check("W3", plain(rays(*ORTHOGONAL, n=3)))
    check("B4", plain(rays(*DIAGONAL, n=4)))
    # a ranged slide stops at the first piece, capturing an enemy there
    check("W3", plain(rays((1, 0), (0, -1), (-1, 0), n=3), {(0, 1)}), own=[(0, 2)])
    check("W3", plain(rays((1, 0), (0, -1), (-1, 0), n=3), {(0, 1), (0, 2)}), enemy=[(0, 2)])


def test_modes_m_and_c_on_a_simple_move():
    check("mK", plain(ALL_LINES) - plain({(0, 1)}), enemy=[(0, 1)])
    check("cK", plain({(0, 1)}), enemy=[(0, 1)])
    check("mcK", plain(ALL_LINES), enemy=[(0, 1)])


# =================================================================================================
# Property: the second player's moves are the first player's rotated by 180 degrees
# =================================================================================================

_DIRECTIONS_BY_ATOM = {
    "orth": ["", "f", "b", "l", "r", "v", "s", "fs", "lb", "rv", "fbl"],
    "diag": ["", "f", "b", "l", "r", "v", "s", "fl", "fr", "bl", "br", "lf", "rb", "flbr"],
    "oblique": ["", "f", "b", "l", "r", "ff", "bb", "ll", "rr", "fs", "bs", "lv", "rv", "fr", "rf",
                "fl", "lf", "br", "rb", "bl", "lb", "fh", "bh", "lh", "rh", "hr", "hl"],
    "compass": ["", "f", "b", "l", "r", "v", "s", "fl", "fr", "bl", "br", "fs", "bs", "lv", "rv",
                "fh", "bh", "lh", "rh"],
}
_ATOMS = {"W": ("orth", ["", "2", "3"]), "D": ("orth", [""]), "H": ("orth", [""]),
          "R": ("orth", ["", "4"]), "F": ("diag", ["", "2", "3"]), "A": ("diag", [""]),
          "G": ("diag", [""]), "B": ("diag", ["", "4"]), "N": ("oblique", ["", "N"]),
          "C": ("oblique", [""]), "Z": ("oblique", [""]), "K": ("compass", ["", "2"]),
          "Q": ("compass", [""])}
_MODES = ["", "", "m", "c"]
_MULTI_LEG = ["mcavK", "cmfavK", "mcafmcavK", "afsW", "caK", "mRcpR", "gQ", "nN", "jD"]


@st.composite
def simple_move(draw):
    if draw(st.integers(0, 5)) == 0:
        return draw(st.sampled_from(_MULTI_LEG))
    atom = draw(st.sampled_from(sorted(_ATOMS)))
    cls, ranges = _ATOMS[atom]
    directions = draw(st.sampled_from(_DIRECTIONS_BY_ATOM[cls]))
    mode = draw(st.sampled_from(_MODES))
    rng = draw(st.sampled_from(ranges))
    return mode + directions + atom + rng


_NEAR = [(dx, dy) for dx in range(-3, 4) for dy in range(-3, 4) if (dx, dy) != (0, 0)]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(moves=st.lists(simple_move(), min_size=1, max_size=3),
       blockers=st.lists(st.sampled_from(_NEAR), max_size=5, unique=True),
       colours=st.lists(st.booleans(), min_size=5, max_size=5))
def test_second_player_moves_are_the_first_players_rotated_180_degrees(moves, blockers, colours):
    # Each move string is checked on its own: written one after another, two of them can read as
    # something else ("N" + "N" is the nightrider "NN"), which is not what this property is about.
    own = [b for b, enemy in zip(blockers, colours) if not enemy]
    enemy = [b for b, enemy in zip(blockers, colours) if enemy]
    for betza in moves:
        first = effects(betza, own=own, enemy=enemy)
        # `setup` rotates the blockers for the second player; compare in absolute board offsets
        second_board = setup(betza, second_player=True, own=own, enemy=enemy)
        second_absolute = rotated(set(raw_effects(second_board, second_player=True)))
        assert second_absolute == rotated(first), betza
