"""Tenjiku Shogi's mechanisms in the rules core, on positions built square by square: the range
jump by rank (both readings), the Fire Demon's area move and its burn (part of the move's
captures: undo, hashing, check detection), and the burn count of move text.  Every expected set
is worked out by hand in the comments; HaChu's check is in tests/test_engine.py."""

from __future__ import annotations

import random

import pytest

from daikifu.formats.game import Game
from daikifu.formats.lsn import read_game, write_game
from daikifu.replay import Board, IllegalMoveError, Move, Outcome, square_name
from daikifu.replay.randomplay import random_moves
from daikifu.replay.notation import NotationError, move_notation, parse_move
from daikifu.replay.squares import parse_square

from position_support import position_text

KINGS = {"a1": "K", "p16": "k"}


def sq(name: str) -> int:
    return parse_square(name, 16, 16)


def board(pieces: dict, turn: str = "b", **options) -> Board:
    return Board("tenjiku-shogi", position_text({**KINGS, **pieces}, 16, 16, turn), options=options or None)


def targets(b: Board, origin: str) -> set:
    return {square_name(m.to_square) for m in b.legal_moves() if m.from_square == sq(origin)}


# --- range jumps ----------------------------------------------------------------------------------

JUMPS = {"e4": "GG", "e6": "P", "e8": "p", "e9": "gg", "e10": "p", "e3": "rg", "e1": "s",
         "m4": "RG", "n4": "gg", "o4": "p"}


TSA = {"jumping-generals": "tsa"}


def test_a_jumping_general_jumps_lower_pieces_and_is_stopped_by_an_equal_one():
    b = board(JUMPS, **TSA)
    up = {t for t in targets(b, "e4") if t[0] == "e" and int(t[1:]) > 4}
    # e5 empty; the own Pawn on e6 (rank 0) is jumped, e7 is not a landing square (jumps are for
    # captures), the Pawn on e8 is taken, the Great General on e9 (equal rank) stops it untaken
    assert up == {"e5", "e8"}
    down = {t for t in targets(b, "e4") if t[0] == "e" and int(t[1:]) < 4}
    # the Rook General on e3 (lower rank) is taken and jumped, e2 is empty, the Silver on e1 taken
    assert down == {"e3", "e1"}
    east = {t for t in targets(b, "m4") if t[1:] == "4" and t > "m"}
    # the first piece is taken whatever its rank (a Great General), but a Rook General cannot
    # jump it to the Pawn behind
    assert east == {"n4"}
    assert board(JUMPS).legal_moves() != b.legal_moves()  # (the default reading is the other one)
    west = {t for t in targets(b, "m4") if t[1:] == "4" and t < "m"}
    assert west == {"f4", "g4", "h4", "i4", "j4", "k4", "l4"}  # stopped by its own Great General


def test_by_default_the_general_takes_the_piece_that_stops_it():
    b = board(JUMPS)
    up = {t for t in targets(b, "e4") if t[0] == "e" and int(t[1:]) > 4}
    assert up == {"e5", "e8", "e9"}  # the Great General on e9 is taken, the Pawn on e10 behind it not
    east = {t for t in targets(b, "m4") if t[1:] == "4" and t > "m"}
    assert east == {"n4"}  # the first piece stops it as before


def test_a_king_behind_lower_pieces_is_attacked_unless_the_tsa_reading():
    # the Great General on c1 jumps its own Pawn (c3) and takes the Pawn (c5) and Knight (c7)
    # beyond; the King on c9 has a higher rank: it stops the general, which may take it (the
    # default reading) or not (HaChu's, option jumping-generals=tsa)
    pieces = {"c1": "GG", "c3": "P", "c5": "p", "c7": "n", "c9": "k", "p16": None}
    b = board(pieces)
    assert {"c5", "c7", "c9"} <= targets(b, "c1")
    assert b.is_attacked(sq("c9"), 0)
    tsa = board(pieces, **TSA)
    assert {"c5", "c7"} <= targets(tsa, "c1") and "c9" not in targets(tsa, "c1")
    assert not tsa.is_attacked(sq("c9"), 0)
    # the first piece on the line is taken whatever its rank: the King alone on the file is attacked
    assert board({"c1": "GG", "c9": "k", "p16": None}, **TSA).is_attacked(sq("c9"), 0)


# --- the Fire Demon ----------------------------------------------------------------------------------


