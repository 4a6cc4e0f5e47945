"""What the engine returns for one question: the :class:`Answer` with its citations, the passages
it saw, its sentence verdicts, its relevance verdict and its trace; pydantic models, so an answer
serialises to JSON exactly as ``criss-rag ask --json`` prints it. Also a judge's verdict on an answer."""

from __future__ import annotations

from typing import Any

from llama_index.core.schema import NodeWithScore, TextNode
from pydantic import BaseModel, Field, field_serializer

from criss_rag.types.stages import unvalidated


class Citation(BaseModel):
    """A numbered reference in an answer, mapped back to its source."""

    number: int
    doc_id: str
    node_id: str
    title: str = ""
    location: str = ""  # a URL, or file + section, whatever the loader knows
    score: float
    text: str  # the cited passage
    #: the title to show: the document title, its section (heading path) and page when known, and
    #: "passage k of n" when a section was split, so no two sources of one answer read the same
    source_title: str = ""


class ContextItem(BaseModel):
    """One passage the generator saw, numbered as in its prompt (``[n]``), cited or not: what
    LlamaIndex calls the response's source nodes (:attr:`Answer.source_nodes`)."""

    number: int
    doc_id: str
    node_id: str
    title: str = ""
    source_title: str = ""  # as in :class:`Citation`
    location: str = ""
    score: float
    text: str
    cited: bool = False  # the answer cites it
    metadata: dict[str, Any] = Field(default_factory=dict)  # the chunk's metadata (plain values only)


class StageTrace(BaseModel):
    """What one stage did: which component, candidates in and out, top scores, time.

    ``top_scores`` are the first five scores after the stage as it gave them; they are written
    (``model_dump``, JSON) to four decimals."""

    stage: str
    component: str
    n_in: int
    n_out: int
    ms: float
    top_scores: list[float] = Field(default_factory=list)
    notes: dict[str, Any] = Field(default_factory=dict)

    @field_serializer("top_scores")
    def _four_decimals(self, scores: list[float]) -> list[float]:
        return [round(score, 4) for score in scores]

    @classmethod
    def record(cls, stage: str, component: str, n_in: int, n_out: int, ms: float, top_scores: list[float],
               notes: dict[str, Any]) -> StageTrace:
        """A stage record from values the engine measured (of the fields' types: not validated
        again, as several are made for every question)."""
        return unvalidated(cls, {"stage": stage, "component": component, "n_in": n_in, "n_out": n_out, "ms": ms,
                                 "top_scores": top_scores, "notes": notes})


class Trace(BaseModel):
    """Everything needed to explain and reproduce an answer."""

    config_hash: str
    index_key: str = ""
    corpus_version: str = ""  # v<N>:<fingerprint> of the index version that answered
    plugins: dict[str, str] = Field(default_factory=dict)  # plugin name -> version
    stages: list[StageTrace] = Field(default_factory=list)

    def stage(self, name: str) -> StageTrace | None:
        for item in self.stages:
            if item.stage == name:
                return item
        return None


class SentenceProblem(BaseModel):
    """One reason a sentence is not supported: what kind of thing failed, what the sentence says,
    and what the passage it was compared with says instead (``message`` puts them in one line,
    e.g. ``number: 30% — evidence [2] says 70%``)."""

    kind: str  # negation, number, stage, entity, population, direction, not_in_evidence, no_match
    what: str  # what the sentence says ("30%", "is usually used", "and cures most patients")
    evidence: int | None = None  # the passage it was compared with
    says: str = ""  # what that passage says instead ("70%"), empty when it says nothing of the kind
    message: str = ""  # the whole reason in one line, for people

    @classmethod
    def of(cls, kind: str, what: str, evidence: int | None = None, says: str = "") -> SentenceProblem:
        where = f"evidence [{evidence}]" if evidence is not None else "the evidence"
        tail = f"{where} says {says}" if says else f"not in {where}"
        return cls(kind=kind, what=what, evidence=evidence, says=says, message=f"{kind}: {what} — {tail}")


