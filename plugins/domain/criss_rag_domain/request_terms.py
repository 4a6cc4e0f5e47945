"""The request's cancer type as part of what the question asks.

A reader who picked "liver" in the page's filter box and asks "What are the symptoms?" asks about
the symptoms of liver cancer. Retrievers that search the question alone find every cancer's
symptoms, and the dense score a refusal policy reads is low for so short a question, so it is
refused in one language and answered from another cancer in the next. ``request-terms`` adds the
requested cancer type's name, in the question's language (간암, 肝がん, 肝癌, "Liver cancer"), to
the retrieval text when the question names no cancer type itself. The question is unchanged: the
refusal policy's term checks and the generator still read it as asked. A question that names a
cancer type keeps its retrieval text (the question wins over the filter box).
"""

from __future__ import annotations

from dataclasses import replace

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import detect_language
from criss_rag.types import Query
from criss_rag_domain.lexicon import CancerLexicon


class RequestTerms:
    """Adds the requested cancer type's name (question's language) to the retrieval text of a
    question that names no cancer type."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        request_key: str = Field(
            "cancer_type",
            min_length=1,
            description="request filter key (`query.filters[KEY]`, `ask --filter cancer_type=...`) "
            "naming the cancer type (a type id or a name; a list for several)",
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.lexicon = CancerLexicon.builtin()

    def name_in(self, type_id: str, language: str) -> str:
        """The type's first synonym written in ``language`` (its display name for English or when none is)."""
        entry = self.lexicon.types.get(type_id)
        if entry is None:
            return type_id
        if language != "en":
            for synonym in entry.synonyms:
                if detect_language(synonym) == language:
                    return synonym
        return entry.name

    def transform(self, query: Query) -> Query:
        requested = query.filters.get(self.params.request_key)
        if requested in (None, "", []) or self.lexicon.detect(query.text):
            return query
        values = list(requested) if isinstance(requested, list | tuple | set) else [requested]
        types = list(dict.fromkeys(t for value in values for t in self.lexicon.resolve(value)))
        if not types:
            return query
        language = detect_language(query.text)
        names = " ".join(dict.fromkeys(self.name_in(t, language) for t in types))
        return replace(query, retrieval_text=f"{query.search_text} {names}")
