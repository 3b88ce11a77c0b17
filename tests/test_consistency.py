"""Random play in every playable variant: the parts of the rules core must agree with each other.

* every generated move passes the single-move check, and playing it with ``play`` gives the same
  position as ``push``;
* moves the generator does not produce are rejected by the single-move check;
* the incremental hash equals the hash computed from scratch, and push/pop restores everything;
* every position string reads back to the same position.
"""

from __future__ import annotations

import random

import pytest

from daikifu.replay import Board, IllegalMoveError, Move, list_variants
from daikifu.replay.squares import square_name
from daikifu.replay.notation import parse_move

PLAYABLE = [v for v in list_variants() if v.playable]


def _capture_biased_choice(rng, board, moves):
    captures = [m for m in moves if board.captured_squares(m)]
    if captures and rng.random() < 0.5:
        return rng.choice(captures)
    return rng.choice(moves)


def _fresh_hash(board: Board) -> int:
    copy = Board(board.rules, board.position())
    return copy.zobrist


def _random_game(variant, seed, plies):
    rng = random.Random(seed)
    board = Board(variant)
    for _ in range(plies):
        moves = board.legal_moves()
        if not moves:
            break
        yield board, moves
        board.push(_capture_biased_choice(rng, board, moves))


@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
def test_generated_moves_pass_the_single_move_check(variant):
    for board, moves in _random_game(variant, seed=1, plies=120):
        for m in moves:
            assert board.illegal_reason(m) is None, (board.position(), m)


@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
def test_moves_not_generated_are_rejected(variant):
    """Every single-step candidate from every own piece to every square, checked both ways."""
    rng = random.Random(2)
    for n, (board, moves) in enumerate(_random_game(variant, seed=2, plies=60)):
        if n % 10:
            continue
        legal = set(moves)
        squares = board.rules.squares
        own = [sq for sq, p in board.pieces(board.turn).items()]
        for fr in own:
            for to in squares:
                for promo in (None, True, False):
                    m = Move(fr, to, (), promo)
                    assert (board.illegal_reason(m) is None) == (m in legal), (board.position(), m)
        for pid in board.hand(board.turn):
            for to in rng.sample(squares, min(40, len(squares))):
                m = Move(None, to, (), None, pid)
                assert (board.illegal_reason(m) is None) == (m in legal), (board.position(), m)


@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
def test_illegal_play_raises_and_leaves_the_board_unchanged(variant):
    board = Board(variant)
    before = board.position(), board.zobrist
    king = board.royal_square(0)
    with pytest.raises(IllegalMoveError):
        board.play(Move(king, king + 5 * 32, (), None))  # five ranks up: no royal piece moves so
    assert (board.position(), board.zobrist) == before
    assert board.move_stack == []


@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
def test_hash_position_string_and_undo_stay_consistent(variant):
    board = Board(variant)
    history = [(board.position(), board.zobrist)]
    rng = random.Random(3)
    for _ in range(150):
        moves = board.legal_moves()
        if not moves:
            break
        m = _capture_biased_choice(rng, board, moves)
        replay = Board(board.rules, board.position())
        replay.play(m)
        board.push(m)
        text = board.position()
        assert replay.position() == text
        assert Board(board.rules, text).position() == text, "position string must round-trip"
        assert board.zobrist == _fresh_hash(board) == replay.zobrist
        assert -(1 << 63) <= board.zobrist < (1 << 63)
        history.append((text, board.zobrist))
    while board.move_stack:
        board.pop()
        history.pop()
        assert (board.position(), board.zobrist) == history[-1]


def _whole_state(board: Board) -> tuple:
    """Everything a move changes, as the board holds it: taking a move back must restore all of it,
    including the order of the royal squares (``royal_square`` answers the first one)."""
    return (board.position(), board.zobrist, tuple(board.royal_squares(c) for c in (0, 1)),
            frozenset(board._unmoved or ()), board._lion_sq, [list(h) for h in board.hands],
            [dict(p) for p in board._pieces], [set(s) for s in board._complex_sq], list(board._board),
            list(board.move_stack), len(board._history))


@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
def test_taking_any_move_back_restores_the_whole_board(variant):
    """Undo entries are packed into one int a move (a move taking on the way keeps a whole entry):
    at every ply of a game biased to captures, push and pop a sample of the legal moves, and at
    the end take every move back to the start."""
    rng = random.Random(5)
    board = Board(variant)
    start = _whole_state(board)
    for _ in range(120):
        moves = board.legal_moves()
        if not moves:
            break
        before = _whole_state(board)
        sample = rng.sample(moves, min(6, len(moves))) + [m for m in moves if m.kills][:3]
        for m in sample:
            board.push(m)
            assert board.pop() == m
            assert _whole_state(board) == before, (board.position(), m)
        board.push(_capture_biased_choice(rng, board, moves))
    while board.move_stack:
        board.pop()
    assert _whole_state(board) == start