class SentenceSupport(BaseModel):
    """One sentence of an answer and whether the evidence supports it (the sentence check).

    ``score`` is the alignment score (0-1) of the sentence against the evidence that supports it
    best: its cited evidence first, all numbered evidence as a fallback. ``evidence`` is that
    passage's number, ``None`` when nothing supports it. ``problems`` say why a sentence is not
    supported (empty for a supported one).
    """

    text: str  # the sentence, without its [n] markers
    cited: list[int] = Field(default_factory=list)  # evidence numbers it cites (valid ones)
    invalid_citations: list[int] = Field(default_factory=list)  # cited numbers that match no evidence
    supported: bool = False
    score: float = 0.0
    evidence: int | None = None  # the number of the passage that supports it best
    method: str = ""  # what decided the verdict, e.g. "lexical" or "llm"
    #: the answer had no valid marker here: the engine added ``[evidence]`` (``citations: attribute``)
    attributed: bool = False
    problems: list[SentenceProblem] = Field(default_factory=list)  # why it is not supported

    @property
    def why(self) -> str:
        """The problems in one line ("" when there are none)."""
        return "; ".join(p.message for p in self.problems)


class RelevanceVerdict(BaseModel):
    """Whether an answer (or, before generation, the evidence) covers what the question asks, apart
    from whether the evidence supports it (see :mod:`criss_rag.answering.relevance`)."""

    relevant: bool
    score: float  # the share of the question's content words covered (0-1)
    covered: list[str] = Field(default_factory=list)  # the question's content words that are covered
    missing: list[str] = Field(default_factory=list)  # those that are not
    focus: list[str] = Field(default_factory=list)  # the question's point: its words besides the cancer's name
    focus_score: float = 1.0  # the share of the focus covered (1 when the question names only the cancer)
    checked: str = ""  # "evidence" (before generation) or "answer"
    threshold: float = 0.0


class CachedFrom(BaseModel):
    """Set on an answer that a ``cache:`` stage served: which earlier question it was stored for."""

    similarity: float  # how close the question is to the stored one (the cache's measure, 0-1)
    original_question: str  # the question the answer was first produced for
    stored: str = ""  # when it was stored (ISO 8601, UTC)
    cache: str = ""  # the cache component that served it


class Answer(BaseModel):
    """The engine's result for one question."""

    question: str
    text: str
    citations: list[Citation] = Field(default_factory=list)
    refused: bool = False
    refusal_reason: str | None = None
    refusal_detail: str | None = None
    generator: str = ""
    sentences: list[SentenceSupport] = Field(default_factory=list)  # verdicts of the sentences in `text`
    #: sentences the generator wrote that the evidence does not support, removed from `text`
    #: (``unsupported: drop``), with their scores; never part of the shown answer
    dropped: list[SentenceSupport] = Field(default_factory=list)
    relevance: RelevanceVerdict | None = None  # set when the generator stage has a `relevance` policy
    trace: Trace
    cached: CachedFrom | None = None  # set when a `cache:` stage answered from an earlier answer
    #: every passage the generator saw (cited or not); empty for a refusal made before generation
    context: list[ContextItem] = Field(default_factory=list)

    @property
    def unsupported(self) -> list[SentenceSupport]:
        """The sentences no evidence supports."""
        return [s for s in self.sentences if not s.supported]

    @property
    def source_nodes(self) -> list[NodeWithScore]:
        """The context as LlamaIndex ``NodeWithScore`` s (text, metadata, score), for code written
        against LlamaIndex responses."""
        return [NodeWithScore(node=TextNode(id_=item.node_id, text=item.text,
                                            metadata={**item.metadata, "doc_id": item.doc_id, "title": item.title,
                                                      "source_title": item.source_title, "number": item.number,
                                                      "cited": item.cited}),
                              score=item.score)
                for item in self.context]


class JudgeVerdict(BaseModel):
    """A judge's typed verdict on one answer (what :class:`~criss_rag.protocols.Judge` returns).

    ``scores`` are on the judge's own scale (e.g. 1-5); ``flags`` are yes/no findings. A reply
    that could not be parsed is ``parse_failed=True`` with empty ``scores``: it is counted as a
    failure in reports, never averaged as a zero.
    """

    judge: str = ""  # who judged, e.g. "rubric (llms.judge-a)"
    scores: dict[str, float] = Field(default_factory=dict)
    flags: dict[str, bool] = Field(default_factory=dict)
    rationale: str = ""
    parse_failed: bool = False
    error: str = ""  # why parsing failed (or what else went wrong)
    attempts: int = 1  # LLM calls made, retries included
    raw: str = ""  # the last reply, shortened, for the review file
