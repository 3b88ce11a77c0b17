"""Queries over the archive: position search, material search, the opening explorer and statistics
(archive/queries.py, archive/stats.py, archive/query_commands.py).

The archive is a small fixed one: the hand-written LSN games below, imported through the importer.
Every expected figure is worked out by hand in the comments, not computed by the code under test.

    id  variant       sente  gote   date        result   plies  moves
    1   shogi         Alice  Bob    2024.02.01  1-0      6      P-c4 P-c6 P-g4 P-g6 Bxh8+ Sxh8
    2   shogi         Bob    Alice  2024.01.10  0-1      4      P-g4 P-c6 P-c4 P-d6
    3   shogi         Carol  Alice  2024.03.05  1/2-1/2  8      R-i2 R-a8 R-h2 R-b8 P-c4 P-c6 P-g4 K-d8
    4   shogi         Bob    Carol  2024.03.20  *        4      P-g4 P-g6 P-g5 Pxg5
    5   shogi         Dave   Bob    2024.05.01  1-0      (invalid: 2. K-e5; 2 plies before the error)
    6   chu-kagamigi  Dave   Erin   2024.04.02  1-0      12     pawn h march, Pxh9+ Yxh9, P*h8 Pxa4+
    7   chu-kagamigi  Erin   Dave   2024.04.03  0-1      3      P-h5 P-l8 N-e5
    8   dai-kagamigi  Erin   Frank  2024.04.10  1/2-1/2  6      P-h6 P-h10 P-h7 P-h9 P-h8 Pxh8

Transposition: games 1 and 2 reach the same position X (c- and g-pawns advanced, Gote's c-pawn
on c6, Gote to move) after 3 plies by different move orders; game 3 reaches X after 7 plies.
Repetition: game 3 is back in the start position after 4 plies (rooks out and back).
"""

from __future__ import annotations

import csv
import io
import json
import random
import shutil
import sqlite3

import pytest
from click.testing import CliRunner

from daikifu.archive.importer import import_paths
from daikifu.archive.schema import SCHEMA_VERSION
from daikifu.archive.queries import (QueryError, explore, parse_material, position_key, search_material,
                             search_position, target)
from daikifu.cli import main
from daikifu.archive.stats import archive_stats, elo_ratings, histogram, nice_width, quantile, stats_rows
from daikifu.replay.randomplay import random_moves
from record_builders import random_record, write_records
from daikifu.archive.store import Archive, ArchiveError
from daikifu.formats.game import Game

GAMES = """\
[Variant "shogi"]
[Event "Club"]
[Date "2024.02.01"]
[Sente "Alice"]
[Gote "Bob"]
[Result "1-0"]
[Termination "resignation"]

1. P-c4 P-c6 2. P-g4 P-g6 3. Bxh8+ Sxh8 1-0

[Variant "shogi"]
[Event "Club"]
[Date "2024.01.10"]
[Sente "Bob"]
[Gote "Alice"]
[Result "0-1"]
[Termination "time forfeit"]

1. P-g4 P-c6 2. P-c4 P-d6 0-1

[Variant "shogi"]
[Event "Club"]
[Date "2024.03.05"]
[Sente "Carol"]
[Gote "Alice"]
[Result "1/2-1/2"]
[Termination "agreement"]

1. R-i2 R-a8 2. R-h2 R-b8 3. P-c4 P-c6 4. P-g4 K-d8 1/2-1/2

[Variant "shogi"]
[Event "Club"]
[Date "2024.03.20"]
[Sente "Bob"]
[Gote "Carol"]
[Result "*"]

1. P-g4 P-g6 2. P-g5 Pxg5 *

[Variant "shogi"]
[Event "Club"]
[Date "2024.05.01"]
[Sente "Dave"]
[Gote "Bob"]
[Result "1-0"]

1. P-c4 P-c6 2. K-e5 1-0

[Variant "chu-kagamigi"]
[Event "Mirror cup"]
[Date "2024.04.02"]
[Sente "Dave"]
[Gote "Erin"]
[Result "1-0"]
[Termination "resignation"]

1. P-h5 P-a8 2. P-h6 P-a7 3. P-h7 P-a6 4. P-h8 P-a5 5. Pxh9+ Yxh9 6. P*h8 Pxa4+ 1-0

[Variant "chu-kagamigi"]
[Event "Mirror cup"]
[Date "2024.04.03"]
[Sente "Erin"]
[Gote "Dave"]
[Result "0-1"]
[Termination "resignation"]

1. P-h5 P-l8 2. N-e5 0-1

[Variant "dai-kagamigi"]
[Event "Mirror cup"]
[Date "2024.04.10"]
[Sente "Erin"]
[Gote "Frank"]
[Result "1/2-1/2"]

1. P-h6 P-h10 2. P-h7 P-h9 3. P-h8 Pxh8 1/2-1/2
"""

SHOGI_START = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
# X: after 1. P-c4 P-c6 2. P-g4 (game 1) = after 1. P-g4 P-c6 2. P-c4 (game 2), Gote to move
X = "lnsgkgsnl/1r5b1/pp1pppppp/2p6/9/2P3P2/PP1PPP1PP/1B5R1/LNSGKGSNL w - 4"
# after 1. P-c4 (game 1 at ply 1, game 3 at ply 5, invalid game 5 at ply 1)
AFTER_C4 = "lnsgkgsnl/1r5b1/ppppppppp/9/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL w - 2"


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    d = tmp_path_factory.mktemp("queries")
    (d / "games.lsn").write_text(GAMES, encoding="utf-8")
    path = d / "games.db"
    archive = Archive(path)
    summary = import_paths(archive, [str(d / "games.lsn")])
    archive.close()
    assert (summary.games, summary.imported, summary.invalid) == (8, 7, 1), summary.as_dict()
    return path


