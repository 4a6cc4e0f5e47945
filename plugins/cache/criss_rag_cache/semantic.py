"""The ``semantic`` cache: answers a question again when an earlier one of the same scope meant
the same thing, by embedding similarity.

A hit needs all of: the same scope (the engine's :class:`~criss_rag.types.CacheScope`: config
hash, corpus version, request filters, language); the same embedding model; equal medical facets
(:mod:`criss_rag.lexicon.facets`: cancer and subtype, stage, numbers with units and comparison words,
negation, population, line of therapy, treatments and tests, drugs, biomarkers, disease state,
direction of an effect); and cosine similarity ≥ ``threshold`` with the stored question. Similarity
alone never decides: "small cell" and "non-small cell lung cancer", or "over 65" and "under 65",
embed close together but need different answers. The facets are not optional.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from criss_rag.types import Answer, CacheHit, CacheScope, Query

from criss_rag.lexicon.facets import extract
from criss_rag_cache.store import CacheFile


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
        store_refusals: bool = Field(False, description="also store refusals (by default only answers are stored)")

    def __init__(self, params: Params, ctx) -> None:
        self.params = params
        self.ctx = ctx
        embed = ctx.embedding(params.embedding)
        self.model = f"{type(embed).__name__}:{getattr(embed, 'model_name', '')}"
        self.file = CacheFile(ctx.resolve_path(params.path), params.max_entries)

    @staticmethod
    def _guard(query: Query, scope: CacheScope) -> str:
        """The facets that must be equal, as the JSON the SQLite rows are matched on."""
        facets = extract(query.text, scope.language or None).as_dict()
        return json.dumps({"facets": facets}, ensure_ascii=False, sort_keys=True)

    def trace_notes(self, query: Query, scope: CacheScope) -> dict:
        """What the trace shows: the facets a stored question must share with this one."""
        return {"facets": extract(query.text, scope.language or None).as_dict()}

    def _vector(self, question: str) -> np.ndarray:
        # shared with the dense retriever through the pipeline: each question is embedded once
        return self.ctx.embed_query(question, self.params.embedding)

    def lookup(self, query: Query, scope: CacheScope) -> CacheHit | None:
        ids, matrix = self.file.candidates(scope.key, self.model, self._guard(query, scope))
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
        self.file.put(scope=scope.key, model=self.model, guard=self._guard(query, scope), question=query.text,
                      vector=self._vector(query.text), answer=answer.model_dump_json(), config_hash=scope.config_hash,
                      corpus_version=scope.corpus_version, filters=dict(scope.filters), language=scope.language,
                      stored=datetime.now(UTC).isoformat(timespec="seconds"))
