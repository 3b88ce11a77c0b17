"""KIF reading and writing (formats/kif.py) against real game records and generated games.

The real records are in tests/data/real/ (see its MANIFEST.md): kif/ holds 65 KIF/KIFU files,
malformed/ broken records.  Every kif/ file must read, replay legally and validate; the expected
number of main-line plies and 変化 blocks is taken from the manifest's "Games / plies" column.
python-shogi's KIF parser is the independent reference for the main-line moves.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from daikifu.formats.game import Game, GameError
from daikifu.formats.kif import HANDICAPS, KifError, looks_like_kif, read_kif, write_kif
from daikifu.formats.reading import read_record

from fuzz_support import mutate
from daikifu.replay import Board, Move
from daikifu.replay.squares import parse_square as sq
from daikifu.replay.squares import square_file, square_rank

REAL = Path(__file__).resolve().parent / "data" / "real"
KIF_DIR = REAL / "kif"
MALFORMED_DIR = REAL / "malformed"
MANIFEST = REAL / "MANIFEST.md"



def _files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.is_file()) if directory.is_dir() else []


KIF_FILES = _files(KIF_DIR)
KIF_IDS = [p.name for p in KIF_FILES]

# Files the manifest marks as containing an illegal move, with the ply (and line) where replaying
# must stop.  MANIFEST.md, malformed/: "DELIBERATELY ILLEGAL: ply 3 "２一角成(88)" — bishop 88→21
# passes through gote bishop on 22".  No file in kif/ is marked as holding an illegal move: the
# notes on jkf_illegal.kif, shogihome_e2e04/e2e06/e2e10 say the 反則 endings are result markers
# only ("the moves themselves are legal"), so those files must validate.
ILLEGAL = {
    "malformed/kfjs_illegal_move.kif": {"ply": 3, "line": 11, "move": "２一角成(88)"},
}

# Manifest notes that are not errors but must show up as warnings (file -> source line).
# jkf_fork-test.kif: "inside the 変化：2手 block the ply number 5 appears twice (the second line,
# ４二銀(31), is really ply 6 — numbering error in the source)".
NUMBERING_WARNINGS = {"jkf_fork-test.kif": 18}

# bioshogi_branch_gekisashi.kif: its "変化：3手" follows a main line of 2 plies, so it is read as the
# continuation of the main line (a warning); the manifest counts "2 (+1 var.)", we 4 plies, 0 var.
CONTINUATION = {"bioshogi_branch_gekisashi.kif": (4, 0)}

# .kif / .kifu twins that hold the same game (the manifest's "UTF-8 twin of ..." notes); for
# jkf_no_henka the Shift_JIS copy replaced 雞 by けい in a comment, so only the moves are compared.
TWINS = [("skc_empty.kif", "skc_empty.kifu"), ("skc_everyday_20211107.kif", "skc_everyday_20211107.kifu"),
         ("skc_everyday_20220604.kif", "skc_everyday_20220604.kifu"), ("skc_example.kif", "skc_example.kifu"),
         ("skc_forks.kif", "skc_forks.kifu"), ("skc_Shogidokoro.kif", "skc_Shogidokoro.kifu"),
         ("skc_piyo-shogi_KY.kif", "skc_piyo-shogi_KY.kifu"),
         ("shogihome_encoding_sjis.kif", "shogihome_encoding_utf8.kif")]

HANDICAP_FILES = {"jkf_20081220kyoochi.kif": "香落ち", "jkf_8mai.kif": "八枚落ち",
                  "skc_piyo-shogi_KY.kif": "香落ち", "skc_piyo-shogi_KY.kifu": "香落ち"}


def manifest_counts() -> dict:
    """kif/ file -> (main-line plies, 変化 blocks) from the manifest's "Games / plies" column."""
    if not MANIFEST.is_file():
        return {}
    out = {}
    for line in MANIFEST.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^\| `kif/([^`]+)` \|.*?\| (\d+) / (\d+)(?: \(\+(\d+) var\.\))? \|", line)
        if m:
            out[m.group(1)] = (int(m.group(3)), int(m.group(4) or 0))
    return out


def read_one(data, **kw) -> Game:
    games = read_kif(data, **kw)
    assert len(games) == 1
    return games[0]


def variation_count(game: Game) -> int:
    n, stack = 0, [game]
    while stack:
        node = stack.pop()
        n += max(0, len(node.variations) - 1)
        stack.extend(node.variations)
    return n


def usi(move: Move) -> str:
    """Our move in USI: file = 9 - file index, rank letter = 'a' + (8 - rank index)."""
    def name(s):
        return f"{9 - square_file(s)}{chr(ord('a') + 8 - square_rank(s))}"
    if move.drop is not None:
        return f"{move.drop}*{name(move.to_square)}"
    return name(move.from_square) + name(move.to_square) + ("+" if move.promotion else "")


def errors(game: Game) -> list[GameError]:
    return [e for e in game.errors if e.kind == "error"]


# --- the real files ------------------------------------------------------------------------------


def test_the_corpus_is_complete():
    assert len(KIF_FILES) == 65
    assert set(manifest_counts()) == set(KIF_IDS)


@pytest.mark.parametrize("path", KIF_FILES, ids=KIF_IDS)
def test_real_file_reads_and_validates(path):
    game = read_one(path.read_bytes(), source=path.name)
    assert game.valid, [str(e) for e in errors(game)]
    assert errors(game) == []
    expected = CONTINUATION.get(path.name) or manifest_counts()[path.name]
    assert (len(game.mainline_moves()), variation_count(game)) == expected
    for w in game.warnings():
        assert w.file == path.name and w.game == 1
    if path.name in NUMBERING_WARNINGS:
        assert any("ply number" in w.message and w.line == NUMBERING_WARNINGS[path.name]
                   for w in game.warnings())


@pytest.mark.parametrize("name", sorted(ILLEGAL))
def test_illegal_moves_are_reported_at_the_right_ply(name):
    expected = ILLEGAL[name]
    data = (REAL / name).read_bytes()
    game = read_one(data, source=name)
    assert not game.valid
    (err,) = errors(game)
    assert (err.ply, err.line, err.move, err.game, err.file) == (
        expected["ply"], expected["line"], expected["move"], 1, name)
    assert err.column is not None and err.expected
    assert len(game.mainline_moves()) == expected["ply"] - 1  # the valid prefix is kept
    assert "ImportStatus" not in game.headers
    lenient = read_one(data, source=name, lenient=True)
    assert lenient.valid and len(lenient.mainline_moves()) == expected["ply"] - 1
    assert lenient.headers["ImportStatus"] == "truncated"
    assert any(w.ply == expected["ply"] for w in lenient.warnings())


def _pyshogi_moves(data: bytes):
    """python-shogi's main line for a file, or None if it cannot read it.

    python-shogi knows neither 変化 blocks nor the "+" marker of moves with variations (it drops such
    lines) nor 同 without a full-width space, nor 手合割：その他; it is given the main-line block
    with those spellings normalised, so that it reads the same moves as written.
    """
    shogi_kif = pytest.importorskip("shogi.KIF")
    for enc in ("utf-8-sig", "cp932"):
        try:
            text = data.decode(enc)
            break
        except UnicodeDecodeError:
            continue
    else:
        return None
    lines = []
    for line in re.split(r"\r\n|\r|\n", text):
        if re.match(r"\s*変化", line):
            break
        if line.startswith("手合割：その他"):
            continue
        if re.match(r"\s*\d+\s", line):
            line = re.sub(r"\+\s*$", "", line)
            line = re.sub(r"同(?=[^\s\u3000])", "同\u3000", line)
        lines.append(line)
    try:
        return shogi_kif.Parser.parse_str("\n".join(lines))[0]["moves"]
    except Exception:
        return None


@pytest.mark.parametrize("path", KIF_FILES, ids=KIF_IDS)
def test_main_line_agrees_with_python_shogi(path):
    data = path.read_bytes()
    theirs = _pyshogi_moves(data)
    if theirs is None:
        pytest.skip("python-shogi cannot read this file")
    ours = [usi(m) for m in read_one(data).mainline_moves()]
    if path.name in CONTINUATION:
        assert ours[:len(theirs)] == theirs
    else:
        assert ours == theirs


def test_python_shogi_reads_most_files():
    read = [p for p in KIF_FILES if _pyshogi_moves(p.read_bytes()) is not None]
    assert len(read) == len(KIF_FILES)


@pytest.mark.parametrize("name", sorted(HANDICAP_FILES))
def test_handicap_games_start_right(name):
    game = read_one((KIF_DIR / name).read_bytes())
    handicap = HANDICAP_FILES[name]
    assert game.headers["Handicap"] == handicap
    assert game.start == HANDICAPS[handicap]
    assert game.start.split()[1] == "w"  # 上手 (Gote) moves first
    board = game.start_board()
    assert board.turn == 1
    first = game.mainline_moves()[0]
    assert board.piece_at(first.from_square).colour == 1


def test_handicap_with_board_diagram():
    # through the reading pipeline, which checks every reader's start position
    (game,) = read_record((KIF_DIR / "jkf_9fu.kif").read_bytes(), name="jkf_9fu.kif")
    # 手合割：その他, 上手の持駒 (Gote) 銀四 桂四, 下手の持駒 (Sente) 飛二 香四, 下手番
    assert game.start == "7pk/7p1/7p1/7p1/7p1/7p1/7p1/7p1/7p1 b 2R4L4s4n 1"
    assert game.headers["Sente"] == "shitate" and game.headers["Gote"] == "uwate"
    assert game.result == "1-0" and game.headers["Termination"] == "checkmate"
    # a test diagram that no game reaches: nine Gote Pawns on one file, one on its last rank
    refused = [e.message for e in game.errors if e.kind == "error"]
    assert len(refused) == 1 and refused[0].startswith("impossible start position: nifu: Gote has 9 unpromoted P")
    assert "dead-piece: Gote's P on h1" in refused[0]


def test_every_handicap_name_gives_a_legal_start():
    assert len(HANDICAPS) == 16
    for name, sfen in HANDICAPS.items():
        board = Board("shogi", sfen)
        assert board.turn == (0 if name == "平手" else 1)
        text = f"手合割：{name}\n手数----指手---------消費時間--\n"
        game = read_one(text)
        assert (game.start or game.rules.start) == sfen and game.valid


@pytest.mark.parametrize("path", KIF_FILES, ids=KIF_IDS)
@pytest.mark.parametrize("encoding", ["utf-8", "cp932"])
def test_round_trip(path, encoding):
    game = read_one(path.read_bytes())
    if encoding == "cp932" and path.name == "jkf_no_henka.kifu":
        with pytest.raises(KifError, match="cp932"):
            write_kif(game, encoding)  # 雞 is not in cp932
        data = write_kif(game, encoding, errors="replace")
        assert read_one(data).mainline_moves() == game.mainline_moves()
        return
    data = write_kif(game, encoding)
    again = read_one(data)
    assert again.valid, [str(e) for e in again.errors]
    assert again == game
    assert again.headers == game.headers
    assert write_kif(again, encoding) == data


@pytest.mark.parametrize("pair", TWINS, ids=[a for a, _ in TWINS])
def test_shift_jis_and_utf8_twins_are_the_same_game(pair):
    a, b = (read_one((KIF_DIR / n).read_bytes()) for n in pair)
    assert a == b


def test_encoding_comes_from_the_bytes_not_the_header():
    # jkf_no_henka.kif says "#KIF version=2.0 encoding=UTF-8" but is Shift_JIS
    sjis = read_one((KIF_DIR / "jkf_no_henka.kif").read_bytes())
    utf8 = read_one((KIF_DIR / "jkf_no_henka.kifu").read_bytes())
    assert sjis.mainline_moves() == utf8.mainline_moves()
    assert sjis.headers == utf8.headers
    assert "雞" in "".join(n.comment for n in utf8.mainline()) + utf8.comment
    assert "けい" in "".join(n.comment for n in sjis.mainline()) + sjis.comment
    # a str is read as it is; CRLF and BOM are fine
    text = (KIF_DIR / "jkf_no_henka.kifu").read_bytes().decode("utf-8-sig")
    assert read_one(text) == utf8
    assert read_one("\ufeff" + text.replace("\n", "\r\n")) == utf8


@pytest.mark.parametrize("ends", [["\n"], ["\r\n"], ["\r"], ["\n", "\r\n", "\r"]], ids=["lf", "crlf", "cr", "mixed"])
def test_every_line_end_gives_the_same_game_at_the_same_lines(ends):
    text = (KIF_DIR / "jkf_no_henka.kifu").read_bytes().decode("utf-8-sig")
    lines = text.split("\n")
    mixed = "".join(line + ends[n % len(ends)] for n, line in enumerate(lines[:-1])) + lines[-1]
    game, expected = read_one(mixed), read_one(text)
    assert game == expected and game.mainline_moves()
    assert [(n.source_line, n.source_column, n.notation, n.comment) for n in game.mainline()] == [
        (n.source_line, n.source_column, n.notation, n.comment) for n in expected.mainline()]


def test_headers_are_mapped():
    game = read_one((KIF_DIR / "jkf_henka.kif").read_bytes())
    h = game.headers
    assert h["Event"] == "第74期棋聖戦1次予選" and h["Site"] == "東京将棋会館"
    assert h["Date"] == "2000.12.30" and h["KifStartTime"] == "2000/12/30 10:00"
    assert h["Sente"] == "先手56789012全3456789" and h["Gote"] == "後手567890全123456789"
    assert h["Handicap"] == "平手" and h["持ち時間"] == "６時間" and h["終了日時"] == "2008/02/18(月) 11:04:26"
    names = list(h)
    assert names[:6] == ["Variant", "Event", "Site", "Date", "Sente", "Gote"]  # the roster first
    assert names[-1] == "Termination" and h["Termination"] == "abandoned"
    assert "Result" not in h and game.result == "*"  # the model holds the result (as formats/lsn.py)
    # comments before the first move belong to the game; comments after a move to that move
    assert game.comment.startswith("開始局面のコメント\n2 <B>ボールド</B>")
    assert game.next().comment == "[%emt 0:00:02] 初手のコメント"
    # a date alone is not repeated in KifStartTime
    assert "KifStartTime" not in read_one("開始日時：2017/01/02\n").headers
    assert read_one("開始日時：2017/01/02\n").headers["Date"] == "2017.01.02"


def test_variations_resolve_same_square_against_their_parent_line():
    game = read_one((KIF_DIR / "jkf_doh_branch.kifu").read_bytes())
    main = game.mainline_moves()
    assert [usi(m) for m in main] == ["7g7f", "3c3d", "2g2f"]
    v3 = game.next().next().variations[1]  # 変化：3手 ２二角成(88), 同　銀(31)
    assert usi(v3.move) == "8h2b+" and usi(v3.next().move) == "3a2b"
    v4 = v3.variations[1]  # 変化：4手 同　飛(82): captures on 2b, the square of ply 3 in the variation
    assert usi(v4.move) == "8b2b"
    assert v4.notation == "同　飛(82)"


def test_special_endings_give_result_and_termination():
    cases = {
        "shogihome_e2e01_resign_170.kifu": ("1-0", "resignation"),
        "shogihome_e2e03_nyugyoku_win.kifu": ("0-1", "impasse"),  # 入玉勝ち by Gote, to move
        "shogihome_e2e04_illegal_lose_1.kifu": ("1-0", "illegal-move"),  # Gote to move, 反則負け
        "shogihome_e2e05_sennichite.kifu": ("1/2-1/2", "repetition"),
        "shogihome_e2e06_perpetual_check_illegal_lose.kifu": ("0-1", "illegal-move"),
        "shogihome_e2e09_time_up.kifu": ("0-1", "time-forfeit"),
        "shogihome_e2e10_illegal_win.kifu": ("1-0", "illegal-move"),
        "shogihome_e2e11_jishogi.kifu": ("1/2-1/2", "impasse"),
        "shogihome_e2e12_chudan.kifu": ("*", "abandoned"),
        "jkf_meijinsen_20180508_M7_10034.kif": ("*", "sealed"),
        "jkf_illegal.kif": ("0-1", "illegal-move"),
        "jkf_20081220kyoochi.kif": ("1-0", "resignation"),  # "まで142手で下手の勝ち"
        "jkf_shogidb2.kifu": ("0-1", "resignation"),  # 投了 without a まで line
        "kfjs_hashimoto-sos.kif": ("1-0", "checkmate"),
        "jkf_last_comment.kif": ("*", None),
    }
    for name, (result, termination) in cases.items():
        game = read_one((KIF_DIR / name).read_bytes())
        assert (game.result, game.headers.get("Termination")) == (result, termination), name
        assert game.valid, name


def test_claims_not_shown_by_the_position_are_flagged():
    # jkf_fork.kif's variations end with 千日手 and 詰み after 3 opening moves: warnings, not errors
    game = read_one((KIF_DIR / "jkf_fork.kif").read_bytes())
    assert game.valid
    messages = [w.message for w in game.warnings()]
    assert any("repetition" in m for m in messages) and any("checkmate" in m for m in messages)
    for name in ("shogihome_e2e05_sennichite.kifu", "jkf_32ryu-cumbersome.kif", "kfjs_hashimoto-sos.kif",
                 "jkf_taichitsume.kif", "skc_everyday_20220604.kif"):
        assert read_one((KIF_DIR / name).read_bytes()).warnings() == [], name


def test_claimed_checkmate_and_repetition_are_checked():
    head = "手合割：平手\n手数----指手---------消費時間--\n"
    game = read_one(head + "1 ７六歩(77)\n2 詰み\nまで1手で詰み\n")
    assert game.valid and game.result == "1-0"
    (w,) = game.warnings()
    assert w.kind == "warning" and "checkmate" in w.message and w.ply == 2 and w.line == 4
    fool = head + "".join(f"{i} {t}\n" for i, t in enumerate(
        ["２六歩(27)", "３四歩(33)", "２五歩(26)", "３三角(22)", "２四歩(25)", "同　歩(23)"], 1))
    rep = head + "".join(f"{i} {t}\n" for i, t in enumerate(
        ["４八飛(28)", "６二飛(82)", "２八飛(48)", "８二飛(62)"] * 3, 1)) + "13 千日手\n"
    game = read_one(rep)
    assert game.result == "1/2-1/2" and game.warnings() == []
    short = head + "".join(f"{i} {t}\n" for i, t in enumerate(
        ["４八飛(28)", "６二飛(82)", "２八飛(48)", "８二飛(62)"], 1)) + "5 千日手\n"
    game = read_one(short)
    (w,) = game.warnings()
    assert "repetition" in w.message and "2 times" in w.message
    assert read_one(fool + "7 反則負け\n").valid  # a 反則 ending with legal moves is not an error


def test_times_are_kept_as_comment_commands():
    text = ("手合割：平手\n手数----指手---------消費時間--\n"
            "   1 ７六歩(77)   ( 0:16/00:00:16)\n*good\n"
            "   2 ３四歩(33)   (12:05/00:12:05)\n"
            "   3 ２六歩(27)   ( 1:00/00:01:16)\n"
            "   4 ８四歩(83)   ( 0:01/00:20:00)\n"
            "   5 投了         ( 0:03/00:01:19)\n")
    game = read_one(text)
    moves = list(game.mainline())
    assert moves[0].comment == "[%emt 0:00:16] good"
    assert moves[1].comment == "[%emt 0:12:05]"
    assert moves[2].comment == "[%emt 0:01:00]"
    assert moves[3].comment == "[%emt 0:00:01][%kiftotal 0:20:00]"  # the file's total is not the sum
    out = write_kif(game).decode()
    assert "   1 ７六歩(77)   ( 0:16/00:00:16)\n*good\n" in out
    assert "   4 ８四歩(83)   ( 0:01/00:20:00)\n" in out
    assert "   5 投了         ( 0:03/00:01:19)\n" in out
    assert "まで4手で後手の勝ち" in out
    assert read_one(out) == game


# --- the writer ----------------------------------------------------------------------------------


def random_game(variant: str, plies: int, seed: int, *, comments=True) -> Game:
    """A seeded random legal game with captures, promotions (taken and declined), drops, a
    comment, a time and a variation."""
    rng = random.Random(seed)
    game = Game(variant)
    for k, v in (("Event", "test"), ("Site", "here"), ("Date", "2024.05.06"), ("Sente", "A"),
                 ("Gote", "B")):
        game.headers[k] = v
    board = game.start_board()
    node = game
    for i in range(plies):
        legal = board.legal_moves()
        if not legal:
            break
        pools = [[m for m in legal if m.promotion is True], [m for m in legal if m.promotion is False],
                 [m for m in legal if m.drop], [m for m in legal if board.captured_squares(m)]]
        pool = rng.choice([p for p in pools if p] or [legal])
        move = rng.choice(pool if rng.random() < 0.7 else legal)
        node = node.add_variation(move)
        board.push(move)
        if comments and i == 3:
            node.comment = "a comment\n second line "
        if comments and i == 4:
            node.comment = "[%emt 0:01:05] with a time"
        if comments and i == 8:
            alt = next(m for m in node.parent.board().legal_moves() if m != move)
            side = node.parent.add_variation(alt)
            side.starting_comment = "instead"
            side.comment = "the variation"
            side.add_variation(side.board().legal_moves()[0])
    return game


def kinds(game: Game) -> set:
    found, stack = set(), [game]
    while stack:
        node = stack.pop()
        stack.extend(node.variations)
        m = node.move
        if m is None:
            continue
        if m.drop:
            found.add("drop")
        if m.promotion is True:
            found.add("promotion")
        if m.promotion is False:
            found.add("declined")
        if node.parent.board().captured_squares(m):
            found.add("capture")
    return found


@pytest.mark.parametrize("seed", range(4))
def test_generated_shogi_game_round_trips(seed):
    game = random_game("shogi", 90, seed)
    for encoding in ("utf-8", "cp932"):
        data = write_kif(game, encoding)
        again = read_one(data)
        assert again.valid, [str(e) for e in again.errors]
        assert again == game
    text = write_kif(game).decode()
    assert "手数----指手---------消費時間--" in text and "変化：9手" in text
    assert "打" in text and "同　" in text


def test_writer_details():
    text = ("手合割：平手\n手数----指手---------消費時間--\n"
            "1 ７六歩(77)\n2 ３四歩(33)\n3 ２二角不成(88)\n4 同　銀(31)\n5 ４五角打\n")
    game = read_one(text)
    assert game.valid and [m.promotion for m in game.mainline_moves()][2] is False
    out = write_kif(game).decode()
    assert "   3 ２二角不成(88)\n   4 同　銀(31)\n   5 ４五角打\n" in out
    assert out.startswith("#KIF version=2.0 encoding=UTF-8\n")
    sjis = write_kif(game, "cp932")
    assert sjis.startswith(b"#KIF version=2.0 encoding=Shift_JIS\r\n") and b"\r\n" in sjis
    assert read_one(sjis) == game
    # a move written without 成 in the zone is a declined promotion (KIF omits 不成)
    assert read_one(text.replace("２二角不成(88)", "２二角(88)")) == game
    with pytest.raises(KifError):
        write_kif(game, "latin-1")


def test_handicap_game_writes_shitate_and_uwate():
    game = Game("shogi", start=HANDICAPS["角落ち"])
    game.headers["Sente"] = "下手さん"
    game.headers["Gote"] = "上手さん"
    game.headers["Handicap"] = "角落ち"
    game.add_variation(game.start_board().parse_uci("c7c6"))
    game.result = "0-1"
    game.headers["Termination"] = "resignation"
    out = write_kif(game).decode()
    assert "手合割：角落ち\n" in out and "下手：下手さん" in out and "上手：上手さん" in out
    assert "+---" not in out  # no diagram: the handicap names the start
    assert "   2 投了\nまで1手で上手の勝ち" in out
    assert read_one(out) == game


def test_custom_positions_are_written_as_diagrams():
    sfen = "4k4/9/4P4/9/9/9/9/9/4K4 w G2r2b3g4s4n4l17p 5"
    game = Game("shogi", start=sfen)
    out = write_kif(game).decode()
    assert "| ・ ・ ・ ・v玉 ・ ・ ・ ・|一" in out and "後手番" in out and "先手の持駒：金　" in out
    assert "初期局面：" in out  # the move number 5 is not in the diagram
    assert read_one(out) == game
    game.start = sfen.replace(" 5", " 1")
    out = write_kif(game).decode()
    assert "初期局面" not in out and read_one(out) == game


# --- the KIF-style for the large variants --------------------------------------------------------


def test_dai_kagamigi_game_round_trips():
    game = random_game("dai-kagamigi", 140, 11)
    assert {"capture", "promotion", "declined"} <= kinds(game)
    data = write_kif(game)
    text = data.decode()
    assert "変種：dai-kagamigi" in text
    assert re.search(r"^ +\d+ [a-o]\d+ [A-Z+!]", text, re.M)  # algebraic squares, piece IDs
    again = read_one(data)
    assert again.valid, [str(e) for e in again.errors]
    assert again == game
    assert read_one(data, variant="dai-kagamigi") == game


def test_chu_kagamigi_game_with_drops_round_trips():
    game = random_game("chu-kagamigi", 160, 5)
    assert {"capture", "promotion", "drop"} <= kinds(game)
    data = write_kif(game, "cp932")
    again = read_one(data)
    assert again.valid, [str(e) for e in again.errors]
    assert again == game
    assert "打" in data.decode("cp932")


def lion_game() -> Game:
    """A Dai Kagamigi position with a Lion Dog (!LD) next to enemy pieces: double capture, igui,
    pass, then a promotion and a declined promotion."""
    from daikifu.replay.position import format_position
    variant = Game("dai-kagamigi").variant
    pieces = {"h2": ("!LD", 0), "h3": ("P", 1), "h4": ("P", 1), "a1": ("K", 0), "o15": ("K", 1),
              "e10": ("P", 0), "f10": ("P", 0), "n14": ("G", 1), "b14": ("S", 1)}
    cells = {sq(k): (variant.piece(pid).index, colour) for k, (pid, colour) in pieces.items()}
    hands = [[0] * (len(variant.pieces) + 1)] * 2
    start = format_position(variant, lambda f, r: cells.get((r + 3) * 32 + f + 3), hands, 0, 1)
    game = Game("dai-kagamigi", start=start)
    board = game.start_board()
    node = game
    for move in (Move(sq("h2"), sq("h4"), (sq("h3"),)),  # double capture: h3 on the way, h4
                 Move(sq("n14"), sq("n13")),
                 Move(sq("e10"), sq("e11"), (), True),  # promotion
                 Move(sq("n13"), sq("n14")),
                 Move(sq("f10"), sq("f11"), (), False),  # declined promotion
                 Move(sq("b14"), sq("b13"))):
        board.play(move)
        node = node.add_variation(move)
    # igui and a pass, as variations of the first move
    board = game.start_board()
    igui = Move(sq("h2"), sq("h2"), (sq("h3"),))
    assert board.is_legal(igui)
    game.add_variation(igui).comment = "igui"
    board.push(Move(sq("h2"), sq("h4"), (sq("h3"),)))
    board.push(Move(sq("n14"), sq("n13")))
    pass_move = Move(sq("h4"), sq("h4"))
    assert board.is_legal(pass_move)
    game.next().next().add_variation(pass_move).comment = "pass"
    triple = Move(sq("h2"), sq("h5"), (sq("h3"), sq("h4")))  # three steps, capturing h3 and h4
    assert game.start_board().is_legal(triple)
    game.add_variation(triple)
    return game


def test_lion_dog_moves_round_trip():
    game = lion_game()
    text = write_kif(game).decode()
    assert "初期局面：" in text
    assert "   1 h4 !LD(h2) x h3 +\n" in text  # destination, piece, origin, square captured on the way
    assert "   1 h2 !LD(h2) x h3 +\n" in text  # igui: the piece stays on h2
    assert "   3 h4 !LD(h4)\n" in text  # pass
    assert "   1 h5 !LD(h2) x h3 x h4\n" in text  # triple step
    assert " e11 P成(e10)" in text and " f11 P不成(f10)" in text
    again = read_one(text)
    assert again.valid, [str(e) for e in again.errors]
    assert again == game


def test_variant_parameter_and_declaration():
    game = lion_game()
    text = write_kif(game).decode()
    undeclared = text.replace("変種：dai-kagamigi\n", "")
    assert read_one(undeclared, variant="dai-kagamigi") == game
    assert not read_one(undeclared).valid  # read as shogi, the position does not fit
    mismatch = read_one(text, variant="chu-kagamigi")
    assert not mismatch.valid and any("変種" in e.message for e in mismatch.errors)
    with pytest.raises(KifError, match="unknown variant"):
        read_kif(text.replace("変種：dai-kagamigi", "変種：no-such-game"))


# --- content detection ---------------------------------------------------------------------------


def test_looks_like_kif():
    for path in KIF_FILES:
        assert looks_like_kif(path.read_bytes()), path.name
    for sub in ("csa", "chu", "other"):
        for path in _files(REAL / sub):
            if path.suffix in (".csa", ".pgn", ".pjn", ".jkf", ".sfen", ".csg", ".fsy"):
                assert not looks_like_kif(path.read_bytes()), path.name
    lsn = b'[Variant "Dai Kagamigi"]\n[Event "x"]\n[Sente "\xe5\x85\x88"]\n\n1. P-h6 P-h10 *\n'
    assert not looks_like_kif(lsn)
    assert looks_like_kif(write_kif(lion_game()))
    assert not looks_like_kif(b"") and not looks_like_kif(b"\x00\xff\xfe" * 100)


# --- malformed input -----------------------------------------------------------------------------


def _check_no_crash(data: bytes, source="x") -> None:
    try:
        games = read_kif(data, source=source)
    except KifError as exc:
        assert isinstance(exc, ValueError) and isinstance(exc.error, GameError)
        assert "internal error" not in str(exc), str(exc)
        return
    for game in games:
        assert isinstance(game, Game)
        for e in game.errors:
            assert isinstance(e, GameError) and e.kind in ("error", "warning")
    return games


@pytest.mark.parametrize("path", _files(MALFORMED_DIR), ids=[p.name for p in _files(MALFORMED_DIR)])
def test_malformed_files_give_errors(path):
    try:
        games = read_kif(path.read_bytes(), source=path.name)
    except KifError as exc:
        assert exc.error.file == path.name
        return
    assert all(not g.valid for g in games)


def test_not_kif_raises_kif_error():
    for data in (b"", b"\n\n", b"+\n-\n", b"V2.2\nN+a\nP1-KY\n+7776FU\n", 12, None):
        with pytest.raises(KifError):
            read_kif(data)
    err = pytest.raises(KifError, read_kif, b"hello\nworld\n", source="f.kif").value
    assert err.error.file == "f.kif" and err.error.line == 1


def test_random_mutations_never_crash():
    rng = random.Random(20240506)
    sources = [KIF_DIR / n for n in ("jkf_fork.kif", "jkf_doh_branch.kifu", "jkf_9fu.kif",
                                     "skc_everyday_20211107.kif", "jkf_ryuou4.kif")]
    for n in range(400):
        path = sources[n % len(sources)]
        data = mutate(path.read_bytes().split(b"\n"), rng)
        _check_no_crash(data, source=path.name)


def test_mutated_large_variant_records_never_crash():
    rng = random.Random(7)
    data = write_kif(lion_game())
    for _ in range(100):
        _check_no_crash(mutate(data.split(b"\n"), rng))


def test_hypothesis_text_never_crashes():
    pytest.importorskip("hypothesis")
    from hypothesis import given, settings
    from hypothesis import strategies as st

    alphabet = st.sampled_from(list("0123456789 ()/:+*#&|-手数指変化同成打歩飛角玉と銀金桂香一二三四五六七八九"
                                    "１２３４５６７８９：\n") + ["投了", "まで", "手合割：", "先手の持駒：",
                                                                 "+---------------------------+"])

    @settings(max_examples=150, deadline=None, database=None)
    @given(st.lists(alphabet, max_size=80).map("".join))
    def check(text):
        _check_no_crash(text.encode("utf-8"))

    check()