def test_repetitions_counted_on_request_equal_the_kept_count():
    """A reader asks for repetitions once (counted in the history); a program that asks at every
    move gets a count kept by push and pop; both say the same, also after moves are taken back."""
    cycle = ["S-d2", "S-f8", "S-c1", "S-g9"]  # silvers stepping to and fro
    asked_once, asked_always = Board("shogi"), Board("shogi")
    counts = []
    for i in range(13):
        for board in (asked_once, asked_always):
            board.push(parse_move(board, cycle[i % 4]))
        counts.append(asked_always.repetitions())
    assert asked_once.repetitions() == counts[-1] == 4
    assert counts[:4] == [1, 1, 1, 2]
    for board in (asked_once, asked_always):
        for _ in range(4):
            board.pop()
    assert asked_always.repetitions() == asked_once.repetitions() == 3


@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
def test_move_uci_round_trip(variant):
    for board, moves in _random_game(variant, seed=4, plies=40):
        for m in moves:
            assert board.parse_uci(m.uci()) == m, m


@pytest.mark.slow
@pytest.mark.parametrize("block", range(10))
@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
def test_two_hundred_random_games(variant, block):
    """Issue acceptance: 200 random games per playable variant without an exception (in ten
    blocks of 20, so that a sample of the slow checks can take one)."""
    for seed in range(20 * block, 20 * block + 20):
        board = Board(variant)
        rng = random.Random(seed)
        for _ in range(200):
            moves = board.legal_moves()
            if not moves or board.outcome() is not None:
                break
            for m in moves:  # every generated move passes the single-move check
                assert board.illegal_reason(m) is None, (board.position(), m)
            m = _capture_biased_choice(rng, board, moves)
            board.play(m)
            assert Board(board.rules, board.position()).position() == board.position()


def test_square_names():
    from daikifu.replay.squares import parse_square, square
    assert square_name(square(0, 0)) == "a1"
    assert square_name(square(14, 14)) == "o15"
    assert square_name(square(8, 15)) == "i16"
    assert parse_square("o15") == square(14, 14)
    with pytest.raises(ValueError):
        parse_square("j10", files=9, ranks=9)


def random_positions(variant, seed, count, density=0.3):
    """Positions with random pieces of every type (promoted and multi-leg ones included).

    Positions where the side not to move is in check are skipped: they cannot arise in a game.
    """
    rng = random.Random(seed)
    board = Board(variant)
    rules = board.rules
    royal = [p for p in variant.pieces if p.royal][0]
    others = [p for p in variant.pieces if not p.royal]
    produced = 0
    while produced < count:
        squares = list(rules.squares)
        rng.shuffle(squares)
        cells = {}
        for colour in (0, 1):
            cells[squares.pop()] = (royal.index, colour)
        for sq in squares[: int(len(squares) * density)]:
            p = rng.choice(others)
            colour = rng.randrange(2)
            if sq in rules.dead[p.index * 2 + colour]:
                continue
            cells[sq] = (p.index, colour)
        hands = [[0] * (len(variant.pieces) + 1) for _ in range(2)]
        if rules.drops:
            for colour in (0, 1):
                for t in rng.sample(rules.droppable, min(3, len(rules.droppable))):
                    hands[colour][t] = rng.randint(1, 2)
        from daikifu.replay.position import format_position
        from daikifu.replay.squares import square
        text = format_position(variant, lambda f, r, cells=cells: cells.get(square(f, r)), hands, rng.randrange(2), 1)
        try:
            b = Board(rules, text)
        except ValueError:
            continue
        if b._exposed(b.turn ^ 1):
            continue
        produced += 1
        yield b


@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
def test_random_positions_generator_and_single_move_check_agree(variant):
    _generator_and_single_move_check_agree(random_positions(variant, seed=5, count=6))


@pytest.mark.slow
@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
def test_many_random_positions_generator_and_single_move_check_agree(variant):
    _generator_and_single_move_check_agree(random_positions(variant, seed=6, count=40))


def _generator_and_single_move_check_agree(boards):
    for board in boards:
        legal = set(board.legal_moves())
        for m in legal:
            assert board.illegal_reason(m) is None, (board.position(), m)
        # every single-leg candidate, and multi-leg candidates with kills next to the piece
        for fr in board.pieces(board.turn):
            near = [fr + dx + 32 * dy for dx in range(-2, 3) for dy in range(-2, 3) if dx or dy]
            near = [s for s in near if board.piece_at(s) is not None and board.piece_at(s).colour != board.turn]
            for to in board.rules.squares:
                for promo in (None, True, False):
                    candidates = [Move(fr, to, (), promo)] + [Move(fr, to, (k,), promo) for k in near]
                    for m in candidates:
                        assert (board.illegal_reason(m) is None) == (m in legal), (board.position(), m)
        text = board.position()
        assert Board(board.rules, text).position() == text
        for m in list(legal)[:30]:
            z, pos = board.zobrist, board.position()
            board.push(m)
            assert board.zobrist == _fresh_hash(board)
            board.pop()
            assert (board.zobrist, board.position()) == (z, pos)


