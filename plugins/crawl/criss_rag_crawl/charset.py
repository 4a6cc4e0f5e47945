"""Decoding HTML bytes, Japanese legacy encodings included.

The charset is taken from, in order: a byte-order mark; the HTTP ``Content-Type`` header's
``charset``; the page's own ``<meta charset>`` or ``<meta http-equiv="Content-Type">`` (read by
Beautiful Soup's ``EncodingDetector``); a guess from the bytes (charset-normalizer, which requests
installs); UTF-8. requests itself would assume ISO-8859-1 for any ``text/*`` without a charset,
which turns a Shift_JIS page into mojibake, so its guess is not used.

Japanese labels are widened to the code page browsers really use: ``Shift_JIS`` pages routinely
contain Windows characters (①, ㈱, NEC special characters) that only ``cp932`` decodes, and
``EUC-JP`` pages may carry JIS X 0213 characters (``euc_jis_2004``).
"""

from __future__ import annotations

import codecs

from bs4.dammit import EncodingDetector

#: label (as Python's codec registry names it) -> the superset browsers decode it with
_SUPERSETS = {"shift_jis": "cp932", "euc_jp": "euc_jis_2004", "iso2022_jp": "iso2022_jp_2004",
              "gb2312": "gb18030", "gbk": "gb18030", "euc_kr": "cp949", "iso8859-1": "cp1252",
              "ascii": "utf-8"}
_BOMS = ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"), (codecs.BOM_UTF16_BE, "utf-16"))


def codec_name(label: str | None) -> str | None:
    """Python's codec for an encoding label (widened per the module docstring), or ``None``
    when Python does not know the label."""
    if not label:
        return None
    try:
        name = codecs.lookup(label.strip().strip("'\"")).name
    except LookupError:
        return None
    return _SUPERSETS.get(name, name)


def header_charset(content_type: str) -> str | None:
    """The ``charset`` parameter of a ``Content-Type`` header, if any."""
    for param in content_type.split(";")[1:]:
        key, _, value = param.partition("=")
        if key.strip().lower() == "charset" and value.strip():
            return value.strip().strip("'\"")
    return None


def detect_charset(body: bytes, content_type: str = "") -> str:
    """The codec to decode ``body`` with (see the module docstring for the order)."""
    for bom, name in _BOMS:
        if body.startswith(bom):
            return name
    for label in (header_charset(content_type), EncodingDetector.find_declared_encoding(body[:8192], is_html=True)):
        if name := codec_name(label):
            return name
    from charset_normalizer import from_bytes

    best = from_bytes(body[:65536]).best()
    return codec_name(best.encoding if best else None) or "utf-8"


def decode_html(body: bytes, content_type: str = "") -> tuple[str, str]:
    """``(text, codec)``: the page decoded; undecodable bytes become U+FFFD, never an error."""
    name = detect_charset(body, content_type)
    return body.decode(name, errors="replace"), name


#: what spreadsheet programs save CSV as in Japanese, Korean and Chinese locales
SPREADSHEET_CODECS = ("cp932", "cp949", "gb18030", "big5")


def decode_spreadsheet_text(raw: bytes) -> tuple[str, str] | None:
    """``(text, codec)`` of a non-UTF-8 CSV, choosing among the locale codecs of East-Asian
    spreadsheet programs (Japanese Excel saves Shift_JIS, Korean Excel CP949); ``None`` if none fits.
    An open guess on a short file picks a European code page; restricted to these, it does not."""
    from charset_normalizer import from_bytes

    best = from_bytes(raw, cp_isolation=list(SPREADSHEET_CODECS)).best()
    if best is None:
        return None
    return str(best), str(best.encoding)
