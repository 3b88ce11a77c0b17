"""Variant definitions: the data files that describe each game, and where they are found.

Every variant is one TOML file (see ``docs/variants.md`` for the format).  The files shipped with
daikifu live in ``replay/variants/``; a user adds or overrides variants by putting files in a
directory named by ``--variants-dir`` or by the ``DAIKIFU_VARIANTS`` environment variable (several
directories separated by ``os.pathsep``).  A user file with the same ``slug`` as a bundled one
replaces it.
"""

from __future__ import annotations

import contextlib
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from .generators import GeneratorError, named_generator
from .position import PositionError, parse_position
from .rulecache import cached_value
from .xbetza import XBetzaError, parse as parse_betza

__all__ = [
    "VariantError",
    "UnknownVariantError",
    "IncompleteVariantError",
    "PieceType",
    "Option",
    "Provenance",
    "Variant",
    "NOTATION_STYLES",
    "bundled_directory",
    "variant_directories",
    "list_variants",
    "load_variant",
    "load_variant_file",
    "variant_file_errors",
    "VariantRegistry",
    "OptionSyntaxError",
    "parse_options",
    "extra_variants_dir",
]

BUNDLED_DIR = Path(__file__).with_name("variants")
ENV_VAR = "DAIKIFU_VARIANTS"
_ID_RE = re.compile(r"[+!]?[A-Z][A-Z0-9']*\Z")
_SLUG_RE = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*\Z")


#: How a variant's squares and moves are shown by default: "algebraic" (files a, b, ... from the first
#: player's left, ranks 1, 2, ... from the bottom, LSN moves) or "shogi" (files numbered from the
#: right, ranks from the top, moves in Japanese or Western shogi notation).
NOTATION_STYLES = ("algebraic", "shogi")


class VariantError(ValueError):
    """A variant file that cannot be used: names the file and what is wrong."""


class UnknownVariantError(VariantError, LookupError):
    """No variant of that name."""


class IncompleteVariantError(VariantError):
    """The variant is known but its rules are not complete enough to play or validate games."""


class OptionSyntaxError(ValueError):
    """Variant options written in a shape other than ``key=value``."""


def parse_options(text) -> dict:
    """Variant options written as ``key=value`` parts: the one parser behind ``--option``, LSN's
    ``RuleSet`` tag and KIF's ``変種オプション`` line.

    ``text`` is a string (parts separated by commas, semicolons, ideographic commas or white
    space; spaces around ``=`` are allowed) or an iterable of single ``key=value`` strings.
    Every part must have a key and a value; a malformed part is an error, never dropped.

    >>> parse_options("soaring-eagle = literal, pass=forbidden")
    {'soaring-eagle': 'literal', 'pass': 'forbidden'}
    >>> parse_options(["ranks=16"])
    {'ranks': '16'}
    >>> parse_options("ranks")
    Traceback (most recent call last):
    ...
    daikifu.replay.variant.OptionSyntaxError: 'ranks' is not KEY=VALUE
    """
    if isinstance(text, str):
        parts = re.split(r"[,;\u3001]\s*|\s+", re.sub(r"\s*=\s*", "=", text.strip()))
    else:
        parts = [str(t).strip() for t in text]
    options = {}
    for part in parts:
        if not part:
            continue
        key, sep, value = part.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise OptionSyntaxError(f"{part!r} is not KEY=VALUE")
        options[key.strip()] = value.strip()
    return options


@dataclass(frozen=True)
class PieceType:
    """One kind of piece: its ID, name, moves (XBetza) and promotion."""

    index: int  # 1-based, in file order; used to encode pieces on the board
    id: str
    name: str
    betza: str
    promotes: str | None = None
    royal: bool = False
    kanji: str | None = None
    kanji_name: str | None = None  # the full name game records write (lishogi's KIF: 獅子, 龍馬)
    kanji_board: str | None = None  # the name KIF board diagrams write where it is not ``kanji`` (成角)
    kanji_move: str | None = None  # the name Japanese move text gives where it is not ``kanji`` (lishogi's 金飛車)
    western: str | None = None  # the abbreviation Western move text gives where it is not the ID (Ln)
    aliases: tuple[str, ...] = ()
    description: str | None = None
    provenance: str | None = None
    betza_zones: tuple[str, ...] = ()  # one XBetza string per zone, when moves depend on the zone
    generators: tuple = ()  # named generators for moves XBetza cannot express (dicts)
    rank: int = 0  # rank for range jumps: a range-jumping piece jumps only pieces of lower rank
    burns: str | None = None  # "adjacent-enemies": its moves remove the enemy pieces next to the destination


