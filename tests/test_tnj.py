"""The Tenjiku Shogi program's records (formats/tnj.py): a Chu Shogi game written in the program's
form (its squares fit on 12x12) checked against the same game written as USI moves, every check
the reader makes on what is written, and detection, which claims the program's files and no file
of another format."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from daikifu.formats.reading import NotARecordError, detect_format, read_record, record_text
from daikifu.formats.tnj import read_tnj

from manifest_support import REAL, manifest

# A Chu Shogi game written as the Tenjiku program writes its records: a Lion's jump, igui (7), a
# Lion's two steps capturing on the first (9), a Lion taking a Lion, a promotion on a capture (17)
# and the promoted Pawn moving on.
CHU = """\
1.  P  7i-7h
2.  P  6d-6e
3. Ln  7j-6h
4.  P  5d-5e
5. Ln  6h-6f
6.  P  8d-8e
7. Ln  6f!6e
8.  P  2d-2e
9. Ln  6fx5e-6d
10. Ln 6cx6d
11.  P  7h-7g
12. Ln 6d-7e
13.  P  7g-7f
14.  P  10d-10e
15.  P  7fx7e
16.  P  11d-11e
17.  P  7ex7d+
18. S  9a-9b
19. +P 7dx7c
"""
# the same game as USI moves (lishogi's squares on 12x12, which are the program's), written by hand
CHU_USI = ("7i7h 6d6e 7j6h 5d5e 6h6f 8d8e 6f6e6f 2d2e 6f5e6d 6c6d 7h7g 6d7e 7g7f 10d10e 7f7e 11d11e 7e7d+ "
           "9a9b 7d7c")


def chu(text: str = CHU, **kwargs):
    (game,) = read_record(text.encode(), name="chu.tnj", variant="chu-shogi", **kwargs)
    return game


def changed(line: int, new: str, text: str = CHU) -> str:
    lines = text.splitlines()
    lines[line - 1] = new
    return "\n".join(lines) + "\n"


def first_error(game):
    return next(e for e in game.errors if e.kind == "error")


def test_a_chu_game_reads_as_its_usi_twin():
    game = chu()
    assert game.valid, [str(e) for e in game.errors]
    usi = f"setoption name UCI_Variant value chu-shogi\nposition startpos moves {CHU_USI}\n".encode()
    (twin,) = read_record(usi, fmt="usi")
    assert twin.valid and len(twin.mainline_moves()) == 19
    assert game.mainline_moves() == twin.mainline_moves()
    assert (game.variant.slug, game.result) == ("chu-shogi", "*")
    moves = game.mainline_moves()
    assert moves[6].from_square == moves[6].to_square and len(moves[6].kills) == 1  # igui
    assert len(moves[8].kills) == 1 and moves[16].promotion is True


def test_the_terse_form_and_unnumbered_lines_read_the_same():
    terse = "".join(line.split(".", 1)[0] + "." + line.split()[-1] + "\n" for line in CHU.splitlines())
    assert terse.startswith("1.7i-7h\n2.6d-6e\n3.7j-6h\n")
    assert chu(terse).mainline_moves() == chu().mainline_moves()
    bare = "".join(line.split()[-1] + "\n" for line in CHU.splitlines())
    assert chu(bare).mainline_moves() == chu().mainline_moves()


def test_a_promotion_not_written_is_declined():
    game = chu(changed(17, "17.  P  7ex7d"))
    moves = game.mainline_moves()
    assert moves[16].promotion is False
    # the Pawn did not promote: the record's "+P" at ply 19 names another piece than the one on 7d
    error = first_error(game)
    assert (error.line, error.column, error.ply, error.move) == (19, 1, 19, "19. +P 7dx7c")
    assert "Pawn" in error.message and "'P'" in error.expected
    assert len(moves) == 18


@pytest.mark.parametrize("line, text, ply, words, expected", [
    (3, "3. FK  7j-6h", 3, "the piece on 7j is a Lion, not 'FK' (Free King)", "'Ln'"),
    (1, "1.  P  7j-6h", 1, "is a Lion, not 'P' (Pawn)", "'Ln'"),
    (6, "6.  P  8dx8e", 6, "'x' written, but 8e holds no piece to capture", "'-' for a move to an empty square"),
    (15, "15.  P  7f-7e", 15, "7e holds a piece: the move captures it", "'x' for a capture"),
    (9, "9. Ln  6f-5e-6d", 9, "5e holds a piece: the move captures it", "'x' for a capture"),
    (7, "7. Ln  6f!6d", 7, "'!' written, but 6d holds no piece to capture", "'-' for a move"),
    (4, "5.  P  5d-5e", 4, "move number 5 at ply 4", "the number 4"),
    (2, "2.  P  6e-6f", 2, "no piece of the side to move on 6e", "origin square"),
    (1, "1.  P  13i-13h", 1, "13i: square off the 12x12 board", "a square such as 7l"),
    (5, "5. Ln  6h-6d", 5, "illegal move", "a legal move"),
])
def test_what_is_written_is_checked(line, text, ply, words, expected):
    game = chu(changed(line, text))
    assert not game.valid
    error = first_error(game)
    assert (error.file, error.game, error.line, error.column, error.ply, error.move) == (
        "chu.tnj", 1, line, 1, ply, text.strip())
    assert words in error.message and expected in error.expected, str(error)
    assert len(game.mainline_moves()) == ply - 1


def test_a_line_that_is_no_move_is_an_error_there_and_lenient_keeps_what_came_before():
    text = changed(5, "   Here Black's Lion jumps.")
    game = chu(text)
    error = first_error(game)
    assert (error.line, error.column, error.ply, error.move) == (5, 4, 5, "Here Black's Lion jumps.")
    assert error.message == "not a move line: text that is not a move" and "one move a line" in error.expected
    kept = chu(text, lenient=True)
    assert kept.valid and len(kept.mainline_moves()) == 4 and kept.headers["ImportStatus"] == "truncated"
    several = first_error(chu(changed(5, "5. Ln 6h-6f  6. P 8d-8e")))
    assert several.message == "not a move line: several moves on one line"
    setup = first_error(chu("setup test2\n" + CHU))
    assert setup.line == 1 and "the program's setup line" in setup.message
    undo = first_error(chu(changed(5, "undo")))
    assert undo.line == 5 and undo.message.startswith("not a move line: the program's command 'undo'")


def test_burn_counts_and_marks():
    # Chu Shogi burns nothing: x!0 and the mark * are accepted, x!1 is wrong at its ply
    assert chu(changed(7, "7. Ln  6f!6ex!0")).valid
    assert chu(changed(9, "9. Ln  6fx5e-6d*")).valid
    error = first_error(chu(changed(9, "9. Ln  6fx5e-6dx!1")))
    assert (error.line, error.ply, error.move) == (9, 9, "9. Ln  6fx5e-6dx!1")
    assert error.message == "the move burns 0 pieces, the record says x!1"
    assert error.expected == "no burn count: the move burns nothing"


def test_read_tnj_reads_as_the_pipeline_reads():
    (game,) = read_tnj(CHU, file="x", variant="chu-shogi")
    assert game.valid and game.mainline_moves() == chu().mainline_moves()


# --- detection -------------------------------------------------------------------------------------

TENJIKU = sorted(p.name for p in (REAL / "other").glob("tenjiku_*"))


def test_detection_claims_the_programs_files():
    assert len(TENJIKU) == 6
    for name in TENJIKU:
        assert detect_format((REAL / "other" / name).read_text(encoding="ascii"), name) == "tnj", name
    assert detect_format(CHU, "game.txt") == "tnj"
    assert detect_format("Tenjiku analysis, move 1: P 7l-7k\n", "notes.txt") is None


def test_detection_claims_no_file_of_another_format():
    """Neither a real record of another program nor a game written by any of daikifu's writers."""
    from fuzz_support import record_sources
    sources = [(name, data) for name, data in record_sources(REAL.parents[2]) if Path(name).name not in TENJIKU]
    assert len(sources) > 150 and any(name.endswith(".ki2") for name, _ in sources)
    for name, data in sources:
        try:
            found = record_text(data, name=name)[1]
        except NotARecordError:
            continue
        assert found != "tnj", name


