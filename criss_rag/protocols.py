"""One typed ``Protocol`` per component kind.

Hooks (see :mod:`criss_rag.hookspecs`) only register factories; the objects those factories build
must satisfy these protocols. A type checker can verify a component against them, which pluggy
cannot do for hook implementations.
"""

from __future__ import annotations

import difflib
import functools
import inspect
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from llama_index.core.schema import BaseNode, Document, NodeWithScore, TextNode
from llama_index.core.storage.docstore import BaseDocumentStore

from criss_rag.errors import PluginError
from criss_rag.types import (
    Answer,
    CacheHit,
    CacheScope,
    Context,
    FilterOutcome,
    Generation,
    Hit,
    JudgeVerdict,
    Query,
    Refusal,
    SentenceSupport,
)


@runtime_checkable
class Loader(Protocol):
    """Reads a corpus source into documents with stable ``doc_id`` s.

    Skipped items: a loader that leaves out an input item (an empty body, an unreadable file, a
    record missing a field when configured to be lenient) records it in ``self.skipped``, a
    ``list[tuple[str, str]]`` of ``(item, reason)`` (e.g. ``("corpus.csv:14", "empty text")``),
    reset at the start of each ``load()``; the ingest summary lists them. Optional: ``warnings``,
    a list of ``(item, message)`` met while reading (e.g. a PDF library's), listed as the ingest
    report's warnings; ``path_key``, the config key the "no documents" hint names (default
    ``loader.path``). Optional: a
    ``fingerprint() -> str`` that changes with the corpus (e.g. a file hash) spares a full load
    when the index is up to date.
    """

    def load(self) -> Iterable[Document]: ...


@runtime_checkable
class Chunker(Protocol):
    """Splits documents into chunks that keep ``doc_id`` and the document's metadata."""

    def chunk(self, documents: Sequence[Document]) -> list[TextNode]: ...


@runtime_checkable
class Analyzer(Protocol):
    """Turns text into index terms."""

    def analyze(self, text: str) -> list[str]: ...


@runtime_checkable
class QueryTransform(Protocol):
    """Returns the query with ``retrieval_text`` rewritten (the question text itself unchanged)."""

    def transform(self, query: Query) -> Query: ...


@runtime_checkable
class HopPolicy(Protocol):
    """Given the candidates so far, returns a follow-up retrieval text, or ``None`` to stop."""

    def next_query(self, query: Query, hits: list[Hit], hop: int) -> str | None: ...


@runtime_checkable
class Retriever(Protocol):
    """Owns an index: builds it at ingest, loads it at query time, retrieves from it.

    Optional: ``update(added, removed_ids, directory) -> bool | None`` for incremental ingest.
    ``directory`` holds a private copy of the files the last ``build``/``update`` wrote; change
    them in place so that they index the chunks they indexed before, minus ``removed_ids``, plus
    ``added`` (an id can be in both: a changed document kept its chunk ids; remove first).
    Return ``False`` to ask for a whole ``build`` instead (set ``rebuild_reason`` to say why).
    A retriever without ``update`` is rebuilt whole from every chunk on each changed ingest; the
    ingest summary names it.

    Optional: ``trace_notes(query) -> Mapping[str, Any]``, what the trace should show about how
    this retriever searched for ``query`` (e.g. the filter expression it pushed down to a
    database); the engine adds it to the retrieve stage's ``notes``.

    Optional: ``retrieve_ids(query, top_k) -> list[tuple[str, float]]``, what ``retrieve`` returns
    as ``(chunk id, score)`` pairs (float scores; ids of chunks in the docstore ``load`` was given);
    the engine calls it instead of ``retrieve`` when present, and makes hits only for what fusion
    keeps (:mod:`criss_rag.ranked`).
    """

    def build(self, nodes: Sequence[BaseNode], directory: Path) -> None: ...

    def load(self, directory: Path, docstore: BaseDocumentStore) -> None: ...

    def retrieve(self, query: Query, top_k: int) -> list[NodeWithScore]: ...


@runtime_checkable
class IncrementalRetriever(Retriever, Protocol):
    """A :class:`Retriever` that can update its index in place (see ``Retriever``)."""

    def update(self, added: Sequence[BaseNode], removed_ids: Sequence[str], directory: Path) -> bool | None: ...


