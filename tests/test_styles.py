"""Notation styles (formats/styles.py): shogi games read as their records wrote them, Chu Shogi as
lishogi writes it, and the variant files' own styles."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from daikifu.formats.ki2 import write_ki2
from daikifu.formats.reading import read_record, record_text
from daikifu.formats.styles import StyleError, line_texts, move_style, restyle_message, square_label
from daikifu.replay import VariantError, load_variant
from daikifu.replay.squares import parse_square
from daikifu.replay.variant import variant_from_dict

REAL = Path(__file__).resolve().parent / "data" / "real"
SHOGI_FILES = sorted(p for d in ("kif", "ki2") for p in (REAL / d).iterdir() if p.is_file())
CHU_KIF = REAL / "chu" / "scalashogi_chushogi-kif1.kif"

_KI2_TOKEN = re.compile(r"[▲△☗☖](?:[同仝][\s\u3000]*[^▲△☗☖\s]+|[^▲△☗☖\s]+)")
_KIF_MOVE = re.compile(r"^\s*\d+\s+((?:[同仝][\s\u3000]*|[１-９1-9][一二三四五六七八九])[^\s(（]+)")


def _normal(text: str) -> str:
    """A move as records spell it, in one spelling (☗ and ▲, 仝 and 同, 竜 and 龍, 王 and 玉,
    生 and 不成, 行 and 入 for 上, 同歩 and 同　歩)."""
    text = text.translate(str.maketrans({"☗": "▲", "☖": "△", "仝": "同", "竜": "龍", "王": "玉"}))
    text = text.replace("生", "不成").replace("行", "上").replace("入", "上")
    return re.sub(r"^([▲△]?)同[\s\u3000]*", "\\1同\u3000", text)


PROMOTED_NAMES = {"角": "馬", "飛": "龍", "歩": "と", "銀": "成銀", "桂": "成桂", "香": "成香"}
# records converted from an engine's moves that leave out the markers two pieces need (▲５八金 with
# two Golds that can go there: the reader settles it by looking ahead), 打 and 不成)
WITHOUT_MARKERS = {f"bioshogi_alphazero_vs_elmo_{n}.ki2" for n in (12, 17, 52, 81)}


def record_moves(path: Path) -> tuple[str, list[str]]:
    """The main line's moves exactly as the file writes them (up to its first 変化 block)."""
    text, fmt = record_text(path.read_bytes(), name=path.name)
    out = []
    for line in text.splitlines():
        if line.startswith("変化"):
            break
        if fmt == "ki2" and line.lstrip()[:1] in "▲△☗☖":
            out += _KI2_TOKEN.findall(line.strip())
        elif fmt == "kif" and (m := _KIF_MOVE.match(line)):
            out.append(m.group(1))
    return fmt, out


def ki2_writer_moves(game) -> list[str]:
    text = write_ki2(game).decode("utf-8")
    return [t for line in text.splitlines() if line[:1] in "▲△" for t in _KI2_TOKEN.findall(line)]


@pytest.mark.parametrize("path", SHOGI_FILES, ids=[p.name for p in SHOGI_FILES])
def test_japanese_moves_read_as_the_record_and_the_ki2_writer_write_them(path):
    game = next(iter(read_record(path.read_bytes(), name=path.name)))
    moves = game.mainline_moves()
    ours = line_texts(game.start_board(), moves, "japanese")
    assert len(ours) == len(moves)
    if not moves:
        return
    if game.valid:
        written = ki2_writer_moves(game)[:len(ours)]
        assert ours == written
    fmt, theirs = record_moves(path)
    assert theirs
    rules = game.rules
    prev = None
    for ply, (mine, written, move) in enumerate(zip(ours, theirs, moves), start=1):
        written = re.sub(r"\(\d+\)$", "", _normal(written))
        body = written.lstrip("▲△")
        if prev is not None and body.startswith(square_label(rules, prev, "japanese")):
            written = written[:len(written) - len(body)] + "同\u3000" + body[2:]  # the square of 同 written out
        # a promotion some programs write by the promoted piece's name (△７七馬 for △７七角成)
        alternatives = {mine} | {mine[:-2] + PROMOTED_NAMES[mine[-2]] for _ in [0]
                                 if mine.endswith("成") and mine[-2] in PROMOTED_NAMES}
        if fmt == "ki2":
            # a record may add markers where none is needed (▲５八金右 with one Gold): ours are the
            # fewest that tell the pieces apart
            extra = {written[:len(a)] for a in alternatives if set(written[len(a):]) <= set("右左直上引寄打")}
            if path.name in WITHOUT_MARKERS:
                alternatives |= {re.sub("右|左|直|上|引|寄|打|不成$", "", a) for a in alternatives}
            assert written in alternatives or extra & alternatives, (path.name, ply, mine, written)
        else:  # KIF: no markers, the origin in parentheses, 打 always on a drop, 不成 often left out
            written = written.replace("打", "")
            bare = {re.sub("[右左直上引寄打]", "", a[1:]) for a in alternatives}
            assert written in bare or written + "不成" in bare, (path.name, ply, mine, written)
        prev = move.to_square


