"""The optional ``cache:`` stage: the engine's side of an answer cache.

A pipeline that names a cache (``cache: {name: semantic}``) has the engine look every question up
before retrieval and store every new answer after it. Without ``cache:`` nothing is cached: there
is no default cache. A stored answer is only ever served under the same :class:`CacheScope`:
the same config hash, the same corpus version, the same request filters and the same question
language. Conversation turns that carry history are neither looked up nor stored, because the
answer may depend on the earlier turns.

The cache component decides whether two questions are the same (e.g. by embedding similarity)
and what to keep; a hit is marked in the answer (``Answer.cached``) and in the trace (stage
``cache``, ``notes.hit``). A cache may also define ``trace_notes(query, scope)``, what the
``cache`` stage's notes should show (the bundled ``semantic`` cache: the facets that must match).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from criss_rag.answering.tracing import add_stage, ms_since
from criss_rag.language.text import detect_language
from criss_rag.types import Answer, CachedFrom, CacheScope, Query, StageTrace, Trace

if TYPE_CHECKING:
    from criss_rag.config import ComponentConfig
    from criss_rag.indexing.index_store import Manifest
    from criss_rag.pipeline import Pipeline


def corpus_version(manifest: Manifest) -> str:
    """The version of the corpus an index holds: ``v<N>:<fingerprint>``, the number each ingest that
    changes the content counts up, and the content hash of its documents.

    The one place that says what "corpus version" means, for the cache scope and ``/health``."""
    return f"v{manifest.corpus_version}:{manifest.corpus_fingerprint}"


def scope_for(query: Query, config_hash: str, manifest: Manifest) -> CacheScope:
    return CacheScope(config_hash=config_hash, corpus_version=corpus_version(manifest),
                      filters=dict(query.filters), language=detect_language(query.text))


class CacheStage:
    """Runs a configured cache for the engine: lookup before retrieval, store after the answer."""

    def __init__(self, pipeline: Pipeline, cc: ComponentConfig, config_hash: str, manifest: Manifest) -> None:
        self.pipeline = pipeline
        self.cc = cc
        self.cache = pipeline.build(cc)
        self.config_hash = config_hash
        self.manifest = manifest

    def lookup(self, query: Query, trace: Trace) -> tuple[Answer | None, StageTrace]:
        """The cached answer for ``query`` (a fresh trace marks the hit), or ``None``; and the stage,
        added to ``trace`` once the lookup is done (a model the lookup loaded comes before it)."""
        started = time.perf_counter()
        stage = StageTrace(stage="cache", component=self.cc.name, n_in=0, n_out=0, ms=0.0, notes={"hit": False})
        try:
            return self._lookup(query, trace, stage), stage
        finally:
            stage.ms = ms_since(started)
            add_stage(trace, stage)

    def _lookup(self, query: Query, trace: Trace, stage: StageTrace) -> Answer | None:
        if query.history:
            stage.notes["skipped"] = "a conversation turn with history: its answer may depend on earlier turns"
            return None
        scope = scope_for(query, self.config_hash, self.manifest)
        explain = getattr(self.cache, "trace_notes", None)  # optional: e.g. what must match for a hit
        if callable(explain):
            stage.notes.update(self.pipeline.call("cache", self.cc.name, explain, query, scope))
        hit = self.pipeline.call("cache", self.cc.name, self.cache.lookup, query, scope)
        if hit is None:
            return None
        stage.n_out = 1
        stage.notes.update(
            hit=True,
            similarity=round(float(hit.similarity), 4),
            original_question=hit.original_question,
            stored=hit.stored,
            original_config_hash=hit.answer.trace.config_hash,
        )
        answer: Answer = hit.answer.model_copy(update={
            "question": query.text,
            "trace": trace,
            "cached": CachedFrom(similarity=float(hit.similarity), original_question=hit.original_question,
                                 stored=hit.stored, cache=self.cc.name),
        })
        return answer

    def store(self, query: Query, answer: Answer, stage: StageTrace) -> None:
        if query.history or answer.refusal_reason == "empty_question":
            return
        started = time.perf_counter()
        scope = scope_for(query, self.config_hash, self.manifest)
        self.pipeline.call("cache", self.cc.name, self.cache.store, query, scope, answer)
        stage.notes["store_ms"] = round((time.perf_counter() - started) * 1000, 3)


def open_cache(pipeline: Pipeline, config_hash: str, manifest: Manifest) -> Any:
    """The pipeline's cache stage, or ``None`` when the config names no cache."""
    cc = pipeline.config.one("cache")
    return CacheStage(pipeline, cc, config_hash, manifest) if cc is not None else None
