"""A second search in English when the corpus has nothing in the question's language on what it asks.

A corpus written in several languages rarely covers every topic in each of them: the example
corpus has Chinese pages on the overview, symptoms and treatment of six cancers, and their
diagnosis, staging and prevention pages in English only. A Chinese question about diagnosis then
shares its words with the Chinese overview, a multilingual embedding scores passages in the
question's language above those in another, and the English diagnosis page never enters the
candidates. ``cross-lingual-hop`` (a multi-hop policy) notices such a gap and searches once more
with the English names of what the question asks (the cancer type, population and intents of
``cross-lingual-terms``); the engine adds what that search finds to the candidates, and the
rerankers (the section the question asks about, the cancer type) rank them with the rest.

The gap is read from the corpus, not listed: each chunk's section (``section_fields``) is read
with the intent lexicon that reads questions (Diagnosis, 診断 and 诊断 are one intent), which gives
the intents each language's sections are on. A question has a gap when an intent it asks about
(besides the overview) is on no section in its language and on one in another: "what stage, and
can it be operated on?" asked in Korean hops for the staging page even though Korean has a
treatment page. A question that asks only about sections its language has, or names no cancer
type, is searched once.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import detect_language
from criss_rag.types import Hit, Query
from criss_rag_domain.cross_lingual import CrossLingualTerms
from criss_rag_domain.intent_model import IntentReader, intent_reader
from criss_rag_domain.intents import OVERVIEW, IntentLexicon


class SectionIntents:
    """The intents each language's sections are on, read from a corpus's chunks."""

    def __init__(self, fields: Sequence[str], intents: IntentLexicon, reader: IntentReader | None = None) -> None:
        self.fields = list(fields)
        self.intents = intents  # reads the sections
        self.reader = reader or IntentReader(intents)  # reads the questions
        self.by_language: dict[str, set[str]] = {}

    def read(self, nodes: Sequence[Any]) -> str | None:
        """Reads the sections; returns why the reader's model is set aside on them (None: it is used)."""
        sections: dict[str, set[str]] = {}  # language -> section values (each read once)
        for node in nodes:
            metadata = getattr(node, "metadata", None) or {}
            section = next((metadata[f] for f in self.fields if metadata.get(f)), None)
            if section is not None:
                sections.setdefault(detect_language(getattr(node, "text", "") or ""), set()).add(str(section))
        self.by_language = {language: {i for value in values for i in self.intents.detect(value)}
                            for language, values in sections.items()}
        return self.reader.read_sections(set().union(*sections.values()))

    def gap(self, question: str, asked: Sequence[str] | None = None) -> list[str]:
        """The intents ``question`` asks about (``asked``, else read) that no section in its own
        language is on and a section in another language is (``[]``: none)."""
        language = detect_language(question)
        asked = [i for i in (self.reader.detect(question) if asked is None else asked) if i != OVERVIEW]
        own = self.by_language.get(language, set())
        elsewhere = set().union(*(i for lang, i in self.by_language.items() if lang != language))
        return [i for i in asked if i not in own and i in elsewhere]


class CrossLingualHop:
    """Searches once more with the English terms of a question whose language has no section on what it asks."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        section_fields: list[str] = Field(
            ["section", "menu_name"], min_length=1,
            description="metadata keys holding a chunk's section (the first a chunk carries counts); a corpus "
            "without any of them has no sections to compare, and the policy never hops",
        )
        languages: list[str] = Field(
            default_factory=lambda: ["ko", "ja", "zh"],
            description="question languages that may hop (the lexicons have ko, ja and zh synonyms)",
        )
        intent_model: str | None = Field(
            None, description="a learned intent model read beside the cues, as intent-boost's `intent_model`: "
            "`builtin`, a path, or null (cues only)",
        )
        intent_min_probability: float = Field(
            0.5, gt=0, le=1, description="the model decides when its most probable intent reaches this",
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.terms = CrossLingualTerms(CrossLingualTerms.Params(languages=params.languages), ctx)
        self.reader = intent_reader(self.terms.intents, params.intent_model, params.intent_min_probability, ctx)
        self.sections = SectionIntents(params.section_fields, self.terms.intents, self.reader)

    def check_corpus(self, nodes: Sequence[Any]) -> str | None:
        """Reads the intents each language's sections are on."""
        set_aside = self.sections.read(nodes)
        return f"hop policy 'cross-lingual-hop': {set_aside}" if set_aside else None

    def next_query(self, query: Query, hits: list[Hit], hop: int) -> str | None:
        if hop > 1 or detect_language(query.text) not in self.params.languages:
            return None
        asked = self.reader.detect(query.text)
        if not self.sections.gap(query.text, asked):
            return None
        terms = self.terms.terms(query.text, asked)
        return " ".join(terms) if terms else None