# lishogi's text for plies of the game in scalashogi's fixture (tests/data/real/chu), written out
# by hand from that record (its KIF: ``57手目一歩目 ▲仝獅子``, ``二歩目 ▲7七獅子（居食い）`` ...)
# and the rules of shogiops' src/notation/move/western-engine.ts and japanese.ts
CHU_LISHOGI = {
    1: ("P-7h", "▲７八歩"), 2: ("Ln-7e", "△７五獅"), 3: ("Ln-6h", "▲６八獅"), 4: ("P-6e", "△６五歩"),
    5: ("P-10h", "▲１０八歩"), 8: ("Ph-5d", "△５四鳳"), 9: ("C-4k", "▲４十一銅"), 11: ("H-10i", "▲１０九馬"),
    57: ("Lnx!6f", "▲６六居喰い"), 58: ("Bx10i+", "△１０九角成"), 59: ("Rx10i", "▲同\u3000飛"),
    65: ("Bx7f", "▲同\u3000角"), 67: ("P-5d+", "▲５四歩成"), 68: ("Lnx5d-6c", "△５四・６三獅"),
}


def test_chu_moves_read_as_lishogi_writes_them():
    game = next(iter(read_record(CHU_KIF.read_bytes(), name=CHU_KIF.name)))
    board, moves = game.start_board(), game.mainline_moves()
    western = line_texts(board, moves, "western")
    japanese = line_texts(board, moves, "japanese")
    for ply, (w, j) in CHU_LISHOGI.items():
        assert (ply, western[ply - 1], japanese[ply - 1]) == (ply, w, j)


def test_the_same_game_in_lsn_reads_the_same():
    """The lishogi game kept in LSN in the sample gives the same text as its KIF."""
    sample = Path(__file__).resolve().parent.parent / "data" / "sample" / "chu-shogi-examples.lsn"
    games = [g for g in read_record(sample.read_bytes(), name=sample.name) if "scalashogi" in g.headers.get("Source", "")]
    (game,) = games
    western = line_texts(game.start_board(), game.mainline_moves(), "western")
    for ply, (w, _j) in CHU_LISHOGI.items():
        assert western[ply - 1] == w


def test_variant_styles_and_squares():
    shogi, chu, dai = load_variant("shogi"), load_variant("chu-shogi"), load_variant("dai-kagamigi")
    assert (shogi.style, chu.style, dai.style) == ("shogi", "shogi", "algebraic")
    assert (move_style(shogi), move_style(dai), move_style(dai, "western"), move_style(chu, "Algebraic")) == (
        "japanese", "algebraic", "western", "algebraic")
    with pytest.raises(StyleError, match="expected one of"):
        move_style(shogi, "hodges")
    from daikifu.replay import Board
    rules = Board("chu-shogi").rules
    # the top right corner of a 12x12 board: file 1, rank a / 一; the first player's lower left: 12l
    corner = parse_square(f"l{rules.ranks}", rules.files, rules.ranks)
    assert [square_label(rules, corner, s) for s in ("western", "japanese", "algebraic")] == ["1a", "１一", "l12"]
    lower_left = parse_square("a1", rules.files, rules.ranks)
    assert [square_label(rules, lower_left, s) for s in ("western", "japanese")] == ["12l", "１２十二"]


