"""In a corpus written in several languages, prefer evidence in the question's language."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import detect_language
from criss_rag.types import Hit, Query
from criss_rag_basic.languages import hit_language


class LanguageMatch:
    """Multiplies the score of each candidate written in the question's language by ``weight``.

    A Japanese question over a corpus with Japanese and Chinese pages on the same topic shares
    kanji with both, and a multilingual embedding scores both close; the Japanese page is the one
    the reader can read and the one the relevance check compares words with. A candidate's language
    is its ``lang``/``language`` metadata, else its script. When no candidate is in the question's
    language (an English corpus asked in Korean) nothing changes. Nothing is removed.
    """

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        weight: float = Field(1.3, gt=0, description="factor for a candidate in the question's language")
        signal: str = Field("language-match", min_length=1, description="signal name the factor is recorded under")

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params

    def rerank(self, query: Query, hits: list[Hit]) -> list[Hit]:
        language = detect_language(query.text)
        same = [hit_language(hit) == language for hit in hits]
        if not any(same):
            return hits
        out = []
        for hit, match in zip(hits, same, strict=True):
            factor = self.params.weight if match else 1.0
            boosted = hit.with_score(hit.score * factor)
            boosted.signals[self.params.signal] = factor
            out.append(boosted)
        return sorted(out, key=lambda h: -h.score)  # stable: equal scores keep their order
