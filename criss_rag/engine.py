"""The engine: question → retrievers → fusion → filters → rerankers → refusal policy → context
→ generator → verified citations → :class:`~criss_rag.types.Answer` with a full trace."""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from llama_index.core.storage.docstore import SimpleDocumentStore

from criss_rag.index_store import IndexStore, Manifest, index_key
from criss_rag.ingest import DOCSTORE, corpus_fingerprint, ingest
from criss_rag.pipeline import Pipeline
from criss_rag.text import detect_language
from criss_rag.types import (
    Answer,
    ChatTurn,
    Citation,
    Context,
    FilterOutcome,
    Hit,
    Query,
    Refusal,
    StageTrace,
    Trace,
)

#: Used only when retrieval finds nothing and the config names no refusal policy.
NO_EVIDENCE_MESSAGE = "Insufficient evidence: no source in the index matches this question."
#: Shown instead of an answer whose generator cited nothing: an unverifiable answer is withheld.
UNCITED_MESSAGE = "Insufficient evidence: no answer could be tied to a cited source."
_MARKER = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")


class Engine:
    """Answers questions with one pipeline over one built index."""

    def __init__(self, pipeline: Pipeline, manifest: Manifest, index_dir: Any) -> None:
        self.pipeline = pipeline
        self.manifest = manifest
        self.index_dir = index_dir
        self.config_hash = pipeline.config.config_hash()
        docstore = SimpleDocumentStore.from_persist_path(str(index_dir / DOCSTORE))
        # filters and rerankers that read metadata check the corpus has it (never a silent no-op)
        self.corpus_warnings = pipeline.check_corpus(list(docstore.docs.values()))
        self.retrievers = pipeline.many("retrievers")
        for cc, retriever in self.retrievers:
            pipeline.call(cc.stage, cc.name, retriever.load, index_dir / "retrievers" / cc.label, docstore)

    @classmethod
    def open(cls, pipeline: Pipeline, *, build_if_missing: bool = False) -> Engine:
        """Open the index this config and corpus map to (building it first if asked to)."""
        store = IndexStore(pipeline.config.index_dir)
        signature = pipeline.config.ingest_signature()
        fingerprint, _ = corpus_fingerprint(pipeline)
        key = index_key(signature, fingerprint)
        if build_if_missing and not store.has(key):
            ingest(pipeline)
        manifest = store.open(key, signature)
        return cls(pipeline, manifest, store.path(key))

    # -- retrieval ------------------------------------------------------------------------------
    def retrieve(self, query: Query, trace: Trace | None = None) -> list[Hit]:
        """Run every stage up to (not including) the refusal policy."""
        trace = trace if trace is not None else self._new_trace()
        for cc, transform in self.pipeline.many("query_transforms"):
            started = time.perf_counter()
            query = self.pipeline.call(cc.stage, cc.name, transform.transform, query)
            trace.stages.append(StageTrace(stage=f"transform:{cc.label}", component=cc.name, n_in=0, n_out=0,
                                           ms=_ms(started), notes={"retrieval_text": query.search_text}))
        hits = self._retrieve_once(query, trace, suffix="")
        hits = self._follow_hops(query, hits, trace)
        for stage, method in (("filters", "apply"), ("rerankers", "rerank")):
            for cc, component in self.pipeline.many(stage):
                started = time.perf_counter()
                n_in = len(hits)
                result = self.pipeline.call(cc.stage, cc.name, getattr(component, method), query, hits)
                notes: dict[str, Any] = {}
                if isinstance(result, FilterOutcome):
                    result, notes = result.hits, _accounting(result, n_in)
                elif stage == "filters":
                    notes = {"kept": len(result), "removed": {"filtered": n_in - len(result)}}
                if cc.stage in self.corpus_warnings:
                    notes["corpus_warning"] = self.corpus_warnings[cc.stage]
                hits = result
                trace.stages.append(_stage(f"{stage[:-1]}:{cc.label}", cc.name, n_in, hits, started, notes=notes))
        return hits

    def _retrieve_once(self, query: Query, trace: Trace, suffix: str) -> list[Hit]:
        """Every retriever (for the question's language), then fusion."""
        ranked: dict[str, list[Hit]] = {}
        language = detect_language(query.text)
        for cc, retriever in self.retrievers:
            stage = f"retrieve:{cc.label}{suffix}"
            if cc.options["languages"] is not None and language not in cc.options["languages"]:
                trace.stages.append(StageTrace(stage=stage, component=cc.name, n_in=0, n_out=0, ms=0.0,
                                               notes={"skipped": f"serves {cc.options['languages']}, question is {language}"}))
                continue
            started = time.perf_counter()
            found = self.pipeline.call(cc.stage, cc.name, retriever.retrieve, query, cc.options["top_k"])
            ranked[cc.label] = [Hit(node, {cc.label: float(node.score or 0.0)}) for node in found]
            trace.stages.append(_stage(stage, cc.name, 0, ranked[cc.label], started))
        fusion_cc = self.pipeline.config.one("fusion")
        if fusion_cc is None:
            return next(iter(ranked.values()), [])
        started = time.perf_counter()
        hits = self.pipeline.call("fusion", fusion_cc.name, self.pipeline.build(fusion_cc).fuse, query, ranked)
        trace.stages.append(_stage(f"fusion{suffix}", fusion_cc.name, sum(len(h) for h in ranked.values()), hits, started))
        return hits

    def _follow_hops(self, query: Query, hits: list[Hit], trace: Trace) -> list[Hit]:
        """Multi-hop: while the policy names a follow-up query, retrieve again and append what is new."""
        cc = self.pipeline.config.one("multihop")
        if cc is None:
            return hits
        policy = self.pipeline.build(cc)
        for hop in range(1, cc.options["max_hops"] + 1):
            started = time.perf_counter()
            follow_up = self.pipeline.call("multihop", cc.name, policy.next_query, query, hits, hop)
            if not follow_up:
                trace.stages.append(StageTrace(stage=f"hop:{hop}", component=cc.name, n_in=len(hits), n_out=len(hits),
                                               ms=_ms(started), notes={"stopped": "the policy asked for no further hop"}))
                break
            found = self._retrieve_once(replace(query, retrieval_text=follow_up), trace, suffix=f"@hop{hop}")
            known = {h.node_id for h in hits}
            added = [h for h in found if h.node_id not in known]
            hits = hits + added
            trace.stages.append(StageTrace(stage=f"hop:{hop}", component=cc.name, n_in=len(hits) - len(added),
                                           n_out=len(hits), ms=_ms(started),
                                           notes={"query": follow_up, "added": [h.node_id for h in added]}))
        return hits

    # -- answering ------------------------------------------------------------------------------
    def ask(
        self, question: str, *, filters: Mapping[str, Any] | None = None, history: Iterable[ChatTurn] = ()
    ) -> Answer:
        query = Query(text=question.strip(), filters=dict(filters or {}), history=tuple(history))
        trace = self._new_trace()
        if not query.text:
            return _refused(query, Refusal("empty_question", "the question is empty", "Please ask a question."), trace)
        hits = self.retrieve(query, trace)

        policy_cc = self.pipeline.config.one("refusal")
        refusal: Refusal | None = None
        if policy_cc is not None:
            started = time.perf_counter()
            refusal = self.pipeline.call("refusal", policy_cc.name, self.pipeline.build(policy_cc).decide, query, hits)
            trace.stages.append(
                _stage("refusal", policy_cc.name, len(hits), [] if refusal else hits, started,
                       notes={"refused": refusal is not None, **({"reason": refusal.reason} if refusal else {})})
            )
        if refusal is None and not hits:
            refusal = Refusal("no_evidence", "retrieval returned no candidates", NO_EVIDENCE_MESSAGE)
        if refusal is not None:
            return _refused(query, refusal, trace)  # no generator is called

        context_cc = self.pipeline.config.one("context")
        started = time.perf_counter()
        context = self.pipeline.call("context", context_cc.name, self.pipeline.build(context_cc).build, query, hits)
        trace.stages.append(_stage("context", context_cc.name, len(hits), [e.hit for e in context.evidence], started))

        generator_cc = self.pipeline.config.one("generator")
        started = time.perf_counter()
        generation = self.pipeline.call("generator", generator_cc.name, self.pipeline.build(generator_cc).generate, query, context)
        notes: dict[str, Any] = {"model": generation.model, **{f"usage_{k}": v for k, v in generation.usage.items()}}
        trace.stages.append(_stage("generate", generator_cc.name, len(context.evidence), [], started, notes=notes))

        started = time.perf_counter()
        text, citations, invalid = verify_citations(generation.text, context)
        trace.stages.append(
            StageTrace(stage="cite", component="criss_rag", n_in=len(context.evidence), n_out=len(citations),
                       ms=_ms(started), notes={"invalid_markers": invalid})
        )
        if not citations:
            detail = f"the generator ({generation.model}) cited no evidence, so its answer is withheld"
            return _refused(query, Refusal("uncited_answer", detail, UNCITED_MESSAGE), trace)
        return Answer(question=query.text, text=text, citations=citations, generator=generation.model, trace=trace)

    def _new_trace(self) -> Trace:
        return Trace(config_hash=self.config_hash, index_key=self.manifest.key, plugins=self.pipeline.plugin_versions())