@pytest.fixture
def archive(db):
    a = Archive(db, create=False)
    yield a
    a.close()


def found(hits):
    return [(h.game_id, h.plies) for h in hits]


# --- position search ------------------------------------------------------------------------------


def test_the_fixture_is_as_described(archive):
    rows = {g["id"]: g for g in archive.games(status="all")}
    assert [(i, g["variant"], g["status"], g["ply_count"]) for i, g in rows.items()] == [
        (1, "shogi", "valid", 6), (2, "shogi", "valid", 4), (3, "shogi", "valid", 8), (4, "shogi", "valid", 4),
        (5, "shogi", "invalid", 2), (6, "chu-kagamigi", "valid", 12), (7, "chu-kagamigi", "valid", 3),
        (8, "dai-kagamigi", "valid", 6)]


def test_search_finds_both_transposed_games_with_their_plies(archive):
    t = target(archive, X, "shogi")
    assert t.key == position_key(X) and t.variant == "shogi"
    assert found(search_position(archive, t)) == [(1, [3]), (2, [3]), (3, [7])]
    hits = list(search_position(archive, t))
    assert [(h.sente, h.gote, h.result, h.date) for h in hits] == [
        ("Alice", "Bob", "1-0", "2024.02.01"), ("Bob", "Alice", "0-1", "2024.01.10"),
        ("Carol", "Alice", "1/2-1/2", "2024.03.05")]


def test_search_by_game_and_ply_gives_the_same_position(archive):
    t = target(archive, game_id=2, ply=3)
    assert t.position == X and (t.game_id, t.ply) == (2, 3)
    assert found(search_position(archive, t)) == [(1, [3]), (2, [3]), (3, [7])]
    assert found(search_position(archive, t, limit=2)) == [(1, [3]), (2, [3])]


def test_the_move_number_does_not_matter_but_side_to_move_and_hands_do(archive):
    assert found(search_position(archive, target(archive, X.replace(" 4", " 17"), "shogi"))) == \
        [(1, [3]), (2, [3]), (3, [7])]
    assert found(search_position(archive, target(archive, X.replace(" w ", " b "), "shogi"))) == []
    assert found(search_position(archive, target(archive, X.replace(" - ", " P "), "shogi"))) == []


def test_a_repeated_position_is_found_at_every_ply(archive):
    # game 3 is back at the start after R-i2 R-a8 R-h2 R-b8
    assert found(search_position(archive, target(archive, SHOGI_START, "shogi"))) == \
        [(1, [0]), (2, [0]), (3, [0, 4]), (4, [0])]


def test_invalid_games_only_with_include_invalid(archive):
    t = target(archive, AFTER_C4, "shogi")
    assert found(search_position(archive, t)) == [(1, [1]), (3, [5])]
    hits = list(search_position(archive, t, include_invalid=True))
    assert found(hits) == [(1, [1]), (3, [5]), (5, [1])]
    assert hits[-1].status == "invalid"
    # the invalid game's own positions can be the target too
    assert target(archive, game_id=5, ply=1).position == AFTER_C4


def test_other_variants_and_their_searches(archive):
    t = target(archive, game_id=6, ply=10)  # chu-kagamigi, after Pxh9+ Yxh9: each side holds a pawn
    assert t.variant == "chu-kagamigi" and t.position.split()[1:] == ["b", "Pp", "11"]
    assert found(search_position(archive, t)) == [(6, [10])]
    assert found(search_position(archive, target(archive, game_id=8, ply=0))) == [(8, [0])]


@pytest.fixture
def collided(db, tmp_path):
    """A copy of the archive with forged positions rows: X's hash for game 4 at ply 2 (which is
    another position) and for game 4 at ply 0 (its start is not X), with the explorer's summary
    row that a start position with X's hash would have been given."""
    path = tmp_path / "collided.db"
    src = Archive(db, create=False)
    src.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    src.close()
    shutil.copyfile(db, path)
    with Archive(db, create=False) as a:
        h = target(a, X, "shogi").hash
    con = sqlite3.connect(path)
    con.executemany("INSERT INTO positions (hash, game_id, ply, next) VALUES (?, 4, ?, ?)",
                    [(h, 2, "g3g4"), (h, 0, "c3c4")])
    con.execute("INSERT INTO first_moves (hash, variant, ruleset, start, next, games, sente_wins, gote_wins, "
                "draws, plies, last_date) VALUES (?, 'shogi', '', '', 'c3c4', 1, 0, 0, 0, 4, '2024.03.20')", (h,))
    con.commit()
    con.close()
    a = Archive(path, create=False)
    yield a
    a.close()


