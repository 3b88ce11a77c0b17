"""Move notation: the writer (``move_notation``, ``notations``) and the targeted reader
(``parse_move``) agree on every legal move of every playable variant, and the reader accepts the
forms docs/notation.md section 5.4 allows and explains what it rejects."""

from __future__ import annotations

import random

import pytest

from daikifu import replay
from daikifu.replay import Board, Move, load_variant
from daikifu.replay.position import format_position
from daikifu.replay.squares import parse_square

from daikifu.replay.notation import NotationError, move_notation, notations, parse_move

PLAYABLE = [v for v in replay.list_variants() if v.playable]
DAI = "dai-kagamigi"


def sq(name: str) -> int:
    return parse_square(name)


def setup(variant, pieces: dict, turn: str = "b", hands: str = "-") -> str:
    """A position string from ``{"h8": "!LD", "h15": "k"}`` (upper case: first player)."""
    v = load_variant(variant) if isinstance(variant, str) else variant
    cells = {}
    for name, token in pieces.items():
        piece = v.piece(token)
        cells[sq(name)] = (piece.index, 0 if token == token.upper() else 1)
    text = format_position(v, lambda f, r: cells.get((r + 3) * 32 + f + 3),
                           [[0] * (len(v.pieces) + 1)] * 2, 0 if turn == "b" else 1, 1)
    return f"{text.split()[0]} {turn} {hands} 1"


def board_of(variant, pieces, turn="b", hands="-", **options) -> Board:
    return Board(variant, setup(variant, pieces, turn, hands), options=options or None)


def check_position(board: Board) -> int:
    """Every legal move: its notation reads back as the move, and all notations differ."""
    legal = board.legal_moves()
    written = notations(board, legal)
    assert len(set(written.values())) == len(written), board.position()
    for move in legal:
        text = move_notation(board, move)
        assert text == written[move], (board.position(), move, text, written[move])
        assert parse_move(board, text) == move, (board.position(), move, text)
    return len(legal)


def biased_choice(board: Board, moves, rng: random.Random) -> Move:
    """Captures and promotion choices are favoured, so the positions get interesting."""
    r = rng.random()
    captures = [m for m in moves if board.captured_squares(m)]
    promotions = [m for m in moves if m.promotion is not None]
    if promotions and r < 0.25:
        return rng.choice(promotions)
    if captures and r < 0.8:
        return rng.choice(captures)
    return rng.choice(moves)


# --- writer and reader agree ---------------------------------------------------------------------


@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
def test_every_legal_move_reads_back_in_random_positions(variant):
    checked = positions = 0
    for seed in range(2):
        rng = random.Random(f"{variant.slug}-{seed}")
        options = {k: rng.choice(list(o.choices)) for k, o in variant.options.items()}
        board = Board(variant, options=options)
        for ply in range(90):
            legal = board.legal_moves()
            if not legal:
                break
            if ply in (15, 40, 65, 89):  # a fixed sample; -m slow checks many more positions
                checked += check_position(board)
                positions += 1
            board.push(biased_choice(board, legal, rng))
    # a 5x5 board (minishogi) has a tenth of the moves of 9x9 shogi: the floor that says the sample
    # was not empty is lower there
    assert positions >= 5 and checked > (100 if variant.files * variant.ranks >= 81 else 50)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(12))
@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
def test_every_legal_move_reads_back_in_many_random_positions(variant, seed):
    rng = random.Random(f"slow-{variant.slug}-{seed}")
    options = {k: rng.choice(list(o.choices)) for k, o in variant.options.items()}
    board = Board(variant, options=options)
    for _ in range(150):
        legal = board.legal_moves()
        if not legal:
            break
        check_position(board)
        board.push(biased_choice(board, legal, rng))


def _outcome(read, board, text):
    try:
        return read(board, text)
    except NotationError as exc:
        return exc.reason