@dataclass(frozen=True)
class Choice:
    name: str
    description: str
    pieces: dict
    rules: dict
    board: dict = field(default_factory=dict)  # files, ranks, start


@dataclass(frozen=True)
class Option:
    """A named rule option, e.g. which reading of an ambiguous piece to use."""

    name: str
    description: str
    default: str
    choices: dict  # name -> Choice
    subvariant: bool = False  # each choice is a named subvariant (listed on its own by `variants`)


@dataclass(frozen=True)
class Provenance:
    """Where one reconstructed or disputed choice in a variant file came from."""

    topic: str
    choice: str
    source: str
    confidence: str
    alternative: str = ""
    reconstructed: bool = False


RULE_DEFAULTS = {
    "promotion_zone": 0,  # depth in ranks, counted from the far side
    "promotion_forced": "stuck",  # "stuck": only where the piece could never move again; "last-rank"; "never"
    # which moves may promote: "zone" (shogi: a move that starts or ends in the zone) or
    # "enter-or-capture" (Chu Shogi: a move from outside into the zone, or a capture that starts or
    # ends in it; a quiet move inside the zone cannot promote)
    "promotion_rule": "zone",
    "promotion_last_rank": [],  # IDs that may also promote on any move that ends on the last rank
    # "checkmate": a move may not leave the mover's last royal piece attacked, and checkmating it
    # wins (while a side has several royals, any of them may be left attacked and captured);
    # "capture": moving into check is legal, and a side loses when its last royal is captured
    "royal_loss": "checkmate",
    # "loses": a side left with its royal piece alone (bare) loses, unless the opponent is in the
    # same state or can bare it back at once (see Board.outcome); "none": no bare-royal rule
    "bare_royal": "none",
    "bare_royal_uncounted": [],  # IDs that do not count as material for the side that bares
    "lions": [],  # IDs of the pieces the Lion-trading rules are about
    "lion_protected": False,  # a Lion may not take a protected Lion that is not adjacent to it ...
    "lion_cheap": [],  # ... unless the same move first took a piece not listed here
    # after a non-Lion takes a Lion, on the next move a non-Lion may not take a Lion: "none" (no
    # such rule), "same-square" (except on the square of that capture), "strict" (nowhere)
    "lion_counter_strike": "none",
    "drops": False,
    "drop_nifu": [],  # IDs that may not be dropped on a file holding an own unpromoted piece of that ID
    "drop_no_dead_squares": True,
    "drop_mate_forbidden": [],  # IDs that may not give checkmate by being dropped
    "drop_caps": [],  # [{pieces = [IDs], per = "file"|"file-parity"|"square-colour"|"board", max = N}]
    "repetition": "sennichite",  # "sennichite": fourfold = draw, perpetual check loses; "none"
    "stalemate": "loss",  # the side with no legal move: "loss" (shogi) or "draw"
    "zones": [],  # ranks per zone counted from the mover's side, for zone-dependent moves
    "null_move": True,  # whether a piece may pass (step out and back to its empty start square)
    # the position checks (replay.legality) a set-up position may break, for compositions: a list
    # of their names, or true for all of them
    "allow_impossible": [],
    # range jumps (generator kind "range-jump"): whether a jumping piece may capture the piece of
    # equal or higher rank that stops it after it has jumped (false: only the first piece it meets)
    "jump_capture_blocker": False,
    "burn_spared": [],  # IDs that a burn (a piece with `burns`) never removes
    # IDs that burn passively: an enemy piece that ends its move next to one is removed after it
    "burns_passively": [],
}
# the rules a set-up position is checked against (replay.legality), by the name its problems carry
POSITION_RULES = ("royals", "no-royal", "kings-adjacent", "not-to-move-in-check", "dead-piece", "piece-count",
                  "hand-piece", "nifu", "drop-cap")
