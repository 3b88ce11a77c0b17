"""Decoding a record's bytes, one policy for every format (see :mod:`formats.reading`, which
describes it): a byte-order mark, a declared encoding only when the bytes fit it, UTF-8, then cp932
or EUC-JP for the Japanese formats, else the candidate with the fewest undecodable bytes.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

__all__ = ["Decoded", "decode_record"]


@dataclass
class Decoded:
    text: str
    encoding: str
    replaced: int = 0  # undecodable bytes replaced by U+FFFD


_DECLARED_RE = re.compile(rb"^(?:#KI[F2][^\r\n]*?|'(?:CSA\s+)?)encoding\s*=\s*([A-Za-z0-9_\-]+)", re.M | re.I)
_ENCODING_NAMES = {"utf-8": "utf-8", "utf8": "utf-8", "shift_jis": "cp932", "shift-jis": "cp932",
                   "sjis": "cp932", "cp932": "cp932", "ms932": "cp932", "windows-31j": "cp932",
                   "euc-jp": "euc_jp", "euc_jp": "euc_jp", "eucjp": "euc_jp"}
_HALFWIDTH_KANA = re.compile("[\uff61-\uff9f]")


_NOT_SHIFT_JIS = re.compile("[\uf8f0-\uf8f3]")  # Python's cp932 maps bytes 0xA0, 0xFD-0xFF there


def _strict(raw: bytes, encoding: str) -> str | None:
    try:
        text = raw.decode(encoding)
    except UnicodeDecodeError:
        return None
    return None if encoding == "cp932" and _NOT_SHIFT_JIS.search(text) else text


def _japanese(raw: bytes) -> Decoded | None:
    sjis = _strict(raw, "cp932")
    if sjis is not None and _HALFWIDTH_KANA.search(sjis):
        euc = _strict(raw, "euc_jp")
        if euc is not None:
            return Decoded(euc, "euc_jp")
    if sjis is not None:
        return Decoded(sjis, "cp932")
    euc = _strict(raw, "euc_jp")
    return Decoded(euc, "euc_jp") if euc is not None else None


def decode_record(data: bytes | str, japanese: bool = True) -> Decoded:
    """The text of a record's bytes, by the policy in the module documentation.

    ``japanese``: whether cp932 and EUC-JP may be tried (False for LSN, JKF, USI and JSON, which
    are UTF-8).
    """
    if isinstance(data, str):
        return Decoded(data[1:] if data.startswith("\ufeff") else data, "str")
    raw = bytes(data)
    for bom, encoding in ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16-le"),
                          (codecs.BOM_UTF16_BE, "utf-16-be")):
        if raw.startswith(bom):
            text = raw[len(bom):].decode(encoding, "replace")
            return Decoded(text, encoding + "-bom", text.count("\ufffd"))
    m = _DECLARED_RE.search(raw[:4096])
    declared = _ENCODING_NAMES.get(m.group(1).decode("ascii").lower()) if m else None
    if declared and (japanese or declared == "utf-8"):
        text = _strict(raw, declared)
        if text is not None:
            return Decoded(text, declared)
    text = _strict(raw, "utf-8")
    if text is not None:
        return Decoded(text, "utf-8")
    if japanese:
        found = _japanese(raw)
        if found is not None:
            return found
    candidates = [Decoded(raw.decode(enc, "replace"), enc) for enc in
                  (("utf-8", "cp932", "euc_jp") if japanese else ("utf-8",))]
    for c in candidates:
        if c.encoding == "cp932":
            c.text = _NOT_SHIFT_JIS.sub("\ufffd", c.text)
        c.replaced = c.text.count("\ufffd")
    return min(candidates, key=lambda c: c.replaced)
