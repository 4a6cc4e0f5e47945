"""The ``semantic`` cache: answers a question again when an earlier one of the same scope meant
the same thing, by embedding similarity.

A hit needs all of: cosine similarity ≥ ``threshold`` with a stored question; the same scope
(the engine's :class:`~criss_rag.types.CacheScope`: config hash, corpus version, request filters,
language); the same embedding model; and, unless switched off, the same numbers (years, stages,
codes) and the same cancer named in the question, because "stage 2" and "stage 3", or "liver
cancer" and "lung cancer", embed close together but need different answers.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from criss_rag.chat import find_topic
from criss_rag.types import Answer, CacheHit, CacheScope, Query

from criss_rag_cache.store import CacheFile

_NUMBER = re.compile(r"\d+(?:[.,]\d+)*")


def _topic(question: str) -> str:
    """The cancer the question names, as its head and the word before ("liver cancer" also for
    "getting liver cancer"; "간암", "肺がん" as they are)."""
    topic = (find_topic(question) or "").lower()
    return " ".join(topic.split()[-2:])


class SemanticCache:
    """Answers repeated and paraphrased questions from earlier answers (embedding similarity,
    SQLite, least recently used evicted beyond ``max_entries``)."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        path: str = Field(".criss_rag/cache/answers.sqlite",
                          description="the SQLite file (relative to the YAML file); kept across restarts")
        threshold: float = Field(0.95, ge=0.5, le=1.0,
                                 description="least cosine similarity between the question and a stored one for a hit")
        max_entries: int = Field(1000, ge=1, description="answers kept; the least recently used go first")
        embedding: str | dict | None = Field(
            None, description="a registered embedding (name, or {name, params}) to compare questions with; "
                              "null: the pipeline's `embedding:`")
        same_numbers: bool = Field(True, description="a hit also needs the same numbers in both questions "
                                                     "(diagnosis years, stages, codes)")
        same_topic: bool = Field(True, description="a hit also needs the same cancer named in both questions "
                                                   "(criss_rag.chat.find_topic)")
        store_refusals: bool = Field(False, description="also store refusals (by default only answers are stored)")

    def __init__(self, params: Params, ctx) -> None:
        self.params = params
        self.ctx = ctx
        embed = ctx.embedding(params.embedding)
        self.model = f"{type(embed).__name__}:{getattr(embed, 'model_name', '')}"
        self.file = CacheFile(ctx.resolve_path(params.path), params.max_entries)

    def _guard(self, question: str) -> str:
        guard = {}
        if self.params.same_numbers:
            guard["numbers"] = sorted(_NUMBER.findall(question))
        if self.params.same_topic:
            guard["topic"] = _topic(question)
        return json.dumps(guard, ensure_ascii=False, sort_keys=True)

    def _vector(self, question: str) -> np.ndarray:
        # shared with the dense retriever through the pipeline: each question is embedded once
        return self.ctx.embed_query(question, self.params.embedding)

    def lookup(self, query: Query, scope: CacheScope) -> CacheHit | None:
        ids, matrix = self.file.candidates(scope.key, self.model, self._guard(query.text))
        if not ids:
            return None
        similarities = matrix @ self._vector(query.text)
        best = int(np.argmax(similarities))
        similarity = float(similarities[best])
        if similarity < self.params.threshold:
            return None
        row = self.file.use(ids[best])
        if row is None:  # evicted meanwhile
            return None
        return CacheHit(Answer.model_validate_json(row.answer), min(similarity, 1.0), row.question, row.stored)

    def store(self, query: Query, scope: CacheScope, answer: Answer) -> None:
        if answer.refused and not self.params.store_refusals:
            return
        self.file.put(scope=scope.key, model=self.model, guard=self._guard(query.text), question=query.text,
                      vector=self._vector(query.text), answer=answer.model_dump_json(), config_hash=scope.config_hash,
                      corpus_version=scope.corpus_version, filters=dict(scope.filters), language=scope.language,
                      stored=datetime.now(UTC).isoformat(timespec="seconds"))
