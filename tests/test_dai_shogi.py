"""Dai Shogi's rules as replay/variants/dai-shogi.toml and docs/rules/dai.md state them, one test per
rule (each fails if the rule is not applied):

* the array: 65 pieces a side, the second player's the first's turned half round, the Lion, Kirin
  and Phoenix on g3, h3, i3 (Wikipedia's diagram; HaChu's array is checked in tests/test_engine.py);
* the Dai-only pieces' moves, the Violent Ox and Flying Dragon blocked on the first square (and
  jumping with option two-square-moves=jump); all eight promote to a Gold General;
* the five-rank zone with Chu Shogi's promotion rule, the last-rank provision for the pieces that
  could never move from there, nothing compulsory;
* Chu Shogi's Lion-trading rules, and none with option lion-trading=none.
"""

from __future__ import annotations

from collections import Counter

import pytest

from daikifu.replay import Board, Move, load_variant
from daikifu.replay.squares import parse_square, square, square_file, square_name, square_rank

from position_support import position_text

DAI = load_variant("dai-shogi")


def sq(name: str) -> int:
    return parse_square(name, 15, 15)


def board(pieces: dict, turn: str = "b", **options) -> Board:
    pieces = {"h1": "K", "h15": "k", **pieces}
    return Board(DAI, position_text(pieces, 15, 15, turn), options=options or None)


def targets(b: Board, origin: str) -> set:
    return {square_name(m.to_square) for m in b.legal_moves() if m.from_square == sq(origin)}


def promotions(b: Board, a: str, c: str) -> set:
    """The promotion choices of the moves from ``a`` to ``c``: True, False or both."""
    return {bool(m.promotion) for m in b.legal_moves() if m.from_square == sq(a) and m.to_square == sq(c)}


def test_the_array():
    b = Board(DAI)
    pieces = b.pieces()
    assert Counter(p.colour for p in pieces.values()) == {0: 65, 1: 65}
    assert len({p.id for p in pieces.values()}) == 29
    for s, p in pieces.items():  # turned half round, colours swapped
        other = b.piece_at(square(14 - square_file(s), 14 - square_rank(s)))
        assert other is not None and other.id == p.id and other.colour != p.colour, square_name(s)
    assert [b.piece_at(sq(s)).id for s in ("g3", "h3", "i3", "h1", "h2", "h4", "e6", "k6")] == \
        ["KR", "LN", "PH", "K", "DE", "FK", "GB", "GB"]


@pytest.mark.parametrize("piece, origin, expected", [
    ("I", "h8", {"g9", "h9", "i9"}),
    ("SG", "h8", {"g9", "i9"}),
    ("N", "h8", {"g10", "i10"}),
    ("AB", "h8", {"h9", "h7", "g8", "i8"}),
    ("CS", "h8", {"g9", "i9", "g7", "i7"}),
    ("EW", "h8", {"g9", "h9", "i9", "g8", "i8"}),
    ("VO", "h8", {"h9", "h10", "h7", "h6", "g8", "f8", "i8", "j8"}),
    ("FD", "h8", {"g9", "f10", "i9", "j10", "g7", "f6", "i7", "j6"}),
])
def test_the_dai_only_pieces_move_as_documented(piece, origin, expected):
    assert targets(board({origin: piece}), origin) == expected


def test_violent_ox_and_flying_dragon_are_blocked_unless_they_jump():
    pieces = {"h8": "VO", "h9": "P", "c3": "FD", "d4": "P"}
    assert "h10" not in targets(board(pieces), "h8") and "e5" not in targets(board(pieces), "c3")
    jumping = board(pieces, **{"two-square-moves": "jump"})
    assert "h10" in targets(jumping, "h8") and "e5" in targets(jumping, "c3")
    assert "h9" not in targets(jumping, "h8")  # a jump, not a slide: the own Pawn stays in the way


@pytest.mark.parametrize("piece", ["I", "SG", "N", "AB", "CS", "EW", "VO", "FD"])
def test_the_dai_only_pieces_promote_to_a_gold_general(piece):
    promoted = DAI.piece(piece).promotes
    gold = board({"h8": "G"})
    assert targets(board({"h8": promoted}), "h8") == targets(gold, "h8")


def test_promotion_on_entering_the_five_rank_zone_or_by_a_capture_in_it():
    b = board({"c10": "AB", "e11": "AB", "g11": "AB", "g12": "p"})
    assert promotions(b, "c10", "c11") == {True, False}  # enters the zone (ranks 11-15)
    assert promotions(b, "e11", "e12") == {False}  # a quiet move inside it
    assert promotions(b, "g11", "g12") == {True, False}  # a capture inside it
    assert promotions(b, "c10", "c9") == {False}


def test_the_pieces_that_could_never_move_from_the_last_rank_may_promote_on_reaching_it():
    b = board({"a14": "I", "c14": "SG", "e13": "N", "g14": "P", "i14": "L", "k14": "AB"})
    assert promotions(b, "a14", "a15") == {True, False}
    assert promotions(b, "c14", "b15") == {True, False}
    assert promotions(b, "e13", "d15") == {True, False}
    assert promotions(b, "g14", "g15") == {True, False}
    assert promotions(b, "i14", "i15") == {True, False}
    assert promotions(b, "k14", "k15") == {False}  # the Angry Boar can move from there: Chu's rule
    chu_like = Board(DAI, b.position(), options={"last-rank-promotion": "pawn-lance"})
    assert promotions(chu_like, "a14", "a15") == {False} and promotions(chu_like, "g14", "g15") == {True, False}


def test_a_knight_may_stay_unpromoted_where_it_can_no_longer_move():
    b = board({"e12": "N"})
    assert promotions(b, "e12", "d14") == {False}  # a quiet move inside the zone: no promotion
    b.push(Move(sq("e12"), sq("d14")))
    assert b.piece_at(sq("d14")).id == "N"


def test_a_protected_lion_may_not_be_taken_from_afar_unless_the_rule_is_off():
    pieces = {"h6": "LN", "h8": "ln", "h9": "g"}
    assert "h8" not in targets(board(pieces), "h6")
    assert "h8" in targets(board(pieces, **{"lion-trading": "none"}), "h6")
    assert "h8" in targets(board({"h6": "LN", "h8": "ln"}), "h6")  # unprotected: allowed


def test_after_a_non_lion_takes_a_lion_only_a_lion_may_take_a_lion():
    pieces = {"g8": "ln", "g7": "P", "h6": "g", "h5": "LN"}
    for options, allowed in (({}, False), ({"lion-trading": "none"}, True)):
        b = board(pieces, **options)
        b.push(Move(sq("g7"), sq("g8")))
        assert ("h5" in targets(b, "h6")) == allowed, options
