"""Bad and hostile input (issue 15): numbers out of range, tag names that must round-trip, limits
that refuse huge records at once, errors located even for game-level problems."""

from __future__ import annotations

import io
import json
import tracemalloc
from pathlib import Path

import pytest

from daikifu.archive.store import make_record
from daikifu.formats.game import Game
from daikifu.formats.kif import read_kif
from daikifu.formats.limits import ReadLimits
from daikifu.formats.lsn import read_game, read_games, write_game
from daikifu.formats.reading import read_record

REAL_KIF = sorted((Path(__file__).parent / "data" / "real" / "kif").iterdir())
GAME = '[Variant "shogi"]\n[Event "{event}"]\n\n1. P-c4 P-c6 *\n'


def games_of(*bodies: str) -> str:
    """A file of shogi games: each body is the movetext after the tags."""
    return "\n".join(f'[Variant "shogi"]\n[Event "game {i}"]\n\n{body}\n' for i, body in enumerate(bodies, 1))


def only_error(game):
    errors = [e for e in game.errors if e.kind == "error"]
    assert len(errors) == 1, game.errors
    return errors[0]


# --- numbers ------------------------------------------------------------------------------------


def test_a_nag_of_5000_digits_is_an_error_at_its_place_and_the_other_games_are_read():
    text = games_of("1. P-c4 P-c6 *", "1. P-c4 $" + "9" * 5000 + " P-c6 *", "1. P-c4 *")
    games = list(read_games(text))
    assert [g.valid for g in games] == [True, False, True]
    err = only_error(games[1])
    assert (err.game, err.line, err.column) == (2, 9, 9)
    assert "5000 digits" in err.message and "0 to 255" in err.message


@pytest.mark.parametrize("movetext, column", [("1. P-c4 $256 *", 9), ("1. P-c4$1$300 *", 10)])
def test_a_nag_above_255_is_an_error_at_its_column(movetext, column):
    err = only_error(next(read_games(games_of(movetext))))
    assert (err.line, err.column) == (4, column)
    assert "out of range" in err.message


def test_a_nag_out_of_range_is_a_warning_in_lenient_mode_and_the_moves_go_on():
    game = next(read_games(games_of("1. P-c4 $9999999999999 P-c6 *"), lenient=True))
    assert game.valid and len(game.mainline_moves()) == 2
    assert [e.kind for e in game.errors] == ["warning"]


# --- tag names ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["終了日時", "持ち時間", "Time Control", "50%", 'say "hi"', "a]b", "x\\y", "%41"])
def test_any_tag_name_is_written_and_read_back(name):
    game = Game("shogi")
    game.headers[name] = "value"
    game.headers["終了" + name] = "other"
    back = list(read_games(write_game(game)))
    assert len(back) == 1
    assert back[0].headers == game.headers


def test_two_japanese_tag_names_stay_one_game():
    game = Game("shogi")
    game.headers["終了日時"] = "2021/06/30"
    game.headers["持ち時間"] = "8時間"
    text = write_game(game)
    assert "[終了日時 " in text
    back = list(read_games(text))
    assert len(back) == 1 and back[0].headers == game.headers


@pytest.mark.parametrize("path", REAL_KIF, ids=lambda p: p.name)
def test_real_kif_to_lsn_and_back_keeps_tags_and_digest(path):
    game = read_kif(path.read_bytes(), source=path.name)[0]
    back = list(read_games(write_game(game)))
    assert len(back) == 1
    assert back[0].headers == game.headers
    assert back[0].valid == game.valid
    before, after = make_record(game), make_record(back[0])
    assert after.digest == before.digest
    assert after.tags == before.tags


# --- limits -------------------------------------------------------------------------------------


def test_many_comments_after_one_move_are_joined_in_order():
    game = next(read_games(games_of("1. P-c4 " + "{a} {b}" * 5000 + " P-c6 *")))
    assert game.valid
    assert game.next().comment == " ".join(["a", "b"] * 5000)