def test_hash_collisions_never_give_a_wrong_game(collided):
    t = target(collided, X, "shogi")
    counters = {}
    assert found(search_position(collided, t, counters=counters)) == [(1, [3]), (2, [3]), (3, [7])]
    assert counters == {"candidates": 5, "rejected": 2}
    e = explore(collided, t)
    assert e.games == 3 and e.rejected == 2
    assert sorted((m.move, m.games) for m in e.moves) == [("K-d8", 1), ("P-d6", 1), ("P-g6", 1)]


def test_position_errors_are_one_line(archive):
    with pytest.raises(QueryError, match="bad position string for shogi") as exc:
        target(archive, "lnsgkgsnl/9 b - 1", "shogi")
    assert exc.value.param == "--position" and "\n" not in str(exc.value)
    with pytest.raises(QueryError, match="needs its variant"):
        target(archive, X)
    with pytest.raises(QueryError, match="no game 99"):
        target(archive, game_id=99, ply=0)
    with pytest.raises(QueryError, match="game 1 has 6 plies: the ply must be from 0 to 6"):
        target(archive, game_id=1, ply=7)
    with pytest.raises(QueryError, match="unknown variant"):
        target(archive, X, "no-such-variant")


# --- material search ------------------------------------------------------------------------------


@pytest.mark.parametrize("spec, variant, expected", [
    # 3. Bxh8+ in game 1 (ply 5): Gote's bishop is captured (Sente holds it) and Sente's promotes
    ("b=0", "shogi", [(1, 5)]),
    ("S:+B=1; G:B=0", "shogi", [(1, 5)]),
    ("sente: +b>=1", "shogi", [(1, 5)]),
    # 2... Pxg5 in game 4 (ply 4): Sente 8 pawns, Gote 9 on the board + 1 in hand
    ("P<=8", "shogi", [(4, 4)]),
    ("p>=10", "shogi", [(4, 4)]),
    ("P<9, p>9", "shogi", [(4, 4)]),
    # at the start: every game
    ("B R p=9", "shogi", [(1, 0), (2, 0), (3, 0), (4, 0)]),
    ("K=0", "shogi", []),
    # chu-kagamigi game 6: 5. Pxh9+ (ply 9) Sente +P 1, Gote pawns 11; 5... Yxh9 (ply 10) Gote holds
    # the pawn (12 again); 6. P*h8 (a drop changes nothing); 6... Pxa4+ (ply 12) Sente 11 pawns,
    # Gote 10 on the board + 2 in hand and a +p
    ("S:+P=1; G:P<12", "chu-kagamigi", [(6, 9)]),
    ("P<12", "chu-kagamigi", [(6, 12)]),
    ("g:+P>=1", "chu-kagamigi", [(6, 12)]),
    ("p=12 +P=0 +p=0 P=12", "chu-kagamigi", [(6, 0), (7, 0)]),
    # dai-kagamigi game 8: 3... Pxh8 (ply 6)
    ("P<15", "dai-kagamigi", [(8, 6)]),
])
def test_material_search(archive, spec, variant, expected):
    hits = list(search_material(archive, parse_material(spec, variant)))
    assert [(h.game_id, h.ply) for h in hits] == expected


def test_material_search_details(archive):
    spec = parse_material("S:!LD>=2,R=0; G:K=1", "dai-kagamigi")
    assert [str(t) for t in spec.terms] == ["Sente !LD >= 2", "Sente R = 0", "Gote K = 1"]
    hits = list(search_material(archive, parse_material("B R p=9", "shogi"), limit=2))
    assert [h.game_id for h in hits] == [1, 2]
    hit = next(search_material(archive, parse_material("p>=10", "shogi")))
    assert hit.counts == {"Gote P": 10}
    # the invalid game 5 (1. P-c4 P-c6) only with include_invalid; its first ply matching
    spec = parse_material("P=9 p=9", "shogi")
    assert [h.game_id for h in search_material(archive, spec, include_invalid=True)] == [1, 2, 3, 4, 5]


@pytest.mark.parametrize("spec, message", [
    ("Q=1", "Shogi has no piece 'Q'"),
    ("Pp>=1", "mixes upper and lower case"),
    ("", "no terms"),
    ("=3", "cannot read"),
])
def test_material_spec_errors(spec, message):
    with pytest.raises(QueryError, match=message):
        parse_material(spec, "shogi")


# --- the explorer ---------------------------------------------------------------------------------


def moves_of(e):
    return [(m.move, m.games, m.sente_wins, m.gote_wins, m.draws, m.unfinished, m.avg_plies, m.last_date)
            for m in e.moves]


def test_explorer_from_the_start_position(archive):
    e = explore(archive, target(archive, SHOGI_START, "shogi"))
    # P-c4: game 1 (1-0, 6 plies) and game 3 at ply 4 (draw, 8 plies) -> avg 7, last 2024.03.05
    # P-g4: games 2 (0-1, 4) and 4 (*, 4); R-i2: game 3 at ply 0.  Ties by notation.
    assert moves_of(e) == [("P-c4", 2, 1, 0, 1, 0, 7.0, "2024.03.05"),
                           ("P-g4", 2, 0, 1, 0, 1, 4.0, "2024.03.20"),
                           ("R-i2", 1, 0, 0, 1, 0, 8.0, "2024.03.05")]
    assert e.games == 4 and e.confirmed == "all" and e.checked == 1  # only game 3's ply 4 replayed
    assert e.ended.games == 0
    e = explore(archive, target(archive, SHOGI_START, "shogi"), include_invalid=True)
    assert e.games == 5 and moves_of(e)[0] == ("P-c4", 3, 2, 0, 1, 0, 5.3, "2024.05.01")