def test_the_commented_analysis_is_refused_at_its_first_line():
    name = "other/tenjiku_luckydog-comments.txt"
    for lenient in (False, True):
        (game,) = read_record((REAL / name).read_bytes(), name=name, lenient=lenient)
        assert not game.valid and not game.mainline_moves()
        (error,) = [e for e in game.errors if e.message.startswith("not a move line")]
        assert (error.file, error.line, error.column, error.ply, error.move) == (name, 1, 1, 1, "Demon Pawn")
        assert "commented analysis, not a record" in error.message


def test_the_manifest_counts_the_programs_records():
    rows = manifest()
    counts = {name: rows[f"other/{name}"] for name in TENJIKU if f"other/{name}" in rows}
    assert {n: c[1][0] for n, c in counts.items()} == {
        "tenjiku_23FiD5d.txt": 21, "tenjiku_7kcolin20p2f.txt": 21, "tenjiku_inftest.txt": 26,
        "tenjiku_qanl-mate.txt": 21, "tenjiku_qawo13BGnx3f-29.txt": 29}
    assert all(Path(REAL / "other" / n).read_text().count("\n") == c[1][0] for n, c in counts.items())


# --- the program's Tenjiku Shogi records -------------------------------------------------------------

MACHINE_READABLE = [n for n in TENJIKU if n != "tenjiku_luckydog-comments.txt"]


