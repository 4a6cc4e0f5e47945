"""``criss-rag eval retrieval``: rank documents for each question and score against gold ids."""

from __future__ import annotations

import json
import math
import statistics
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from criss_rag.component_helpers.loader_files import read_jsonl
from criss_rag.engine import Engine
from criss_rag.errors import DataError
from criss_rag.types import Query

GOLD_FIELDS = ("gold_doc_ids_any", "gold_doc_ids", "gold_doc_id")


@dataclass(frozen=True)
class RetrievalResult:
    qid: str
    doc_ids: list[str]
    scores: list[float]
    gold: list[str]
    first_gold_rank: int | None  # 1-based, None when no gold document was retrieved
    ms: float = 0.0  # retrieval wall time for this question

    def to_json(self) -> str:
        return json.dumps(
            {"qid": self.qid, "doc_ids": self.doc_ids, "scores": [round(s, 6) for s in self.scores],
             "gold": self.gold, "first_gold_rank": self.first_gold_rank, "ms": round(self.ms, 3)},
            ensure_ascii=False,
        )


@dataclass(frozen=True)
class RetrievalSummary:
    k: int
    n: int
    recall_at_k: float
    mrr_at_10: float
    hit_at_1: float
    p50_ms: float = 0.0
    p95_ms: float = 0.0

    def latency_line(self) -> str:
        return f"retrieval latency per question: p50 {self.p50_ms:.1f} ms, p95 {self.p95_ms:.1f} ms"

    def line(self) -> str:
        return (
            f"recall@{self.k}={self.recall_at_k:.3f} mrr@10={self.mrr_at_10:.3f} hit@1={self.hit_at_1:.3f} n={self.n}"
        )


def read_questions(path: Path) -> Iterator[dict[str, Any]]:
    """Questions with ``qid``, ``question`` and gold ids from the first present gold field."""
    for number, record in read_jsonl(path, "questions file"):
        if not isinstance(record, dict) or "question" not in record:
            raise DataError(f"{path}:{number}: each line needs a `question` (and a `qid`)")
        gold: Any = next((record[f] for f in GOLD_FIELDS if record.get(f) not in (None, [], "")), [])
        record["_gold"] = [gold] if isinstance(gold, str) else [str(g) for g in gold]
        record.setdefault("qid", f"line{number}")
        yield record


def rank_documents(engine: Engine, question: str) -> tuple[list[str], list[float]]:
    """Document ids in rank order (a document counts once, at its best chunk)."""
    doc_ids: list[str] = []
    scores: list[float] = []
    for hit in engine.retrieve(Query(text=question)):
        if hit.doc_id not in doc_ids:
            doc_ids.append(hit.doc_id)
            scores.append(hit.score)
    return doc_ids, scores


def evaluate_question(engine: Engine, record: dict[str, Any]) -> RetrievalResult:
    started = time.perf_counter()
    doc_ids, scores = rank_documents(engine, str(record["question"]))
    ms = (time.perf_counter() - started) * 1000
    gold = record["_gold"]
    rank = next((i + 1 for i, doc_id in enumerate(doc_ids) if doc_id in gold), None)
    return RetrievalResult(str(record["qid"]), doc_ids, scores, gold, rank, ms)


def summarise(results: list[RetrievalResult], k: int) -> RetrievalSummary:
    scored = [r for r in results if r.gold]
    if not scored:
        raise DataError("no question has gold ids (gold_doc_ids_any, gold_doc_ids or gold_doc_id)")
    n = len(scored)
    ranks = [r.first_gold_rank for r in scored]
    times = sorted(r.ms for r in results)
    return RetrievalSummary(
        k=k,
        n=n,
        recall_at_k=sum(1 for r in ranks if r is not None and r <= k) / n,
        mrr_at_10=sum(1 / r for r in ranks if r is not None and r <= 10) / n,
        hit_at_1=sum(1 for r in ranks if r == 1) / n,
        p50_ms=statistics.median(times),
        p95_ms=times[min(len(times) - 1, math.ceil(0.95 * len(times)) - 1)],
    )