@runtime_checkable
class Fusion(Protocol):
    """Merges several retrievers' ranked lists (keyed by retriever label) into one.

    Optional: ``fuse_ids(query, ranked: Mapping[str, list[tuple[str, float]]])``, the same over each
    retriever's ``(chunk id, score)`` pairs (a pair's signals: ``{label: score}``), returning
    ``(chunk id, fused score, signals)`` for the kept candidates, best first; the engine calls it
    instead of ``fuse`` when present and makes their hits (:mod:`criss_rag.ranked`).
    """

    def fuse(self, query: Query, ranked: Mapping[str, list[Hit]]) -> list[Hit]: ...


@runtime_checkable
class Filter(Protocol):
    """Keeps the candidates that satisfy a constraint.

    Return a :class:`~criss_rag.types.FilterOutcome` to tell the trace why candidates went. A filter
    that reads a metadata field may also define ``check_corpus(nodes) -> str | None``: the engine
    calls it at ingest and when opening an index; it raises ``ConfigError`` when the corpus lacks
    what the filter needs, or (when configured to be lenient) returns a warning the trace keeps.
    A configured filter is never silently a no-op.
    """

    def apply(self, query: Query, hits: list[Hit]) -> list[Hit] | FilterOutcome: ...


@runtime_checkable
class Reranker(Protocol):
    """Re-scores and re-orders candidates."""

    def rerank(self, query: Query, hits: list[Hit]) -> list[Hit]: ...


@runtime_checkable
class RefusalPolicy(Protocol):
    """Returns a :class:`Refusal` when the evidence is not strong enough, else ``None``.

    Optional: ``trace_notes(query, hits) -> Mapping[str, Any]``, added to the ``refusal`` stage's
    trace notes, e.g. ``{"skipped_checks": [...]}`` for a check the policy left out and why
    (``criss-rag ask --trace`` prints ``skipped_checks``)."""

    def decide(self, query: Query, hits: list[Hit]) -> Refusal | None: ...


@runtime_checkable
class ContextBuilder(Protocol):
    """Numbers the evidence the generator may cite."""

    def build(self, query: Query, hits: list[Hit]) -> Context: ...


@runtime_checkable
class Generator(Protocol):
    """Writes the answer from the context, citing evidence as ``[n]``.

    Optional: ``stream(query, context)``, a generator of text pieces that may ``return`` the final
    :class:`~criss_rag.types.Generation` (model, usage, refusal); ``Engine.ask_stream`` uses it.
    Without it, streaming yields the whole ``generate()`` text as one piece.

    A generator that may turn its answer into a refusal (``Generation.refusal``, e.g. the model
    said the evidence is insufficient) should define ``may_decline(text, context) -> bool``: whether
    the answer streamed so far may still become one. The engine shows no streamed text while it is
    true; a streaming generator without it is treated as able to decline until its stream ends
    (its answer is shown once, when complete). A refusal shows the engine's fixed message in the
    question's language; the generator's message and text go to the trace, marked unchecked.
    """

    def generate(self, query: Query, context: Context) -> Generation: ...


@runtime_checkable
class Verifier(Protocol):
    """Judges answer sentences against the numbered evidence.

    ``sentences`` arrive with ``text``, ``cited`` and ``invalid_citations`` set; return them in the
    same order with ``supported``, ``score``, ``evidence`` and ``method`` filled in
    (``sentence.model_copy(update={...})``).
    """

    def verify(self, query: Query, sentences: Sequence[SentenceSupport], context: Context) -> list[SentenceSupport]: ...


@runtime_checkable
class AnswerCache(Protocol):
    """Answers a question again from an earlier answer of the same scope.

    ``lookup`` runs before retrieval and returns a :class:`~criss_rag.types.CacheHit` only for an
    entry stored under an equal ``scope`` (same config hash, corpus version, filters, language)
    that the cache judges to be the same question; ``store`` runs after each new answer (the
    cache decides what to keep, e.g. no refusals). Both may be called from several threads.
    Optional: ``trace_notes(query, scope) -> Mapping[str, Any]``, what the ``cache`` stage of the
    trace should show (e.g. the facets of the question that a stored one must share).
    """

    def lookup(self, query: Query, scope: CacheScope) -> CacheHit | None: ...

    def store(self, query: Query, scope: CacheScope, answer: Answer) -> None: ...


@runtime_checkable
class Judge(Protocol):
    """Grades an answer: a :class:`~criss_rag.types.JudgeVerdict` (scores, flags, rationale, and
    ``parse_failed`` when its reply could not be read), or plain named scores (flags as 0/1)."""

    def judge(self, question: Mapping[str, Any], answer: Answer) -> JudgeVerdict | Mapping[str, float]: ...


