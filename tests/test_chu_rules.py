"""Chu Shogi's rules, one test per rule (each fails if the rule is not applied):

* several royal pieces: the Crown Prince (promoted Drunk Elephant) keeps a side alive after its
  King is captured; position strings, hashes and the royal squares follow every royal;
* moving into check is legal, and losing every royal loses (option check=checkmate: not legal);
* promotion on entering the zone or on a capture that starts or ends in it, never on a quiet
  move inside it; nothing compulsory (a Pawn may stay on the last rank);
* the Lion-trading rules: a protected Lion two squares away may not be taken by a Lion, unless
  the first step took something other than a Pawn or Go-Between; the counter-strike rule;
* the bare King;
* variant files using rules the core does not know, or in combinations it cannot hold, are refused.

Positions are written in lishogi's SFEN where they come from lishogi's tests (its piece letters are
aliases in the variant file), else square by square (``a1`` is the first player's lower left).
"""

from __future__ import annotations

import tomllib

import pytest

from daikifu.replay import FIRST, SECOND, Board, Move, load_variant
from daikifu.replay.board import Outcome
from daikifu.replay.position import PositionError
from daikifu.replay.squares import parse_square, square
from daikifu.replay.variant import VariantError, variant_from_dict

from position_support import legal, position_text

CHU = load_variant("chu-shogi")


def sq(name: str) -> int:
    return parse_square(name)


def ls(name: str) -> int:
    """A square in lishogi's naming (file number from the first player's right, rank letter from
    the top): ``ls("12l") == sq("a1")``."""
    number, letter = int(name[:-1]), name[-1]
    return square(12 - number, 11 - "abcdefghijkl".index(letter))


def board(pieces: dict, turn: str = "b", **options) -> Board:
    return Board(CHU, position_text(pieces, 12, 12, turn), options=options or None)


def mv(a: str, b: str, kills=(), promotion=None) -> Move:
    return Move(sq(a), sq(b), tuple(sq(k) for k in kills), promotion)


# --- royal pieces ---------------------------------------------------------------------------------


def test_crown_prince_keeps_a_side_alive_after_its_king_is_captured():
    b = board({"e1": "K", "g2": "+DE", "l1": "G", "a12": "k", "l12": "s", "e3": "r"}, turn="w")
    assert set(b.royal_squares(FIRST)) == {sq("e1"), sq("g2")}
    b.play(mv("e3", "e1", promotion=False))  # the Rook takes the King
    assert b.royal_squares(FIRST) == (sq("g2"),)
    assert b.outcome() is None  # the Crown Prince plays on
    b.play(mv("g2", "f2"))
    b.play(mv("e1", "f1"))  # a quiet move inside its zone: no promotion
    assert b.outcome() is None
    b.play(mv("f2", "f1"))  # the Prince takes the Rook
    assert b.outcome() is None and Board(CHU, b.position()).position() == b.position()
    b.play(mv("a12", "a11"))
    assert b.outcome() is None


def test_crown_prince_captured_after_the_king_loses():
    b = board({"g2": "+DE", "l1": "G", "a12": "k", "g5": "r"}, turn="w")
    assert b.outcome() is None
    b.play(mv("g5", "g2", promotion=False))
    assert b.outcome() == Outcome("royal-capture", SECOND)


def test_losing_the_last_royal_loses():
    b = board({"e1": "K", "a12": "k", "e3": "r"}, turn="w")
    b.play(mv("e3", "e1", promotion=False))
    assert b.outcome() == Outcome("royal-capture", SECOND)


def test_promotion_to_a_royal_adds_a_royal_and_the_position_string_reads_back():
    b = board({"e8": "DE", "e1": "K", "a12": "k"})
    b.play(mv("e8", "e9", promotion=True))  # entering the zone
    assert set(b.royal_squares(FIRST)) == {sq("e1"), sq("e9")}
    text = b.position()
    again = Board(CHU, text)
    assert again.position() == text and again.zobrist == b.zobrist
    assert set(again.royal_squares(FIRST)) == {sq("e1"), sq("e9")}
    b.pop()
    assert b.royal_squares(FIRST) == (sq("e1"),)


