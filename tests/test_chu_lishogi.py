"""Chu Shogi against lishogi's own tests: its legality tests and its perft figures, kept as data
in tests/data/chu/ (with their provenance), asked through the same functions as
``daikifu moves chu-shogi --position ... --check MOVE`` and ``daikifu perft``.

lishogi's SFEN is read as it is (its piece letters are aliases in the variant file, its third
field is the counter-strike square); its moves are read in its USI form (``6f5e6d``).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from daikifu.replay import Board, load_variant
from daikifu.replay.notation import check_moves
from daikifu.replay.perft import perft
from daikifu.replay.usi import usi_to_move

DATA = Path(__file__).parent / "data" / "chu"
CHU = load_variant("chu-shogi")


def legality_cases():
    with open(DATA / "lishogi-legality.toml", "rb") as fh:
        return tomllib.load(fh)["case"]


def perft_rows():
    rows = []
    for line in (DATA / "lishogi-perft.tsv").read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            name, position, depth, nodes = line.split("\t")
            rows.append((name, None if position == "startpos" else position, int(depth), int(nodes)))
    return rows


def case_id(case) -> str:
    played = "+".join(case.get("played", []))
    return f"{case['test']}:{case['position_name']}" + (f" after {played}" if played else "")


@pytest.mark.parametrize("case", legality_cases(), ids=case_id)
def test_lishogi_legality(case):
    board = Board(CHU, case["sfen"])
    for text in case.get("played", []):
        board.push(usi_to_move(board, text))
    answers = check_moves(board, case["legal"] + case["illegal"])
    for answer, legal in zip(answers, [True] * len(case["legal"]) + [False] * len(case["illegal"])):
        assert answer["legal"] is legal, answer
        if legal:
            assert answer["reason"] is None and answer["notation"]
        else:
            assert answer["reason"]


def test_the_legality_data_covers_every_lishogi_case():
    cases = legality_cases()
    assert sum(len(c["legal"]) + len(c["illegal"]) for c in cases) == 100  # isLegal calls in the test file
    assert {c["test"] for c in cases} == {"valid promotions", "lion moves", "wiki lion moves and more",
                                          "falcon/eagle second move"}


def test_lishogi_records_the_counter_strike_square_after_a_kirin_promotes_on_it():
    # lishogi's test: after 7i8j+ its lastLionCapture is 8j
    board = Board(CHU, "12/12/12/12/12/4r7/12/12/5o3n1n/4N6P/12/6B5 w - 1")
    board.push(usi_to_move(board, "7i8j+"))
    assert board.position().split()[2] == "e3"  # 8j in daikifu's naming


FAST = [r for r in perft_rows() if r[0] != "perfts"]
RANDOM = [r for r in perft_rows() if r[0] == "perfts"]


@pytest.mark.parametrize("row", FAST, ids=lambda r: f"{r[0]}:{r[1] or 'startpos'}:{r[2]}")
def test_lishogi_perft(row):
    _, position, depth, nodes = row
    assert perft(Board(CHU, position), depth, routes=True) == nodes


def test_lishogi_perft_of_positions_from_random_games():
    assert len(RANDOM) > 250
    counted = [(position, nodes, perft(Board(CHU, position), depth, routes=True))
               for _, position, depth, nodes in RANDOM]
    assert [row for row in counted if row[1] != row[2]] == []


def test_routes_count_only_where_lishogi_counts_more():
    # on the start position no piece has a two-step route: moves and routes agree
    board = Board(CHU)
    assert perft(board, 1) == perft(board, 1, routes=True) == 36
    # a lone Lion: 24 squares within two, a pass; lishogi: 24 + 8 first steps x 8 second steps
    lion = Board(CHU, "12/12/12/12/12/12/5N6/12/12/12/12/12 b")
    assert perft(lion, 1) == 25 and perft(lion, 1, routes=True) == 88


def test_perft_counts_routes_from_the_command_line():
    import json

    from click.testing import CliRunner

    from daikifu.cli import main

    lone_lion = "12/12/12/12/12/12/5N6/12/12/12/12/12 b"
    for flags, nodes in (([], 25), (["--routes"], 88), (["--routes", "--divide"], 88)):
        result = CliRunner().invoke(main, ["perft", "chu-shogi", "1", "-p", lone_lion, "--json", *flags])
        assert result.exit_code == 0, result.output
        assert json.loads(result.stdout)["nodes"] == nodes  # (a lone Lion: "allowed: no-royal" on stderr)
        assert "allowed: no-royal" in result.stderr
