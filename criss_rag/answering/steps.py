"""The engine's steps from the ranked candidates to the checked answer, in order:

1. :meth:`AnswerSteps.refusal_check`: the refusal policy decides whether the evidence is enough;
2. :meth:`AnswerSteps.number_evidence`: the context builder numbers the passages the generator may cite;
3. :meth:`AnswerSteps.evidence_relevance`: the relevance check of the evidence (``relevance:``
   with ``before_generation``);
4. :meth:`AnswerSteps.generate`: the generator writes (or streams) the answer;
5. :meth:`AnswerSteps.checked_answer`: its citations are checked against the evidence, each
   sentence against what it cites, the grounding policy applied, and the answer's relevance read.

Any step may end the answer with a refusal; the ones before generation call no generator.
"""

from __future__ import annotations

import time
from collections.abc import Generator as Generator_
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from criss_rag.answering.citations import context_items, verify_citations
from criss_rag.answering.grounding_policy import (
    Grounded,
    GroundingPolicy,
    SentenceGate,
    apply_policy,
    not_shown,
    off_topic,
    ungrounded,
)
from criss_rag.answering.meaning_check import MeaningSupport
from criss_rag.answering.refusal_messages import INSUFFICIENT_EVIDENCE, in_language
from criss_rag.answering.relevance import RelevanceCheck, RelevancePolicy
from criss_rag.answering.sentence_check import unchecked_sentences
from criss_rag.answering.streaming import always, stream_pieces
from criss_rag.answering.thinking import split_thinking
from criss_rag.answering.tracing import add_stage, ms_since, stage_trace
from criss_rag.errors import ComponentError
from criss_rag.protocols import ContextBuilder, Generator, RefusalPolicy, Verifier
from criss_rag.types import (
    Answer,
    AnswerEvent,
    Context,
    ContextItem,
    Generation,
    Hit,
    ProgressEvent,
    Query,
    Refusal,
    RelevanceVerdict,
    SentenceSupport,
    StageTrace,
    StreamEvent,
    ThinkingEvent,
    TokenEvent,
    Trace,
)

if TYPE_CHECKING:
    from criss_rag.pipeline import Pipeline

#: Used only when retrieval finds nothing and the config names no refusal policy.
NO_EVIDENCE_MESSAGE = "Insufficient evidence: no source in the index matches this question."
#: Shown instead of an answer whose generator cited nothing: an unverifiable answer is withheld.
UNCITED_MESSAGE = "Insufficient evidence: no answer could be tied to a cited source."
#: The sentence check used when the config names no ``verifier:`` (see :mod:`criss_rag.answering.meaning_check`).
DEFAULT_VERIFIER = MeaningSupport()

#: a sentence's verdict, by (text, cited numbers, invalid numbers): asked once per answer
Memo = dict[tuple[Any, ...], SentenceSupport]