def test_two_royals_per_side_in_a_position_string():
    text = position_text({"e1": "K", "f1": "+DE", "e12": "k", "f12": "+de"}, 12, 12)
    b = Board(CHU, text)
    assert b.position() == text
    assert len(b.royal_squares(FIRST)) == 2 and len(b.royal_squares(SECOND)) == 2
    assert b.outcome() is None and b.legal_moves()


def test_moving_into_check_is_legal_unless_the_option_forbids_it():
    pieces = {"e1": "K", "a12": "k", "f8": "r"}
    assert legal(board(pieces), mv("e1", "f2"))  # onto the Rook's file
    strict = board(pieces, check="checkmate")
    assert not legal(strict, mv("e1", "f2"))
    assert "royal" in strict.illegal_reason(mv("e1", "f2"))


def test_with_two_royals_under_checkmate_rules_one_may_be_left_attacked():
    pieces = {"e1": "K", "h1": "+DE", "a12": "k", "f8": "r"}
    b = board(pieces, check="checkmate")
    assert legal(b, mv("e1", "f2"))  # the Crown Prince remains
    alone = board({"e1": "K", "a12": "k", "f8": "r"}, check="checkmate")
    assert not legal(alone, mv("e1", "f2"))


# --- promotion ------------------------------------------------------------------------------------


def test_lishogi_valid_promotions():
    # lishogi's 'valid promotions' test position and moves (shogiops test/rules/chushogi.test.ts)
    b = Board(CHU, "10p1/2I1pP2p1LL/1Rp1PB2LL2/12/7L4/1p10/12/12/11k/12/11K/12 b - 1")

    def ok(a, z, promotion):
        return b.illegal_reason(Move(ls(a), ls(z), (), promotion)) is None

    assert ok("7c", "8b", True) and ok("7c", "8b", False)  # a capture inside the zone
    assert not ok("7c", "6b", True) and ok("7c", "6b", None)  # a quiet move inside the zone
    assert ok("7b", "7a", True) and ok("7b", "7a", False)  # a Pawn to the last rank
    assert ok("5e", "5c", True) and ok("5e", "5c", False)  # entering the zone
    assert ok("11c", "11f", True) and ok("11c", "11f", False)  # a capture leaving the zone


def test_quiet_moves_inside_or_out_of_the_zone_cannot_promote_captures_can():
    b = board({"e10": "S", "e9": "S", "f8": "p", "e1": "K", "a12": "k"})
    assert b.illegal_reason(mv("e10", "d9", promotion=True)) == "the piece cannot promote on this move"
    assert legal(b, mv("e10", "d9"))  # inside the zone: no promotion, none to choose
    assert b.illegal_reason(mv("e9", "d8", promotion=True)) == "the piece cannot promote on this move"
    assert legal(b, mv("e9", "f8", promotion=True)) and legal(b, mv("e9", "f8", promotion=False))
    assert b.illegal_reason(mv("e9", "f8")) == "the move can promote: promotion must be chosen"


def test_a_pawn_may_stay_unpromoted_on_the_last_rank():
    b = board({"e11": "P", "e1": "K", "a12": "k"})
    assert legal(b, mv("e11", "e12", promotion=False))
    assert legal(b, mv("e11", "e12", promotion=True))
    b.play(mv("e11", "e12", promotion=False))
    assert b.piece_at(sq("e12")).id == "P"
    assert Board(CHU, b.position()).position() == b.position()  # a stuck Pawn is a valid position
    b.play(mv("a12", "a11"))
    assert not [m for m in b.legal_moves() if m.from_square == sq("e12")]


# --- the Lion-trading rules -----------------------------------------------------------------------


def test_a_lion_may_not_take_a_protected_lion_two_squares_away():
    pieces = {"e5": "LN", "e7": "ln", "e8": "g", "a1": "K", "l12": "k"}
    b = board(pieces)
    assert not legal(b, mv("e5", "e7"))
    assert "protected" in b.illegal_reason(mv("e5", "e7"))
    del pieces["e8"]  # unprotected: allowed
    assert legal(board(pieces), mv("e5", "e7"))


