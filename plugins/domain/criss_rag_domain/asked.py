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

from criss_rag.lexicon.facet_words import LEXICON
from criss_rag.lexicon.organs import EUPHEMISM, ORGAN_DESCRIPTIONS, REMOVAL
from criss_rag.plugin_utils import simplified_chars
from criss_rag_domain.lexicon import CancerLexicon
from criss_rag_domain.matching import normalise_text

ORGANS_FILE = Path(__file__).with_name("organs.yaml")

#: cancer words: a question naming an organ with one of them asks about that organ's cancer
_CANCER_WORD = re.compile(
    r"(?<![가-힣])(?:암|종양|악성|혹(?![시은]))|[가-힣](?:암(?=[은는이가을를의에도과와으로]|\s|$|[?.!,]))|"
    r"がん|ガン|癌|腫瘍|悪性|肿瘤|恶性|腫瘤|惡性|"
    # a lump, as 혹 above: 멍울, 몽우리, しこり, 肿块 ("a lump in the breast")
    r"멍울|몽우리|しこり|肿块|腫塊|硬块|硬塊|\blumps?\b|"
    r"\b(?:cancers?|tumou?rs?|malignan\w*|carcinomas?|neoplasms?)\b"
    # a cancer in everyday words (나쁜 혹, 悪いできもの, 不好的东西), and screening, which an organ's
    # name with it means for that organ's cancer (폐 검진, 大腸の検診, 肺部筛查)
    rf"|{EUPHEMISM}|검진|検診|健診|筛查|篩檢|筛检|\bscreen(?:ing)?s?\b"
    # and taking the organ out (가슴을 잘라 내야, 胸を全部とる): in a cancer corpus, its cancer's surgery
    rf"|{REMOVAL}",
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

#: after an organ: it is where another organ lies (behind, beside, below, above, near it)
_BESIDE_AFTER = re.compile(
    r"^\s*(?:의\s*)?(?:뒤|뒷|옆|밑|아래|아랫|위쪽|윗|근처|주변|바로\s*뒤)"
    # Japanese with の (胃の裏): a bare 上 or 下 after an organ is Chinese for "on" (肺上长了东西)
    r"|^\s*の\s*(?:裏|後ろ|うしろ|横|下|上|そば|近く|隣|奥|周り)"
    r"|^\s*的?\s*(?:后面|后方|背后|后边|旁边|下面|下方|上面|上方|附近|周围)"
)
#: before an organ: it is where another organ lies (English puts the preposition first)
_BESIDE_BEFORE = re.compile(
    r"\b(?:behind|beside|below|under|underneath|beneath|above|near|next\s+to)\s+(?:the\s+|your\s+|my\s+)?$",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class _Organ:
    type_id: str
    start: int
    end: int


@lru_cache(maxsize=1)
def _organ_patterns() -> tuple[tuple[re.Pattern[str], str, str, bool], ...]:
    """(pattern, cancer type, language, is a name) for every organ word of a site ``organs.yaml``
    maps to a type: the shared lexicon's site names, then the organs' descriptions."""
    sites = _organ_sites()
    patterns: list[tuple[re.Pattern[str], str, str, bool]] = []
    for language, entries in LEXICON.items():
        patterns += [(pattern, sites[value], language, True) for pattern, facet, value, _ in entries
                     if facet == "site" and value in sites]
    for site, words in ORGAN_DESCRIPTIONS.items():
        if site not in sites:
            continue
        for language, phrases in words.items():
            for phrase in phrases:
                body = phrase.replace(" ", r"\s*")
                pattern = re.compile(rf"\b{body}\b", re.IGNORECASE) if language == "en" else re.compile(body)
                patterns.append((pattern, sites[site], language, False))
    return tuple(patterns)


def is_location(text: str, start: int, end: int) -> bool:
    """Whether the words at ``text[start:end]`` name where a cancer spread to."""
    return bool(_SPREAD_AFTER.search(text[end:end + 12]) or _SPREAD_BEFORE.search(text[max(0, start - 24):start]))


def is_landmark(text: str, start: int, end: int) -> bool:
    """Whether the organ at ``text[start:end]`` only says where another organ lies ("위 뒤에 있는
    장기", "胃の裏にある臓器", "胃后面的器官", "the organ behind the stomach")."""
    return bool(_BESIDE_AFTER.search(text[end:end + 8]) or _BESIDE_BEFORE.search(text[max(0, start - 24):start]))


def organs_in(text: str) -> list[_Organ]:
    """Organ mentions (names and descriptions), longest first where they overlap, in text order;
    an organ named as a landmark for another is left out."""
    forms = {"zh": simplified_chars(text), "en": text.lower()}
    matches: list[tuple[int, int, str]] = []
    for pattern, type_id, language, name in _organ_patterns():
        for match in pattern.finditer(forms.get(language, text)):
            if not (name and is_landmark(text, match.start(), match.end())):
                matches.append((match.start(), match.end(), type_id))
    found: list[_Organ] = []
    for start, end, type_id in sorted(set(matches), key=lambda m: (m[0] - m[1], m[0])):
        if not any(start < o.end and o.start < end for o in found):
            found.append(_Organ(type_id, start, end))
    return sorted(found, key=lambda o: o.start)


def asked_types(lexicon: CancerLexicon, text: str) -> list[str]:
    """The types ``text`` asks about (see the module docstring), in order of first mention."""
    text = normalise_text(text)
    mentions = lexicon.mentions(text)
    if mentions:
        kept = [m for m in mentions if not is_location(text, m.start, m.end)] or mentions
        named = list(dict.fromkeys(m.key for m in kept))
        # a kind of tumour that arises in many organs (a neuroendocrine tumour, a lymphoma, a GIST)
        # named with an organ: that organ's cancer is asked about too (すい臓の神経内分泌腫瘍)
        organ_types = set(_organ_sites().values())
        extra = _organ_cancer(lexicon, text, kept[0].start) if not organ_types & set(named) else []
        # a second cancer named by its organ and a cancer word (肝臓にできたがん beside 大腸のがん)
        extra += _organs_with_cancer_word(lexicon, text, [(m.start, m.end) for m in mentions])
        named += [t for t in dict.fromkeys(extra)
                  if all(t in lexicon.types and lexicon.relation(n, t) == "different" for n in named)]
        return named
    return list(dict.fromkeys(_organ_cancer(lexicon, text) + _organs_with_cancer_word(lexicon, text, [])))


@lru_cache(maxsize=1)
def _organ_sites() -> dict[str, str]:
    sites: dict[str, str] = yaml.safe_load(ORGANS_FILE.read_text(encoding="utf-8"))["sites"]
    return sites


def _organs_with_cancer_word(lexicon: CancerLexicon, text: str, taken: list[tuple[int, int]]) -> list[str]:
    """The cancers of organs followed closely by a cancer word (간에서 생긴 암, 肝臓にできたがん,
    肝上长的癌), outside the spans ``taken`` by named cancers and not named as where one spread."""
    found = []
    for organ in organs_in(text):
        if organ.type_id not in lexicon.types or is_location(text, organ.start, organ.end) \
                or any(organ.start < end and start < organ.end for start, end in taken):
            continue
        word = _CANCER_WORD.search(text, organ.end, organ.end + 10)
        if word is not None and not any(word.start() < end and start < word.end() for start, end in taken) \
                and not _SPREAD_FROM.search(text[word.end():word.end() + 20]):
            found.append(organ.type_id)
    return found


#: after a cancer word: the cancer spread from there to another organ (대장에서 시작된 암이 간으로
#: 옮겨 간, 大腸のがんが肝臓に飛んだ): the question is about where it went, not also where it began
_SPREAD_FROM = re.compile(
    r"^\s*(?:이|가|은|는|が|は|も)?[^?？!！。.]{0,10}?(?:으로|로|에|까지|に|へ|まで)\s*(?:도\s*)?"
    r"(?:번지|번져|번졌|옮겨|옮아|전이|퍼지|퍼져|퍼졌|転移|広が|飛ん|移っ)"
    r"|^\s*(?:转移|轉移|扩散|擴散)"
)


def _organ_cancer(lexicon: CancerLexicon, text: str, anchor: int | None = None) -> list[str]:
    """The cancer of the organ named with a cancer word, or with the cancer named at ``anchor``
    (the nearest organ before it, else the first after it)."""
    if anchor is None:
        cancer_word = _CANCER_WORD.search(text)
        if cancer_word is None:
            return []
        anchor = cancer_word.start()
    organs = [o for o in organs_in(text) if o.type_id in lexicon.types and not is_location(text, o.start, o.end)]
    if not organs:
        return []
    before = [o for o in organs if o.start < anchor]
    chosen = before[-1] if before else organs[0]
    return [chosen.type_id]