def _accounting(outcome: FilterOutcome, n_in: int) -> dict[str, Any]:
    notes: dict[str, Any] = {"kept": len(outcome.hits), "removed": dict(outcome.removed), "applied": outcome.applied}
    if outcome.note:
        notes["note"] = outcome.note
    return notes


def verify_citations(text: str, context: Context) -> tuple[str, list[Citation], list[int]]:
    """Keep markers that point at real evidence, drop the others, and number the citations."""
    cited: dict[int, Citation] = {}
    invalid: list[int] = []

    def keep(match: re.Match[str]) -> str:
        numbers = [int(n) for n in re.split(r"\s*,\s*", match.group(1))]
        valid = []
        for number in numbers:
            evidence = context.by_number(number)
            if evidence is None:
                invalid.append(number)
                continue
            valid.append(number)
            if number not in cited:
                meta = evidence.hit.metadata
                cited[number] = Citation(
                    number=number, doc_id=evidence.hit.doc_id, node_id=evidence.hit.node_id,
                    title=str(meta.get("title", "")), location=str(meta.get("url") or meta.get("source") or ""),
                    score=evidence.hit.score, text=evidence.text,
                )
        return "".join(f"[{n}]" for n in valid)

    cleaned = _MARKER.sub(keep, text)
    return cleaned, [cited[n] for n in sorted(cited)], invalid


def _refused(query: Query, refusal: Refusal, trace: Trace) -> Answer:
    return Answer(
        question=query.text, text=refusal.message, refused=True,
        refusal_reason=refusal.reason, refusal_detail=refusal.detail, trace=trace,
    )


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


def _stage(stage: str, component: str, n_in: int, hits: list[Hit], started: float, notes: dict | None = None) -> StageTrace:
    return StageTrace(
        stage=stage, component=component, n_in=n_in, n_out=len(hits), ms=_ms(started),
        top_scores=[round(h.score, 4) for h in hits[:5]], notes=notes or {},
    )
