"""The engine: question → retrievers → fusion → filters → rerankers → refusal policy → context
→ generator → verified citations → sentence check → :class:`~criss_rag.types.Answer` with a full
trace. ``Engine.ask`` returns the answer; ``Engine.ask_stream`` yields the tokens first."""

from __future__ import annotations

import re
import time
from collections.abc import Generator as Generator_
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from criss_rag.cache import corpus_version as corpus_version_text
from criss_rag.cache import open_cache
from criss_rag.chunk_store import ChunkStore
from criss_rag.errors import ComponentError, CrissRagError, IndexStoreError, StreamCancelled
from criss_rag.index_store import IndexStore, Manifest
from criss_rag.indexing import DOCSTORE, StaleIndexError, ingest, open_index, pipeline_index_key
from criss_rag.pipeline import Pipeline
from criss_rag.refusal_messages import INSUFFICIENT_EVIDENCE, in_language
from criss_rag.relevance import RelevanceCheck, RelevancePolicy
from criss_rag.source_titles import source_titles
from criss_rag.grounding import GroundingPolicy, SentenceGate, apply_policy, not_shown, off_topic, ungrounded
from criss_rag.meaning import MeaningSupport
from criss_rag.model_loading import take_loads
from criss_rag.support import unchecked_sentences
from criss_rag.text import CITATION_MARKER, detect_language
from criss_rag.thinking import ThinkSplitter, split_thinking
from criss_rag.types import (
    Answer,
    AnswerEvent,
    ChatTurn,
    Citation,
    Context,
    ContextItem,
    ErrorEvent,
    FilterOutcome,
    Generation,
    Hit,
    ProgressEvent,
    Query,
    Refusal,
    SentenceSupport,
    StageTrace,
    StreamEvent,
    ThinkingEvent,
    TokenEvent,
    Trace,
)

if TYPE_CHECKING:
    from criss_rag.chat import ChatSession
    from criss_rag.protocols import Verifier

#: Used only when retrieval finds nothing and the config names no refusal policy.
NO_EVIDENCE_MESSAGE = "Insufficient evidence: no source in the index matches this question."
#: Shown instead of an answer whose generator cited nothing: an unverifiable answer is withheld.
UNCITED_MESSAGE = "Insufficient evidence: no answer could be tied to a cited source."
#: The sentence check used when the config names no ``verifier:`` (see :mod:`criss_rag.meaning`).
DEFAULT_VERIFIER = MeaningSupport()


