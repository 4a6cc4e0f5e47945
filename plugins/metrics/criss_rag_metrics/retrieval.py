"""Retrieval quality against gold ids, and the registrar assistant's retrieval telemetry.

With gold document ids on the question (``gold_doc_ids_any``, ``gold_doc_ids`` or
``gold_doc_id``): ``recall@K`` (a gold document among the first K distinct documents), ``mrr``
(reciprocal rank of the first gold document within the first 10) and ``ndcg@K`` (binary gain).
Always: ``hops`` (follow-up retrieval hops that ran), ``context_chars`` (characters of numbered
evidence), ``evidence_documents`` and ``cited_sources`` (distinct documents). When cited evidence
carries a diagnosis-year range (metadata ``applicable_years``: ``{from, to}``, ``"2018-2024"``,
``"2025+"`` or the flat ``applicable_years_from`` / ``_to``): ``cited_year_min``,
``cited_year_max`` (of the bounded ranges) and, when the question names its diagnosis year,
``cited_year_match`` (share of dated cited sources whose range holds that year).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.types import Answer
from criss_rag_metrics.common import dotted, evidence_of

_RANGE = re.compile(r"^\s*(\d{4})\s*(?:(\+)|[-–~to ]+\s*(\d{4})?)?\s*$")


class RetrievalMetrics:
    """recall@k, MRR and nDCG against gold ids; hops, context length, sources, cited diagnosis years."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        k: int = Field(5, ge=1, description="cut-off of recall@k and nDCG@k (distinct documents)")
        mrr_cutoff: int = Field(10, ge=1, description="MRR counts a gold document only within this many documents")
        years_field: str = Field("applicable_years", description="metadata field of a source's diagnosis-year range")
        question_year_fields: list[str] = Field(
            default_factory=lambda: ["diagnosis_year", "inputs.year_of_diagnosis"],
            description="question fields (dotted paths) holding the case's diagnosis year, first present wins",
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params

    def compute(self, question: Mapping[str, Any], answer: Answer) -> dict[str, float]:
        p = self.params
        out: dict[str, float] = {}
        gold = set(question.get("_gold") or [])
        ranking: list[str] = []
        for item in question.get("_retrieved") or []:
            if item.get("doc_id") not in ranking:
                ranking.append(str(item.get("doc_id")))
        if gold:
            first = next((i for i, d in enumerate(ranking, start=1) if d in gold), None)
            out[f"recall@{p.k}"] = float(first is not None and first <= p.k)
            out["mrr"] = 1.0 / first if first is not None and first <= p.mrr_cutoff else 0.0
            dcg = sum(1 / math.log2(i + 1) for i, d in enumerate(ranking[: p.k], start=1) if d in gold)
            ideal = sum(1 / math.log2(i + 1) for i in range(1, min(len(gold), p.k) + 1))
            out[f"ndcg@{p.k}"] = dcg / ideal
        evidence = evidence_of(question)
        out["hops"] = float(sum(1 for s in answer.trace.stages if s.stage.startswith("hop:") and s.notes.get("query")))
        out["context_chars"] = float(sum(len(str(e.get("text", ""))) for e in evidence))
        out["evidence_documents"] = float(len({e.get("doc_id") for e in evidence}))
        out["cited_sources"] = float(len({c.doc_id for c in answer.citations}))
        by_number = {e.get("number"): e for e in evidence}
        ranges = [r for c in answer.citations
                  if (r := year_range((by_number.get(c.number) or {}).get("metadata") or {}, p.years_field))]
        if ranges:
            out["cited_year_min"] = float(min(r[0] for r in ranges))
            ends = [r[1] for r in ranges if r[1] is not None]
            if ends:
                out["cited_year_max"] = float(max(ends))
            year = next((v for f in p.question_year_fields if (v := dotted(question, f)) not in (None, "")), None)
            if year is not None and str(year).strip().isdigit():
                y = int(str(year).strip())
                out["cited_year_match"] = sum(1 for a, b in ranges if a <= y and (b is None or y <= b)) / len(ranges)
        return out


def year_range(metadata: Mapping[str, Any], field: str) -> tuple[int, int | None] | None:
    """(first year, last year or None when open) of a source, or None when it carries none."""
    value = metadata.get(field)
    if isinstance(value, Mapping) and value.get("from") is not None:
        return int(value["from"]), (int(value["to"]) if value.get("to") is not None else None)
    if isinstance(value, str):
        match = _RANGE.match(value)
        if match:
            start = int(match.group(1))
            if match.group(2):
                return start, None
            return start, int(match.group(3)) if match.group(3) else start
    if isinstance(value, list) and value and all(str(v).isdigit() for v in value):
        years = [int(v) for v in value]
        return min(years), max(years)
    start = metadata.get(f"{field}_from")
    if start not in (None, ""):
        end = metadata.get(f"{field}_to")
        return int(start), (int(end) if end not in (None, "") else None)
    return None
