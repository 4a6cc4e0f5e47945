"""The soft cancer-type constraint: re-weight candidates by cancer-type agreement, drop none."""

from __future__ import annotations

from pydantic import Field, model_validator

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import DECLARES_SIGNAL
from criss_rag.types import Hit, Query
from criss_rag_domain.common import CancerTypeComponent, LexiconParams, boost_score


class CancerTypeBoost(CancerTypeComponent):
    """Re-weights candidates by how well their cancer type agrees with the question's (soft filter).

    What a chunk is about is read from its ``fields`` in order: the first field that names any
    cancer type decides (so a title naming "Breast Cancer" is not overruled by a passing mention
    of "ovarian cancer" in the text). Against the type(s) the question asks about, the chunk is
    the **same** type (score x ``weight``), of the same **family** — narrower, broader or a
    sibling under the same top-level type, e.g. "Childhood Liver Cancer" for "Adult Primary Liver
    Cancer" (x ``family_weight``), a **different** type (x ``mismatch_weight``; below 1 demotes),
    or names **no** type (unchanged). Nothing is removed. A question that names no type leaves the
    candidates untouched, with no signal.
    """

    kind = "reranker"
    name = "cancer-type-boost"

    class Params(LexiconParams):
        weight: float = Field(
            2.0,
            gt=0,
            description=(
                "factor for a chunk about the asked cancer type (above intent-boost's 1.5 by default, so a "
                "chunk about the asked cancer outranks one from the asked section about another cancer)"
            ),
        )
        family_weight: float = Field(
            1.2,
            gt=0,
            description="factor for a chunk about a narrower, broader or sibling type of the same top-level type",
        )
        mismatch_weight: float = Field(
            1.0,
            gt=0,
            description="factor for a chunk about a different cancer "
            "type only (below 1 demotes it; 1 = no penalty); weight >= family_weight >= "
            "mismatch_weight",
        )
        signal: str = Field(
            "cancer-type-boost", min_length=1, description="signal name the applied factor is recorded under",
            json_schema_extra=DECLARES_SIGNAL,
        )

        @model_validator(mode="after")
        def _ordered(self) -> CancerTypeBoost.Params:
            if not self.weight >= self.family_weight >= self.mismatch_weight:
                raise ValueError(
                    "expected weight >= family_weight >= mismatch_weight (a closer match never counts less)"
                )
            return self

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        super().__init__(params, ctx)
        self.boost = params

    def about(self, hit: Hit) -> tuple[str, ...]:
        """The types the chunk is about: those of the first field that names any."""
        for field in self.fields:
            found = self.types_in(hit, field)
            if found:
                return found
        return ()

    def factor(self, wanted: list[str], found: tuple[str, ...]) -> float:
        if not found:
            return 1.0
        relations = {self.lexicon.relation(w, f) for w in wanted for f in found}
        if "same" in relations:
            return self.boost.weight
        if relations & {"narrower", "broader", "related"}:
            return self.boost.family_weight
        return self.boost.mismatch_weight

    def rerank(self, query: Query, hits: list[Hit]) -> list[Hit]:
        wanted, _ = self.wanted(query)
        if not wanted or not self.fields:
            return hits
        out = []
        for hit in hits:
            factor = self.factor(wanted, self.about(hit))
            boosted = hit.with_score(boost_score(hit.score, factor))
            boosted.signals[self.boost.signal] = factor
            out.append(boosted)
        return sorted(out, key=lambda h: -h.score)  # stable: equal scores keep their order
