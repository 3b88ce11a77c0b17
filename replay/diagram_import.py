"""Import a variant from a chessvariants.com Interactive Diagram.

An Interactive Diagram (ID) is defined by one *definition line* (reference:
``docs/rules/xbetza.md`` section 7): whitespace-separated ``key=value`` parameters, then one
piece spec per piece type::

    files=15 ranks=15 promoZone=5 symmetry=rotate maxPromote=31 promoOffset=37 royal=37 ...
    pawn:P:fW:shogipawn:a5,b5,c5 ... gold general:G:WfF:goldgeneral:g1,i1 ... tokin:+P:WfF:img:

A piece spec is ``name:ID:XBetza:image:squares[:in-hand]``; the name may contain spaces, the
squares (the first player's only) are comma-separated squares or ranges (``a2-j2``) and are empty
for pieces that only appear by promotion.  Piece types are numbered 1..n in definition order.

The one call the command line needs::

    result = import_page(html_or_text, slug=None, name=None, index=0)
    result.data        # dict shaped like a variant TOML file (variant_from_dict accepts it)
    result.toml_text   # the same as TOML, with the warnings as comments at the top
    result.warnings    # everything that was not imported as it stands, one sentence each

Decisions (each is reported in the warnings and recorded in the file's ``[[provenance]]``):

* **Nothing is guessed.**  Parameters whose meaning is known are mapped (board size, setup and
  symmetry, promotion zone and promotions, royal piece, ``holdingsType=-1`` = no drops);
  appearance parameters are listed as ignored; every other parameter is reported as not imported.
  Rules the line does not give are the engine's defaults, which a provenance entry says.
* **Duplicate IDs** (IDs are compared case-insensitively, as the engine does): the first piece
  keeps the ID, each later one gets the ID with the smallest number appended that no piece of the
  diagram uses (``SO`` -> ``SO2``).  Each rename is a warning and is noted on the piece.
* **Piece strings the engine rejects** (the Dai Kagamigi Wrestler's ``F3SW``) are kept exactly as
  written and never repaired: the variant is written with ``status = "incomplete"`` and
  ``missing`` naming each such piece and the parser's message, so it loads and can be listed and
  read, but not played.  A user who knows the intended string passes it explicitly with
  ``betza_overrides={"W": "F3sW"}`` (by final ID or by piece name); the override is recorded on
  the piece and in the provenance.
* Other problems that leave the variant undefined (no royal piece, an unknown ``symmetry``, two
  pieces on one square, promotions the engine cannot express) also make it ``incomplete``.
* Errors in the text itself (no definition found, a malformed piece spec or parameter value, a
  square off the board) raise :class:`DiagramImportError` naming the token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import tomli_w

from .squares import MAX_FILES, MAX_RANKS
from .xbetza import XBetzaError, parse as parse_betza

__all__ = [
    "DiagramImportError",
    "Parameter",
    "PieceSpec",
    "DiagramDefinition",
    "ImportResult",
    "APPEARANCE_PARAMETERS",
    "find_definitions",
    "parse_definition",
    "to_variant_data",
    "to_toml",
    "import_page",
]


class DiagramImportError(ValueError):
    """The text has no usable diagram definition; the message says what and where."""


# Parameters that only change how the diagram looks.
APPEARANCE_PARAMETERS = frozenset({
    "graphicsDir", "graphicsType", "squareSize", "lightShade", "darkShade", "useMarkers",
    "whitePrefix", "blackPrefix",
})
# Parameters this module maps (other than the appearance ones).
_MAPPED = frozenset({
    "files", "ranks", "promoZone", "promoChoice", "symmetry", "firstRank", "holdingsType",
    "maxPromote", "promoOffset", "royal", "satellite",
})

_PARAM_RE = re.compile(r"([A-Za-z][A-Za-z0-9_]*)=(.*)\Z", re.S)
_SQUARE_ITEM_RE = re.compile(r"[a-z]\d+(?:-[a-z]\d+)?\Z")
_SQUARE_LIST_RE = re.compile(r"[a-z]\d+(?:-[a-z]\d+)?(?:,[a-z]\d+(?:-[a-z]\d+)?)*,?\Z")
_SQUARE_RE = re.compile(r"([a-z])(\d+)\Z")
_NAME_WORD_RE = re.compile(r"[A-Za-z0-9][A-Za-z0-9'\u2019.\-]*\Z")
_ID_RE = re.compile(r"[+!]?[A-Z][A-Z0-9']*\Z")
_SLUG_RE = re.compile(r"[a-z0-9]+(-[a-z0-9]+)*\Z")
_TAG_RE = re.compile(r"<[A-Za-z!/?][^>]*>")
MAX_NAME_WORDS = 8  # outside a diagram element, a longer run of words is prose, not a piece name


# --- the parsed definition -----------------------------------------------------------------------


@dataclass(frozen=True)
class Parameter:
    key: str
    value: str
    token: int  # 1-based token number within the definition


@dataclass(frozen=True)
class PieceSpec:
    index: int  # 1-based, definition order (the diagram's piece type number)
    name: str
    id: str  # as written
    betza: str
    image: str
    squares: tuple[str, ...]  # items as written: squares ("e1") or ranges ("a2-j2")
    in_hand: int | None
    token: int  # token number of the spec's colon-separated token
    text: str  # the spec as written (tokens joined by single spaces)


@dataclass(frozen=True)
class DiagramDefinition:
    parameters: tuple[Parameter, ...]
    pieces: tuple[PieceSpec, ...]
    text: str  # the definition, its tokens joined by single spaces
    title: str | None = None  # the page's title or first heading, when read from HTML
    ignored_text: str = ""  # text after the definition in a diagram element, not read

    def param(self, key: str) -> str | None:
        """The value of a parameter (the last one when it is given twice), or None."""
        value = None
        for p in self.parameters:
            if p.key == key:
                value = p.value
        return value


@dataclass(frozen=True)
class ImportResult:
    data: dict
    toml_text: str
    warnings: list

    @property
    def playable(self) -> bool:
        return self.data.get("status", "playable") == "playable"


# --- finding the definition ----------------------------------------------------------------------


def find_definitions(text: str) -> list[DiagramDefinition]:
    """Every diagram definition in ``text`` (a definition line, plain text or a whole HTML page).

    Raises :class:`DiagramImportError` when there is none, or when a piece spec is malformed.
    """
    if _TAG_RE.search(text):
        found = _definitions_in_html(text)
    else:
        found = _definitions_in_text(text, scoped=None)
    if not found:
        raise DiagramImportError(
            "no Interactive Diagram definition found: expected a line of parameters starting with "
            "'files=' followed by piece specs 'name:ID:XBetza:image:squares'")
    return found


def parse_definition(text: str, index: int = 0) -> DiagramDefinition:
    """The ``index``-th (from 0) diagram definition in ``text``; see :func:`find_definitions`."""
    found = find_definitions(text)
    if not 0 <= index < len(found):
        raise DiagramImportError(f"diagram index {index}: the text has {len(found)} diagram definition"
                                 f"{'s' if len(found) != 1 else ''} (indexes 0 to {len(found) - 1})")
    return found[index]


_BLOCK_TAGS = frozenset({
    "address", "article", "aside", "blockquote", "body", "caption", "dd", "div", "dl", "dt",
    "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
    "header", "hr", "html", "li", "main", "nav", "ol", "p", "pre", "section", "table", "tbody",
    "td", "tfoot", "th", "thead", "tr", "ul", "script", "noscript", "center", "textarea",
})


def _element_text(el, skip=("style", "script")) -> str:
    """The text of an element, with line breaks at <br> and around block elements."""
    parts: list[str] = []

    def walk(e):
        tag = e.tag if isinstance(e.tag, str) else None  # comments and PIs have no string tag
        if tag is not None and tag.lower() not in skip:
            tag = tag.lower()
            if tag == "br" or tag in _BLOCK_TAGS:
                parts.append("\n")
            if e.text:
                parts.append(e.text)
            for child in e:
                walk(child)
                if child.tail:
                    parts.append(child.tail)
            if tag in _BLOCK_TAGS:
                parts.append("\n")

    walk(el)
    return "".join(parts)


def _definitions_in_html(text: str) -> list[DiagramDefinition]:
    import lxml.html  # only needed for pages

    try:
        doc = lxml.html.document_fromstring(text)
    except Exception as exc:  # lxml raises several types for unusable documents
        raise DiagramImportError(f"cannot read the page as HTML: {exc}") from exc
    title = None
    for path in (".//h1", ".//title"):
        for el in doc.iterfind(path):
            words = " ".join(el.text_content().split())
            if words:
                title = words
                break
        if title:
            break
    found: list[DiagramDefinition] = []
    # 1. elements of class "idiagram" (the diagram's own element): their whole text is the definition
    diagrams = doc.xpath("//*[contains(concat(' ', normalize-space(@class), ' '), ' idiagram ')]")
    outer = [el for el in diagrams if not any(a in diagrams for a in el.iterancestors())]
    for el in outer:
        found += _definitions_in_text(_element_text(el), scoped=True, title=title)
    # 2. otherwise any text on the page, then script text
    if not found:
        found = _definitions_in_text(_element_text(doc), scoped=False, title=title)
    if not found:
        found = _definitions_in_text(_element_text(doc, skip=("style",)), scoped=False, title=title)
    return found


def _definitions_in_text(text: str, scoped: bool | None, title: str | None = None) -> list[DiagramDefinition]:
    """Definitions in a text; each starts at its ``files=`` parameter (and the parameters just before it).

    ``scoped`` True: the text is the definition (a diagram element): everything up to the next
    definition is read, and text that is not part of it is reported.  False: the definition is
    embedded in prose: it ends where the tokens stop fitting.  None: decide (a text that is nothing
    but the definition is scoped).
    """
    tokens = text.split()
    starts = [i for i, t in enumerate(tokens) if t.startswith("files=")]
    if not starts:
        return []
    found = []
    floor = 0
    for n, s in enumerate(starts):
        begin = s
        while begin > floor and _PARAM_RE.match(tokens[begin - 1]):
            begin -= 1
        if n == 0 and scoped is True:
            begin = floor  # a diagram element's text before its first 'files=' belongs to it
        stop = starts[n + 1] if n + 1 < len(starts) else len(tokens)
        is_scoped = scoped if scoped is not None else (n == 0 and begin == 0)
        defn, used = _parse_tokens(tokens[begin:stop], is_scoped, title)
        if defn.pieces or is_scoped:  # in prose, 'files=8' without piece specs is no definition
            found.append(defn)
        floor = begin + used
    return found


def _parse_tokens(tokens: list[str], scoped: bool, title: str | None) -> tuple[DiagramDefinition, int]:
    """Parse the tokens of one definition; returns it and the number of tokens it used."""
    params: list[Parameter] = []
    pieces: list[PieceSpec] = []
    i = 0
    n = len(tokens)
    end = 0
    while i < n:
        tok = tokens[i]
        m = _PARAM_RE.match(tok)
        if m:
            params.append(Parameter(m.group(1), m.group(2), i + 1))
            i += 1
            end = i
            continue
        # a piece: name words, then the colon-separated token
        words = []
        j = i
        while j < n and ":" not in tokens[j] and not _PARAM_RE.match(tokens[j]):
            if not scoped and (len(words) >= MAX_NAME_WORDS or not _NAME_WORD_RE.match(tokens[j])):
                break
            words.append(tokens[j])
            j += 1
        if j >= n or ":" not in tokens[j] or _PARAM_RE.match(tokens[j]):
            break  # no piece spec follows: the definition ended
        fields = tokens[j].split(":")
        if len(fields) not in (5, 6):
            if not scoped and len(fields) == 2:
                break  # "Note: ..." in the prose after the definition
            raise DiagramImportError(
                f"token {j + 1} {tokens[j]!r}: a piece spec has 5 or 6 colon-separated fields "
                f"(name:ID:XBetza:image:squares[:in-hand]), this one has {len(fields)}")
        last = j
        squares_text = fields[4]
        # squares continued after a line break: 'a5,b5,' 'c5,d5' or 'lance:L:fR:lance:' 'a1,o1'
        if len(fields) == 5:
            while (squares_text == "" or squares_text.endswith(",")) and last + 1 < n \
                    and _SQUARE_LIST_RE.match(tokens[last + 1]):
                last += 1
                squares_text += tokens[last]
        name = " ".join(words + ([fields[0]] if fields[0] else []))
        where = f"token {j + 1} ({name or 'unnamed piece'}, {tokens[j]!r})"
        items = tuple(s for s in squares_text.split(",") if s)
        for item in items:
            if not _SQUARE_ITEM_RE.match(item):
                raise DiagramImportError(f"{where}: {item!r} is not a square (like 'e1') or a range "
                                         f"of squares (like 'a2-j2')")
        in_hand = None
        if len(fields) == 6 and fields[5] != "":
            if not fields[5].isdigit():
                raise DiagramImportError(f"{where}: the in-hand count {fields[5]!r} is not a whole number")
            in_hand = int(fields[5])
        pieces.append(PieceSpec(index=len(pieces) + 1, name=name, id=fields[1], betza=fields[2],
                                image=fields[3], squares=items, in_hand=in_hand, token=j + 1,
                                text=" ".join(tokens[i:last + 1])))
        i = last + 1
        end = i
    ignored = " ".join(tokens[end:]) if scoped else ""
    defn = DiagramDefinition(parameters=tuple(params), pieces=tuple(pieces), text=" ".join(tokens[:end]),
                             title=title, ignored_text=ignored)
    return defn, end


# --- building the variant ------------------------------------------------------------------------


def _int_param(defn: DiagramDefinition, key: str, minimum: int | None = None) -> int | None:
    value = defn.param(key)
    if value is None:
        return None
    tok = next(p.token for p in reversed(defn.parameters) if p.key == key)
    try:
        number = int(value)
    except ValueError:
        raise DiagramImportError(f"token {tok} {key}={value!r}: expected a whole number") from None
    if minimum is not None and number < minimum:
        raise DiagramImportError(f"token {tok} {key}={value}: must be at least {minimum}")
    return number


def _normalise_slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _piece_text(pid: str, colour: int) -> str:
    bare = len(pid) == 1 or (len(pid) == 2 and pid[0] == "+")
    text = pid if bare else f"({pid})"
    return text if colour == 0 else text.lower()


def _clean_id(spec: PieceSpec, warnings: list) -> str:
    raw = spec.id.strip()
    pid = raw.upper()
    if not _ID_RE.match(pid):
        prefix = pid[0] if pid[:1] in ("+", "!") else ""
        body = re.sub(r"[^A-Z0-9']", "", pid[len(prefix):])
        body = body.lstrip("0123456789'")
        if not body:
            body = re.sub(r"[^A-Z]", "", spec.name.upper())[:1] or "X"
        pid = prefix + body
    if pid != raw:
        what = "has no ID" if not raw else f"ID {raw!r} is not an engine ID (upper-case letters/digits, optionally after '+' or '!')"
        warnings.append(f"piece #{spec.index} {spec.name!r}: {what}; using {pid!r}")
    return pid


def to_variant_data(defn: DiagramDefinition, slug: str | None = None, name: str | None = None, *,
                    source: str | None = None,
                    betza_overrides: dict | None = None) -> tuple[dict, list[str]]:
    """The variant file (as a dict for ``variant_from_dict`` / TOML) and the import warnings.

    ``betza_overrides`` maps a piece (its final ID, or its name; case-insensitive) to the XBetza
    string to use instead of the diagram's: the explicit way to supply a fix for a string the
    engine rejects.  ``source`` (a URL or file name) goes into ``sources`` and the provenance.
    """
    warnings: list[str] = []
    problems: list[str] = []  # what makes the variant incomplete

    # --- parameters
    seen_keys: dict = {}
    for p in defn.parameters:
        if p.key in seen_keys:
            warnings.append(f"parameter {p.key} is given twice (tokens {seen_keys[p.key]} and {p.token}); "
                            f"the later value {p.value!r} is used")
        seen_keys[p.key] = p.token
    files = _int_param(defn, "files", 1)
    ranks = _int_param(defn, "ranks", 1)
    if files is None:
        raise DiagramImportError("the definition has no files= parameter")
    if ranks is None:
        raise DiagramImportError("the definition has no ranks= parameter (its default is not known)")
    if files > MAX_FILES or ranks > MAX_RANKS:
        raise DiagramImportError(f"board {files}x{ranks}: the engine supports at most {MAX_FILES}x{MAX_RANKS}")
    first_rank = _int_param(defn, "firstRank")
    if first_rank is None:
        first_rank = 1
    promo_zone = _int_param(defn, "promoZone", 0)
    max_promote = _int_param(defn, "maxPromote", 0)
    promo_offset = _int_param(defn, "promoOffset")
    royal = _int_param(defn, "royal", 1)
    holdings = _int_param(defn, "holdingsType")
    symmetry = defn.param("symmetry")

    appearance = [p.key for p in defn.parameters if p.key in APPEARANCE_PARAMETERS]
    if appearance:
        warnings.append(f"ignored (appearance): {', '.join(dict.fromkeys(appearance))}")
    satellite = defn.param("satellite")
    if satellite is not None:
        warnings.append(f"satellite={satellite}: ignored; scripts on the page that change the "
                        f"diagram's moves (nameTinker and the like) are not imported")
    unknown = [p for p in defn.parameters if p.key not in APPEARANCE_PARAMETERS and p.key not in _MAPPED]
    for p in unknown:
        warnings.append(f"unknown parameter {p.key}={p.value} (token {p.token}): not imported; its "
                        f"meaning is not known, so the diagram may play differently from the imported rules")
    promo_choice = defn.param("promoChoice")
    if promo_choice:
        warnings.append(f"promoChoice={promo_choice}: chess-style promotion choices are not supported "
                        f"by the engine; not imported")
        unknown.append(Parameter("promoChoice", promo_choice, seen_keys["promoChoice"]))

    rules: dict = {}
    provenance: list[dict] = []
    if promo_zone is not None:
        rules["promotion_zone"] = promo_zone
    if holdings is not None:
        if holdings == -1:
            rules["drops"] = False
            provenance.append({
                "topic": "drops",
                "choice": "No drops: holdingsType=-1 means the diagram keeps no piece holdings.",
                "source": "diagram parameter holdingsType=-1",
                "confidence": "medium",
                "alternative": "Other holdingsType values are not mapped.",
            })
        else:
            warnings.append(f"holdingsType={holdings} (token {seen_keys['holdingsType']}): meaning not "
                            f"known; drops not imported (the engine's default is no drops)")
            unknown.append(Parameter("holdingsType", str(holdings), seen_keys["holdingsType"]))

    # --- pieces: IDs
    specs = defn.pieces
    if not specs:
        raise DiagramImportError("the definition has no piece specs")
    cleaned = [_clean_id(s, warnings) for s in specs]
    reserved = {pid.upper() for pid in cleaned}
    ids: list[str] = []
    taken: dict = {}
    renamed: list[str] = []
    for spec, pid in zip(specs, cleaned):
        if pid.upper() in taken:
            first = taken[pid.upper()]
            k = 2
            while f"{pid}{k}".upper() in reserved:
                k += 1
            new = f"{pid}{k}"
            reserved.add(new.upper())
            note = (f"duplicate ID {pid!r}: piece #{spec.index} {spec.name!r} renamed {new!r} "
                    f"(piece #{first.index} {first.name!r} keeps {pid!r})")
            warnings.append(note)
            renamed.append(f"#{spec.index} {spec.name} {pid} -> {new}")
            taken[new.upper()] = spec
            ids.append(new)
        else:
            taken[pid.upper()] = spec
            ids.append(pid)

    # --- pieces: moves
    overrides = {}
    for key, value in (betza_overrides or {}).items():
        matches = [k for k, (s, pid) in enumerate(zip(specs, ids))
                   if key.upper() == pid.upper() or key.lower() == s.name.lower()]
        if len(matches) != 1:
            raise DiagramImportError(f"betza override {key!r}: matches {len(matches)} pieces "
                                     f"(give a piece's ID after renaming, or its name)")
        overrides[matches[0]] = value
    pieces: list[dict] = []
    notes: dict = {}
    for k, (spec, pid) in enumerate(zip(specs, ids)):
        entry = {"id": pid, "name": spec.name or pid}
        if not spec.name:
            warnings.append(f"piece #{spec.index} ({pid}) has no name; using its ID")
        betza = spec.betza
        piece_notes = []
        if k in overrides:
            piece_notes.append(f"XBetza {overrides[k]!r} given at import; the diagram has {spec.betza!r}.")
            warnings.append(f"piece #{spec.index} {spec.name!r} ({pid}): XBetza {spec.betza!r} replaced by "
                            f"{overrides[k]!r} as requested")
            betza = overrides[k]
        if not betza:
            problems.append(f"{pid} ({spec.name}) has no XBetza string in the diagram")
            warnings.append(f"piece #{spec.index} {spec.name!r} ({pid}): no XBetza string; variant marked incomplete")
        else:
            try:
                parse_betza(betza)
            except XBetzaError as exc:
                problems.append(f"{pid} ({spec.name}): {exc}")
                warnings.append(f"piece #{spec.index} {spec.name!r} ({pid}): the engine rejects its move string: "
                                f"{exc}; kept as written, variant marked incomplete")
                piece_notes.append(f"The engine rejects the diagram's XBetza {betza!r}: {exc}. Kept as written.")
        entry["betza"] = betza
        if spec.id != pid:
            piece_notes.append(f"The diagram's ID is {spec.id!r}.")
        notes[k] = piece_notes
        pieces.append(entry)

    # --- promotions
    n = len(specs)
    if (max_promote is None) != (promo_offset is None):
        given = "maxPromote" if max_promote is not None else "promoOffset"
        warnings.append(f"{given} is given without {'promoOffset' if given == 'maxPromote' else 'maxPromote'}: "
                        f"promotions not imported")
        problems.append(f"promotions: {given} without its partner")
    elif max_promote:
        promoted_types = set()
        for k in range(1, min(max_promote, n) + 1):
            target = k + promo_offset
            spec = specs[k - 1]
            if not 1 <= target <= n:
                warnings.append(f"piece #{k} {spec.name!r} promotes to type #{target} "
                                f"(maxPromote={max_promote}, promoOffset={promo_offset}), which does not exist; "
                                f"no promotion imported")
                problems.append(f"promotion of {ids[k - 1]} to type #{target}, which does not exist")
                continue
            if target <= max_promote or target in promoted_types:
                warnings.append(f"piece #{k} {spec.name!r} promotes to #{target} {specs[target - 1].name!r}, "
                                f"which itself promotes: the engine cannot promote twice; not imported")
                problems.append(f"promotion chain {ids[k - 1]} -> {ids[target - 1]}")
                continue
            promoted_types.add(target)
            pieces[k - 1]["promotes"] = ids[target - 1]
        if max_promote > n:
            warnings.append(f"maxPromote={max_promote} is more than the {n} piece types")
        if not promo_zone:
            warnings.append("the diagram defines promotions but no promotion zone (promoZone): "
                            "nothing can promote")

    # --- royal piece
    if royal is None:
        warnings.append("no royal= parameter: no piece is royal; variant marked incomplete")
        problems.append("no royal piece (royal= not given)")
    elif royal > n:
        warnings.append(f"royal={royal}: there are only {n} piece types; variant marked incomplete")
        problems.append(f"royal={royal} names no piece type")
    else:
        pieces[royal - 1]["royal"] = True

    for k, piece_notes in notes.items():
        if piece_notes:
            pieces[k]["provenance"] = " ".join(piece_notes)

    # --- setup
    grid: dict = {}

    def coords(item: str, spec: PieceSpec) -> list[tuple[int, int]]:
        ends = []
        for part in item.split("-"):
            m = _SQUARE_RE.match(part)
            f, r = ord(m.group(1)) - ord("a"), int(m.group(2)) - first_rank
            if not (0 <= f < files and 0 <= r < ranks):
                raise DiagramImportError(f"token {spec.token} ({spec.name}): square {part!r} is off the "
                                         f"{files}x{ranks} board (firstRank={first_rank})")
            ends.append((f, r))
        if len(ends) == 1:
            return ends
        (f0, r0), (f1, r1) = ends
        if f0 != f1 and r0 != r1:
            raise DiagramImportError(f"token {spec.token} ({spec.name}): range {item!r} is neither on one "
                                     f"rank nor on one file")
        return [(f, r) for f in range(min(f0, f1), max(f0, f1) + 1) for r in range(min(r0, r1), max(r0, r1) + 1)]

    if symmetry not in ("rotate", "mirror"):
        what = "no symmetry= parameter" if symmetry is None else f"symmetry={symmetry}: not a known value"
        warnings.append(f"{what}; the second player's setup cannot be derived; variant marked incomplete")
        problems.append(f"second player's setup unknown ({what})")
    for k, spec in enumerate(specs):
        for item in spec.squares:
            for f, r in coords(item, spec):
                placements = [((f, r), 0)]
                if symmetry == "rotate":
                    placements.append(((files - 1 - f, ranks - 1 - r), 1))
                elif symmetry == "mirror":
                    placements.append(((f, ranks - 1 - r), 1))
                for sq, colour in placements:
                    if sq in grid:
                        other, ocolour = grid[sq]
                        name_sq = f"{chr(ord('a') + sq[0])}{sq[1] + first_rank}"
                        warnings.append(f"square {name_sq}: both {ids[other]} ({'first' if ocolour == 0 else 'second'} "
                                        f"player) and {ids[k]} ({'first' if colour == 0 else 'second'} player); "
                                        f"the first is kept, variant marked incomplete")
                        problems.append(f"two pieces on {name_sq}")
                        continue
                    grid[sq] = (k, colour)
        if spec.in_hand:
            warnings.append(f"piece #{spec.index} {spec.name!r}: {spec.in_hand} in hand at the start; not imported "
                            f"(the imported rules have no drops)")
            problems.append(f"{ids[k]} starts in hand")
    rows = []
    for r in range(ranks - 1, -1, -1):
        out, empty = [], 0
        for f in range(files):
            cell = grid.get((f, r))
            if cell is None:
                empty += 1
                continue
            if empty:
                out.append(str(empty))
                empty = 0
            out.append(_piece_text(ids[cell[0]], cell[1]))
        if empty:
            out.append(str(empty))
        rows.append("".join(out))
    start = "/".join(rows) + " b - 1"

    if defn.ignored_text:
        shown = defn.ignored_text if len(defn.ignored_text) <= 80 else defn.ignored_text[:77] + "..."
        warnings.append(f"text after the definition was not read: {shown!r}")

    # --- names and the file
    if name is None:
        name = defn.title or "Imported Diagram"
        if not defn.title:
            warnings.append(f"no name given and none found on the page; using {name!r}")
    if slug is None:
        slug = _normalise_slug(name) or "imported-diagram"
    if not _SLUG_RE.match(slug):
        raise DiagramImportError(f"slug {slug!r} must be lower-case words joined by '-'")

    where = source or "an Interactive Diagram definition line"
    provenance.insert(0, {
        "topic": "import",
        "choice": (f"Imported from an Interactive Diagram definition: {files}x{ranks} board, {n} piece types; "
                   f"setup, moves, promotions and royal piece as the diagram gives them (symmetry={symmetry}, "
                   f"promoZone={promo_zone}, maxPromote={max_promote}, promoOffset={promo_offset}, royal={royal})."),
        "source": where,
        "confidence": "high",
        "alternative": "The page's prose may disagree with its diagram; the diagram is followed as written.",
    })
    provenance.append({
        "topic": "rules not in the diagram",
        "choice": ("Rules the definition line does not state (forced promotion, repetition, stalemate, "
                   "passing) are the engine's defaults."),
        "source": "daikifu defaults (replay/variant.py RULE_DEFAULTS)",
        "confidence": "low",
        "alternative": "The diagram's own handling of these is not part of the definition line.",
    })
    if renamed:
        provenance.append({
            "topic": "piece IDs",
            "choice": "Duplicate diagram IDs renamed (the first piece keeps the ID): " + "; ".join(renamed) + ".",
            "source": where,
            "confidence": "high",
            "alternative": "The diagram identifies piece types by number, so its duplicate IDs are only labels.",
        })
    if unknown:
        provenance.append({
            "topic": "parameters not imported",
            "choice": "Not imported: " + ", ".join(f"{p.key}={p.value}" for p in unknown) + ".",
            "source": where,
            "confidence": "low",
            "alternative": "Their meaning is not known; the diagram may play differently.",
        })
    if overrides:
        provenance.append({
            "topic": "move strings given at import",
            "choice": "; ".join(f"{ids[k]} ({specs[k].name}): {v!r} instead of the diagram's {specs[k].betza!r}"
                                for k, v in sorted(overrides.items())) + ".",
            "source": "import option",
            "confidence": "medium",
            "alternative": "The diagram's strings as written.",
        })

    data: dict = {"format": 1, "slug": slug, "name": name}
    data["status"] = "incomplete" if problems else "playable"
    if problems:
        data["missing"] = "; ".join(problems)
    data["summary"] = f"Imported from an Interactive Diagram: {files}x{ranks}, {n} piece types."
    data["files"] = files
    data["ranks"] = ranks
    data["start"] = start
    if source:
        data["sources"] = [source]
    data["rules"] = rules
    data["pieces"] = pieces
    data["provenance"] = provenance

    _check(data, warnings)
    return data, warnings


def _check(data: dict, warnings: list) -> None:
    """The data must load; a playable variant must also compile (else it is marked incomplete)."""
    from .variant import VariantError, variant_from_dict

    try:
        variant = variant_from_dict(data, "<imported diagram>")
    except VariantError as exc:
        raise DiagramImportError(f"the imported variant does not load: {exc}") from exc
    if variant.playable:
        from .rules import compile_rules

        try:
            compile_rules(variant)
        except VariantError as exc:
            data["status"] = "incomplete"
            data["missing"] = str(exc)
            warnings.append(f"the engine cannot compile the imported rules: {exc}; variant marked incomplete")


# --- writing -------------------------------------------------------------------------------------


def to_toml(data: dict, warnings: list | None = None) -> str:
    """The variant as TOML text; ``warnings`` (optional) are written as comments at the top."""
    head = [f"# {data.get('name', 'Variant')}: imported from an Interactive Diagram by daikifu."]
    if data.get("status") == "incomplete":
        head.append(f"# status = incomplete: {data.get('missing', '')}")
    for w in warnings or ():
        head.append("# warning: " + " ".join(str(w).split()))
    return "\n".join(head) + "\n\n" + tomli_w.dumps(data)


def import_page(text: str, slug: str | None = None, name: str | None = None, index: int = 0, *,
                source: str | None = None, betza_overrides: dict | None = None) -> ImportResult:
    """Import the ``index``-th diagram of a page (HTML) or definition line: data, TOML and warnings."""
    defn = parse_definition(text, index)
    data, warnings = to_variant_data(defn, slug=slug, name=name, source=source, betza_overrides=betza_overrides)
    return ImportResult(data=data, toml_text=to_toml(data, warnings), warnings=warnings)
