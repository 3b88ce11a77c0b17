"""Chu Shogi KIF (formats/kif.py): lishogi's dialect read and written, ChuShogiLite's read.

The real records are in tests/data/real/chu/ (provenance in tests/data/real/MANIFEST.md, whose ply
counts the tests use): ``scalashogi_chushogi-kif1.kif`` is the Chu game of the test fixtures of
lishogi's server-side rules library (scalashogi), ``tabulon_chushogilite-d22.kif`` a tsume that
ChuShogiLite exported, and the six historical ``.csg`` games are the round trip's input.  The moves
of the lishogi game are compared with what lishogi's libraries state about them (the USI moves of
shogiops's test ``parse chushogi moves``, the step count of scalashogi's ``chushogi kif fixture 1``)
and the KIF written for it with the fixture's own lines, never with what the reader produced.
"""

from __future__ import annotations

import re

import pytest
from click.testing import CliRunner

from daikifu.cli import main
from daikifu.formats.game import Game
from daikifu.formats.reading import detect_format, read_record, write_record
from daikifu.replay import Board
from daikifu.replay.usi import move_to_usi, parse_usi_square, usi_to_move

from manifest_support import REAL, manifest

CHU = REAL / "chu"
MANIFEST = manifest()
LISHOGI = "chu/scalashogi_chushogi-kif1.kif"
D22 = "chu/tabulon_chushogilite-d22.kif"
HISTORICAL = sorted(f"chu/{p.name}" for p in CHU.glob("*.csg"))


def read_one(data: bytes | str, name: str = "game.kif", **kwargs) -> Game:
    (game,) = read_record(data, name=name, **kwargs)
    return game


def usi_moves(game: Game) -> list[str]:
    board = game.start_board()
    out = []
    for move in game.mainline_moves():
        out.append(move_to_usi(board, move))
        board.push(move)
    return out


def test_historical_games_are_six():
    assert len(HISTORICAL) == 6


def test_lishogi_fixture_reads_as_chu_with_the_manifest_count():
    data = (REAL / LISHOGI).read_bytes()
    assert detect_format(data.decode("utf-8"), "kif1.kif") == "kif"
    game = read_one(data, LISHOGI)
    assert game.valid, [str(e) for e in game.errors]
    assert game.variant.slug == "chu-shogi"  # no header, no board: the moves tell
    assert [len(game.mainline_moves())] == MANIFEST[LISHOGI][1] == [129]


def test_lishogi_fixture_moves_are_those_shogiops_states():
    # shogiops test/notation/kif.test.ts, "parse chushogi moves": '1手目 ▲7八歩兵 （←7九）' is 7i7h
    # and the two lines of ply 57 ('一歩目 6六獅子 （←7七）', '二歩目 7七獅子（居食い） （←6六）') are
    # 7g6f7g; the fixture writes ply 57's first step as 仝 (ply 56 went to 6六)
    usi = usi_moves(read_one((REAL / LISHOGI).read_bytes(), LISHOGI))
    assert usi[0] == "7i7h"
    assert usi[56] == "7g6f7g"
    # '123手目 ▲6十一金将成 （←5十二）' is 5l6k+ there; the fixture's ply 123 has no 成
    assert usi[122] == "5l6k"


def test_lishogi_fixture_is_written_back_as_its_own_lines():
    """The KIF daikifu writes for the game holds the fixture's move lines, up to lishogi's side
    marks (▲△, which its server's exporter does not write), spacing and the final まで."""
    text = (REAL / LISHOGI).read_text(encoding="utf-8")
    written = write_record(read_one(text.encode(), LISHOGI), "kif").decode("utf-8")

    def norm(line: str) -> str:
        line = re.sub(r"[▲△]", "", line).replace("まで", "")
        return re.sub(r"\s+", " ", line).strip()

    expected = [norm(line) for line in text.splitlines() if line.strip()]
    got = [norm(line) for line in written.splitlines() if "手目" in line]
    assert got == expected
    assert "変種" not in written and "手合割" not in written  # lishogi writes neither for Chu