def test_an_adjacent_protected_lion_may_be_taken():
    b = board({"e6": "LN", "e7": "ln", "e8": "g", "a1": "K", "l12": "k"})
    assert legal(b, mv("e6", "e7"))


def test_the_promoted_kirin_counts_as_a_lion():
    b = board({"e5": "LN", "e7": "+kr", "e8": "g", "a1": "K", "l12": "k"})
    assert not legal(b, mv("e5", "e7"))


def test_bridge_a_first_step_taking_a_silver_allows_the_capture():
    b = board({"e5": "LN", "e6": "s", "e7": "ln", "e8": "g", "a1": "K", "l12": "k"})
    assert legal(b, mv("e5", "e7", kills=["e6"]))


def test_no_bridge_over_a_pawn_or_go_between():
    for cheap in ("p", "gb"):
        b = board({"e5": "LN", "e6": cheap, "e7": "ln", "e8": "g", "a1": "K", "l12": "k"})
        assert not legal(b, mv("e5", "e7", kills=["e6"])), cheap


def test_a_pawn_taken_on_the_first_step_still_protects_as_in_lishogi():
    # the second player's Pawn on e4 protects e3; taking it first does not lift the protection
    b = board({"e5": "LN", "e4": "p", "e3": "ln", "a1": "K", "l12": "k"})
    assert not legal(b, mv("e5", "e3", kills=["e4"]))
    # a Silver taken first is a bridge
    b = board({"e5": "LN", "e4": "s", "e3": "ln", "e2": "g", "a1": "K", "l12": "k"}, turn="b")
    assert legal(b, mv("e5", "e3", kills=["e4"]))


STRIKE = {"e5": "G", "e6": "ln", "h3": "LN", "h12": "r", "a1": "K", "l12": "k"}


def gold_takes_lion(**extra) -> Board:
    """The first player's Gold on e5 takes the second player's Lion on e6 (STRIKE, and ``extra``)."""
    b = board({**STRIKE, **extra})
    b.play(mv("e5", "e6"))
    return b


def test_counter_strike_refused_then_allowed_a_move_later():
    # a Gold takes the second player's Lion; the second player's Rook may not take the first
    # player's Lion on the next move, but may a move later
    b = gold_takes_lion(a12="p")
    assert b.lion_capture_square == sq("e6")
    assert not legal(b, mv("h12", "h3", promotion=False))
    assert "counter-strike" in b.illegal_reason(mv("h12", "h3", promotion=False))
    b.play(mv("a12", "a11"))
    b.play(mv("a1", "a2"))
    assert b.lion_capture_square is None
    assert legal(b, mv("h12", "h3", promotion=False))


def test_counter_strike_does_not_bind_a_lion():
    b = gold_takes_lion(h4="ln")
    assert legal(b, mv("h4", "h3"))  # the second player's other Lion may take


def test_counter_strike_allows_taking_back_on_the_same_square_unless_strict():
    # a Kirin takes the Lion and promotes to a Lion on that square: it may be taken back there
    pieces = {"e8": "KR", "e10": "ln", "e12": "r", "h5": "LN", "h12": "b", "a1": "K", "l12": "k"}
    for option, allowed in (("same-square", True), ("strict", False)):
        b = board(pieces, **{"counter-strike": option})
        b.play(mv("e8", "e10", promotion=True))
        assert b.piece_at(sq("e10")).id == "+KR"
        assert legal(b, mv("e12", "e10")) is allowed, option


def test_a_lion_taken_by_a_lion_sets_no_counter_strike():
    b = board({"e5": "LN", "e6": "ln", "h3": "LN", "h12": "r", "a1": "K", "l12": "k"})
    b.play(mv("e5", "e6"))
    assert b.lion_capture_square is None
    assert legal(b, mv("h12", "h3", promotion=False))


def test_the_counter_strike_square_is_kept_in_position_strings_and_hashes():
    b = gold_takes_lion()
    text = b.position()
    assert text.split()[2] == "e6"
    again = Board(CHU, text)
    assert again.position() == text and again.zobrist == b.zobrist
    assert not legal(again, mv("h12", "h3", promotion=False))
    plain = Board(CHU, text.replace(" e6 ", " - "))
    assert plain.zobrist != b.zobrist and legal(plain, mv("h12", "h3", promotion=False))
    # lishogi writes the same square as 8f (file number from the right, rank letter from the top)
    assert Board(CHU, text.replace(" e6 ", " 8g ")).position() == text