CAP_REGIONS = ("file", "file-parity", "square-colour", "board")
_ID_LISTS = ("drop_nifu", "drop_mate_forbidden", "promotion_last_rank", "bare_royal_uncounted", "lions",
             "lion_cheap", "burn_spared", "burns_passively")
BURNS = {"adjacent-enemies"}  # what a piece's `burns` may say
_RULE_VALUES = {
    "promotion_forced": {"stuck", "last-rank", "never"},
    "promotion_rule": {"zone", "enter-or-capture"},
    "royal_loss": {"checkmate", "capture"},
    "bare_royal": {"none", "loses"},
    "lion_counter_strike": {"none", "same-square", "strict"},
    "repetition": {"sennichite", "none"},
    "stalemate": {"loss", "draw"},
}


@dataclass(frozen=True, eq=False)
class Variant:
    """A variant as written in its data file, before options are applied."""

    slug: str
    name: str
    files: int
    ranks: int
    start: str
    pieces: tuple[PieceType, ...]
    rules: dict
    status: str = "playable"
    aliases: tuple[str, ...] = ()
    summary: str = ""
    missing: str = ""
    sources: tuple[str, ...] = ()
    options: dict = field(default_factory=dict)
    provenance: tuple[Provenance, ...] = ()
    path: str = ""
    style: str = "algebraic"  # how squares and moves are shown by default: one of NOTATION_STYLES

    @property
    def playable(self) -> bool:
        return self.status == "playable"

    @property
    def reconstructed(self) -> bool:
        """True when any part of the rules or setup is a reconstruction (shown to users)."""
        return any(p.reconstructed for p in self.provenance)

    def piece(self, ident: str) -> PieceType:
        """The piece type with this ID or alias (case-insensitive)."""
        found = self.piece_index().get(ident.upper())
        if found is None:
            raise KeyError(f"{self.name} has no piece {ident!r}")
        return found

    def piece_index(self) -> dict:
        """Upper-cased IDs and aliases -> piece type."""
        return self._index

    def __post_init__(self):
        table = {p.id.upper(): p for p in self.pieces}
        for p in self.pieces:
            for a in p.aliases:
                table.setdefault(a.upper(), p)
        object.__setattr__(self, "_index", table)

    def resolve_options(self, options: dict | None = None) -> dict:
        """Every option with its chosen value; unknown names or values raise ``VariantError``."""
        chosen = {name: opt.default for name, opt in self.options.items()}
        for key, value in (options or {}).items():
            if key not in self.options:
                known = ", ".join(sorted(self.options)) or "none"
                raise VariantError(f"{self.name} has no option {key!r} (options: {known})")
            if value not in self.options[key].choices:
                known = ", ".join(self.options[key].choices)
                raise VariantError(f"option {key!r} of {self.name} has no value {value!r} (values: {known})")
            chosen[key] = value
        return chosen

    def configured(self, options: dict | None = None) -> tuple[dict, dict, dict]:
        """Piece strings, rules and board after applying options.

        Returns ``(betza by ID, rules, board)`` where ``board`` has ``files``, ``ranks`` and
        ``start``.  A piece string override may also be a list: one string per zone.
        """
        chosen = self.resolve_options(options)
        betza = {p.id: (list(p.betza_zones) if p.betza_zones else p.betza) for p in self.pieces}
        rules = dict(self.rules)
        board = {"files": self.files, "ranks": self.ranks, "start": self.start}
        for name, value in chosen.items():
            choice = self.options[name].choices[value]
            betza.update(choice.pieces)
            rules.update(choice.rules)
            board.update(choice.board)
        return betza, rules, board

    def require_playable(self) -> None:
        if not self.playable:
            raise IncompleteVariantError(
                f"{self.name} is marked {self.status!r}: {self.missing or 'its rules are incomplete'}. "
                f"To use it, write a complete definition file (see docs/variants.md) and put it in a "
                f"directory given by --variants-dir or {ENV_VAR}.")


# --- loading -------------------------------------------------------------------------------------


def _fail(path, message):
    raise VariantError(f"{path}: {message}")


def load_variant_file(path: str | os.PathLike) -> Variant:
    """Read and check one variant file (the variant read is kept in the rule-set cache, by the
    file's path and content: reading a big variant's TOML costs a new process more than loading
    its compiled rules)."""
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as exc:
        _fail(path, f"cannot read: {exc.strerror}")
    return cached_value("variant", str(path).encode() + b"\0" + raw, lambda: _variant_from_toml(raw, path))


