"""What the command line and the web viewer tell about a variant: its summary, its rules in
words, each piece's moves in words, and the whole definition as JSON (``daikifu variant show
--json``, ``/api/variants/<slug>``)."""

from __future__ import annotations

import json

from .describe import describe_generator, try_describe
from .variant import Variant

__all__ = ["subvariants", "variant_summary", "rule_lines", "piece_moves", "piece_betza", "variant_json"]


def subvariants(v: Variant) -> list[dict]:
    """Choices of options marked as subvariants: each is a game of its own, played with --option."""
    out = []
    for o in v.options.values():
        if not getattr(o, "subvariant", False):
            continue
        for c in o.choices.values():
            board = getattr(c, "board", None) or {}
            files, ranks = board.get("files", v.files), board.get("ranks", v.ranks)
            out.append({"name": f"{v.name} ({c.name.replace('-', ' ').title()})",
                        "option": f"{o.name}={c.name}", "description": c.description, "files": files,
                        "ranks": ranks, "board": f"{files}x{ranks}", "default": c.name == o.default})
    return out


def variant_summary(v: Variant) -> dict:
    return {"slug": v.slug, "name": v.name, "aliases": list(v.aliases), "files": v.files, "ranks": v.ranks,
            "board": f"{v.files}x{v.ranks}", "status": v.status, "playable": v.playable,
            "reconstructed": v.reconstructed, "pieces": len(v.pieces), "summary": v.summary,
            "subvariants": subvariants(v), "path": v.path}


_FORCED = {
    "stuck": "only where the piece could never move again",
    "last-rank": "on the last rank, and wherever the piece could never move again",
    "never": "never: a piece may stay unpromoted even where it can no longer move",
}
_PROMOTION_RULE = {
    "zone": "on a move that starts or ends in the zone",
    "enter-or-capture": "on a move that enters the zone from outside, or on a capture whose move starts or "
                        "ends in the zone; a quiet move inside the zone (or out of it) cannot promote",
}
_ROYAL_LOSS = {
    "checkmate": "a move may not leave the mover's last royal piece attacked; checkmating it wins (while a "
                 "side has several royal pieces, any of them may be left attacked and captured)",
    "capture": "moving into check is legal; a side loses when its last royal piece is captured",
}
_REPETITION = {
    "sennichite": "sennichite: the fourth occurrence of a position is a draw, unless one side gave "
                  "check on every move of the cycle (that side loses)",
    "none": "no repetition rule",
}
_STALEMATE = {"loss": "the side with no legal move loses", "draw": "a side with no legal move: draw"}
_SHOWN_RULES = {"promotion_zone", "promotion_forced", "drops", "drop_nifu", "drop_no_dead_squares",
                "drop_mate_forbidden", "repetition", "stalemate", "drop_caps", "zones", "null_move",
                "promotion_rule", "promotion_last_rank", "royal_loss", "bare_royal", "bare_royal_uncounted",
                "lions", "lion_protected", "lion_cheap", "lion_counter_strike", "burns_passively"}


def _ids(ids, last: str = "and") -> str:
    """IDs joined for prose: ``P``, ``P and GB``, ``P, L and GB``."""
    ids = list(ids)
    return ", ".join(ids[:-1]) + f" {last} " + ids[-1] if len(ids) > 1 else "".join(ids)


def lion_rule_lines(rules: dict) -> list[tuple[str, str]]:
    """The Lion-trading rules in words (none when the variant has none)."""
    lions = rules.get("lions") or []
    if not lions or not (rules.get("lion_protected") or rules.get("lion_counter_strike", "none") != "none"):
        return []
    out = []
    if rules.get("lion_protected"):
        cheap = rules.get("lion_cheap") or []
        text = (f"a Lion ({_ids(lions)}) may not take a Lion that stands two squares away (by a jump, or "
                f"with the second step of a double move) when an enemy piece could take back on that "
                f"square")
        if cheap:
            text += (f", unless its first step took a piece other than {_ids(cheap)} (the bridge); a "
                     f"{_ids(cheap, 'or')} taken on the first step still counts as protecting")
        out.append(("protected Lion", text + ". A Lion next to it may always be taken."))
    strike = rules.get("lion_counter_strike", "none")
    if strike != "none":
        text = ("when a piece other than a Lion takes a Lion, on the very next move the opponent may "
                "take a Lion only with a Lion")
        if strike == "same-square":
            text += (" (a piece on the square where the Lion was just taken may still be taken, e.g. a "
                     "Kirin that took the Lion and promoted to a Lion there)")
        out.append(("counter-strike", text + ". Position strings keep that square where hands go."))
    return out