def test_chushogilite_tsume_validates_with_the_manifest_count():
    game = read_one((REAL / D22).read_bytes(), D22)
    assert game.valid, [str(e) for e in game.errors]
    assert game.variant.slug == "chu-shogi"  # the 12-rank diagram tells
    assert [len(game.mainline_moves())] == MANIFEST[D22][1] == [17]
    board = game.start_board()
    # the attacker (Sente) has no King; the diagram's 成角 is the promoted Ferocious Leopard (it
    # moves as a Bishop), 成歩 a promoted Pawn, v成龍 Gote's promoted Rook (rows 三, 五, 七 of the file)
    expected = {"8c": "+fl", "9d": "+C", "4d": "+GB", "11e": "+r", "6g": "+FL", "4g": "k", "1g": "+p",
                "5i": "+p", "4i": "GB", "3i": "P", "4l": "+L"}
    assert {name: str(board.piece_at(parse_usi_square(board, name))) for name in expected} == expected
    assert "K" not in [str(p) for p in board.pieces(0).values()]
    first = game.mainline_moves()[0]  # 1 手目 9十二角行 （←10十一）: the 成角 (moves as a Bishop)
    assert board.piece_at(first.from_square).id == "+FL"
    assert game.comment == " Tsume D22"


@pytest.mark.parametrize("path", HISTORICAL)
def test_historical_games_round_trip_through_lishogi_kif(path):
    game = read_one((REAL / path).read_bytes(), path)
    assert game.valid
    data = write_record(game, "kif")
    text = data.decode("utf-8")
    assert "変種：chu-shogi" not in text or "変種オプション" in text
    assert re.search(r"^ +1手目   \d{1,2}[一二三四五六七八九十]+\S+ （←\d{1,2}[一二三四五六七八九十]+）$", text, re.M)
    back = read_one(data, "back.kif")
    assert back.valid, [str(e) for e in back.errors]
    assert back.variant.slug == "chu-shogi"
    assert back.mainline_moves() == game.mainline_moves()
    assert len(back.mainline_moves()) == MANIFEST[path][1][0]
    assert back.start_board().position() == game.start_board().position()
    assert (back.headers["Sente"], back.headers["Gote"]) == (game.headers["Sente"], game.headers["Gote"])


def test_handicap_game_is_written_with_lishogi_diagram_and_read_without_the_variant_lines():
    game = read_one((CHU / "colin-adams_hist3.csg").read_bytes(), "hist3.csg")
    text = write_record(game, "kif").decode("utf-8")
    lines = text.splitlines()
    assert " １２ １１ １０ ９  ８  ７  ６  ５  ４  ３  ２  １" in lines
    assert "+" + "-" * 48 + "+" in lines
    rows = [line for line in lines if line.startswith("|")]
    assert len(rows) == 12 and all(len(r.split("|")[1]) == 36 for r in rows)
    assert rows[-1].endswith("|十二") and "後手番" in lines  # the handicap giver, Gote, moves first
    # lishogi knows no variant options: its reader takes the diagram alone
    bare = "\n".join(line for line in lines if not line.startswith(("変種", "#KIF")))
    back = read_one(bare.encode(), "bare.kif")
    assert back.valid and back.variant.slug == "chu-shogi"
    assert back.start_board().position() == game.start_board().position()
    assert back.mainline_moves() == game.mainline_moves()


def test_lishogi_lines_for_moves_shogiops_writes():
    # shogiops test/notation/kif.test.ts, "make chushogi moves": 7i7h is '7八歩兵 （←7九）', then
    # 7d7e '7五歩兵 （←7四）'
    game = Game("chu-shogi")
    board = Board(game.rules)
    node = game
    for usi in ("7i7h", "7d7e"):
        move = usi_to_move(board, usi)
        node = node.add_variation(move)
        board.push(move)
    lines = write_record(game, "kif").decode("utf-8").splitlines()
    assert "   1手目   7八歩兵 （←7九）" in lines and "   2手目   7五歩兵 （←7四）" in lines


def _chu_game(*usi: str, start: str | None = None) -> Game:
    game = Game("chu-shogi", start=start) if start else Game("chu-shogi")
    board = game.start_board()
    node = game
    for text in usi:
        move = usi_to_move(board, text)
        node = node.add_variation(move)
        board.push(move)
    return game


