"""Minishogi and Sho Shogi against Fairy-Stockfish, through its Python binding pyffish: the legal
moves of every position of seeded random games, and perft from the start and from positions of
those games, must be the engine's.  Fairy-Stockfish plays both as built-in variants (``minishogi``,
``shoshogi``: the rules pychess.org uses), so this is an independent implementation of the same
rules.  The start-position counts pinned in tests/data/perft.toml for these two variants are the
engine's, counted again by tests/test_perft.py where pyffish is installed (the test extras install
it).

One known difference, by design of the engine: Fairy-Stockfish lists a Pawn drop that gives
checkmate among the legal moves (shogi's *uchifuzume*, which both variants forbid, is applied by its
search, not its move generator).  So the engine's moves are taken less those Pawn drops that leave
the opponent without a move while in check, and every move so removed must be one daikifu refuses
as ``drop-mate``.

A second, in Sho Shogi alone: a side in check with its King alone may answer by promoting an
Elephant to Crown Prince (it then has two royal pieces and may leave either attacked), where
Fairy-Stockfish's generator of check evasions does not look at the royal pieces a move creates.
The sources' rule (the game is lost when both King and Crown Prince are lost) decides; every such
move is listed in docs/rules/family.md and is the only move daikifu may add to the engine's.

Fairy-Stockfish's FEN is daikifu's position string with chess's conventions: ``w`` is the first
player (upper case), hands in brackets; its moves are UCI (``e7e8+``, ``P@c3``).
"""

from __future__ import annotations

import random

import pytest

from daikifu.replay import Board, IllegalReason, Move, load_variant, parse_square
from daikifu.replay.perft import perft

sf = pytest.importorskip("pyffish")

ENGINE_NAMES = {"minishogi": "minishogi", "sho-shogi": "shoshogi"}


def engine_fen(board: Board) -> str:
    """The board's position as Fairy-Stockfish's FEN."""
    ranks, side, hands, number = board.position().split()
    hands = "" if hands == "-" else _expand(hands)
    return f"{ranks}[{hands}] {'w' if side == 'b' else 'b'} 0 {number}"


def _expand(hands: str) -> str:
    out, count = [], ""
    for ch in hands:
        if ch.isdigit():
            count += ch
        else:
            out.append(ch * int(count or 1))
            count = ""
    return "".join(out)


def engine_move(move) -> str:
    """daikifu's move as Fairy-Stockfish's UCI: drops ``P@c3``, ``+`` to promote, nothing to decline."""
    return move.uci().replace("*", "@").removesuffix("=")


def is_pawn_drop_mate(name: str, fen: str, move: str) -> bool:
    return move.startswith("P@") and sf.gives_check(name, fen, [move]) and not sf.legal_moves(name, fen, [move])


def engine_moves(name: str, fen: str) -> list[str]:
    """The engine's legal moves, less checkmating Pawn drops (see the module's docstring)."""
    return [m for m in sf.legal_moves(name, fen, []) if not is_pawn_drop_mate(name, fen, m)]


def is_crowning_in_check(board: Board, move: str) -> bool:
    """Whether ``move`` (engine notation) promotes an Elephant to Crown Prince while the mover's
    only royal piece is in check (the second difference of the module's docstring)."""
    return (move.endswith("+") and board.is_check() and len(board.royal_squares(board.turn)) == 1
            and board.piece_at(parse_square(move[:2], 9, 9)).id == "E")


def engine_perft(name: str, fen: str, depth: int) -> int:
    moves = engine_moves(name, fen)
    if depth == 1:
        return len(moves)
    return sum(engine_perft(name, sf.get_fen(name, fen, [m]), depth - 1) for m in moves)


def random_positions(slug: str, seed: int, plies: int = 80):
    """The boards (copies) along one seeded random game, start position included."""
    board = Board(load_variant(slug))
    rng = random.Random(seed)
    out = [board.copy()]
    for _ in range(plies):
        legal = board.legal_moves()
        if not legal or board.repetitions() >= 4:
            break
        captures = [m for m in legal if board.captured_squares(m)]
        board.push(rng.choice(captures if captures and rng.random() < 0.6 else legal))
        out.append(board.copy())
    return out


