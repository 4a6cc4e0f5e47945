"""Name the cancer a question describes: ``cancer-name-terms`` adds to the retrieval text the
cancer's name in the question's language when the question only describes it.

"이자에 암이 생기면 등까지 아플 수 있나요?" asks about pancreatic cancer (이자 is the everyday word for
the pancreas) but shares no word with a passage titled 췌장암, and a small embedding does not see the
synonym either, so the passage may not even be among the candidates the rerankers see. When the
question names no cancer type but :func:`criss_rag_domain.asked.asked_types` reads one from an organ
and a cancer word, this transform appends the type's first name in the question's language from
``cancer_types.yaml`` (췌장암, 膵臓がん, 胰腺癌; the English name for an English question). A question
that names its cancer, or names none, is left as it is; the question itself is never changed (the
refusal policy and the generator still read it).
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

import yaml
from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import detect_language
from criss_rag.types import Query
from criss_rag_domain.asked import asked_types
from criss_rag_domain.lexicon import BUILTIN_FILE, CancerLexicon


@lru_cache(maxsize=1)
def builtin_names() -> dict[str, dict[str, list[str]]]:
    """type id -> language -> the built-in synonyms in that language (``en``: the shown name first)."""
    types = yaml.safe_load(BUILTIN_FILE.read_text(encoding="utf-8"))["types"]
    return {
        type_id: {"en": [entry["name"], *entry.get("en", [])],
                  **{lang: list(entry.get(lang, [])) for lang in ("ko", "ja", "zh")}}
        for type_id, entry in types.items()
    }


class CancerNameTerms:
    """Adds the name of the cancer a question describes (by its organ) to the retrieval text."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        languages: list[str] = Field(
            default_factory=lambda: ["en", "ko", "ja", "zh"], description="question languages it acts on"
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.lexicon = CancerLexicon.builtin()

    def terms(self, text: str) -> list[str]:
        """The names to add: none when the question names its cancer (or none at all)."""
        if self.lexicon.detect(text):
            return []
        language = detect_language(text)
        names = builtin_names()
        return [names[t][language][0] for t in asked_types(self.lexicon, text) if names.get(t, {}).get(language)]

    def transform(self, query: Query) -> Query:
        if detect_language(query.text) not in self.params.languages:
            return query
        terms = self.terms(query.text)
        if not terms:
            return query
        return replace(query, retrieval_text=f"{query.search_text} {' '.join(terms)}")
