"""daikifu: game records of large shogi variants, read, validated, stored and searched.

The distribution installs one name, ``daikifu``, with four layers below it; each imports only the
ones before it:

- :mod:`daikifu.replay`: the rules core (variants, boards, moves, perft, self-play);
- :mod:`daikifu.formats`: record formats (LSN, KIF, ...) and the reading pipeline;
- :mod:`daikifu.archive`: the SQLite archive, import, search and statistics;
- :mod:`daikifu.web`: the Flask viewer.

``python -m daikifu`` runs the command line (:mod:`daikifu.cli`).
"""
