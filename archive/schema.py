"""The archive's SQLite schema, created and migrated from code.

The database is a plain SQLite file that Datasette and ``sqlite-utils`` open directly.  Tables
(documented for users, with the reasons for the layout, in ``docs/archive.md``):

``games``        one row per game: variant, rule set, start position, tags, players, result,
                 status, the first error, the game's text exactly as imported, the digest
``positions``    every position of every valid game's main line, keyed by the 64-bit hash
                 (``ply`` 0 = the start position), with the move played from it in compact form:
                 position search and the opening explorer read it
``annotations``  the main-line plies that carry a comment, NAGs or a clock (ply 0: the comment
                 before the first move); the moves themselves are in the game's text and in
                 ``positions.next``
``players``      one row per player name
``imports``      one row per file imported: when, and what came of it
``meta``         the schema version
``games_fts``    full-text index (contentless FTS5, rowid = game id) over event, site, players
                 and every comment of the game
``first_moves``  the opening explorer's summary of ply 0: per start position and first move, how
                 many (valid or truncated) games, their results, total length and latest date;
                 kept up to date by every insert, in the game's transaction (schema version 2)
``engine_analysis`` engine analysis per position hash and engine setting: a local engine's
                 (``daikifu analyse``) and the analysis a record carries (lishogi's ``[%eval]``
                 comments and NDJSON ``analysis``, engine ``lishogi``), stored by the import
                 (schema version 3; created by the first analysis before)

The layout is chosen for size: with every index, a database of generated Dai Kagamigi games takes
about 36 bytes per ply (see ``docs/archive.md`` for the measurements).

Schema changes are migrations: numbered functions that only add (tables, columns, indexes) and
never drop data (a new table is filled from the data already there).  :func:`migrate` runs the
ones a database has not had yet, each in one transaction with the version number it sets.
"""

from __future__ import annotations

import sqlite3

SCHEMA_VERSION = 3
# the names the command line needs to describe its options; here, in a module that imports
# nothing heavy, so that a command's --help does not load the store
ENV_DB = "DAIKIFU_DB"
DEFAULT_DB = "daikifu.db"
STATUSES = ("valid", "truncated", "invalid")
EXPLORER_SAMPLE = 100  # games reaching the position after ply 0 confirmed one by one (else a sample)


def _statements(script: str):
    """The SQL statements of ``script`` one by one (``executescript`` would commit the open
    transaction first: a migration runs in the one transaction that sets its version)."""
    statement = ""
    for line in script.splitlines(keepends=True):
        statement += line
        if sqlite3.complete_statement(statement):
            yield statement
            statement = ""


def _v1(db: sqlite3.Connection) -> None:
    for statement in _statements(V1_TABLES):
        db.execute(statement)