@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
def test_quick_resolution_agrees_with_the_general_one(variant):
    """parse_move first tries a quick resolution of one-leg moves and drops; on every text, legal or
    not, it must answer what the general resolution over every reading answers."""
    from daikifu.replay.notation import _key, _resolve, _write
    from daikifu.replay.squares import square_name
    rng = random.Random(f"quick-{variant.slug}")
    board = Board(variant)
    names = [square_name(s) for s in board.rules.squares]
    tried = 0
    for ply in range(50):
        legal = board.legal_moves()
        if not legal:
            break
        if ply % 12 == 0:
            texts = set()
            for n, move in enumerate(rng.sample(legal, min(len(legal), 16))):
                written = move_notation(board, move)
                full = _write(board, move, True)
                bare = "".join(_key(board, move))  # no origin: ambiguous when one is written
                texts.update({written, full, bare, written.lower(), written.rstrip("+="), full.replace("x", "-")})
                if n < 2:  # most of these are errors, which cost a "did you mean"
                    texts.update({written[:-2] + rng.choice(names), written + "+"})
            for text in sorted(texts):
                assert _outcome(parse_move, board, text) == _outcome(_resolve, board, text), (board.position(), text)
                tried += 1
        board.push(biased_choice(board, legal, rng))
    assert tried > 100


LION_POSITIONS = [
    # two Lion Dogs next to enemy pieces: double captures, igui, passes, shared targets
    {"h1": "K", "h15": "k", "h8": "!LD", "h9": "p", "h10": "p", "g9": "p", "j8": "!LD", "i9": "g",
     "k10": "n", "i8": "P"},
    # Soaring Eagles (lion power on the forward diagonals) and a Lion Dog crowded by enemies
    {"h1": "K", "h15": "k", "e8": "SE", "f9": "p", "g10": "p", "d9": "s", "c10": "p", "g8": "SE",
     "h9": "b", "l5": "!LD", "l6": "p", "m6": "p", "k6": "p", "l7": "p", "m4": "r"},
    # the second player's lion pieces, with Sente pieces to capture
    {"h1": "K", "h15": "k", "h8": "!ld", "h7": "P", "h6": "P", "g7": "P", "f9": "se", "e8": "P",
     "d7": "P", "g8": "P"},
]


@pytest.mark.parametrize("options", [{}, {"soaring-eagle": "literal"}, {"lion-dog": "diagram"},
                                     {"pass": "forbidden"}], ids=str)
@pytest.mark.parametrize("index", range(len(LION_POSITIONS)))
def test_lion_dogs_and_soaring_eagles_next_to_enemy_pieces(index, options):
    pieces = LION_POSITIONS[index]
    turn = "w" if "!ld" in pieces.values() else "b"
    board = board_of(DAI, pieces, turn, **options)
    assert check_position(board) > 20
    multi = [m for m in board.legal_moves() if m.kills]
    if options != {"lion-dog": "diagram"} or index == 1:  # the diagram's Lion Dog is a QAD leaper
        assert multi, "the position should allow multi-capture moves"
    # and after each kind of lion move the position still round-trips
    for move in multi[:5]:
        board.push(move)
        check_position(board)
        board.pop()


# --- disambiguation -----------------------------------------------------------------------------


def test_origin_written_only_when_another_piece_of_the_same_id_can_do_the_same():
    board = Board("shogi")
    written = notations(board)
    gd1_e2 = Move(sq("d1"), sq("e2"))
    assert written[gd1_e2] == "Gd1-e2" == move_notation(board, gd1_e2)
    assert written[Move(sq("f1"), sq("e2"))] == "Gf1-e2"
    assert written[Move(sq("d1"), sq("d2"))] == "G-d2"  # the other gold cannot reach d2
    assert move_notation(board, Move(sq("f1"), sq("g2"))) == "G-g2"


def test_origin_not_written_when_the_other_piece_is_pinned():
    # two golds could reach e2, but the one on d1 is pinned against the king by a rook on a1
    board = board_of("shogi", {"e1": "K", "d1": "G", "f1": "G", "e9": "k", "a1": "r"})
    assert not board.is_legal(Move(sq("d1"), sq("e2"), (), None))
    assert move_notation(board, Move(sq("f1"), sq("e2"))) == "G-e2"
    assert parse_move(board, "G-e2") == Move(sq("f1"), sq("e2"))