# a Lion of Sente on 6h (6八), Gote's Pawns on 7g and 6g (7七, 6七), the Kings far away
LION = "11k/12/12/12/12/12/5pp5/6N5/12/12/12/K11 b - 1"


@pytest.mark.parametrize("usi, lines", [
    ("6h7g6f", ["一歩目 7七獅子 （←6八）", "二歩目 6六獅子 （←7七）"]),
    ("6h6g6h", ["一歩目 6七獅子 （←6八）", "二歩目 6八獅子（居食い） （←6七）"]),
    # a pass (jitto), through an empty neighbour as lishogi writes it, with no mark (lishogi's
    # server reads no じっと)
    ("6h7i6h", ["一歩目 7九獅子 （←6八）", "二歩目 6八獅子 （←7九）"]),
])
def test_lion_double_moves_are_written_on_two_lines_and_read_back(usi, lines):
    game = _chu_game(usi, start=LION)
    text = write_record(game, "kif").decode("utf-8")
    got = [line[len("   1手目"):] for line in text.splitlines() if line.startswith("   1手目")]
    assert got == lines, text
    back = read_one(text.encode(), "lion.kif")
    assert back.valid, [str(e) for e in back.errors]
    assert usi_moves(back) == usi_moves(game) == [usi]


def bad(text: str) -> list:
    game = read_one(text.encode(), "bad.kif")
    assert not game.valid
    return [e for e in game.errors if e.kind == "error"]


MOVES = "手数----指手---------消費時間--\n   1手目   7八歩兵 （←7九）\n"


@pytest.mark.parametrize("line, message, column", [
    ("   2手目   7五歩兵 （←7六）", "there is no piece on 7六", 10),
    ("   2手目   7五金将 （←7四）", "the piece on 7四 is 歩兵, not 金将", 10),
    ("   2手目   7六歩兵 （←7四）", "illegal move", 10),
    ("   2手目   7十三歩兵 （←7四）", "off the 12x12 board", 10),
    ("   2手目   7五 （←7四）", "cannot read the move", 10),
    ("   2手目   7五歩兵（居食い） （←7四）", "marks the second step of a Lion's double move", 10),
    ("   2手目一歩目 7五歩兵 （←7四）", "no second step (二歩目)", 7),
    ("   2手目二歩目 7五歩兵 （←7四）", "no first step (一歩目)", 7),
])
def test_errors_on_bad_chu_moves_name_line_column_ply_and_move(line, message, column):
    (error,) = bad(MOVES + line + "\n")
    assert message in error.message, error.message
    assert (error.file, error.line, error.column, error.ply) == ("bad.kif", 3, column, 2)
    assert error.move == line.split("手目", 1)[1].strip()


def test_errors_on_a_lion_step_name_the_step():
    start = "手数----指手---------消費時間--\n"
    text = (f"{start}   1手目   7八歩兵 （←7九）\n   2手目   7五獅子 （←6三）\n"
            "   3手目一歩目 7九獅子 （←7十）\n   3手目二歩目 6八獅子 （←7八）\n")
    (error,) = bad(text)
    assert "the second step starts on 7八, the first ended on 7九" in error.message
    assert (error.line, error.ply, error.move) == (5, 3, "二歩目 6八獅子 （←7八）")
    text = (f"{start}   1手目   6八獅子 （←7十）\n   2手目   7五獅子 （←6三）\n"
            "   3手目一歩目 6七獅子 （←6八）\n   3手目二歩目 6八獅子（居食い） （←6七）\n")
    (error,) = bad(text)  # 6七 is empty: a pass through it, not igui
    assert "marked 居食い, but it is a pass" in error.message and error.line == 5