def test_the_area_move_goes_round_corners_through_empty_squares_only():
    # Fire Demon in the corner, own pieces on b1 and b2, an enemy on a3:
    # slides: a2, a3 (capture); area: a2, then a3 (capture) and b3, then from b3 a4, b4, c4, c3,
    # c2 (three steps); c1 would be a fourth step
    b = board({"a1": "FD", "b1": "G", "b2": "G", "a3": "s", "p1": "K"})
    assert targets(b, "a1") == {"a2", "a3", "b3", "a4", "b4", "c4", "c3", "c2"}


def test_a_burn_removes_the_enemies_next_to_the_destination_and_is_taken_back():
    pieces = {"e5": "FD", "e9": "p", "d10": "g", "f10": "s", "e10": "+DE", "f9": "lh", "d8": "S"}
    b = board(pieces)
    before, key = b.position(), b.zobrist
    (move,) = [m for m in b.legal_moves() if m.from_square == sq("e5") and m.to_square == sq("e9")]
    # the Pawn on e9 is taken; the enemy Gold, Silver and Lion Hawk next to e9 burn; the own
    # Crown Prince on e10 and Silver on d8 do not
    assert sorted(square_name(k) for k in move.kills) == ["d10", "f10", "f9"]
    assert sorted(square_name(k) for k in b.captured_squares(move)) == ["d10", "e9", "f10", "f9"]
    b.push(move)
    after = Board("tenjiku-shogi", b.position())
    assert after.zobrist == b.zobrist
    assert {square_name(s) for s in after.pieces(1)} == {"p16"}
    b.pop()
    assert b.position() == before and b.zobrist == key


def test_a_king_next_to_a_square_the_fire_demon_reaches_is_attacked():
    # the King on f10 is on none of the Fire Demon's lines from e5 and five ranks away (out of the
    # area move), but the Fire Demon can slide to e9, e10 or e11 and burn it
    b = board({"e5": "FD", "f10": "k", "p16": None})
    assert b.is_attacked(sq("f10"), 0)
    burning = [m for m in b.legal_moves() if sq("f10") in m.kills]
    assert {square_name(m.to_square) for m in burning} >= {"e9", "e10", "e11"}
    # spared by the option, it is not attacked
    spared = board({"e5": "FD", "f10": "k", "p16": None}, burning="spare-royals")
    assert not spared.is_attacked(sq("f10"), 0)


def test_a_burned_king_loses_the_game():
    # the Fire Demon slides to e9 next to the lone King on f10 and burns it: a royal capture
    b = board({"e5": "FD", "f10": "k", "p16": None})
    move = next(m for m in b.legal_moves() if m.to_square == sq("e9") and sq("f10") in m.kills)
    b.push(move)
    outcome = b.outcome()
    assert outcome is not None and outcome.termination == "royal-capture" and outcome.winner == 0


def test_the_checkmate_option_keeps_the_king_from_squares_a_burn_reaches():
    # the enemy Fire Demon on e5 slides down-right to f4, g3, h2 and i1; a King on k1 stepping to
    # j1 or j2 would stand next to i1, where the Fire Demon burns it; k2, l1 and l2 are safe
    pieces = {"e5": "fd", "k1": "K", "a1": None}
    assert targets(board(pieces), "k1") == {"j1", "j2", "k2", "l1", "l2"}  # moving into check is legal
    assert targets(board(pieces, check="checkmate"), "k1") == {"k2", "l1", "l2"}


# --- passive burning -------------------------------------------------------------------------------

NO_PASSIVE = {"passive-burning": "none"}


def the_move(b: Board, origin: str, to: str, kills: tuple = ()):
    (move,) = [m for m in b.legal_moves() if m.from_square == sq(origin) and m.to_square == sq(to)
               and m.kills[:len(kills)] == tuple(sq(k) for k in kills)]
    return move