class AnswerSteps:
    """The steps after retrieval, for one pipeline (see the module docstring)."""

    def __init__(self, pipeline: Pipeline) -> None:
        self.pipeline = pipeline
        self.grounding, self.relevance = answer_policies(pipeline)

    def answer(self, query: Query, hits: list[Hit], trace: Trace, *, stream: bool,
               cancel: Any = None) -> Iterator[StreamEvent]:
        """Every step, in order; ends with one :class:`AnswerEvent` (the answer or a refusal)."""
        refusal = yield from self.refusal_check(query, hits, trace)
        if refusal is not None:
            yield AnswerEvent(refused(query, refusal, trace))  # no generator is called
            return
        context = self.number_evidence(query, hits, trace)
        refusal = yield from self.evidence_relevance(query, context, trace)
        if refusal is not None:
            yield AnswerEvent(refused(query, refusal, trace))  # no generator is called
            return
        memo: Memo = {}  # verdicts the stream's gate asked for, reused by the check
        generation, text, deferred = yield from self.generate(query, context, trace, memo, stream=stream, cancel=cancel)
        if generation.refusal is not None:  # the model itself said the evidence does not answer
            yield AnswerEvent(self.declined(query, generation, text, context, trace))
            return
        answer = yield from self.checked_answer(query, generation, text, context, trace, memo)
        if deferred and not answer.refused:
            yield TokenEvent(answer.text)
        yield AnswerEvent(answer)

    # -- 1. refusal policy -----------------------------------------------------------------------
    def refusal_check(
        self, query: Query, hits: list[Hit], trace: Trace
    ) -> Generator_[StreamEvent, None, Refusal | None]:
        """The refusal policy's decision (``no_evidence`` without a policy when nothing was found)."""
        policy_cc = self.pipeline.config.one("refusal")
        refusal: Refusal | None = None
        if policy_cc is not None:
            yield ProgressEvent("refusal_check", policy_cc.name)
            started = time.perf_counter()
            refusal_policy = self.pipeline.build(policy_cc, RefusalPolicy)
            refusal = self.pipeline.call("refusal", policy_cc.name, refusal_policy.decide, query, hits)
            notes = {"refused": refusal is not None, **({"reason": refusal.reason} if refusal else {})}
            explain = getattr(refusal_policy, "trace_notes", None)  # optional: e.g. a check it skipped, and why
            if callable(explain):
                notes.update(self.pipeline.call("refusal", policy_cc.name, explain, query, hits))
            add_stage(trace, stage_trace("refusal", policy_cc.name, len(hits), [] if refusal else hits, started,
                                            notes=notes))
        if refusal is None and not hits:
            refusal = Refusal("no_evidence", "retrieval returned no candidates", NO_EVIDENCE_MESSAGE)
        return refusal

    # -- 2. numbered evidence --------------------------------------------------------------------
    def number_evidence(self, query: Query, hits: list[Hit], trace: Trace) -> Context:
        context_cc = self.pipeline.config.one("context")
        assert context_cc is not None  # the config requires a context builder
        started = time.perf_counter()
        builder = self.pipeline.build(context_cc, ContextBuilder)
        context = self.pipeline.call("context", context_cc.name, builder.build, query, hits)
        add_stage(trace,
            stage_trace("context", context_cc.name, len(hits), [e.hit for e in context.evidence], started)
        )
        return context

    # -- 3. relevance of the evidence ------------------------------------------------------------
    def evidence_relevance(
        self, query: Query, context: Context, trace: Trace
    ) -> Generator_[StreamEvent, None, Refusal | None]:
        """An ``off_topic`` refusal when the evidence does not speak about what is asked (only with
        ``relevance: {before_generation: true, on_fail: refuse}``)."""
        if self.relevance is None or not self.relevance.policy.before_generation:
            return None
        yield ProgressEvent("refusal_check", "relevance of the evidence")
        started = time.perf_counter()
        verdict = self.relevance.before(query.text, context)
        add_stage(trace, StageTrace(stage="relevance:evidence", component="criss_rag", n_in=len(context.evidence),
                                       n_out=len(context.evidence), ms=ms_since(started), notes=verdict.model_dump()))
        if not verdict.relevant and self.relevance.policy.on_fail == "refuse":
            return off_topic(query.text, verdict)
        return None

    # -- 4. generation ---------------------------------------------------------------------------
    def generate(self, query: Query, context: Context, trace: Trace, memo: Memo, *, stream: bool,
                 cancel: Any = None) -> Generator_[StreamEvent, None, tuple[Generation, str, bool]]:
        """The generation, its answer text without thinking, and whether that text is still to be
        shown (a whole answer held back until checked, when the grounding policy may change it)."""
        generator_cc = self.pipeline.config.one("generator")
        assert generator_cc is not None  # the config requires a generator
        generator = self.pipeline.build(generator_cc, Generator)
        # a policy that can change the text holds the stream back until each sentence is checked
        gate = SentenceGate(lambda claim: self.judge(query, claim, context, memo), self.grounding) \
            if stream and SentenceGate.needed(self.grounding) else None
        deferred = False  # a whole (not streamed) answer under a gate is sent once checked
        yield ProgressEvent("generating", generator_cc.name)
        started = time.perf_counter()
        streamer = getattr(generator, "stream", None)
        if stream and callable(streamer):
            pieces: list[str] = []
            # text the generator may still turn into a refusal is held back until it no longer can
            may_decline = getattr(generator, "may_decline", None)
            hold = (lambda text: bool(may_decline(text, context))) if callable(may_decline) else always
            final = yield from stream_pieces(generator_cc.name, streamer(query, context), pieces, gate, hold, cancel)
            generation = (
                final if isinstance(final, Generation) else Generation(text="".join(pieces), model=generator_cc.name)
            )
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
        add_stage(trace, stage_trace("generate", generator_cc.name, len(context.evidence), [], started, notes=notes))
        return generation, text, deferred

    def declined(self, query: Query, generation: Generation, text: str, context: Context, trace: Trace) -> Answer:
        """The refusal shown when the generator declined: its words were never checked against the
        evidence, so they go to the trace, marked so, and the reader sees the fixed message in the
        question's language."""
        assert generation.refusal is not None
        declined = generation.refusal
        trace.stages[-1].notes["declined"] = declined.reason
        trace.stages[-1].notes["declined_text"] = {
            "text": text, "checked": False,
            "note": "the generator's own words, never checked against the evidence; not shown as the answer"}
        refusal = Refusal(declined.reason, declined.detail, in_language(INSUFFICIENT_EVIDENCE, query.text))
        return refused(query, refusal, trace, generator=generation.model, context=context_items(context, []))

    # -- 5. citations, sentences, grounding policy, relevance of the answer ----------------------
    def checked_answer(self, query: Query, generation: Generation, text: str, context: Context, trace: Trace,
                       memo: Memo) -> Generator_[StreamEvent, None, Answer]:
        """The answer with checked citations and sentence verdicts, or the refusal a check led to."""
        policy = self.grounding
        started = time.perf_counter()
        check = verify_citations(text, context)
        cite = StageTrace(stage="cite", component="criss_rag", n_in=len(context.evidence), n_out=len(check.citations),
                          ms=0.0, notes={"invalid_markers": check.invalid})
        add_stage(trace, cite)
        cite.ms = ms_since(started)
        if not check.citations and policy.citations == "require":
            detail = f"the generator ({generation.model}) cited no evidence, so its answer is withheld"
            return refused(query, Refusal("uncited_answer", detail, UNCITED_MESSAGE), trace,
                           context=context_items(context, []))
        yield ProgressEvent("checking", "sentence support")
        sentences = self.verify(query, text, context, trace, memo)
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
            answer = refused(query, refusal, trace, generator=generation.model, context=context_items(context, []))
            answer.dropped = not_shown(sentences, grounded)  # what was found stays with the refusal
            return answer
        verdict = self.answer_relevance(query, grounded, context, trace)
        if verdict is not None and not verdict.relevant and self.relevance is not None \
                and self.relevance.policy.on_fail == "refuse":
            answer = refused(query, off_topic(query.text, verdict), trace, generator=generation.model,
                             context=context_items(context, []))
            answer.dropped, answer.relevance = grounded.dropped, verdict
            return answer
        return Answer(question=query.text, text=check.text, citations=check.citations, generator=generation.model,
                      sentences=grounded.sentences, dropped=grounded.dropped, relevance=verdict, trace=trace,
                      context=context_items(context, check.citations))

    def answer_relevance(self, query: Query, grounded: Grounded, context: Context,
                         trace: Trace) -> RelevanceVerdict | None:
        """Whether the shown sentences speak about what is asked (``None`` without ``relevance:``)."""
        if self.relevance is None:
            return None
        verdict = self.relevance.after(query.text, grounded.sentences, context)
        add_stage(trace, StageTrace(stage="relevance:answer", component="criss_rag", n_in=len(grounded.sentences),
                                       n_out=len(grounded.sentences), ms=0.0, notes=verdict.model_dump()))
        return verdict

    # -- the sentence check ----------------------------------------------------------------------
    def verifier(self) -> tuple[Any, str, Verifier]:
        """The configured ``verifier:`` (its config, name and component), else the built-in check."""
        cc = self.pipeline.config.one("verifier")
        return (
            (cc, cc.name, self.pipeline.build(cc, Verifier))
            if cc is not None
            else (None, "criss_rag", DEFAULT_VERIFIER)
        )

    def judge(self, query: Query, claim: SentenceSupport, context: Context, memo: Memo) -> SentenceSupport:
        """The verdict on one sentence while it streams (kept in ``memo`` for the whole answer's check)."""
        unchecked = SentenceSupport(text=claim.text, cited=[n for n in claim.cited if context.by_number(n) is not None],
                                    invalid_citations=[n for n in claim.cited if context.by_number(n) is None])
        key = (unchecked.text, tuple(unchecked.cited), tuple(unchecked.invalid_citations))
        if key not in memo:
            _, name, verifier = self.verifier()
            verdicts = self.pipeline.call("verifier", name, verifier.verify, query, [unchecked], context)
            memo[key] = verdicts[0] if len(verdicts) == 1 else unchecked
        return memo[key]

    def verify(self, query: Query, text: str, context: Context, trace: Trace,
               memo: Memo | None = None) -> list[SentenceSupport]:
        """Per-sentence support verdicts (those in ``memo`` are not asked again). A configured
        ``verifier:`` gets a ``verify`` stage of its own in the trace; the built-in meaning check
        reports in the ``cite`` stage's notes."""
        cc, name, verifier = self.verifier()
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
            trace.stages[-1].ms = round(trace.stages[-1].ms + ms_since(started), 3)
        else:
            add_stage(trace, StageTrace(stage="verify", component=cc.name, n_in=len(sentences),
                                           n_out=len(sentences) - len(notes["unsupported"]), ms=ms_since(started),
                                           notes=notes))
        return sentences


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


def refused(query: Query, refusal: Refusal, trace: Trace, generator: str = "",
            context: list[ContextItem] | None = None) -> Answer:
    """The answer that is a refusal: the refusal's message, reason and detail, with the trace so far."""
    return Answer(
        question=query.text, text=refusal.message, refused=True,
        refusal_reason=refusal.reason, refusal_detail=refusal.detail, generator=generator, trace=trace,
        context=context or [],
    )
