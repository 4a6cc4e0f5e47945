"""The values that flow between pipeline stages: the question (:class:`Query`), the candidates
(:class:`Hit`), a filter's accounting, the numbered evidence (:class:`Context`), a refusal and a
generator's output. Plain dataclasses (and :class:`Hit`, a class with slots) holding LlamaIndex types."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

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
M = TypeVar("M", bound=BaseModel)
_NODE_TYPES: set[type] = set()  # classes scored() has seen to be LlamaIndex nodes


def unvalidated(model: type[M], fields: dict[str, Any]) -> M:
    """``model(**fields)`` without pydantic's validation, for values of the fields' types already, made
    on a path that runs for every candidate or stage of every question. Only for models without
    validators that change values, private attributes or extra fields (``NodeWithScore``,
    :class:`~criss_rag.types.StageTrace`): the object is the one validation makes (equal, dumped alike)."""
    made = _NEW(model)
    _SET_DICT(made, "__dict__", fields)
    _SET_FIELDS(made, set(fields))
    _SET_EXTRA(made, None)
    _SET_PRIVATE(made, None)
    return made


def scored(node: BaseNode, score: float | None) -> NodeWithScore:
    """``NodeWithScore(node=node, score=score)`` without pydantic's validation of ``node``.

    A retriever or a fusion builds one per candidate it hands on, and validating a node already
    built took more time than the FAISS search; the object is the same as the validated one (equal,
    dumped alike)."""
    kind = type(node)
    if kind not in _NODE_TYPES:  # isinstance on LlamaIndex's node classes (ABCs) once per class
        if not isinstance(node, BaseNode):
            raise TypeError(f"scored() takes a LlamaIndex node, not {kind.__name__}")
        _NODE_TYPES.add(kind)
    return unvalidated(NodeWithScore, {"node": node, "score": score})


class Hit:
    """A candidate passage: the LlamaIndex node, its current score, and every raw score so far.

    ``signals`` maps a stage label to the score that stage gave, e.g.
    ``{"bm25": 11.2, "faiss": 0.71, "rrf": 0.032}``; refusal policies read calibrated
    signals (a dense cosine) even after fusion has replaced the ranking score.

    ``Hit(node, signals)`` holds a ``NodeWithScore``; :meth:`of` holds the node and its score, and
    makes the ``NodeWithScore`` the first time ``node`` is read (a fusion keeps 30 candidates of
    which a context reads five: the others never need one). Either way the hit reads the same.
    """

    __slots__ = ("_node", "_base", "_score", "signals")

    def __init__(self, node: NodeWithScore, signals: dict[str, float] | None = None) -> None:
        self._node: NodeWithScore | None = node
        self._base: BaseNode | None = None  # set (and _node None) until a lazy hit's node is read
        self._score = 0.0
        self.signals: dict[str, float] = {} if signals is None else signals

    @classmethod
    def of(cls, node: BaseNode, score: float, signals: dict[str, float]) -> Hit:
        """The hit of ``node`` ranked at ``score``; its ``NodeWithScore`` is made when first read."""
        hit = _NEW(cls)
        hit._node, hit._base, hit._score, hit.signals = None, node, score, signals
        return hit

    @property
    def node(self) -> NodeWithScore:
        """The node and its current ranking score, as LlamaIndex passes them."""
        made = self._node
        if made is None:
            made = self._node = scored(self._base, self._score)  # type: ignore[arg-type]
            self._base = None
        return made

    @property
    def base_node(self) -> BaseNode:
        """The LlamaIndex node itself (``node.node``), without making the ``NodeWithScore``."""
        return self._base if self._node is None else self._node.node  # type: ignore[return-value]

    @property
    def node_id(self) -> str:
        return self.base_node.node_id

    @property
    def score(self) -> float:
        return float(self._score) if self._node is None else float(self._node.score or 0.0)

    @property
    def text(self) -> str:
        return self.base_node.get_content()

    @property
    def metadata(self) -> dict[str, Any]:
        return self.base_node.metadata

    @property
    def doc_id(self) -> str:
        """The source document id (falls back to the node id for unchunked nodes)."""
        node = self.base_node
        return str(node.metadata.get("doc_id") or node.ref_doc_id or node.node_id)

    def with_score(self, score: float, label: str | None = None) -> Hit:
        """A copy ranked by ``score``; ``label`` also records it as a signal."""
        signals = dict(self.signals)
        if label:
            signals[label] = score
        return Hit.of(self.base_node, score, signals)

    def __eq__(self, other: object) -> bool:  # as the dataclass it was: same node and signals
        if other.__class__ is not self.__class__:
            return NotImplemented
        return (self.node, self.signals) == (other.node, other.signals)  # (defining __eq__ unsets __hash__)

    def __repr__(self) -> str:
        return f"Hit(node={self.node!r}, signals={self.signals!r})"

    def __getstate__(self) -> tuple[NodeWithScore, dict[str, float]]:  # pickled as Hit(node, signals)
        return self.node, self.signals

    def __setstate__(self, state: tuple[NodeWithScore, dict[str, float]]) -> None:
        self._node, self._base, self._score, self.signals = state[0], None, 0.0, state[1]


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