def tenjiku():
    """The Tenjiku Shogi variant (the records are read as it)."""
    from daikifu.replay import UnknownVariantError, VariantRegistry
    try:
        return VariantRegistry.default().load("tenjiku-shogi")
    except UnknownVariantError:
        pytest.skip("no tenjiku-shogi variant file yet")


def program_record(name: str, text: str | None = None, **kwargs):
    data = (REAL / "other" / name).read_bytes() if text is None else text.encode()
    (game,) = read_record(data, name=name, **kwargs)
    return game


@pytest.mark.parametrize("name", MACHINE_READABLE)
def test_the_programs_records_validate_with_the_manifests_counts(name):
    tenjiku()
    from daikifu.formats.commands import read_records
    (game,) = read_records(str(REAL / "other" / name))
    assert game.valid, [str(e) for e in game.errors]
    assert game.variant.slug == "tenjiku-shogi" and not game.errors
    assert len(game.mainline_moves()) == manifest()[f"other/{name}"][1][0]


# The program's start position (its data.c, init_piece), rank a (the top, White's) first, files 16
# to 1; "." an empty square.  Upper case: Black's pieces (ranks i-p), lower case: White's.
PROGRAM_START = """\
l n fl i c s g de k g s c i fl n l
rc . chs chs . bt ph fk ln ky bt . chs chs . rc
ssd vsd b dh dk wb fid feg lhk fid wb dk dh b vsd ssd
sm vm r hf seg bgn rgn vgn ggn rgn bgn seg hf r vm sm
p p p p p p p p p p p p p p p p
. . . . dg . . . . . . dg . . . .
. . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . .
. . . . . . . . . . . . . . . .
. . . . DG . . . . . . DG . . . .
P P P P P P P P P P P P P P P P
SM VM R HF SEG BGN RGN GGN VGN RGN BGN SEG HF R VM SM
SSD VSD B DH DK WB FID LHK FEG FID WB DK DH B VSD SSD
RC . CHS CHS . BT KY LN FK PH BT . CHS CHS . RC
L N FL I C S G K DE G S C I FL N L
"""


