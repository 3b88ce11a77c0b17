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

from .importer import ImportSummary, import_paths
from .queries import (QueryError, Replayer, Target, explore, parse_material, search_material, search_position,
                      target)
from .stats import archive_stats, stats_csv
from .store import DEFAULT_DB, ENV_DB, STATUSES, Archive, ArchiveError, Record, digest_of, make_record

__all__ = [
    "Archive", "ArchiveError", "Record", "make_record", "digest_of", "STATUSES", "DEFAULT_DB", "ENV_DB",
    "import_paths", "ImportSummary",
    "Replayer", "Target", "target", "search_position", "search_material", "parse_material", "explore", "QueryError",
    "archive_stats", "stats_csv",
]
