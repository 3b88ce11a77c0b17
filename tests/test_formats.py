"""The reading pipeline (formats/reading.py) and the KI2, CSA, JKF and USI readers and writers,
on the real records in tests/data/real (see its MANIFEST.md for provenance and the ply counts)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from daikifu.archive.importer import import_paths
from daikifu.archive.store import Archive, make_record
from daikifu.formats.reading import (REPLACED_MESSAGE, NotARecordError, decode_record, detect_format,
                                     read_record, write_record)
from daikifu.formats.csa import can_write_csa
from daikifu.formats.game import Game
from daikifu.replay import Board, Move, VariantRegistry, load_variant
from daikifu.replay.squares import parse_square
from daikifu.web.importing import decode_upload
from daikifu.web.importing import read_record as web_read_record

from format_support import NOT_A_RECORD
from manifest_support import manifest
from position_support import position_text

REAL = Path(__file__).parent / "data" / "real"

# Where the MANIFEST's ply count is not the number of moves (checked by hand, see the report):
MANIFEST_CORRECTIONS = {
    # JKF: the MANIFEST counts the "special" entry (TORYO) as a ply; the KIF twin has 117 moves
    "other/jkf_ryuou201409020101.jkf": [117],
    "other/tsshogi_sample04.jkf": [79],
    # the 変化：3手 block starts after the main line's last move (激指 writes it so): the KIF reader
    # reads it as the main line's continuation, so the main line has 4 moves
    "kif/bioshogi_branch_gekisashi.kif": [4],
}


MANIFEST = manifest()
READABLE = sorted(f for f in MANIFEST if f.split("/")[0] in ("kif", "ki2", "csa") or f.endswith((".jkf", ".sfen")))


def read(path: str, **kwargs) -> list:
    return list(read_record((REAL / path).read_bytes(), name=path, **kwargs))


def test_manifest_is_read():
    assert len([f for f in READABLE if f.startswith("ki2/")]) == 26
    assert len([f for f in READABLE if f.startswith("csa/")]) == 31
    assert len([f for f in READABLE if f.startswith("kif/")]) == 65


# json-kifu-format's test diagram, in three formats: nine Gote Pawns on one file (one on its last
# rank), which no game reaches; read, replayed, and refused for its start position
IMPOSSIBLE_STARTS = {"csa/jkf_9fu.csa", "csa/jkf_9fu_komabetsu.csa", "ki2/jkf_9fu.ki2", "kif/jkf_9fu.kif"}


@pytest.mark.parametrize("path", READABLE)
def test_real_record_validates_with_manifest_counts(path):
    games = read(path)
    errors = [str(e) for g in games for e in g.errors if e.kind == "error"]
    if path in IMPOSSIBLE_STARTS:
        assert len(errors) == 1 and "impossible start position: nifu: Gote has 9 unpromoted P" in errors[0]
    else:
        assert not errors, errors
    expected_games, plies = MANIFEST[path]
    assert len(games) == expected_games
    assert [len(g.mainline_moves()) for g in games] == MANIFEST_CORRECTIONS.get(path, plies)


@pytest.mark.parametrize("path, ply, line, words", [
    ("malformed/bioshogi_hansoku_nifu.ki2", 88, 26, "most unpromoted P allowed on that file"),
    ("malformed/kfjs_illegal_move.kif", 3, 11, "cannot make that move"),
    ("malformed/kifuzo_incomplete_moves.csa", 2, 4, "side-to-move line among the moves"),
    ("malformed/kifuzo_invalid_drop.csa", 1, 3, "00 is not on the board"),
    ("malformed/kifuzo_incomplete_board.kifu", None, 1, "the board diagram has 2 ranks"),
    ("malformed/kifuzo_mixed_format.kifu", None, 2, "unrecognised line 'N-Gote太郎'"),
])
def test_malformed_records_are_caught_where_they_go_wrong(path, ply, line, words):
    (game,) = read(path)
    first = next(e for e in game.errors if e.kind == "error")
    assert (first.ply, first.line) == (ply, line)
    assert words in first.message
    assert first.file == path


def test_nifu_says_what_is_wrong_at_ply_88():
    (game,) = read("malformed/bioshogi_hansoku_nifu.ki2")
    assert len(game.mainline_moves()) == 87
    (error,) = [e for e in game.errors if e.kind == "error"]
    assert error.move == "△５五歩" and error.column == 25


@pytest.mark.parametrize("path, reason", [("chu/colin-adams_EVEN.fsy", "a Chu Shogi server setup (.fsy), not a game record")])
def test_no_record_is_said_so(path, reason):
    with pytest.raises(NotARecordError) as err:
        read(path)
    assert str(err.value) == f"{path}: {reason}"
    with pytest.raises(NotARecordError):
        list(read_record(b"just some words\nand more\n", name="notes.kif"))


def test_detection_is_by_content_not_by_name():
    csa = (REAL / "csa/skc_v22.csa").read_bytes()
    assert detect_format(decode_record(csa).text, "game.kif") == "csa"
    (game,) = read_record(csa, name="game.kif")
    assert len(game.mainline_moves()) == 2
    # a KIF with headers only and no moves looks like KI2 as much as KIF: the extension decides
    header_only = "先手：A\n後手：B\n"
    assert detect_format(header_only, "x.ki2") == "ki2" and detect_format(header_only, "x.kif") == "kif"


def test_format_override():
    usi = b"position startpos moves 7g7f\n"
    assert [len(g.mainline_moves()) for g in read_record(usi, fmt="usi")] == [1]
    (game,) = read_record(usi, fmt="lsn", name="x")
    assert not game.valid  # read as LSN, as asked: no tags, not a move in LSN


def test_decoding_policy():
    # declared UTF-8, bytes Shift_JIS: the bytes win
    data = (REAL / "kif/jkf_no_henka.kif").read_bytes()
    assert b"encoding=UTF-8" in data
    assert decode_record(data).encoding == "cp932"
    # EUC-JP (real CSA files use it): readable names, not cp932's half-width katakana
    euc = decode_record((REAL / "csa/jkf_2005_YAMADA_GPS.csa").read_bytes())
    assert euc.encoding == "euc_jp" and "山田" in euc.text
    # a BOM decides; a declared encoding that fits is used
    assert decode_record(b"\xef\xbb\xbf#KIF version=2.0 encoding=UTF-8\n").encoding == "utf-8-bom"
    sjis = "'encoding=Shift_JIS\nN+先手\n".encode("cp932")
    assert decode_record(sjis).encoding == "cp932"
    # a UTF-8 format is not read as Shift_JIS: bad bytes stay bad
    (game,) = read_record(b'[Variant "shogi"]\n\n1. P-c4 {caf\x82\xa0} *\n', name="x.lsn")
    assert game.valid and next(game.mainline()).comment == "caf\ufffd\ufffd"


@pytest.mark.parametrize("fmt, data", [
    ("kif", "手合割：平手\n手数----指手---------消費時間--\n   1 ７六歩(77)\n*a comment \x00BAD\n   2 ３四歩(33)\n"),
    ("lsn", '[Variant "shogi"]\n\n1. P-c4 {a comment \x00BAD} P-g6 *\n'),
    ("csa", "V2.2\nPI\n+\n+7776FU\n'*a comment \x00BAD\n-3334FU\n"),
    ("ki2", "手合割：平手\n▲７六歩\n*a comment \x00BAD\n△３四歩\n"),
])
def test_undecodable_bytes_are_a_warning_with_the_line_in_every_format(fmt, data):
    raw = data.encode("utf-8").replace(b"\x00BAD", b"\xff\xfe")
    (game,) = read_record(raw, name=f"x.{fmt}", fmt=fmt)
    assert game.valid, [str(e) for e in game.errors]
    assert len(game.mainline_moves()) == 2
    (warning,) = [e for e in game.errors if e.message == REPLACED_MESSAGE]
    assert warning.kind == "warning" and warning.line == data.splitlines().index(
        next(x for x in data.splitlines() if "BAD" in x)) + 1


def test_game_level_errors_carry_a_line():
    text = '[Variant "shogi"]\n\n1. P-c4 *\n\n[Event "no variant"]\n\n1. P-c4 *\n'
    games = list(read_record(text.encode(), name="x.lsn"))
    error = games[1].errors[0]
    assert "Variant tag is missing" in error.message and error.line == 5 and error.game == 2


# --- CSA -------------------------------------------------------------------------------------------


def test_csa_several_games_specials_and_times():
    text = ("V2.2\nN+A\nN-B\n$EVENT:Cup\n$START_TIME:2024/05/06 10:00:00\nPI\n+\n+7776FU,T3\n-3334FU\n"
            "T5\n'*well played\n%TORYO\n/\nPI82HI\n-\n-3334FU\n%SENNICHITE\n/\nPI\n+\n+7776FU\n%-ILLEGAL_ACTION\n")
    first, second, third = read_record(text.encode(), name="x.csa")
    assert first.headers["Sente"] == "A" and first.headers["Event"] == "Cup" and first.headers["Date"] == "2024.05.06"
    assert first.headers["StartTime"] == "2024/05/06 10:00:00"
    assert first.result == "0-1" and first.headers["Termination"] == "resignation"  # Sente, to move, resigns
    nodes = list(first.mainline())
    assert nodes[0].comment == "[%emt 0:00:03]" and nodes[1].comment == "[%emt 0:00:05] well played"
    assert second.start.split()[0] == "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL"
    assert second.result == "1/2-1/2" and second.source_line == 14
    assert third.result == "1-0"  # Gote's illegal action: Sente wins
    # each game keeps its own text exactly (what import stores)
    assert [g.source for g in (first, second, third)] == text.split("/\n")


def test_csa_writer_writes_what_the_spec_shows():
    (game,) = read_record(b"position startpos moves 7g7f 3c3d", fmt="usi")
    game.headers["Sente"], game.headers["Gote"] = "A", "B"
    game.headers["Termination"], game.result = "resignation", "0-1"
    expected = "'encoding=UTF-8\nV2.2\nN+A\nN-B\nPI\n+\n+7776FU\n-3334FU\n%TORYO\n"
    assert write_record(game, "csa").decode() == expected


def test_csa_refuses_boards_it_cannot_hold():
    from daikifu.formats.game import Game
    from daikifu.formats.reading import UnsupportedConversion
    with pytest.raises(UnsupportedConversion, match="CSA cannot hold"):
        write_record(Game("dai-kagamigi"), "csa")


# --- KI2 -------------------------------------------------------------------------------------------


def sq(name: str) -> int:
    return parse_square(name)


GOLDS = position_text({"e1": "K", "e9": "k", "d1": "G", "f1": "G"}, 9, 9)  # golds on ６九 and ４九


@pytest.mark.parametrize("origin, text", [("d1", "５八金左"), ("f1", "５八金右")])
def test_ki2_relative_markers_written_and_read(origin, text):
    from daikifu.formats.game import Game
    game = Game("shogi", start=GOLDS)
    game.add_variation(Move(sq(origin), sq("e2")))
    ki2 = write_record(game, "ki2").decode()
    assert f"▲{text}" in ki2
    (back,) = read_record(ki2.encode(), fmt="ki2")
    assert back.mainline_moves() == [Move(sq(origin), sq("e2"))]


def test_ki2_straight_and_sideways():
    start = position_text({"e1": "K", "e9": "k", "e3": "G", "f2": "G", "d2": "G"}, 9, 9)
    from daikifu.formats.kakinoki.style import Style
    from daikifu.formats.ki2 import ki2_move_text
    from daikifu.formats.game import Game
    style = Style(Game("shogi", start=start).rules)
    board = Board("shogi", start)
    # to ５八 (e2): from ５七 (e3) backwards, from ４八 and ６八 sideways
    assert ki2_move_text(style, board, Move(sq("e3"), sq("e2")), None) == "５八金引"
    assert ki2_move_text(style, board, Move(sq("f2"), sq("e2")), None) == "５八金右"
    assert ki2_move_text(style, board, Move(sq("d2"), sq("e2")), None) == "５八金左"


def test_ki2_ambiguous_move_is_an_error_that_says_what_to_write():
    text = f"手合割：その他\n初期局面：{GOLDS}\n▲５八金\n"
    (game,) = read_record(text.encode(), fmt="ki2", name="g.ki2")
    (error,) = [e for e in game.errors if e.kind == "error"]
    assert error.message == "two 金 can reach ５八: write 右 or 左"
    assert (error.ply, error.line, error.column, error.move) == (1, 3, 1, "▲５八金")
    assert set(error.suggestions) >= {"▲５八金右", "▲５八金左"}


def test_ki2_promotion_and_drop_words():
    text = "▲７六歩　△３四歩　▲２二角成　△同　銀　▲４五角打\n"
    (game,) = read_record(text.encode(), fmt="ki2")
    moves = game.mainline_moves()
    assert moves[2].promotion is True and moves[3].to_square == moves[2].to_square
    assert moves[4] == Move(None, sq("f5"), (), None, "B")
    assert "▲４五角" in write_record(game, "ki2").decode()  # 打 only where a piece could also move


# --- JKF and USI -----------------------------------------------------------------------------------


def test_jkf_forks_and_comments_round_trip():
    (game,) = read("kif/jkf_fork.kif")
    assert len(game.variations) + sum(len(n.variations) - 1 for n in game.mainline()) >= 2
    (back,) = read_record(write_record(game, "jkf"), fmt="jkf")
    assert _tree(back) == _tree(game)


def _tree(node, comments: bool = True) -> list:
    return [(child.move, _TIMES.sub("", child.comment).strip() if comments else "", _tree(child, comments))
            for child in node.variations]


def test_usi_lines_are_games():
    games = read("other/shogihome_book_src05.sfen")
    assert [len(g.mainline_moves()) for g in games] == [5, 6]
    text = b"sfen 4k4/9/9/9/9/9/9/9/4K4 b G 1 moves G*5b\nposition startpos moves 7g7f 7g7f\n"
    first, second = read_record(text)
    assert first.valid and first.start.startswith("4k4/9")
    (error,) = [e for e in second.errors if e.kind == "error"]
    assert (error.line, error.column, error.ply, error.move) == (2, 30, 2, "7g7f")


# --- one pipeline for every entry point --------------------------------------------------------------


KIF_TEXT = "開始日時：2024/05/06\n先手：先手太郎\n後手：後手花子\n手合割：平手\n手数----指手--\n   1 ７六歩(77)\n*好手\n   2 ３四歩(33)\n"


@pytest.mark.parametrize("encoding", ["utf-8", "utf-8-sig", "cp932"])
def test_the_three_entry_points_agree(tmp_path, encoding):
    data = KIF_TEXT.encode(encoding)
    path = tmp_path / "game.kif"
    path.write_bytes(data)
    # validate and convert read through read_record
    (game,) = read_record(data, name=str(path))
    # the importer (and its workers)
    db = tmp_path / "a.db"
    with Archive(str(db)) as a:
        import_paths(a, [str(path)], jobs=1)
        stored = a.conn.execute("SELECT digest, tags FROM games").fetchall()
    with Archive(str(tmp_path / "b.db")) as b:
        import_paths(b, [str(path)], jobs=2)
        stored_parallel = b.conn.execute("SELECT digest, tags FROM games").fetchall()
    # the web import page (an upload)
    fmt, checked = web_read_record(decode_upload(data, "game.kif"), "game.kif")
    assert fmt == "kif"
    rec = checked[0].record
    assert game.headers["Sente"] == "先手太郎" and game.headers["Gote"] == "後手花子"
    assert next(game.mainline()).comment == "好手"
    digest = make_record(game, "kif").digest
    assert stored == stored_parallel == [(digest, json.dumps(rec.tags, ensure_ascii=False))] or (
        [(d, json.loads(t)) for d, t in stored] == [(digest, json.loads(json.dumps(rec.tags)))])
    assert rec.digest == digest and [list(t) for t in rec.tags] == [list(t) for t in make_record(game, "kif").tags]


# --- round trip over the whole folder ----------------------------------------------------------------


CHAIN = ["lsn", "ki2", "csa", "jkf", "usi", "kif", "lsn"]
CARRIES = {  # what each format holds: comments, move times, variations, result
    "lsn": {"comments", "times", "variations", "result"}, "kif": {"comments", "times", "variations", "result"},
    "ki2": {"comments", "variations", "result"}, "jkf": {"comments", "times", "variations", "result"},
    "csa": {"comments", "times", "result"}, "usi": set(),
}
_TIMES = re.compile(r"\[%emt [\d:]+\]|\[%kiftotal [\d:]+\]")


def _comments(game, times: bool = True) -> list:
    return [n.comment.strip() if times else _TIMES.sub("", n.comment).strip() for n in game.mainline()]


@pytest.mark.parametrize("path", READABLE)
def test_round_trip_through_every_format(path):
    for game in read(path):
        for name in list(game.headers):  # LSN tag names are ASCII (issue #15 item 2 is about the rest)
            if not name.isascii():
                del game.headers[name]
        prev, carried = game, {"comments", "variations", "result"}
        for fmt in CHAIN:
            data = write_record(prev, fmt)
            (back,) = read_record(data, fmt=fmt, name=f"{path} as {fmt}")
            refused = [e.message for e in back.errors if e.kind == "error"]
            if path in IMPOSSIBLE_STARTS:  # refused for the start position alone, in every format
                assert len(refused) == 1 and refused[0].startswith("impossible start position: nifu")
            else:
                assert back.valid, [str(e) for e in back.errors]
            assert back.mainline_moves() == game.mainline_moves()
            assert (back.start or back.rules.start) == (game.start or game.rules.start)
            carried &= CARRIES[fmt]
            if "result" in carried:
                assert back.result == game.result
            if "comments" in carried:
                times = "times" in carried
                assert _comments(back, times) == _comments(game, times)
            if "variations" in carried:
                assert _tree(back, "comments" in carried) == _tree(game, "comments" in carried)
            prev = back


# --- the command line ------------------------------------------------------------------------------


def cli(*args):
    from click.testing import CliRunner

    from daikifu.cli import main
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_validate_says_not_a_record_and_exits_2(tmp_path):
    junk = tmp_path / "notes.txt"
    junk.write_text("Tenjiku analysis, move 1: P 7l-7k\n", encoding="utf-8")
    result = cli("validate", str(REAL / "csa/skc_v22.csa"), str(junk))
    assert result.exit_code == 2
    assert f"{junk}: {NOT_A_RECORD}" in result.output
    data = json.loads(cli("validate", "--json", str(junk)).output)
    assert data == [{"file": str(junk), "status": "not-a-record", "error": f"{junk}: {NOT_A_RECORD}"}]


def test_validate_format_and_variant_options(tmp_path):
    lines = tmp_path / "lines.txt"
    lines.write_text("startpos moves 7g7f 3c3d\n", encoding="utf-8")
    (v,) = json.loads(cli("validate", "--json", "--format", "usi", str(lines)).output)
    assert (v["variant"], v["status"], v["ply_count"]) == ("shogi", "valid", 2)
    # an LSN game that names no variant: --variant names it
    lsn = tmp_path / "g.lsn"
    lsn.write_text('[Event "x"]\n\n1. P-c4 *\n', encoding="utf-8")
    assert json.loads(cli("validate", "--json", str(lsn)).output)[0]["status"] == "invalid"
    assert json.loads(cli("validate", "--json", "--variant", "shogi", str(lsn)).output)[0]["status"] == "valid"


SHOGI_FORMATS = ["lsn", "kif", "ki2", "csa", "jkf", "usi", "json"]


@pytest.mark.parametrize("source", SHOGI_FORMATS)
def test_convert_between_every_pair_of_formats(tmp_path, source):
    (game,) = read("kif/jkf_chudan.kif")
    start = tmp_path / f"game.{source}"
    start.write_bytes(write_record(game, source))
    for target in SHOGI_FORMATS:
        out = tmp_path / f"out-{source}.{target}"
        result = cli("convert", str(start), "--to", target, "-o", str(out))
        assert result.exit_code == 0, result.output
        (back,) = read_record(out.read_bytes(), name=str(out))
        assert back.mainline_moves() == game.mainline_moves(), (source, target)


def test_convert_refuses_what_a_format_cannot_hold(tmp_path):
    from daikifu.formats.game import Game
    game = Game("dai-kagamigi")
    src = tmp_path / "g.lsn"
    src.write_bytes(write_record(game, "lsn"))
    result = cli("convert", str(src), "--to", "csa")
    assert result.exit_code == 1 and "CSA cannot hold a game of Dai Kagamigi" in result.output


def test_import_format_variant_and_not_a_record(tmp_path):
    lines = tmp_path / "lines.txt"
    lines.write_text("startpos moves 7g7f 3c3d\nstartpos moves 2g2f\n", encoding="utf-8")
    junk = tmp_path / "notes.txt"
    junk.write_text("hello\n", encoding="utf-8")
    db = str(tmp_path / "a.db")
    data = json.loads(cli("import", "--db", db, "--json", "--format", "usi", str(lines)).output)
    assert data["imported"] == 2
    result = cli("import", "--db", db, str(junk))
    assert result.exit_code == 2 and f"{junk}: {NOT_A_RECORD}" in result.output  # as validate (docs/cli.md)


def test_position_accepts_usi_forms():
    text = cli("moves", "shogi", "--position", "position startpos moves 7g7f 3c3d", "--json").output
    sfen = cli("moves", "shogi", "--position", "lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3",
               "--json").output
    assert json.loads(text) == json.loads(sfen)
    bad = cli("moves", "shogi", "--position", "startpos moves 7g7f 7g7f")
    assert bad.exit_code != 0 and "illegal" in bad.output


# --- KIF for boards wider than 9 files -------------------------------------------------------------


def _kanji_variant(tmp_path, shared: bool = False):
    """Chu Kagamigi (12x12) with a two-kanji name for every piece (LC and RC share 車 if ``shared``)."""
    source = (Path(__file__).parents[1] / "replay" / "variants" / "chu-kagamigi.toml").read_text(encoding="utf-8")
    pool = "甲乙丙丁戊己庚辛壬癸子丑寅卯辰巳午未申酉戌亥東西南北春夏秋冬梅松竹菊蘭桜桃柳杉桐"
    out, k = [], 0
    for line in source.splitlines():
        line = line.replace('slug = "chu-kagamigi"', 'slug = "kanji-kagamigi"').replace(
            'name = "Chu Kagamigi"', 'name = "Kanji Kagamigi"').replace('aliases = ["middle mirror chess"]', "aliases = []")
        out.append(line)
        m = re.match(r'id = "([^"]+)"', line)
        if m:  # one name of one or two kanji for every piece
            name = "車" if shared and m.group(1) in ("LC", "RC") else pool[k % len(pool)] + ("", "将", "龍")[k // len(pool)]
            out.append(f'kanji = "{name}"')
            k += 1
    text = "\n".join(out)
    (tmp_path / "kanji-kagamigi.toml").write_text(text, encoding="utf-8")
    return tmp_path


def test_wide_board_diagram_with_multi_kanji_names(tmp_path):
    from daikifu.formats.game import Game
    variants = VariantRegistry([_kanji_variant(tmp_path)])
    board = Board(variants.load("kanji-kagamigi"))
    for move in board.legal_moves()[:1]:
        board.push(move)
    start = board.position().rsplit(" ", 1)[0] + " 1"
    game = Game("kanji-kagamigi", start=start, variants=variants)
    text = write_record(game, "kif").decode()
    assert "初期局面" not in text
    assert any(line.split()[:3] == ["１２", "１１", "１０"] for line in text.splitlines())
    assert any(line.endswith("|十二") for line in text.splitlines())
    (back,) = read_record(text.encode(), fmt="kif", variants=variants)
    assert back.valid, [str(e) for e in back.errors]
    assert back.start == start


def test_a_shared_name_is_resolved_by_the_origin_and_refused_in_a_diagram(tmp_path):
    variants = VariantRegistry([_kanji_variant(tmp_path, shared=True)])
    start = position_text({"a1": "LC", "l1": "RC", "f1": "K", "f12": "k"}, 12, 12)
    text = (f"変種：kanji-kagamigi\n初期局面：{start}\n手数----指手--\n   1 a5 車(a1)\n"
            "   2 f11 K(f12)\n   3 l5 車(l1)\n")
    (game,) = read_record(text.encode(), fmt="kif", variants=variants)
    assert game.valid, [str(e) for e in game.errors]
    moves = game.mainline_moves()
    assert (moves[0].from_square, moves[2].from_square) == (sq("a1"), sq("l1"))
    # a diagram cannot tell which piece a shared name means: an error at that square, not a guess
    board_rows = ["|" + " ・" * 12 + "|" + n for n in "一二三四五六七八九"] + \
                 ["|" + " ・" * 12 + "|十", "|" + " ・" * 12 + "|十一", "| 車" + " ・" * 11 + "|十二"]
    diagram = "変種：kanji-kagamigi\n+" + "-" * 36 + "+\n" + "\n".join(board_rows) + "\n+" + "-" * 36 + "+\n"
    (bad,) = read_record(diagram.encode(), fmt="kif", variants=variants)
    (error,) = [e for e in bad.errors if e.kind == "error"]
    assert "shared by LC and RC" in error.message and (error.line, error.column) == (14, 3)


def test_json_input_is_checked_move_by_move():
    (game,) = read_record(b"position startpos moves 7g7f 3c3d", fmt="usi")
    data = json.loads(write_record(game, "json"))
    data["moves"][1]["uci"] = "c3c5"  # Gote's move replaced by a move from an empty square
    (bad,) = read_record(json.dumps(data).encode(), name="g.json")
    (error,) = bad.errors
    assert not bad.valid and "ply 2: illegal move c3c5" in error.message and error.line == 1


def test_a_large_utf8_record_is_recognised_when_its_head_cuts_a_character(tmp_path):
    from daikifu.archive.importer import HEAD_BYTES, sniff
    head = "手合割：平手\n手数----指手--\n   1 ７六歩(77)\n*a".encode()
    filler = (HEAD_BYTES - len(head)) // 3 + 1  # a comment of three-byte kanji across the boundary
    data = head + ("漢" * filler).encode() + "\n   2 ３四歩(33)\n".encode()
    assert len(data) > HEAD_BYTES and (HEAD_BYTES - len(head)) % 3 != 0
    assert sniff(data[:HEAD_BYTES]) == "kif"
    path = tmp_path / "big.kifu"
    path.write_bytes(data)
    with Archive(str(tmp_path / "a.db")) as a:
        summary = import_paths(a, [str(tmp_path)])
    assert summary.imported == 1 and summary.plies == 2


# --- every writer read back by its reader, rule set and tags included (issue 24) --------------------

SAMPLE = Path(__file__).parents[1] / "data" / "sample"
# in the default suite: the real records and two sample files (the others, a few seconds each, are slow)
QUICK_SAMPLES = {"sample/shogi.lsn", "sample/chu-shogi-examples.lsn"}
ROUND_TRIP_FILES = sorted(f"sample/{p.name}" for p in SAMPLE.glob("*.lsn")) + [
    f"real/{p.relative_to(REAL)}" for p in sorted(REAL.rglob("*"))
    if p.is_file() and p.suffix not in (".md", ".fsy") and "malformed" not in p.parts]
TAGS_HELD = {"lsn": True, "json": True, "csa": True, "jkf": True, "usi": False}  # USI holds no tags
# tags that say how the game was imported, not what it is (no writer writes them)
NOT_WRITTEN = {"ImportStatus"}


def _round_trip_games(name: str) -> list:
    path = SAMPLE / name[len("sample/"):] if name.startswith("sample/") else REAL / name[len("real/"):]
    try:
        games = list(read_record(path.read_bytes(), name=name))
    except NotARecordError:
        return []  # (prose, a setup file: no games)
    out = []
    for game in games:
        if game.valid and game.variant.playable:
            (back,) = read_record(write_record(game, "lsn"), fmt="lsn")  # the round trip starts at LSN
            out.append(back)
    return out


@pytest.mark.parametrize("name", [n if n in QUICK_SAMPLES or not n.startswith("sample/")
                                  else pytest.param(n, marks=pytest.mark.slow) for n in ROUND_TRIP_FILES])
def test_every_game_comes_back_from_every_writer(name):
    for game in _round_trip_games(name):
        for fmt, tags in TAGS_HELD.items():
            if fmt in ("csa", "jkf") and not can_write_csa(game.variant):
                continue
            (back,) = read_record(write_record(game, fmt), fmt=fmt, name=f"{name} as {fmt}")
            assert back.valid, (fmt, [str(e) for e in back.errors])
            assert back.mainline_moves() == game.mainline_moves(), fmt
            assert (back.variant.slug, back.options) == (game.variant.slug, game.options), fmt
            assert back.start_board().position() == game.start_board().position(), fmt
            if fmt != "usi":
                assert back.result == game.result, fmt
            if tags:
                lost = {k: v for k, v in game.headers.items() if k not in NOT_WRITTEN and back.headers.get(k) != v}
                assert not lost, (fmt, lost, dict(back.headers.items()))


def test_the_round_trip_covers_every_sample_and_real_record():
    samples = [n for n in ROUND_TRIP_FILES if n.startswith("sample/")]
    assert len(samples) == len(list(SAMPLE.glob("*.lsn"))) > 10
    assert all(_round_trip_games(n) for n in QUICK_SAMPLES)
    assert {n.split("/")[1] for n in ROUND_TRIP_FILES if n.startswith("real/")} >= {"kif", "ki2", "csa", "chu", "other"}


def test_usi_keeps_the_rule_set_of_dai_mitregi_stepping(tmp_path):
    out = tmp_path / "dm.usi"
    assert cli("convert", str(SAMPLE / "dai-mitregi-stepping.lsn"), "--to", "usi", "-o", str(out)).exit_code == 0
    verdicts = json.loads(cli("validate", "--json", "--variant", "dai-mitregi", str(out)).output)
    assert len(verdicts) == 12 and all(v["status"] == "valid" for v in verdicts)
    first = next(read_record(out.read_bytes(), name=str(out), fmt="usi"))
    assert first.options["movement"] == "stepping"


def test_a_chu_game_from_a_free_king_setup_comes_back_from_usi():
    from daikifu.replay.selfplay import play_game
    played = play_game("chu-shogi", seed=3, max_plies=12, options={"setup": "free-king"})
    game = Game.from_moves(played.variant, played.moves, options=played.options, result=played.result)
    data = write_record(game, "usi")
    assert b"setoption name UCI_Variant value chu-shogi" in data and b"setup value free-king" in data
    (back,) = read_record(data, name="chu.usi")  # recognised as USI, read as Chu Shogi, no --variant
    assert back.valid and back.variant.slug == "chu-shogi" and back.options["setup"] == "free-king"
    assert back.mainline_moves() == game.mainline_moves()


def test_usi_variant_lines_hold_until_the_next_and_reset_the_options():
    text = ("setoption name UCI_Variant value chu-shogi\nsetoption name setup value free-king\n"
            "position startpos\nposition startpos\n"
            "setoption name UCI_Variant value shogi\nposition startpos moves 7g7f\n")
    games = list(read_record(text.encode(), name="mixed.usi"))
    assert [(g.variant.slug, g.options.get("setup")) for g in games] == [
        ("chu-shogi", "free-king"), ("chu-shogi", "free-king"), ("shogi", None)]
    (bad,) = read_record(b"setoption name UCI_Variant value nonesuch\nposition startpos\n", name="x.usi")
    assert not bad.valid and "nonesuch" in bad.errors[0].message


def test_jkf_keeps_the_date_and_the_start_time():
    game = Game.from_moves("shogi", [], headers={"Date": "2014.10.12", "Event": "x"})
    (back,) = read_record(write_record(game, "jkf"), fmt="jkf")
    assert back.headers["Date"] == "2014.10.12"
    game.headers["KifStartTime"] = "2014/10/12 14:46:51"
    (back,) = read_record(write_record(game, "jkf"), fmt="jkf")
    assert (back.headers["Date"], back.headers["KifStartTime"]) == ("2014.10.12", "2014/10/12 14:46:51")


def test_csa_keeps_tags_it_has_no_field_for_in_comment_lines():
    game = Game.from_moves("shogi", [], headers={"戦型": "矢倉", "Event": "Meijin, game 1", "eventDate": "x",
                                                 "Termination": "sealed"})
    data = write_record(game, "csa").decode()
    assert "'daikifu-tag 戦型: 矢倉" in data and "$EVENT:Meijin, game 1" in data
    (back,) = read_record(data.encode(), fmt="csa")
    assert {k: back.headers.get(k) for k in ("戦型", "Event", "eventDate", "Termination")} == {
        "戦型": "矢倉", "Event": "Meijin, game 1", "eventDate": "x", "Termination": "sealed"}


# --- clear mismatch messages (issue 24) ---------------------------------------------------------------

SHOGI_KIF = "手合割：平手\n先手：A\n後手：B\n手数----指手---------消費時間--\n   1 ７六歩(77)\n   2 ３四歩(33)\n"


def test_a_shogi_kif_validated_as_chu_says_the_clash_first(tmp_path):
    path = tmp_path / "shogi.kif"
    path.write_text(SHOGI_KIF, encoding="utf-8")
    result = cli("validate", "--variant", "chu-shogi", str(path))
    first = result.output.splitlines()[1]
    assert result.exit_code == 1 and "手合割：平手" in first and "Chu Shogi" in first and f"{path}:1" in first
    (v,) = json.loads(cli("validate", "--json", "--variant", "chu-shogi", str(path)).output)
    assert v["errors"][0]["code"] == "variant-mismatch" and v["errors"][0]["line"] == 1
    (v,) = json.loads(cli("validate", "--json", "--variant", "shogi", str(path)).output)
    assert v["status"] == "valid" and not v["warnings"]


def test_a_csa_record_read_as_a_large_variant_says_it_is_shogi():
    (game,) = read("csa/skc_v22.csa", variant="chu-shogi")
    assert game.errors[0].code == "variant-mismatch" and "CSA record" in game.errors[0].message


def test_pychess_variant_names_one_verdict(tmp_path):
    (kyoto,) = read("other/tabulon_pychess_kyotoshogi.pgn")
    assert kyoto.errors[0].message == "Kyoto Shogi is not a variant daikifu knows"
    assert kyoto.errors[0].code == "unknown-variant" and not kyoto.valid
    (v,) = json.loads(cli("validate", "--json", str(REAL / "other/tabulon_pychess_kyotoshogi.pgn")).output)
    assert (v["variant"], v["status"]) == ("Kyotoshogi", "invalid")
    assert v["errors"][0]["message"] == "Kyoto Shogi is not a variant daikifu knows"
    with Archive(str(tmp_path / "a.db")) as a:
        import_paths(a, [str(REAL / "other/tabulon_pychess_kyotoshogi.pgn")])
        stored = a.conn.execute("SELECT status, error FROM games").fetchall()
    assert [(s, json.loads(e)["code"]) for s, e in stored] == [("invalid", "unknown-variant")]


@pytest.mark.parametrize("name,slug,plies,result", [("shoshogi", "sho-shogi", 108, "0-1"),
                                                    ("minishogi", "minishogi", 20, "1-0")])
def test_pychess_sho_and_minishogi_games_validate(name, slug, plies, result):
    (game,) = read(f"other/tabulon_pychess_{name}.pgn")
    assert game.valid and not game.errors and game.variant.slug == slug
    assert len(game.mainline_moves()) == plies and game.result == result


def test_pychess_moves_as_pychess_writes_them():
    """Promotions written with the promoted piece's letter (=H, =D, =G, =K), promoted pieces
    moved by that letter, a promotable move without = declines, + and # mark check and mate."""
    (sho,) = read("other/tabulon_pychess_shoshogi.pgn")
    board = Board(load_variant("sho-shogi"))
    for m in sho.mainline_moves()[:25]:
        board.push(m)
    assert board.piece_at(parse_square("a9")).id == "+B"  # 13. Bxa9=H
    for m in sho.mainline_moves()[25:104]:
        board.push(m)
    assert board.piece_at(parse_square("c3")).id == "+E"  # 52... Ec3=K: the Crown Prince
    (mini,) = read("other/tabulon_pychess_minishogi.pgn")
    assert mini.mainline_moves()[16].promotion is True and mini.mainline_moves()[16].drop is None  # 9. Rc5=D+ (check)
    def one(fen, moves):
        text = f'[Site "https://www.pychess.org/x"]\n[Variant "Minishogi"]\n[FEN "{fen}"]\n\n{moves} *\n'
        (game,) = read_record(text.encode(), name="p.pgn")
        assert game.valid, game.errors
        return game
    assert one("4k/5/P4/5/K4[-] w 0 1", "1. Pa4 Kd5 2. Pa5=G").mainline_moves()[2].promotion is True
    assert one("4k/2S2/5/5/K4[-] w 0 1", "1. Sc5=G").mainline_moves()[0].promotion is True
    assert one("4k/2S2/5/5/K4[-] w 0 1", "1. Sc5+").mainline_moves()[0].promotion is False  # + is check, not =
    game = one("4k/5/5/5/K4[Pb] b 0 7", "1... B@a4")  # bracketed hands, the second player to move
    assert game.mainline_moves()[0].drop == "B" and game.mainline_moves()[0].to_square == parse_square("a4")


