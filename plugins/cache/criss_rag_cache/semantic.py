"""The ``semantic`` cache: answers a question again only when it is shown to ask the same thing
as an earlier one; it denies whatever it cannot show.

A hit needs all of: the same scope (the engine's :class:`~criss_rag.types.CacheScope`: config
hash, corpus version, request filters, language); the same embedding model; equal medical facets
(:mod:`criss_rag.lexicon.facets`); cosine similarity ≥ ``threshold`` with the stored question; and
the decision itself, word by word (:func:`criss_rag.lexicon.equivalence.compare`): every content
word and number of each question matched in the other by identity, normal form or a known
synonym. One unmatched word ("right-sided" / "left-sided", a drug name no list knows, "not")
blocks the hit, and the trace names it (``notes.unmatched``). Similarity only picks the stored
questions worth comparing: "over 65" and "under 65" embed alike.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from criss_rag.lexicon.equivalence import canonical_text, compare
from criss_rag.lexicon.facets import Facets, extract
from criss_rag.plugin_utils import detect_language
from criss_rag.types import Answer, CacheHit, CacheScope, Query
from criss_rag_cache.store import CacheFile


@dataclass
class Decision:
    """What a lookup found: the row to serve (or None) and what the trace shows."""

    row_id: int | None = None
    similarity: float = 0.0
    notes: dict = field(default_factory=dict)


def _facets(query: Query, scope: CacheScope) -> Facets:
    """The question's facets, read from its canonical text (stage three = stage III, NSCLC written out)."""
    language = scope.language or detect_language(query.text)
    return extract(canonical_text(query.text, language), language)


class SemanticCache:
    """Answers repeated and paraphrased questions from earlier answers when every content word
    matches (embedding similarity picks the candidates; SQLite; least recently used evicted beyond
    ``max_entries``)."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        path: str = Field(".criss_rag/cache/answers.sqlite",
                          description="the SQLite file (relative to the YAML file); kept across restarts")
        threshold: float = Field(
            0.85,
            ge=0.5,
            le=1.0,
            description="least cosine similarity for a stored question to be compared word by word "
            "(a prerequisite of a hit, never the decision)",
        )
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
        self._last = threading.local()

    @staticmethod
    def _guard(query: Query, scope: CacheScope) -> str:
        """The facets that must be equal, as the JSON the SQLite rows are matched on."""
        facets = _facets(query, scope).as_dict()
        return json.dumps({"facets": facets}, ensure_ascii=False, sort_keys=True)

    def trace_notes(self, query: Query, scope: CacheScope) -> dict:
        """What the trace shows: the facets a stored question must share with this one and, when a
        stored question was similar enough to be compared, the words that did not match."""
        return self._decide(query, scope).notes

    def _vector(self, question: str) -> np.ndarray:
        # shared with the dense retriever through the pipeline: each question is embedded once
        return self.ctx.embed_query(question, self.params.embedding)

    def _decide(self, query: Query, scope: CacheScope) -> Decision:
        """The decision for ``query``, made once per question and thread (the engine asks for the
        trace notes, then for the hit)."""
        memo = getattr(self._last, "decision", None)
        if memo is not None and memo[0] == (query.text, scope.key):
            return memo[1]
        decision = self._compare(query, scope)
        self._last.decision = ((query.text, scope.key), decision)
        return decision

    def _compare(self, query: Query, scope: CacheScope) -> Decision:
        language = scope.language or None
        notes: dict = {"facets": _facets(query, scope).as_dict()}
        ids, questions, matrix = self.file.candidates(scope.key, self.model, self._guard(query, scope))
        if not ids:
            return Decision(notes=notes)
        similarities = matrix @ self._vector(query.text)
        refused = []
        for k in np.argsort(-similarities):  # the most similar first; similarity only picks what to compare
            similarity = float(similarities[k])
            if similarity < self.params.threshold:
                break
            verdict = compare(questions[k], query.text, language)
            if verdict.same:
                return Decision(row_id=ids[k], similarity=similarity, notes=notes)
            refused.append({"question": questions[k], "similarity": round(similarity, 4),
                            "unmatched": list(verdict.unmatched)})
        if refused:  # the nearest stored question that was compared, and why it was not served
            notes.update(unmatched=refused[0]["unmatched"], compared_with=refused[0]["question"],
                         compared_similarity=refused[0]["similarity"], compared=len(refused))
        return Decision(notes=notes)

    def lookup(self, query: Query, scope: CacheScope) -> CacheHit | None:
        decision = self._decide(query, scope)
        self._last.decision = None
        if decision.row_id is None:
            return None
        row = self.file.use(decision.row_id)
        if row is None:  # evicted meanwhile
            return None
        return CacheHit(Answer.model_validate_json(row.answer), min(decision.similarity, 1.0), row.question, row.stored)

    def store(self, query: Query, scope: CacheScope, answer: Answer) -> None:
        self._last.decision = None
        if answer.refused and not self.params.store_refusals:
            return
        self.file.put(scope=scope.key, model=self.model, guard=self._guard(query, scope), question=query.text,
                      vector=self._vector(query.text), answer=answer.model_dump_json(), config_hash=scope.config_hash,
                      corpus_version=scope.corpus_version, filters=dict(scope.filters), language=scope.language,
                      stored=datetime.now(UTC).isoformat(timespec="seconds"))
