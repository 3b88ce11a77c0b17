"""Mutations of real records for fuzzing the readers (a fixed seed gives the same cases)."""

from __future__ import annotations

import random


def mutate(lines: list[bytes], rng: random.Random) -> bytes:
    """One to four edits of a record's lines: delete, duplicate or swap lines, overwrite bytes,
    truncate, insert random bytes."""
    lines = list(lines)
    for _ in range(rng.randint(1, 4)):
        op = rng.randrange(6)
        i = rng.randrange(len(lines)) if lines else 0
        if op == 0 and lines:
            del lines[i]
        elif op == 1 and lines:
            lines.insert(i, lines[i])
        elif op == 2 and len(lines) > 1:
            j = rng.randrange(len(lines))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == 3 and lines:
            line = bytearray(lines[i])
            for _ in range(rng.randint(1, 3)):
                pos = rng.randrange(len(line) + 1)
                line[pos:pos + rng.randint(0, 2)] = bytes(rng.randrange(256) for _ in range(rng.randint(0, 3)))
            lines[i] = bytes(line)
        elif op == 4:
            data = b"\n".join(lines)
            data = data[:rng.randrange(len(data) + 1)]
            lines = data.split(b"\n")
        else:
            lines.insert(i, bytes(rng.randrange(256) for _ in range(rng.randint(0, 40))))
    return b"\n".join(lines)