def test_a_pychess_name_is_read_as_the_variant_file_that_defines_it(tmp_path):
    source = (Path(__file__).parents[1] / "replay" / "variants" / "shogi.toml").read_text(encoding="utf-8")
    text = source.replace('slug = "shogi"', 'slug = "sho-shogi"').replace('name = "Shogi"', 'name = "Sho Test"')
    (tmp_path / "sho-shogi.toml").write_text(text.replace('aliases = ["hon shogi", "standard shogi"]', "aliases = []"),
                                             encoding="utf-8")
    variants = VariantRegistry([str(tmp_path)])
    (game,) = read_record(b'[Variant "Shoshogi"]\n\n1. P-c4 *\n', name="p.pgn", variants=variants)
    assert game.valid and game.variant.slug == "sho-shogi"


@pytest.mark.parametrize("fmt", ["usi", "json", "kif", "csa", "jkf"])
def test_a_game_of_an_unknown_variant_is_not_written_as_shogi(fmt, tmp_path):
    from daikifu.formats.reading import UnsupportedConversion
    (game,) = read("other/tabulon_pychess_kyotoshogi.pgn")
    with pytest.raises(UnsupportedConversion, match="'Kyotoshogi' is not one daikifu knows"):
        write_record(game, fmt)
    (back,) = read_record(write_record(game, "lsn"), fmt="lsn")  # LSN keeps the name: the same verdict
    assert back.errors[0].message == "Kyoto Shogi is not a variant daikifu knows"
    result = cli("convert", str(REAL / "other/tabulon_pychess_kyotoshogi.pgn"), "--to", fmt)
    assert result.exit_code == 1 and "not one daikifu knows" in result.output


