"""One normal form for text that is compared word by word.

Two writings of the same thing must compare equal: full-width and half-width forms (NFKC),
typographic apostrophes (``isnʼt``, ``isn’t``), and the dash family (``non–small``, ``non—small``,
``non‐small``, the minus sign) as ASCII ``-``.
"""

from __future__ import annotations

import re
import unicodedata

_APOSTROPHES = re.compile("[\u2018\u2019\u201b\u02bc\u02b9\u2032\u00b4\u0060\uff07]")
_DASHES = re.compile("[\u2010\u2011\u2012\u2013\u2014\u2015\u2212\ufe58\ufe63\uff0d]")


def normalize(text: str) -> str:
    """``text`` in NFKC with typographic apostrophes as ``'`` and dashes and minus signs as ``-``."""
    text = unicodedata.normalize("NFKC", text)
    return _DASHES.sub("-", _APOSTROPHES.sub("'", text))
