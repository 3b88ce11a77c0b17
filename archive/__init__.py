"""The archive: games and every position they reach, in SQLite (see docs/archive.md).

>>> import tempfile, os
>>> from daikifu.archive import Archive, import_paths
>>> folder = tempfile.mkdtemp()
>>> record = os.path.join(folder, "game.lsn")
>>> _ = open(record, "w").write('[Variant "Shogi"]\\n[Sente "A"]\\n[Gote "B"]\\n[Result "*"]\\n\\n1. P-c4 P-c6 *\\n')
>>> with Archive(os.path.join(folder, "games.db")) as archive:
...     summary = import_paths(archive, [record])
...     (summary.imported, [g["id"] for g in archive.games()])
(1, [1])
"""

import daikifu

_EXPORTS = {
    "ImportSummary": ".importer", "import_paths": ".importer", "import_records": ".importer",
    "QueryError": ".queries", "Replayer": ".queries", "Target": ".queries", "explore": ".queries",
    "parse_material": ".queries", "search_material": ".queries", "search_position": ".queries", "target": ".queries",
    "archive_stats": ".stats", "stats_csv": ".stats",
    "Archive": ".store", "ArchiveError": ".store", "Record": ".store", "digest_of": ".store", "make_record": ".store",
    "MainLine": ".store", "record_of": ".store",
    "DEFAULT_DB": ".schema", "ENV_DB": ".schema", "STATUSES": ".schema",
}
# the names above are imported on first use: a command's --help imports this package without them
__getattr__, __dir__ = daikifu.lazy_exports(__name__, _EXPORTS)

__all__ = list(_EXPORTS)