V1_TABLES = """
    CREATE TABLE IF NOT EXISTS players (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE
    );
    CREATE TABLE IF NOT EXISTS imports (
        id INTEGER PRIMARY KEY,
        file TEXT,                 -- path as given, or '-' for standard input
        format TEXT,               -- lsn or kif (by content); NULL until known
        started TEXT NOT NULL,     -- UTC, ISO 8601
        finished TEXT,             -- NULL while running or after an interruption
        games INTEGER NOT NULL DEFAULT 0,       -- games read
        imported INTEGER NOT NULL DEFAULT 0,    -- new games stored (not counting the two below)
        duplicates INTEGER NOT NULL DEFAULT 0,  -- same digest as a stored game: not stored
        prefixes INTEGER NOT NULL DEFAULT 0,    -- stored, main line a prefix of a stored game's or v.v.
        invalid INTEGER NOT NULL DEFAULT 0,     -- invalid games (stored unless --skip-invalid)
        plies INTEGER NOT NULL DEFAULT 0,       -- main-line plies read (valid moves)
        errors TEXT,               -- JSON list of the invalid games' first errors (at most 1000)
        error TEXT                 -- why the file could not be read, if it could not
    );
    CREATE TABLE IF NOT EXISTS games (
        id INTEGER PRIMARY KEY,
        variant TEXT NOT NULL,     -- slug (for an unknown variant: the Variant tag as written)
        ruleset TEXT NOT NULL DEFAULT '',  -- options differing from the defaults: 'a=b, c=d'
        start TEXT,                -- position string; NULL = the variant's start position
        event TEXT, site TEXT,
        date TEXT,                 -- as written: YYYY.MM.DD, '??' for unknown parts
        round TEXT,
        sente_id INTEGER REFERENCES players(id),
        gote_id INTEGER REFERENCES players(id),
        result TEXT NOT NULL DEFAULT '*',       -- 1-0, 0-1, 1/2-1/2, *
        termination TEXT,
        ply_count INTEGER NOT NULL DEFAULT 0,   -- main-line plies (for an invalid game: before the error)
        status TEXT NOT NULL,      -- valid, truncated (lenient import kept a prefix), invalid
        error TEXT,                -- the first error as JSON (file, game, line, column, ply, move, message ...)
        warnings TEXT,             -- JSON list of warnings (lenient import, wrong result claims), or NULL
        tags TEXT,                 -- JSON [[name, value], ...] of the tags not in a column, or NULL
        source BLOB NOT NULL,      -- the game's text exactly as read (LSN or KIF), UTF-8, zlib-compressed
        source_format TEXT NOT NULL,  -- lsn or kif
        source_line INTEGER,       -- line of the game's first line in its file
        import_id INTEGER REFERENCES imports(id),
        digest TEXT NOT NULL,      -- content key: variant, rule set, start position, main-line moves
        end_hash INTEGER,          -- hash of the final position of the main line (valid games)
        prefix_of INTEGER REFERENCES games(id),  -- this main line is a proper prefix of that game's
        extends INTEGER REFERENCES games(id)     -- that game's main line is a proper prefix of this one
    );
    CREATE UNIQUE INDEX IF NOT EXISTS games_digest ON games(digest);
    CREATE INDEX IF NOT EXISTS games_variant ON games(variant, status);
    CREATE INDEX IF NOT EXISTS games_sente ON games(sente_id);
    CREATE INDEX IF NOT EXISTS games_gote ON games(gote_id);
    CREATE INDEX IF NOT EXISTS games_date ON games(date);
    CREATE INDEX IF NOT EXISTS games_end ON games(end_hash) WHERE end_hash IS NOT NULL;
    CREATE TABLE IF NOT EXISTS annotations (
        game_id INTEGER NOT NULL REFERENCES games(id),
        ply INTEGER NOT NULL,      -- 1 = the first move; 0 = the comment before the first move
        move TEXT,                 -- the move in canonical notation (NULL for ply 0)
        comment TEXT,
        nags TEXT,                 -- space-separated NAG numbers
        clock TEXT,                -- from a [%clk ...] or [%emt ...] command in the comment: 'clk 0:10:00'
        PRIMARY KEY (game_id, ply)
    ) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS positions (
        hash INTEGER NOT NULL,     -- 64-bit Zobrist hash of the position, signed
        game_id INTEGER NOT NULL REFERENCES games(id),
        ply INTEGER NOT NULL,      -- plies played to reach it (0 = start position)
        next TEXT,                 -- the move played from it in that game (compact form), NULL at the end
        PRIMARY KEY (hash, game_id, ply)
    ) WITHOUT ROWID;
    CREATE VIRTUAL TABLE IF NOT EXISTS games_fts USING fts5(
        event, site, sente, gote, comments, content=''
    );
    CREATE TABLE IF NOT EXISTS meta (
        key TEXT PRIMARY KEY,
        value TEXT
    );
    """


# One summary row of the games that start in a position and play a move from it; what the
# explorer aggregated from ``positions`` at ply 0 joined to ``games``, one row per game, before.
# Primary-key columns cannot be NULL in a WITHOUT ROWID table: '' stands for NULL in ``start``
# (the variant's start position) and in ``next`` (games without moves).  The hash leads the key
# because the explorer looks the position up by its hash, as it does in ``positions``.
FIRST_MOVES_TABLE = """
CREATE TABLE IF NOT EXISTS first_moves (
    hash INTEGER NOT NULL,     -- positions.hash at ply 0: the start position's hash
    variant TEXT NOT NULL,
    ruleset TEXT NOT NULL,
    start TEXT NOT NULL,       -- games.start, '' for the variant's start position (NULL there)
    next TEXT NOT NULL,        -- the first move (compact form), '' for games without moves
    games INTEGER NOT NULL,    -- valid and truncated games (invalid ones have no positions)
    sente_wins INTEGER NOT NULL,
    gote_wins INTEGER NOT NULL,
    draws INTEGER NOT NULL,    -- the other games are unfinished
    plies INTEGER NOT NULL,    -- sum of the games' ply_count
    last_date TEXT,            -- the latest games.date without '?' in it, NULL if none
    PRIMARY KEY (hash, variant, ruleset, start, next)
) WITHOUT ROWID
"""


