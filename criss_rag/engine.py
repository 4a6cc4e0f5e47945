"""The engine: question → retrievers → fusion → filters → rerankers → refusal policy → context
→ generator → verified citations → sentence check → :class:`~criss_rag.types.Answer` with a full
trace. ``Engine.ask`` returns the answer; ``Engine.ask_stream`` yields the tokens first. The steps
after retrieval are :class:`criss_rag.answering.steps.AnswerSteps`."""

from __future__ import annotations

import time
from collections.abc import Generator as Generator_
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from criss_rag.answering.answer_cache import corpus_version as corpus_version_text
from criss_rag.answering.answer_cache import open_cache
from criss_rag.answering.citations import verify_citations
from criss_rag.answering.steps import AnswerSteps, refused
from criss_rag.answering.streaming import drain
from criss_rag.answering.tracing import add_stage, filter_notes, ms_since, scores_trace, stage_trace
from criss_rag.component_helpers.model_loading import take_loads
from criss_rag.errors import CrissRagError, IndexStoreError
from criss_rag.indexing.chunk_store import ChunkStore
from criss_rag.indexing.index_store import IndexStore, Manifest
from criss_rag.indexing.ingestion import DOCSTORE, StaleIndexError, ingest, open_index, pipeline_index_key
from criss_rag.language.text import detect_language
from criss_rag.pipeline import Pipeline
from criss_rag.protocols import Filter, Fusion, HopPolicy, QueryTransform, Reranker, Retriever
from criss_rag.ranked import Candidates
from criss_rag.types import (
    Answer,
    AnswerEvent,
    ChatTurn,
    ErrorEvent,
    FilterOutcome,
    Hit,
    ProgressEvent,
    Query,
    Refusal,
    StageTrace,
    StreamEvent,
    TokenEvent,
    Trace,
)

if TYPE_CHECKING:
    from criss_rag.answering.chat import ChatSession

#: ``verify_citations`` is documented under this module's path too
__all__ = ["Engine", "verify_citations"]


