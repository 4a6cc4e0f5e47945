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
stages when it names a stage or how far the disease has gone (제한기, 早期, locally advanced), and
treatment when it names a drug.

Cues know a section only by the words listed; :mod:`criss_rag_domain.intent_model` reads the same
intents from the question's embedding with a classifier learned from questions, and falls back to
these cues when it is unsure.
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
#: the states of the disease (the lexicon's ``disease`` facet) that name how far it has gone, as a
#: stage does: limited or extensive (small-cell lung cancer), early, advanced, resectable or not
STAGE_STATES = {"limited-stage", "extensive-stage", "early", "localized", "advanced", "locally-advanced",
                "resectable", "unresectable"}


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
        """Intents in order of first cue; ``overview`` only when nothing more specific is asked.

        A question that tells something before it asks is read by what it asks. Its question
        sentences (:func:`question_sentences`), and then their main clause (:func:`asked_part`),
        decide when they hold a cue; what comes before is background ("조직검사 결과
        삼중음성이래요. 유방암에도 종류가 있나요?" asks about kinds, not the test; "黄疸が出たとき、
        何をしてもらえますか" about what can be done, not the symptom). A bare "what is it" decides
        only about a cancer: "부작용은 뭐예요?" after "항암 치료 중이에요." asks about the treatment."""
        scope, asked, found = text, question_sentences(text), self._intents(text)
        for narrower in (asked, asked_part(asked)):
            cues = self._intents(narrower) if narrower != scope else []
            if cues and (cues != [OVERVIEW] or _CANCER_WORD.search(narrower)):
                scope, found = narrower, cues
        specific = [intent for intent in found if intent != OVERVIEW]
        if len(specific) > 1:
            specific = _treated_symptoms(scope, self._mentions(scope), specific)
        if not specific and self.named_things:
            facets = extract(scope)
            named = {facet for facet in NAMED_THINGS if getattr(facets, facet)}
            if STAGE_STATES & set(facets.disease):
                named.add("stage")
            specific = [intent for facet, intent in NAMED_THINGS.items() if facet in named and intent in self.cues]
        return specific or found

    def _intents(self, text: str) -> list[str]:
        return list(dict.fromkeys(m.key for m in self._mentions(text)))

    def _mentions(self, text: str) -> list[Mention]:
        """The cues in ``text``; a bare "what is" or "why" (뭔가요, 何ですか, 是什么, 왜, なぜ) counts only
        beside a cancer's name: "방법은 무엇인가요", "这个是什么原理" ask what a way or a mechanism is."""
        mentions = find_mentions(text, [*self._shared, self._matcher])
        if not any(m.text in _bare() for m in mentions):
            return mentions
        normal = normalise_text(text)

        def beside_a_cancer(m: Mention) -> bool:
            before = _SENTENCE_END.split(normal[max(0, m.start - _NEAR):m.start])[-1]
            after = _SENTENCE_END.split(normal[m.end:m.end + _NEAR])[0]
            return bool(_CANCER_WORD.search(before + m.text + after))

        return [m for m in mentions if m.text not in _bare() or beside_a_cancer(m)]


#: the end of a condition before the main clause: 노래졌을 때는, 발견되면, 出たとき、, 手術したら, 转移的时候，
_CONDITION = re.compile(
    r"(?:때|면|다면|으면)(?:는|에는|에|도)?[\s,]+"
    r"|(?:とき|時|たら|れば|場合)(?:は|に|には)?[、,\s]+"
    r"|(?:时候?|的话|時候?|的話)[，,\s]+"
    # and the background before "but", "and so" (간세포암이라고 써 있는데, 診断されたんだけど、)
    r"|(?:는데|은데|인데|던데)[\s,]+|(?:けど|けれど|のに|ので)[、,\s]+"
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


#: the end of a sentence: a question mark, a full stop (not a decimal point), an exclamation, an
#: ellipsis or a line break
_SENTENCE_END = re.compile(r"[?？。!！…\n]+|\.+(?!\d)")
#: a sentence that asks: a question mark, a question's ending (Korean -까, -나, -나요, -가요, -니,
#: -냐, -죠, -지요; Japanese か, の, かな, っけ; Chinese 吗, 呢, 么, 嘛) or a verb of asking (궁금합니다,
#: 알려 주세요, 知りたい, 教えてください, 想知道) before the full stop
_ASKS = re.compile(r"(?:[?？]|까|나|나요|가요|니|냐|죠|지요|か|の|かな|っけ|吗|嗎|呢|么|嘛"
                   r"|궁금\w*|알려\s*주\w*|알고\s*싶\w*|知りたい\w*|教えて\w*|想知道|想問|想问)[\s.。!！…\n]*$")
#: a word that names a cancer, in any of the four languages
_CANCER_WORD = re.compile(r"암|종양|がん|ガン|癌|腫瘍|肿瘤|腫|\b(?:cancers?|tumou?rs?|carcinomas?|lymphomas?)\b",
                          re.IGNORECASE)
_WORDS = re.compile("[\u4e00-\u9fff\uac00-\ud7a3\u3040-\u30ffA-Za-z]")


def question_sentences(text: str) -> str:
    """The sentences of ``text`` that ask (:data:`_ASKS`), or its last sentence when none does (a
    question typed as a statement); the whole text when it has one sentence or each of them asks."""
    sentences: list[str] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        sentences.append(text[start:match.end()])
        start = match.end()
    sentences.append(text[start:])
    sentences = [s for s in sentences if _WORDS.search(s)]  # "ㅠㅠ", "..." are no sentence
    asked = [s for s in sentences if _ASKS.search(s)] or sentences[-1:]
    return text if len(asked) in (0, len(sentences)) else " ".join(s.strip() for s in asked)


def asked_part(text: str) -> str:
    """The main clause of a Korean, Japanese or Chinese question: what follows its last condition
    ("...눈이 노래졌을 때는 무엇을 해 줄 수 있나요" asks what can be done, not about the symptom);
    the whole text when it states none."""
    ends = [m.end() for m in _CONDITION.finditer(text)]
    return text[ends[-1]:] if ends and ends[-1] < len(text) else text


#: how close to a bare "what is" or "why" a cancer's name must be, in characters
_NEAR = 6


@lru_cache(maxsize=1)
def _builtin_data() -> dict:
    return yaml.safe_load(BUILTIN_FILE.read_text(encoding="utf-8"))


@lru_cache(maxsize=1)
def _bare() -> frozenset[str]:
    return frozenset(normalise_text(c) for cues in _builtin_data()["bare"].values() for c in cues)


@lru_cache(maxsize=1)
def _builtin_cues() -> dict[str, list[str]]:
    return {
        intent: [c for lang in ("en", "ko", "ja", "zh") for c in entry.get(lang, [])]
        for intent, entry in _builtin_data()["intents"].items()
    }


@lru_cache(maxsize=1)
def _builtin_matcher() -> PhraseMatcher:
    matcher = PhraseMatcher()
    for intent, phrases in _builtin_cues().items():
        for phrase in phrases:
            matcher.add(phrase, intent)
    return matcher
