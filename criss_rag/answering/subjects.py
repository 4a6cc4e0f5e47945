"""What a question is about, and what its evidence is about, for the relevance check
(:mod:`criss_rag.answering.relevance`): the sites and subtypes of the cancers a question names,
where it says the cancer spread, the species, and an inflammatory disease asked about for itself.
Each of these shares words with cancer pages that are about something else ("mouth" of chemotherapy's
mouth sores is not mouth cancer; a liver cancer page that lists hepatitis B among the risk factors
does not say when to start antivirals).
"""

from __future__ import annotations

import functools
import re

from criss_rag.language.chinese_script import simplified_chars
from criss_rag.language.text import detect_language
from criss_rag.lexicon.facets import Facets, extract, named_spans
from criss_rag.lexicon.organs import EUPHEMISM
from criss_rag.types import RelevanceVerdict

#: lexicon facets that name what a question is about (the cancer's site and subtype) rather than its point
SUBJECT = ("site:", "subtype:")
_CONCEPT_FACETS = ("site", "subtype", "stage", "population", "line", "treatment", "test", "drug", "biomarker",
                   "disease", "direction", "timing", "aspect")


def concepts_of(facets: Facets) -> set[str]:
    """The language-neutral values of ``facets`` ("site:liver", "aspect:symptoms"); a biomarker by
    its name alone (EGFR, whether a mutation or a status is named with it)."""
    return {f"{name}:{value.split(':')[0] if name == 'biomarker' else value}"
            for name in _CONCEPT_FACETS for value in getattr(facets, name)}


def cancer_subjects(question: str) -> set[str]:
    """The sites and subtypes of the cancers a question names ("mouth cancer", 방광암, 白血病), and,
    when it says the cancer spread, every site it names (대장암이 간으로 번진: the liver too): what
    it asks about, which the evidence must be about. A cancer named in general words (암, 癌, "a
    tumour in the organ behind the stomach") places none here: the organ a question describes it by
    is not the one it asks about."""
    facets = extract(question)
    asked = set().union(*(subjects(name) for name in facets.cancer))
    if asked and "metastatic" in facets.disease:
        asked |= subjects(question)
    return asked


@functools.lru_cache(maxsize=4096)
def subjects(text: str) -> frozenset[str]:
    """The sites and subtypes ``text`` names, the rectum read as the large bowel it is part of (a
    rectal cancer question is answered by pages on colorectal cancer). Remembered per text: the same
    passage titles are read for every question they answer."""
    return frozenset(_LARGE_BOWEL.get(c, c) for c in concepts_of(extract(text)) if c.startswith(SUBJECT))


_LARGE_BOWEL = {"site:rectum": "site:colon"}


def same_subject(question: str, texts: list[str], titles: list[str], verdict: RelevanceVerdict) -> RelevanceVerdict:
    """Two subjects the words of a passage can share without being about them:

    - an animal (a pet's tumour, 고양이, 犬, 宠物): relevant only to evidence that speaks of animals;
      evidence on people does not answer for another species;
    - an inflammatory disease named by its form (hepatitis, 위염, 膵炎, 胃炎) in a question that names
      no cancer and no cancer treatment: relevant only to evidence whose title or section names it;
      a cancer page that lists it among risk factors does not say how it is treated.
    """
    facets = extract(question)
    missing: list[str] = []
    if _ANIMAL in facets.population and not any(_ANIMAL in extract(t).population for t in texts):
        spans = named_spans(question, detect_language(question))
        missing += [question[s:e] for s, e, c in spans if c == f"population:{_ANIMAL}"] or [_ANIMAL]
    if not facets.cancer and not facets.treatment and not re.search(EUPHEMISM, question):
        titles_text = simplified_chars(" ".join(titles)).lower()
        missing += [d for d in inflammations(question) if _core(d) not in titles_text]
    if not missing:
        return verdict
    return verdict.model_copy(update={"relevant": False,
                                      "missing": [*verdict.missing, *(m for m in missing if m not in verdict.missing)]})


def inflammations(text: str) -> list[str]:
    """The inflammatory diseases ``text`` names by the form of their name: an English word in -itis,
    a Korean noun in -염/-렴 (위염, 폐렴; not 감염, 오염, 전염: infection, pollution, contagion), a
    Han word in -炎 (肝炎, 膵炎; not 炎症, inflammation itself)."""
    return [m.group(0) for m in _INFLAMMATION.finditer(text)
            if m.group(0) not in _NOT_INFLAMMATION]


def _core(disease: str) -> str:
    """What a title must contain to be about ``disease``: the English word, or the organ and the
    inflammation of a CJK name (간염 of B형간염, 肝炎 of C型肝炎)."""
    disease = simplified_chars(disease).lower()
    return disease if disease.isascii() else disease[-2:]


# a Korean noun ends the word or takes a particle (위염이랑; 염분 is salt)
_INFLAMMATION = re.compile(r"\b[a-z]{3,}itis\b"
                           r"|[가-힣]{1,5}[염렴](?=$|[^가-힣]|[이은는을를에으과와랑도만의인])|[一-龥]{1,5}炎(?!症)",
                           re.IGNORECASE)
_NOT_INFLAMMATION = {"감염", "오염", "전염"}


_ANIMAL = "animal"