def test_a_shogi_kif_diagram_read_as_chu_says_the_clash_first():
    (game,) = read("kif/jkf_shogidokoro.kifu", variant="chu-shogi")
    source = (REAL / "kif/jkf_shogidokoro.kifu").read_bytes()
    first = game.errors[0]
    assert (first.code, first.kind) == ("variant-mismatch", "error") and "9x9" in first.message
    assert first.line == next(n for n, line in enumerate(decode_record(source).text.splitlines(), 1)
                              if line.strip().startswith("９"))


@pytest.mark.parametrize("share", [True, False])
def test_a_variation_added_is_the_node_the_constructor_makes(share):
    """GameNode.add_variation sets a node's fields without calling __init__ (a reader adds one
    per ply): every field the same as the constructor's, the move shared as it shares it."""
    from daikifu.formats.game import GameNode, shared_move

    game = Game("shogi")
    move = Move(parse_square("c3", 9, 9), parse_square("c4", 9, 9))
    added = game.add_variation(Move(*move), share, "P-c4", 7, 3)
    made = GameNode(game, Move(*move), share, "P-c4", 7, 3)
    fields = [f for f in GameNode.__slots__ if f != "__dict__"]
    assert [getattr(added, f) for f in fields] == [getattr(made, f) for f in fields]
    assert (added.move is shared_move(move)) == share and (made.move is shared_move(move)) == share
    assert type(added) is type(made) and vars(added) == vars(made) == {}
    assert game.variations == [added] and added.variations == [] and added.variations is not made.variations
