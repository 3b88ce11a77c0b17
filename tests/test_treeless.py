"""Reading without a move tree: ``validate`` and ``import`` read games through visitors that keep
no node per ply (formats.visitor.MainLineBuilder, the importer's _RecordBuilder).  What they give must
be exactly what the whole game gives: the same verdicts and the same records, field by field."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from daikifu.archive import importer
from daikifu.archive.importer import _lsn_records, _Reading, _RecordBuilder, _whole_records, import_paths
from daikifu.archive.store import Archive, Record, make_record
from daikifu.cli import main as cli
from daikifu.formats.lsn import read_game, read_games
from daikifu.formats.visitor import MainLineBuilder
from daikifu.formats.reading import NotARecordError, read_record, record_text, setup_dir_of
from daikifu.formats.validate import verdict, verdicts

from format_support import NOT_A_RECORD

ROOT = Path(__file__).resolve().parents[1]
FILES = sorted(p for folder in (ROOT / "data" / "sample", ROOT / "tests" / "data" / "real")
               for p in folder.rglob("*") if p.is_file() and p.suffix not in (".md", ".fsy"))
FIELDS = Record.__slots__


def _games(path: Path, lenient: bool, visitor=None):
    return list(read_record(path.read_bytes(), name=str(path), lenient=lenient, setup_dir=setup_dir_of(str(path)),
                            visitor=visitor))


def _fields(rec: Record) -> dict:
    return {f: getattr(rec, f) for f in FIELDS}


def _format(path: Path) -> str | None:
    try:
        return record_text(path.read_bytes(), name=str(path))[1]
    except NotARecordError:
        return None


RECORDS = [p for p in FILES if _format(p) is not None]  # (Tenjiku's .txt files are no record daikifu reads)


def test_the_files_cover_every_format_read_with_a_visitor():
    found = {_format(p) for p in RECORDS}
    assert {"lsn", "kif", "ki2", "csa", "jkf", "usi", "csg"} <= found


@pytest.mark.parametrize("lenient", [False, True], ids=["strict", "lenient"])
@pytest.mark.parametrize("path", RECORDS, ids=lambda p: str(p.relative_to(ROOT)))
def test_records_without_a_tree_equal_the_records_of_the_whole_games(path, lenient):
    fmt = _format(path)
    expected = [_fields(make_record(g, fmt)) for g in _games(path, lenient)]
    how = _Reading(lenient=lenient)
    got = [_fields(r) for r in _whole_records([path.read_bytes()], str(path), fmt, how)]
    assert got == expected
    if fmt == "lsn":  # the streamed reading of the serial import
        text = path.read_text(encoding="utf-8")
        streamed = [_fields(r) for r in _lsn_records(how.lsn(text, str(path), _RecordBuilder), str(path))]
        assert streamed == expected


@pytest.mark.parametrize("lenient", [False, True], ids=["strict", "lenient"])
@pytest.mark.parametrize("path", RECORDS, ids=lambda p: str(p.relative_to(ROOT)))
def test_verdicts_without_a_tree_equal_the_verdicts_of_the_whole_games(path, lenient):
    expected = [verdict(g, str(path)) for g in _games(path, lenient)]
    got = list(verdicts(path.read_bytes(), str(path), lenient=lenient, setup_dir=setup_dir_of(str(path))))
    assert got == expected and got


@pytest.mark.parametrize("path", [ROOT / "data" / "sample" / "annotated.lsn",
                                  ROOT / "tests" / "data" / "real" / "kif" / "bioshogi_branch_gekisashi.kif"],
                         ids=["lsn", "kif"])
def test_the_visitor_keeps_no_move_tree(path):
    whole = _games(path, False)
    assert any(g.variations for g in whole)
    plies = [len(g.mainline_moves()) for g in whole]
    for visitor in (MainLineBuilder, _RecordBuilder):
        games = _games(path, False, visitor)
        assert [g.variations for g in games] == [[]] * len(whole)
        assert [g.mainline_plies for g in games] == plies


ANNOTATED = """[Variant "Shogi"]
[Result "*"]