def _program_board() -> dict:
    """(file, rank letter) -> (the program's name of the piece, upper case, and its side: 0 Black)."""
    out = {}
    for row, line in enumerate(PROGRAM_START.splitlines()):
        for column, word in enumerate(line.split()):
            if word != ".":
                out[(16 - column, "abcdefghijklmnop"[row])] = (word.upper(), 0 if word.isupper() else 1)
    return out


def _squares(text: str) -> list:
    return [(int(n), letter) for n, letter in re.findall(r"(\d{1,2})([a-p])", text)]


def _replayed_by_hand(text: str):
    """The sides' pieces after each move of a program record, as the program plays them: the
    piece goes to its destination, captures what stands there (and on the square a Lion steps on),
    and a Fire Demon burns every enemy piece beside its destination; a piece that ends beside an
    enemy Fire Demon is burned itself and burns nothing (the program's "suicide" move).  No rules:
    only what the record says and what burning does (the program's board.c, make_normal_move and
    suicide())."""
    board = _program_board()
    for ply, line in enumerate(text.splitlines()):
        squares = _squares(line.split(".", 1)[-1])
        origin, to = squares[0], squares[-1]
        if "!" in line.split("x!")[0]:  # igui: the piece captures and stays
            board.pop(to)
            to = origin
        piece, side = board.pop(origin)
        written = re.match(r"\s*\d+\.\s*([A-Za-z]+)\s", line)
        assert side == ply % 2 and (written is None or piece == "?" or written.group(1).upper() == piece), line
        if "+" in line.split(".", 1)[-1]:
            piece = "?"  # promoted: the program's names of promoted pieces are not checked here
        for sq in squares[1:-1]:
            board.pop(sq, None)
        board[to] = (piece, side)
        beside = [(to[0] + df, chr(ord(to[1]) + dr)) for df in (-1, 0, 1) for dr in (-1, 0, 1) if df or dr]
        if any(board.get(sq) == ("FID", 1 - side) for sq in beside):
            del board[to]  # suicide: burned by the enemy Fire Demon beside it
        elif piece == "FID":
            for near in beside:
                if near in board and board[near][1] != side:
                    del board[near]
        yield {sq: s for sq, (_p, s) in board.items()}


def test_the_record_saved_at_a_suicide_burns_the_piece_that_ends_beside_the_fire_demon():
    """7kcolin20p2f is saved at the move its name gives: 20. 2e-2f, a Pawn that steps beside the
    Fire Demon that took on 2g at ply 15.  The program removes it after its move (board.c
    suicide()), and daikifu's default rules do (passive burning); without them it stays."""
    tenjiku()
    from daikifu.replay import Board
    from daikifu.replay.usi import parse_usi_square
    moves = program_record("tenjiku_7kcolin20p2f.txt").mainline_moves()
    for options, left in ((None, None), ({"passive-burning": "none"}, "P")):
        board = Board("tenjiku-shogi", options=options)
        for move in moves[:19]:
            board.push(move)
        pawn = parse_usi_square(board, "2f")
        assert moves[19].to_square == pawn and board.burns_mover(moves[19]) == (left is None)
        board.push(moves[19])
        piece = board.piece_at(pawn)
        assert (piece and piece.id) == left


def test_the_archive_stores_the_position_after_the_suicide(tmp_path):
    """Imported, the record reaches the position without the burned Pawn at ply 20, and never the
    one with it (the reading without passive burning)."""
    tenjiku()
    from daikifu.replay import Board
    moves = program_record("tenjiku_7kcolin20p2f.txt").mainline_moves()
    db = tmp_path / "a.db"
    assert cli("import", "--json", "--db", db, REAL / "other" / "tenjiku_7kcolin20p2f.txt")[0] == 0
    for options, plies in ((None, [20]), ({"passive-burning": "none"}, [])):
        board = Board("tenjiku-shogi", options=options)
        for move in moves[:20]:
            board.push(move)
        code, found = cli("search", "--json", "--db", db, "-v", "tenjiku-shogi", "-p", board.position())
        assert code == 0 and [g["ply"] for g in found["games"]] == plies