class Engine:
    """Answers questions with one pipeline over one built index."""

    def __init__(self, pipeline: Pipeline, manifest: Manifest, index_dir: Any) -> None:
        self.pipeline = pipeline
        self.manifest = manifest
        self.index_dir = index_dir
        self.config_hash = pipeline.config.config_hash()
        self.plugin_versions = pipeline.plugin_versions()  # once: every answer's trace names them
        docstore = ChunkStore.from_persist_path(str(index_dir / DOCSTORE))
        # filters and rerankers that read metadata check the corpus has it (never a silent no-op)
        self.corpus_warnings = pipeline.check_corpus(list(docstore.docs.values()))
        self.retrievers = pipeline.many("retrievers")
        for cc, retriever in self.retrievers:
            pipeline.call(cc.stage, cc.name, retriever.load, index_dir / "retrievers" / cc.label, docstore)
        self.cache = open_cache(pipeline, self.config_hash, manifest)  # None unless the config names one
        self.warmed_up: dict[str, float] = {}  # seconds per stage of warm_up(), once it ran
        self.grounding, self.relevance = answer_policies(pipeline)

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
        """A conversation with this engine (:class:`~criss_rag.chat.ChatSession`): follow-ups are
        condensed into standalone questions; ``session`` resumes a file written by ``save``."""
        from criss_rag.chat import ChatSession

        if session is not None and Path(session).exists():
            return ChatSession.load(session, self, filters=filters)
        return ChatSession(self, filters=filters)

    # -- retrieval ------------------------------------------------------------------------------
    def retrieve(self, query: Query, trace: Trace | None = None) -> list[Hit]:
        """Run every stage up to (not including) the refusal policy."""
        return _drain(self.retrieve_steps(query, trace if trace is not None else self._new_trace()))

    def retrieve_steps(self, query: Query, trace: Trace) -> Generator_[ProgressEvent, None, list[Hit]]:
        """:meth:`retrieve` as a generator that yields a :class:`ProgressEvent` before each step and
        returns the hits (what ``ask`` and ``ask_stream`` run; override this to observe the hits)."""
        for cc, transform in self.pipeline.many("query_transforms"):
            started = time.perf_counter()
            query = self.pipeline.call(cc.stage, cc.name, transform.transform, query)
            _add(trace, StageTrace(stage=f"transform:{cc.label}", component=cc.name, n_in=0, n_out=0,
                                           ms=_ms(started), notes={"retrieval_text": query.search_text}))
        yield ProgressEvent("retrieving", ", ".join(cc.label for cc, _ in self.retrievers))
        hits = self._retrieve_once(query, trace, suffix="")
        hits = yield from self._follow_hops(query, hits, trace)
        for stage, method in (("filters", "apply"), ("rerankers", "rerank")):
            for cc, component in self.pipeline.many(stage):
                yield ProgressEvent("filtering" if stage == "filters" else "reranking", cc.label)
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
                _add(trace, _stage(f"{stage[:-1]}:{cc.label}", cc.name, n_in, hits, started, notes=notes))
        return hits

    def _retrieve_once(self, query: Query, trace: Trace, suffix: str) -> list[Hit]:
        """Every retriever (for the question's language), then fusion."""
        ranked: dict[str, list[Hit]] = {}
        language = detect_language(query.text)
        for cc, retriever in self.retrievers:
            stage = f"retrieve:{cc.label}{suffix}"
            if cc.options["languages"] is not None and language not in cc.options["languages"]:
                _add(trace, StageTrace(stage=stage, component=cc.name, n_in=0, n_out=0, ms=0.0,
                                               notes={"skipped": f"serves {cc.options['languages']}, question is {language}"}))
                continue
            started = time.perf_counter()
            found = self.pipeline.call(cc.stage, cc.name, retriever.retrieve, query, cc.options["top_k"])
            label = cc.label
            ranked[label] = [Hit(node, {label: float(node.score or 0.0)}) for node in found]
            explain = getattr(retriever, "trace_notes", None)  # optional: e.g. a filter pushed to a database
            notes = dict(self.pipeline.call(cc.stage, cc.name, explain, query)) if callable(explain) else None
            _add(trace, _stage(stage, cc.name, 0, ranked[cc.label], started, notes=notes))
        fusion_cc = self.pipeline.config.one("fusion")
        if fusion_cc is None:
            return next(iter(ranked.values()), [])
        started = time.perf_counter()
        hits = self.pipeline.call("fusion", fusion_cc.name, self.pipeline.build(fusion_cc).fuse, query, ranked)
        _add(trace, _stage(f"fusion{suffix}", fusion_cc.name, sum(len(h) for h in ranked.values()), hits, started))
        return hits

    def _follow_hops(self, query: Query, hits: list[Hit], trace: Trace) -> Generator_[ProgressEvent, None, list[Hit]]:
        """Multi-hop: while the policy names a follow-up query, retrieve again and append what is new."""
        cc = self.pipeline.config.one("multihop")
        if cc is None:
            return hits
        policy = self.pipeline.build(cc)
        for hop in range(1, cc.options["max_hops"] + 1):
            started = time.perf_counter()
            follow_up = self.pipeline.call("multihop", cc.name, policy.next_query, query, hits, hop)
            if not follow_up:
                _add(trace, StageTrace(stage=f"hop:{hop}", component=cc.name, n_in=len(hits), n_out=len(hits),
                                               ms=_ms(started), notes={"stopped": "the policy asked for no further hop"}))
                break
            yield ProgressEvent("hop", f"{hop}: {follow_up}")
            found = self._retrieve_once(replace(query, retrieval_text=follow_up), trace, suffix=f"@hop{hop}")
            known = {h.node_id for h in hits}
            added = [h for h in found if h.node_id not in known]
            hits = hits + added
            _add(trace, StageTrace(stage=f"hop:{hop}", component=cc.name, n_in=len(hits) - len(added),
                                           n_out=len(hits), ms=_ms(started),
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
            yield AnswerEvent(_refused(query, Refusal("empty_question", "the question is empty", "Please ask a question."), trace))
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
        """Retrieval to the checked answer (no cache)."""
        hits = yield from self.retrieve_steps(query, trace)

        policy_cc = self.pipeline.config.one("refusal")
        refusal: Refusal | None = None
        if policy_cc is not None:
            yield ProgressEvent("refusal_check", policy_cc.name)
            started = time.perf_counter()
            refusal_policy = self.pipeline.build(policy_cc)
            refusal = self.pipeline.call("refusal", policy_cc.name, refusal_policy.decide, query, hits)
            notes = {"refused": refusal is not None, **({"reason": refusal.reason} if refusal else {})}
            explain = getattr(refusal_policy, "trace_notes", None)  # optional: e.g. a check it skipped, and why
            if callable(explain):
                notes.update(self.pipeline.call("refusal", policy_cc.name, explain, query, hits))
            _add(trace, _stage("refusal", policy_cc.name, len(hits), [] if refusal else hits, started, notes=notes))
        if refusal is None and not hits:
            refusal = Refusal("no_evidence", "retrieval returned no candidates", NO_EVIDENCE_MESSAGE)
        if refusal is not None:
            yield AnswerEvent(_refused(query, refusal, trace))  # no generator is called
            return

        context_cc = self.pipeline.config.one("context")
        started = time.perf_counter()
        context = self.pipeline.call("context", context_cc.name, self.pipeline.build(context_cc).build, query, hits)
        _add(trace, _stage("context", context_cc.name, len(hits), [e.hit for e in context.evidence], started))
        if self.relevance is not None and self.relevance.policy.before_generation:
            yield ProgressEvent("refusal_check", "relevance of the evidence")
            started = time.perf_counter()
            verdict = self.relevance.before(query.text, context)
            _add(trace, StageTrace(stage="relevance:evidence", component="criss_rag", n_in=len(context.evidence),
                                           n_out=len(context.evidence), ms=_ms(started), notes=verdict.model_dump()))
            if not verdict.relevant and self.relevance.policy.on_fail == "refuse":
                yield AnswerEvent(_refused(query, off_topic(query.text, verdict), trace))  # no generator is called
                return

        generator_cc = self.pipeline.config.one("generator")
        generator = self.pipeline.build(generator_cc)
        policy = self.grounding
        memo: dict[tuple, SentenceSupport] = {}  # verdicts the stream's gate asked for, reused by the check
        # a policy that can change the text holds the stream back until each sentence is checked
        gate = SentenceGate(lambda claim: self._judge(query, claim, context, memo), policy) \
            if stream and SentenceGate.needed(policy) else None
        deferred = False  # a whole (not streamed) answer under a gate is sent once checked
        yield ProgressEvent("generating", generator_cc.name)
        started = time.perf_counter()
        if stream and callable(getattr(generator, "stream", None)):
            pieces: list[str] = []
            # text the generator may still turn into a refusal is held back until it no longer can
            may_decline = getattr(generator, "may_decline", None)
            hold = (lambda text: bool(may_decline(text, context))) if callable(may_decline) else _always
            final = yield from _stream_pieces(generator_cc.name, generator.stream(query, context), pieces, gate, hold,
                                              cancel)
            generation = final if isinstance(final, Generation) else Generation(text="".join(pieces), model=generator_cc.name)
        else:
            generation = self.pipeline.call("generator", generator_cc.name, generator.generate, query, context)
            if stream and generation.text and generation.refusal is None:
                thinking, text = split_thinking(generation.text)
                if thinking:
                    yield ThinkingEvent(thinking)
                if gate is None:
                    yield TokenEvent(text)
                deferred = gate is not None
        notes: dict[str, Any] = {"model": generation.model, **{f"usage_{k}": v for k, v in generation.usage.items()}}
        if stream:
            notes["streamed"] = True
        thinking, text = split_thinking(generation.text)  # the thinking is never part of the answer
        if thinking:
            notes["thinking_chars"] = len(thinking)
        _add(trace, _stage("generate", generator_cc.name, len(context.evidence), [], started, notes=notes))
        if generation.refusal is not None:  # the model itself said the evidence does not answer
            # its words were never checked against the evidence: they go to the trace, marked so,
            # and the reader sees the fixed message in the question's language
            declined = generation.refusal
            trace.stages[-1].notes["declined"] = declined.reason
            trace.stages[-1].notes["declined_text"] = {
                "text": text, "checked": False,
                "note": "the generator's own words, never checked against the evidence; not shown as the answer"}
            refusal = Refusal(declined.reason, declined.detail, in_language(INSUFFICIENT_EVIDENCE, query.text))
            yield AnswerEvent(_refused(query, refusal, trace, generator=generation.model,
                                       context=context_items(context, [])))
            return

        started = time.perf_counter()
        check = verify_citations(text, context)
        cite = StageTrace(stage="cite", component="criss_rag", n_in=len(context.evidence), n_out=len(check.citations),
                          ms=0.0, notes={"invalid_markers": check.invalid})
        _add(trace, cite)
        if not check.citations and policy.citations == "require":
            cite.ms = _ms(started)
            detail = f"the generator ({generation.model}) cited no evidence, so its answer is withheld"
            yield AnswerEvent(_refused(query, Refusal("uncited_answer", detail, UNCITED_MESSAGE), trace,
                                       context=context_items(context, [])))
            return
        cite.ms = _ms(started)
        yield ProgressEvent("checking", "sentence support")
        sentences = self._verify(query, text, context, trace, memo)
        grounded = apply_policy(text, sentences, policy)
        check = verify_citations(grounded.text, context)
        cite.n_out = len(check.citations)
        cite.notes["policy"] = {"citations": policy.citations, "unsupported": policy.unsupported}
        cite.notes["attributed"] = grounded.attributed  # markers the policy added
        cite.notes["dropped"] = [{"text": d.text, "score": d.score, "why": d.why} for d in grounded.dropped]
        if grounded.repeated:
            cite.notes["repeated"] = grounded.repeated  # sentences said twice, shown once
        refusal = ungrounded(query.text, generation.model, sentences, grounded, bool(check.citations))
        if refusal is not None:
            answer = _refused(query, refusal, trace, generator=generation.model,
                              context=context_items(context, []))
            answer.dropped = not_shown(sentences, grounded)  # what was found stays with the refusal
            yield AnswerEvent(answer)
            return
        verdict = None
        if self.relevance is not None:
            verdict = self.relevance.after(query.text, grounded.sentences, context)
            _add(trace, StageTrace(stage="relevance:answer", component="criss_rag", n_in=len(grounded.sentences),
                                           n_out=len(grounded.sentences), ms=0.0, notes=verdict.model_dump()))
            if not verdict.relevant and self.relevance.policy.on_fail == "refuse":
                answer = _refused(query, off_topic(query.text, verdict), trace, generator=generation.model,
                                  context=context_items(context, []))
                answer.dropped, answer.relevance = grounded.dropped, verdict
                yield AnswerEvent(answer)
                return
        if deferred:
            yield TokenEvent(check.text)
        yield AnswerEvent(Answer(question=query.text, text=check.text, citations=check.citations,
                                 generator=generation.model, sentences=grounded.sentences, dropped=grounded.dropped,
                                 relevance=verdict, trace=trace, context=context_items(context, check.citations)))

    def _verifier(self) -> tuple[Any, str, Verifier]:
        cc = self.pipeline.config.one("verifier")
        return (cc, cc.name, self.pipeline.build(cc)) if cc is not None else (None, "criss_rag", DEFAULT_VERIFIER)

    def _judge(self, query: Query, claim: SentenceSupport, context: Context, memo: dict[tuple, SentenceSupport]) -> SentenceSupport:
        """The verdict on one sentence while it streams (kept in ``memo`` for the whole answer's check)."""
        unchecked = SentenceSupport(text=claim.text, cited=[n for n in claim.cited if context.by_number(n) is not None],
                                    invalid_citations=[n for n in claim.cited if context.by_number(n) is None])
        key = (unchecked.text, tuple(unchecked.cited), tuple(unchecked.invalid_citations))
        if key not in memo:
            _, name, verifier = self._verifier()
            verdicts = self.pipeline.call("verifier", name, verifier.verify, query, [unchecked], context)
            memo[key] = verdicts[0] if len(verdicts) == 1 else unchecked
        return memo[key]

    def _verify(self, query: Query, text: str, context: Context, trace: Trace,
                memo: dict[tuple, SentenceSupport] | None = None) -> list[SentenceSupport]:
        """Per-sentence support verdicts (those in ``memo`` are not asked again). A configured
        ``verifier:`` gets a ``verify`` stage of its own in the trace; the built-in meaning check
        reports in the ``cite`` stage's notes."""
        cc, name, verifier = self._verifier()
        memo = memo or {}
        started = time.perf_counter()
        unchecked = unchecked_sentences(text, context)
        keys = [(u.text, tuple(u.cited), tuple(u.invalid_citations)) for u in unchecked]
        asked = [u for u, key in zip(unchecked, keys, strict=True) if key not in memo]
        fresh = self.pipeline.call("verifier", name, verifier.verify, query, asked, context) if asked else []
        if len(fresh) != len(asked):
            raise ComponentError(f"stage verifier: component {name!r} returned {len(fresh)} verdicts for "
                                 f"{len(asked)} sentences; return one verdict per sentence, in order")
        answers = iter(fresh)
        sentences = [memo[key] if key in memo else next(answers) for key in keys]
        notes: dict[str, Any] = {"sentences": len(sentences),
                                 "unsupported": [i + 1 for i, s in enumerate(sentences) if not s.supported]}
        why = {str(i + 1): s.why for i, s in enumerate(sentences) if not s.supported and s.problems}
        if why:
            notes["why"] = why  # sentence number -> what the check found
        threshold = getattr(verifier, "threshold", None)
        if isinstance(threshold, float):
            notes["threshold"] = threshold
        if cc is None:
            trace.stages[-1].notes.update({"verifier": "criss_rag (meaning)", **notes})
            trace.stages[-1].ms = round(trace.stages[-1].ms + _ms(started), 3)
        else:
            _add(trace, StageTrace(stage="verify", component=cc.name, n_in=len(sentences),
                                           n_out=len(sentences) - len(notes["unsupported"]), ms=_ms(started), notes=notes))
        return sentences

    def _new_trace(self) -> Trace:
        return Trace(config_hash=self.config_hash, index_key=self.manifest.key,
                     corpus_version=corpus_version_text(self.manifest), plugins=dict(self.plugin_versions))


def _accounting(outcome: FilterOutcome, n_in: int) -> dict[str, Any]:
    notes: dict[str, Any] = {"kept": len(outcome.hits), "removed": dict(outcome.removed), "applied": outcome.applied}
    if outcome.note:
        notes["note"] = outcome.note
    return notes


class CitationCheck(NamedTuple):
    """What :func:`verify_citations` found."""

    text: str  # the answer with markers that match no evidence removed
    citations: list[Citation]  # the cited evidence, in number order
    invalid: list[int]  # cited numbers that match no evidence
    sentences: list[SentenceSupport]  # per-sentence verdicts (empty unless a verifier was given)


def verify_citations(text: str, context: Context, verifier: Verifier | None = None,
                     query: Query | None = None) -> CitationCheck:
    """Keep markers that point at real evidence, drop the others, and number the citations.

    With a ``verifier`` (e.g. :class:`criss_rag.support.LexicalSupport`) each sentence of ``text``
    is also judged against the evidence; sentences citing numbers that match no evidence keep them
    in ``invalid_citations``.
    """
    cited: dict[int, Citation] = {}
    invalid: list[int] = []
    titles = source_titles(context)

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
                    score=evidence.hit.score, text=evidence.text, source_title=titles[number],
                )
        return "".join(f"[{n}]" for n in valid)

    cleaned = CITATION_MARKER.sub(keep, text)
    if invalid:  # tidy the gaps that removed markers leave ("smoking  [7]." -> "smoking.")
        cleaned = re.sub(r"[ \t]+([.,;:!?。、])", r"\1", re.sub(r"(?<=\S)[ \t]{2,}", " ", cleaned))
    sentences: list[SentenceSupport] = []
    if verifier is not None:
        unchecked = unchecked_sentences(text, context)
        sentences = verifier.verify(query or Query(text=""), unchecked, context) if unchecked else []
    return CitationCheck(cleaned, [cited[n] for n in sorted(cited)], invalid, sentences)


def context_items(context: Context, citations: list[Citation]) -> list[ContextItem]:
    """Every passage of ``context`` as the answer reports it, marked cited or not."""
    titles = source_titles(context)
    cited = {c.number for c in citations}
    return [ContextItem(number=e.number, doc_id=e.hit.doc_id, node_id=e.hit.node_id,
                        title=str(e.hit.metadata.get("title", "")), source_title=titles[e.number],
                        location=str(e.hit.metadata.get("url") or e.hit.metadata.get("source") or ""),
                        score=e.hit.score, text=e.text, cited=e.number in cited,
                        metadata={k: v for k, v in e.hit.metadata.items() if _plain(v)})
            for e in context.evidence]


def _plain(value: Any) -> bool:
    if isinstance(value, list | tuple):
        return all(isinstance(v, str | int | float | bool) for v in value)
    return value is None or isinstance(value, str | int | float | bool)


def answer_policies(pipeline: Pipeline) -> tuple[GroundingPolicy, RelevanceCheck | None]:
    """The generator stage's policies, from its engine keys (validated when the config loaded)."""
    cc = pipeline.config.one("generator")
    options = cc.options if cc is not None else {}
    grounding = GroundingPolicy(citations=options.get("citations", "require"),
                                unsupported=options.get("unsupported", "drop"))
    if not options.get("relevance"):
        return grounding, None
    policy = RelevancePolicy.model_validate(options["relevance"])
    if policy.analyzer is None:
        return grounding, RelevanceCheck(policy)
    analyzer = pipeline.analyzer(policy.analyzer, requested_by="generator")
    return grounding, RelevanceCheck(policy, analyzer.analyze, getattr(analyzer, "analyzer_for", None))


def _refused(query: Query, refusal: Refusal, trace: Trace, generator: str = "",
             context: list[ContextItem] | None = None) -> Answer:
    return Answer(
        question=query.text, text=refusal.message, refused=True,
        refusal_reason=refusal.reason, refusal_detail=refusal.detail, generator=generator, trace=trace,
        context=context or [],
    )


def _always(text: str) -> bool:
    return True


def _stream_pieces(name: str, stream: Iterator[Any], pieces: list[str], gate: SentenceGate | None = None,
                   hold: Callable[[str], bool] | None = None, cancel: Any = None) -> Generator_[StreamEvent, None, Any]:
    """Yield a generator's streamed pieces as token events (collected in ``pieces``; through the
    ``gate`` when there is one), its ``<think>`` text (or the :class:`ThinkingEvent` s it yields)
    as thinking events; return what its stream returned (a final Generation, or None). Failures
    name the stage and component.

    While ``hold(answer text so far)`` is true (the generator may still decline), answer text is
    held back; it is released once ``hold`` turns false, or when the stream ends with an answer,
    and never when the stream ends in a refusal. Once ``cancel.is_set()`` the stream is closed and
    :class:`StreamCancelled` raised, at the next piece, held or not."""
    iterator = iter(stream)
    splitter = ThinkSplitter()
    answer: list[str] = []  # the answer text so far (thinking excluded)
    held: list[str] = []
    released = hold is None

    def shown(text: str) -> Iterator[StreamEvent]:
        if gate is None:
            yield TokenEvent(text)
        elif out := gate.feed(text):
            yield TokenEvent(out)

    def events(parts: list[tuple[str, str]]) -> Iterator[StreamEvent]:
        nonlocal released
        for kind, text in parts:
            if kind == "thinking":
                yield ThinkingEvent(text)
                continue
            answer.append(text)
            if not released:
                assert hold is not None
                if hold("".join(answer)):
                    held.append(text)
                    continue
                released, text = True, "".join(held) + text
                held.clear()
            yield from shown(text)

    try:
        while True:
            try:
                piece = next(iterator)
            except StopIteration as stop:
                yield from events(splitter.finish())
                if not released:
                    if isinstance(stop.value, Generation) and stop.value.refusal is not None:
                        return stop.value  # a refusal: nothing the generator wrote is shown
                    if held:
                        yield from shown("".join(held))
                if gate is not None and (out := gate.finish()):
                    yield TokenEvent(out)
                return stop.value
            except CrissRagError:
                raise
            except Exception as exc:
                raise ComponentError(f"stage generator: component {name!r} failed: {type(exc).__name__}: {exc}") from exc
            if cancel is not None and cancel.is_set():
                raise StreamCancelled(f"stage generator: the reader went away; {name!r} was stopped mid-answer")
            if isinstance(piece, ThinkingEvent):
                yield piece
            elif piece:
                pieces.append(piece)
                yield from events(splitter.feed(piece))
    finally:  # also when the reader stops early (a client gone): the generator's stream (an LLM slot) is freed now
        close = getattr(iterator, "close", None)
        if callable(close):
            close()


def _drain(steps: Generator_[Any, None, Any]) -> Any:
    """Run ``steps`` to the end, ignoring what it yields; return what it returns."""
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value


def _add(trace: Trace, stage: StageTrace) -> None:
    """Append ``stage`` to ``trace``; a model this thread loaded while the stage ran comes first as
    a ``load:<model>`` stage of its own, and its time is taken out of the stage's."""
    for load in take_loads():
        ms = round(load.seconds * 1000, 3)
        stage.ms = round(max(0.0, stage.ms - ms), 3)
        trace.stages.append(StageTrace(stage=f"load:{load.model}", component=stage.component, n_in=0, n_out=0,
                                       ms=ms, notes={"model": load.model, "needed_by": stage.stage}))
    trace.stages.append(stage)


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


def _stage(stage: str, component: str, n_in: int, hits: list[Hit], started: float, notes: dict | None = None) -> StageTrace:
    return StageTrace(
        stage=stage, component=component, n_in=n_in, n_out=len(hits), ms=_ms(started),
        top_scores=[round(h.score, 4) for h in hits[:5]], notes=notes or {},
    )
