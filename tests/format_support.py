"""What the readers say of a file that is not a record, written out once for the tests that check it.

Spelled out rather than built from ``format_names()`` so that a reader added or dropped without the
message following it fails these tests.
"""

NOT_A_RECORD = ("not a record in a format daikifu reads (LSN (also the PGN of ChuShogiLite and Jocly), KIF, KI2, "
                "CSA, JKF, USI, daikifu JSON, Chu Shogi server (.csg), lishogi NDJSON, Tenjiku Shogi program (.tnj))")