def test_the_hand_replay_follows_the_records():
    """The replay by hand that the tests below compare with finds, at every origin, a piece of the
    side to move with the name the record writes (so the squares and the start are read right)."""
    for name in MACHINE_READABLE:
        text = (REAL / "other" / name).read_text(encoding="ascii")
        positions = list(_replayed_by_hand(text))
        assert len(positions) == manifest()[f"other/{name}"][1][0]
    text = (REAL / "other" / "tenjiku_inftest.txt").read_text(encoding="ascii")
    last = list(_replayed_by_hand(text))[-1]
    assert 2 * 78 - len(last) > text.count("x") == 8  # more pieces gone than captures: Fire Demons burnt some


def test_the_start_is_the_programs_and_its_pieces_have_its_names():
    variant = tenjiku()
    from daikifu.formats.tnj import abbreviation
    from daikifu.replay import Board
    from daikifu.replay.usi import usi_square
    board = Board(variant)
    ours = {}
    for sq, piece in board.pieces().items():
        name = usi_square(board, sq)
        ours[(int(name[:-1]), name[-1])] = (abbreviation(variant, piece.id).upper(), piece.colour)
    assert ours == _program_board()


# The program's promoted pieces (its data.c: piece_string and piece_name, "Rook (+G)" ...), by the
# name it writes and the piece it promotes from (daikifu's IDs)
PROGRAM_PROMOTED = {"fk": "+PH", "sm": "+C", "ssd": "+N", "vm": "+S", "vsd": "+I", "r": "+G", "ln": "+KR",
                    "b": "+FL", "dh": "+B", "dk": "+R", "hf": "+DH", "seg": "+DK", "wb": "+SS", "bgn": "+HF",
                    "rgn": "+SE", "chs": "+VS", "CP": "+DE", "FO": "+VM", "FS": "+BT", "FBo": "+SM", "HT": "+CS",
                    "MGn": "+D", "+P": "+P", "W": "+RC", "WH": "+L"}


def test_the_promoted_pieces_have_the_programs_names():
    variant = tenjiku()
    from daikifu.formats.tnj import abbreviation
    assert {abbreviation(variant, piece_id): piece_id for piece_id in PROGRAM_PROMOTED.values()} == PROGRAM_PROMOTED
    # those its table names not: written as the piece they move as (qanl-mate: 21. GGn 7e-8f, the Rook
    # General promoted at ply 15)
    assert [abbreviation(variant, i) for i in ("+RG", "+BG", "+WB", "+FK", "+LN")] == ["GGn", "VGn", "FiD", "FEg", "LHk"]


@pytest.mark.parametrize("name", MACHINE_READABLE)
def test_every_position_of_the_records_is_the_programs(name):
    """After every ply, the squares each side holds are those the record's moves and the Fire
    Demon's burning give on the program's board (promotions aside: the program's names for
    promoted pieces are not all written)."""
    tenjiku()
    from daikifu.replay.usi import usi_square
    text = (REAL / "other" / name).read_text(encoding="ascii")
    game = program_record(name)
    board = game.start_board()
    expected = list(_replayed_by_hand(text))
    assert len(expected) == len(game.mainline_moves())
    for ply, (move, want) in enumerate(zip(game.mainline_moves(), expected), start=1):
        board.push(move)
        got = {(int(n[:-1]), n[-1]): p.colour for sq, p in board.pieces().items() for n in [usi_square(board, sq)]}
        assert got == want, (name, ply)


def _neighbours(board, sq: int) -> list[int]:
    from daikifu.replay.squares import square, square_file, square_rank
    f, r = square_file(sq), square_rank(sq)
    return [square(f + df, r + dr) for df in (-1, 0, 1) for dr in (-1, 0, 1)
            if (df or dr) and 0 <= f + df < board.rules.files and 0 <= r + dr < board.rules.ranks]


