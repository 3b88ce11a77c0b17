"""Everything the other variants have, for the variants added last (Dai Shogi, Tenjiku Shogi,
Sho Shogi, minishogi): listed as playable, self-play written as LSN, validated and imported, then found by
position search, counted by the explorer and the statistics, and shown by the viewer (the game,
the position search, the analysis board's moves, the variant page with a move diagram for every
piece type).

Each figure the commands give is compared with one worked out here from the generated file as
the LSN reader reads it, replayed by the rules core: no command's output is the expectation of
another. A variant is added to the test by one entry of ``VARIANTS``.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from lxml import html

from daikifu.archive.store import Archive
from daikifu.cli import main
from daikifu.formats.lsn import read_games
from daikifu.replay import load_variant
from daikifu.web import create_app

# slug -> (games, seed, ply limit) of the self-play run
VARIANTS = {
    "dai-shogi": (2, 1, 40),
    "sho-shogi": (3, 2, 60),
    "tenjiku-shogi": (2, 3, 40),
    "minishogi": (3, 2, 60),
}


def run(*args) -> str:
    result = CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return result.stdout


def run_json(*args):
    return json.loads(run(*args, "--json"))


def without_move_number(position: str) -> str:
    return position.rsplit(" ", 1)[0]


@pytest.fixture(scope="module", params=sorted(VARIANTS))
def played(request, tmp_path_factory):
    """(slug, the LSN file of its self-play games, the games as read back, the archive)."""
    slug = request.param
    games, seed, limit = VARIANTS[slug]
    d = tmp_path_factory.mktemp(slug)
    path, db = d / "games.lsn", d / "games.db"
    run("generate", slug, "--games", games, "--seed", seed, "--max-plies", limit, "-o", path)
    read = list(read_games(path.read_text(encoding="utf-8")))
    run("import", "--db", db, path)
    return slug, path, read, db


def test_listed_as_playable(played):
    slug = played[0]
    (entry,) = [v for v in run_json("variants") if v["slug"] == slug]
    assert entry["playable"] and entry["status"] == "playable"


def test_self_play_games_validate(played):
    slug, path, read, _ = played
    assert len(read) == VARIANTS[slug][0]
    verdicts = run_json("validate", path)
    assert [(v["variant"], v["status"], v["ply_count"]) for v in verdicts] == \
        [(slug, "valid", len(g.mainline_moves())) for g in read]
    for game in read:  # every move replays by the rules, and the game ends as its Result says
        assert game.valid and game.result in ("1-0", "0-1", "1/2-1/2")
        board = game.start_board()
        for move in game.mainline_moves():
            assert move in board.legal_moves()
            board.push(move)


def _stored_ids(db: Path, read: list) -> list:
    """The archive's id of each game read from the file (matched by their moves)."""
    with Archive(db, readonly=True) as archive:
        ids = [gid for (gid,) in archive.conn.execute("SELECT id FROM games ORDER BY id")]
        stored = {gid: [m.uci() for m in archive.load_game(gid).mainline_moves()] for gid in ids}
    return [next(gid for gid, moves in stored.items() if moves == [m.uci() for m in g.mainline_moves()])
            for g in read]


def test_position_search_finds_every_game_through_the_position(played):
    slug, _, read, db = played
    ids = _stored_ids(db, read)
    board = read[0].start_board()
    for move in read[0].mainline_moves()[:2]:
        board.push(move)
    wanted = without_move_number(board.position())
    expected = {}
    for gid, game in zip(ids, read):
        b = game.start_board()
        plies = [0] if without_move_number(b.position()) == wanted else []
        for ply, move in enumerate(game.mainline_moves(), start=1):
            b.push(move)
            if without_move_number(b.position()) == wanted:
                plies.append(ply)
        if plies:
            expected[gid] = plies
    data = run_json("search", "--db", db, "-v", slug, "-p", board.position())
    assert {g["id"]: g["plies"] for g in data["games"]} == expected and ids[0] in expected


def test_explorer_counts_the_first_moves(played):
    slug, _, read, db = played
    data = run_json("explore", "--db", db, "-v", slug)
    firsts = Counter(g.mainline_moves()[0].uci() for g in read if g.mainline_moves())
    assert data["games"] == len(read)
    assert {m["uci"]: m["games"] for m in data["moves"]} == dict(firsts)


def test_statistics_count_the_games_and_plies(played):
    slug, _, read, db = played
    data = run_json("stats", "--db", db, "-v", slug)
    (row,) = data["variants"]
    assert (row["variant"], row["games"], row["plies"]) == (slug, len(read), sum(len(g.mainline_moves()) for g in read))
    results = Counter(g.result for g in read)
    assert (row["results"]["sente_wins"], row["results"]["gote_wins"], row["results"]["draws"]) == \
        (results["1-0"], results["0-1"], results["1/2-1/2"])


def test_the_viewer_shows_the_games_the_search_and_the_variant_page(played):
    slug, _, read, db = played
    client = create_app(db).test_client()
    v = load_variant(slug)
    for gid in _stored_ids(db, read):
        page = client.get(f"/games/{gid}")
        assert page.status_code == 200 and v.name in page.get_data(as_text=True)
    board = read[0].start_board()
    found = client.get("/api/positions", query_string={"variant": slug, "position": board.position()})
    assert found.status_code == 200 and found.get_json()["count"] == len(read)
    for move in read[0].mainline_moves()[:3]:
        board.push(move)
    answer = client.get("/api/moves", query_string={"variant": slug, "position": board.position()})  # the analysis board
    assert answer.status_code == 200
    assert sorted(m["uci"] for m in answer.get_json()["moves"]) == sorted(m.uci() for m in board.legal_moves())
    doc = html.fromstring(client.get(f"/variants/{slug}").data)
    for piece in v.pieces:  # a card with a move diagram for every piece type, promoted ones included
        (card,) = doc.xpath("//article[@data-piece=$pid]", pid=piece.id)
        assert card.xpath(".//*[local-name()='svg'][contains(@class, 'move-diagram')]"), piece.id
