"""Dictionary query translation for a question asked in a language the corpus is not written in.

A Korean question over English passages shares no word with them, so lexical retrievers find
nothing and a small multilingual embedding finds little. ``cross-lingual-terms`` adds to the
retrieval text the English names of what the question asks about, read with the domain plugin's
own lexicons: the cancer types (``cancer_types.yaml``: 위암 -> "Stomach (gastric) cancer"), the
population (소아 -> childhood, 성인 -> adult) and the question's intents (치료 -> treatment). The
question itself is unchanged: the refusal policy and the generator still read it.

Nothing is added to a question that names no cancer type of the lexicon (it is likely out of
scope, and English intent words alone would only make off-topic passages look closer). It only
acts where it helps: when fewer than ``max_corpus_share`` of the corpus's chunks are in the
question's language (read from the chunks when the index is opened). A Korean question over the
example corpus, which has Korean documents, keeps its retrieval text as it is.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import detect_language, refers_to
from criss_rag.types import Query
from criss_rag_domain.asked import asked_types
from criss_rag_domain.intents import IntentLexicon
from criss_rag_domain.lexicon import CancerLexicon

#: English words for each intent of intents.yaml, in the words English health pages use
INTENT_TERMS: dict[str, str] = {
    "overview": "what is",
    "treatment": "treatment",
    "stages": "stages",
    "symptoms": "symptoms signs",
    "diagnosis": "diagnosis tests",
    "prevention": "prevention",
    "risk": "risk factors",
    "outlook": "outlook prognosis",
    "causes": "causes",
    "research": "research clinical trials",
    "inheritance": "inherited",
    "genetic-changes": "genetic changes",
}

#: population words (substrings of the question) -> the English word titles use
POPULATION_CUES: dict[str, tuple[str, ...]] = {
    "childhood": ("소아", "어린이", "아이", "아동", "小児", "子ども", "子供", "小儿", "儿童"),
    "adult": ("성인", "成人"),
}


class CrossLingualTerms:
    """Adds the English names of the cancer types, population and intents a question asks about
    to its retrieval text, when the corpus is not in the question's language."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        languages: list[str] = Field(
            default_factory=lambda: ["ko", "ja", "zh"],
            description="question languages that get English terms (the lexicons have ko, ja and zh synonyms)",
            json_schema_extra=refers_to(names="language"),
        )
        max_corpus_share: float = Field(
            0.05, ge=0, le=1,
            description="add terms only when less than this share of the corpus's chunks is in the "
            "question's language (0 = never)",
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.lexicon = CancerLexicon.builtin()
        self.intents = IntentLexicon()
        self.corpus_shares: dict[str, float] = {}  # language -> share of the chunks; read by check_corpus

    def check_corpus(self, nodes: Sequence[Any]) -> str | None:
        """Reads which languages the corpus is written in (the share of chunks per language)."""
        counts = Counter(detect_language(getattr(node, "text", "") or "") for node in nodes)
        total = sum(counts.values())
        self.corpus_shares = {lang: n / total for lang, n in counts.items()} if total else {}
        return None

    def terms(self, text: str, intents: Sequence[str] | None = None) -> list[str]:
        """The English terms for what ``text`` asks about (``intents``, else read by the cues); none
        unless it names a cancer type of the lexicon or describes one by its organ and a cancer word
        (이자에 생긴 암, 腸のがん: :func:`~criss_rag_domain.asked.asked_types`). An intent alone,
        "symptoms" for a thyroid question, would pull in passages about some cancer's symptoms and
        lift the dense score an out-of-scope question is refused by."""
        types = self.lexicon.detect(text) or asked_types(self.lexicon, text)
        if not types:
            return []
        found = [population for population, cues in POPULATION_CUES.items() if any(cue in text for cue in cues)]
        found += [self.lexicon.name(type_id) for type_id in types]
        asked = self.intents.detect(text) if intents is None else intents
        found += [INTENT_TERMS[intent] for intent in asked if intent in INTENT_TERMS]
        return list(dict.fromkeys(found))

    def transform(self, query: Query) -> Query:
        language = detect_language(query.text)
        if language not in self.params.languages:
            return query
        if self.corpus_shares.get(language, 0.0) >= self.params.max_corpus_share:
            return query  # the corpus has passages in the question's language: search those as asked
        terms = self.terms(query.text)
        if not terms:
            return query
        return replace(query, retrieval_text=f"{query.search_text} {' '.join(terms)}")
