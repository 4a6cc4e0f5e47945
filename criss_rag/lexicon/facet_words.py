"""Word lists behind :mod:`criss_rag.lexicon.facets`: per language, ``(pattern, facet, value, blank)``
(:data:`~criss_rag.lexicon.facet_entries.Entry`), and the negation cues.

The lists are kept per kind of facet, all four languages side by side:

- :mod:`criss_rag.lexicon.cancer_kind_words`: subtypes, receptor status, disease state and the
  tissue families (leukaemia, lymphoma, ...);
- :mod:`criss_rag.lexicon.population_words`: age groups, sex, pregnancy, menopause, smoking;
- :mod:`criss_rag.lexicon.treatment_words`: line of therapy, treatments, tests, drugs;
- :mod:`criss_rag.lexicon.aspect_words`: direction and timing of an effect, and what is asked
  (treatment, symptoms, outlook, ...);
- :mod:`criss_rag.lexicon.site_words`: organs and body sites (joined here with the organ names of
  :mod:`criss_rag.lexicon.organs`).

:data:`LEXICON` joins them per language in the order they are tried: subtypes, receptor status,
disease state, population, line, treatment, test, drug, direction, timing, site, aspect, organ
names, tissue families; the aspects outside the cancer's medicine (cost, provider, work, ...) come
first. Within a table the more specific pattern comes first ("non-small cell" before "small
cell", "남성" before "성인"); a ``blank`` match is removed from the text so that later
patterns, numbers and negations do not read it again. Site words are kept (not blanked): "lung
cancer that spread to the liver" keeps "lung cancer" as the cancer named and both organs as sites.
``value`` ``None`` keeps the matched text (drug names found by their suffix).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from criss_rag.lexicon.aspect_words import ASPECTS, DIRECTIONS, OUTSIDE_CARE, TIMING
from criss_rag.lexicon.cancer_kind_words import BIOMARKERS, DISEASE_STATES, FAMILIES, SUBTYPES
from criss_rag.lexicon.organs import ORGAN_NAMES
from criss_rag.lexicon.population_words import POPULATIONS
from criss_rag.lexicon.site_words import SITES
from criss_rag.lexicon.treatment_words import DRUGS, TESTS, THERAPY_LINES, TREATMENTS

if TYPE_CHECKING:
    from criss_rag.lexicon.facet_entries import Entry, Word

ROMAN = {"0": "0", "1": "I", "2": "II", "3": "III", "4": "IV", "5": "V"}


def _en(word_list: list[Word]) -> list[Entry]:
    return [(re.compile(rf"\b(?:{p})\b"), f, v, b) for p, f, v, b in word_list]


def _cjk(word_list: list[Word]) -> list[Entry]:
    return [(re.compile(p, re.IGNORECASE), f, v, b) for p, f, v, b in word_list]


#: the tables in the order a language's entries are tried
_TABLES = (SUBTYPES, BIOMARKERS, DISEASE_STATES, POPULATIONS, THERAPY_LINES, TREATMENTS, TESTS, DRUGS,
           DIRECTIONS, TIMING, SITES, ASPECTS)


def _organ_names(language: str) -> list[Word]:
    """The everyday and anatomical organ names of :mod:`criss_rag.lexicon.organs` as site entries."""
    return [(pattern, "site", site, False) for site, names in ORGAN_NAMES.items()
            for pattern in names.get(language, [])]


def _families(language: str) -> list[Word]:
    """:data:`~criss_rag.lexicon.cancer_kind_words.FAMILIES` as subtype entries (not blanked: the
    cancer's name is read from the text too)."""
    return [(names[language], "subtype", family, False) for family, names in FAMILIES.items()]


def _entries(language: str) -> list[Entry]:
    words = [word for table in _TABLES for word in table.get(language, [])]
    # the aspects outside the cancer's medicine are read first, before a treatment word is blanked
    # out of 수술비 or 手術代 (surgery fee)
    words.sort(key=lambda word: not (word[1] == "aspect" and word[2] in OUTSIDE_CARE))  # stable
    wrap = _en if language == "en" else _cjk
    return wrap([*words, *_organ_names(language), *_families(language)])


LEXICON: dict[str, list[Entry]] = {language: _entries(language) for language in ("en", "ko", "ja", "zh")}

NEGATION: dict[str, re.Pattern] = {
    "en": re.compile(
        r"\b(?:not|no|never|without|contraindicat\w*|none|nor|neither|nothing|nobody|unable|avoid\w*|except|lack\w*|"
        r"absence|free\s+of|un(?:safe|necessary|recommended|likely|treatable|common|usual|advisable))\b"
    ),
    "ko": re.compile(r"않|없|아니|아닌|아냐|못|말아|말고|금지|비추천|불(?=필요|가능|가하|가)|(?<![가-힣])안(?=\s)"),
    "ja": re.compile(r"ない|なかっ|なく|ません|(?<!ま)ず(?![つっ])|無い|無し|なし|不要|不可|禁止|避け|いいえ|非(?!常)"),
    "zh": re.compile(r"不|没|无|非|未|别|勿"),
}
