"""The values that flow between pipeline stages: the question (:class:`Query`), the candidates
(:class:`Hit`), a filter's accounting, the numbered evidence (:class:`Context`), a refusal and a
generator's output. Plain dataclasses holding LlamaIndex types."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from llama_index.core.schema import BaseNode, NodeWithScore, TextNode
from pydantic import BaseModel


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


def text_node(node_id: str, text: str, **metadata: Any) -> TextNode:
    """A ``TextNode`` with ``doc_id`` metadata set, the shape chunkers produce."""
    metadata.setdefault("doc_id", node_id)
    return TextNode(id_=node_id, text=text, metadata=metadata)
