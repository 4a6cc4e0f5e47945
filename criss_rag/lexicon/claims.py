"""The medically decisive items of an answer sentence or of a passage's sentence, read so that two
sentences can be compared item by item (what :mod:`criss_rag.answering.meaning_check` does).

:func:`read` gives a :class:`Reading`: numbers bound to their comparison word and unit, stages
(stage, TNM, grade) and disease states (early, advanced, metastatic, ...), entities by category
(subtype, organ or site, treatment, test, drug, biomarker with its status), populations, directions
(:mod:`criss_rag.lexicon.directions`), the standard of a comparison, the number of negating cues
(:mod:`criss_rag.lexicon.negation`) and the content terms left over. It reuses the question reader
of :mod:`criss_rag.lexicon.facets` (the same word lists), applied to declarative sentences.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

from criss_rag.language.chinese_script import simplified_chars as simplified
from criss_rag.language.text import detect_language
from criss_rag.lexicon import facets as _facets
from criss_rag.lexicon.directions import directions, standard
from criss_rag.lexicon.facet_words import LEXICON
from criss_rag.lexicon.negation import negation_count
from criss_rag.lexicon.normalize import normalize, normalize_numbers
from criss_rag.lexicon.quantities import Quantity, before_numbers, quantities, shares

#: entity categories compared value by value (a sentence naming one the passage does not is unsupported)
ENTITY_FACETS = ("subtype", "site", "treatment", "test", "drug", "biomarker", "line")

#: what the question lexicon does not read in a declarative sentence: a population said as a clause
#: ("people who have never smoked"), a test named by what it samples (serum = a blood test)
_SAID: dict[str, list[tuple[re.Pattern, str, str]]] = {
    "en": [(re.compile(r"\b(?:have|has|had|who)\s+never\s+smoked\b|\bnever\s+smoked\b"), "population", "non-smoker"),
           (re.compile(r"\b(?:who|that)\s+(?:still\s+|currently\s+|now\s+)?smoke[sd]?\b|\bcurrently\s+smoke\b"),
            "population", "smoker"),
           (re.compile(r"\bserum\b"), "test", "blood-test")],
    "ko": [(re.compile(r"(?:담배를|흡연을)\s*(?:피우지|하지)\s*않(?:은|는)|흡연(?:한)?\s*(?:적|경험)이\s*없는"),
            "population", "non-smoker"),
           (re.compile(r"(?:담배를|흡연을)\s*(?:피우|하)는|흡연하는"), "population", "smoker"),
           (re.compile(r"혈청"), "test", "blood-test")],
    "ja": [(re.compile(r"(?:(?:たばこ|タバコ|煙草)を)?吸(?:わない|ったことがない)|"
                       r"喫煙(?:しない|歴のない|したことがない)"),
            "population", "non-smoker"),
           (re.compile(r"(?:たばこ|タバコ|煙草)を吸う|吸う人|喫煙する"), "population", "smoker"),
           (re.compile(r"血清"), "test", "blood-test")],
    "zh": [(re.compile(r"(?:从不|从未|不)(?:吸烟|抽烟)的"), "population", "non-smoker"),
           (re.compile(r"(?:吸烟|抽烟)的人"), "population", "smoker"),
           (re.compile(r"血清"), "test", "blood-test")],
}
#: a test result said with "come back", which the lexicon reads as a recurrence
_RESULT = re.compile(r"\b(?:comes?|came|coming)\s+back\s+(?=(?:as\s+)?(?:positive|negative|normal|abnormal|clear)\b)")


@dataclass
class Reading:
    """What one sentence (or clause) says, item by item."""

    language: str
    quantities: list[Quantity] = field(default_factory=list)
    stages: set[str] = field(default_factory=set)        # stage:III, T2, N1, grade:2, gleason:7
    disease: set[str] = field(default_factory=set)       # early, advanced, metastatic, localized, recurrent, ...
    entities: dict[str, set[str]] = field(default_factory=dict)  # facet -> values
    population: set[str] = field(default_factory=set)
    directions: set[str] = field(default_factory=set)    # dimension:sign
    standard: str | None = None                          # the side a comparison is made against
    negations: int = 0
    rest: str = ""                                       # the text with the items above blanked
    implied: set[str] = field(default_factory=set)       # items read from what the sentence says (_SAID)


def _lexicon(text: str, language: str) -> tuple[dict[str, set[str]], str]:
    """Every word-list phrase of ``text`` by facet, and the text with the phrases that name a thing
    (all but directions, timing and what-is-asked words) blanked."""
    found: dict[str, set[str]] = {}
    for pattern, facet, value, _ in LEXICON[language]:
        if facet in ("aspect", "direction", "timing"):
            continue

        def take(match: re.Match, facet: str = facet, value: str | None = value) -> str:
            found.setdefault(facet, set()).add(value if value is not None else match.group(0).strip().lower())
            return " " * len(match.group(0))
        text = pattern.sub(take, text)
    return found, text


_STAGE_VALUE = r"(?:IV|III|II|I|[0-4])[A-Ca-c]?(?![A-Za-z])"
_COORDINATED = re.compile(
    rf"\b(stage|grade)s?\s+({_STAGE_VALUE}(?:\s*(?:,|and|or|to)\s*{_STAGE_VALUE})+)", re.IGNORECASE
)


def _each_stage(match: re.Match) -> str:
    """ "grades 1 and 2" as "grade 1 and grade 2", "stages II, III or IV" likewise."""
    word = match.group(1)
    return re.sub(_STAGE_VALUE, lambda m: f"{word} {m.group(0)}", match.group(2))


_NON_INVASIVE = re.compile(r"\bnon-?\s*[a-z]+-invasive\b", re.I)  # non-muscle-invasive: not invasive (yet)
_EVERY: dict[str, list[tuple[re.Pattern, str]]] = {
    "en": [(re.compile(r"\b(?:once\s+(?:a|per|every)\s+year|every\s+year|annually|yearly)\b", re.I), "every 1 years"),
           (re.compile(r"\bevery\s+(?:other|second)\s+year\b", re.I), "every 2 years")],
    "ja": [(re.compile(r"(?:(\d+)(年|か月|ヶ月|カ月|週間|週)に|(年|月|週)|(\d+)(年|か月|ヶ月|カ月|週間|週)で)"
                       r"(?:1|一)(?:回|度)"), ""),
           (re.compile(r"隔年"), "2年ごと"), (re.compile(r"毎年"), "1年ごと")],
    "ko": [(re.compile(r"(\d+)\s*(년|개월|달|주)\s*에\s*(?:한|1)\s*번씩?"), ""),
           (re.compile(r"격년"), "2년마다"), (re.compile(r"매년|해마다"), "1년마다")],
    "zh": [(re.compile(r"(?:(\d+)(年|个月|周)|(年))(?:1|一)次"), ""),
           (re.compile(r"隔年"), "每2年"), (re.compile(r"每年(?:1次|一次)?"), "每1年")],
}
_EVERY_UNIT = {"年": "年", "か月": "か月", "ヶ月": "か月", "カ月": "か月", "週間": "週", "週": "週", "月": "か月",
               "년": "년", "개월": "개월", "달": "개월", "주": "주", "个月": "个月", "周": "周"}


def _every(text: str, language: str) -> str:
    """How often, in one form per language: 年1回 = 1年に1度 = 毎年 = "1年ごと", 隔年 = 2年に1回 =
    "2年ごと", 매년 = 1년에 한 번 = "1년마다", 每年一次 = 一年一次 = "每1年", "once a year" = "every 1 years"."""
    for pattern, into in _EVERY.get(language, ()):
        if into:
            text = pattern.sub(into, text)
            continue

        def every(match: re.Match) -> str:
            groups = [g for g in match.groups()]
            number = next((g for g in groups if g and g.isdigit()), "1")
            unit = _EVERY_UNIT.get(next((g for g in groups if g and not g.isdigit()), "年"), "年")
            return {"ja": f"{number}{unit}ごと", "ko": f"{number}{unit}마다"}.get(language, f"每{number}{unit}")

        text = pattern.sub(every, text)
    return text


def prepare(text: str, language: str) -> str:
    """The normal form both sides are read in: NFKC, one dash and apostrophe, Simplified Chinese,
    numbers as digits (:func:`~criss_rag.lexicon.normalize.normalize_numbers`), coordinated stages
    and grades each with its word ("grades 1 and 2"), acronyms spelled out."""
    text = normalize(text).replace("（", "(").replace("）", ")")
    if language == "zh":
        text = simplified(text)
    text = _every(normalize_numbers(before_numbers(text)), language)
    text = _COORDINATED.sub(_each_stage, text)
    if language == "en":
        text = _facets._EN_ACRONYM_RE.sub(_facets._acronym, text)
        text = _NON_INVASIVE.sub("non-invasive", text)
    return text


@lru_cache(maxsize=8192)
def read(text: str, language: str | None = None) -> Reading:
    """The decisive items of ``text`` (language detected unless given)."""
    language = language or detect_language(text)
    if language not in LEXICON:
        language = "en"
    text = prepare(text, language)
    biomarker, text = _facets._biomarkers(text)
    stages, text = _facets._stages(text)
    if language == "en":
        text = text.lower()
        text = re.sub(r"n't\b", " not", text).replace("cannot", "can not")
    text = shares(text, language)
    compared_with = standard(text, language)
    if language == "en":
        text = _RESULT.sub(lambda m: " " * len(m.group(0)), text)
    said: dict[str, set[str]] = {}
    for pattern, facet, value in _SAID.get(language, ()):
        if pattern.search(text):
            said.setdefault(facet, set()).add(value)
            text = pattern.sub(lambda m: " " * len(m.group(0)), text)  # "never smoked" negates nothing
    lexed, text = _lexicon(text, language)
    for facet, values in said.items():
        lexed.setdefault(facet, set()).update(values)
    found_quantities, text = quantities(text)
    entities = {facet: set(lexed.get(facet, ())) for facet in ENTITY_FACETS if lexed.get(facet)}
    markers = set(biomarker) | set(lexed.get("biomarker", ()))
    if markers:
        entities["biomarker"] = markers
    return Reading(
        language=language,
        quantities=found_quantities,
        stages=set(stages),
        disease=set(lexed.get("disease", ())),
        entities=entities,
        population=set(lexed.get("population", ())),
        directions=directions(text, language),
        standard=compared_with,
        negations=negation_count(text, language),
        rest=text,
        implied=set().union(*said.values()) if said else set(),
    )


@lru_cache(maxsize=8192)
def blanked(text: str, language: str) -> str:
    """``text`` lower-cased with the word-list phrases that name a thing blanked, same length
    (where negation cues are looked for: "non-small cell" and 非小細胞 negate nothing)."""
    out = text.lower() if language == "en" else text
    if language == "zh":
        out = simplified(out)
    for pattern, facet, _, _ in LEXICON.get(language, LEXICON["en"]):
        if facet in ("aspect", "direction", "timing"):
            continue
        out = pattern.sub(lambda m: " " * len(m.group(0)), out)
    for pattern, _, _ in _SAID.get(language, ()):
        out = pattern.sub(lambda m: " " * len(m.group(0)), out)
    return out
