"""Typed values that flow between pipeline stages and come out of the engine.

Per-query values (:class:`Query`, :class:`Hit`, :class:`Context`, :class:`Generation`) are plain
dataclasses holding LlamaIndex types; the engine's result (:class:`Answer`) is a pydantic model so
it serialises to JSON exactly as ``criss-rag ask --json`` prints it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from llama_index.core.schema import BaseNode, NodeWithScore, TextNode
from pydantic import BaseModel, Field


@dataclass(frozen=True)
class ChatTurn:
    """One earlier turn of a conversation."""

    role: str  # "user" or "assistant"
    text: str


@dataclass(frozen=True)
class Query:
    """A question plus what the caller knows about it.

    ``filters`` carries request-level constraints (e.g. ``{"cancer_type": "breast"}``) that
    filter components may read; ``history`` carries earlier chat turns; ``retrieval_text``, when a
    query transform or a hop sets it, is what retrievers search for instead of ``text``.
    """

    text: str
    filters: Mapping[str, Any] = field(default_factory=dict)
    history: tuple[ChatTurn, ...] = ()
    retrieval_text: str = ""

    @property
    def search_text(self) -> str:
        """What retrievers should search for."""
        return self.retrieval_text or self.text


_NEW = object.__new__
_SET_DICT = object.__setattr__
# pydantic keeps these three in slots: their descriptors set them without BaseModel.__setattr__
_SET_FIELDS = BaseModel.__dict__["__pydantic_fields_set__"].__set__
_SET_EXTRA = BaseModel.__dict__["__pydantic_extra__"].__set__
_SET_PRIVATE = BaseModel.__dict__["__pydantic_private__"].__set__
_NODE_TYPES: set[type] = set()  # classes scored() has seen to be LlamaIndex nodes


def scored(node: BaseNode, score: float | None) -> NodeWithScore:
    """``NodeWithScore(node=node, score=score)`` without pydantic's validation of ``node``.

    A retriever or a fusion builds one per candidate of every question (about 90 per question with
    two retrievers of ``top_k: 30`` fused), and validating a node already built took more time than
    the FAISS search; the object is the same as the validated one (equal, dumped alike)."""
    kind = type(node)
    if kind not in _NODE_TYPES:  # isinstance on LlamaIndex's node classes (ABCs) once per class
        if not isinstance(node, BaseNode):
            raise TypeError(f"scored() takes a LlamaIndex node, not {kind.__name__}")
        _NODE_TYPES.add(kind)
    made = _NEW(NodeWithScore)
    _SET_DICT(made, "__dict__", {"node": node, "score": score})
    _SET_FIELDS(made, {"node", "score"})
    _SET_EXTRA(made, None)
    _SET_PRIVATE(made, None)
    return made


@dataclass
class Hit:
    """A candidate passage: the LlamaIndex node, its current score, and every raw score so far.

    ``signals`` maps a stage label to the score that stage gave, e.g.
    ``{"bm25": 11.2, "faiss": 0.71, "rrf": 0.032}``; refusal policies read calibrated
    signals (a dense cosine) even after fusion has replaced the ranking score.
    """

    node: NodeWithScore
    signals: dict[str, float] = field(default_factory=dict)

    @property
    def node_id(self) -> str:
        return self.node.node.node_id

    @property
    def score(self) -> float:
        return float(self.node.score or 0.0)

    @property
    def text(self) -> str:
        return self.node.node.get_content()

    @property
    def metadata(self) -> dict[str, Any]:
        return self.node.node.metadata

    @property
    def doc_id(self) -> str:
        """The source document id (falls back to the node id for unchunked nodes)."""
        return str(self.metadata.get("doc_id") or self.node.node.ref_doc_id or self.node_id)

    def with_score(self, score: float, label: str | None = None) -> Hit:
        """A copy ranked by ``score``; ``label`` also records it as a signal."""
        signals = dict(self.signals)
        if label:
            signals[label] = score
        return Hit(scored(self.node.node, score), signals)


@dataclass
class FilterOutcome:
    """What a filter may return instead of a bare list: the kept hits plus the accounting the
    trace shows (why candidates were removed, and whether the filter applied at all)."""

    hits: list[Hit]
    removed: dict[str, int] = field(default_factory=dict)  # reason -> how many candidates
    applied: bool = True
    note: str = ""  # e.g. "no cancer type in the question: nothing filtered"


@dataclass(frozen=True)
class Evidence:
    """A numbered passage the generator may cite as ``[number]``."""

    number: int
    hit: Hit
    text: str


@dataclass(frozen=True)
class Context:
    """The numbered evidence handed to a generator, and its rendered prompt text."""

    evidence: tuple[Evidence, ...]
    text: str

    def by_number(self, number: int) -> Evidence | None:
        for item in self.evidence:
            if item.number == number:
                return item
        return None


@dataclass(frozen=True)
class Refusal:
    """A decision not to answer: ``reason`` is machine-readable (e.g. ``weak_evidence``),
    ``detail`` explains it, ``message`` is what the user is shown."""

    reason: str
    detail: str
    message: str


@dataclass(frozen=True)
class Generation:
    """A generator's output: text with ``[n]`` citation markers, plus who wrote it."""

    text: str
    model: str
    usage: Mapping[str, int] = field(default_factory=dict)
    #: set when the model itself said the evidence is insufficient: the engine reports this
    #: refusal (e.g. reason ``model_declined``) instead of an answer
    refusal: Refusal | None = None


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
    """What one stage did: which component, candidates in and out, top scores, time."""

    stage: str
    component: str
    n_in: int
    n_out: int
    ms: float
    top_scores: list[float] = Field(default_factory=list)
    notes: dict[str, Any] = Field(default_factory=dict)


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


