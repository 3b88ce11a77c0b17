"""Mutation fuzzing of records with a fixed seed (issue 15): real LSN and KIF records with
characters deleted, repeated, swapped or replaced by hostile ones (braces, quotes, backslashes,
huge numbers, non-ASCII, NUL).  Whatever comes in, reading never raises, every error is located
at a line, and every move of an accepted game is legal when replayed independently."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from daikifu.formats.kif import KifError, read_kif
from daikifu.formats.lsn import read_games

DATA = Path(__file__).resolve().parent.parent / "data" / "sample"
REAL_KIF = Path(__file__).resolve().parent / "data" / "real" / "kif"
HOSTILE = ["{", "}", "(", ")", "[", "]", '"', "\\", "$", ";", "%", "\n", " ", "!", "?", "x", "*", "+", "=",
           "$" + "9" * 5000, "9" * 40, "{" + "a" * 3000, "\x00", "\ufffd", "終了", "\u3000", "[Variant \"x\"]\n",
           "(" * 150, "1.", "..."]


def mutate(text: str, rng: random.Random) -> str:
    chars = list(text)
    for _ in range(rng.randint(1, 6)):
        i = rng.randrange(len(chars) + 1)
        op = rng.random()
        if op < 0.3 and chars:
            del chars[min(i, len(chars) - 1)]
        elif op < 0.5:
            chars.insert(i, rng.choice(HOSTILE))
        elif op < 0.65 and i < len(chars):
            j = min(len(chars), i + rng.randint(1, 40))
            chars[i:i] = chars[i:j]  # a piece repeated
        elif chars:
            chars[min(i, len(chars) - 1)] = rng.choice(HOSTILE)
    return "".join(chars)


def check_game(game) -> None:
    for e in game.errors:
        if e.kind == "error":
            assert e.line is not None, e
    if game.valid:
        board = game.start_board()
        for move in game.mainline_moves():
            assert board.illegal_reason(move) is None, (board.position(), move)
            board.push(move)


def lsn_sources() -> list[str]:
    text = (DATA / "shogi.lsn").read_text(encoding="utf-8")
    games = text.split("\n[Variant")
    return [games[0], "[Variant" + games[1], (DATA / "annotated.lsn").read_text(encoding="utf-8")]


@pytest.mark.parametrize("seed", range(4))
def test_mutated_lsn_never_crashes_and_errors_are_located(seed):
    rng = random.Random(f"lsn-fuzz:{seed}")
    sources = lsn_sources()
    for _ in range(60):
        text = mutate(rng.choice(sources), rng)
        for lenient in (False, True):
            for game in read_games(text, lenient=lenient):
                check_game(game)


@pytest.mark.parametrize("seed", range(2))
def test_mutated_kif_never_crashes(seed):
    rng = random.Random(f"kif-fuzz:{seed}")
    sources = [p.read_bytes().decode("cp932", errors="replace") if p.suffix == ".kif" else p.read_text("utf-8")
               for p in sorted(REAL_KIF.iterdir())[:6]]
    for _ in range(30):
        text = mutate(rng.choice(sources), rng)
        try:
            games = read_kif(text)
        except KifError as exc:  # not readable as KIF at all: said with a place
            assert exc.error is not None
            continue
        for game in games:
            for e in game.errors:
                assert e.kind != "error" or e.line is not None or e.ply is not None, e


# --- every reader and writer (issue 24): the default part is small; the campaign is slow ------------

ROOT = Path(__file__).resolve().parent.parent


def test_a_campaign_across_every_reader_has_no_traceback():
    from fuzz_support import campaign
    counts = campaign(ROOT, 300, seed=24)
    assert counts["tracebacks"] == 0 and counts["unlocated"] == 0, counts["failures"]
    assert counts["games"] > 100 and counts["valid"] > 0 and counts["written"] > 0


@pytest.mark.slow
def test_a_large_campaign_across_every_reader_has_no_traceback():
    from fuzz_support import campaign
    counts = campaign(ROOT, 10_400, seed=2024)
    assert counts["tracebacks"] == 0 and counts["unlocated"] == 0, counts["failures"]
