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

from criss_rag.language.text import detect_language
from criss_rag.lexicon import facets as _facets
from criss_rag.lexicon.directions import directions, standard
from criss_rag.lexicon.facet_words import LEXICON
from criss_rag.lexicon.hanzi import simplified
from criss_rag.lexicon.negation import negation_count
from criss_rag.lexicon.normalize import _han_value, normalize, normalize_numbers

#: entity categories compared value by value (a sentence naming one the passage does not is unsupported)
ENTITY_FACETS = ("subtype", "site", "treatment", "test", "drug", "biomarker", "line")

# number + unit read as the question reader does, plus ages by decade (50대, 50代, 50多岁) and the
# comparison words written after a number in Korean, Japanese and Chinese ("50대 이후", "5年以降")
_EXTRA_UNITS = [(r"대|代|多岁", "decade"), (r"met(?:er|re)s?|m(?![a-z])|미터|メートル|米(?![饭])", "m"),
                (r"inch(?:es)?|in\.", "inch"), (r"f(?:oo|ee)t|ft", "ft")]
_EXTRA_AFTER = [(r"이후|이상|以降|以后|之后|以上|上", ">="), (r"이전|이하|以前|之前|以下|未満", "<")]
_UNITS = _EXTRA_UNITS + _facets._UNITS
_AFTER = _EXTRA_AFTER + _facets._CMP_AFTER
_UNIT_RE = re.compile(r"^[\s-]*(?:" + "|".join(f"(?P<u{i}>{p})" for i, (p, _) in enumerate(_UNITS)) + r")")
_AFTER_RE = re.compile(r"^[\s-]*(?:" + "|".join(f"(?P<a{i}>{p})" for i, (p, _) in enumerate(_AFTER)) + r")")
_HAN_RANGE_START = re.compile(
    r"([〇零一二两三四五六七八九十]+)(?=\s*(?:至|到|~|-|から)\s*[〇零一二两三四五六七八九十\d])"
)
_PERCENT_OF = re.compile(r"百分之([〇零一二两三四五六七八九十百\d]+)")
_CJK_FRACTION = re.compile(r"([一二三四五六七八九十\d]+)\s*(?:人|명)?\s*(?:中|가운데|중)\s*([一二三四五六七八九十\d]+)")
_EN_IN = re.compile(r"\b(?:(\d+)\s+(?:to|or|-)\s+)?(\d+)\s+(?:in|out\s+of)\s+(\d+)\b")
_CJK_TENTHS_RANGE = re.compile(
    r"([一二三四五六七八九十\d]+)\s*(?:至|到|~|-|から)\s*([一二三四五六七八九十\d]+)\s*(割|成)"
)


@dataclass(frozen=True)
class Quantity:
    """A number with the comparison word and unit bound to it: ``>= 65 y``, ``~ 70 %``."""

    comparison: str  # = ~ > >= < <= range
    value: str
    unit: str

    def __str__(self) -> str:
        cmp = {"=": "", "~": "about ", ">": "more than ", ">=": "at least ", "<": "less than ", "<=": "at most ",
               "range": ""}.get(self.comparison, "")
        unit = {"y": " years", "mo": " months", "wk": " weeks", "d": " days", "%": "%", "decade": "s"}.get(
            self.unit, f" {self.unit}" if self.unit else ""
        )
        return f"{cmp}{self.value}{unit}"


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


def _cjk_int(token: str) -> int | None:
    return int(token) if token.isdigit() else _han_value(token)


def _number_words(text: str) -> str:
    """Shares as percentages, after :func:`~criss_rag.lexicon.normalize.normalize_numbers`:
    "3 in 10" / "8 to 9 in 10" -> 30% / 80 to 90%, "10명 중 3명" / "10人中3人" -> 30%."""
    def share(match: re.Match) -> str:
        whole = int(match.group(3))
        if not whole:
            return match.group(0)
        part = f"{round(100 * int(match.group(2)) / whole)}%"
        return f"{round(100 * int(match.group(1)) / whole)} to {part}" if match.group(1) else part
    text = _EN_IN.sub(share, text)

    def fraction(match: re.Match) -> str:
        whole, part = _cjk_int(match.group(1)), _cjk_int(match.group(2))
        return f"{round(100 * part / whole)}%" if whole and part is not None and part <= whole else match.group(0)
    return _CJK_FRACTION.sub(fraction, text)