def test_a_piece_that_ends_next_to_an_enemy_fire_demon_is_burned_and_pop_restores_it():
    # the Gold steps from e5 to e6 next to the enemy Fire Demon on e7, taking the Pawn there: the
    # Pawn is taken and the Gold is removed after its move; the hash is the position's
    b = board({"e5": "G", "e6": "p", "e7": "fd"})
    before, key = b.position(), b.zobrist
    move = the_move(b, "e5", "e6")
    assert b.burns_mover(move) and move.kills == ()
    b.push(move)
    assert b.piece_at(sq("e6")) is None and b.piece_at(sq("e5")) is None
    assert {square_name(s) for s in b.pieces(0)} == {"a1"} and b.piece_at(sq("e7")) is not None
    assert Board("tenjiku-shogi", b.position()).zobrist == b.zobrist
    after = b.position()
    b.pop()
    assert b.position() == before and b.zobrist == key
    assert b.positions_after([move]) == [after]  # (the analysis board's positions of the moves)
    # without passive burning the Gold stands on e6
    b = board({"e5": "G", "e6": "p", "e7": "fd"}, **NO_PASSIVE)
    move = the_move(b, "e5", "e6")
    assert not b.burns_mover(move)
    b.push(move)
    assert str(b.piece_at(sq("e6"))) == "G"


def test_a_side_left_bare_by_a_passive_burn_loses():
    # Sente's last piece besides its King, the Gold, steps next to the Fire Demon on e7 and is
    # burned: a bare King against King, Fire Demon and Pawn loses
    b = board({"e5": "G", "e7": "fd", "h12": "p"})
    assert b.ended is None
    b.push(the_move(b, "e5", "e6"))
    assert b.ended == Outcome("bare-royal", 1) == b.outcome()
    b.pop()
    assert b.ended is None


def test_the_viewer_marks_the_square_of_a_piece_burned_passively():
    from daikifu.web.svg import move_highlight
    b = board({"e5": "G", "e7": "fd"})
    assert move_highlight(b, the_move(b, "e5", "e6"))["captured"] == ["e6"]
    assert move_highlight(b, the_move(b, "e5", "d5"))["captured"] == []  # d5 is two ranks from e7


def test_a_promoting_piece_is_burned_as_what_it_promoted_to():
    # the Drunk Elephant promotes to Crown Prince on entering the zone, next to the Fire Demon on
    # f13: the Crown Prince is burned, and taking the move back gives the Drunk Elephant again
    b = board({"e11": "DE", "f13": "fd"})
    before, key = b.position(), b.zobrist
    move = next(m for m in b.legal_moves() if m.from_square == sq("e11") and m.to_square == sq("e12") and m.promotion)
    b.push(move)
    assert b.piece_at(sq("e12")) is None and b.royal_squares(0) == (sq("a1"),)
    assert Board("tenjiku-shogi", b.position()).zobrist == b.zobrist
    b.pop()
    assert b.position() == before and b.zobrist == key and b.royal_squares(0) == (sq("a1"),)


def test_a_fire_demon_that_ends_next_to_the_enemy_fire_demon_dies_and_burns_nothing():
    # the Fire Demon slides from e5 to e9, next to the enemy Fire Demon on f10 and the Gold on
    # d10: burned first, it burns neither
    pieces = {"e5": "FD", "f10": "fd", "d10": "g"}
    b = board(pieces)
    move = the_move(b, "e5", "e9")
    assert move.kills == () and b.burns_mover(move)
    b.push(move)
    assert {square_name(s) for s in b.pieces(1)} == {"p16", "f10", "d10"}
    assert {square_name(s) for s in b.pieces(0)} == {"a1"}
    # without passive burning it burns both and stays
    b = board(pieces, **NO_PASSIVE)
    move = the_move(b, "e5", "e9")
    assert sorted(square_name(k) for k in move.kills) == ["d10", "f10"]
    b.push(move)
    assert {square_name(s) for s in b.pieces(1)} == {"p16"} and str(b.piece_at(sq("e9"))) == "FD"


def test_taking_the_enemy_fire_demon_spares_the_mover():
    # the Lion takes the Fire Demon on e6 with its first step and steps on to e7, next to where
    # the Fire Demon stood: it survives.  A second Fire Demon on f8 would burn it.
    b = board({"e5": "LN", "e6": "fd", "a16": "g"})
    move = the_move(b, "e5", "e7", ("e6",))
    assert not b.burns_mover(move)
    b.push(move)
    assert str(b.piece_at(sq("e7"))) == "LN"
    b = board({"e5": "LN", "e6": "fd", "f8": "fd"})
    move = the_move(b, "e5", "e7", ("e6",))
    assert b.burns_mover(move)
    b.push(move)
    assert b.piece_at(sq("e7")) is None and b.piece_at(sq("e6")) is None
    # a Fire Demon that takes the enemy Fire Demon on its destination survives and burns the rest
    b = board({"e5": "FD", "e9": "fd", "d10": "g"})
    move = the_move(b, "e5", "e9")
    assert not b.burns_mover(move) and move.kills == (sq("d10"),)


