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

# This folder is installed as daikifu.archive; imported under another name (``import archive`` from
# the repository's root) its classes would be other classes than daikifu.archive's, and objects
# of one copy (pickled rule sets, errors) would not be those of the other.
if __name__ != "daikifu.archive":
    raise ImportError(f"import this package as 'daikifu.archive', not as {__name__!r} "
                      f"(e.g. from daikifu.archive import Archive; install daikifu with: pip install -e .)", name=__name__)


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
