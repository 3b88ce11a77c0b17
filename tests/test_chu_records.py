"""Chu Shogi records as other programs write them, read by the reading pipeline and replayed by the
rules core: the Chu Shogi server's ``.csg`` games and ``.fsy`` setups, ChuShogiLite's PGN, Jocly's
PJN and ChuShogiLite's KIF (``tests/data/real/chu/``).

The acceptance test reads every file of that folder the way ``daikifu validate`` reads it (the
command's own reading function, and once through the command itself) and checks the ply counts of
``tests/data/real/MANIFEST.md``, parsed from the MANIFEST (hist5 has 343 plies: its last move line
is numbered 172 and both sides moved at 172).  The KIF records' own tests are in
``tests/test_chu_kif.py``.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from daikifu.cli import main
from daikifu.formats.commands import read_records
from daikifu.formats.csg import FSY_KIND, SetupFile, read_csg, read_fsy
from daikifu.formats.reading import NotARecordError, detect_format, read_record
from daikifu.replay import Board, VariantRegistry, compile_rules
from daikifu.replay.usi import parse_usi_square
from manifest_support import REAL, manifest

CHU = REAL / "chu"
# file name -> main-line plies, from the MANIFEST's "Games / plies" column (the setups, "setup
# only", hold no game)
PLIES = {name[len("chu/"):]: sum(plies) for name, (_games, plies) in manifest().items() if name.startswith("chu/")}
SETUPS = sorted(p.name for p in CHU.glob("*.fsy"))


def test_the_manifest_lists_every_chu_file():
    assert sorted([*PLIES, *SETUPS]) == sorted(p.name for p in CHU.iterdir())
    assert PLIES["colin-adams_hist5.csg"] == 343
    text = (REAL / "MANIFEST.md").read_text(encoding="utf-8")
    assert all(f"| `chu/{name}` |" in text and "setup only" in text.split(f"`chu/{name}`")[1].split("\n")[0]
               for name in SETUPS)


@pytest.mark.parametrize("name", sorted(PLIES))
def test_every_chu_record_validates_as_validate_reads_it(name):
    [game] = list(read_records(str(CHU / name)))
    # ChuShogiLite's mating problems give the attacker no King: allowed, and said
    allowed = [e for e in game.errors if e.message.startswith("start position breaks rules allowed for it: no-royal")]
    assert game.valid and len(game.errors) == len(allowed), [str(e) for e in game.errors]
    assert bool(allowed) == name.startswith("tabulon_chushogilite-")
    assert game.variant.slug == "chu-shogi"
    assert len(game.mainline_moves()) == PLIES[name]


@pytest.mark.parametrize("name", SETUPS)
def test_a_setup_is_said_to_be_no_game(name):
    with pytest.raises(NotARecordError) as err:
        list(read_records(str(CHU / name)))
    assert err.value.reason == FSY_KIND


def test_validate_reads_every_chu_record_as_it_is():
    games = sorted(PLIES)
    result = CliRunner().invoke(main, ["validate", *(str(CHU / n) for n in games + SETUPS)])
    assert result.exit_code == 2, result.output  # the setups are no records
    for name in games:
        assert f"{name}: game 1 (chu-shogi): valid, {PLIES[name]} plies" in result.output
    for name in SETUPS:
        assert f"{name}: a Chu Shogi server setup (.fsy), not a game record" in result.output
    assert f"{len(games)} games, {len(games)} valid, 0 invalid" in result.output


# --- the Chu Shogi server: .csg records and .fsy setups --------------------------------------------

# the names on lines 4 and 5 (the server's Black, at the bottom, and White) and the handicap
HISTORICAL = {"hist1": ("Mori", "Fukui", None), "hist2": ("Kondo", "Konishi", None),
              "hist3": ("Masuda", "Kuri", "free-king"), "hist4": ("Sawada", "Kuri", "free-king-alternate"),
              "hist5": ("Matsumoto", "Mori", "free-king-dragon-king"),
              "hist6": ("Matsumoto", "Mori", "free-king-dragon-king")}


@pytest.mark.parametrize("name", sorted(HISTORICAL))
def test_historical_games_keep_their_players_and_setup(name):
    black, white, setup = HISTORICAL[name]
    path = CHU / f"colin-adams_{name}.csg"
    data = path.read_bytes()
    assert detect_format(data.decode("ascii"), path.name) == "csg"
    [game] = list(read_record(data, name=path.name))
    assert game.options.get("setup", "even") == (setup or "even")
    assert (game.headers["Sente"], game.headers["Gote"]) == (black, white)
    # the handicap giver, White at the top (Gote), moves first; Black in an even game
    assert game.start_board().turn == (0 if setup is None else 1)


def test_lion_moves_of_the_records_are_read():
    [game] = list(read_record((CHU / "colin-adams_hist1.csg").read_bytes(), name="hist1.csg"))
    moves = game.mainline_moves()
    igui = moves[36]  # "19 Ln 6g x! 6f": the Lion takes on 6f and stays on 6g
    assert igui.to_square == igui.from_square and len(igui.kills) == 1
    double = [m for m in moves if m.kills and m.to_square != m.from_square]
    assert double  # "52 Ln 11g x 12g - 11f": a capture and a step in one move


# the server's .fsy files and the setups chu-shogi.toml states by hand (option "setup")
FSY = {"EVEN": "even", "FK": "free-king", "FKa": "free-king-alternate", "FK+DK": "free-king-dragon-king"}


def _option_start(option: str) -> Board:
    rules = compile_rules(VariantRegistry.default().load("chu-shogi"), {"setup": option})
    return Board(rules, rules.start)


@pytest.mark.parametrize("name", sorted(FSY))
def test_the_server_setups_are_the_variant_setups(name):
    position = read_fsy((CHU / f"colin-adams_{name}.fsy").read_text(encoding="ascii"))
    assert position == _option_start(FSY[name]).position()


def test_a_setup_file_is_read_as_the_server_reads_it():
    board = Board(compile_rules(VariantRegistry.default().load("chu-shogi")),
                  read_fsy((CHU / "colin-adams_FK.fsy").read_text(encoding="ascii")))
    # the first rank written is rank "a" (the top), its first item file 12; upper case is White
    assert (board.piece_at(parse_usi_square(board, "12a")).id, board.piece_at(parse_usi_square(board, "12a")).colour) == ("L", 1)
    assert board.piece_at(parse_usi_square(board, "6a")).id == "K"  # "L,FL,C,S,G,DE,K,...": K is the 7th item
    assert board.piece_at(parse_usi_square(board, "7l")).id == "K" and board.piece_at(parse_usi_square(board, "7l")).colour == 0
    assert board.piece_at(parse_usi_square(board, "2c")) is None  # FK.fsy: "...,DH,R,1,SM": White gave up its Free King
    assert board.turn == 1  # the handicap giver moves first


def test_a_bad_setup_file_is_a_located_error():
    bad = SetupFile("bad.fsy", "/L,FL,XX" + ",1" * 9 + "/" + "12/" * 11)
    [game] = list(read_csg(HEAD + "1 P 8i - 8h\n", file="g.csg", setup=bad))
    assert not game.valid
    [error] = game.errors
    assert (error.file, error.line, error.column) == ("bad.fsy", 1, 7) and "'XX' is not a piece" in error.message


HEAD = "3\nboard.data\nEVEN\nA\nB\n\n\n\n\n\n0 P 1a - 1a\n"
MYSTERY = HEAD.replace("board.data", "mystery.data").replace("EVEN", "Mystery")


def test_a_bad_move_is_an_error_at_its_line():
    [game] = list(read_csg(HEAD + "1 P 8i - 8h\n1 P 8d - 8c\n", file="bad.csg"))
    assert not game.valid
    [error] = game.errors
    assert (error.line, error.ply) == (13, 2) and "8d - 8c" in error.move


def test_a_wrong_piece_name_and_an_unknown_setup_are_errors():
    [game] = list(read_csg(HEAD + "1 G 8i - 8h\n", file="bad.csg"))
    assert not game.valid and "no G of the side to move on 8i" in str(game.errors[0])
    [game] = list(read_csg(MYSTERY + "1 P 8i - 8h\n", file="bad.csg"))
    assert not game.valid
    [error] = game.errors  # the moves are not read from a start that is not known
    assert (error.file, error.line, error.column) == ("bad.csg", 2, 1)
    assert "unknown setup 'mystery.data'" in error.message and "--setup" in error.expected


def test_a_capture_mark_needs_a_piece_to_capture():
    [game] = list(read_csg(HEAD + "1 P 8i x 8h\n", file="x.csg"))
    assert not game.valid and "nothing to capture on 8h" in str(game.errors[0])


def _handicap_record(tmp_path: Path, setup_line: str, handicap: str) -> Path:
    text = (CHU / "colin-adams_hist3.csg").read_text(encoding="ascii").split("\n")
    text[1], text[2] = setup_line, handicap
    path = tmp_path / "game.csg"
    path.write_text("\n".join(text), encoding="ascii")
    return path


def test_a_setup_named_by_the_record_is_found_beside_it(tmp_path):
    path = _handicap_record(tmp_path, "club.data", "Club handicap")
    [game] = list(read_records(str(path)))
    assert not game.valid and "unknown setup 'club.data'" in game.errors[0].message
    # the server's Free King setup saved under the name the record gives: the game reads
    shutil.copy(CHU / "colin-adams_FK.fsy", tmp_path / "club.fsy")
    [game] = list(read_records(str(path)))
    assert game.valid and len(game.mainline_moves()) == 259
    assert game.options["setup"] == "free-king" and game.start is None  # a setup the variant knows keeps its name


def test_the_server_file_of_a_handicap_name_is_found_beside_the_record(tmp_path):
    # the server finds a setup by its handicap name: "Free King" is FK.fsy; here a setup that is
    # not the variant's (the Free King's square given to a Lance) is read as a start position
    fsy = (CHU / "colin-adams_FK.fsy").read_text(encoding="ascii").replace("SM,VM,R,DH,DK,VM,LN,DK,DH,R,1,SM",
                                                                             "SM,VM,R,DH,DK,VM,LN,DK,DH,R,L,SM")
    (tmp_path / "FK.fsy").write_text(fsy, encoding="ascii")
    path = _handicap_record(tmp_path, "other.data", "Free King")
    [game] = list(read_records(str(path)))
    assert game.options["setup"] == "even" and game.start is not None
    assert game.start_board().piece_at(parse_usi_square(game.start_board(), "2c")).id == "L"
    # as many pieces on each side: no handicap, so Black moves first, and White's first move is refused
    assert game.start_board().turn == 0 and not game.valid and game.errors[0].ply == 1


def test_setup_option_overrides_the_named_setup(tmp_path):
    path = _handicap_record(tmp_path, "mystery.data", "Mystery")
    runner = CliRunner()
    result = runner.invoke(main, ["validate", str(path)])
    assert result.exit_code == 1 and "game.csg:2:1, game 1: unknown setup 'mystery.data'" in result.output
    fk = str(CHU / "colin-adams_FK.fsy")
    result = runner.invoke(main, ["validate", "--setup", fk, str(path)])
    assert result.exit_code == 0 and "valid, 259 plies" in result.output, result.output
    # the even setup instead: the first move (White's) is then not White's to make
    result = runner.invoke(main, ["validate", "--setup", str(CHU / "colin-adams_EVEN.fsy"), str(path)])
    assert result.exit_code == 1 and "ply 1, move '1 P 5d - 5e'" in result.output
    result = runner.invoke(main, ["convert", "--to", "lsn", "--setup", fk, str(path)])
    assert result.exit_code == 0 and '[RuleSet "setup=free-king"]' in result.output
    db = str(tmp_path / "a.db")
    result = runner.invoke(main, ["import", "--db", db, "--setup", fk, "--json", str(path)])
    assert result.exit_code == 0 and json.loads(result.output)["imported"] == 1, result.output
    result = runner.invoke(main, ["import", "--db", str(tmp_path / "b.db"), "--json", str(path)])
    assert json.loads(result.output)["invalid"] == 1
    result = runner.invoke(main, ["import", "--db", db, "--json", fk])
    assert json.loads(result.output)["files"][0]["error"] == FSY_KIND
    result = runner.invoke(main, ["validate", "--setup", str(tmp_path / "none.fsy"), str(path)])
    assert result.exit_code == 2 and "none.fsy" in result.output


# --- ChuShogiLite's PGN --------------------------------------------------------------------------


def _game(name: str):
    [game] = list(read_records(str(CHU / name)))
    assert game.valid, [str(e) for e in game.errors]
    return game


def test_chushogilite_pgn_reads_its_fen_and_lion_moves():
    game = _game("tabulon_chushogilite-c22.pgn")
    board = game.start_board()
    assert board.turn == 0  # "w": the upper-case side, the first player
    assert board.royal_squares(0) == ()  # a tsume: the attacker has no King
    first = game.mainline_moves()[0]  # "Ql1": the Free King from f7 to l1
    assert board.piece_at(first.from_square).id == "FK" and first.to_square == parse_usi_square(board, "1l")
    node = game
    for _ in range(11):
        node = node.variations[0]
    lion = node.move  # "+Dxj10,i11": the Soaring Eagle takes on j10 and steps on to i11
    before = node.parent.board()
    assert before.piece_at(lion.from_square).id == "+DK"
    assert lion.kills == (parse_usi_square(before, "3c"),) and lion.to_square == parse_usi_square(before, "4b")


def test_a_bad_chushogilite_move_is_reported_as_written():
    text = (CHU / "tabulon_chushogilite-c22.pgn").read_text(encoding="utf-8").replace("+Dxj10,i11", "+Dxj10,i12")
    [game] = list(read_record(text.encode(), name="c22.pgn"))
    [error] = [e for e in game.errors if e.kind == "error"]
    assert (error.move, error.ply, error.line) == ("+Dxj10,i12", 11, 28)
    assert "+DKxj10-i11" in error.suggestions


def test_chushogilite_igui_and_pass_return_to_the_start_square():
    # (Gote's Pawn on a11 keeps its King from being bare once the Lion takes the other one: a bare
    # King would end the game there)
    text = ('[Variant "chu"]\n[FEN "k11/p11/12/12/12/12/12/4p7/4N7/12/12/11K w - 0 1"]\n\n'
            '1. Nxe5,e4 Kb12 2. Nf5,e4 *\n')
    [game] = list(read_record(text.encode(), name="lion.pgn"))
    assert game.valid, [str(e) for e in game.errors]
    igui, _, lion_pass = game.mainline_moves()
    board = game.start_board()
    e4, e5 = parse_usi_square(board, "8i"), parse_usi_square(board, "8h")
    assert (igui.from_square, igui.to_square, igui.kills) == (e4, e4, (e5,))
    assert lion_pass.is_pass and lion_pass.from_square == e4


def test_a_fen_with_chess_counters_is_read_as_the_pgn_writers_write_it():
    board = "k11/12/12/12/12/12/12/12/12/12/12/11K"
    for fen, turn in ((f"{board} w - 0 1", 0), (f"{board} b - 0 1", 1), (f"{board} w - - 0 1", 0),
                      (f"{board} w - 1", 1)):  # four fields: a position string, "w" the second player
        [game] = list(read_record(f'[Variant "chu-shogi"]\n[FEN "{fen}"]\n\n*\n'.encode(), name="f.lsn"))
        assert game.valid and game.start_board().turn == turn, fen


# --- Jocly's PJN ---------------------------------------------------------------------------------


def test_jocly_pjn_moves_are_the_pieces_jocly_names():
    game = _game("tabulon_chu-ordinaire.pjn")
    node, seen = game, []
    while node.variations:
        node = node.variations[0]
        board = node.parent.board()
        seen.append((board.piece_at(node.move.from_square).id, board.turn))
    # e4-e5 LNg10-f8 2. LNf3-f5 Sd12-d11 3. LNf5-e6 h9-h8: White (Sente) first, a Lion's jump,
    # a Lion's two-square move, a Silver, a Lion's step, a Pawn
    assert seen == [("P", 0), ("LN", 1), ("LN", 0), ("S", 1), ("LN", 0), ("P", 1)]
    moves = game.mainline_moves()
    assert moves[1].from_square == parse_usi_square(board, "6c") and moves[1].to_square == parse_usi_square(board, "7e")


def test_jocly_abbreviations_that_are_not_daikifus():
    text = '[JoclyGame "chu-shogi"]\n\n1. KNf2-d2 KNg11-i11 *\n'
    [game] = list(read_record(text.encode(), name="k.pjn"))
    assert game.valid, [str(e) for e in game.errors]
    board = game.start_board()
    assert [board.piece_at(m.from_square).id for m in game.mainline_moves()] == ["KR", "KR"]
    # a position in Jocly's FEN (chess's six fields; "w" is the first player) and a Reverse Chariot
    # (Gote's Pawn keeps its King from being bare, which would end the game before the first move)
    text = '[JoclyGame "chu-shogi"]\n[FEN "6k5/p11/12/12/12/12/12/12/12/A11/12/5K6 w - - 0 1"]\n\n1. RVa3-a7 *\n'
    [game] = list(read_record(text.encode(), name="k.pjn"))
    assert game.valid, [str(e) for e in game.errors]
    assert game.start_board().turn == 0 and game.end().board().piece_at(parse_usi_square(board, "12f")).id == "RC"


def test_a_game_read_with_a_setup_file_reads_again_from_the_archive(tmp_path):
    # the archive keeps the record's text, which names a setup file the archive does not keep: a
    # game stored with --setup (or a file beside it) must still show its moves when opened again
    from daikifu.archive import Archive
    path = _handicap_record(tmp_path, "mystery.data", "Mystery")
    fsy = (CHU / "colin-adams_FK.fsy").read_text(encoding="ascii").replace("SM,VM,R,DH,DK,VM,LN,DK,DH,R,1,SM",
                                                                             "SM,VM,R,DH,DK,VM,LN,DK,DH,R,L,SM")
    (tmp_path / "lance.fsy").write_text(fsy, encoding="ascii")
    runner = CliRunner()
    # the server's Free King setup: 259 plies; a setup of our own (a Lance where the Free King was,
    # as many pieces each side so Black moves first): White's first move is refused at ply 1
    for setup, lance, plies, db in ((CHU / "colin-adams_FK.fsy", False, 259, "a.db"),
                                    (tmp_path / "lance.fsy", True, 0, "b.db")):
        db = str(tmp_path / db)
        runner.invoke(main, ["import", "--db", db, "--setup", str(setup), str(path)])
        with Archive(db) as archive:
            [(gid, status)] = archive.conn.execute("SELECT id, status FROM games").fetchall()
            game = archive.load_game(gid)
        board = game.start_board()
        piece = board.piece_at(parse_usi_square(board, "2c"))
        assert (piece is not None and piece.id == "L") == lance
        assert len(game.mainline_moves()) == plies
        assert status == ("invalid" if lance else "valid")
        if lance:
            assert game.errors[0].ply == 1 and "unknown setup" not in game.errors[0].message