def test_file_and_rank_disambiguation_and_overspecified_origins():
    board = board_of("shogi", {"e1": "K", "e9": "k", "d1": "G", "d3": "G", "f3": "G"})
    assert move_notation(board, Move(sq("d1"), sq("d2"))) == "Gd1-d2"
    assert parse_move(board, "G1-d2") == Move(sq("d1"), sq("d2"))
    assert parse_move(board, "G3-d2") == Move(sq("d3"), sq("d2"))
    with pytest.raises(NotationError) as info:
        parse_move(board, "Gd-d2")  # both are on the d-file
    assert "ambiguous" in info.value.reason
    assert parse_move(board, "Gf-e3") == Move(sq("f3"), sq("e3"))  # d3 reaches e3 too
    assert parse_move(board, "Gd-e3") == Move(sq("d3"), sq("e3"))
    # overspecified: the origin is accepted where it is not needed
    assert move_notation(board, Move(sq("f3"), sq("g3"))) == "G-g3"
    assert parse_move(board, "Gf3-g3") == parse_move(board, "G-g3") == Move(sq("f3"), sq("g3"))
    assert parse_move(board, "Gf-g3") == parse_move(board, "G3-g3") == Move(sq("f3"), sq("g3"))


def test_ambiguous_move_is_rejected_with_both_candidates():
    board = Board("shogi")
    with pytest.raises(NotationError) as info:
        parse_move(board, "G-e2")
    err = info.value
    assert "ambiguous" in err.reason
    assert set(err.suggestions) == {"Gd1-e2", "Gf1-e2"}
    assert "origin" in err.expected


# --- accepted forms -----------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["P-c4", "Pxc4", "Pc4", "Pc3-c4", "Pc-c4", "P3c4", "c3c4", "p-c4",
                                  "FU-c4", "fu-c4", " P-c4 "])
def test_accepted_forms_of_a_pawn_move(text):
    assert parse_move(Board("shogi"), text) == Move(sq("c3"), sq("c4"))


def test_capture_written_with_dash_or_without_separator():
    board = board_of("shogi", {"e1": "K", "e9": "k", "c5": "R", "c8": "p"})
    rxc8 = Move(sq("c5"), sq("c8"), (), True)
    assert move_notation(board, rxc8) == "Rxc8+"
    for text in ("Rxc8+", "R-c8+", "Rc8+", "rxc8+", "c5c8+", "HIxc8+"):
        assert parse_move(board, text) == rxc8, text


def test_drops_with_star_or_at_and_compact_drop():
    board = board_of("shogi", {"e1": "K", "e9": "k"}, hands="Pp")
    drop = Move(None, sq("e5"), (), None, "P")
    assert move_notation(board, drop) == "P*e5"
    for text in ("P*e5", "P@e5", "p*e5", "FU*e5"):
        assert parse_move(board, text) == drop
    with pytest.raises(NotationError) as info:
        parse_move(board, "G*e5")
    assert "in hand" in info.value.reason


def test_alias_ids_are_accepted():
    # dai-kagamigi's Burning Chariot is BC, also known as FC
    board = board_of(DAI, {"h1": "K", "h15": "k", "e5": "BC"})
    moves = [m for m in board.legal_moves() if m.from_square == sq("e5")]
    assert moves
    for move in moves:
        text = move_notation(board, move)
        assert text.startswith("BC")
        assert parse_move(board, "FC" + text[2:]) == move
        assert parse_move(board, "fc" + text[2:]) == move
        assert parse_move(board, "bc" + text[2:]) == move


