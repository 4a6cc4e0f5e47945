"""Ranking stages: reciprocal-rank and weighted score fusion, a metadata filter, a metadata boost
(a soft constraint) and a top-n truncation."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import DECLARES_SIGNAL, refers_to
from criss_rag.types import Hit, Query, scored


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
                node_id = hit.node.node.node_id
                if node_id in fused:
                    fused[node_id] += weight / rank
                    signals[node_id].update(hit.signals)
                else:
                    fused[node_id] = weight / rank
                    first_seen[node_id] = hit
                    signals[node_id] = dict(hit.signals)
        order = sorted(fused, key=fused.__getitem__, reverse=True)[: self.params.top_k]
        return [Hit(scored(first_seen[i].node.node, fused[i]), {**signals[i], "rrf": fused[i]}) for i in order]


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
            Hit(scored(first_seen[i].node.node, fused[i]), {**signals[i], "weighted": fused[i]})
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
            allowed = _as_list(requested)
        wanted = {str(v) for v in allowed}
        return [h for h in hits if str(h.metadata.get(self.params.field)) in wanted]


# Hangul, kana and Han: scripts written without spaces, so cues are also matched as substrings.
_CJK = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7a3\u1100-\u11ff\u3130-\u318f]")


class MetadataBoost:
    """Boosts candidates whose metadata field matches a value the request or the question asks for.

    A soft constraint: instead of dropping the other candidates (as the ``metadata`` filter does),
    it multiplies (or adds to) the score of the matching ones and re-sorts. The wanted values come
    from the request (``from_filter``: ``query.filters[KEY]``) and/or from cue words in the
    question (``cues``). A question that asks for nothing leaves the candidates untouched.
    """

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        field: str = Field(description="metadata key to test, e.g. section or cancer_type")
        from_filter: str | None = Field(
            None, description="request filter key whose value(s) are wanted (query.filters[KEY]); None = not used"
        )
        cues: dict[str, list[str]] = Field(
            default_factory=dict,
            description="wanted value -> cue words; the value is wanted when the question contains a cue",
        )
        otherwise: str | None = Field(
            None, description="the value wanted when neither the request nor any cue asks for one "
            "(e.g. `information` for a plain 'What is X?'); None = boost nothing then"
        )
        analyzer: str | dict[str, Any] = Field(
            "standard", description="analyzer for matching cues against the question (name or {name: ..., <params>})"
        )
        match: Literal["exact", "iexact", "icontains"] = Field(
            "icontains",
            description="how the metadata value is compared with a wanted value: equal, equal ignoring case, "
            "or containing it ignoring case",
        )
        mode: Literal["multiply", "add"] = Field("multiply", description="multiply the score by weight, or add weight")
        weight: float = Field(1.5, description="the boost: a factor (multiply, > 0) or an amount (add)")
        signal: str = Field(
            "metadata-boost",
            min_length=1,
            description="signal name the applied boost is recorded under",
            json_schema_extra=DECLARES_SIGNAL,
        )

        @model_validator(mode="after")
        def _check(self) -> MetadataBoost.Params:
            if self.from_filter is None and not self.cues and self.otherwise is None:
                raise ValueError("set `from_filter`, `cues` or `otherwise`: otherwise no value is ever wanted")
            if self.mode == "multiply" and self.weight <= 0:
                raise ValueError("with mode: multiply, weight must be greater than 0 (use a value below 1 to demote)")
            empty = sorted(value for value, words in self.cues.items() if not any(w.strip() for w in words))
            if empty:
                raise ValueError(f"cues for {', '.join(empty)} list no cue word")
            return self

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.analyzer = ctx.analyzer(params.analyzer) if params.cues else None
        # each cue word as (its analysed terms, the raw lowercase cue if it is CJK)
        self._cues: dict[str, list[tuple[frozenset[str], str | None]]] = {
            value: [self._prepare_cue(word) for word in words if word.strip()] for value, words in params.cues.items()
        }

    def _prepare_cue(self, word: str) -> tuple[frozenset[str], str | None]:
        assert self.analyzer is not None
        raw = word.strip().lower()
        return frozenset(self.analyzer.analyze(word)), raw if _CJK.search(raw) else None

    def wanted_values(self, query: Query) -> list[str]:
        """The metadata values this question asks for, request values first."""
        wanted: list[str] = []
        if self.params.from_filter is not None:
            requested = query.filters.get(self.params.from_filter)
            if requested is not None:
                wanted += [str(v) for v in _as_list(requested)]
        if self._cues:
            assert self.analyzer is not None
            terms = set(self.analyzer.analyze(query.text))
            lowered = query.text.lower()
            for value, cues in self._cues.items():
                if any((analysed and analysed <= terms) or (raw and raw in lowered) for analysed, raw in cues):
                    wanted.append(value)
        if not wanted and self.params.otherwise is not None:
            wanted.append(self.params.otherwise)
        return list(dict.fromkeys(wanted))

    def matches(self, metadata_value: Any, wanted: list[str]) -> bool:
        if metadata_value is None:
            return False
        values = [str(v) for v in _as_list(metadata_value)]
        if self.params.match == "exact":
            return any(v == w for v in values for w in wanted)
        if self.params.match == "iexact":
            return any(v.casefold() == w.casefold() for v in values for w in wanted)
        return any(w.casefold() in v.casefold() for v in values for w in wanted)

    def rerank(self, query: Query, hits: list[Hit]) -> list[Hit]:
        wanted = self.wanted_values(query)
        if not wanted:
            return hits
        neutral = 1.0 if self.params.mode == "multiply" else 0.0
        out = []
        for hit in hits:
            boost = self.params.weight if self.matches(hit.metadata.get(self.params.field), wanted) else neutral
            score = hit.score * boost if self.params.mode == "multiply" else hit.score + boost
            boosted = hit.with_score(score)
            boosted.signals[self.params.signal] = boost
            out.append(boosted)
        return sorted(out, key=lambda h: -h.score)  # stable: equal scores keep their order


class Truncate:
    """Keeps the first ``n`` candidates."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        n: int = Field(10, ge=1, description="how many candidates to keep")

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params

    def rerank(self, query: Query, hits: list[Hit]) -> list[Hit]:
        return hits[: self.params.n]


def _as_list(value: Any) -> list[Any]:
    return list(value) if isinstance(value, list | tuple | set | frozenset) else [value]