def _variant_from_toml(raw: bytes, path: Path) -> Variant:
    import tomllib  # (here: a variant file is read again only when it changed, see load_variant_file)

    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        _fail(path, f"not valid TOML: not UTF-8 ({exc.reason} at byte {exc.start})")
    except tomllib.TOMLDecodeError as exc:
        _fail(path, f"not valid TOML: {exc}")
    return variant_from_dict(data, str(path))


def variant_from_dict(data: dict, path: str = "<data>") -> Variant:
    for key in ("slug", "name", "files", "ranks"):
        if key not in data:
            _fail(path, f"missing required key {key!r}")
    slug = data["slug"]
    if not isinstance(slug, str) or not _SLUG_RE.match(slug):
        _fail(path, f"slug {slug!r} must be lower-case words joined by '-'")
    files, ranks = data["files"], data["ranks"]
    if not (isinstance(files, int) and isinstance(ranks, int) and 1 <= files <= 16 and 1 <= ranks <= 16):
        _fail(path, f"board {files}x{ranks}: files and ranks must be whole numbers from 1 to 16")
    style = data.get("style", "algebraic")
    if style not in NOTATION_STYLES:
        _fail(path, f"style {style!r} must be one of {', '.join(repr(s) for s in NOTATION_STYLES)}")
    status = data.get("status", "playable")
    if status not in ("playable", "incomplete"):
        _fail(path, f"status {status!r} must be 'playable' or 'incomplete'")

    pieces = []
    seen = {}
    for n, raw in enumerate(data.get("pieces", []), start=1):
        where = f"piece #{n}"
        for key in ("id", "name"):
            if key not in raw:
                _fail(path, f"{where}: missing {key!r}")
        if status == "playable" and not (raw.get("betza") or raw.get("betza_zones") or raw.get("generators")):
            _fail(path, f"{where} ({raw['id']}): needs 'betza', 'betza_zones' or 'generators'")
        pid = raw["id"]
        if not _ID_RE.match(pid):
            _fail(path, f"{where}: ID {pid!r} must be upper case letters/digits, optionally after '+' or '!'")
        for ident in (pid, *raw.get("aliases", [])):
            if ident.upper() in seen:
                _fail(path, f"{where}: ID or alias {ident!r} is already used by {seen[ident.upper()]}")
            seen[ident.upper()] = pid
        if status == "playable":
            for text in [raw.get("betza", "")] + list(raw.get("betza_zones", [])):
                try:
                    if text:
                        parse_betza(text)
                except XBetzaError as exc:
                    _fail(path, f"{where} ({pid}): {exc}")
            for spec in raw.get("generators", []):
                try:
                    named_generator(spec, 0)
                except GeneratorError as exc:
                    _fail(path, f"{where} ({pid}): generator: {exc}")
        unknown = set(raw) - {"id", "name", "betza", "promotes", "royal", "kanji", "kanji_name", "kanji_board",
                              "kanji_move", "western", "aliases", "description", "provenance", "betza_zones", "generators",
                              "rank", "burns"}
        if unknown:
            _fail(path, f"{where} ({pid}): unknown keys {sorted(unknown)}")
        rank = raw.get("rank", 0)
        if not isinstance(rank, int) or isinstance(rank, bool) or rank < 0:
            _fail(path, f"{where} ({pid}): rank = {rank!r}: expected a whole number 0 or more")
        burns = raw.get("burns")
        if burns is not None and burns not in BURNS:
            _fail(path, f"{where} ({pid}): burns = {burns!r}: expected one of {sorted(BURNS)}")
        pieces.append(PieceType(index=n, id=pid, name=raw["name"], betza=raw.get("betza", ""),
                                promotes=raw.get("promotes"), royal=bool(raw.get("royal", False)),
                                kanji=raw.get("kanji"), kanji_name=raw.get("kanji_name"),
                                kanji_board=raw.get("kanji_board"), kanji_move=raw.get("kanji_move"),
                                western=raw.get("western"),
                                aliases=tuple(raw.get("aliases", ())),
                                description=raw.get("description"), provenance=raw.get("provenance"),
                                betza_zones=tuple(raw.get("betza_zones", ())),
                                generators=tuple(raw.get("generators", ())), rank=rank, burns=burns))
    ids = {p.id for p in pieces}
    promoted_from = {}
    for p in pieces:
        if p.promotes is not None:
            if p.promotes not in ids:
                _fail(path, f"piece {p.id} promotes to unknown ID {p.promotes!r}")
            if p.promotes in promoted_from:
                _fail(path, f"{p.promotes} is the promotion of both {promoted_from[p.promotes]} and {p.id}")
            promoted_from[p.promotes] = p.id
    for p in pieces:
        if p.id in promoted_from and p.promotes:
            _fail(path, f"{p.id} is a promoted piece and cannot promote again")

    rules = dict(RULE_DEFAULTS)
    raw_rules = data.get("rules", {})
    unknown = set(raw_rules) - set(RULE_DEFAULTS)
    if unknown:
        _fail(path, f"[rules]: unknown keys {sorted(unknown)}: this version of daikifu does not know "
                    f"these rules and will not play the variant without them (known rules: "
                    f"{', '.join(sorted(RULE_DEFAULTS))})")
    rules.update(raw_rules)
    _check_rules(path, rules, ids)

    options = {}
    for name, raw in data.get("options", {}).items():
        choices = {}
        for cname, craw in raw.get("choices", {}).items():
            cp = dict(craw.get("pieces", {}))
            for pid, betza in cp.items():
                if pid not in ids:
                    _fail(path, f"option {name}={cname}: unknown piece {pid!r}")
                for text in ([betza] if isinstance(betza, str) else betza):
                    try:
                        parse_betza(text)
                    except XBetzaError as exc:
                        _fail(path, f"option {name}={cname}, piece {pid}: {exc}")
            cb = dict(craw.get("board", {}))
            if set(cb) - {"files", "ranks", "start"}:
                _fail(path, f"option {name}={cname}: board overrides may set files, ranks and start only")
            cr = dict(craw.get("rules", {}))
            bad = set(cr) - set(RULE_DEFAULTS)
            if bad:
                _fail(path, f"option {name}={cname}: unknown rules {sorted(bad)} (known rules: "
                            f"{', '.join(sorted(RULE_DEFAULTS))})")
            merged = dict(rules)
            merged.update(cr)
            _check_rules(f"{path}: option {name}={cname}", merged, ids)
            choices[cname] = Choice(cname, craw.get("description", ""), cp, cr, cb)
        default = raw.get("default")
        if default not in choices:
            _fail(path, f"option {name}: default {default!r} is not one of its choices {list(choices)}")
        options[name] = Option(name, raw.get("description", ""), default, choices,
                               bool(raw.get("subvariant", False)))

    provenance = []
    for n, raw in enumerate(data.get("provenance", []), start=1):
        for key in ("topic", "choice", "source", "confidence"):
            if key not in raw:
                _fail(path, f"provenance #{n}: missing {key!r}")
        provenance.append(Provenance(raw["topic"], raw["choice"], raw["source"], raw["confidence"],
                                     raw.get("alternative", ""), bool(raw.get("reconstructed", False))))

    variant = Variant(slug=slug, name=data["name"], files=files, ranks=ranks,
                      start=data.get("start", ""), pieces=tuple(pieces), rules=rules, status=status,
                      aliases=tuple(data.get("aliases", ())), summary=data.get("summary", ""),
                      missing=data.get("missing", ""), sources=tuple(data.get("sources", ())),
                      options=options, provenance=tuple(provenance), path=path, style=style)
    if status == "playable":
        if not variant.start:
            _fail(path, "a playable variant needs a 'start' position")
        try:
            parse_position(variant, variant.start)
        except PositionError as exc:
            _fail(path, f"start position: {exc}")
        if sum(p.royal for p in pieces) == 0:
            _fail(path, "no piece is royal")
        for opt in options.values():
            for choice in opt.choices.values():
                if choice.board:
                    shape = _Shape(variant, choice.board)
                    try:
                        parse_position(shape, shape.start)
                    except PositionError as exc:
                        _fail(path, f"option {opt.name}={choice.name}: start position: {exc}")
    return variant