def test_explorer_from_the_transposed_position(archive):
    e = explore(archive, target(archive, game_id=1, ply=3))
    assert moves_of(e) == [("K-d8", 1, 0, 0, 1, 0, 8.0, "2024.03.05"),
                           ("P-d6", 1, 0, 1, 0, 0, 4.0, "2024.01.10"),
                           ("P-g6", 1, 1, 0, 0, 0, 6.0, "2024.02.01")]
    assert e.games == 3 and e.confirmed == "all"
    # with a sample of one game confirmed, the counts are the same
    s = explore(archive, target(archive, game_id=1, ply=3), sample=1)
    assert s.confirmed == "sample" and s.checked == 1 and moves_of(s) == moves_of(e)


def test_explorer_counts_games_ending_in_the_position(archive):
    e = explore(archive, target(archive, game_id=2, ply=4))
    assert e.moves == [] and e.games == 1
    assert (e.ended.games, e.ended.gote_wins) == (1, 1)
    d = e.as_dict()
    assert d["ended"]["games"] == 1 and d["moves"] == []


# --- the explorer's first_moves summary -----------------------------------------------------------
#
# A second archive with everything the summary has to get right: several variants, a non-default
# rule set with the default start position, custom start positions (one of them the start position
# with another move number: the same position), games without moves, a truncated and an invalid
# game, every result, dates with '?', empty and missing.  The references below are computed from
# positions/games and from the games' stored text, never from first_moves.

# Sente without the rook (a position of its own) and the start position at move 5 (the same
# position as the start: the move number is not part of it)
HANDICAP = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B7/LNSGKGSNL b - 1"
LATE_START = SHOGI_START[:-1] + "5"
BAD_TRUNCATED = '[Variant "shogi"]\n[Date "2024.06.01"]\n[Result "0-1"]\n\n1. P-a4 P-i6 2. B-h8+ Sxh8 0-1\n'
BAD_INVALID = '[Variant "shogi"]\n[Date "2024.06.02"]\n[Result "1-0"]\n\n1. P-i4 P-a6 2. K-e5 1-0\n'
RESULTS = ("1-0", "0-1", "1/2-1/2", "*")


def _mixed_games() -> list:
    rng = random.Random(7)
    games = []
    for variant, n, options in (("shogi", 14, None), ("chu-kagamigi", 4, None),
                                ("chu-kagamigi", 4, {"forced-promotion": "stuck"}), ("dai-kagamigi", 3, None)):
        for i in range(n):
            games.append(random_record(variant, f"mixed:{options}:{i}", plies=(1, 5), options=options))
    for start, n in ((HANDICAP, 3), (LATE_START, 3)):
        for _ in range(n):
            g = Game("shogi", start=start)
            node = g
            for m in random_moves(g.start_board(), rng.randint(1, 3), rng):
                node = node.add_variation(m)
            games.append(g)
    for start in (None, HANDICAP, LATE_START):  # no moves (resigned at once, or not played)
        games.append(Game("shogi", start=start))
    for i, g in enumerate(games):
        g.result = RESULTS[i % 4]
        if i % 5 == 1:
            g.headers["Date"] = f"20{10 + i}.??.??"
        elif i % 5 == 2 and "Date" in g.headers:
            del g.headers["Date"]
        elif i % 5 == 3:
            g.headers["Date"] = ""
        elif "Date" not in g.headers:
            g.headers["Date"] = f"2023.{1 + i % 12:02d}.{1 + i % 28:02d}"
    return games


@pytest.fixture(scope="module")
def mixed_db(tmp_path_factory):
    d = tmp_path_factory.mktemp("mixed")
    (d / "fixture.lsn").write_text(GAMES, encoding="utf-8")
    write_records(_mixed_games(), d / "mixed.lsn")
    (d / "truncated.lsn").write_text(BAD_TRUNCATED, encoding="utf-8")
    (d / "invalid.lsn").write_text(BAD_INVALID, encoding="utf-8")
    path = d / "mixed.db"
    with Archive(path) as archive:
        import_paths(archive, [str(d / name) for name in ("fixture.lsn", "mixed.lsn", "invalid.lsn")])
        import_paths(archive, [str(d / "truncated.lsn")], lenient=True)
        archive.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


def summary_rows(conn) -> list:
    return sorted(conn.execute("SELECT hash, variant, ruleset, start, next, games, sente_wins, gote_wins, draws, "
                               "plies, last_date FROM first_moves").fetchall())


def aggregate_of_positions(conn) -> list:
    """The first_moves rows as they follow from positions at ply 0 and games, one game at a time."""
    groups: dict = {}
    for h, variant, ruleset, start, nxt, result, plies, date in conn.execute(
            "SELECT p.hash, g.variant, g.ruleset, g.start, p.next, g.result, g.ply_count, g.date "
            "FROM positions p JOIN games g ON g.id = p.game_id "
            "WHERE p.ply = 0 AND g.status IN ('valid', 'truncated')"):
        row = groups.setdefault((h, variant, ruleset, start or "", nxt or ""), [0, 0, 0, 0, 0, None])
        row[0] += 1
        for i, wanted in enumerate(("1-0", "0-1", "1/2-1/2"), start=1):
            row[i] += result == wanted
        row[4] += plies
        if date is not None and "?" not in date and (row[5] is None or date > row[5]):
            row[5] = date
    return sorted((*key, *row) for key, row in groups.items())


