"""The query transform `{{ cookiecutter.component_name }}`: appends synonyms of the question's
words to what the retrievers search for (e.g. "gastric" also searches "stomach").

Replace the body of ``transform`` with your own rewrite; keep the contract: set
``retrieval_text`` and never change ``query.text`` (the question as asked).
"""

from __future__ import annotations

import re
from dataclasses import replace

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.types import Query

_WORD = re.compile(r"\w+")

DEFAULT_SYNONYMS = {
    "gastric": ["stomach"],
    "stomach": ["gastric"],
    "hepatic": ["liver"],
    "liver": ["hepatic"],
    "bowel": ["colorectal", "colon"],
    "pulmonary": ["lung"],
}


class {{ cookiecutter.__class_name }}:
    """Appends synonyms of the question's words to the retrieval text."""  # first line: the summary

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")  # unknown YAML keys are errors
        synonyms: dict[str, list[str]] = Field(
            default_factory=lambda: {k: list(v) for k, v in DEFAULT_SYNONYMS.items()},
            description="word -> words to add when the question contains it (lower case)",
        )
        max_added: int = Field(5, ge=1, description="at most this many words are appended")

    def __init__(self, params: Params, ctx: ComponentContext | None) -> None:
        self.synonyms = {k.lower(): [w.lower() for w in v] for k, v in params.synonyms.items()}
        self.max_added = params.max_added

    def transform(self, query: Query) -> Query:
        words = [w.lower() for w in _WORD.findall(query.search_text)]
        added: list[str] = []
        for word in words:
            for synonym in self.synonyms.get(word, []):
                if synonym not in words and synonym not in added:
                    added.append(synonym)
        if not added:
            return query
        return replace(query, retrieval_text=" ".join([query.search_text, *added[: self.max_added]]))
