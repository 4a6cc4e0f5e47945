"""The Korean system's hard cancer-type filter."""

from __future__ import annotations

from pydantic import Field

from criss_rag.context import ComponentContext
from criss_rag.types import FilterOutcome, Hit, Query
from criss_rag_domain.common import CancerTypeComponent, LexiconParams

NOT_NAMING = "does_not_name_cancer_type"
BEYOND_TOP_K = "beyond_top_k"


class CancerTypeFilter(CancerTypeComponent):
    """Keeps candidates whose title or text names the question's cancer type, then the top `top_k` (hard filter).

    Exactly the Korean system's filter: of the candidate pool (the retrievers' and fusion's
    ``top_k``; the Korean system used k x 20 = 100), keep only the chunks whose configured fields
    name the cancer type the question (or ``query.filters[request_key]``) asks about, by string
    match through the lexicon, then take the first ``top_k`` of those. A chunk naming a narrower
    type counts ("male breast cancer" names breast cancer); one naming only a broader or a
    different type does not. A question that names no type of the lexicon keeps every candidate,
    and the trace says so (``applied: false``).
    """

    kind = "filter"
    name = "cancer-type"

    class Params(LexiconParams):
        top_k: int | None = Field(
            5,
            ge=1,
            description="how many of the matching candidates to keep (the Korean system's k); null = all of them",
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        super().__init__(params, ctx)
        self.top_k = params.top_k

    def names(self, hit: Hit, wanted: list[str]) -> bool:
        """Whether any configured field of the chunk names a wanted type (or a narrower one)."""
        return any(
            self.lexicon.within(found, w) for f in self.fields for found in self.types_in(hit, f) for w in wanted
        )

    def apply(self, query: Query, hits: list[Hit]) -> FilterOutcome:
        if not self.fields:
            return FilterOutcome(
                list(hits), applied=False, note=f"not applied: the corpus has none of the fields {self.params.fields}"
            )
        wanted, source = self.wanted(query)
        if not wanted:
            return FilterOutcome(list(hits), applied=False, note=f"{source}: nothing filtered")
        matching = [h for h in hits if self.names(h, wanted)]
        kept = matching[: self.top_k] if self.top_k else matching
        removed = {NOT_NAMING: len(hits) - len(matching), BEYOND_TOP_K: len(matching) - len(kept)}
        note = (
            f"cancer type {self.label(wanted)} (from {source}): {len(matching)} of {len(hits)} candidates name it "
            f"in {'/'.join(self.fields)}; kept the first {len(kept)}"
        )
        return FilterOutcome(kept, removed=removed, applied=True, note=note)
