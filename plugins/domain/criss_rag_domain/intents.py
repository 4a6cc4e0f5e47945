"""Question intent: what kind of information a question asks for, from multilingual cue phrases.

The built-in cues (``intents.yaml`` beside this module) cover twelve intents in English, Korean,
Japanese and Chinese: overview, treatment, stages, symptoms, diagnosis, prevention, risk, outlook,
causes, research, inheritance and genetic-changes (MedQuAD keeps "inheritance" and "genetic
changes" as separate sections, so they are separate intents here). Cues follow the phrase rules
of :mod:`criss_rag_domain.matching`: whole words for Latin (``treat*`` is a prefix), substrings for
CJK, longest cue first. ``overview`` counts only when no other intent is found.

Cue phrases name the kind of information asked for; a question may instead name a thing whose
information sits in one section: a test (B超, CT, 大腸内視鏡), a stage (第三期, stage IIIA, 3기) or a
drug (tamoxifen, 타목시펜). These are open classes no cue list holds, and the shared multilingual
lexicon (:mod:`criss_rag.lexicon.facets`) reads them in every language; with ``named_things`` (the
default), a question with no cue besides the overview's asks about diagnosis when it names a test,
stages when it names a stage, and treatment when it names a drug.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from functools import lru_cache
from pathlib import Path

import yaml

from criss_rag.lexicon.facets import extract
from criss_rag_domain.matching import Mention, PhraseMatcher, find_mentions, normalise_text

BUILTIN_FILE = Path(__file__).with_name("intents.yaml")
OVERVIEW = "overview"
#: the shared lexicon's facets (criss_rag.lexicon.facets.Facets) that name a thing, and the intent
#: whose section has its information
NAMED_THINGS = {"test": "diagnosis", "stage": "stages", "drug": "treatment"}


class IntentLexicon:
    """Cue phrases per intent; :meth:`detect` names the intents a question asks about."""

    def __init__(self, cues: Mapping[str, Iterable[str]] | None = None, *, builtin: bool = True,
                 named_things: bool = True) -> None:
        self.named_things = named_things
        self._shared = [_builtin_matcher()] if builtin else []
        self.cues: dict[str, list[str]] = {k: list(v) for k, v in _builtin_cues().items()} if builtin else {}
        self._matcher = PhraseMatcher()
        for intent, phrases in (cues or {}).items():
            for phrase in phrases:
                self.cues.setdefault(intent, []).append(phrase)
                self._matcher.add(phrase, intent)

    @property
    def intents(self) -> list[str]:
        return list(self.cues)

    def detect(self, text: str) -> list[str]:
        """Intents in order of first cue; ``overview`` only when nothing more specific is asked."""
        found = list(dict.fromkeys(m.key for m in find_mentions(text, [*self._shared, self._matcher])))
        specific = [intent for intent in found if intent != OVERVIEW]
        if len(specific) > 1:  # a cue inside a condition (黄疸が出たとき、...) is not what is asked
            mentions = find_mentions(asked_part(text), [*self._shared, self._matcher])
            asked = [m.key for m in mentions]
            specific = [intent for intent in specific if intent in asked] or specific
            specific = _treated_symptoms(text, mentions, specific)
        if not specific and self.named_things:
            facets = extract(text)
            specific = [
                intent for facet, intent in NAMED_THINGS.items() if getattr(facets, facet) and intent in self.cues
            ]
        return specific or found


#: the end of a condition before the main clause: 노래졌을 때는, 발견되면, 出たとき、, 手術したら, 转移的时候，
_CONDITION = re.compile(
    r"(?:때|면|다면|으면)(?:는|에는|에|도)?[\s,]+"
    r"|(?:とき|時|たら|れば|場合)(?:は|に|には)?[、,\s]+"
    r"|(?:时候?|的话|時候?|的話)[，,\s]+"
)


_VERB_FINAL = re.compile("[\uac00-\ud7a3\u3040-\u30ff]")  # Hangul or kana: the verb comes last


#: between two cues: they are listed together (증상과 치료, 症状と治療, 症状和治疗), both asked
_AND = re.compile(r"\s*(?:과|와|및|이랑|랑|하고|や|と|及び|および|、|,|和|与|與|跟|及)\s*")


def _treated_symptoms(text: str, mentions: list[Mention], specific: list[str]) -> list[str]:
    """Symptoms and treatment both asked, in Korean or Japanese, with the treatment cue last and
    not listed with the symptom's: the symptoms are what is treated (황달이랑 통증은 어떻게 잡아
    주나요, しこりだけ切ることって), so treatment is asked ("간암의 증상과 치료는?" asks both)."""
    cues = [m for m in mentions if m.key in ("symptoms", "treatment")]
    if not ({"symptoms", "treatment"} <= set(specific) and cues and cues[-1].key == "treatment"
            and _VERB_FINAL.search(text)):
        return specific
    symptom = max((m for m in cues if m.key == "symptoms"), key=lambda m: m.end, default=None)
    treatment = next((m for m in cues if symptom is not None and m.start >= symptom.end), None)
    if symptom is None or treatment is None:
        return specific
    if _AND.fullmatch(normalise_text(asked_part(text))[symptom.end:treatment.start]):
        return specific
    return [intent for intent in specific if intent != "symptoms"]


def asked_part(text: str) -> str:
    """The main clause of a Korean, Japanese or Chinese question: what follows its last condition
    ("...눈이 노래졌을 때는 무엇을 해 줄 수 있나요" asks what can be done, not about the symptom);
    the whole text when it states none."""
    ends = [m.end() for m in _CONDITION.finditer(text)]
    return text[ends[-1]:] if ends and ends[-1] < len(text) else text


@lru_cache(maxsize=1)
def _builtin_cues() -> dict[str, list[str]]:
    data = yaml.safe_load(BUILTIN_FILE.read_text(encoding="utf-8"))
    return {
        intent: [c for lang in ("en", "ko", "ja", "zh") for c in entry.get(lang, [])]
        for intent, entry in data["intents"].items()
    }


@lru_cache(maxsize=1)
def _builtin_matcher() -> PhraseMatcher:
    matcher = PhraseMatcher()
    for intent, phrases in _builtin_cues().items():
        for phrase in phrases:
            matcher.add(phrase, intent)
    return matcher