@runtime_checkable
class Metric(Protocol):
    """Computes named values for one evaluated question.

    During ``criss-rag eval run`` the ``question`` mapping also carries ``_evidence`` (the
    numbered passages the generator saw), ``_retrieved`` (the ranked candidates) and ``_gold``; a
    value that does not apply to a question is left out, never given as 0 or NaN. A metric may also
    define ``describe() -> str`` (its model and settings), which the report prints, and its factory
    an ``outputs`` tuple (the value names it can return), so that loading an experiment catches two
    unlabelled metrics that return the same value before any question runs, and an
    ``about_refusals`` tuple: the outputs that measure the refusal itself (``refused``, a caution
    label). The report scores a refused question on those only; every other value of a refused
    question is left out (``criss_rag.evaluation.report_inputs.REFUSED_RULE``).
    """

    def compute(self, question: Mapping[str, Any], answer: Answer) -> Mapping[str, float]: ...


@runtime_checkable
class Executor(Protocol):
    """Runs batch work on workers (processes, machines) instead of in this process.

    ``setup`` is a picklable zero-argument callable; each worker calls it once to build the batch
    function (an embedding model, an engine) from the same config, then applies that function to
    batches. Yield each batch's results (a list) as it finishes, in any order: results carry their
    own keys. Optional: ``close()``, called when the command is done.
    """

    def map_batches(self, setup: Callable[[], Callable[[list[Any]], list[Any]]],
                    batches: Sequence[list[Any]]) -> Iterator[list[Any]]: ...


#: the Protocol each kind's components satisfy, checked when a pipeline builds one (embeddings and
#: LLMs are LlamaIndex ``BaseEmbedding`` / ``LLM`` objects, which their base classes already define)
BY_KIND: dict[str, type] = {
    "loader": Loader, "chunker": Chunker, "analyzer": Analyzer, "query_transform": QueryTransform,
    "hop_policy": HopPolicy, "retriever": Retriever, "fusion": Fusion, "filter": Filter, "reranker": Reranker,
    "refusal": RefusalPolicy, "context": ContextBuilder, "generator": Generator, "verifier": Verifier,
    "cache": AnswerCache, "judge": Judge, "metric": Metric, "executor": Executor,
}


@functools.cache
def protocol_methods(protocol: type) -> dict[str, list[str]]:
    """The methods ``protocol`` requires (its own and inherited), each with its parameter names."""
    methods: dict[str, list[str]] = {}
    for cls in reversed(protocol.__mro__):
        if cls is object or cls is Protocol or not getattr(cls, "_is_protocol", False):
            continue
        for name, value in vars(cls).items():
            if callable(value) and not name.startswith("_"):
                methods[name] = list(inspect.signature(value).parameters)[1:]
    return methods


def protocol_problems(component: object, protocol: type) -> list[str]:
    """What keeps ``component`` from satisfying ``protocol``: each required method that is missing
    (with the near names it has instead) or that cannot take the arguments the engine passes."""
    problems: list[str] = []
    for name, params in protocol_methods(protocol).items():
        call = f"{name}({', '.join(params)})"
        method = getattr(component, name, None)
        if not callable(method):
            own = [n for n in dir(component) if not n.startswith("_") and callable(getattr(component, n, None))]
            near = difflib.get_close_matches(name, own, n=2, cutoff=0.6)
            hint = f" (it has {', '.join(f'`{n}`' for n in near)}: a misspelt name?)" if near else ""
            problems.append(f"no method `{call}`{hint}")
            continue
        try:
            signature = inspect.signature(method)
        except (TypeError, ValueError):  # a builtin or C callable: nothing to read
            continue
        try:
            signature.bind(*params)
        except TypeError as exc:
            problems.append(f"`{name}{signature}` cannot be called as `{call}` ({exc})")
    return problems


def check_protocol(stage: str, spec: Any, component: object) -> None:
    """Raise a :class:`~criss_rag.errors.PluginError` naming the plugin, the component, each missing
    or unusable method and the Protocol, when ``component`` does not satisfy its kind's Protocol
    (``spec`` is the component's :class:`~criss_rag.registry.ComponentSpec`)."""
    protocol = BY_KIND.get(spec.kind)
    problems = protocol_problems(component, protocol) if protocol is not None else []
    if protocol is not None and problems:
        made = f"{type(component).__module__}.{type(component).__qualname__}"
        raise PluginError(
            f"stage {stage}: {spec.kind} {spec.name!r} of plugin {spec.plugin!r} does not satisfy the "
            f"{protocol.__name__} protocol (criss_rag.protocols.{protocol.__name__}), which the engine calls: "
            f"{'; '.join(problems)}. Its factory returned a {made}: fix the component in the plugin "
            "(docs/plugin-hooks.md shows each kind's methods)."
        )
