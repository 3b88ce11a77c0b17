"""KIF and KI2 round trips: every sample and real game written as KIF and as KI2 and read back keeps
its moves, result, variant, rule set and tags.

A tag with a KIF header field goes there (棋戦 Event, 開始日時 Date ...); one without goes into a
``key：value`` header line of its own name, which the reader restores, and so does a Termination
that the end of the moves cannot tell (an adjudication; KI2, which writes no special move).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from daikifu.formats.kif import read_kif, write_kif
from daikifu.formats.ki2 import read_ki2, write_ki2
from daikifu.formats.reading import UnsupportedConversion, read_record, write_record

ROOT = Path(__file__).resolve().parent.parent
SAMPLES = sorted((ROOT / "data" / "sample").glob("*.lsn"))
REAL = sorted(p for p in (ROOT / "tests" / "data" / "real").rglob("*")  # (.fsy: a setup; .txt: notes)
              if p.is_file() and p.suffix not in (".md", ".fsy", ".txt") and "malformed" not in p.parts)
FILES = SAMPLES + REAL


def _games(path: Path) -> list:
    return [g for g in read_record(path.read_bytes(), name=str(path)) if g.valid]


def _tags(game) -> dict:
    tags = dict(game.headers.items())
    # JKF's reader keeps KIF's 開始日時 under the key's own name; the KIF reader calls the text of
    # that line KifStartTime (beside the Date it holds)
    if "開始日時" in tags:
        tags["KifStartTime"] = tags.pop("開始日時")
    return tags


def _facts(game) -> tuple:
    return game.variant.slug, game.options, list(game.mainline_moves()), game.result


def _same_tags(game, back) -> None:
    tags, again = _tags(game), _tags(back)
    if "KifStartTime" in tags and "Date" not in tags:
        again.pop("Date", None)  # the date 開始日時 holds, a tag of its own once read as KIF
    assert again == tags


@pytest.mark.parametrize("fmt", ["kif", "ki2"])
@pytest.mark.parametrize("path", FILES, ids=[str(p.relative_to(ROOT)) for p in FILES])
def test_every_sample_and_real_game_comes_back_from_kif_and_ki2(path, fmt):
    games = _games(path)
    if not games:
        pytest.skip(f"{path.name}: no valid game to write (an unknown variant, or an impossible start position)")
    written = 0
    for game in games:
        try:
            data = write_record(game, fmt)
        except UnsupportedConversion:
            # KI2 is written for shogi's own pieces only (9x9, no Drunk Elephant); KIF writes every variant
            assert fmt == "ki2" and game.variant.slug != "shogi", path.name
            continue
        [back] = read_record(data, name=f"back.{fmt}")
        assert back.valid, back.errors
        assert _facts(back) == _facts(game), f"{path.name} game {game.number}"
        _same_tags(game, back)
        written += 1
    assert written or fmt == "ki2"


def test_a_termination_the_moves_cannot_tell_comes_back_from_a_header_line():
    text = '[Variant "Shogi"]\n[Result "1-0"]\n[Termination "adjudication"]\n\n1. P-c4 P-c6 1-0\n'
    [game] = read_record(text.encode(), name="a.lsn")
    kif = write_kif(game).decode()
    assert "Termination：adjudication" in kif.splitlines()
    assert read_kif(kif)[0].headers["Termination"] == "adjudication"
    ki2 = write_ki2(game).decode()
    assert read_ki2(ki2)[0].headers["Termination"] == "adjudication"


def test_a_termination_kif_writes_as_a_special_move_gets_no_header_line():
    text = '[Variant "Shogi"]\n[Result "0-1"]\n[Termination "resignation"]\n\n1. P-c4 P-c6 0-1\n'
    [game] = read_record(text.encode(), name="a.lsn")
    kif = write_kif(game).decode()
    assert "Termination" not in kif and "投了" in kif
    assert read_kif(kif)[0].headers["Termination"] == "resignation"


def test_the_moves_claim_wins_over_a_termination_header_line():
    kif = "Termination：adjudication\n手数----指手---------消費時間--\n1 ７六歩(77)\n2 投了\n"
    assert read_kif(kif)[0].headers["Termination"] == "resignation"


def test_a_date_kif_cannot_state_keeps_its_own_name():
    text = '[Variant "Shogi"]\n[Date "2026.8.23"]\n[Result "*"]\n\n1. P-c4 *\n'
    [game] = read_record(text.encode(), name="a.lsn")
    kif = write_kif(game).decode()
    assert "Date：2026.8.23" in kif.splitlines() and "開始日時" not in kif
    assert read_kif(kif)[0].headers["Date"] == "2026.8.23"
