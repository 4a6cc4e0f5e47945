"""Fusions: reciprocal-rank fusion and weighted score fusion of several retrievers' lists."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import refers_to
from criss_rag.types import Hit, Query

#: a retriever's candidates as the engine passes them to ``fuse_ids``: (chunk id, score), best first
Ranked = list[tuple[str, float]]
#: what ``fuse_ids`` returns, best first: (chunk id, fused score, signals)
Fused = list[tuple[str, float, dict[str, float]]]


class ReciprocalRankFusion:
    """Reciprocal-rank fusion: score = sum over retrievers of weight / (k + rank)."""

    SIGNALS = ("rrf",)  # the fused score, recorded on every candidate

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        k: int = Field(60, ge=1, description="rank constant; larger flattens the rank curve")
        top_k: int = Field(20, ge=1, description="how many fused candidates to keep")
        weights: dict[str, float] = Field(default_factory=dict, description="per retriever label (default 1)",
                                          json_schema_extra=refers_to(keys="retriever"))

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params

    def fuse(self, query: Query, ranked: Mapping[str, list[Hit]]) -> list[Hit]:
        fused: dict[str, float] = {}
        first_seen: dict[str, Hit] = {}
        signals: dict[str, dict[str, float]] = {}
        k = self.params.k
        for label, hits in ranked.items():
            weight = self.params.weights.get(label, 1.0)
            for rank, hit in enumerate(hits, start=k + 1):
                node_id = hit.node_id
                if node_id in fused:
                    fused[node_id] += weight / rank
                    signals[node_id].update(hit.signals)
                else:
                    fused[node_id] = weight / rank
                    first_seen[node_id] = hit
                    signals[node_id] = dict(hit.signals)
        order = sorted(fused, key=fused.__getitem__, reverse=True)[: self.params.top_k]
        return [Hit.of(first_seen[i].base_node, fused[i], {**signals[i], "rrf": fused[i]}) for i in order]

    def fuse_ids(self, query: Query, ranked: Mapping[str, Ranked]) -> Fused:
        """``fuse`` over each retriever's ``(chunk id, score)`` pairs, whose signal is that score under
        the retriever's label: ``(chunk id, fused score, signals)``, best first (what the engine
        makes hits of: the ones ``fuse`` would return, made only for the kept candidates)."""
        fused: dict[str, float] = {}
        signals: dict[str, dict[str, float]] = {}
        k = self.params.k
        for label, pairs in ranked.items():
            weight = self.params.weights.get(label, 1.0)
            for rank, (node_id, score) in enumerate(pairs, start=k + 1):
                if node_id in fused:
                    fused[node_id] += weight / rank
                    signals[node_id][label] = score  # listed twice by one retriever: its later score, as in fuse
                else:
                    fused[node_id] = weight / rank
                    signals[node_id] = {label: score}
        kept: Fused = []
        for node_id in sorted(fused, key=fused.__getitem__, reverse=True)[: self.params.top_k]:
            signals[node_id]["rrf"] = total = fused[node_id]
            kept.append((node_id, total, signals[node_id]))
        return kept


def normalise_scores(scores: list[float], method: str) -> tuple[list[float], float]:
    """Normalised scores of one ranked list, and the list's floor (what a missing candidate gets).

    ``minmax``: (s - min) / (max - min), every score 1 when all are equal; floor 0.
    ``zscore``: (s - mean) / std (population std), every score 0 when all are equal; floor = the
    lowest normalised score. ``none``: the raw scores; floor = the lowest of them.
    """
    if not scores:
        return [], 0.0
    if method == "minmax":
        low, high = min(scores), max(scores)
        return ([(s - low) / (high - low) for s in scores] if high > low else [1.0] * len(scores)), 0.0
    if method == "zscore":
        mean = sum(scores) / len(scores)
        std = math.sqrt(sum((s - mean) ** 2 for s in scores) / len(scores))
        normalised = [(s - mean) / std for s in scores] if std > 0 else [0.0] * len(scores)
        return normalised, min(normalised)
    return list(scores), min(scores)


class WeightedFusion:
    """Weighted score fusion: sum over retrievers of weight x normalised score (missing: the list's floor).

    Unlike ``rrf`` it uses the scores themselves, so a retriever that is very sure of its first
    candidate can outvote one that ranks it second by a hair. Each retriever's list is normalised
    on its own (``normalize``); a candidate absent from a list gets that list's floor (0 for
    ``minmax``, the list's lowest normalised score otherwise): it scored at most what the list's
    last candidate scored.
    """

    SIGNALS = ("weighted",)  # the fused score, recorded on every candidate

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        weights: dict[str, float] = Field(
            default_factory=dict, description="weight per retriever label (default 1; 0 ignores that retriever)",
            json_schema_extra=refers_to(keys="retriever"),
        )
        normalize: Literal["minmax", "zscore", "none"] = Field(
            "minmax", description="how each retriever's scores are normalised before weighting"
        )
        top_k: int = Field(20, ge=1, description="how many fused candidates to keep")

        @model_validator(mode="after")
        def _non_negative_weights(self) -> WeightedFusion.Params:
            negative = sorted(label for label, weight in self.weights.items() if weight < 0)
            if negative:
                raise ValueError(f"weights must be 0 or more (negative for: {', '.join(negative)})")
            return self

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params

    def fuse(self, query: Query, ranked: Mapping[str, list[Hit]]) -> list[Hit]:
        first_seen: dict[str, Hit] = {}
        signals: dict[str, dict[str, float]] = {}
        per_list: list[tuple[float, dict[str, float], float]] = []  # (weight, node_id -> norm, floor)
        for label, hits in ranked.items():
            normalised, floor = normalise_scores([h.score for h in hits], self.params.normalize)
            scores: dict[str, float] = {}
            for hit, value in zip(hits, normalised, strict=True):
                scores.setdefault(hit.node_id, value)  # a duplicate within one list counts once, at its best rank
                first_seen.setdefault(hit.node_id, hit)
                signals.setdefault(hit.node_id, {}).update(hit.signals)
            if hits:
                per_list.append((self.params.weights.get(label, 1.0), scores, floor))
        fused = {
            node_id: sum(weight * scores.get(node_id, floor) for weight, scores, floor in per_list)
            for node_id in first_seen
        }
        order = sorted(first_seen, key=lambda node_id: -fused[node_id])[: self.params.top_k]  # stable on ties
        return [
            Hit.of(first_seen[i].base_node, fused[i], {**signals[i], "weighted": fused[i]})
            for i in order
        ]