@dataclass(frozen=True)
class CacheScope:
    """What must match before a cache may answer with a stored answer: the pipeline's config hash,
    the version of the corpus its index was built from, the request filters and the question's
    language. A cache stores each answer under its scope and looks up only within the same one."""

    config_hash: str
    corpus_version: str
    filters: Mapping[str, Any] = field(default_factory=dict)
    language: str = ""

    @property
    def key(self) -> str:
        """A short hash of the whole scope (filters in canonical order)."""
        blob = json.dumps([self.config_hash, self.corpus_version, dict(self.filters), self.language],
                          sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class CacheHit:
    """What a cache's ``lookup`` returns: the stored answer and how it matched."""

    answer: Answer
    similarity: float
    original_question: str
    stored: str = ""


@dataclass(frozen=True)
class TokenEvent:
    """A piece of the answer text, as the generator streams it."""

    text: str
    kind: str = "token"


@dataclass(frozen=True)
class ThinkingEvent:
    """A piece of a reasoning model's thinking (its ``<think>`` text): streamed apart from the
    answer, never part of the answer text or the sentence check."""

    text: str
    kind: str = "thinking"


@dataclass(frozen=True)
class ProgressEvent:
    """The pipeline reached a step: ``step`` is ``retrieving``, ``hop``, ``filtering``,
    ``reranking``, ``refusal_check``, ``generating`` or ``checking``; ``detail`` says more (e.g.
    the hop's query)."""

    step: str
    detail: str = ""
    kind: str = "progress"


@dataclass(frozen=True)
class AnswerEvent:
    """The final :class:`Answer` (checked citations, sentence verdicts, trace); always last."""

    answer: Answer
    kind: str = "answer"


@dataclass(frozen=True)
class ErrorEvent:
    """The pipeline failed (e.g. the LLM timed out); ``message`` says what to do next. Last event."""

    message: str
    error: Exception | None = None
    kind: str = "error"


#: What :meth:`criss_rag.engine.Engine.ask_stream` yields.
StreamEvent = TokenEvent | ThinkingEvent | ProgressEvent | AnswerEvent | ErrorEvent


def text_node(node_id: str, text: str, **metadata: Any) -> TextNode:
    """A ``TextNode`` with ``doc_id`` metadata set, the shape chunkers produce."""
    metadata.setdefault("doc_id", node_id)
    return TextNode(id_=node_id, text=text, metadata=metadata)


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