class _Shape:
    """A variant's pieces on a board changed by an option (what position strings need)."""

    def __init__(self, variant, board):
        self.name = variant.name
        self.pieces = variant.pieces
        self.piece_index = variant.piece_index
        self.files = board.get("files", variant.files)
        self.ranks = board.get("ranks", variant.ranks)
        self.start = board.get("start", variant.start)


def _check_rules(path, rules, ids):
    for key, allowed in _RULE_VALUES.items():
        if rules[key] not in allowed:
            _fail(path, f"[rules] {key} = {rules[key]!r}: expected one of {sorted(allowed)}")
    if not isinstance(rules["promotion_zone"], int) or rules["promotion_zone"] < 0:
        _fail(path, "[rules] promotion_zone must be a whole number of ranks")
    for cap in rules["drop_caps"]:
        if cap.get("per") not in CAP_REGIONS or not isinstance(cap.get("max"), int) or not cap.get("pieces"):
            _fail(path, f"[rules] drop_caps entry {cap!r}: needs pieces = [IDs], per = one of "
                        f"{list(CAP_REGIONS)} and max = a whole number")
        for pid in cap["pieces"]:
            if pid not in ids:
                _fail(path, f"[rules] drop_caps: unknown piece {pid!r}")
    for key in _ID_LISTS:
        if not isinstance(rules[key], list):
            _fail(path, f"[rules] {key} must be a list of piece IDs")
        for pid in rules[key]:
            if pid not in ids:
                _fail(path, f"[rules] {key}: unknown piece {pid!r}")
    relaxed = rules["allow_impossible"]
    if not (isinstance(relaxed, bool) or (isinstance(relaxed, list) and set(relaxed) <= set(POSITION_RULES))):
        _fail(path, f"[rules] allow_impossible = {relaxed!r}: expected true, false or a list of "
                    f"{', '.join(POSITION_RULES)}")
    for key in ("drops", "drop_no_dead_squares", "null_move", "lion_protected", "jump_capture_blocker"):
        if not isinstance(rules[key], bool):
            _fail(path, f"[rules] {key} = {rules[key]!r}: expected true or false")
    lion_rules = rules["lion_protected"] or rules["lion_counter_strike"] != "none"
    if lion_rules and not rules["lions"]:
        _fail(path, "[rules] lion_protected and lion_counter_strike need the Lions: lions = [IDs]")
    if rules["lion_counter_strike"] != "none" and rules["drops"]:
        # the square of the last Lion capture is written where hands go in position strings
        _fail(path, "[rules] lion_counter_strike cannot be combined with drops: position strings keep "
                    "the square of the last Lion capture in the hands field")
    if rules["burns_passively"] and rules["drops"]:
        # whether a piece dropped next to an enemy passive burner is burned is defined nowhere
        _fail(path, "[rules] burns_passively cannot be combined with drops: no source says whether a "
                    "dropped piece burns")