def test_the_mixed_fixture_has_every_case(mixed_db):
    with Archive(mixed_db, create=False) as a:
        conn = a.conn
        assert {s for (s,) in conn.execute("SELECT DISTINCT status FROM games")} == {"valid", "truncated", "invalid"}
        assert {r for (r,) in conn.execute("SELECT DISTINCT result FROM games")} == set(RESULTS)
        assert conn.execute("SELECT count(*) FROM games WHERE ply_count = 0 AND status = 'valid'").fetchone()[0] == 3
        starts = {s for (s,) in conn.execute("SELECT DISTINCT start FROM games WHERE variant = 'shogi'")}
        assert starts == {None, HANDICAP, LATE_START}
        assert conn.execute("SELECT count(*) FROM games WHERE ruleset != ''").fetchone()[0] == 4
        dates = {d for (d,) in conn.execute("SELECT DISTINCT date FROM games")}
        assert None in dates and "" in dates and any("?" in d for d in dates if d)
        assert max(row[5] for row in summary_rows(conn)) >= 2  # some first moves are shared


def test_first_moves_summary_equals_the_aggregate_of_positions(mixed_db):
    with Archive(mixed_db, create=False) as a:
        rows = summary_rows(a.conn)
        assert rows == aggregate_of_positions(a.conn)
        valid = a.conn.execute("SELECT count(*) FROM games WHERE status != 'invalid'").fetchone()[0]
        assert sum(r[5] for r in rows) == valid


def test_a_version_1_archive_is_migrated_and_gets_the_same_summary(mixed_db, tmp_path):
    path = tmp_path / "v1.db"
    shutil.copyfile(mixed_db, path)
    con = sqlite3.connect(path)  # back to schema version 1: the same tables without the summary
    con.execute("DROP TABLE first_moves")
    con.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    con.commit()
    con.close()
    with pytest.raises(ArchiveError, match=f"run 'daikifu upgrade --db {path}'"):
        Archive(path, readonly=True)
    with Archive(path) as a:  # opened for writing: migrated
        assert a.schema_before == 1
        assert a.conn.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()[0] == str(SCHEMA_VERSION)
        migrated = summary_rows(a.conn)
        assert migrated == aggregate_of_positions(a.conn)
    with Archive(mixed_db, create=False) as a:
        assert migrated == summary_rows(a.conn)  # the same as kept up to date by the imports
    with Archive(path, readonly=True) as a:
        assert explore(a, target(a, SHOGI_START, "shogi")).games > 0


def reference_explorer(archive, t) -> tuple:
    """(games, rejected, {move or None: (games, sente wins, gote wins, draws, unfinished, plies,
    last date)}) for target ``t``: the positions rows with its hash found by plain SQL, each
    confirmed on the game's stored text read again (its start position at ply 0, replayed for a
    later ply), one game counted once per move it plays from the position; only games of the
    target's rule set."""
    plays: dict = {}  # game id -> set of moves played from the position (None: it ends there)
    info: dict = {}
    rejected = 0
    for gid, ply, nxt, result, plies, date in archive.conn.execute(
            "SELECT g.id, p.ply, p.next, g.result, g.ply_count, g.date FROM positions p JOIN games g "
            "ON g.id = p.game_id WHERE p.hash = ? AND g.variant = ? AND g.ruleset = ? "
            "AND g.status IN ('valid', 'truncated')", (t.hash, t.variant, t.ruleset)):
        game = archive.load_game(gid)
        board = game.start_board()
        for move in game.mainline_moves()[:ply]:
            board.push(move)
        if position_key(board.position()) != t.key:
            rejected += 1
            continue
        plays.setdefault(gid, set()).add(nxt)
        info[gid] = (result, plies, date)
    moves: dict = {}
    for gid, played in plays.items():
        result, plies, date = info[gid]
        for nxt in played:
            m = moves.setdefault(nxt, [0, 0, 0, 0, 0, 0, None])
            m[0] += 1
            m[1 + RESULTS.index(result)] += 1
            m[5] += plies
            if date and "?" not in date and (m[6] is None or date > m[6]):
                m[6] = date
    return len(plays), rejected, {k: tuple(v) for k, v in moves.items()}


def explorer_figures(e) -> dict:
    out = {m.uci: (m.games, m.sente_wins, m.gote_wins, m.draws, m.unfinished, m.plies, m.last_date)
           for m in e.moves}
    if e.ended.games:
        n = e.ended
        out[None] = (n.games, n.sente_wins, n.gote_wins, n.draws, n.unfinished, n.plies, n.last_date)
    return out


def test_explorer_from_every_start_position_matches_the_reference(mixed_db):
    with Archive(mixed_db, create=False) as a:
        firsts = a.conn.execute("SELECT min(id) FROM games WHERE status != 'invalid' "
                                "GROUP BY variant, ruleset, coalesce(start, '')").fetchall()
        checked = set()
        for (gid,) in firsts:
            t = target(a, game_id=gid, ply=0)
            if (t.variant, t.key) in checked:  # another rule set or move number, the same position
                continue
            checked.add((t.variant, t.key))
            e = explore(a, t, sample=None)
            games, rejected, moves = reference_explorer(a, t)
            assert (e.games, e.rejected) == (games, rejected), (t.variant, t.position)
            assert explorer_figures(e) == moves, (t.variant, t.position)
        # shogi's start (with the late-start and repeating games), its handicap position, one start
        # position shared by two rule sets, and dai-kagamigi's
        assert len(checked) == 4


