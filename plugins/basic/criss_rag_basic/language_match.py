"""In a corpus written in several languages, prefer evidence in the question's language."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import DECLARES_SIGNAL, detect_language, refers_to
from criss_rag.types import Hit, Query
from criss_rag_basic.languages import hit_language

_NONE = float("-inf")


class LanguageMatch:
    """Multiplies the score of each candidate written in the question's language by ``weight``.

    A Japanese question over a corpus with Japanese and Chinese pages on the same topic shares
    kanji with both, and a multilingual embedding scores both close; the Japanese page is the one
    the reader can read and the one the relevance check compares words with. A candidate's language
    is its ``lang``/``language`` metadata, else its script. When no candidate is in the question's
    language (an English corpus asked in Korean) nothing changes. Nothing is removed.

    The reader's language comes first among passages that serve the question equally, not above
    one that serves it better: with ``yield_to`` naming signals that earlier rerankers record
    (``intent-boost``: the passage is from the section the question asks about), a candidate in
    the question's language is boosted only when its value of each such signal is at least the best
    value among the candidates in other languages, and only when no candidate in the question's
    language reaches those values (its language lacks what is asked). A Chinese question about diagnosis over a corpus
    whose Chinese pages are overviews and whose diagnosis page is in English is then not answered
    from the Chinese overview because of its language; a Chinese question about treatment, which
    the Chinese treatment page serves, still gets the Chinese page first.
    """

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        weight: float = Field(1.3, gt=0, description="factor for a candidate in the question's language")
        signal: str = Field(
            "language-match",
            min_length=1,
            description="signal name the factor is recorded under",
            json_schema_extra=DECLARES_SIGNAL,
        )
        yield_to: list[str] = Field(
            default_factory=list,
            description="signals of earlier rerankers (e.g. intent-boost) a candidate in the question's language must "
            "not fall short on, against the best candidate in another language, to be boosted",
            json_schema_extra=refers_to(names="signal"),
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params

    def rerank(self, query: Query, hits: list[Hit]) -> list[Hit]:
        language = detect_language(query.text)
        same = [hit_language(hit) == language for hit in hits]
        if not any(same):
            return hits
        out = []
        # the best value of each named signal among the candidates in other languages
        # (a signal a reranker did not record, because it had nothing to boost, is equal everywhere)
        best = {
            name: max((h.signals.get(name, _NONE) for h, m in zip(hits, same, strict=True) if not m), default=None)
            for name in self.params.yield_to
        }
        if any(m and self._serves(h, best) for h, m in zip(hits, same, strict=True)):
            best = {}  # the reader's language has a passage as good: nothing to yield to
        for hit, match in zip(hits, same, strict=True):
            factor = self.params.weight if match and self._serves(hit, best) else 1.0
            boosted = hit.with_score(hit.score * factor)
            boosted.signals[self.params.signal] = factor
            out.append(boosted)
        return sorted(out, key=lambda h: -h.score)  # stable: equal scores keep their order

    @staticmethod
    def _serves(hit: Hit, best: dict[str, float | None]) -> bool:
        return all(b is None or hit.signals.get(name, _NONE) >= b for name, b in best.items())