def test_a_counter_strike_square_holds_the_piece_that_just_moved_or_nothing():
    text = position_text({"e6": "G", "a1": "K", "l12": "k"}, 12, 12, "w").replace(" - ", " e6 ")
    assert Board(CHU, text).lion_capture_square == sq("e6")
    # empty: the Lion was taken without the taker moving there (igui, or the first of two steps),
    # which shogiops records as the square where the Lion stood
    assert Board(CHU, text.replace(" e6 ", " e7 ")).lion_capture_square == sq("e7")
    for bad in (text.replace(" e6 ", " l12 "), text.replace(" w ", " b "), text.replace(" e6 ", " z9 ")):
        with pytest.raises(PositionError):
            Board(CHU, bad)


def test_a_lion_taken_by_igui_leaves_a_position_string_that_reads_back():
    # a Soaring Eagle takes the Lion on h2 and stays on g3: the Lion-capture square is empty
    b = Board(CHU, position_text({"g3": "+dk", "h2": "LN", "f1": "K", "l12": "k"}, 12, 12, "w"))
    b.play(Move(sq("g3"), sq("g3"), (sq("h2"),)))
    assert b.lion_capture_square == sq("h2")
    again = Board(CHU, b.position())
    assert (again.position(), again.zobrist, again.lion_capture_square) == (b.position(), b.zobrist, sq("h2"))


def test_lishogi_counter_strike_perft_position():
    # shogiops' chushogiPerfts: the same position with and without the Lion-capture square
    assert len(Board(CHU, "11k/12/12/12/12/4r7/12/12/9n2/4+o7/12/6B4K b 8j").legal_moves()) == 7
    assert len(Board(CHU, "11k/12/12/12/12/4r7/12/12/9n2/4+o7/12/6B4K b -").legal_moves()) == 8


# --- bare King ------------------------------------------------------------------------------------


def play_usi(b: Board, a: str, z: str, promotion=None) -> None:
    b.play(Move(ls(a), ls(z), (), promotion))


def test_bare_king_loses():
    # lishogi's 'bare king' tests: taking the last Gold bares the second player's King
    b = Board(CHU, "12/12/12/12/6k5/4g7/4G7/6K5/12/12/12/12 b - 1")
    assert b.outcome() is None
    play_usi(b, "8g", "8f")
    assert b.outcome() == Outcome("bare-royal", FIRST)


def test_a_bare_king_that_can_take_back_is_not_lost_and_two_kings_draw():
    b = Board(CHU, "12/12/12/12/6k5/5g6/4G7/6K5/12/12/12/12 b - 1")
    play_usi(b, "8g", "7f")
    assert b.outcome() is None  # the bare King can take the Gold
    draw = b.copy()
    play_usi(draw, "6e", "7f")
    assert draw.outcome() == Outcome("bare-royal", None)
    play_usi(b, "6e", "6d")
    assert b.outcome() == Outcome("bare-royal", FIRST)


def test_pawns_and_go_betweens_do_not_count_for_the_barer():
    for extra in ("P", "I"):  # lishogi's letter for the Go-Between
        assert Board(CHU, f"12/12/12/12/6k5/12/12/6K3{extra}1/12/12/12/12 b - 1").outcome() is None
    assert Board(CHU, "12/12/12/12/6k5/12/12/6K3S1/12/12/12/12 b - 1").outcome() == Outcome("bare-royal", FIRST)


def test_the_bare_king_rule_is_an_option():
    b = Board(CHU, "12/12/12/12/6k5/4g7/4G7/6K5/12/12/12/12 b - 1", options={"bare-king": "none"})
    play_usi(b, "8g", "8f")
    assert b.outcome() is None


def test_pawn_promotion_bares_the_king_in_lishogis_example():
    b = Board(CHU, "12/12/12/12/3I2k5/12/12/5+pK5/12/12/12/12 b - 1")
    play_usi(b, "6h", "7h")
    assert b.outcome() is None
    play_usi(b, "6e", "7d")
    assert b.outcome() is None
    play_usi(b, "9e", "9d", True)
    assert b.outcome() is not None and b.outcome().termination == "bare-royal"