def test_a_failed_insert_leaves_the_summary_as_it_was(tmp_path):
    """A game is stored whole or not at all: its summary count too."""
    longer = random_record("shogi", "atomic", plies=(6, 6))
    short = Game("shogi")  # its first four moves
    node = short
    for move in longer.mainline_moves()[:4]:
        node = node.add_variation(move)
    with Archive(tmp_path / "a.db") as a:
        before = summary_rows(a.conn)
        # the summary row itself fails
        a.conn.execute("CREATE TEMP TRIGGER refuse AFTER INSERT ON first_moves BEGIN SELECT RAISE(ABORT, 'no'); END")
        with pytest.raises(sqlite3.IntegrityError):
            a.add_game(longer)
        a.conn.execute("DROP TRIGGER refuse")
        assert summary_rows(a.conn) == before and a.conn.execute("SELECT count(*) FROM games").fetchone()[0] == 0
        a.add_game(short)
        before = summary_rows(a.conn)
        # a later step fails (marking the stored game as a prefix of the new one), after the count
        a.conn.execute("CREATE TEMP TRIGGER refuse BEFORE UPDATE ON games BEGIN SELECT RAISE(ABORT, 'no'); END")
        with pytest.raises(sqlite3.IntegrityError):
            a.add_game(longer)
        a.conn.execute("DROP TRIGGER refuse")
        assert summary_rows(a.conn) == before == aggregate_of_positions(a.conn)
        assert a.add_game(longer)[1] == "prefix"
        assert summary_rows(a.conn) == aggregate_of_positions(a.conn)


# --- statistics -----------------------------------------------------------------------------------


def test_small_statistics_helpers():
    # [4, 4, 6, 8]: positions 0.75, 1.5, 2.25 -> 4, 5, 6.5
    assert [quantile([4, 4, 6, 8], q) for q in (0, 0.25, 0.5, 0.75, 1)] == [4, 4, 5, 6.5, 8]
    assert quantile([7], 0.25) == 7 and quantile([], 0.5) is None
    assert nice_width(4, 8) == 1 and nice_width(0, 95) == 10 and nice_width(100, 300) == 25
    assert nice_width(3, 250) == 50
    assert histogram([4, 4, 6, 8], 5) == [{"from": 0, "to": 4, "games": 2}, {"from": 5, "to": 9, "games": 2}]


def test_elo_by_hand():
    # B (2024.01.10) is rated before A (2024.02.01) although its id is larger
    games = [{"id": 1, "date": "2024.02.01", "sente": "A", "gote": "B", "result": "1-0"},
             {"id": 2, "date": "2024.01.10", "sente": "B", "gote": "A", "result": "0-1"},
             {"id": 3, "date": "2024.01.10", "sente": "C", "gote": "D", "result": "*"}]
    r = elo_ratings(games)
    # game 2: 1500 v 1500, expected 0.5: A 1510, B 1490; game 1: expected for A
    # 1 / (1 + 10^(-20/400)) = 0.528751: A 1510 + 20 * 0.471249 = 1519.42498, B 1480.57502
    assert r["A"]["rating"] == pytest.approx(1519.42498, abs=1e-4)
    assert r["B"]["rating"] == pytest.approx(1480.57502, abs=1e-4)
    assert "C" not in r and r["A"]["games"] == 2


def by_variant(report):
    return {v["variant"]: v for v in report["variants"]}


def player(report, name, variant):
    return next(p for p in report["players"] if p["player"] == name and p["variant"] == variant)


def test_stats_per_variant(archive):
    report = archive_stats(archive)
    assert report["games"] == 7  # the invalid game is left out
    assert report["rating"]["system"] == "Elo" and report["rating"]["k"] == 20
    v = by_variant(report)
    shogi = v["shogi"]
    assert (shogi["games"], shogi["plies"]) == (4, 22)  # 6 + 4 + 8 + 4
    assert shogi["results"]["shares"] == {"sente_wins": 0.25, "gote_wins": 0.25, "draws": 0.25, "unfinished": 0.25}
    # lengths [4, 4, 6, 8]
    assert {k: shogi["length"][k] for k in ("min", "p25", "median", "p75", "max", "mean")} == \
        {"min": 4, "p25": 4, "median": 5, "p75": 6.5, "max": 8, "mean": 5.5}
    assert [(b["from"], b["games"]) for b in shogi["length"]["histogram"]] == [(4, 2), (5, 0), (6, 1), (7, 0), (8, 1)]
    assert shogi["terminations"] == {"resignation": 1, "time forfeit": 1, "agreement": 1, "unknown": 1}
    # first moves: P-g4 (games 2, 4), P-c4 (1), R-i2 (3); game 3's P-c4 at ply 4 is no first move
    assert shogi["first_moves"] == [{"move": "P-g4", "games": 2}, {"move": "P-c4", "games": 1},
                                    {"move": "R-i2", "games": 1}]
    # game 1: Bxh8+ (a bishop promotes, Gote's bishop is captured), Sxh8 (the +B is captured);
    # game 4: Pxg5
    assert shogi["promotions"] == {"B": 1}
    assert shogi["captures"] == {"+B": 1, "B": 1, "P": 1}
    chu = v["chu-kagamigi"]
    assert (chu["games"], chu["plies"]) == (2, 15)
    # lengths [3, 12]: 3 + 9 * 0.25 = 5.25, 7.5, 9.75
    assert (chu["length"]["p25"], chu["length"]["median"], chu["length"]["p75"]) == (5.25, 7.5, 9.75)
    assert chu["results"]["shares"]["sente_wins"] == 0.5 and chu["results"]["shares"]["gote_wins"] == 0.5
    assert chu["first_moves"] == [{"move": "P-h5", "games": 2}]
    # Pxh9+ and Pxa4+ promote pawns; captured: Gote's P on h9, the +P on h9, Sente's P on a4
    assert chu["promotions"] == {"P": 2}
    assert chu["captures"] == {"P": 2, "+P": 1}
    dai = v["dai-kagamigi"]
    assert dai["promotions"] == {} and dai["captures"] == {"P": 1}
    assert dai["results"]["draws"] == 1 and dai["terminations"] == {"unknown": 1}