def _before_numbers(text: str) -> str:
    """What :func:`normalize_numbers` does not read: a range of tenths ("八至九成" -> 80-90%) and
    百分之 ("百分之八十" -> 80%)."""
    def tenths_range(match: re.Match) -> str:
        low, high = _cjk_int(match.group(1)), _cjk_int(match.group(2))
        return f"{low * 10}-{high * 10}%" if low is not None and high is not None and high <= 10 else match.group(0)
    text = _CJK_TENTHS_RANGE.sub(tenths_range, text)
    text = _HAN_RANGE_START.sub(
        lambda m: str(_cjk_int(m.group(1))) if _cjk_int(m.group(1)) is not None else m.group(0), text
    )

    def percent(match: re.Match) -> str:
        value = _cjk_int(match.group(1))
        return f"{value}%" if value is not None else match.group(0)
    return _PERCENT_OF.sub(percent, text)


def _quantities(text: str) -> tuple[list[Quantity], str]:
    found: list[Quantity] = []
    spans = []
    for match in _facets._NUMBER_RE.finditer(text):
        before = text[max(0, match.start() - 24):match.start()]
        cmp_match = _facets._CMP_BEFORE_RE.search(before)
        comparison = _facets._which(cmp_match, "b", _facets._CMP_BEFORE) if cmp_match else None
        unit_match = _UNIT_RE.match(text[match.end():match.end() + 24])
        unit = _facets._which(unit_match, "u", _UNITS) if unit_match else ""
        end = match.end() + (unit_match.end() if unit_match else 0)
        after_match = _AFTER_RE.match(text[end:end + 24])
        if after_match:
            comparison = _facets._which(after_match, "a", _AFTER)
            end += after_match.end()
        number = _facets._normal_number(match.group(0))
        if unit == "m":  # one unit for lengths: 1.5 m = 150 cm
            number, unit = "-".join(_scaled(part, 100) for part in number.split("-")), "cm"
        if "-" in number and comparison in (None, "range"):
            comparison = "range"
        found.append(Quantity(comparison or "=", number, unit or ""))
        spans.append((cmp_match.start() + max(0, match.start() - 24) if cmp_match else match.start(), end))
    for start, end in reversed(spans):
        text = text[:start] + " " * (end - start) + text[end:]
    return found, text


def _scaled(number: str, factor: int) -> str:
    try:
        return f"{float(number) * factor:g}"
    except ValueError:
        return number


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


def prepare(text: str, language: str) -> str:
    """The normal form both sides are read in: NFKC, one dash and apostrophe, Simplified Chinese,
    numbers as digits (:func:`~criss_rag.lexicon.normalize.normalize_numbers`), acronyms spelled out."""
    text = normalize(text).replace("（", "(").replace("）", ")")
    if language == "zh":
        text = simplified(text)
    text = normalize_numbers(_before_numbers(text))
    if language == "en":
        text = _facets._EN_ACRONYM_RE.sub(_facets._acronym, text)
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
    text = _number_words(text)
    compared_with = standard(text, language)
    lexed, text = _lexicon(text, language)
    quantities, text = _quantities(text)
    entities = {facet: set(lexed.get(facet, ())) for facet in ENTITY_FACETS if lexed.get(facet)}
    markers = set(biomarker) | set(lexed.get("biomarker", ()))
    if markers:
        entities["biomarker"] = markers
    return Reading(
        language=language,
        quantities=quantities,
        stages=set(stages),
        disease=set(lexed.get("disease", ())),
        entities=entities,
        population=set(lexed.get("population", ())),
        directions=directions(text, language),
        standard=compared_with,
        negations=negation_count(text, language),
        rest=text,
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
    return out