def _fire_demon_moves(game):
    """(ply, the enemy pieces beside the destination before, after, the enemy pieces on the board
    before, after, captured on the destination) of each Fire Demon move of ``game``."""
    variant = game.variant
    demons = {p.id for p in variant.pieces if p.name == "Fire Demon"}
    board = game.start_board()
    out = []
    for ply, move in enumerate(game.mainline_moves(), start=1):
        piece = board.piece_at(move.from_square)
        enemy = board.turn ^ 1
        beside = [sq for sq in _neighbours(board, move.to_square) if sq != move.from_square]
        near = sum(1 for sq in beside if (p := board.piece_at(sq)) is not None and p.colour == enemy)
        total = len(board.pieces(enemy))
        taken = board.piece_at(move.to_square) is not None
        board.push(move)
        if piece.id in demons:
            after_near = sum(1 for sq in beside if (p := board.piece_at(sq)) is not None and p.colour == enemy)
            out.append((ply, near, after_near, total, len(board.pieces(enemy)), taken))
    return out


def test_a_fire_demons_move_burns_the_enemy_pieces_beside_it():
    tenjiku()
    burns = 0
    for name in MACHINE_READABLE:
        for ply, near, after_near, total, after, taken in _fire_demon_moves(program_record(name)):
            assert after_near == 0, (name, ply)  # every enemy piece beside the destination is gone
            assert total - after == near + taken, (name, ply)  # and no other
            burns += near
    assert burns >= 1  # the records hold burning moves


# --- the command line ------------------------------------------------------------------------------


def cli(*args):
    import json

    from click.testing import CliRunner

    from daikifu.cli import main
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    return result.exit_code, (json.loads(result.output) if "--json" in args else result.output)


def test_validate_and_import_a_chu_game_in_the_programs_form(tmp_path):
    record = tmp_path / "chu.tnj"
    record.write_text(CHU, encoding="ascii")
    code, (verdict,) = cli("validate", "--json", "--variant", "chu-shogi", record)
    assert code == 0 and (verdict["variant"], verdict["status"], verdict["ply_count"]) == ("chu-shogi", "valid", 19)
    bad = tmp_path / "bad.tnj"
    bad.write_text(changed(15, "15.  P  7f-7e"), encoding="ascii")
    code, (verdict,) = cli("validate", "--json", "--variant", "chu-shogi", bad)
    assert code == 1 and verdict["status"] == "invalid"
    (error,) = verdict["errors"]
    assert (error["line"], error["ply"], error["move"]) == (15, 15, "15.  P  7f-7e")
    db = tmp_path / "a.db"
    code, summary = cli("import", "--json", "--db", db, "--variant", "chu-shogi", record, bad)
    assert code == 0 and (summary["stored"], summary["imported"], summary["invalid"], summary["plies"]) == (2, 1, 1, 19)
    assert [f["format"] for f in summary["files"]] == ["tnj", "tnj"]


def test_validate_and_import_the_programs_records(tmp_path):
    tenjiku()
    files = [REAL / "other" / name for name in TENJIKU]
    code, verdicts = cli("validate", "--json", *files)
    assert code == 1  # the commented analysis is refused
    got = {Path(v["file"]).name: (v["status"], v["ply_count"]) for v in verdicts}
    plies = {name: manifest()[f"other/{name}"][1][0] for name in MACHINE_READABLE}
    assert got == {**{name: ("valid", n) for name, n in plies.items()},
                   "tenjiku_luckydog-comments.txt": ("invalid", 0)}
    (refusal,) = [v for v in verdicts if v["status"] == "invalid"]
    assert refusal["errors"][0]["line"] == 1 and "commented analysis" in refusal["errors"][0]["message"]
    db = tmp_path / "a.db"
    code, summary = cli("import", "--json", "--db", db, *files)
    assert code == 0 and (summary["stored"], summary["imported"], summary["invalid"]) == (6, 5, 1)
    assert summary["plies"] == sum(plies.values())
    code, again = cli("import", "--json", "--db", db, *files)
    assert (again["imported"], again["duplicates"]) == (0, 6)  # the same games (the refused one too): nothing new