def test_stats_per_player_and_ratings(archive):
    report = archive_stats(archive)
    alice = player(report, "Alice", "shogi")
    assert alice["sente"] == {"wins": 1, "losses": 0, "draws": 0, "unfinished": 0}
    assert alice["gote"] == {"wins": 1, "losses": 0, "draws": 1, "unfinished": 0}
    bob = player(report, "Bob", "shogi")
    assert bob["sente"] == {"wins": 0, "losses": 1, "draws": 0, "unfinished": 1}
    assert bob["gote"] == {"wins": 0, "losses": 1, "draws": 0, "unfinished": 0}
    carol = player(report, "Carol", "shogi")
    assert carol["sente"]["draws"] == 1 and carol["gote"]["unfinished"] == 1
    # Elo, K=20, start 1500, by date: game 2 (01-10), game 1 (02-01), game 3 (03-05); game 4 is
    # unfinished (not rated) and game 5 invalid (left out).
    #   game 2: Bob 0-1 Alice, 1500 v 1500: Alice 1510, Bob 1490
    #   game 1: Alice 1-0 Bob: E(Alice) = 1/(1+10^(-20/400)) = 0.528751 -> +9.42498:
    #           Alice 1519.42498, Bob 1480.57502
    #   game 3: Carol draws Alice: E(Carol) = 1/(1+10^(19.42498/400)) = 0.472074 -> +0.55852:
    #           Carol 1500.55852, Alice 1518.86646
    assert alice["rating"] == pytest.approx(1518.87, abs=0.01) and alice["rated_games"] == 3
    assert bob["rating"] == pytest.approx(1480.58, abs=0.01) and bob["rated_games"] == 2
    assert carol["rating"] == pytest.approx(1500.56, abs=0.01) and carol["rated_games"] == 1
    # chu-kagamigi: Dave beats Erin twice (as Sente on 04-02, as Gote on 04-03): 1510, then
    # +9.42498 as in shogi's second game
    assert player(report, "Dave", "chu-kagamigi")["rating"] == pytest.approx(1519.42, abs=0.01)
    assert player(report, "Erin", "chu-kagamigi")["rating"] == pytest.approx(1480.58, abs=0.01)
    assert player(report, "Erin", "dai-kagamigi")["rating"] == 1500.0  # a draw between equals
    # players sorted by variant, then rating
    assert [p["player"] for p in report["players"] if p["variant"] == "shogi"] == ["Alice", "Carol", "Bob"]


def test_stats_filters(archive):
    report = archive_stats(archive, variant="shogi", player="alice")
    shogi = by_variant(report)["shogi"]
    # Alice's games 1, 2, 3: lengths [4, 6, 8]
    assert shogi["games"] == 3 and (shogi["length"]["p25"], shogi["length"]["median"]) == (5, 6)
    assert [p["player"] for p in report["players"]] == ["Alice"]
    assert report["players"][0]["rating"] == pytest.approx(1518.87, abs=0.01)  # every game still rated
    report = archive_stats(archive, variant="shogi", include_invalid=True)
    shogi = by_variant(report)["shogi"]
    # game 5 added: 2 plies, 1-0, first move P-c4
    assert shogi["games"] == 5 and shogi["length"]["min"] == 2 and shogi["results"]["sente_wins"] == 2
    assert shogi["first_moves"][:2] == [{"move": "P-c4", "games": 2}, {"move": "P-g4", "games": 2}]
    quick = archive_stats(archive, variant="shogi", replay=False)
    assert "promotions" not in by_variant(quick)["shogi"]
    assert by_variant(quick)["shogi"]["first_moves"] == by_variant(archive_stats(archive))["shogi"]["first_moves"]
    rows = stats_rows(archive_stats(archive, variant="shogi"))
    assert ("shogi", "results", "draws", "share", 0.25) in rows
    assert ("shogi", "player", "Bob", "sente_unfinished", 1) in rows


# --- the commands ---------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cli():
    return main


def run(cli, *args):
    result = CliRunner().invoke(cli, [str(a) for a in args])
    assert "Traceback" not in result.output, result.output
    return result


