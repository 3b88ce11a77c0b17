"""The fast paths of the rules core agree with the plain ones they stand in for.

* ``legal_moves`` (ready-made move tables, pin and check shortcuts, drop-mate skipping) gives the
  same moves as playing every pseudo-legal move of the square-by-square generator and looking at
  the royal piece (``reference_legal_moves``);
* the quick end-of-game test (stop at the first legal move) agrees with counting every move;
* ``may_make``, the first test move readers narrow candidates with, never refuses a legal move;
* the attack confirmation by step look-up (``_reaches``) agrees with generating the piece's moves;
* ``step_move`` and ``play`` along moves they found legal (where the board knows its royal piece
  was not left attacked, and looks only at the line a move leaves) agree with ``illegality``.

On positions from random games (where checks, pins and drops arise) and on random piece
placements (where checks and discovered lines are frequent), in every playable variant.
"""

from __future__ import annotations

import random

import pytest

from daikifu.replay import Board, IllegalMoveError, IllegalReason, PositionError, list_variants
from daikifu.replay.squares import BYTE_OF_SQUARE, STRIDE, square_name

from test_consistency import _random_game, random_positions

PLAYABLE = [v for v in list_variants() if v.playable]


def _check_agrees(board: Board) -> None:
    fast = board.legal_moves()
    plain = board.reference_legal_moves()
    where = board.position()
    assert len(set(fast)) == len(fast), where
    assert sorted(fast, key=str) == sorted(plain, key=str), where
    assert board.has_legal_move() == bool(plain), where
    # the cheap first test of move readers never refuses a legal move
    assert all(board.may_make(m) for m in fast if m.drop is None), where


@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
def test_legal_moves_agree_with_the_plain_generator_in_games(variant):
    for board, _ in _random_game(variant, seed=11, plies=80):
        _check_agrees(board)


@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
def test_legal_moves_agree_with_the_plain_generator_on_random_placements(variant):
    for board in random_positions(variant, seed=12, count=15, density=0.25):
        _check_agrees(board)


@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
def test_attack_confirmation_agrees_with_generated_moves(variant):
    for board in random_positions(variant, seed=13, count=3, density=0.3):
        for sq, code in list(board._pieces[0].items()) + list(board._pieces[1].items()):
            for target in board.rules.squares:
                expected = any(to == target or target in kills for to, kills in board._piece_targets(sq, code))
                assert board._reaches(sq, code, target) == expected, (board.position(), sq, target)


def test_the_random_positions_include_checks_and_mates():
    """The comparisons above are only worth something if checks and pinned pieces occur."""
    shogi = next(v for v in PLAYABLE if v.slug == "shogi")
    boards = list(random_positions(shogi, seed=12, count=30, density=0.25))
    assert sum(b.is_check() for b in boards) >= 3


def _generator_checks(variant, seed: int, count: int) -> list[Board]:
    """Positions whose side to move is in check by a piece with generators alone (no leap or
    slide of the opponent's attacks its royal piece): random placements with such a piece of
    the opponent's put on an empty square near the royal piece."""
    rng = random.Random(seed)
    out = []
    for board in random_positions(variant, seed=seed, count=count, density=0.2):
        rules = board.rules
        c = board.turn
        royal = board.royal_square(c)
        types = [code for code in range(2, rules.ncodes) if (code & 1) != c and rules.complex[code]
                 and not rules.royal[code]]
        if royal is None or not types:
            continue
        for _ in range(30):
            sq = royal + rng.randint(-3, 3) + rng.randint(-3, 3) * STRIDE
            if sq not in rules.squares or board.piece_at(sq) is not None:
                continue
            edited = board.copy(stack=False)
            edited._place(sq, rng.choice(types))
            try:
                checked = Board(rules, edited.position())
            except PositionError:
                continue
            if checked.is_check() and not checked._checkers(royal, c ^ 1):
                out.append(checked)
                break
    return out