def test_a_king_that_ends_next_to_an_enemy_fire_demon_loses_the_game():
    # moving into check is legal: the King's step to b2, next to the Fire Demon on c3, is a move,
    # and a losing one (the King is burned: a royal capture)
    b = board({"c3": "fd", "h8": "G", "h9": "S"})  # (a lone King would be bare: it loses anyway)
    move = the_move(b, "a1", "b2")
    b.push(move)
    assert b.royal_squares(0) == ()
    outcome = b.outcome()
    assert outcome is not None and outcome.termination == "royal-capture" and outcome.winner == 1
    b.pop()
    assert b.royal_squares(0) == (sq("a1"),) and b.ended is None


def test_with_the_checkmate_option_a_king_may_not_step_next_to_an_enemy_fire_demon():
    # the same step to b2 is illegal there: the King would be lost (burned, not only attacked)
    pieces = {"c3": "fd", "h8": "G", "h9": "S"}
    assert "b2" in targets(board(pieces), "a1")
    assert "b2" not in targets(board(pieces, check="checkmate"), "a1")
    b = board(pieces, check="checkmate")
    step = Move(sq("a1"), sq("b2"))
    assert b.burns_mover(step) and b.illegality(step) is not None
    with pytest.raises(IllegalMoveError):
        b.play(step)


def test_with_the_checkmate_option_a_piece_burned_on_its_square_does_not_block_a_check():
    # the Rook on a12 checks the King on a1 along the a-file; the Gold on b8 could block on a9,
    # but a9 is next to the enemy Fire Demon on b10: the Gold is burned and the file opens again.
    # (The Fire Demon itself cannot get near the King: the Pawns on b9 and c9 block its slides,
    # and its area move reaches the seventh rank at most.)
    pieces = {"a12": "r", "b8": "G", "b10": "fd", "b9": "p", "c9": "p"}
    assert "a9" not in targets(board(pieces, check="checkmate"), "b8")
    assert "a9" in targets(board(pieces, check="checkmate", **NO_PASSIVE), "b8")
    b = board(pieces, check="checkmate")
    illegal = Move(sq("b8"), sq("a9"))
    assert b.illegality(illegal) is not None
    with pytest.raises(IllegalMoveError):
        b.play(illegal)
    # a record read move by move sees it too
    start = position_text({**KINGS, **pieces}, 16, 16)
    text = write_game(Game.from_moves("tenjiku-shogi", [illegal], start=start,
                                      options={"check": "checkmate", **NO_PASSIVE}))
    assert read_game(text).valid
    game = read_game(text.replace("passive-burning=none", "passive-burning=fire-demons"))
    assert not game.valid and game.errors[0].ply == 1 and "leaves the mover's royal piece in check" in str(game.errors[0])


def test_with_the_checkmate_option_checking_one_move_agrees_with_the_legal_moves():
    # random positions under check=checkmate: whether a move is legal, asked of the move alone
    # (illegality: no move generation) and by generating every move, agree, passive burns included
    rng = random.Random(5)
    b = Board("tenjiku-shogi", options={"check": "checkmate"})
    burned = 0
    for _ in range(6):
        random_moves(b, 20, rng, capture_bias=0.3)
        legal = set(b.legal_moves())
        for move in b.pseudo_legal_moves():
            burned += b.burns_mover(move)
            assert (b.illegality(move) is None) == (move in legal), move
    assert burned


# Passive burning is a rule of the variant file, not Tenjiku Shogi's code: any piece may burn so.
# A small shogi-like variant whose moves are all plain steps and slides (the board's fast paths).
POISON = """\
format = 1
slug = "poison-test"
name = "Poison Test"
files = 9
ranks = 9
start = "4k4/9/9/9/9/9/9/9/4K4 b - 1"

[rules]
promotion_zone = 0
burns_passively = ["Z"]

[[pieces]]
id = "K"
name = "King"
betza = "K"
royal = true

[[pieces]]
id = "R"
name = "Rook"
betza = "R"

[[pieces]]
id = "G"
name = "Gold"
betza = "WfF"

[[pieces]]
id = "Z"
name = "Poison"
betza = "W"
"""