def test_ids_that_look_like_an_id_plus_an_origin():
    # "Gd-e3" is a Gold from the d-file even in a variant with a piece "GD" (Great Dove) ...
    board = board_of(DAI, {"h1": "K", "o14": "k", "d2": "G", "f2": "G", "d6": "GD"})
    assert parse_move(board, "Gd-e3") == Move(sq("d2"), sq("e3"))
    assert parse_move(board, "Gd2-e3") == Move(sq("d2"), sq("e3"))
    # ... and "GD-..." is the Great Dove; "gd-..." too when no Gold on the d-file can make the move
    dove = [m for m in board.legal_moves() if m.from_square == sq("d6")][0]
    text = move_notation(board, dove)
    assert text.startswith("GD-") or text.startswith("GDx")
    assert parse_move(board, text) == dove
    assert parse_move(board, text.lower()) == dove
    # the alias GG of the Gold does not swallow an origin file g: "Gg..." is a Gold
    board = board_of(DAI, {"h1": "K", "c15": "k", "g14": "G", "i14": "G"})
    assert parse_move(board, "Gg14-h14=") == Move(sq("g14"), sq("h14"), (), False)
    assert parse_move(board, "gg14-h14+") == Move(sq("g14"), sq("h14"), (), True)
    assert move_notation(board, Move(sq("g14"), sq("h14"), (), False)) == "Gg14-h14="


# --- promotion ----------------------------------------------------------------------------------


def test_missing_promotion_choice_is_rejected():
    board = board_of("shogi", {"e1": "K", "e9": "k", "c6": "P"})
    with pytest.raises(NotationError) as info:
        parse_move(board, "P-c7")
    err = info.value
    assert err.expected == "'+' or '='"
    assert "promotion must be chosen" in err.reason
    assert {"P-c7+", "P-c7="} <= set(err.suggestions)
    assert parse_move(board, "P-c7+") == Move(sq("c6"), sq("c7"), (), True)
    assert parse_move(board, "P-c7=") == Move(sq("c6"), sq("c7"), (), False)


def test_compulsory_promotion_is_accepted_without_plus():
    board = board_of("shogi", {"e1": "K", "e9": "k", "c8": "P"})
    move = Move(sq("c8"), sq("c9"), (), True)
    assert move_notation(board, move) == "P-c9+"
    assert parse_move(board, "P-c9") == move
    assert parse_move(board, "P-c9+") == move
    with pytest.raises(NotationError) as info:
        parse_move(board, "P-c9=")
    assert "compulsory" in info.value.reason


def test_promotion_suffix_on_a_move_that_cannot_promote():
    with pytest.raises(NotationError) as info:
        parse_move(Board("shogi"), "P-c4+")
    assert "cannot promote" in info.value.reason
    assert "P-c4" in info.value.suggestions


def test_dai_kagamigi_promotion_and_declined_promotion():
    board = board_of(DAI, {"h1": "K", "h15": "k", "e10": "P"})
    assert parse_move(board, "P-e11+") == Move(sq("e10"), sq("e11"), (), True)
    assert parse_move(board, "P-e11=") == Move(sq("e10"), sq("e11"), (), False)
    assert sorted(notations(board)[m] for m in board.legal_moves() if m.from_square == sq("e10")) == [
        "P-e11+", "P-e11="]


# --- errors and suggestions ---------------------------------------------------------------------


def test_unpromoted_id_after_promotion_suggests_the_promoted_piece():
    board = board_of("shogi", {"e1": "K", "b9": "k", "e5": "+B", "h8": "s"})
    with pytest.raises(NotationError) as info:
        parse_move(board, "Bxh8+")
    err = info.value
    assert err.suggestions[0] == "+Bxh8"
    assert "no B" in err.reason
    assert parse_move(board, "+Bxh8") == Move(sq("e5"), sq("h8"))


def test_errors_name_the_problem():
    board = Board("shogi")
    cases = {
        "Q-e2": "has no piece 'Q'",
        "K-e5": "cannot make that move",
        "Gd1-e5": "cannot make that move",
        "Gc1-e2": "is S, not G",
        "Ge5-e6": "no piece on e5",
        "P-z9": "not a move",
        "P-c10": "not a move",
        "Gz": "not a move",
        "": "empty",
    }
    for text, reason in cases.items():
        with pytest.raises(NotationError) as info:
            parse_move(board, text)
        assert reason in info.value.reason, (text, info.value.reason)
        assert info.value.expected