def test_stuck_pawns_and_lances_do_not_count():
    b = Board(CHU, "1P3PP3P1/12/12/12/6k5/12/12/6K5/12/12/12/l10l b - 1")
    assert b.outcome() == Outcome("bare-royal", None)


# --- the Lion's moves (lishogi's 'lion moves' examples) -------------------------------------------


def test_lion_moves_of_lishogis_examples():
    b = Board(CHU, "12/12/12/12/12/6+O5/12/12/12/12/12/12 b")
    lion = ls("6f")
    assert len({m.to_square for m in b.legal_moves() if m.from_square == lion} - {lion}) == 24
    b2 = Board(CHU, "3l8/11p/10p1/3n5+D2/2i1f7/3N5G2/9+H2/2t2P1i4/2p3+D5/2+H9/12/12 b")
    assert legal(b2, Move(ls("3g"), ls("3e")))  # the Falcon jumps
    assert not legal(b2, Move(ls("3g"), ls("3f")))  # onto its own Gold
    assert legal(b2, Move(ls("6i"), ls("5h"), (), None))
    assert legal(b2, Move(ls("6i"), ls("6i"), (ls("5h"),)))  # igui
    assert legal(b2, Move(ls("6i"), ls("4g"), (ls("5h"),)))
    assert legal(b2, Move(ls("3d"), ls("1b"), (ls("2c"),)))  # the Eagle's double capture
    assert not legal(b2, Move(ls("3d"), ls("2c"), (ls("1b"),)))


# --- variant files --------------------------------------------------------------------------------


def chu_data() -> dict:
    with open(CHU.path, "rb") as fh:
        return tomllib.load(fh)


@pytest.mark.parametrize("change, message", [
    ({"lion_rules": True}, "unknown keys ['lion_rules']"),
    ({"royal_loss": "extinction"}, "royal_loss"),
    ({"lion_counter_strike": "sometimes"}, "lion_counter_strike"),
    ({"lions": []}, "need the Lions"),
    ({"lions": ["XX"]}, "unknown piece 'XX'"),
    ({"drops": True}, "cannot be combined with drops"),
    ({"lion_protected": "yes"}, "expected true or false"),
    ({"promotion_rule": "anywhere"}, "promotion_rule"),
    ({"bare_royal_uncounted": "P"}, "must be a list"),
])
def test_variant_files_with_rules_the_core_cannot_apply_are_refused(change, message):
    data = chu_data()
    data["rules"].update(change)
    with pytest.raises(VariantError) as info:
        variant_from_dict(data, "my-chu.toml")
    assert message in str(info.value) and "my-chu.toml" in str(info.value)


def test_an_option_choosing_an_unknown_rule_value_is_refused():
    data = chu_data()
    data["options"]["counter-strike"]["choices"]["strict"]["rules"] = {"lion_counter_strike": "never"}
    with pytest.raises(VariantError, match="lion_counter_strike"):
        variant_from_dict(data, "my-chu.toml")


def test_the_start_position_and_perft():
    b = Board(CHU)
    assert b.position() == CHU.start
    assert len(b.legal_moves()) == 36  # shogiops' chushogiPerfts


def test_the_board_editor_knows_chu_positions_are_possible():
    from daikifu.replay import compile_rules
    from daikifu.replay.legality import position_problems

    rules = compile_rules(CHU)

    def kinds(pieces, turn="b"):
        return [p.kind for p in position_problems(rules, position_text(pieces, 12, 12, turn))]

    assert kinds({"e1": "K", "f1": "+DE", "e12": "k", "f12": "+de"}) == []  # King and Crown Prince
    assert kinds({"e6": "K", "e7": "k"}) == []  # moving into check is legal: adjacent Kings occur
    assert kinds({"e12": "P", "e1": "K", "a12": "k"}) == []  # an unpromoted Pawn on the last rank
    assert kinds({"e1": "K", "f1": "+DE", "g1": "+DE", "e12": "k"}) == ["royals"]
    assert kinds({"e1": "K"}) == ["no-royal"]