def run_json(cli, *args):
    result = run(cli, *args, "--json")
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_cli_search(cli, db):
    out = run(cli, "search", "--db", db, "--game", 1, "--ply", 3)
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[0] == f"Position (shogi, after ply 3 of game 1): {X}"
    assert lines[1] == "3 games reach it:"
    assert lines[3].split() == ["1", "3", "Alice", "Bob", "1-0", "2024.02.01", "shogi", "valid"]
    assert lines[5].split()[:2] == ["3", "7"]
    data = run_json(cli, "search", "--db", db, "-v", "shogi", "-p", SHOGI_START)
    assert [(g["id"], g["plies"]) for g in data["games"]] == [(1, [0]), (2, [0]), (3, [0, 4]), (4, [0])]
    assert data["query"]["position"] == SHOGI_START and data["rejected"] == 0
    data = run_json(cli, "search", "--db", db, "-v", "shogi", "-p", AFTER_C4, "--include-invalid", "--limit", 2)
    assert [g["id"] for g in data["games"]] == [1, 3]
    out = run(cli, "search", "--db", db, "-v", "Shogi", "-p", X.replace(" w ", " b "))
    assert out.exit_code == 0 and out.output.splitlines()[-1] == "No game reaches it."


def test_cli_material(cli, db):
    out = run(cli, "search", "--db", db, "-v", "shogi", "--material", "S:+B=1; G:B=0")
    assert out.exit_code == 0, out.output
    assert out.output.splitlines()[0] == "Material (shogi): Sente +B = 1 and Gote B = 0"
    assert out.output.splitlines()[-1].split()[:2] == ["1", "5"]
    data = run_json(cli, "search", "--db", db, "-v", "chu-kagamigi", "-m", "P<12")
    assert [(g["id"], g["ply"]) for g in data["games"]] == [(6, 12)] and data["count"] == 1


def test_cli_explore(cli, db):
    out = run(cli, "explore", "--db", db, "-v", "shogi")
    assert out.exit_code == 0, out.output
    lines = out.output.splitlines()
    assert lines[1] == "4 games; every game confirmed"
    assert lines[2].split()[:2] == ["MOVE", "GAMES"]
    # a shogi position: the moves in Japanese (the variant's style), or in LSN on asking
    assert lines[3].split() == ["▲７六歩", "2", "1", "0", "1", "0", "7.0", "2024.03.05"]
    plain = run(cli, "explore", "--db", db, "-v", "shogi", "--style", "algebraic").output.splitlines()
    assert plain[3].split() == ["P-c4", "2", "1", "0", "1", "0", "7.0", "2024.03.05"]
    data = run_json(cli, "explore", "--db", db, "--game", 2, "--ply", 3)
    assert [(m["move"], m["games"]) for m in data["moves"]] == [("K-d8", 1), ("P-d6", 1), ("P-g6", 1)]
    assert [m["text"] for m in data["moves"]] == ["△６二玉", "△６四歩", "△３四歩"]
    assert data["games"] == 3 and data["confirmed"] == "all"


def test_cli_stats(cli, db):
    out = run(cli, "stats", "--db", db, "-v", "shogi")
    assert out.exit_code == 0, out.output
    text = out.output
    assert "shogi: 4 games, 22 plies" in text
    assert "Sente wins 1 (25.0%)" in text and "min 4, p25 4, median 5, p75 6.5, max 8" in text
    assert "first moves:  P-g4 2, P-c4 1, R-i2 1" in text and "promotions:   B 1" in text
    assert any(line.split()[:3] == ["Alice", "1518.9", "3"] for line in text.splitlines())
    data = run_json(cli, "stats", "--db", db, "--player", "Dave")
    assert [(p["player"], p["variant"]) for p in data["players"]] == [("Dave", "chu-kagamigi")]
    out = run(cli, "stats", "--db", db, "--csv")
    assert out.exit_code == 0
    rows = list(csv.reader(io.StringIO(out.output)))
    assert rows[0] == ["variant", "section", "key", "field", "value"]
    assert ["chu-kagamigi", "promotions", "P", "count", "2"] in rows
    assert ["shogi", "player", "Alice", "rating", "1518.87"] in rows


@pytest.mark.parametrize("args, message", [
    (["search", "-v", "shogi", "-p", "lnsgkgsnl/9 b - 1"], "Invalid value for '--position': bad position string"),
    (["search", "--game", 99, "--ply", 0], "no game 99 in"),
    (["search", "--game", 1, "--ply", 7], "Invalid value for '--ply': game 1 has 6 plies"),
    (["explore", "--game", 1, "--ply", 9], "game 1 has 6 plies"),
    (["search", "-p", X], "needs its variant"),
    (["search", "-v", "shogi", "-m", "Q>=1"], "Invalid value for '--material'"),
    (["search"], "give --position"),
    (["explore", "-v", "no-such-variant"], "unknown variant"),
])
def test_cli_errors_are_one_line(cli, db, args, message):
    out = run(cli, *args, "--db", db)
    assert out.exit_code != 0
    errors = [line for line in out.output.splitlines() if line.startswith("Error")]
    assert len(errors) == 1 and message in errors[0], out.output


def test_cli_missing_database(cli, tmp_path):
    out = run(cli, "stats", "--db", tmp_path / "none.db")
    assert out.exit_code == 1 and out.output.startswith("Error: no archive at")