def test_pinned_piece_reason():
    board = board_of("shogi", {"e1": "K", "e2": "G", "e9": "r", "a9": "k"})
    with pytest.raises(NotationError) as info:
        parse_move(board, "G-d2")
    assert "leaves the mover's royal piece in check" in info.value.reason
    assert "G-e3" in notations(board).values()


# --- Lion Dog notation --------------------------------------------------------------------------


@pytest.fixture
def lion():
    return board_of(DAI, {"h1": "K", "h15": "k", "h8": "!LD", "h9": "p", "h10": "p", "a12": "p"})


def test_lion_dog_double_capture(lion):
    double = Move(sq("h8"), sq("h10"), (sq("h9"),))
    assert move_notation(lion, double) == "!LDxh9xh10"
    for text in ("!LDxh9xh10", "!LDxh9-h10", "!ldxh9xh10", "!LDh8xh9xh10", "h8h9h10"):
        assert parse_move(lion, text) == double, text


def test_lion_dog_capture_then_empty_square():
    board = board_of(DAI, {"h1": "K", "h15": "k", "h8": "!LD", "h9": "p"})
    move = Move(sq("h8"), sq("h10"), (sq("h9"),))
    assert move_notation(board, move) == "!LDxh9-h10"
    assert parse_move(board, "!LDxh9-h10") == move
    assert parse_move(board, "!LDxh9xh10") == move  # 'x' before an empty square: form, not meaning
    # the Lion Dog does not jump: passing h9 without capturing the pawn there is not a move
    with pytest.raises(NotationError):
        parse_move(board, "!LDh8-h9-h10")
    board = board_of(DAI, {"h1": "K", "h15": "k", "h8": "!LD"})
    assert parse_move(board, "!LDh8-h9-h10") == parse_move(board, "!LD-h10") == Move(sq("h8"), sq("h10"))


def test_lion_dog_three_steps(lion):
    three = Move(sq("h8"), sq("h11"), (sq("h9"), sq("h10")))
    assert move_notation(lion, three) == "!LDxh9xh10-h11"
    assert parse_move(lion, "!LDxh9xh10-h11") == three
    assert parse_move(lion, "h8h9h10h11") == three


def test_lion_dog_igui_and_pass(lion):
    igui = Move(sq("h8"), sq("h8"), (sq("h9"),))
    assert move_notation(lion, igui) == "!LDx!h9"
    assert parse_move(lion, "!LDx!h9") == igui
    assert parse_move(lion, "h8h9h8") == igui
    pas = Move(sq("h8"), sq("h8"))
    assert move_notation(lion, pas) == "!LDh8-h8"
    assert parse_move(lion, "!LDh8-h8") == pas
    assert parse_move(lion, "h8h8") == pas
    with pytest.raises(NotationError):
        parse_move(lion, "!LD-h8")  # a pass is written with its origin


def test_lion_dog_path_form_is_read_by_its_effect(lion):
    back = Move(sq("h8"), sq("h9"), (sq("h10"),))  # captures h9 and h10, stops on h9
    assert move_notation(lion, back) == "!LDxh10xh9"
    assert parse_move(lion, "!LDxh9xh10xh9") == back
    assert parse_move(lion, "!LDxh10xh9") == back
    lion.push(back)
    assert lion.piece_at(sq("h9")).id == "!LD"
    assert lion.piece_at(sq("h10")) is None and lion.piece_at(sq("h8")) is None


def test_two_lion_dogs_igui_on_the_same_square_write_their_origins():
    board = board_of(DAI, {"h1": "K", "h15": "k", "h8": "!LD", "j8": "!LD", "i9": "p"})
    written = notations(board)
    assert written[Move(sq("h8"), sq("h8"), (sq("i9"),))] == "!LDh8x!i9"
    assert written[Move(sq("j8"), sq("j8"), (sq("i9"),))] == "!LDj8x!i9"
    with pytest.raises(NotationError) as info:
        parse_move(board, "!LDx!i9")
    assert "ambiguous" in info.value.reason
    assert set(info.value.suggestions) >= {"!LDh8x!i9", "!LDj8x!i9"}
    check_position(board)