@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
def test_fast_position_strings_equal_the_reference_writer(variant):
    """``Board.position`` (precomputed tables) writes what ``format_position`` writes square by
    square, for random positions with every piece type, hands included."""
    from daikifu.replay.position import format_position
    from daikifu.replay.squares import square

    for board in random_positions(variant, seed=7, count=15):
        b = board._board

        def cell(f, r, b=b):
            code = b[square(f, r)]
            return None if code < 2 else (code >> 1, code & 1)

        assert board.position() == format_position(board.rules, cell, board.hands, board.turn, board.move_number)


@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
def test_is_attacked_agrees_with_every_piece_s_moves(variant):
    """``is_attacked`` (direction scans, leap tables, and a filtered look at pieces with
    generators) says a square is attacked exactly when some piece of that colour has a move
    that captures on it (destination or a square captured on the way)."""
    for board in random_positions(variant, seed=11, count=12):
        targets = {}
        for s in board.pieces():
            code = board._board[s]
            targets[s] = board._piece_targets(s, code)
        for sq, piece in board.pieces().items():
            by = piece.colour ^ 1
            expected = any(to == sq and to != s or sq in kills
                           for s, found in targets.items() if board.piece_at(s).colour == by
                           for to, kills in found)
            assert board.is_attacked(sq, by) == expected, (board.position(), square_name(sq), by)


ZONED = [v for v in PLAYABLE if any(z is not None for z in Board(v).rules.zoned)]


@pytest.mark.parametrize("variant", ZONED, ids=lambda v: v.slug)
def test_a_piece_that_moves_by_zone_attacks_by_the_zone_it_stands_in(variant):
    """For a piece whose moves depend on its zone (Dai-Ryu's), the attack tables hold every
    zone's moves and ``is_attacked`` narrows them to the zone the piece stands in: alone on the
    board with one enemy piece, on every pair of squares, it attacks that piece exactly when its
    moves from where it stands capture it."""
    from position_support import position_text

    board = Board(variant, position_text({}, variant.files, variant.ranks))
    rules, b = board.rules, board._board
    zoned = [code for code in range(2, rules.ncodes) if rules.zoned[code] is not None]
    assert zoned
    target = next(p.index for p in variant.pieces if not p.royal)
    checked = 0
    on_board = set(rules.squares)
    for code in zoned:
        colour = code & 1
        tables = {rules.zoned[code][s] for s in rules.squares}
        for s in rules.squares:
            b[s] = code
            # every square some zone's moves reach from s (where the union could be wrong), and a
            # seventh of the others (where no attack may be found)
            reach = {s + d for idx in tables for d in rules.by_delta[idx]} & on_board
            for t in sorted(reach) + list(rules.squares[s % 7::7]):
                if t == s:
                    continue
                b[t] = target * 2 + (colour ^ 1)
                expected = any(to == t for to, kills in board._piece_targets(s, code))
                assert board.is_attacked(t, colour) == expected, (code, square_name(s), square_name(t))
                checked += expected
                b[t] = 0
            b[s] = 0
    assert checked


@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
def test_a_move_stack_gives_back_every_move_as_given(variant):
    """A board keeps its moves as ints (a drop as its type's number, a move that takes on the
    way whole): every legal move, in every position of a capture-biased game, comes back equal,
    from the board's stack and from a stack of its own, which numbers the dropped pieces itself."""
    from daikifu.replay import MoveStack

    rng = random.Random(5)
    board, played, own = Board(variant), [], MoveStack()
    for _ in range(60):
        moves = board.legal_moves()
        if not moves:
            break
        for m in moves:
            stack = MoveStack()
            stack.append(m)
            assert stack[0] == m and stack[-1] == m and list(stack) == [m], m
            board.push(m)
            assert board.peek() == m and board.move_stack[-1] == m and len(board.move_stack) == len(played) + 1
            assert board.pop() == m
        choice = _capture_biased_choice(rng, board, moves)
        board.push(choice)
        played.append(choice)
        own.append(choice)
        assert board.move_stack == played and own == played and board.move_stack[1:] == played[1:]
    assert list(board.copy().move_stack) == played
    with pytest.raises(IndexError):
        own[len(own)]


@pytest.mark.parametrize("variant", PLAYABLE, ids=lambda v: v.slug)
def test_boards_in_the_start_position_share_nothing(variant):
    """A new board copies the start position from one set up before: a game played on one board
    (captures, drops, promotions, royal moves) leaves a new board, and the played one set back to
    the start, equal to a board whose start position was read from its text."""
    games = _random_game(variant, 11, 80)
    board = next(games)[0]
    for _ in games:  # (the generator plays the game on that one board)
        pass
    start = board.rules.start
    assert board.ply > 0
    board.set_position(start)
    for fresh in (Board(variant), board):
        parsed = Board(variant, start + " ")  # not the start text itself: read, not copied
        assert fresh.position() == parsed.position()
        assert fresh.zobrist == parsed.zobrist == _fresh_hash(fresh)
        assert fresh.legal_moves() == parsed.legal_moves()
        assert fresh.ply == 0 and list(fresh.move_stack) == [] and fresh.hands == parsed.hands