def test_a_long_comment_costs_memory_in_proportion():
    size = 2_000_000
    text = games_of("1. P-c4 {" + "ab\\}" * (size // 4) + "} *")
    tracemalloc.start()
    try:
        game = next(read_games(text, limits=ReadLimits(max_comment=size + 1)))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert game.valid and len(game.next().comment) == size * 3 // 4
    assert peak < 10 * len(text)


def test_a_long_tag_value_costs_memory_in_proportion():
    value = 'x\\"' * 700_000
    text = f'[Variant "shogi"]\n[Event "{value}"]\n\n1. P-c4 *\n'
    tracemalloc.start()
    try:
        game = next(read_games(text))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert game.valid and game.headers["Event"] == 'x"' * 700_000
    assert peak < 10 * len(text)


def test_a_comment_over_the_limit_is_refused_with_its_place():
    text = games_of("1. P-c4 P-c6 *", "1. P-c4 {" + "a" * 101 + "} P-c6 *", "1. P-c4 *")
    games = list(read_games(text, limits=ReadLimits(max_comment=100), lenient=True))
    assert [g.valid for g in games] == [True, False, True]
    err = only_error(games[1])
    assert (err.line, err.column) == (9, 9) and "limit of 100" in err.message


def test_a_line_over_the_limit_is_refused_and_not_kept():
    text = games_of("1. P-c4 P-c6 *", "1. P-c4 {" + "a" * 500 + "} P-c6 *", "1. P-c4 *")
    games = list(read_games(io.StringIO(text), limits=ReadLimits(max_line=100)))
    assert [g.valid for g in games] == [True, False, True]
    err = only_error(games[1])
    assert (err.line, err.column) == (9, 101) and "517 characters" in err.message
    assert len(games[1].source) < 200


def test_a_game_over_the_record_limit_is_refused_and_the_next_is_read():
    text = games_of("1. P-c4 P-c6 *", "1. P-c4 P-c6\n" * 50 + "*", "1. P-c4 *")
    games = list(read_games(text, limits=ReadLimits(max_record=300)))
    assert [g.valid for g in games] == [True, False, True]
    err = only_error(games[1])
    assert err.game == 2 and err.line > 9 and "limit of 300" in err.message
    assert games[2].headers["Event"] == "game 3"


def test_variations_nested_over_the_limit_are_refused():
    body = "1. P-c4 " + "(1. P-g4 " * 6 + ")" * 6 + " *"
    assert next(read_games(games_of(body), limits=ReadLimits(max_depth=6))).errors == []
    err = only_error(next(read_games(games_of(body), limits=ReadLimits(max_depth=5))))
    assert (err.line, err.column) == (4, 9 + 9 * 5) and "limit of 5" in err.message


def test_limits_from_the_command_line_form():
    assert ReadLimits.from_pairs(["comment=7", "record=9"]) == ReadLimits(max_comment=7, max_record=9)
    with pytest.raises(ValueError, match="positive whole number"):
        ReadLimits.from_pairs(["line=" + "9" * 5000])


# --- game-level errors carry a line ---------------------------------------------------------------


def test_game_level_errors_name_the_line_also_in_game_2():
    text = (GAME.format(event="one") + "\n[Event \"two\"]\n[Site \"x\"]\n\n1. P-c4 *\n"
            + '\n[Variant "no-such-variant"]\n\n1. P-c4 *\n'
            + '\n[Variant "shogi"]\n[Event "four"]\n[SetUp "1"]\n[SFEN "not a position"]\n\n*\n'
            + '\n[Variant "shogi"]\n[RuleSet "nonsense"]\n\n*\n')
    games = list(read_games(text))
    assert [g.valid for g in games] == [True, False, False, False, False]
    located = [(only_error(g).game, only_error(g).line) for g in games[1:]]
    assert located == [(2, 6), (3, 11), (4, 18), (5, 23)]


def test_doctests_of_the_reader_and_its_limits():
    import doctest

    from daikifu.formats import limits, lsn
    for module in (limits, lsn):
        assert doctest.testmod(module).failed == 0


# --- one bad game costs no other ----------------------------------------------------------------

SAMPLE = Path(__file__).resolve().parent.parent / "data" / "sample" / "shogi.lsn"


@pytest.mark.parametrize("jobs", [1, 2])
def test_import_stores_every_valid_game_around_a_hostile_one(tmp_path, jobs):
    from daikifu.archive.importer import import_paths
    from daikifu.archive.store import Archive

    sample = SAMPLE.read_text(encoding="utf-8")
    expected = sum(1 for g in read_games(sample) if g.valid)
    path = tmp_path / "mixed.lsn"
    path.write_text(sample + "\n" + games_of("1. P-c4 $" + "9" * 5000 + " P-c6 *") + "\n" + GAME.format(event="after"),
                    encoding="utf-8")
    with Archive(tmp_path / "a.db") as archive:
        summary = import_paths(archive, [str(path)], jobs=jobs)
        stored = archive.conn.execute("SELECT count(*) FROM games WHERE status = 'valid'").fetchone()[0]
    counts = summary.files[0]
    assert stored == expected + 1 and counts.imported == expected + 1 and counts.invalid == 1
    assert "out of range" in counts.errors[0]["message"] and counts.errors[0]["column"] == 9


def test_a_game_whose_reading_fails_is_an_invalid_game_and_the_next_is_read(monkeypatch):
    from daikifu.formats import lsn

    real = lsn.quick_move  # every move text read is tried by it first

    def quick_move(board, tok):
        if tok == "P-g4":
            raise RuntimeError("a bug")
        return real(board, tok)

    monkeypatch.setattr(lsn, "quick_move", quick_move)
    games = list(read_games(games_of("1. P-c4 *", "1. P-g4 *", "1. P-c4 P-c6 *")))
    assert [g.valid for g in games] == [True, False, True]
    err = only_error(games[1])
    assert (err.game, err.line) == (2, 6) and "RuntimeError: a bug" in err.message


# --- the command line ---------------------------------------------------------------------------


def _cli(*args):
    from click.testing import CliRunner

    from daikifu.cli import main
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_validate_reports_a_huge_nag_at_its_place_and_goes_on(tmp_path):
    path = tmp_path / "nag.lsn"
    path.write_text(games_of("1. P-c4 *", "1. P-c4 $" + "9" * 5000 + " *", "1. P-c4 P-c6 *"), encoding="utf-8")
    result = _cli("validate", "--json", str(path))
    assert result.exit_code == 1 and "Traceback" not in result.output
    verdicts = json.loads(result.output)
    assert [v["status"] for v in verdicts] == ["valid", "invalid", "valid"]
    assert (verdicts[1]["errors"][0]["line"], verdicts[1]["errors"][0]["column"]) == (9, 9)


def test_validate_limits_are_set_on_the_command_line(tmp_path):
    path = tmp_path / "comment.lsn"
    path.write_text(games_of("1. P-c4 {twelve chars} *"), encoding="utf-8")
    assert _cli("validate", str(path)).exit_code == 0
    result = _cli("validate", "--json", "--limit", "comment=5", str(path))
    assert result.exit_code == 1 and "over the limit of 5" in result.output
    bad = _cli("validate", "--limit", "size=5", str(path))
    assert bad.exit_code == 2 and "unknown limit 'size'" in bad.output


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_import_limits_are_set_on_the_command_line(tmp_path, jobs):
    path = tmp_path / "comment.lsn"
    path.write_text(games_of("1. P-c4 {a comment of thirty characters} *", "1. P-g4 *"), encoding="utf-8")
    db = str(tmp_path / "games.db")
    result = _cli("import", str(path), "--db", db, "--jobs", jobs, "--json", "--limit", "comment=20")
    summary = json.loads(result.output)
    assert (summary["imported"], summary["invalid"]) == (1, 1)  # the other game is stored all the same
    (error,) = summary["errors"]
    assert "over the limit of 20" in error["message"] and error["line"] == 4 and error["game"] == 1
    assert _cli("import", str(path), "--db", db, "--limit", "size=5").exit_code == 2


@pytest.mark.slow
def test_validate_holds_one_game_at_a_time(tmp_path):
    """Memory of validate grows with the number of games only by their small verdicts (it held
    every game: 3 GB for 72,000)."""
    cycle = ["K-e2", "K-e8", "K-e1", "K-e9"]
    moves = " ".join(f"{i // 2 + 1}. {cycle[i % 4]}" if i % 2 == 0 else cycle[i % 4] for i in range(60))
    game = games_of(moves + " *")

    def peak(count):
        path = tmp_path / f"{count}.lsn"
        path.write_text((game + "\n") * count, encoding="utf-8")
        tracemalloc.start()
        try:
            assert _cli("validate", str(path)).exit_code == 0
            return tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()

    peak(5)  # variant and rules loaded once
    small, large = peak(100), peak(1100)
    per_game = (large - small) / 1000
    assert per_game < 10 * len(game)  # a game of 60 plies kept whole is about 40 KB


def test_show_ply_of_a_long_game_reads_only_that_far(tmp_path, monkeypatch):
    from daikifu.archive import commands
    from daikifu.archive.store import Archive

    monkeypatch.setattr(commands, "LONG_GAME", 20)
    cycle = ["K-e2", "K-e8", "K-e1", "K-e9"]
    moves = " ".join(f"{i // 2 + 1}. {cycle[i % 4]}" if i % 2 == 0 else cycle[i % 4] for i in range(60))
    path, db = tmp_path / "long.lsn", tmp_path / "long.db"
    path.write_text(games_of(moves + " *"), encoding="utf-8")
    with Archive(db) as archive:
        from daikifu.archive.importer import import_paths
        import_paths(archive, [str(path)])
    shown = json.loads(_cli("show", "1", "--ply", "30", "--json", "--db", str(db)).output)
    assert len(shown["moves"]) == 30 and shown["moves_complete"] is False and shown["ply"] == 30
    monkeypatch.setattr(commands, "LONG_GAME", 2000)
    whole = json.loads(_cli("show", "1", "--ply", "30", "--json", "--db", str(db)).output)
    assert len(whole["moves"]) == 60 and whole["moves_complete"] is True
    assert shown["position"] == whole["position"] and shown["moves"] == whole["moves"][:30]
    text = _cli("show", "1", "--ply", "30", "--db", str(db)).output
    assert "30 more plies" not in text
    monkeypatch.setattr(commands, "LONG_GAME", 20)
    assert "30 more plies" in _cli("show", "1", "--ply", "30", "--db", str(db)).output


# --- memory of long games and large files -----------------------------------------------------


def test_a_large_lsn_file_is_read_as_it_streams_with_the_games_of_the_whole_bytes():
    """read_stream gives what read_record gives for the same bytes (a byte-order mark, a byte that
    is not UTF-8 warned at its line), and it has yielded the first game of a 1 MB file long before
    the file is read."""
    from daikifu.formats.reading import HEAD_BYTES, read_record, read_stream
    from daikifu.formats.validate import verdict

    body = "1. P-c4 P-c6 2. P-g4 P-g6 *"
    data = b"\xef\xbb\xbf" + games_of(*[body] * 6000).encode()
    bad = data.index(b'[Event "game 5000"]') + len(b'[Event "')
    data = data[:bad] + b"\xff" + data[bad:]  # game 5000's Event tag holds a bad byte
    assert len(data) > 5 * HEAD_BYTES

    class Counting(io.BytesIO):
        def read(self, size=-1):
            chunk = super().read(size)
            self.given = getattr(self, "given", 0) + len(chunk)
            return chunk

    stream = Counting(data)
    games = read_stream(stream, name="big.lsn")
    first = next(games)
    assert stream.given < 3 * HEAD_BYTES
    streamed = [verdict(first, "big.lsn")] + [verdict(g, "big.lsn") for g in games]
    whole = [verdict(g, "big.lsn") for g in read_record(data, name="big.lsn")]
    assert streamed == whole and len(whole) == 6000
    [warning] = whole[4999]["warnings"]
    assert warning["line"] == 4999 * 5 + 2 and warning["column"] == 9
    assert all(v["status"] == "valid" for v in whole)


@pytest.mark.slow
def test_a_long_game_costs_a_bounded_memory_per_ply():
    """Reading and validating a 20,000-ply game: at most 600 bytes a ply at the peak (it was
    about 800; benchmarks/memory.py measures validate and import, docs/scaling.md)."""
    from daikifu.formats.reading import read_record
    plies = 20_000
    cycle = ["S-d2", "S-f8", "S-c1", "S-g9"]
    moves = " ".join(f"{i // 2 + 1}. {cycle[i % 4]}" if i % 2 == 0 else cycle[i % 4] for i in range(plies))
    data = games_of(moves + " *").encode()
    list(read_record(games_of("1. P-c4 *").encode()))  # the rules compiled outside the measure
    tracemalloc.start()
    try:
        [game] = read_record(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert game.valid and len(game.mainline_moves()) == plies
    assert peak / plies < 600


# --- times --------------------------------------------------------------------------------------

KIF_TIMES = """手合割：平手
手数----指手---------消費時間--
   1 ７六歩(77)   ( 0:01/00:00:01)
   2 ３四歩(33)   {time}
   3 ２六歩(27)   ( 0:02/00:00:03)
"""


@pytest.mark.parametrize("time, column, message", [
    ("( 0:75/00:01:15)", 18, "time of the move: seconds out of range: 75, not 0 to 59"),
    ("( 0:02/00:00:75)", 23, "total time: seconds out of range: 75, not 0 to 59"),
    ("( 0:02/00:75:02)", 23, "total time: minutes out of range: 75, not 0 to 59"),
    ("(1:75:00/00:00:02)", 17, "time of the move: minutes out of range: 75, not 0 to 59"),
    ("(1234567:02/00:00:02)", 17, "time of the move: minutes out of range: 1234567, not 0 to 599940"),
    ("( 0:" + "9" * 5000 + "/00:00:02)", 18, "time of the move: seconds out of range: a number of 5000 digits"),
    ("( 0:02/" + "9" * 5000 + ":00:02)", 23, "total time: hours out of range: a number of 5000 digits"),
])
def test_a_kif_time_out_of_range_is_an_error_at_its_place_and_the_moves_are_read(time, column, message):
    data = KIF_TIMES.replace("{time}", time).encode()
    [game] = read_record(data, name="times.kif")
    error = only_error(game)
    assert (error.line, error.column, error.ply, error.move) == (4, column, 2, "３四歩(33)")
    assert error.message.startswith(message)
    assert len(game.mainline_moves()) == 3 and game.next().next().comment == ""  # the time left out
    [lenient] = read_record(data, name="times.kif", lenient=True)
    assert lenient.valid and [w.column for w in lenient.warnings()] == [column]


def test_kif_times_in_range_are_read():
    [game] = read_record(KIF_TIMES.replace("{time}", "(75:02/01:15:03)").encode())
    assert game.valid and game.next().next().comment == "[%emt 1:15:02][%kiftotal 1:15:03]"


@pytest.mark.parametrize("text, expected", [
    ("( 0:05/00:00:05)", ((5, 5), None)),
    ("(12:34)", ((754, None), None)),
    ("(9999:59/9999:59:59)", ((599999, 35999999), None)),  # the longest the short form reads
    ("(10000:00)", ((600000, None), None)),
    ("(1:02:03/1:02:03)", ((3723, 3723), None)),
    ("(\t0:05)", ((5, None), None)),
    ("( 0:60)", (None, ("time of the move: seconds out of range: 60, not 0 to 59", 3))),
    ("(1:02/00:60:00)", (None, ("total time: minutes out of range: 60, not 0 to 59", 7))),
    ("(１:02)", (None, ("time of the move: minutes: not a number: '１', not 0 to 599940", 2))),
    ("(0:02/10000:00:00)", (None, ("total time: hours out of range: 10000, not 0 to 9999", 7))),
])
def test_kif_times_read_by_the_short_form_or_checked_in_full(text, expected):
    """(``expected``: the column of a problem counted from the time's opening parenthesis.)"""
    from daikifu.formats.kakinoki.common import RE_TIME
    from daikifu.formats.kakinoki.lines import move_time, read_time
    assert read_time(RE_TIME.search(text), 1) == expected  # the full check
    time, problem = expected
    if problem is not None:
        problem = (problem[0], problem[1] + 9)
    assert move_time("７六歩(77)  " + text, 1) == (time, problem, 9)


@pytest.mark.parametrize("now, message", [
    ('{"m": 0, "s": 75}', "time of the move: seconds out of range: 75, not 0 to 59"),
    ('{"h": 1, "m": 60, "s": 0}', "time of the move: minutes out of range: 60, not 0 to 59"),
    ('{"m": 1e400, "s": 0}', "time of the move: minutes: not a whole number: 'inf'"),
    ('{"m": -1, "s": 0}', "time of the move: minutes out of range: -1"),
])
def test_a_jkf_time_out_of_range_is_an_error_on_its_line(now, message):
    text = ('{"header": {},\n "moves": [{},\n  {"move": {"from": {"x": 7, "y": 7}, "to": {"x": 7, "y": 6}, '
            '"piece": "FU"}},\n  {"move": {"from": {"x": 3, "y": 3}, "to": {"x": 3, "y": 4}, "piece": "FU"}, '
            '"time": {"now": ' + now + '}}]}\n')
    [game] = read_record(text.encode(), name="times.jkf")
    error = only_error(game)
    assert (error.line, error.ply) == (4, 2) and error.message.startswith(message)
    assert len(game.mainline_moves()) == 2


# --- control characters (issue 24): refused where read, never written ------------------------------


def _nul_record() -> bytes:
    """A shogi game whose Site holds a NUL after the first 4 KB (the format is still recognised)."""
    return ('[Variant "Shogi"]\n[Event "' + "x" * 5000 + '"]\n[Site "a\x00b"]\n[Result "*"]\n\n'
            "1. P-c4 P-c6 *\n").encode("utf-8")


def test_a_nul_in_a_tag_is_an_error_at_its_line_and_column():
    (game,) = read_record(_nul_record(), name="nul.lsn")
    assert not game.valid
    (err,) = [e for e in game.errors if e.kind == "error"]
    assert (err.file, err.line, err.column) == ("nul.lsn", 3, 9) and "U+0000" in err.message


@pytest.mark.parametrize("char", ["\x00", "\x07", "\x1b", "\x7f"])
def test_a_control_character_in_a_kif_comment_or_csa_name_is_refused(char):
    kif = f"先手：A\n後手：B\n手数----指手---------消費時間--\n   1 ７六歩(77)\n*note{char}here\n".encode()
    (game,) = read_record(kif, name="c.kif", fmt="kif")  # (a NUL in the first 4 KB: "not a record")
    err = next(e for e in game.errors if e.kind == "error")
    assert (err.line, err.column) == (5, 6) and f"U+{ord(char):04X}" in err.message
    (game,) = read_record(f"V2.2\nN+A{char}\nN-B\nPI\n+\n+7776FU\n".encode(), name="c.csa", fmt="csa")
    assert not game.valid and next(e for e in game.errors if e.kind == "error").line == 2


def test_a_dos_end_of_file_mark_ending_a_kif_file_is_no_control_character():
    kif = "先手：A\n後手：B\n手数----指手---------消費時間--\n   1 ７六歩(77)\n\x1a".encode()
    (game,) = read_record(kif, name="eof.kif")
    assert not any("control character" in e.message for e in game.errors)


def test_a_json_record_holding_an_escaped_nul_is_refused():
    data = json.dumps({"variant": "shogi", "tags": [["Site", "a\x00b"]], "moves": []})
    assert "\\u0000" in data
    (game,) = read_record(data.encode(), name="g.json")
    assert not game.valid and "U+0000" in game.errors[0].message


@pytest.mark.parametrize("fmt", ["lsn", "kif", "csa", "jkf", "usi", "json"])
def test_no_writer_writes_a_control_character(fmt):
    from daikifu.formats.reading import UnsupportedConversion, write_record
    game = Game.from_moves("shogi", [], headers={"Site": "a\x00b"})
    with pytest.raises(UnsupportedConversion, match="U\\+0000"):
        write_record(game, fmt)
    game = read_game('[Variant "Shogi"]\n\n1. P-c4 {ok} P-c6 *\n')
    game.next().next().comment = "bad\x01"
    with pytest.raises(UnsupportedConversion, match="ply 2 holds the control character U\\+0001"):
        write_record(game, fmt)


def test_validate_names_the_place_of_a_nul(tmp_path):
    src = tmp_path / "nul.lsn"
    src.write_bytes(_nul_record())
    result = _cli("validate", str(src))
    assert result.exit_code == 1 and f"{src}:3:9" in result.output and "U+0000" in result.output


# --- nesting (issue 24): JKF and daikifu JSON nested 100,000 deep -----------------------------------


def _deep_jkf(depth: int) -> str:
    move = '{"from": {"x": 7, "y": 7}, "to": {"x": 7, "y": 6}, "piece": "FU"}'
    return '{"header": {}, "moves": [{}, {"move": %s, "forks":\n%s%s}]}' % (move, "[" * depth, "]" * depth)


def _deep_json(depth: int) -> str:
    return '{"variant": "shogi", "moves": [{"uci": "7g7f", "variations":\n%s%s}]}' % ("[" * depth, "]" * depth)


@pytest.mark.parametrize("make, name", [(_deep_jkf, "deep.jkf"), (_deep_json, "deep.json")])
def test_json_nested_100000_deep_is_an_error_at_its_place(make, name):
    (game,) = read_record(make(100_000).encode(), name=name)
    err = game.errors[0]
    limit = ReadLimits().max_json_depth
    assert not game.valid and "nested deeper than" in err.message and err.line == 2
    # the bracket that goes one level too deep: the record's own levels come before line 2
    head = make(0).split("\n")[0]
    before = head.count("[") + head.count("{") - head.count("]") - head.count("}")
    assert err.column == limit - before + 1
    (lower,) = read_record(make(100_000).encode(), name=name, limits=ReadLimits(max_depth=10))
    assert lower.errors[0].column == ReadLimits(max_depth=10).max_json_depth - before + 1


def test_nesting_within_the_limit_is_read():
    (game,) = read_record(_deep_jkf(200).encode(), name="ok.jkf")
    assert "nested deeper" not in " ".join(e.message for e in game.errors)


@pytest.mark.parametrize("jobs", [1, 2])
def test_import_of_a_deep_jkf_stores_the_other_file(tmp_path, jobs):
    from daikifu.archive.importer import import_paths
    from daikifu.archive.store import Archive
    deep = tmp_path / "deep.jkf"
    deep.write_text(_deep_jkf(100_000), encoding="utf-8")
    ok = tmp_path / "ok.lsn"
    ok.write_text(GAME.format(event="ok"), encoding="utf-8")
    with Archive(tmp_path / "a.db") as archive:
        import_paths(archive, [str(deep), str(ok)], jobs=jobs)
        valid = archive.conn.execute("SELECT count(*) FROM games WHERE status = 'valid'").fetchone()[0]
    assert valid == 1


def test_validate_of_deep_json_reports_without_a_traceback(tmp_path):
    deep = tmp_path / "deep.json"
    deep.write_text(_deep_json(100_000), encoding="utf-8")
    result = _cli("validate", str(deep))
    assert result.exit_code == 1 and "nested deeper than" in result.output and "Traceback" not in result.output


def test_web_import_of_deep_jkf_is_no_server_error(tmp_path):
    from daikifu.archive.store import Archive
    from daikifu.web import create_app
    db = tmp_path / "w.db"
    Archive(db).close()
    client = create_app(db, allow_import=True).test_client()
    r = client.post("/api/import", json={"text": _deep_jkf(100_000), "name": "deep.jkf"})
    assert r.status_code == 200
    (game,) = r.get_json()["games"]
    assert (game["status"], game["error"]["code"], game["error"]["line"]) == ("invalid", "too-deep", 2)


def test_a_nul_in_a_streamed_lsn_file_is_found_in_its_game():
    from daikifu.formats.reading import HEAD_BYTES, read_stream
    game = '[Variant "Shogi"]\n[Result "*"]\n\n1. P-c4 P-c6 *\n\n'
    data = (game * (HEAD_BYTES // len(game) + 10) + '[Variant "Shogi"]\n[Site "a\x00b"]\n\n1. P-c4 *\n').encode()
    games = list(read_stream(io.BytesIO(data), name="big.lsn"))
    assert [g.number for g in games if not g.valid] == [len(games)]
    err = games[-1].errors[0]
    assert (err.line, err.column, err.code) == (data.count(b"\n", 0, data.index(b"\x00")) + 1, 9, "control-character")
