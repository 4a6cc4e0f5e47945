"""English (and Latin-script runs in Korean, Japanese and Chinese questions) read into content
units for :mod:`criss_rag.lexicon.equivalence`: question frames and contractions removed, synonym
phrases marked, words stemmed (:func:`english_stem`) and mapped to their synonym key, numbers in one
form."""

from __future__ import annotations

import re

from criss_rag.lexicon import function_words as fw
from criss_rag.lexicon.content_unit import MARK, NUMBER, PLACEHOLDER, PUNCTUATION, Unit, mark_phrases, number_key
from criss_rag.lexicon.synonyms import SYNONYMS


def english_stem(word: str) -> str:
    """An inflection-free form of an English word (plural, -ed, -ing, final e), the same for every
    form of a word: treated / treats / treating -> treat; causes / caused / cause -> caus."""
    while True:
        if word.endswith("ies") and len(word) > 4:
            word = word[:-3] + "y"
        elif word.endswith("sses"):
            word = word[:-2]
        elif word.endswith("s") and not word.endswith(("ss", "us", "is")) and len(word) > 3:
            word = word[:-1]
        elif word.endswith("ing") and len(word) >= 6:
            word = word[:-3]
        elif word.endswith("ed") and len(word) >= 4:
            word = word[:-2]
        elif word.endswith("e") and len(word) >= 4:
            word = word[:-1]
        else:
            break
    if len(word) >= 4 and word[-1] == word[-2] and word[-1] not in "aeiouls":
        word = word[:-1]  # running -> runn -> run
    return word


_EN_SINGLE = {english_stem(w): k for k, ws in SYNONYMS["en"].items() for w in ws if re.fullmatch(r"[a-z]+", w)}
_EN_FRAMES = re.compile(r"\b(?:" + "|".join(re.escape(f).replace(r"\ ", r"\s+(?:please\s+)?")
                                          for f in sorted(fw.EN_FRAMES, key=len, reverse=True)) + r")\b")
_EN_CONTRACTIONS = [(re.compile(r"\bcan't\b|\bcannot\b"), "can not"), (re.compile(r"\bwon't\b"), "will not"),
                    (re.compile(r"n't\b"), " not"), (re.compile(r"'(?:s|re|ve|ll|d|m)\b"), "")]
# a word, a hyphenated compound, a number, a placeholder, or one symbol
_LATIN_TOKEN = re.compile(
    rf"{MARK}[^{MARK}]+{MARK}|\d+(?:\s*[+/:×]\s*\d+)+|\d+(?:[.,]\d+)*(?:-?[a-z]+)?(?:-[a-z0-9]+)*|[a-z][a-z0-9]*(?:-[a-z0-9]+)*"
    rf"|(?<=[a-z0-9])-(?![a-z0-9])|[^\s\w-]"
)


def latin_units(text: str, language: str, standalone_function: frozenset[str]) -> list[Unit]:
    """Units of Latin, digit and symbol text (English questions, and Latin runs in the others)."""
    text = _EN_FRAMES.sub(" ", text)
    for pattern, replacement in _EN_CONTRACTIONS:
        text = pattern.sub(replacement, text)
    text = mark_phrases(text, "en")
    units: list[Unit] = []
    for token in _LATIN_TOKEN.findall(text):
        placeholder = PLACEHOLDER.fullmatch(token)
        if placeholder:
            units.append(Unit(placeholder.group(1), placeholder.group(1)))
            continue
        if token in PUNCTUATION:
            continue
        if token == "-":
            units.append(Unit("sign:-", token))
            continue
        if re.fullmatch(r"\d+(?:\s*[+/:×]\s*\d+)+", token):  # 3+4, 1/2: one number, its order counts
            units.append(Unit(re.sub(r"\s", "", token), token))
            continue
        parts = [p for p in re.split(r"-", token) if p]
        if len(parts) == 1 and token in standalone_function:
            continue
        for part in parts:
            units.append(Unit(_latin_key(part), token))
    return units


def _latin_key(word: str) -> str:
    if NUMBER.fullmatch(word):
        return number_key(word)
    numbered = re.fullmatch(r"(\d+(?:[.,]\d+)*)([a-z]+)", word)  # 3a, 2cm
    if numbered:
        return number_key(numbered.group(1)) + numbered.group(2)
    if not word.isalpha():
        return word
    stem = english_stem(word)
    return _EN_SINGLE.get(stem, stem)

