"""Example plugin: ``title-boost``, a reranker that multiplies a candidate's score by
``1 + weight × (share of question words found in its title)``."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field

from criss_rag import hookimpl

if TYPE_CHECKING:  # criss_rag.types imports LlamaIndex: not needed to load the plugin
    from criss_rag.types import Hit, Query

_WORD = re.compile(r"\w+")


class TitleBoost:
    """Boosts candidates whose title shares words with the question."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        weight: float = Field(1.0, gt=0, description="how much a full title match multiplies the score by (plus one)")

    def __init__(self, params: Params, ctx) -> None:
        self.weight = params.weight

    def rerank(self, query: Query, hits: list[Hit]) -> list[Hit]:
        words = {w for w in _WORD.findall(query.text.lower()) if len(w) > 2}
        if not words:
            return hits

        def boosted(hit: Hit) -> Hit:
            title = set(_WORD.findall(str(hit.metadata.get("title", "")).lower()))
            share = len(words & title) / len(words)
            return hit.with_score(hit.score * (1 + self.weight * share), "title-boost")

        return sorted((boosted(h) for h in hits), key=lambda h: -h.score)


@hookimpl
def register_rerankers(register):
    register("title-boost", TitleBoost)