def test_any_piece_the_file_names_burns_passively_and_a_burned_blocker_blocks_nothing(tmp_path):
    from daikifu.replay.variant import load_variant_file
    path = tmp_path / "poison-test.toml"
    path.write_text(POISON, encoding="utf-8")
    variant = load_variant_file(path)
    # the Rook on a9 checks the King on a1; the Gold on b5 could block on a6, next to the Poison
    # on b7 (which does not attack the King); checkmate is the default end of the game here
    pieces = {"a1": "K", "i9": "k", "a9": "r", "b5": "G", "b7": "z", "i5": "G"}
    b = Board(variant, position_text(pieces, 9, 9))
    block = Move(parse_square("b5", 9, 9), parse_square("a6", 9, 9))
    assert b.burns_mover(block)
    assert block not in b.legal_moves() and b.illegality(block) is not None
    with pytest.raises(NotationError, match="leaves the mover's royal piece in check"):
        parse_move(b, "G-a6")
    # out of check: the enemy Gold on a6 shields the King; the Rook on c6 may not take it, since
    # it is burned there and the file opens
    b = Board(variant, position_text({**pieces, "b5": None, "a6": "g", "c6": "R"}, 9, 9))
    take = Move(parse_square("c6", 9, 9), parse_square("a6", 9, 9))
    assert b.burns_mover(take) and take not in b.legal_moves() and b.illegality(take) is not None
    # the Gold on i5 steps next to the Poison's twin on i7 and is burned: taken back exactly
    b = Board(variant, position_text({**pieces, "a9": None, "i7": "z"}, 9, 9))
    before, key = b.position(), b.zobrist
    b.play(parse_move(b, "G-i6"))
    assert b.piece_at(parse_square("i6", 9, 9)) is None
    assert Board(variant, b.position()).zobrist == b.zobrist
    b.pop()
    assert b.position() == before and b.zobrist == key


def test_material_counts_kept_move_by_move_see_the_burned_piece():
    # the archive's material search updates counts by each move's effects: the Drunk Elephant
    # that promotes next to the Fire Demon takes the Pawn on e12 and is lost as a Crown Prince
    from daikifu.archive.queries import material_counts, move_effects
    b = board({"e11": "DE", "e12": "p", "f13": "fd"})
    move = next(m for m in b.legal_moves() if m.from_square == sq("e11") and m.to_square == sq("e12") and m.promotion)
    counts = material_counts(b)
    code, promoted, removed = move_effects(b, move)
    counts[code] -= 1
    counts[promoted] += 1
    for taken in removed:
        counts[taken] -= 1
    b.push(move)
    assert counts == material_counts(b)
    assert sorted(b.rules.types[(c >> 1) - 1].id for c in removed) == ["+DE", "P"]


def test_passive_burning_with_drops_is_refused_when_the_file_is_loaded(tmp_path):
    from daikifu.replay import VariantError
    from daikifu.replay.variant import bundled_directory, load_variant_file
    text = (bundled_directory() / "tenjiku-shogi.toml").read_text(encoding="utf-8")
    assert text.count("drops = false") == 1
    path = tmp_path / "tenjiku-drops.toml"
    path.write_text(text.replace("drops = false", "drops = true").replace('"tenjiku-shogi"', '"tenjiku-drops"'),
                    encoding="utf-8")
    with pytest.raises(VariantError, match="burns_passively cannot be combined with drops"):
        load_variant_file(path)


def test_a_move_burned_passively_is_written_and_read_without_a_mark():
    # the analysis program's records write such a move as any other (tenjiku_7kcolin20p2f: 20. 2e-2f)
    b = board({"e5": "G", "e7": "fd"})
    move = the_move(b, "e5", "e6")
    text = move_notation(b, move)
    assert text == move_notation(board({"e5": "G", "e7": "fd"}, **NO_PASSIVE), move) == "G-e6"
    assert parse_move(b, text) == move


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_push_and_pop_of_every_legal_move_restore_the_position_and_its_hash(seed):
    # random positions of a seeded random game, played on well into the middle game (the Fire
    # Demons are in play then): every legal move, passive burns among them, is pushed and popped
    rng = random.Random(seed)
    b = Board("tenjiku-shogi")
    random_moves(b, 120, rng, capture_bias=0.3)  # (more captures end the game early: a King is taken)
    burned = 0
    for _ in range(4):
        if b.ended is not None:
            break
        before, key = b.position(), b.zobrist
        for move in b.legal_moves():
            burned += b.burns_mover(move)
            b.push(move)
            assert Board("tenjiku-shogi", b.position()).zobrist == b.zobrist, move
            b.pop()
            assert b.position() == before and b.zobrist == key, move
        random_moves(b, 8, rng, capture_bias=0.3)
    assert burned  # (the seeds give positions where some moves end next to an enemy Fire Demon)


