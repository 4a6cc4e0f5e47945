"""Which cancer a question asks about, read more closely than by cancer names alone.

Two rules on top of the lexicon's mentions (:mod:`criss_rag_domain.lexicon`):

- **A location is not the cancer asked about.** An organ named as where a cancer spread
  ("큰창자 암이 간으로 번졌는데", "肝臓に転移した腸のがん", "肺癌转移到肝脏", "lung cancer that
  spread to the liver"), or a type named that way, is left out when the question names another.
- **An organ with a cancer word names its cancer.** A question that names no type but names an
  organ, in everyday, anatomical or described words (``organs.yaml``: 큰창자, 허파, 이자, 腸,
  すい臓, "the organ that makes insulin"), together with a cancer word (암, 종양, 악성, がん, 腫瘍,
  癌, 肿瘤, cancer, tumour, malignant, ...) asks about that organ's cancer: the organ nearest
  before the first cancer word, else the nearest after it, locations left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import yaml

from criss_rag.plugin_utils import simplified_chars
from criss_rag_domain.lexicon import CancerLexicon
from criss_rag_domain.matching import normalise_text

ORGANS_FILE = Path(__file__).with_name("organs.yaml")

#: cancer words: a question naming an organ with one of them asks about that organ's cancer
_CANCER_WORD = re.compile(
    r"(?<![가-힣])(?:암|종양|악성|혹(?![시은]))|[가-힣](?:암(?=[은는이가을를의에도과와으로]|\s|$|[?.!,]))|"
    r"がん|ガン|癌|腫瘍|悪性|肿瘤|恶性|腫瘤|惡性|"
    r"\b(?:cancers?|tumou?rs?|malignan\w*|carcinomas?|neoplasms?)\b",
    re.IGNORECASE,
)
#: after a mention: it is where something spread to (Korean and Japanese put the verb after it)
_SPREAD_AFTER = re.compile(
    r"^\s*(?:암|がん|癌)?\s*(?:으로|로|에|에까지|까지|에게)\s*(?:도\s*)?(?:번지|번져|번졌|번진|옮겨|옮아|옮긴|전이|퍼지|퍼져|퍼졌|퍼진)"
    r"|^\s*(?:がん|癌)?\s*(?:に|へ|まで)\s*(?:も\s*)?(?:転移|広が|ひろが|飛ん|とん|移っ|うつっ|散っ)"
)
#: before a mention: it is where something spread to (Chinese and English put the verb before it)
_SPREAD_BEFORE = re.compile(
    r"(?:转移|轉移|扩散|擴散|蔓延|移)(?:到|至)\s*$"
    r"|\b(?:spread|spreads|spreading|metastasi[sz]ed|metastasi[sz]es|moved|gone|went)\s+(?:in)?to\s+"
    r"(?:the\s+|my\s+|his\s+|her\s+|their\s+)?$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _Organ:
    type_id: str
    start: int
    end: int


@lru_cache(maxsize=1)
def _organ_patterns() -> tuple[tuple[re.Pattern[str], str], ...]:
    data = yaml.safe_load(ORGANS_FILE.read_text(encoding="utf-8"))["organs"]
    patterns = []
    for type_id, words in data.items():
        for language, phrases in words.items():
            for phrase in phrases:
                body = r"\s*".join(re.escape(part) for part in phrase.split())
                if language == "ko":  # at the start of a Korean word only: 간 in 간에, not in 시간
                    patterns.append((re.compile(rf"(?<![가-힣]){body}"), type_id))
                elif language == "en":
                    patterns.append((re.compile(rf"\b{body}\b", re.IGNORECASE), type_id))
                else:
                    patterns.append((re.compile(simplified_chars(body)), type_id))
    # longest words first, so 큰창자 is read before 창자 and 肝臓 before 肝
    return tuple(sorted(patterns, key=lambda p: -len(p[0].pattern)))


def is_location(text: str, start: int, end: int) -> bool:
    """Whether the words at ``text[start:end]`` name where a cancer spread to."""
    return bool(_SPREAD_AFTER.search(text[end:end + 12]) or _SPREAD_BEFORE.search(text[max(0, start - 24):start]))


def organs_in(text: str) -> list[_Organ]:
    """Organ mentions, longest first where they overlap, in text order."""
    form = simplified_chars(text)
    found: list[_Organ] = []
    for pattern, type_id in _organ_patterns():
        for match in pattern.finditer(form):
            if not any(match.start() < o.end and o.start < match.end() for o in found):
                found.append(_Organ(type_id, match.start(), match.end()))
    return sorted(found, key=lambda o: o.start)


def asked_types(lexicon: CancerLexicon, text: str) -> list[str]:
    """The types ``text`` asks about (see the module docstring), in order of first mention."""
    text = normalise_text(text)
    mentions = lexicon.mentions(text)
    if mentions:
        kept = [m for m in mentions if not is_location(text, m.start, m.end)] or mentions
        return list(dict.fromkeys(m.key for m in kept))
    cancer_word = _CANCER_WORD.search(text)
    if cancer_word is None:
        return []
    organs = [o for o in organs_in(text) if o.type_id in lexicon.types and not is_location(text, o.start, o.end)]
    if not organs:
        return []
    before = [o for o in organs if o.start < cancer_word.start()]
    chosen = before[-1] if before else organs[0]
    return [chosen.type_id]