GENERATOR_VARIANTS = [v for v in PLAYABLE if any(Board(v).rules.complex)]


@pytest.mark.parametrize("variant", GENERATOR_VARIANTS, ids=lambda v: v.slug)
def test_legal_moves_agree_in_check_by_a_piece_with_generators(variant):
    """In check by pieces with generators alone, legal_moves tries only the moves that change a
    square the attack can pass (Board._generator_check): the same moves as the plain way."""
    for board in _generator_checks(variant, seed=28, count=30):
        _check_agrees(board)


def test_the_checks_by_pieces_with_generators_are_narrowed():
    """The comparison above is only worth something if the narrowing path is taken."""
    narrowed = {}
    for variant in GENERATOR_VARIANTS:
        boards = _generator_checks(variant, seed=28, count=30)
        narrowed[variant.slug] = sum(not b.rules.passive_burning  # (then every move is played)
                                     and b._generator_check(b.royal_square(b.turn), b.turn ^ 1) is not None
                                     for b in boards)
    assert sum(narrowed.values()) >= 10 and sum(n >= 3 for n in narrowed.values()) >= 2, narrowed


def _texts(rules) -> list[str]:
    """Move texts of every shape the quick path reads, and near misses: each ID and alias (and
    lower case, and with a digit after it), each separator and promotion suffix, squares on and
    off the board, origins, drops."""
    squares = ["a1", "e5", f"{'abcdefghijklmnop'[rules.files - 1]}{rules.ranks}", "p16", "a17"]
    out = []
    for key in rules.piece_index():
        for sq in squares:
            for sep in ("", "-", "x"):
                for promo in ("", "+", "="):
                    out.append(f"{key}{sep}{sq}{promo}")
            out += [f"{key.lower()}-{sq}", f"{key}1-{sq}", f"{key}a1-{sq}", f"{key}*{sq}", f"{key}b-{sq}"]
    return out


@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
def test_quick_plans_agree_with_the_first_reading(variant):
    """A move text's plan found from its ID and destination alone is the one the search over IDs
    (longest first, each reading in turn) finds."""
    from daikifu.replay import notation

    rules = Board(variant).rules
    tables = notation.ReaderTables(rules)  # (new: no plan kept yet)
    assert tables.ids is not None, "every bundled ID and alias takes the quick way"
    for text in _texts(rules):
        assert tables.plan(text) == tables._first_plan(text), text


def test_an_alias_the_quick_way_cannot_read_sends_every_text_the_search_way(tmp_path):
    from daikifu.replay import notation
    from daikifu.replay.variant import load_variant_file

    shogi = next(v for v in PLAYABLE if v.slug == "shogi")
    text = open(shogi.path, encoding="utf-8").read()
    path = tmp_path / "odd.toml"
    assert 'aliases = ["FU"]' in text
    path.write_text(text.replace('slug = "shogi"', 'slug = "odd-shogi"', 1).replace(
        'aliases = ["FU"]', 'aliases = ["FU", "P.X"]', 1), encoding="utf-8")
    variant = load_variant_file(path)
    assert "P.X" in variant.piece_index()
    rules = Board(variant).rules
    tables = notation.ReaderTables(rules)
    assert tables.ids is None
    for t in _texts(rules):
        assert tables.plan(t) == tables._first_plan(t), t