def test_a_variant_file_with_an_unknown_style_is_refused():
    with pytest.raises(VariantError, match="style 'kanji' must be one of"):
        variant_from_dict({"slug": "x", "name": "X", "files": 3, "ranks": 3, "style": "kanji", "status": "incomplete"})


# --- the viewer and `daikifu show` write the same text -------------------------------------------


# a few files in the default suite (KI2 with markers, KIF with drops and promotions, a handicap
# game), every file under -m slow (an archive and an app each: about a minute)
QUICK = ("jkf_kobayashi_kinsho196702.ki2", "skc_simple.ki2", "jkf_20081220kyoochi.kif", "kfjs_kanju-kemuri.kif")
VIEWED = [pytest.param(p, id=p.name, marks=() if p.name in QUICK else pytest.mark.slow) for p in SHOGI_FILES]


@pytest.mark.parametrize("path", VIEWED)
def test_the_viewer_and_show_write_the_moves_as_the_record(tmp_path, path):
    from click.testing import CliRunner
    from lxml import html

    from daikifu.archive.importer import import_paths
    from daikifu.archive.store import Archive
    from daikifu.cli import main
    from daikifu.web import create_app
    db = tmp_path / "real.db"
    with Archive(db) as a:
        import_paths(a, [str(path)])
        row = next(iter(a.games(status="all")))  # the file's first game
    client = create_app(db).test_client()
    game = next(iter(read_record(path.read_bytes(), name=path.name)))
    ours = line_texts(game.start_board(), game.mainline_moves(), "japanese")
    if not ours:
        pytest.skip("a record without moves")
    result = CliRunner().invoke(main, ["show", str(row["id"]), "--db", str(db), "--json"])
    assert result.exit_code == 0, result.output
    shown = json.loads(result.output)
    assert shown["style"] == "japanese"
    assert [m["text"] for m in shown["moves"]] == ours
    text = CliRunner().invoke(main, ["show", str(row["id"]), "--db", str(db)]).output
    assert all(t in text for t in ours)
    western = CliRunner().invoke(main, ["show", str(row["id"]), "--db", str(db), "--json", "--style", "western"])
    assert [m["text"] for m in json.loads(western.output)["moves"]] == line_texts(
        game.start_board(), game.mainline_moves(), "western")
    doc = html.fromstring(client.get(f"/games/{row['id']}").data)
    viewer = [a.text_content() for a in doc.xpath("//*[@id='move-list']//a[contains(@class, 'move')]")
              if a.get("href", "").startswith("?ply=") and a.get("data-ply") != "0"]
    assert viewer[:len(ours)] == ours


_KIF_STEP = re.compile(r"^(\d+)手目(一歩目|二歩目)?\s*([▲△])(仝|\d{1,2}(?:十[一二]|[一二三四五六七八九十]))")
_KANJI_RANKS = {k: n for n, k in enumerate("一二三四五六七八九", start=1)} | {"十": 10, "十一": 11, "十二": 12}


def _square_forms(text: str) -> tuple[str, str]:
    """A square of lishogi's KIF (``7八``, ``10十一``) as lishogi's Western (``7h``, ``10k``) and
    Japanese move text (``７八``, ``１０十一``) write it."""
    file = re.match(r"\d+", text).group()
    rank = _KANJI_RANKS[text[len(file):]]
    return f"{file}{chr(ord('a') + rank - 1)}", file.translate(str.maketrans("0123456789", "０１２３４５６７８９")) + text[len(file):]