# --- burns written and burns removed -------------------------------------------------------------


def _burning_plies(text: str) -> dict:
    """Ply -> the enemy pieces a move of the record burns, from the replay by hand: the pieces the
    other side loses beyond a capture on the destination."""
    before = {sq: s for sq, (_p, s) in _program_board().items()}
    out = {}
    for ply, (line, after) in enumerate(zip(text.splitlines(), _replayed_by_hand(text)), start=1):
        enemy = ply % 2  # Black (0) moves at odd plies
        lost = sum(1 for s in before.values() if s == enemy) - sum(1 for s in after.values() if s == enemy)
        captured = 1 if _squares(line.split(".", 1)[-1])[-1] in before else 0
        if lost > captured:
            out[ply] = lost - captured
        before = after
    return out


def test_a_wrong_burn_count_is_caught_at_its_ply():
    tenjiku()
    name = "tenjiku_inftest.txt"
    text = (REAL / "other" / name).read_text(encoding="ascii")
    burning = _burning_plies(text)
    assert len(burning) >= 2
    for ply, burned in burning.items():
        right = changed(ply, text.splitlines()[ply - 1] + f"x!{burned}", text)
        assert program_record(name, right).valid, ply
        wrong_line = text.splitlines()[ply - 1] + f"x!{burned - 1}"
        game = program_record(name, changed(ply, wrong_line, text))
        error = first_error(game)
        assert (error.line, error.ply, error.move) == (ply, ply, wrong_line.strip())
        assert error.message == f"the move burns {burned} piece{'s' * (burned != 1)}, the record says x!{burned - 1}"
        assert error.expected == f"x!{burned}" and len(game.mainline_moves()) == ply - 1


def test_an_lsn_record_with_one_burn_removed_is_caught_at_that_ply():
    tenjiku()
    from daikifu.formats.reading import write_record
    from daikifu.replay.notation import move_notation
    name = "tenjiku_inftest.txt"
    game = program_record(name)
    lsn = write_record(game, "lsn").decode()
    burning = _burning_plies((REAL / "other" / name).read_text(encoding="ascii"))
    board = game.start_board()
    for ply, move in enumerate(game.mainline_moves(), start=1):
        if ply in burning:
            written = move_notation(board, move)
            count = re.search(r"x!(\d+)", written)
            if count:  # a burn count: one less
                less = written.replace(count.group(0), f"x!{int(count.group(1)) - 1}")
            else:  # the burned squares, written as captures on the way: the last left out
                destination = re.findall(r"[a-p]\d{1,2}", written)[-1]
                burn = [m for m in re.finditer(r"x([a-p]\d{1,2})", written) if m.group(1) != destination][-1]
                less = written[:burn.start()] + written[burn.end():]
            assert less != written and lsn.count(f" {written}") == 1, written
            (bad,) = read_record(lsn.replace(f" {written}", f" {less}").encode(), fmt="lsn", name="g.lsn")
            error = first_error(bad)
            assert (error.ply, error.move) == (ply, less), str(error)
            assert len(bad.mainline_moves()) == ply - 1
        board.push(move)


def test_the_programs_rule_switches_are_the_variants_options():
    tenjiku()
    name = "tenjiku_23FiD5d.txt"
    text = (REAL / "other" / name).read_text(encoding="ascii")
    assert program_record(name).options["jumping-generals"] == "blocker"  # the terminal program's default
    # under the TSA leaflet's reading the Rook General may not take the Rook General it meets after a jump
    game = program_record(name, "tsa\n" + text)
    assert game.options["jumping-generals"] == "tsa"
    error = first_error(game)
    assert (error.line, error.ply, error.move) == (11, 10, "10. RGn 7dx7m+") and "illegal move" in error.message
    assert program_record(name, "ew\nclassic\n" + text).options["lion-hawk"] == "area"
    late = first_error(program_record(name, changed(5, "tsa", text)))
    assert late.line == 5 and "rule switch 'tsa'" in late.message