# --- move text ---------------------------------------------------------------------------------------


def test_the_burn_count_is_written_and_checked():
    b = board({"e5": "FD", "e9": "p", "d10": "g", "f10": "s", "f9": "lh"})
    (move,) = [m for m in b.legal_moves() if m.from_square == sq("e5") and m.to_square == sq("e9")]
    text = move_notation(b, move)
    assert text == "FDxe9x!3"
    assert parse_move(b, text) == move
    assert parse_move(b, "FDxe9") == move  # the count may be left out: burns follow from the position
    assert parse_move(b, "FiDxe9x!3") == move  # the Tenjiku program's ID
    with pytest.raises(NotationError, match="burns 3 pieces, the text says 2"):
        parse_move(b, "FDxe9x!2")


def test_a_record_with_one_burn_removed_is_caught_at_that_ply():
    start = position_text({**KINGS, "e5": "FD", "e9": "p", "d10": "g", "f10": "s", "a16": "l"}, 16, 16)
    b = Board("tenjiku-shogi", start)
    moves = [next(m for m in b.legal_moves() if m.from_square == sq("a1") and m.to_square == sq("b1"))]
    b.push(moves[0])
    moves.append(next(m for m in b.legal_moves() if m.from_square == sq("a16") and m.to_square == sq("a15")))
    b.push(moves[1])
    moves.append(next(m for m in b.legal_moves() if m.from_square == sq("e5") and m.to_square == sq("e9")))
    text = write_game(Game.from_moves("tenjiku-shogi", moves, start=start))
    assert "FDxe9x!2" in text
    assert read_game(text).valid
    game = read_game(text.replace("FDxe9x!2", "FDxe9x!1"))
    assert not game.valid
    error = game.errors[0]
    assert error.ply == 3 and "FDxe9x!1" in str(error) and "burns 2" in str(error)


# --- self-play -----------------------------------------------------------------------------------


def test_sample_games_end_when_a_royal_piece_is_taken():
    # a King may be burned or taken while its side still has moves (moving into check is legal):
    # the game ends there, it does not play on without it
    from pathlib import Path

    from daikifu.formats.lsn import read_games
    path = Path(__file__).resolve().parent.parent / "data" / "sample" / "tenjiku-shogi.lsn"
    for game in read_games(path.read_text(encoding="utf-8")):
        b = Board("tenjiku-shogi")
        moves = game.mainline_moves()
        for ply, move in enumerate(moves, start=1):
            b.push(move)
            lost = not (b.royal_squares(0) and b.royal_squares(1))
            assert not lost or ply == len(moves), (game.headers["Round"], ply)
        assert game.headers["Termination"] != "royal-capture" or lost


# --- move diagrams ---------------------------------------------------------------------------------


def test_move_diagrams_mark_range_jumps_and_the_burned_ring():
    from daikifu.replay import compile_rules, load_variant
    from daikifu.web.move_diagram import diagram_svg, piece_moves
    rules = compile_rules(load_variant("tenjiku-shogi"))
    gg = piece_moves(rules, "GG")
    # next to it a plain capture; from the second square on it captures past a lower piece too
    assert gg.targets[(0, 1)].way != "jump" and gg.targets[(0, 3)].way == "jump"
    assert gg.targets[(-2, 2)].way == "jump" and (1, 2) not in gg.targets
    fd = piece_moves(rules, "FD")
    # four squares sideways: one past the three-step area move, and no sideways slide: burned only
    assert fd.targets[(4, 0)].way == "burn" and fd.targets[(4, 0)].mode == "capture"
    assert fd.targets[(0, 4)].way != "burn"  # on its forward slide: it goes there
    svg = diagram_svg(fd)
    assert 'class="mark burn"' in svg and 'class="mark jump"' in diagram_svg(gg)
