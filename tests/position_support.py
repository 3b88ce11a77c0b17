"""Position strings for tests, written square by square, and the legality check the rules tests share."""

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


def legal(board, move) -> bool:
    """Whether ``move`` is legal in ``board``; the single-move check (``illegal_reason``) and the
    move generator must agree on it, or the test fails here."""
    reason = board.illegal_reason(move)
    assert (reason is None) == (move in board.legal_moves()), (move, reason)
    return reason is None