def _v2(db: sqlite3.Connection) -> None:
    """The ``first_moves`` summary, filled from the stored games (one scan of ``positions``)."""
    db.execute(FIRST_MOVES_TABLE)
    db.execute("""
    INSERT INTO first_moves (hash, variant, ruleset, start, next, games, sente_wins, gote_wins, draws,
                             plies, last_date)
    SELECT p.hash, g.variant, g.ruleset, coalesce(g.start, ''), coalesce(p.next, ''), count(*),
           sum(g.result = '1-0'), sum(g.result = '0-1'), sum(g.result = '1/2-1/2'), sum(g.ply_count),
           max(CASE WHEN instr(g.date, '?') = 0 THEN g.date END)
    FROM positions p JOIN games g ON g.id = p.game_id
    WHERE p.ply = 0 AND g.status != 'invalid'
    GROUP BY 1, 2, 3, 4, 5
    """)


ENGINE_ANALYSIS_TABLE = """
CREATE TABLE IF NOT EXISTS engine_analysis (
    hash INTEGER NOT NULL,      -- the position's 64-bit hash (positions.hash)
    engine TEXT NOT NULL,       -- the engine's name (HaChu), or the source of imported analysis (lishogi)
    version TEXT NOT NULL,      -- its version (0.21; '' for imported analysis)
    options TEXT NOT NULL,      -- the engine's options and the game's rule set: 'name=value,...;ruleset'
    depth INTEGER NOT NULL,     -- the depth asked for (0: by time, or imported)
    movetime INTEGER NOT NULL,  -- the time asked for, in milliseconds (0: by depth, or imported)
    reached INTEGER NOT NULL,   -- the depth the engine reached (0: not known)
    score INTEGER NOT NULL,     -- centipawns, Sente's point of view (a mate: +-(100000 - moves))
    best TEXT,                  -- the best move (compact form), NULL when daikifu refused the engine's first move
                                -- or the source gave none
    pv TEXT NOT NULL,           -- the principal variation daikifu accepts (compact forms, space-separated)
    engine_pv TEXT NOT NULL,    -- the line as the engine wrote it
    cut INTEGER NOT NULL,       -- the engine's moves cut from the first illegal one on
    cut_reason TEXT,            -- why (the move and daikifu's verdict)
    nodes INTEGER,
    created TEXT NOT NULL,      -- UTC, ISO 8601
    mate INTEGER,               -- moves to mate when the score is a mate (+: Sente mates), as the source gave it
    judgment TEXT,              -- the source's verdict on the move into the position (lishogi: Inaccuracy,
                                -- Mistake, Blunder), in the game it was imported with
    PRIMARY KEY (hash, engine, version, options, depth, movetime)
) WITHOUT ROWID
"""


def _v3(db: sqlite3.Connection) -> None:
    """``engine_analysis`` as part of the schema, with a mate and a judgment column (an archive
    analysed before has the table without them)."""
    db.execute(ENGINE_ANALYSIS_TABLE)
    have = {row[1] for row in db.execute("PRAGMA table_info(engine_analysis)")}
    for column, kind in (("mate", "INTEGER"), ("judgment", "TEXT")):
        if column not in have:
            db.execute(f"ALTER TABLE engine_analysis ADD COLUMN {column} {kind}")


MIGRATIONS = {1: _v1, 2: _v2, 3: _v3}


def schema_version(db: sqlite3.Connection) -> int:
    try:
        row = db.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone()
    except sqlite3.OperationalError:
        return 0
    return int(row[0]) if row else 0


def migrate(db: sqlite3.Connection) -> int:
    """Bring the database up to :data:`SCHEMA_VERSION`; returns the version it had before."""
    before = schema_version(db)
    if before > SCHEMA_VERSION:
        raise RuntimeError(f"the database has schema version {before}; this daikifu knows up to "
                           f"{SCHEMA_VERSION}: upgrade daikifu")
    for version in range(before + 1, SCHEMA_VERSION + 1):
        # one transaction per migration, with the version it sets: an interrupted migration
        # leaves the database as it was (a summary filled twice would be wrong, not just slow)
        db.execute("BEGIN IMMEDIATE")
        if schema_version(db) >= version:  # another connection ran it while this one waited for the lock
            db.execute("COMMIT")
            continue
        try:
            MIGRATIONS[version](db)
            db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', ?)", (str(version),))
        except BaseException:
            if db.in_transaction:
                db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    return before
