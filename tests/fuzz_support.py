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


# --- a campaign across every reader (issue 24: no traceback in 10,000+ cases) ------------------------

WRITTEN = ("lsn", "kif", "ki2", "csa", "jkf", "usi", "json")
HOSTILE = [b"{", b"}", b"(", b")", b"[", b"]", b'"', b"\\", b"$", b"%", b"\n", b"\x00", b"\x1b", b"\x1a",
           b"9" * 40, b"$" + b"9" * 3000, b"[" * 3000, b"{" * 3000, b'"forks": ' + b"[" * 2000,
           b'"variations": ' + b"[" * 2000, "終了".encode(), "手合割：平手\n".encode(), b'[Variant "Shoshogi"]\n',
           b'[Variant "nonesuch"]\n', b"setoption name UCI_Variant value chu-shogi\n",
           b"setoption name setup value free-king\n", b"'daikifu-tag X: y\n", b"$EVENT:a,b\n",
           b"\xef\xbb\xbf", b"\xff\xfe", b"(" * 150]


def record_sources(root) -> list[tuple[str, bytes]]:
    """(name, bytes) of records in every format the readers take: real records of tests/data/real
    and sample games of data/sample as written by each writer (LSN, KIF, CSA, JKF, USI, JSON)."""
    from pathlib import Path

    from daikifu.formats.reading import UnsupportedConversion, read_record, write_record
    root = Path(root)
    real = root / "tests" / "data" / "real"
    out = [(str(p.relative_to(real)), p.read_bytes()) for p in sorted(real.rglob("*"))
           if p.is_file() and p.suffix != ".md" and p.stat().st_size < 200_000]
    for sample in ("shogi.lsn", "chu-shogi-examples.lsn", "dai-mitregi-stepping.lsn", "annotated.lsn"):
        data = (root / "data" / "sample" / sample).read_bytes()
        games = list(read_record(data, name=sample))[:2]
        for fmt in WRITTEN:
            for n, game in enumerate(games):
                try:
                    out.append((f"{sample}#{n}.{fmt}", write_record(game, fmt)))
                except UnsupportedConversion:
                    pass
    return out


def mutate_hostile(data: bytes, rng: random.Random) -> bytes:
    """:func:`mutate`, or a hostile piece inserted (deep brackets, NUL, a foreign variant ...)."""
    if rng.random() < 0.6:
        return mutate(data.split(b"\n"), rng)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(len(data) + 1)
        data = data[:i] + rng.choice(HOSTILE) + data[i:]
    return data


def campaign(root, cases: int, seed: int) -> dict:
    """Read ``cases`` mutated records (auto-detected, or read as their own format every other
    case; one in five told it is Chu Shogi), write every game read back in its format and as LSN, and count what went wrong: a
    traceback (any exception but "not a record" and a writer's refusal) or an error without a
    line.  Returns the counts and the first few failures."""
    import traceback

    from daikifu.formats.reading import NotARecordError, UnsupportedConversion, read_record, write_record
    rng = random.Random(seed)
    sources = record_sources(root)
    counts = {"cases": 0, "games": 0, "valid": 0, "not_a_record": 0, "tracebacks": 0, "unlocated": 0,
              "written": 0}
    failures = []
    formats = {"kif", "ki2", "csa", "jkf", "usi", "json", "lsn", "csg"}  # extensions read as that format
    for n in range(cases):
        name, data = sources[n % len(sources)]
        fmt = name.rsplit(".", 1)[-1] if n % 2 and name.rsplit(".", 1)[-1] in formats else None
        case = mutate_hostile(data, rng)
        counts["cases"] += 1
        try:
            # one case in five read as another variant than its own (the mismatch check's path)
            games = list(read_record(case, name=name, fmt=fmt, lenient=bool(n % 3 == 0),
                                     variant="chu-shogi" if n % 5 == 4 else None))
        except NotARecordError:
            counts["not_a_record"] += 1
            continue
        except Exception:  # noqa: BLE001 - the campaign counts every crash
            counts["tracebacks"] += 1
            failures.append((name, n, traceback.format_exc(limit=3)))
            continue
        for game in games:
            counts["games"] += 1
            counts["valid"] += game.valid
            if any(e.kind == "error" and e.line is None for e in game.errors):
                counts["unlocated"] += 1
                failures.append((name, n, [str(e) for e in game.errors]))
            if not game.valid:
                continue
            for target in {fmt if fmt in WRITTEN else "lsn", "lsn"}:
                try:
                    written = write_record(game, target)
                    list(read_record(written, name=f"{name} as {target}", fmt=target))
                    counts["written"] += 1
                except UnsupportedConversion:
                    pass
                except Exception:  # noqa: BLE001
                    counts["tracebacks"] += 1
                    failures.append((name, n, traceback.format_exc(limit=3)))
    counts["failures"] = failures[:10]
    return counts
