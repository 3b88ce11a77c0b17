"""A Chu Shogi game with two royal pieces per side (King and Crown Prince) through the whole
program: imported into an archive, then position search and the explorer at every ply from the
command line, the API and the web pages, and every page of the viewer, without a traceback.

The game (hand-written, checked move by move below): Sente's Gold takes Gote's Lion (the
counter-strike square is part of the next position), Gote's Rook takes Sente's Rook and then
Sente's King, which is legal in Chu Shogi; Sente plays on with its Crown Prince, which takes the
Rook back; Sente's Lion takes twice in one move, and passes.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from daikifu.archive.store import Archive
from daikifu.cli import main
from daikifu.replay import Board, load_variant
from daikifu.replay.notation import parse_move
from daikifu.web import create_app

from archive_support import sample_archive
from position_support import position_text

CHU = load_variant("chu-shogi")
START = position_text({"a1": "K", "b2": "+DE", "e5": "LN", "e6": "G", "h1": "R", "l1": "L",
                       "a12": "k", "b11": "+de", "e7": "ln", "d8": "p", "h12": "r", "l12": "l", "e10": "s",
                       "j10": "ln"}, 12, 12)
MOVES = "1. Gxe7 Rxh1= 2. LN-f6 Rxa1= 3. +DExa1 S-e9 4. LN-f8 +de-c11 5. LNxe9xd8 LN-j8 6. LNd8-d8 L-l10"
RECORD = f"""\
[Variant "chu-shogi"]
[Event "Two royals"]
[Date "2026.01.02"]
[Sente "Kenji"]
[Gote "Rin"]
[Result "*"]
[SetUp "1"]
[SFEN "{START}"]

{MOVES} *
"""


def boards():
    """The board before each ply and after the last (replayed here, independently of the archive)."""
    board = Board(CHU, START)
    out = [board.copy(stack=False)]
    for text in MOVES.split():
        if text[0].isdigit():
            continue
        board.push(parse_move(board, text))
        out.append(board.copy(stack=False))
    return out


def test_the_game_keeps_two_royals_and_loses_one():
    seen = boards()
    assert [len(b.royal_squares(0)) for b in (seen[0], seen[-1])] == [2, 1]
    assert len(seen[-1].royal_squares(1)) == 2
    assert seen[1].position().split()[2] == "e7"  # the counter-strike square after Gxe7
    assert all(b.outcome() is None for b in seen)


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    return sample_archive(tmp_path_factory.mktemp("chu"), ("chu-shogi.lsn",), {"two-royals.lsn": RECORD})


@pytest.fixture(scope="module")
def game_id(db):
    with Archive(db, create=False) as a:
        return next(g["id"] for g in a.games(status="all") if g["sente"] == "Kenji")


@pytest.fixture(scope="module")
def client(db):
    app = create_app(db)
    errors = []
    app.logger.error = lambda *a, **k: errors.append(a)
    app.logger.exception = lambda *a, **k: errors.append(a)
    client = app.test_client()
    client.logged = errors
    return client


def cli(*args):
    result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "Traceback" not in result.output
    return result


def test_search_and_explore_at_every_ply_from_the_command_line(db, game_id):
    for ply, board in enumerate(boards()):
        found = json.loads(cli("search", "--db", db, "--game", game_id, "--ply", ply, "--json").output)
        assert any(hit["id"] == game_id and ply in hit["plies"] for hit in found["games"]), (ply, found)
        by_text = json.loads(cli("search", "--db", db, "-v", "chu-shogi", "-p", board.position(), "--json").output)
        assert by_text["games"] == found["games"]
        explored = json.loads(cli("explore", "--db", db, "--game", game_id, "--ply", ply, "--json").output)
        assert explored["moves"] or explored["ended"]


def test_the_api_and_the_pages_at_every_ply(client, game_id):
    for ply, board in enumerate(boards()):
        query = {"variant": "chu-shogi", "position": board.position()}
        for path in ("/positions", "/api/positions", "/api/explore", "/api/moves", "/api/position-check"):
            client.logged.clear()
            r = client.get(path, query_string=query)
            assert r.status_code == 200, (path, ply, r.get_data(as_text=True)[:300])
            assert not client.logged
        hits = client.get("/api/positions", query_string=query).get_json()
        assert any(h["id"] == game_id for h in hits["games"])
        check = client.get("/api/position-check", query_string=query).get_json()
        assert check["valid"], check
        r = client.get(f"/games/{game_id}", query_string={"ply": ply})
        assert r.status_code == 200 and b"Traceback" not in r.data


def test_every_page_of_the_game(client, game_id):
    for path in (f"/games/{game_id}", f"/api/games/{game_id}", f"/games/{game_id}/record.lsn",
                 f"/games/{game_id}/record.kif", "/", "/api/games", "/stats", "/api/stats",
                 "/variants", "/variants/chu-shogi", "/api/variants/chu-shogi", "/api/variants"):
        client.logged.clear()
        r = client.get(path)
        assert r.status_code == 200, (path, r.get_data(as_text=True)[:300])
        assert not client.logged and b"Traceback" not in r.data
    data = client.get(f"/api/games/{game_id}").get_json()
    assert data["start"] == START and data["ply_count"] == 12
    assert [m["position"] for m in data["moves"]] == [b.position() for b in boards()[1:]]
    assert data["moves"][0]["position"].split()[2] == "e7"


def test_the_variant_page_explains_the_lion_rules(client):
    page = client.get("/variants/chu-shogi").get_data(as_text=True)
    assert "protected Lion" in page and "counter-strike" in page and "bare king" in page
    assert "Crown Prince" in page
