"""Ranking stages: reciprocal-rank fusion, a metadata filter and a top-n truncation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from llama_index.core.schema import NodeWithScore
from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.types import Hit, Query


class ReciprocalRankFusion:
    """Reciprocal-rank fusion: score = sum over retrievers of weight / (k + rank)."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        k: int = Field(60, ge=1, description="rank constant; larger flattens the rank curve")
        top_k: int = Field(20, ge=1, description="how many fused candidates to keep")
        weights: dict[str, float] = Field(default_factory=dict, description="per retriever label (default 1)")

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params

    def fuse(self, query: Query, ranked: Mapping[str, list[Hit]]) -> list[Hit]:
        fused: dict[str, float] = {}
        first_seen: dict[str, Hit] = {}
        signals: dict[str, dict[str, float]] = {}
        for label, hits in ranked.items():
            weight = self.params.weights.get(label, 1.0)
            for rank, hit in enumerate(hits, start=1):
                fused[hit.node_id] = fused.get(hit.node_id, 0.0) + weight / (self.params.k + rank)
                first_seen.setdefault(hit.node_id, hit)
                signals.setdefault(hit.node_id, {}).update(hit.signals)
        order = sorted(fused, key=lambda node_id: -fused[node_id])[: self.params.top_k]
        return [
            Hit(NodeWithScore(node=first_seen[i].node.node, score=fused[i]), {**signals[i], "rrf": fused[i]})
            for i in order
        ]


class MetadataFilter:
    """Keeps candidates whose metadata field has one of the allowed values.

    Allowed values come from the config (``values``) or, per request, from ``query.filters[field]``.
    """

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        field: str = Field(description="metadata key to test, e.g. lang or cancer_id")
        values: list[Any] | None = Field(None, description="allowed values; None = take them from the request")

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params

    def apply(self, query: Query, hits: list[Hit]) -> list[Hit]:
        allowed = self.params.values
        if allowed is None:
            requested = query.filters.get(self.params.field)
            if requested is None:
                return hits
            allowed = list(requested) if isinstance(requested, list | tuple | set | frozenset) else [requested]
        wanted = {str(v) for v in allowed}
        return [h for h in hits if str(h.metadata.get(self.params.field)) in wanted]


class Truncate:
    """Keeps the first ``n`` candidates."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        n: int = Field(10, ge=1)

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params

    def rerank(self, query: Query, hits: list[Hit]) -> list[Hit]:
        return hits[: self.params.n]