@pytest.mark.parametrize("slug", sorted(ENGINE_NAMES))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_legal_moves_along_random_games_are_the_engines(slug, seed):
    name = ENGINE_NAMES[slug]
    for board in random_positions(slug, seed):
        fen = engine_fen(board)
        ours = sorted(engine_move(m) for m in board.legal_moves())
        crowning = sorted(m for m in ours if is_crowning_in_check(board, m))
        assert sorted(set(ours) - set(crowning)) == sorted(set(engine_moves(name, fen)) - set(crowning)), fen
        for dropped in set(sf.legal_moves(name, fen, [])) - set(ours):
            move = Move(None, parse_square(dropped[2:], board.variant.files, board.variant.ranks), (), None, "P")
            assert board.illegality(move).code == IllegalReason.DROP_MATE, (board.position(), dropped)


@pytest.mark.parametrize("slug", sorted(ENGINE_NAMES))
def test_the_start_position_is_the_engines(slug):
    board = Board(load_variant(slug))
    ranks, side = sf.start_fen(ENGINE_NAMES[slug]).split()[:2]
    assert engine_fen(board).split()[:2] == [ranks.split("[")[0] + "[]", side]


@pytest.mark.parametrize("slug", sorted(ENGINE_NAMES))
def test_perft_two_plies_deep_from_random_positions_is_the_engines(slug):
    name = ENGINE_NAMES[slug]
    for board in random_positions(slug, 4, plies=40)[10::15]:
        assert perft(board, 2) == engine_perft(name, engine_fen(board), 2), board.position()


# Sho Shogi's second royal piece: with King and Crown Prince either may be left attacked; with the
# King alone it must escape; the Elephant may promote next to the enemy King.
SHO_ROYALS = [
    "4k4/9/9/9/9/9/9/+E8/4K3r b - 1",
    "4k4/9/9/9/9/9/9/E8/4K3r b - 1",
    "4k4/9/4E4/9/9/9/9/9/4K4 b - 1",
    "3gk4/4+e4/9/9/9/9/9/9/R3K4 b - 1",
    "lnsgkgsnl/1r5b1/pppp1pppp/4e4/9/4E4/PPPP1PPPP/1B5R1/LNSGKGSNL b - 1",
]


@pytest.mark.parametrize("position", SHO_ROYALS)
def test_sho_shogi_royal_positions_are_the_engines(position):
    board = Board(load_variant("sho-shogi"), position)
    assert sorted(engine_move(m) for m in board.legal_moves()) == sorted(engine_moves("shoshogi", engine_fen(board)))
    assert perft(board, 2) == engine_perft("shoshogi", engine_fen(board), 2)


def test_a_crown_prince_made_in_check_answers_the_check():
    """The King in check from the Gold on g3; taking on f6 with the Elephant and promoting it
    leaves the King attacked but gives the side a Crown Prince: legal here, not in the engine."""
    board = Board(load_variant("sho-shogi"),
                  "+l8/3L5/1+n+l+RE3E/3E1e1+l1/1N2+P1L1G/7+R1/+p+N1R2gK1/2+N+l3+B1/3k3+b1 b - 1")
    ours = {engine_move(m) for m in board.legal_moves()}
    assert {"e7f6+", "e7e8+", "i7i8+", "d6c7+"} <= ours and "e7f6" not in ours
    assert "e7f6+" not in engine_moves("shoshogi", engine_fen(board))
    assert ours - set(engine_moves("shoshogi", engine_fen(board))) == {
        m for m in ours if is_crowning_in_check(board, m)}
    board.push(next(m for m in board.legal_moves() if engine_move(m) == "e7f6+"))
    assert board.piece_at(parse_square("f6")).id == "+E"
    board.push(next(m for m in board.legal_moves() if engine_move(m) == "g3h3"))  # the King is taken
    assert board.legal_moves() and board.outcome() is None
