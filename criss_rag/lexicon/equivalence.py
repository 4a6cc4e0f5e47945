"""Do two questions ask the same thing? Shown word by word, denied otherwise.

:func:`compare` reads both questions into their content words (:func:`content_units`) and
requires every content word and number of *each* question to be matched in the other: by identity,
by normal form (:func:`~criss_rag.lexicon.normalize.normalize`, English inflection, Korean
particles and endings), or by a known synonym (:mod:`criss_rag.lexicon.synonyms`). A word matches
across compounds written apart or together ("non small" / "non-small", "폐 암" / "폐암", "IIA" /
"II-A"). Anything left unmatched, a word no list knows included, makes the questions different;
:attr:`Equivalence.unmatched` names it as written.

What is *not* content is listed (:mod:`criss_rag.lexicon.function_words`): articles, auxiliaries,
pronouns, the frame of a question (what, how, 무엇, どのような, 什么), particles and endings.
Negations are always content. Words that only make sense with the next one are bound to it, so
that swapping them is a difference: a comparison and its number ("over 65" / "under 65", "65 or
older"), "than X" ("more common in men than women"), "from X", "versus X"; Korean ``X보다``,
Japanese ``Xより``, Chinese ``比X``.

Chinese is compared as written: Traditional and Simplified characters are different words unless
both questions use the same script (no script converter is a dependency of the core).

Each script is read by its own module: :mod:`criss_rag.lexicon.latin_units` (English, and Latin
runs in the others), :mod:`criss_rag.lexicon.korean_units`,
:mod:`criss_rag.lexicon.japanese_chinese_units`; :mod:`criss_rag.lexicon.content_unit` holds what
they share. This module joins their units (stage numbers, bound words) and compares.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from criss_rag.language.text import detect_language
from criss_rag.lexicon import function_words as fw
from criss_rag.lexicon.content_unit import NUMBER, PUNCTUATION, Unit
from criss_rag.lexicon.facets import extract
from criss_rag.lexicon.japanese_chinese_units import chinese_units, japanese_units
from criss_rag.lexicon.korean_units import korean_units
from criss_rag.lexicon.latin_units import english_stem, latin_units
from criss_rag.lexicon.normalize import normalize_numbers
from criss_rag.lexicon.synonyms import ACRONYMS

__all__ = ["Equivalence", "Unit", "canonical_text", "compare", "content_units", "english_stem", "keys"]


@dataclass(frozen=True)
class Equivalence:
    """The verdict of :func:`compare`: ``same`` only when nothing is ``unmatched`` (words as written,
    of either question)."""

    same: bool
    unmatched: tuple[str, ...] = ()


_BINDING = {
    "than": "than:",
    "from": "from:",
    "versus": "versus:",
    "to": "to:",
    "into": "to:",
}  # the next word is bound to these
_CMP = re.compile(r"cmp:(?:>=|<=|>|<)")


_ROMAN = {"i": "1", "ii": "2", "iii": "3", "iv": "4", "v": "5"}
_ROMAN_STAGE = re.compile(r"(iv|i{1,3}|v)([a-c]?)")
_STAGE_WORDS = {"stage", "grade"}


def _stage_numbers(units: list[Unit]) -> list[Unit]:
    """Roman numerals next to a stage or grade word as digits: stage IIIA -> 3a, III기 -> 3."""
    out = list(units)
    for i, unit in enumerate(out):
        roman = _ROMAN_STAGE.fullmatch(unit.key)
        beside = {out[j].key for j in (i - 1, i + 1) if 0 <= j < len(out)}
        if roman and beside & _STAGE_WORDS:
            out[i] = Unit(_ROMAN[roman.group(1)] + roman.group(2), unit.surface)
    return out


def _bind(units: list[Unit]) -> list[Unit]:
    """Words that belong with the next one (than, from, versus) or a comparison with its number
    (before it: "over 65"; after it: "65 or older") become one unit."""
    out: list[Unit] = []
    i = 0
    while i < len(units):
        unit = units[i]
        nxt = units[i + 1] if i + 1 < len(units) else None
        if unit.key in _BINDING and nxt is not None:
            out.append(Unit(_BINDING[unit.key] + nxt.key, f"{unit.surface} {nxt.surface}"))
            i += 2
            continue
        if _CMP.fullmatch(unit.key):
            if nxt is not None and NUMBER.match(nxt.key):
                out.append(Unit(unit.key + nxt.key, f"{unit.surface} {nxt.surface}"))
                i += 2
                continue
            back = next((j for j in (-1, -2) if len(out) >= -j and NUMBER.match(out[j].key)), None)
            if back is not None:  # 65 or older, 65세 이상 (a unit may stand between)
                out[back] = Unit(unit.key + out[back].key, f"{out[back].surface} {unit.surface}")
                i += 1
                continue
        out.append(unit)
        i += 1
    return out


_ACRONYM = re.compile(r"(?<![A-Za-z0-9])(" + "|".join(ACRONYMS) + r")(?![A-Za-z0-9])", re.IGNORECASE)
_FRAMES = {language: re.compile("|".join(patterns)) for language, patterns in fw.FRAMES.items()}


def canonical_text(text: str, language: str) -> str:
    """``text`` with numbers, stages and signs in one form, abbreviations of cancer names written
    out in the question's language (NSCLC는 -> 비소세포폐암는) and Korean, Japanese and Chinese
    question frames removed; case is kept. What the cache reads facets from, too."""
    text = normalize_numbers(text)

    def name(match: re.Match) -> str:
        pad = " " if language == "en" else ""  # a Korean particle stays on its word: NSCLC는
        return f"{pad}{ACRONYMS[match.group(1).lower()].get(language, match.group(1))}{pad}"

    text = _ACRONYM.sub(name, text)
    return _FRAMES[language].sub(" ", text) if language in _FRAMES else text


def content_units(text: str, language: str | None = None) -> list[Unit]:
    """The content words and numbers of a question, in order (see the module docstring)."""
    language = language or detect_language(text)
    text = canonical_text(text, language).lower()
    if language == "ko":
        units = korean_units(text)
    elif language == "ja":
        units = japanese_units(text)
    elif language == "zh":
        units = chinese_units(text)
    else:
        units = latin_units(text, "en", fw.EN)
    punctuation = "".join(PUNCTUATION)
    return [Unit(u.key, u.surface.strip(punctuation) or u.surface) for u in _bind(_stage_numbers(units))]


def _joins(units: list[Unit], size: int = 3) -> dict[str, list[int]]:
    """Keys of runs of 2..size neighbouring units written together, with the units they cover."""
    joined: dict[str, list[int]] = {}
    for start in range(len(units)):
        for end in range(start + 2, min(len(units), start + size) + 1):
            joined.setdefault("".join(u.key for u in units[start:end]), list(range(start, end)))
    return joined


def _unmatched(mine: list[Unit], theirs: list[Unit]) -> list[int]:
    keys = {u.key for u in theirs}
    their_joins = _joins(theirs)
    covered = {i for joined, span in _joins(mine).items() if joined in keys for i in span}
    return [i for i, u in enumerate(mine) if u.key not in keys and u.key not in their_joins and i not in covered]


def compare(a: str, b: str, language: str | None = None) -> Equivalence:
    """Whether ``a`` and ``b`` ask the same thing: every content unit of each matched in the other."""
    language = language or detect_language(a)
    units_a, units_b = content_units(a, language), content_units(b, language)
    missing = [units_a[i].surface for i in _unmatched(units_a, units_b)]
    missing += [units_b[i].surface for i in _unmatched(units_b, units_a)]
    unmatched = tuple(dict.fromkeys(missing))
    if not unmatched:  # the same words: they must also come in the same order
        unmatched = _reordered(units_a, units_b)
    return Equivalence(same=not unmatched, unmatched=unmatched)


def _movable(unit: Unit) -> bool:
    """A unit whose place in the question does not change what it asks about: what is asked
    (treated / the treatment, symptoms, causes), and stage numbers and their markers (第3期 /
    ステージ3)."""
    if any(ch.isdigit() for ch in unit.key) or unit.key.lower() in _STAGE_MARKERS:
        return True
    return bool(extract(unit.surface).aspect or extract(unit.key).aspect)


_STAGE_MARKERS = frozenset({"stage", "grade", "ステージ", "期", "기", "병기", "分期", "第", "病期", "级", "級", "등급"})


def _reordered(units_a: list[Unit], units_b: list[Unit]) -> tuple[str, ...]:
    """The first pair of content units that the two questions write in opposite order ("does
    hepatitis B cause liver cancer" / "does liver cancer cause hepatitis B"), as one unmatched item;
    () when none is. Word order can carry who does what to whom, so a question whose words are the
    same but reordered is not shown to ask the same thing (a paraphrase that reorders is a cache miss,
    never another question's answer). Units written once in each question are compared."""
    units_a, units_b = [u for u in units_a if not _movable(u)], [u for u in units_b if not _movable(u)]
    once_a = [u.key for u in units_a if sum(v.key == u.key for v in units_a) == 1]
    position_b = {u.key: i for i, u in enumerate(units_b) if sum(v.key == u.key for v in units_b) == 1}
    shared = [key for key in once_a if key in position_b]
    surface = {u.key: u.surface for u in units_a}
    for first, second in zip(shared, shared[1:], strict=False):
        if position_b[first] > position_b[second]:
            return (f"word order: {surface[first]} … {surface[second]}",)
    return ()


def keys(units: Iterable[Unit]) -> list[str]:
    """The compared keys of ``units`` (for tests and benchmarks)."""
    return [u.key for u in units]
