"""What a question is about, and what its evidence is about, for the relevance check
(:mod:`criss_rag.answering.relevance`): the sites and subtypes of the cancers a question names,
where it says the cancer spread, the species, money, who gives care and one person's time left,
and another condition asked about for itself. Each of these shares words with cancer pages that are about something else
("mouth" of chemotherapy's mouth sores is not mouth cancer; a liver cancer page that lists hepatitis B
among the risk factors does not say when to start antivirals).
"""

from __future__ import annotations

import functools
import re

from criss_rag.language.chinese_script import simplified_chars
from criss_rag.language.text import detect_language
from criss_rag.lexicon.aspect_words import OUTSIDE_CARE
from criss_rag.lexicon.concepts import concepts_named
from criss_rag.lexicon.facets import extract, named_spans
from criss_rag.lexicon.organs import EUPHEMISM
from criss_rag.types import RelevanceVerdict

#: lexicon facets that name what a question is about (the cancer's site and subtype) rather than its point
SUBJECT = ("site:", "subtype:")
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
    rectal cancer question is answered by pages on colorectal cancer)."""
    return frozenset(_LARGE_BOWEL.get(c, c) for c in concepts_named(text) if c.startswith(SUBJECT))


_LARGE_BOWEL = {"site:rectum": "site:colon"}


def same_subject(question: str, texts: list[str], titles: list[str], verdict: RelevanceVerdict) -> RelevanceVerdict:
    """Subjects the words of a passage can share without being about them:

    - an animal (a pet's tumour, 고양이, 犬, 宠物): relevant only to evidence that speaks of animals;
      evidence on people does not answer for another species;
    - money (what care costs, insurance: 비용, 費用, 多少钱), who gives care (which hospital or
      doctor, a doctor's reputation: 병원 추천, おすすめの病院, 哪家医院) and one person's time left
      (남은 시간, 余命, 还能活多久): relevant only to evidence that speaks of them; a page on a
      treatment does not say what it costs, who does it best or how long a given patient lives;
    - a condition other than cancer named by the form of its name (hepatitis, 위염, 乳腺症, 胃息肉,
      과민성 대장 증후군: :func:`conditions`) in a question that names no cancer and no cancer
      treatment (chemotherapy, radiotherapy, ...; surgery treats other conditions too), nor an organ
      besides the condition's own (sudden diabetes, and the pancreas?): relevant only to evidence
      whose title or section names it; a cancer page that lists it among risk factors, or names its
      organ, does not say how it is treated.
    """
    facets = extract(question)
    apart = [f"population:{_ANIMAL}"] if _ANIMAL in facets.population else []
    apart += [f"aspect:{asked}" for asked in sorted(set(facets.aspect) & OUTSIDE_CARE)]
    said = set().union(*map(concepts_named, texts)) if apart else set()
    spans = named_spans(question, detect_language(question)) if apart else []
    missing: list[str] = []
    for concept in apart:
        if concept not in said:  # in the question's words, or the concept's own name
            missing += [question[s:e] for s, e, c in spans if c == concept] or [concept.split(":")[1]]
    if not facets.cancer and not set(facets.treatment) & _CANCER_TREATMENTS and not re.search(EUPHEMISM, question):
        titles_text = simplified_chars(" ".join(titles)).lower()
        named = conditions(question)
        # a question that relates the condition to another organ (diabetes, and the pancreas?) asks about that organ
        if named and not subjects(question) - set().union(*map(subjects, named)):
            missing += [d for d in named if _core(d) not in titles_text]
    if not missing:
        return verdict
    return verdict.model_copy(update={"relevant": False, "covered": [c for c in verdict.covered if c not in missing],
                                      "missing": [*verdict.missing, *(m for m in missing if m not in verdict.missing)]})


def conditions(text: str) -> list[str]:
    """The conditions other than cancer ``text`` names by the form of their name, whose last part
    says what kind of illness it is: an inflammation (-itis, 염, 炎: gastritis, 위염, 肝炎; not 감염,
    오염, 전염 or 炎症: infection, pollution, contagion, inflammation itself), a disorder or disease
    (-osis, 증, 症, 병, 病: cirrhosis, 골다공증, 乳腺症, 糖尿病; not pain, a complication, a sequela,
    a symptom, an illness in general, 癌症 or 病院), a syndrome, a growth that is not cancer
    (polyp, cyst, nodule, hyperplasia: 용종, 낭종, 결절, 息肉, 囊肿, 结节, 增生, ポリープ), a stone
    or an ulcer."""
    return [m.group(0) for m in _CONDITION.finditer(text)
            if not any(m.group(0).endswith(general) for general in _NOT_CONDITIONS)]


def _core(disease: str) -> str:
    """What a title must contain to be about ``disease``: the English word, or the last two
    characters of a CJK name, the organ and its kind of illness (간염 of B형간염, 肝炎 of C型肝炎)."""
    disease = simplified_chars(disease).lower()
    return disease if disease.isascii() else disease[-2:]


# a Korean noun ends the word, takes a particle or names its medicine (위염이랑, 위염약을; 염분 is salt,
# 병원 a hospital); a name written in words (과민성 대장 증후군) keeps the two words before its head
_KO_END = "(?=$|[^가-힣]|[이은는을를에으과와랑도만의인])"
_CONDITION = re.compile(
    r"\b[a-z]{3,}(?:itis|osis)\b|\b(?:polyps?|cysts?|nodules?|gallstones?|ulcers?|syndrome|hyperplasia)\b"
    rf"|(?:(?:[가-힣]+ ){{0,2}}[가-힣]{{0,5}}(?:증후군|용종|폴립|낭종|물혹|결석|담석|결절|궤양)"
    rf"|[가-힣]{{1,5}}[염렴증병]약?){_KO_END}"
    r"|(?:[一-龥]{0,5}(?:综合征|綜合徵|症候群|息肉|囊肿|囊腫|嚢胞|结石|結石|胆石|膽石|结节|結節|溃疡|潰瘍|增生)"
    r"|[一-龥]{1,5}[炎症病])"
    r"(?![症状狀院人理気氣変变例房情历歷歴床期巣棟名灶毒因史程友])"
    r"|[一-龥]{0,5}(?:ポリープ|のう胞)",
    re.IGNORECASE,
)
#: words of that form that name no condition: infection, pollution, contagion (감염, 오염, 전염),
#: inflammation itself, diagnosis and prognosis, pain, a complication or sequela, an illness in
#: general (질병, 疾病, 病気 aside), falling ill, asking which illness (是什么病), and cancer (癌症)
_NOT_CONDITIONS = (
    "감염", "오염", "전염", "diagnosis", "prognosis", "염증", "통증", "합병증", "후유증",
    "질병", "투병", "발병", "간병",
    "炎症", "合併症", "合并症", "併發症", "并发症", "後遺症", "后遗症", "重症", "軽症", "轻症", "病症",
    "疾病", "発病", "发病", "発症", "发症", "生病", "患病", "得病", "看病", "毛病", "癌症", "么病", "啥病",
)
#: treatments given for cancer alone: a question naming one is about cancer care (항암치료 중 구내염)
_CANCER_TREATMENTS = {"chemotherapy", "radiotherapy", "immunotherapy", "targeted-therapy", "hormone-therapy",
                      "stem-cell-transplant", "car-t", "proton-therapy", "brachytherapy"}


_ANIMAL = "animal"
