"""Position strings for tests, written square by square."""

from __future__ import annotations

LETTERS = "abcdefghijklmnop"


def position_text(pieces: dict, files: int, ranks: int, turn: str = "b", hands: str = "-") -> str:
    """A position string from {"e5": "R", "e12": "r", "e2": "+R", "d4": "WZ"} (upper case = the
    first player; IDs longer than one letter, other than "+X", are written in parentheses)."""
    rows = []
    for rank in range(ranks, 0, -1):
        row, empty = "", 0
        for f in LETTERS[:files]:
            ident = pieces.get(f"{f}{rank}")
            if ident is None:
                empty += 1
                continue
            if empty:
                row += str(empty)
                empty = 0
            bare = len(ident) == 1 or (len(ident) == 2 and ident[0] == "+")
            row += ident if bare else f"({ident})"
        rows.append(row + (str(empty) if empty else ""))
    return f"{'/'.join(rows)} {turn} {hands} 1"
