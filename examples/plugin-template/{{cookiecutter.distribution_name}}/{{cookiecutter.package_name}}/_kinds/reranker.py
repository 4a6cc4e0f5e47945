"""The reranker `{{ cookiecutter.component_name }}`: multiplies a candidate's score by
``1 + weight × (share of the question's words found in its text)``.

Replace the body of ``rerank`` with your own scoring; keep the contract: re-score and re-order the
candidates it is given, never add new ones, and record the new score as a signal.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.types import Hit, Query

_WORD = re.compile(r"\w+")


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if len(w) > 2}


class {{ cookiecutter.__class_name }}:
    """Boosts candidates whose text contains the question's words."""  # first line: the summary

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")  # unknown YAML keys are errors
        weight: float = Field(1.0, gt=0, description="score multiplier for a full match, minus one")

    def __init__(self, params: Params, ctx: ComponentContext | None) -> None:
        self.weight = params.weight

    def rerank(self, query: Query, hits: list[Hit]) -> list[Hit]:
        wanted = _words(query.text)
        if not wanted:
            return hits

        def boosted(hit: Hit) -> Hit:
            share = len(wanted & _words(hit.text)) / len(wanted)
            # with_score keeps the earlier signals (bm25, faiss, ...) and records this one
            return hit.with_score(hit.score * (1 + self.weight * share), "{{ cookiecutter.component_name }}")

        return sorted((boosted(h) for h in hits), key=lambda h: -h.score)