def test_convert_writes_lishogi_kif_and_validate_reads_it(tmp_path):
    out = tmp_path / "hist1.kif"
    result = CliRunner().invoke(main, ["convert", str(CHU / "colin-adams_hist1.csg"), "--to", "kif", "-o", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert "手数----指手---------消費時間--" in text and "   1手目   " in text
    result = CliRunner().invoke(main, ["validate", str(out)])
    assert result.exit_code == 0, result.output
    assert f"valid, {MANIFEST['chu/colin-adams_hist1.csg'][1][0]} plies" in result.output


def test_a_chu_game_without_moves_keeps_its_variant():
    text = write_record(Game("chu-shogi"), "kif").decode("utf-8")
    assert "変種" not in text and sum(line.startswith("|") for line in text.splitlines()) == 12
    assert read_one(text.encode(), "empty.kif").variant.slug == "chu-shogi"


def test_shogi_kif_is_still_read_as_shogi():
    game = read_one("手合割：平手\n手数----指手--\n   1 ７六歩(77)\n".encode(), "s.kif")
    assert game.valid and game.variant.slug == "shogi"


# A record written by hand in the shape of lishogi's game download (scalashogi's KifModel.render:
# the header tags it writes, no 手合割 for the standard array, "{ply:>4}手目" and three spaces, the
# time column "   (MM:SS/HH:MM:SS)", a Lion's two steps, the ending as a numbered line)
LISHOGI_DOWNLOAD = """開始日時：2024/03/01 10:00:00
棋戦：Rated Chushogi game
場所：https://lishogi.org/AbCdEfGh
持ち時間：10分+10秒
先手：alice
後手：bob
手数----指手---------消費時間--
   1手目   7八歩兵 （←7九）   (00:03/00:00:03)
   2手目   7五獅子 （←6三）   (00:02/00:00:02)
   3手目   6八獅子 （←7十）   (00:04/00:00:07)
   4手目   7七獅子 （←7五）   (00:05/00:00:07)
   5手目一歩目 仝獅子 （←6八）
   5手目二歩目 6八獅子（居食い） （←7七）   (00:01/00:00:08)
   6手目   投了
"""


def test_a_lishogi_download_reads_with_its_tags_times_and_result():
    game = read_one(LISHOGI_DOWNLOAD.encode(), "lishogi.kif")
    assert game.valid, [str(e) for e in game.errors]
    # the moves, translated by hand: file number and rank letter (七 = g), 仝 the previous square
    assert usi_moves(game) == ["7i7h", "6c7e", "7j6h", "7e7g", "6h7g6h"]
    assert game.result == "1-0" and game.headers["Termination"] == "resignation"
    assert (game.headers["Sente"], game.headers["Gote"], game.headers["Site"]) == (
        "alice", "bob", "https://lishogi.org/AbCdEfGh")
    assert game.headers["Date"] == "2024.03.01"
    assert list(game.mainline())[4].comment.startswith("[%emt 0:00:01]")
    # and written back as lishogi wrote it
    written = write_record(game, "kif").decode("utf-8").splitlines()
    assert [line for line in written if "手目" in line] == [line for line in LISHOGI_DOWNLOAD.splitlines()
                                                          if "手目" in line]
    assert sorted(LISHOGI_DOWNLOAD.splitlines()[:6]) == sorted(line for line in written if "：" in line)


def test_lishogi_server_diagram_name_of_the_promoted_pawn_is_read():
    # scalashogi's KifUtils writes Chu's promoted Pawn 杏 on the board (shogiops and ChuShogiLite
    # write 成歩); a Gote 杏 on 1a and a Sente one on 12l, the Kings on 7a and 6l
    rows = ["|" + "  ・" * 5 + " v玉" + "  ・" * 5 + " v杏|一"]
    rows += ["|" + "  ・" * 12 + "|" + n for n in ("二", "三", "四", "五", "六", "七", "八", "九", "十", "十一")]
    rows += ["|  杏" + "  ・" * 5 + "  玉" + "  ・" * 5 + "|十二"]
    border = "+" + "-" * 48 + "+"
    game = read_one("\n".join([border, *rows, border, ""]).encode(), "pawns.kif")
    assert game.valid, [str(e) for e in game.errors]
    board = game.start_board()
    assert str(board.piece_at(parse_usi_square(board, "1a"))) == "+p"
    assert str(board.piece_at(parse_usi_square(board, "12l"))) == "+P"
