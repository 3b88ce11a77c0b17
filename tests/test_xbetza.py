"""The XBetza parser: what it accepts, and how it rejects what it does not understand.

Reference: docs/rules/xbetza.md, section 2 (grammar), 2.1 (atoms), 3 (directions),
4 (modes), 7.3 (the Wrestler's `F3SW`).  The moves themselves are checked in
``test_xbetza_moves.py``; here the question is how a string is read.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from daikifu.replay.variant import VariantError
from daikifu.replay.xbetza import XBetzaError, parse
from xbetza_support import effects, make_variant


# --- splitting a piece string into moves and legs (section 2) ------------------------------------


def test_a_new_move_starts_after_each_atom_and_its_range():
    assert [p.text for p in parse("RbBcmfavK")] == ["R", "bB", "cmfavK"]
    assert [p.text for p in parse("frB4lbW2flFbrFfW")] == ["frB4", "lbW2", "flF", "brF", "fW"]
    assert [p.text for p in parse("KmcavKmcafmcavK")] == ["K", "mcavK", "mcafmcavK"]


def test_a_splits_the_modifiers_into_legs_sharing_the_final_atom():
    (eagle,) = parse("cmfavK")
    assert eagle.atom == "K" and len(eagle.legs) == 2
    (three,) = parse("mcafmcavK")
    assert len(three.legs) == 3
    assert all(len(p.legs) == 1 for p in parse("RbB"))


def test_ranges_and_doubled_atoms():
    (w3,) = parse("W3")
    (b4,) = parse("B4")
    (nn,) = parse("NN")
    (ww,) = parse("WW")
    (w0,) = parse("W0")
    (r,) = parse("R")
    assert (w3.atom, w3.range) == ("W", 3)
    assert b4.range == 4
    assert nn.atom == "N" and nn.range == 0  # nightrider: unlimited
    assert ww.range == 0 and w0.range == 0 and r.range == 0  # W0 = WW = R (rook)


def test_default_modes_are_mc_on_the_final_leg_and_m_on_earlier_legs():
    (move,) = parse("afsW")
    assert move.legs[0].modes == frozenset("m")
    assert move.legs[1].modes == frozenset("mc")


def test_camel_and_zebra_have_their_alternative_letters():
    # 2.1: C (=L) camel, Z (=J) zebra
    assert effects("L") == effects("C")
    assert effects("J") == effects("Z")


# --- the order of letters inside a leg does not matter (section 2) --------------------------------

SAME_MEANING = [
    ("cmfavK", "mcfavK", "fmcavK", "fcmavK"),
    ("mcavK", "cmavK"),
    ("mcafmcavK", "cmafcmavK", "mcafcmavK"),
    ("mRcpR", "mRpcR"),
    ("fmW", "mfW"),
]


@pytest.mark.parametrize("spellings", SAME_MEANING, ids=lambda s: "=".join(s))
def test_letter_order_within_a_leg_does_not_change_the_parsed_legs(spellings):
    legs = [[p.legs for p in parse(s)] for s in spellings]
    assert all(x == legs[0] for x in legs), spellings


@pytest.mark.parametrize("spellings", SAME_MEANING, ids=lambda s: "=".join(s))
def test_letter_order_within_a_leg_does_not_change_the_moves(spellings):
    # with an enemy in front and one behind, so that locust captures and igui show up
    for own, enemy in (((), ()), ((), [(0, 1), (0, -2)]), ([(1, 0)], [(0, 1)])):
        results = [effects(s, own=own, enemy=enemy) for s in spellings]
        assert all(r == results[0] for r in results), (spellings, own, enemy)


def test_pairs_of_direction_letters_are_read_in_order_on_oblique_atoms():
    # 3.3: fr = (2,1) but rf = (1,2): the order of direction letters does matter there
    assert parse("frN")[0].legs != parse("rfN")[0].legs


# --- errors: malformed or unsupported strings name the letter and its 1-based position ----------


def _names(message: str, text: str, letter: str, position: int) -> bool:
    """Whether ``message`` names ``letter`` and ``position`` outside the quoted piece string."""
    rest = message.replace(repr(text), "").replace(f'"{text}"', "")
    return (f"'{letter}'" in rest or f'"{letter}"' in rest) and re.search(rf"\b{position}\b", rest) is not None


REJECTED = [
    # (string, offending letter, 1-based position, why)
    ("F3SW", "S", 3, "capital S is not an atom (the Wrestler's typo, notes 7.3)"),
    ("fX", "X", 2, "X is not an atom of the notes (2.1)"),
    ("W03", "0", 2, "exact ranges ('0N') are not supported"),
    ("3W", "3", 1, "a range must follow an atom"),
    ("dK", "d", 1, "destroying own pieces ('d') is not supported"),
    ("uW", "u", 1, "'u' (unload) is newer than the reference implementation"),
    ("hW", "h", 1, "'h' has no meaning on W (3.1)"),
    ("WxF", "x", 2, "unknown modifier"),
    ("RbBqK", "q", 4, "unknown modifier in a later move"),
    ("mcafmcavK3S", "S", 11, "unknown atom after a valid multi-leg move"),
    ("f3W", "3", 2, "a range must follow an atom, not a modifier"),
    ("eW", "e", 1, "en passant is not supported"),
    ("tK", "t", 1, "'t' is not supported"),
    ("oW", "o", 1, "cylinder moves are not supported"),
    ("mcyafK", "y", 3, "'y' is not supported"),
    ("RfW-", "-", 4, "not a letter of the notation"),
]


@pytest.mark.parametrize("text,letter,position,why", REJECTED, ids=[r[0] for r in REJECTED])
def test_malformed_or_unsupported_strings_raise_naming_the_letter_and_position(text, letter, position, why):
    with pytest.raises(XBetzaError) as info:
        parse(text)
    assert _names(str(info.value), text, letter, position), f"{why}: {info.value}"


def test_modifiers_without_an_atom_are_rejected():
    # `fm` has no atom at all; the message must point at the modifiers left without one
    with pytest.raises(XBetzaError) as info:
        parse("fm")
    message = str(info.value)
    assert _names(message, "fm", "m", 2) or _names(message, "fm", "f", 1), message
    with pytest.raises(XBetzaError) as info:
        parse("Wfm")
    message = str(info.value)
    assert _names(message, "Wfm", "m", 3) or _names(message, "Wfm", "f", 2), message


def test_an_empty_piece_string_is_rejected():
    with pytest.raises(XBetzaError):
        parse("")


def test_nothing_is_parsed_silently_in_part():
    # XBoard stops at an unknown atom and keeps what it read before (F3); the engine must not
    for text in ("F3SW", "RbBfX", "WfFfm"):
        with pytest.raises(XBetzaError):
            parse(text)


def test_a_variant_with_the_wrestler_typo_is_rejected_and_the_message_names_S_at_position_3():
    with pytest.raises((VariantError, XBetzaError)) as info:
        make_variant("F3SW", pid="W")
    assert _names(str(info.value), "F3SW", "S", 3), str(info.value)


def test_the_wrestler_as_written_in_the_prose_parses():
    assert [p.text for p in parse("F3sW")] == ["F3", "sW"]


# --- nothing read in part (issue 15) -------------------------------------------------------------


@pytest.mark.parametrize("text, letter, position, reason", [
    ("jjR", "j", 2, "given twice"),         # was read as jR
    ("mmW", "m", 2, "given twice"),
    ("cfmcaW", "c", 4, "given twice"),
    ("sfK", "s", 1, "'fs'"),                # was read as fsK
    ("sfN", "s", 1, "'fs'"),                # was read as fsN
    ("vlK", "v", 1, "'lv'"),
    ("WasbK", "s", 3, "'bs'"),              # continuation legs too
    ("njD", "j", 2, "allow no move"),       # gave no moves without a word
    ("jnN", "n", 2, "allow no move"),
    ("hN", "h", 1, "'hl'"),                 # was read as hlN
    ("W" + "9" * 5000, "9", 2, "5000 digits"),
])
def test_strings_outside_the_grammar_are_refused_at_the_letter(text, letter, position, reason):
    with pytest.raises(XBetzaError) as info:
        parse(text)
    err = info.value
    assert (err.letter, err.position + 1) == (letter, position)
    assert reason in str(err) and len(str(err)) < 300


def test_the_documented_pairs_are_read_as_before():
    assert {v for p in parse("fsK") for v in p.legs[0].directions} == {(1, 1), (-1, 1)}
    assert {v for p in parse("lvK") for v in p.legs[0].directions} == {(-1, 1), (-1, -1)}
    assert {v for p in parse("fsN") for v in p.legs[0].directions} == {(2, 1), (-2, 1)}
    assert {v for p in parse("sfW") for v in p.legs[0].directions} == {(1, 0), (-1, 0), (0, 1)}


_XBETZA_LETTERS = "WFDAHGNCLZJKRBQ" + "fblrvsh" + "mcpgnjia" + "detouyxkqzw" + "0123"


@settings(max_examples=400, derandomize=True, deadline=None)
@given(st.text(alphabet=_XBETZA_LETTERS + "E -é", max_size=14))
def test_any_string_parses_whole_or_fails_at_a_letter(text):
    try:
        patterns = parse(text)
    except XBetzaError as err:
        assert 0 <= err.position <= max(len(text) - 1, 0)
        assert err.letter == (text[err.position] if text else "")
        return
    assert "".join(p.text for p in patterns) == text
    for p in patterns:
        assert p.legs and all(leg.directions for leg in p.legs)