def _quick_agrees(board: Board) -> None:
    """``quick_move`` finds a move only where the general reading (``parse_move`` without it)
    finds the same one, and leaves the board as it was: for the text of every legal move, the text
    without origin of every pseudo-legal one (ambiguous texts, moves that leave the royal piece
    attacked), both without their promotion choice, and each piece to every square its tables
    reach, whatever stands between."""
    from daikifu.replay.notation import NotationError, _resolve, _write, move_notation, quick_move

    where = board.position()
    texts = {move_notation(board, m) for m in board.legal_moves()}
    texts |= {_write(board, m, False) for chunk in board._pseudo_chunks() for m in chunk}
    texts |= {t.rstrip("+=") for t in texts}  # a promotion choice left unwritten
    R = board.rules
    for fr, code in board._pieces[board.turn].items():
        ident = R.types[(code >> 1) - 1].id
        idx = code if R.zoned[code] is None else R.zoned[code][fr]
        for delta in R.by_delta[idx] or ():
            if 0 <= fr + delta < len(R.on_board) and R.on_board[fr + delta]:
                texts |= {f"{ident}-{square_name(fr + delta)}", f"{ident}x{square_name(fr + delta)}"}
    for text in sorted(texts):
        quick = quick_move(board, text)
        assert board.position() == where, text
        if quick is not None:
            try:
                general = _resolve(board, text)
            except NotationError as exc:
                raise AssertionError(f"{where}: quick_move reads {text!r} as {quick}; the general way: {exc}") from None
            assert quick == general, (where, text)


@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
def test_quick_move_agrees_with_the_general_reading(variant):
    for board, _ in _random_game(variant, seed=14, plies=24):
        _quick_agrees(board)
    for board in random_positions(variant, seed=15, count=6, density=0.25):
        _quick_agrees(board)


def _one_leg_moves_agree(board: Board) -> int:
    """``step_move`` accepts exactly the one-leg moves of the side to move that ``illegality``
    finds legal, and ``play`` refuses those that leave the royal piece attacked, leaving the board
    as it was; returns how many moves leave it attacked."""
    where = board.position()
    exposing = []
    for chunk in board._pseudo_chunks():
        for m in chunk:
            if m.drop is not None or m.kills or m.from_square == m.to_square:
                continue
            reason = board.illegality(m)
            t = board.rules.type_by_id[board.piece_at(m.from_square).id].index
            found = board.step_move(t, m.to_square, bytes([BYTE_OF_SQUARE[m.from_square]]), m.promotion)
            assert (found == m) == (reason is None), (where, m, reason, found)
            if reason is not None and reason.code is IllegalReason.LEAVES_ROYAL_IN_CHECK:
                exposing.append(m)
    for m in exposing:
        with pytest.raises(IllegalMoveError):
            board.play(m)
        assert board.position() == where
    return len(exposing)


def _checked_lines_agree(variant) -> int:
    """Along lines of moves each checked by ``step_move`` or ``play`` (from the start and from
    random placements, where discovered checks and pins are frequent), every one-leg move agrees;
    returns how many moves that leave the royal piece attacked were met where the board knew the
    side to move not in check (and so looked at one line only)."""
    rng = random.Random(16)
    exposing = 0
    for board in [Board(variant), *random_positions(variant, seed=16, count=4, density=0.25)]:
        for ply in range(24):
            legal = board.legal_moves()
            if not legal:
                break
            royals = board.royal_squares(board.turn)
            known = len(royals) == 1 and board._marks is not None and board._known_unchecked(board.turn, royals[0])
            found = _one_leg_moves_agree(board)
            if known:
                exposing += found
            move = rng.choice(legal)
            if ply % 2 and move.drop is None and not move.kills and move.from_square != move.to_square:
                t = board.rules.type_by_id[board.piece_at(move.from_square).id].index
                origin = bytes([BYTE_OF_SQUARE[move.from_square]])
                assert board.step_move(t, move.to_square, origin, move.promotion) == move
                board.push(move)
            else:
                board.play(move)
    return exposing


@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
def test_checked_moves_agree_with_the_plain_check_along_a_game(variant):
    _checked_lines_agree(variant)


def test_the_checked_lines_meet_pinned_pieces():
    """The comparison above is only worth something where the board looked at one line."""
    for slug in ("shogi", "dai-kagamigi"):
        assert _checked_lines_agree(next(v for v in PLAYABLE if v.slug == slug)) > 0, slug