def rule_lines(rules: dict, variant: Variant | None = None) -> list[tuple[str, str]]:
    zone = rules.get("promotion_zone", 0)
    lines = [("promotion zone", f"the last {zone} ranks (the far side)" if zone else "none: no promotion")]
    if zone:
        when = _PROMOTION_RULE.get(rules.get("promotion_rule", "zone"), str(rules.get("promotion_rule")))
        if rules.get("promotion_last_rank"):
            when += f"; {_ids(rules['promotion_last_rank'])} may also promote on any move to the last rank"
        lines.append(("promotion", when))
    lines.append(("forced promotion", _FORCED.get(rules.get("promotion_forced"), str(rules.get("promotion_forced")))))
    if variant is not None:
        royal = [p.id for p in variant.pieces if p.royal]
        lines.append(("royal pieces", f"{_ids(royal)}; "
                      + _ROYAL_LOSS.get(rules.get("royal_loss", "checkmate"), str(rules.get("royal_loss")))))
    if rules.get("bare_royal") == "loses":
        uncounted = rules.get("bare_royal_uncounted") or []
        lines.append(("bare king", "a side left with its royal piece alone loses, unless it can take the "
                      "opponent's last other piece at once; two lone royals draw"
                      + (f"; {_ids(uncounted)} do not count as material" if uncounted else "")
                      + "; pieces that can never move again do not count"))
    if rules.get("drops"):
        limits = []
        for pid in rules.get("drop_nifu", []):
            limits.append(f"no {pid} on a file that holds an unpromoted {pid} of the same player (nifu)")
        for pid in rules.get("drop_mate_forbidden", []):
            limits.append(f"a dropped {pid} may not give checkmate")
        if rules.get("drop_no_dead_squares", True):
            limits.append("no drop on a square from which the piece could never move")
        for cap in rules.get("drop_caps", []):
            limits.append(f"at most {cap.get('max')} of {', '.join(cap.get('pieces', []))} per {cap.get('per')}")
        lines.append(("drops", "yes: captured pieces go to the captor's hand unpromoted"))
        lines.append(("drop restrictions", "; ".join(limits) or "none"))
    else:
        lines.append(("drops", "no: captured pieces leave the game"))
    lines.append(("repetition", _REPETITION.get(rules.get("repetition"), str(rules.get("repetition")))))
    lines.append(("stalemate", _STALEMATE.get(rules.get("stalemate"), str(rules.get("stalemate")))))
    multi_step = variant is None or any("a" in (p.betza or "") or getattr(p, "betza_zones", ())
                                        for p in variant.pieces)
    if "null_move" in rules and (multi_step or not rules["null_move"]):
        lines.append(("passing", "a piece with a multi-step move may pass (step out and back)" if rules["null_move"]
                      else "not allowed: a multi-step move may not end on its empty start square"))
    lines += lion_rule_lines(rules)
    if rules.get("burns_passively"):
        lines.append(("passive burning", f"a piece that ends its move next to an enemy "
                      f"{_ids(rules['burns_passively'], 'or')} is removed after its move (what the move takes "
                      f"is taken first), unless it took that piece on the way; a burning piece that does so "
                      f"burns nothing"))
    if rules.get("zones"):
        lines.append(("move zones", "ranks per zone, from each player's own side: "
                      + ", ".join(map(str, rules["zones"]))))
    for key in sorted(set(rules) - _SHOWN_RULES):
        lines.append((key.replace("_", " "), json.dumps(rules[key], ensure_ascii=False)))
    return lines


def piece_moves(p) -> list[str]:
    """Plain-English moves of a piece type, one line per part (zones, special generators)."""
    out = []
    zones = getattr(p, "betza_zones", ()) or ()
    if p.betza:
        out.append(try_describe(p.betza))
    for n, text in enumerate(zones, start=1):
        out.append(f"in zone {n}: {try_describe(text)}")
    for spec in getattr(p, "generators", ()) or ():
        out.append(describe_generator(dict(spec)))
    if getattr(p, "burns", None) == "adjacent-enemies":
        out.append("burns: wherever it ends a move, every enemy piece next to that square is removed as well")
    if getattr(p, "rank", 0):
        out.append(f"rank {p.rank} for range jumps")
    return out or ["(no moves given)"]


def piece_betza(p) -> str:
    zones = getattr(p, "betza_zones", ()) or ()
    parts = [p.betza] if p.betza else []
    parts += [f"zone {n}: {z}" for n, z in enumerate(zones, start=1)]
    if getattr(p, "generators", ()):
        parts.append("+ generators")
    return " | ".join(parts) or "-"


def variant_json(v: Variant) -> dict:
    data = variant_summary(v)
    data.update({
        "missing": v.missing,
        "sources": list(v.sources),
        "start": v.start,
        "pieces": [{
            "id": p.id, "name": p.name, "kanji": p.kanji, "kanji_name": getattr(p, "kanji_name", None),
            "betza": p.betza,
            "betza_zones": list(getattr(p, "betza_zones", ()) or ()),
            "generators": [dict(g) for g in getattr(p, "generators", ()) or ()],
            "moves": "; ".join(piece_moves(p)), "promotes": p.promotes, "royal": p.royal,
            "aliases": list(p.aliases), "description": p.description, "provenance": p.provenance,
            "rank": getattr(p, "rank", 0), "burns": getattr(p, "burns", None),
        } for p in v.pieces],
        "rules": v.rules,
        "rules_text": {k: t for k, t in rule_lines(v.rules, v)},
        "options": {name: {
            "description": o.description, "default": o.default, "subvariant": getattr(o, "subvariant", False),
            "choices": {c.name: {"description": c.description, "pieces": c.pieces, "rules": c.rules,
                                 **({"board": c.board} if getattr(c, "board", None) else {})}
                        for c in o.choices.values()},
        } for name, o in v.options.items()},
        "provenance": [{"topic": p.topic, "choice": p.choice, "source": p.source, "confidence": p.confidence,
                        "alternative": p.alternative, "reconstructed": p.reconstructed}
                       for p in v.provenance],
    })
    return data
