"""Chu Shogi records: the Chu Shogi server's ``.csg`` games (the six historical games, three of
them handicap games) read by the reading pipeline and replayed by the rules core.

The ply counts are those of tests/data/real/MANIFEST.md (hist5 has 343: its last move line is
numbered 172 and both sides moved at 172).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from daikifu.cli import main
from daikifu.formats.csg import read_csg
from daikifu.formats.reading import detect_format, read_record

CHU = Path(__file__).parent / "data" / "real" / "chu"
GAMES = {"hist1": (327, None, "Mori", "Fukui"), "hist2": (160, None, "Kondo", "Konishi"),
         "hist3": (259, "free-king", "Kuri", "Masuda"), "hist4": (233, "free-king-alternate", "Kuri", "Sawada"),
         "hist5": (343, "free-king-dragon-king", "Mori", "Matsumoto"),
         "hist6": (317, "free-king-dragon-king", "Mori", "Matsumoto")}


@pytest.mark.parametrize("name", sorted(GAMES))
def test_historical_games_replay_to_the_end(name):
    plies, setup, sente, gote = GAMES[name]
    path = CHU / f"colin-adams_{name}.csg"
    data = path.read_bytes()
    assert detect_format(data.decode("ascii"), path.name) == "csg"
    [game] = list(read_record(data, name=path.name))
    assert game.valid and not game.errors, [str(e) for e in game.errors]
    assert len(game.mainline_moves()) == plies
    assert game.options.get("setup", "even") == (setup or "even")
    assert (game.headers["Sente"], game.headers["Gote"]) == (sente, gote)
    # the handicap giver, Gote, moves first
    assert game.start_board().turn == (0 if setup is None else 1)


def test_lion_moves_of_the_records_are_read():
    [game] = list(read_record((CHU / "colin-adams_hist1.csg").read_bytes(), name="hist1.csg"))
    moves = game.mainline_moves()
    igui = moves[36]  # "19 Ln 6g x! 6f": the Lion takes on 6f and stays on 6g
    assert igui.to_square == igui.from_square and len(igui.kills) == 1
    double = [m for m in moves if m.kills and m.to_square != m.from_square]
    assert double  # "52 Ln 11g x 12g - 11f": a capture and a step in one move


def test_validate_reads_every_record_as_it_is():
    paths = [str(CHU / f"colin-adams_{name}.csg") for name in sorted(GAMES)]
    result = CliRunner().invoke(main, ["validate", *paths])
    assert result.exit_code == 0, result.output
    for name, (plies, *_rest) in GAMES.items():
        assert f"colin-adams_{name}.csg: game 1 (chu-shogi): valid, {plies} plies" in result.output


HEAD = "3\nboard.data\nEVEN\nA\nB\n\n\n\n\n\n0 P 1a - 1a\n"


def test_a_bad_move_is_an_error_at_its_line():
    [game] = list(read_csg(HEAD + "1 P 8i - 8h\n1 P 8d - 8c\n", file="bad.csg"))
    assert not game.valid
    [error] = game.errors
    assert (error.line, error.ply) == (13, 2) and "8d - 8c" in error.move


def test_a_wrong_piece_name_and_an_unknown_setup_are_errors():
    [game] = list(read_csg(HEAD + "1 G 8i - 8h\n", file="bad.csg"))
    assert not game.valid and "no G of the side to move on 8i" in str(game.errors[0])
    [game] = list(read_csg(HEAD.replace("board.data", "mystery.data") + "1 P 8i - 8h\n", file="bad.csg"))
    assert not game.valid and "unknown setup 'mystery.data'" in str(game.errors[0])


def test_a_capture_mark_needs_a_piece_to_capture():
    [game] = list(read_csg(HEAD + "1 P 8i x 8h\n", file="x.csg"))
    assert not game.valid and "nothing to capture on 8h" in str(game.errors[0])