{before the game} 1. P-c4 {first; [%clk 0:10:00]} $1 (1. P-g4 {a side line} (1. P-f4 {nested} 1... P-d6)
1... P-c6 {after the side move}) {after the variation} 1... P-g6 !? ({why not} 1... P-c6 $2 {other}
2. P-g4) 2. P-b4 {third} 2... Bxb2+ (2... P-d6 {declined} 3. P-d4 $14) 3. Sxb2 {end} *
"""


def _preorder(node) -> list:
    """Every comment of a tree, read the obvious way (the order the full-text row has always had)."""
    out = [c for c in (node.starting_comment if node.parent is not None else "", node.comment) if c]
    for child in node.variations:
        out.extend(_preorder(child))
    return out


def test_a_game_with_variations_comments_and_nags_gives_the_same_annotations_and_comments():
    game = read_game(ANNOTATED)
    assert game.valid and len(game.variations) == 3  # a side line and a nested one branch at move 1
    whole = make_record(game)
    [rec] = list(_lsn_records(read_games(ANNOTATED, visitor=_RecordBuilder), "x.lsn"))
    assert rec.comments.split("\n") == _preorder(game) == whole.comments.split("\n")
    assert rec.annotations == whole.annotations == [
        (0, None, "before the game", None, None),
        (1, "P-c4", "first; [%clk 0:10:00] after the variation", "1", "clk 0:10:00"),
        (2, "P-g6", None, "5", None),
        (3, "P-b4", "third", None, None),
        (5, "Sxb2", "end", None, None)]
    assert _fields(rec) == _fields(whole)
    assert rec.ply_count == 5 and rec.moves == whole.moves and len(rec.hashes) == 6


def test_lenient_games_dropped_variations_and_open_variations_give_the_same_records():
    texts = [  # a bad move in a variation (dropped), a variation left open, a bad main-line move
        '[Variant "Shogi"]\n[Result "*"]\n\n1. P-c4 {a} (1. P-g4 {b} 1... Kxa1 {c}) 1... P-c6 {d} 2. P-g4 *\n',
        '[Variant "Shogi"]\n[Termination "checkmate"]\n[Result "*"]\n\n1. P-c4 {a} (1. P-g4 {b} 1... P-c6 *\n',
        '[Variant "Shogi"]\n[Result "*"]\n\n1. P-c4 {a} P-c6 $3 2. Kxa9 {gone} P-g6 *\n',
    ]
    for text in texts:
        for lenient in (False, True):
            whole = [_fields(make_record(g)) for g in read_record(text, name="x.lsn", lenient=lenient)]
            streamed = [_fields(r) for r in _lsn_records(read_games(text, lenient=lenient, file="x.lsn",
                                                                    visitor=_RecordBuilder), "x.lsn")]
            assert streamed == whole, (text, lenient)
            expected = [verdict(g, "x.lsn") for g in read_record(text, name="x.lsn", lenient=lenient)]
            assert list(verdicts(text, "x.lsn", lenient=lenient)) == expected


def test_the_termination_claim_is_checked_at_the_end_of_the_main_line_when_a_variation_is_left_open():
    # a claim the position denies: the warning names the ply where the main line ends
    text = '[Variant "Shogi"]\n[Termination "checkmate"]\n[Result "*"]\n\n1. P-c4 P-c6 (1... P-g6 2. P-g4 *\n'
    for visitor in (None, MainLineBuilder):
        game = read_game(text, lenient=True, visitor=visitor)
        [warning] = [e for e in game.errors if "Termination" in e.message]
        assert warning.ply == 2  # the end of the main line (1. P-c4 P-c6), not of the open variation


def test_an_internal_error_while_storing_costs_only_that_game(monkeypatch):
    original = importer.record_of
    calls = []

    def failing(game, main, fmt="lsn"):
        calls.append(game.number)
        if len(calls) == 2:
            raise RuntimeError("boom")
        return original(game, main, fmt)

    monkeypatch.setattr(importer, "record_of", failing)
    text = (ROOT / "data" / "sample" / "shogi.lsn").read_text(encoding="utf-8")
    records = list(_lsn_records(read_games(text, visitor=_RecordBuilder), "shogi.lsn"))
    assert len(records) > 2
    bad = records[1]
    assert bad.status == "invalid" and "internal error while storing this game: RuntimeError: boom" in \
        bad.error["message"]
    assert bad.ply_count == len(list(read_games(text))[1].mainline_moves()) > 0
    assert [r.status for i, r in enumerate(records) if i != 1] == ["valid"] * (len(records) - 1)


def test_validate_json_and_text_are_written_as_before(tmp_path):
    paths = [ROOT / "data" / "sample" / "annotated.lsn", ROOT / "tests" / "data" / "real" / "malformed" /
             "kfjs_illegal_move.kif", ROOT / "tests" / "data" / "real" / "other" / "tsshogi_sample04.jkf"]
    other = tmp_path / "notes.txt"
    other.write_text("no record here\n")
    files = [str(p) for p in paths] + [str(other)]
    expected = [verdict(g, str(p)) for p in paths for g in _games(p, False)]
    runner = CliRunner()
    done = runner.invoke(cli, ["validate", "--json", *files])
    assert done.exit_code == 2
    listed = expected + [{"file": str(other), "status": "not-a-record",
                          "error": f"{other}: {NOT_A_RECORD}"}]
    assert done.stdout == json.dumps(listed, indent=2, ensure_ascii=False) + "\n"
    text = runner.invoke(cli, ["validate", *files[:3]])
    assert text.exit_code == 1
    assert text.stdout.splitlines()[0] == (f"{paths[0]}: game 1 ({expected[0]['variant']}): "
                                           f"{expected[0]['status']}, {expected[0]['ply_count']} plies")
    bad = sum(v["status"] != "valid" for v in expected)
    assert f"{len(expected)} games, {len(expected) - bad} valid, {bad} invalid" in text.stderr
    assert runner.invoke(cli, ["validate", "--json", str(tmp_path / "none.lsn")]).stdout == ""


def test_import_with_jobs_stores_the_same_games(tmp_path):
    sample = ROOT / "data" / "sample"
    csa = ROOT / "tests" / "data" / "real" / "csa"
    digests = []
    for jobs in (1, 2):
        archive = Archive(str(tmp_path / f"{jobs}.db"))
        summary = import_paths(archive, [str(sample), str(csa)], jobs=jobs)
        assert summary.games and not summary.interrupted
        digests.append(sorted((r[0], r[1], r[2]) for r in archive.conn.execute(
            "SELECT digest, ply_count, status FROM games")))
        archive.close()
    assert digests[0] == digests[1]


@pytest.mark.parametrize("jobs", [1, 2])
def test_an_import_stores_the_records_the_whole_games_give_also_with_undecodable_bytes(tmp_path, jobs):
    good = b'[Variant "Shogi"]\n[Result "*"]\n\n1. P-c4 {a\xff\xfe b} P-c6 (1... P-g6) 2. P-g4 *\n'
    bad = b'[Variant "Shogi"]\n[Result "*"]\n\n1. P-c4 P-c6 2. Kxa9 *\n'
    data = good + b"\n" + bad + b"\n" + good.replace(b"P-g4", b"P-f4")
    path = tmp_path / "games.lsn"
    path.write_bytes(data)
    archive = Archive(str(tmp_path / "a.db"))
    summary = import_paths(archive, [str(path)], jobs=jobs)
    assert summary.games == 3 and summary.invalid == 1
    stored = {r[0]: r[1:] for r in archive.conn.execute(
        "SELECT digest, ply_count, status, warnings, error, source_line FROM games")}
    expected = [make_record(g, "lsn") for g in read_record(data, name=str(path))]
    assert len(stored) == 3
    for rec in expected:
        ply_count, status, warnings, error, line = stored[rec.digest]
        assert (ply_count, status, line) == (rec.ply_count, rec.status, rec.source_line)
        assert (json.loads(warnings) if warnings else None) == rec.warnings
        assert (json.loads(error) if error else None) == rec.error
    assert any(w["message"].startswith("undecodable bytes") for rec in expected for w in rec.warnings or ())