class Engine:
    """Answers questions with one pipeline over one built index."""

    def __init__(self, pipeline: Pipeline, manifest: Manifest, index_dir: Any) -> None:
        self.pipeline = pipeline
        self.manifest = manifest
        self.index_dir = index_dir
        self.config_hash = pipeline.config.config_hash()
        self.plugin_versions = pipeline.plugin_versions()  # once: every answer's trace names them
        self.docstore = docstore = ChunkStore.from_persist_path(str(index_dir / DOCSTORE))  # the chunks
        # filters and rerankers that read metadata check the corpus has it (never a silent no-op)
        self.corpus_warnings = pipeline.check_corpus(list(docstore.docs.values()))
        self.retrievers = pipeline.many("retrievers", Retriever)
        for cc, retriever in self.retrievers:
            pipeline.call(cc.stage, cc.name, retriever.load, index_dir / "retrievers" / cc.label, docstore)
        self.retriever_labels = ", ".join(cc.label for cc, _ in self.retrievers)
        self.language_scoped = any(cc.options["languages"] is not None for cc, _ in self.retrievers)
        self.cache = open_cache(pipeline, self.config_hash, manifest)  # None unless the config names one
        self.warmed_up: dict[str, float] = {}  # seconds per stage of warm_up(), once it ran
        self.steps = AnswerSteps(pipeline)  # what follows retrieval: refusal, context, generation, checks
        self.grounding, self.relevance = self.steps.grounding, self.steps.relevance

    @classmethod
    def open(cls, pipeline: Pipeline, *, build_if_missing: bool = False) -> Engine:
        """Open the index this config maps to, checked to hold the current corpus (ingesting
        first, or updating a stale index, if asked to)."""
        try:
            manifest, directory = open_index(pipeline)
        except IndexStoreError as exc:
            # build a missing index or update a stale one; a damaged index is never rebuilt silently
            missing = not IndexStore(pipeline.config.index_dir).has(pipeline_index_key(pipeline))
            if not build_if_missing or not (missing or isinstance(exc, StaleIndexError)):
                raise
            ingest(pipeline)
            manifest, directory = open_index(pipeline)
        return cls(pipeline, manifest, directory)

    @property
    def corpus_version(self) -> int:
        """The index's corpus version: +1 for every ingest that changed the corpus (or ``--force``)."""
        return self.manifest.corpus_version

    @property
    def corpus_label(self) -> str:
        """``v<corpus version>:<corpus fingerprint>``: which content this engine answers from (what a
        server shows in ``/health`` and its ``X-Corpus-Version`` header)."""
        return corpus_version_text(self.manifest)

    def version_on_disk(self) -> Path | None:
        """The version folder the index's link points at now (``None`` when it is gone): another
        folder than ``index_dir`` once an ingest has swapped a newer version in."""
        store = IndexStore(self.pipeline.config.index_dir)
        link = store.path(self.manifest.key)
        return store.current(self.manifest.key) if link.exists() else None

    def reopen(self) -> Engine:
        """A new engine on the current version of this engine's index: the same config, new components
        (this engine keeps answering from its own version until it is dropped)."""
        return Engine.open(Pipeline(self.pipeline.config, self.pipeline.host))

    @property
    def corpus_id(self) -> str:
        """``<index key>:v<corpus version>:<corpus fingerprint>``: changes whenever the content this
        engine answers from changes, even if the index folder is deleted and rebuilt, so it can key
        caches of answers."""
        return f"{self.manifest.key}:{corpus_version_text(self.manifest)}"

    def warm_up(self) -> dict[str, float]:
        """Start every component the questions use, and let those with a ``warm_up()`` method load
        their models now (e.g. the embedding model's weights): the first question then costs what
        the next one does. Components that call remote services send nothing here. Returns the
        seconds each stage took; the same figures are in ``warmed_up``."""
        seconds: dict[str, float] = {}
        for cc in self.pipeline.config.all_components():
            if cc.stage in ("loader", "chunker") or cc.stage.startswith("llms."):
                continue  # ingest-time only; LLMs start with the stage that names them
            started = time.perf_counter()
            component = self.pipeline.build(cc)
            warm = getattr(component, "warm_up", None)
            if callable(warm):
                self.pipeline.call(cc.stage, cc.name, warm)
            seconds[cc.stage] = round(time.perf_counter() - started, 3)
        if self.relevance is not None:  # the answer's relevance check reads every language's words
            started = time.perf_counter()
            self.relevance.warm_up()
            seconds["relevance"] = round(time.perf_counter() - started, 3)
        self.warmed_up = seconds
        return seconds

    def chat(self, *, filters: Mapping[str, Any] | None = None, session: str | Path | None = None) -> ChatSession:
        """A conversation with this engine (:class:`~criss_rag.answering.chat.ChatSession`): follow-ups are
        condensed into standalone questions; ``session`` resumes a file written by ``save``."""
        from criss_rag.answering.chat import ChatSession

        if session is not None and Path(session).exists():
            return ChatSession.load(session, self, filters=filters)
        return ChatSession(self, filters=filters)

    # -- retrieval ------------------------------------------------------------------------------
    def retrieve(self, query: Query, trace: Trace | None = None) -> list[Hit]:
        """Run every stage up to (not including) the refusal policy."""
        return drain(self.retrieve_steps(query, trace if trace is not None else self._new_trace()))

    def retrieve_steps(self, query: Query, trace: Trace) -> Generator_[ProgressEvent, None, list[Hit]]:
        """:meth:`retrieve` as a generator that yields a :class:`ProgressEvent` before each step and
        returns the hits (what ``ask`` and ``ask_stream`` run; override this to observe the hits)."""
        for cc, transform in self.pipeline.many("query_transforms", QueryTransform):
            started = time.perf_counter()
            query = self.pipeline.call(cc.stage, cc.name, transform.transform, query)
            add_stage(trace, StageTrace(stage=f"transform:{cc.label}", component=cc.name, n_in=0, n_out=0,
                                           ms=ms_since(started), notes={"retrieval_text": query.search_text}))
        yield ProgressEvent("retrieving", self.retriever_labels)
        # once per question, and only for a pipeline with retrievers for some languages only
        language = detect_language(query.text) if self.language_scoped else ""
        hits = self._retrieve_once(query, trace, "", language)
        hits = yield from self._follow_hops(query, hits, trace, language)
        for cc, component in self.pipeline.many("filters", Filter):
            yield ProgressEvent("filtering", cc.label)
            hits = self._step(query, hits, trace, cc, "filter", component.apply)
        for cc, reranker in self.pipeline.many("rerankers", Reranker):
            yield ProgressEvent("reranking", cc.label)
            hits = self._step(query, hits, trace, cc, "reranker", reranker.rerank)
        return hits

    def _step(self, query: Query, hits: list[Hit], trace: Trace, cc: Any, kind: str, method: Any) -> list[Hit]:
        """One filter or reranker over ``hits``, recorded in the trace (a filter's with what it removed)."""
        started = time.perf_counter()
        n_in = len(hits)
        result = self.pipeline.call(cc.stage, cc.name, method, query, hits)
        notes: dict[str, Any] = {}
        if isinstance(result, FilterOutcome):
            result, notes = result.hits, filter_notes(result, n_in)
        elif kind == "filter":
            notes = {"kept": len(result), "removed": {"filtered": n_in - len(result)}}
        if cc.stage in self.corpus_warnings:
            notes["corpus_warning"] = self.corpus_warnings[cc.stage]
        add_stage(trace, stage_trace(f"{kind}:{cc.label}", cc.name, n_in, result, started, notes=notes))
        return result

    def _retrieve_once(self, query: Query, trace: Trace, suffix: str, language: str) -> list[Hit]:
        """Every retriever (for the question's ``language``), then fusion. Candidates pass from the
        retrievers to the fusion as ``(chunk id, score)`` pairs (:mod:`criss_rag.ranked`): only the
        hits fusion keeps are made."""
        candidates = Candidates(self.docstore)
        for cc, retriever in self.retrievers:
            label = cc.label
            stage = f"retrieve:{label}{suffix}"
            serves = cc.options["languages"]
            if serves is not None and language not in serves:
                add_stage(trace, StageTrace(stage=stage, component=cc.name, n_in=0, n_out=0, ms=0.0,
                                            notes={"skipped": f"serves {serves}, question is {language}"}))
                continue
            started = time.perf_counter()
            found = self.pipeline.call(cc.stage, cc.name, candidates.retrieve, label, retriever, query,
                                       cc.options["top_k"])
            explain = getattr(retriever, "trace_notes", None)  # optional: e.g. a filter pushed to a database
            notes = dict(self.pipeline.call(cc.stage, cc.name, explain, query)) if callable(explain) else None
            top = [float(score) for _, score in found[:5]]
            add_stage(trace, scores_trace(stage, cc.name, 0, len(found), top, started, notes))
        fusion_cc = self.pipeline.config.one("fusion")
        if fusion_cc is None:
            return candidates.hits(next(iter(candidates.ranked))) if candidates.ranked else []
        started = time.perf_counter()
        fusion = self.pipeline.build(fusion_cc, Fusion)
        hits = self.pipeline.call("fusion", fusion_cc.name, candidates.fuse, fusion, query)
        n_in = sum(len(found) for found in candidates.ranked.values())
        add_stage(trace, stage_trace(f"fusion{suffix}", fusion_cc.name, n_in, hits, started))
        return hits

    def _follow_hops(
        self, query: Query, hits: list[Hit], trace: Trace, language: str
    ) -> Generator_[ProgressEvent, None, list[Hit]]:
        """Multi-hop: while the policy names a follow-up query, retrieve again and append what is new."""
        cc = self.pipeline.config.one("multihop")
        if cc is None:
            return hits
        policy = self.pipeline.build(cc, HopPolicy)
        for hop in range(1, cc.options["max_hops"] + 1):
            started = time.perf_counter()
            follow_up = self.pipeline.call("multihop", cc.name, policy.next_query, query, hits, hop)
            if not follow_up:
                add_stage(trace,
                    StageTrace(
                        stage=f"hop:{hop}",
                        component=cc.name,
                        n_in=len(hits),
                        n_out=len(hits),
                        ms=ms_since(started),
                        notes={"stopped": "the policy asked for no further hop"},
                    )
                )
                break
            yield ProgressEvent("hop", f"{hop}: {follow_up}")
            found = self._retrieve_once(replace(query, retrieval_text=follow_up), trace, f"@hop{hop}", language)
            known = {h.node_id for h in hits}
            added = [h for h in found if h.node_id not in known]
            hits = hits + added
            add_stage(trace, StageTrace(stage=f"hop:{hop}", component=cc.name, n_in=len(hits) - len(added),
                                           n_out=len(hits), ms=ms_since(started),
                                           notes={"query": follow_up, "added": [h.node_id for h in added]}))
        return hits

    # -- answering ------------------------------------------------------------------------------
    def ask(
        self, question: str, *, filters: Mapping[str, Any] | None = None, history: Iterable[ChatTurn] = ()
    ) -> Answer:
        """Answer ``question`` (or refuse); errors raise as :class:`~criss_rag.errors.CrissRagError`."""
        for event in self._run(question, filters, history, stream=False):
            if isinstance(event, AnswerEvent):
                return event.answer
        raise AssertionError("the engine produced no answer")  # pragma: no cover - _run always ends with one

    def ask_stream(
        self, question: str, *, filters: Mapping[str, Any] | None = None, history: Iterable[ChatTurn] = (),
        progress: bool = False, cancel: Any = None,
    ) -> Iterator[StreamEvent]:
        """Answer ``question`` as a stream: :class:`TokenEvent` s as the generator writes, then one
        :class:`AnswerEvent` (checked citations, sentence verdicts, trace). A refusal streams no
        tokens, only its answer. A failure ends the stream with an :class:`ErrorEvent` instead.

        A reasoning model's ``<think>`` text comes as :class:`ThinkingEvent` s, never as tokens.
        With ``progress``, :class:`ProgressEvent` s announce each step (retrieving, hop, filtering,
        reranking, refusal_check, generating, checking) before it runs.

        ``cancel`` (e.g. a ``threading.Event``): once ``cancel.is_set()``, the generator's stream is
        closed at its next piece and the stream ends with an :class:`ErrorEvent` (a server sets it
        when its client goes away, so a dropped reader holds no LLM slot)."""
        steps = self._run(question, filters, history, stream=True, cancel=cancel)
        try:
            for event in steps:
                if progress or not isinstance(event, ProgressEvent):
                    yield event
        except CrissRagError as exc:
            yield ErrorEvent(str(exc), exc)
        finally:  # a reader that stops early (a client gone) closes every stage now, not when collected
            steps.close()

    def _run(
        self, question: str, filters: Mapping[str, Any] | None, history: Iterable[ChatTurn], *, stream: bool,
        cancel: Any = None,
    ) -> Iterator[StreamEvent]:
        query = Query(text=question.strip(), filters=dict(filters or {}), history=tuple(history))
        trace = self._new_trace()
        take_loads()  # loads before this question (opening the engine, an ingest) are not its stages
        if not query.text:
            yield AnswerEvent(
                refused(query, Refusal("empty_question", "the question is empty", "Please ask a question."), trace)
            )
            return
        if self.cache is None:
            yield from self._answer(query, trace, stream=stream, cancel=cancel)
            return
        cached, stage = self.cache.lookup(query, trace)  # before retrieval
        if cached is not None:
            if stream and not cached.refused:
                yield TokenEvent(cached.text)
            yield AnswerEvent(cached)
            return
        answering = self._answer(query, trace, stream=stream, cancel=cancel)
        try:
            for event in answering:
                if isinstance(event, AnswerEvent):
                    self.cache.store(query, event.answer, stage)
                yield event
        finally:
            answering.close()

    def _answer(self, query: Query, trace: Trace, *, stream: bool, cancel: Any = None) -> Iterator[StreamEvent]:
        """Retrieval, then the steps to the checked answer (no cache; see :mod:`criss_rag.answering.steps`)."""
        hits = yield from self.retrieve_steps(query, trace)
        yield from self.steps.answer(query, hits, trace, stream=stream, cancel=cancel)

    def _new_trace(self) -> Trace:
        return Trace(config_hash=self.config_hash, index_key=self.manifest.key,
                     corpus_version=corpus_version_text(self.manifest), plugins=dict(self.plugin_versions))

