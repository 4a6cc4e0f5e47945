"""What every language's reading in :mod:`criss_rag.lexicon.equivalence` shares: the content
:class:`Unit`, synonym phrases marked as one placeholder each (:func:`mark_phrases`), numbers and
punctuation."""

from __future__ import annotations

import re
from dataclasses import dataclass

from criss_rag.lexicon.normalize import normalize
from criss_rag.lexicon.synonyms import SYNONYMS


@dataclass(frozen=True)
class Unit:
    """One content word: ``key`` is what is compared, ``surface`` what the trace shows."""

    key: str
    surface: str


MARK = "\x00"  # placeholder for a synonym phrase found in the text: \x00key\x00
PLACEHOLDER = re.compile(f"{MARK}([^{MARK}]+){MARK}")
PUNCTUATION = set("?!.,;:\"'()[]{}/…、。？！，；：「」『』（）·・〜~\\|")
NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def number_key(text: str) -> str:
    """A number in one form: thousands separators dropped, a decimal comma as a point, no trailing .0."""
    text = re.sub(r",(?=\d{3}(?!\d))", "", text).replace(",", ".")
    return re.sub(r"\.0+$", "", text)


def _phrases(language: str) -> tuple[re.Pattern | None, dict[str, str]]:
    """A regex of a language's synonym phrases (longest first) and phrase -> key."""
    table: dict[str, str] = {}
    for key, words in SYNONYMS[language].items():
        for word in words:
            table[normalize(word).lower()] = key
    if language == "en":  # single English words go through the stemmer instead
        table = {w: k for w, k in table.items() if not re.fullmatch(r"[a-z]+", w)}
    elif language == "ko":  # single Korean words are compared after their endings are cut
        table = {w: k for w, k in table.items() if " " in w}
    if not table:
        return None, table
    alternatives = "|".join(re.escape(w) for w in sorted(table, key=len, reverse=True))
    if language == "en":
        return re.compile(rf"(?<![\w-])(?:{alternatives})(?![\w])"), table
    if language == "ko":  # a Korean phrase may carry particles and endings: 치료 방법은
        return re.compile(rf"(?<![\w])(?:{alternatives})"), table
    return re.compile(alternatives), table


_PHRASES = {language: _phrases(language) for language in SYNONYMS}


def mark_phrases(text: str, language: str) -> str:
    """``text`` with each synonym phrase of ``language`` replaced by its key, a :data:`MARK` on each side."""
    pattern, table = _PHRASES[language]
    if pattern is None:
        return text
    pad = "" if language == "ko" else " "  # a Korean phrase keeps its particle in its word
    return pattern.sub(lambda m: f"{pad}{MARK}{table[m.group(0)]}{MARK}{pad}", text)


def surface_of(key: str, language: str) -> str:
    """How a synonym key is shown in ``language``: its first listed word (the key when none is)."""
    words = SYNONYMS[language].get(key, ())
    return words[0] if words else key