def test_every_chu_move_goes_where_lishogis_record_says():
    """For every ply of scalashogi's game, the squares of our Western and Japanese text are those
    of lishogi's own record of it (its KIF: 仝 for 同, a Lion's double move as two steps)."""
    steps: dict[int, list] = {}
    for line in CHU_KIF.read_text(encoding="utf-8").splitlines():
        m = _KIF_STEP.match(line)
        if m:
            steps.setdefault(int(m.group(1)), []).append((m.group(3), m.group(4), "居食い" in line))
    game = next(iter(read_record(CHU_KIF.read_bytes(), name=CHU_KIF.name)))
    moves = game.mainline_moves()
    western = line_texts(game.start_board(), moves, "western")
    japanese = line_texts(game.start_board(), moves, "japanese")
    assert sorted(steps) == list(range(1, len(moves) + 1))
    prev = None
    for ply, record in steps.items():
        w, j = western[ply - 1], japanese[ply - 1]
        side = record[0][0]
        squares = []
        for _side, where, _igui in record:
            squares.append(prev if where == "仝" else _square_forms(where))
        assert j.startswith(side), (ply, j)
        if len(record) == 1:  # one step: to its square, 同 where the record writes 仝
            (west, jap), = squares
            assert re.search(rf"[-x]{west}[+=]?$", w), (ply, w, west)
            assert j[1:].startswith("同\u3000" if record[0][1] == "仝" else jap), (ply, j, jap)
        elif record[1][2]:  # igui: takes on the first step's square and stays
            assert (w.endswith(f"x!{squares[0][0]}"), j) == (True, f"{side}{squares[0][1]}居喰い"), (ply, w, j)
        else:  # a double move: the first step, then the second
            assert re.search(rf"[-x]{squares[0][0]}[-x]{squares[1][0]}$", w), (ply, w)
            assert j[1:].startswith(f"{squares[0][1]}・{squares[1][1]}"), (ply, j)
        prev = squares[-1]


def test_moves_lists_the_moves_in_the_style_asked_for():
    from click.testing import CliRunner

    from daikifu.cli import main
    run = CliRunner().invoke
    japanese = run(main, ["moves", "shogi", "--style", "japanese"]).output.split()
    assert "▲７六歩" in japanese and "▲７八飛" in japanese and "P-c4" not in japanese
    data = json.loads(run(main, ["moves", "shogi", "--style", "western", "--json"]).output)
    by_usi = {m["usi"]: m for m in data}
    assert (by_usi["7g7f"]["move"], by_usi["7g7f"]["text"]) == ("P-c4", "P-7f")
    plain = run(main, ["moves", "shogi"]).output.split()
    assert "P-c4" in plain and "▲７六歩" not in plain  # LSN unless asked: --check and --position read it


def test_a_message_names_squares_and_suggests_moves_in_the_style():
    from daikifu.replay import Board
    board = Board("shogi")
    board.push(board.parse_uci("c3c4"))
    board.push(board.parse_uci("c7c6"))
    text = "the R on h2 cannot make that move (expected a legal move); did you mean B-e5, P-c5, Z-z9?"
    assert restyle_message(text, board, "japanese") == \
        "the R on ２八 cannot make that move (expected a legal move); did you mean ▲５五角, ▲７五歩, Z-z9?"
    assert restyle_message(text, board, "western") == \
        "the R on 2h cannot make that move (expected a legal move); did you mean B-5e, P-7e, Z-z9?"
    assert restyle_message(text, board, "algebraic") == text


def test_show_writes_an_errors_squares_and_suggestions_in_the_style(tmp_path):
    from click.testing import CliRunner

    from daikifu.archive.importer import import_paths
    from daikifu.archive.store import Archive
    from daikifu.cli import main
    (tmp_path / "bad.lsn").write_text('[Variant "shogi"]\n\n1. P-c4 P-c6 2. R-h5 *\n', encoding="utf-8")
    db = tmp_path / "bad.db"
    with Archive(db) as a:
        import_paths(a, [str(tmp_path / "bad.lsn")])
    shown = CliRunner().invoke(main, ["show", "1", "--db", str(db)]).output
    assert "the R on ２八 cannot make that move" in shown and "did you mean ▲５五角, ▲７五歩" in shown
    plain = CliRunner().invoke(main, ["show", "1", "--db", str(db), "--style", "algebraic"]).output
    assert "the R on h2 cannot make that move" in plain and "did you mean B-e5, P-c5" in plain