# --- the registry --------------------------------------------------------------------------------


def bundled_directory() -> Path:
    return BUNDLED_DIR


def variant_directories(extra: str | os.PathLike | None = None) -> list[Path]:
    """Directories searched for variant files, later ones overriding earlier ones: the bundled
    one, those of ``DAIKIFU_VARIANTS``, then ``extra``."""
    dirs = [BUNDLED_DIR]
    env = os.environ.get(ENV_VAR)
    if env:
        dirs += [Path(d) for d in env.split(os.pathsep) if d]
    if extra:
        dirs.append(Path(extra))
    return dirs


def _normalise(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


_FILES: dict = {}


def _load_file_once(path: Path) -> Variant:
    """:func:`load_variant_file`, once per process for a file that has not changed since: the
    registry and the quick look-up of a bundled variant share the Variant objects."""
    stat = path.stat()
    key = (stat.st_mtime_ns, stat.st_size)
    hit = _FILES.get(path)
    if hit is not None and hit[0] == key:
        return hit[1]
    variant = load_variant_file(path)
    _FILES[path] = (key, variant)
    return variant


@lru_cache(maxsize=32)
def _registry(dirs: tuple[Path, ...]) -> tuple[dict[str, Variant], list[str]]:
    """The variants found in ``dirs`` and the errors of files that could not be loaded.

    A broken file does not hide the others: its error is kept and shown by ``variants``.
    """
    found: dict[str, Variant] = {}
    errors: list[str] = []
    for d in dirs:
        if not d.is_dir():
            if d != BUNDLED_DIR:
                raise VariantError(f"{d}: variants directory does not exist")
            continue
        for path in sorted(d.glob("*.toml")):
            try:
                v = _load_file_once(path)
            except VariantError as exc:
                errors.append(str(exc))
                continue
            found[v.slug] = v
    return found, errors


@dataclass(frozen=True)
class VariantRegistry:
    """Where variants are found: the bundled files, then each of ``directories`` (a file with the
    slug of an earlier one replaces it).

    Readers, the importer's workers and the web application take a registry explicitly; it is
    small and picklable (it holds only the directories), and the files of a set of directories
    are read once per process.

    >>> registry = VariantRegistry()
    >>> registry.load("Shogi").slug
    'shogi'
    >>> "dai-kagamigi" in [v.slug for v in registry.list()]
    True
    """

    directories: tuple[Path, ...] = ()

    def __post_init__(self):
        object.__setattr__(self, "directories", tuple(Path(d) for d in self.directories))

    @classmethod
    def default(cls, extra: str | os.PathLike | None = None) -> "VariantRegistry":
        """The registry the command line uses: the directories of ``DAIKIFU_VARIANTS`` (read now),
        then ``extra`` (``--variants-dir``)."""
        return cls(tuple(variant_directories(extra)[1:]))

    def _found(self) -> tuple[dict[str, Variant], list[str]]:
        return _registry((BUNDLED_DIR, *self.directories))

    def list(self) -> list[Variant]:
        """Every known variant, bundled ones first in file-name order."""
        return list(self._found()[0].values())

    def errors(self) -> list[str]:
        """Why each variant file that could not be loaded was refused (file name first)."""
        return list(self._found()[1])

    def load(self, name: str) -> Variant:
        """A variant by slug, display name or alias (case and punctuation ignored); raises
        :class:`UnknownVariantError` naming the known slugs."""
        key = _normalise(name)
        if not self.directories and _registry.cache_info().currsize == 0:
            # only the bundled files, not read yet: a bundled file is named by its slug, so one
            # file is read instead of all of them (a command that reads one game starts sooner)
            path = BUNDLED_DIR / f"{key}.toml"
            try:
                variant = _load_file_once(path) if key and path.is_file() else None
            except (VariantError, OSError):
                variant = None
            if variant is not None and variant.slug == key:
                return variant
        registry, errors = self._found()
        if key in registry:
            return registry[key]
        for v in registry.values():
            if key in {_normalise(v.name), *(_normalise(a) for a in v.aliases)}:
                return v
        known = ", ".join(sorted(registry))
        broken = "".join(f"; not loaded: {e}" for e in errors if key in _normalise(e))
        raise UnknownVariantError(f"unknown variant {name!r} (known: {known}){broken}")


def list_variants(variants_dir: str | os.PathLike | None = None) -> list[Variant]:
    """Every known variant (:meth:`VariantRegistry.list` of the default registry)."""
    return VariantRegistry.default(variants_dir).list()


def variant_file_errors(variants_dir: str | os.PathLike | None = None) -> list[str]:
    """Why each variant file that could not be loaded was refused (file name first)."""
    return VariantRegistry.default(variants_dir).errors()


@contextlib.contextmanager
def extra_variants_dir(path: str | os.PathLike | None):
    """While the block runs, also look for variants in ``path`` (through ``DAIKIFU_VARIANTS``, so
    that readers which look variants up by name, and worker processes, see them too)."""
    if not path:
        yield
        return
    old = os.environ.get(ENV_VAR)
    os.environ[ENV_VAR] = os.pathsep.join(p for p in (old, str(path)) if p)
    try:
        yield
    finally:
        if old is None:
            del os.environ[ENV_VAR]
        else:
            os.environ[ENV_VAR] = old


def load_variant(name: str, variants_dir: str | os.PathLike | None = None) -> Variant:
    """Find a variant by slug, display name or alias in the default registry (the bundled files,
    ``DAIKIFU_VARIANTS``, then ``variants_dir``)."""
    return VariantRegistry.default(variants_dir).load(name)
