"""Test helpers for criss_rag and its plugin authors: fake components of every kind, a tiny
corpus, a plugin host with extra plugins, and a one-call way to run a pipeline from YAML text.

Example::

    from criss_rag.testing import TINY_CORPUS, run_pipeline

    def test_my_generator(tmp_path):
        answer = run_pipeline(YAML, "What is liver cancer?", tmp_path, plugins={"mine": my_plugin})
        assert answer.citations
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any, AnyStr

from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.llms import CompletionResponse, CustomLLM, LLMMetadata
from llama_index.core.llms.callbacks import llm_completion_callback
from llama_index.core.schema import BaseNode, Document, MetadataMode, NodeWithScore, TextNode
from llama_index.core.storage.docstore import BaseDocumentStore
from pydantic import BaseModel, ConfigDict, Field

from criss_rag import hookimpl
from criss_rag.config import parse_pipeline_text
from criss_rag.config.model import NOT_IN_INDEX_KEY
from criss_rag.context import ComponentContext
from criss_rag.engine import Engine
from criss_rag.indexing.ingestion import ingest
from criss_rag.language.text import split_sentences
from criss_rag.pipeline import Pipeline
from criss_rag.plugins import PluginHost
from criss_rag.types import (
    Answer,
    CacheHit,
    CacheScope,
    Context,
    Generation,
    Hit,
    JudgeVerdict,
    Query,
    Refusal,
    SentenceSupport,
)

#: Six short documents, one per cancer of the Korean system, written for tests.
TINY_CORPUS: list[dict[str, str]] = [
    {
        "doc_id": "liver",
        "title": "Liver cancer",
        "text": "Liver cancer starts in liver cells. Hepatitis B infection raises the risk of liver cancer.",
    },
    {
        "doc_id": "colorectal",
        "title": "Colorectal cancer",
        "text": "Colorectal cancer grows in the colon or rectum. A colonoscopy can find colorectal polyps early.",
    },
    {
        "doc_id": "gastric",
        "title": "Stomach cancer",
        "text": "Stomach cancer begins in the stomach lining. Endoscopy is the main test for stomach cancer.",
    },
    {
        "doc_id": "breast",
        "title": "Breast cancer",
        "text": "Breast cancer forms in breast tissue. Mammography screening finds breast cancer early.",
    },
    {
        "doc_id": "pancreatic",
        "title": "Pancreatic cancer",
        "text": "Pancreatic cancer often causes jaundice. Pancreatic cancer is hard to find early.",
    },
    {
        "doc_id": "lung",
        "title": "Lung cancer",
        "text": "Lung cancer is linked to smoking. A persistent cough can be a sign of lung cancer.",
    },
]

#: :data:`TINY_CORPUS` plus three short documents in Korean (liver cancer, ``liver-ko``), Japanese
#: (lung cancer, ``lung-ja``) and Chinese (liver cancer, ``liver-zh``), for tests in four languages.
MULTILINGUAL_CORPUS: list[dict[str, str]] = [
    *TINY_CORPUS,
    {
        "doc_id": "liver-ko",
        "title": "간암",
        "text": "간암은 간세포에서 시작되는 암입니다. B형 간염 바이러스에 감염되면 간암 위험이 높아집니다.",
    },
    {
        "doc_id": "lung-ja",
        "title": "肺がん",
        "text": "肺がんは喫煙と強く関係しています。長引くせきは肺がんの症状のことがあります。",
    },
    {"doc_id": "liver-zh", "title": "肝癌", "text": "乙型肝炎病毒感染会增加肝癌的风险。肝癌起源于肝细胞。"},
]


def write_jsonl(path: Path, documents: list[dict[str, str]]) -> Path:
    """``documents`` written to ``path`` as JSON lines (UTF-8, one document a line), for a ``jsonl`` loader."""
    path.write_text("\n".join(json.dumps(d, ensure_ascii=False) for d in documents) + "\n", encoding="utf-8")
    return path


_TOKEN = re.compile(r"\w+")


def _terms(text: str) -> list[str]:
    return [t for t in _TOKEN.findall(text.lower()) if len(t) > 2]


class FakeLoader:
    """Documents given inline in the config (``documents: [{doc_id, title, text}]``); a record
    without ``text`` is skipped and listed in ``skipped`` with the reason."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        # the content, not the source: a changed list updates the same index (as an edited file would)
        documents: list[dict[str, str]] = Field(default_factory=lambda: list(TINY_CORPUS),
                                                json_schema_extra=NOT_IN_INDEX_KEY)

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.skipped: list[tuple[str, str]] = []

    def load(self) -> Iterator[Document]:
        self.skipped = []
        for record in self.params.documents:
            doc_id = record["doc_id"]
            if "text" not in record:
                self.skipped.append((doc_id, "no text"))
                continue
            yield Document(
                id_=doc_id, text=record["text"], metadata={"doc_id": doc_id, "title": record.get("title", "")}
            )


class FakeChunker:
    """One chunk per sentence."""

    def __init__(self, params: BaseModel, ctx: ComponentContext) -> None:
        pass

    def chunk(self, documents: Sequence[Document]) -> list[TextNode]:
        return [
            TextNode(id_=f"{doc.doc_id}#{i}", text=sentence, metadata=dict(doc.metadata))
            for doc in documents
            for i, sentence in enumerate(split_sentences(doc.text))
        ]


class HashEmbedding(BaseEmbedding):
    """Deterministic hashed bag-of-words vectors: offline, instant, good enough for tests."""

    dim: int = 64

    def _vector(self, text: str) -> list[float]:
        vec = [0.0] * self.dim
        for term in _terms(text):
            vec[int(hashlib.md5(term.encode()).hexdigest(), 16) % self.dim] += 1.0
        norm = math.sqrt(sum(v * v for v in vec)) or 1.0
        return [v / norm for v in vec]

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._vector(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._vector(text)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._vector(query)


def hash_embedding(params: BaseModel, ctx: ComponentContext) -> HashEmbedding:
    """Hashed bag-of-words embedding (tests only)."""
    return HashEmbedding(model_name="fake-hash")


class CountingEmbedding(HashEmbedding):
    """:class:`HashEmbedding` that records every text it embeds in its own ``texts`` list and
    sleeps ``delay_s`` per batch (to make an ingest slow enough to interrupt). Each pipeline builds
    its own instance: read what an ingest embedded with ``pipeline.embedding(requested_by="test").texts``."""

    texts: list[str] = Field(default_factory=list, exclude=True)
    delay_s: float = 0.0

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        delay_s: float = Field(0.0, ge=0, description="seconds to sleep per embedded batch",
                               json_schema_extra=NOT_IN_INDEX_KEY)  # speed, not vectors

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        if self.delay_s:
            time.sleep(self.delay_s)
        self.texts.extend(texts)
        return [self._vector(text) for text in texts]

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._get_text_embeddings([text])[0]


def counting_embedding(params: CountingEmbedding.Params, ctx: ComponentContext) -> CountingEmbedding:
    """Counting (and optionally slow) hashed embedding (tests only); same vectors as ``fake-hash``."""
    return CountingEmbedding(model_name="fake-hash", delay_s=params.delay_s)


counting_embedding.Params = CountingEmbedding.Params  # type: ignore[attr-defined]  # what the registry validates


class FakeAnalyzer:
    """Lowercase words of three letters or more."""

    def __init__(self, params: BaseModel, ctx: ComponentContext) -> None:
        pass

    def analyze(self, text: str) -> list[str]:
        return _terms(text)


class KeywordRetriever:
    """Scores chunks by shared words (or by embedding cosine with ``dense: true``)."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        dense: bool = False

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.embedding = ctx.embedding() if params.dense else None
        self._nodes: list[BaseNode] = []
        self._vectors: dict[str, list[float]] = {}

    def build(self, nodes: Sequence[BaseNode], directory: Path) -> None:
        data: dict[str, Any] = {"ids": [n.node_id for n in nodes]}
        if self.embedding is not None:
            data["vectors"] = [self.embedding.get_text_embedding(n.get_content(MetadataMode.EMBED)) for n in nodes]
        (directory / "keyword.json").write_text(json.dumps(data), encoding="utf-8")

    def load(self, directory: Path, docstore: BaseDocumentStore) -> None:
        data = json.loads((directory / "keyword.json").read_text(encoding="utf-8"))
        self._nodes = [docstore.get_node(i) for i in data["ids"]]
        self._vectors = dict(zip(data["ids"], data.get("vectors", []), strict=False))

    def retrieve(self, query: Query, top_k: int) -> list[NodeWithScore]:
        if self.embedding is not None:
            q = self.embedding.get_query_embedding(query.search_text)
            scored = [(sum(a * b for a, b in zip(q, self._vectors[n.node_id], strict=True)), n) for n in self._nodes]
        else:
            words = set(_terms(query.search_text))
            scored = [(float(len(words & set(_terms(n.get_content())))), n) for n in self._nodes]
        scored = [(s, n) for s, n in scored if s > 0]
        scored.sort(key=lambda item: -item[0])
        return [NodeWithScore(node=n, score=s) for s, n in scored[:top_k]]


class TopFusion:
    """Interleaves the ranked lists (first of each, then second of each, ...)."""

    def __init__(self, params: BaseModel, ctx: ComponentContext) -> None:
        pass

    def fuse(self, query: Query, ranked: Mapping[str, list[Hit]]) -> list[Hit]:
        seen: dict[str, Hit] = {}
        for rank in range(max((len(v) for v in ranked.values()), default=0)):
            for hits in ranked.values():
                if rank < len(hits):
                    seen.setdefault(hits[rank].node_id, hits[rank])
        return list(seen.values())


class DropDocFilter:
    """Drops the candidates of one document."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        doc_id: str

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params

    def apply(self, query: Query, hits: list[Hit]) -> list[Hit]:
        return [h for h in hits if h.doc_id != self.params.doc_id]


class ReverseReranker:
    """Reverses the order (so tests can see a reranker ran)."""

    def __init__(self, params: BaseModel, ctx: ComponentContext) -> None:
        pass

    def rerank(self, query: Query, hits: list[Hit]) -> list[Hit]:
        return list(reversed(hits))


class MinScoreRefusal:
    """Refuses when the top score is below ``min_score``."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        min_score: float = 1.0

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params

    def decide(self, query: Query, hits: list[Hit]) -> Refusal | None:
        best = max((h.score for h in hits), default=0.0)
        if best < self.params.min_score:
            return Refusal("weak_evidence", f"top score {best} < {self.params.min_score}", "insufficient evidence")
        return None


class AllContext:
    """Numbers every candidate."""

    def __init__(self, params: BaseModel, ctx: ComponentContext) -> None:
        pass

    def build(self, query: Query, hits: list[Hit]) -> Context:
        from criss_rag.types import Evidence

        evidence = tuple(Evidence(i + 1, h, h.text) for i, h in enumerate(hits))
        return Context(evidence, "\n".join(f"[{e.number}] {e.text}" for e in evidence))


class EchoGenerator:
    """Quotes evidence [1] and cites it; ``cite`` changes the marker (e.g. ``99`` or ``none``).

    ``calls`` counts this instance's generate() calls, so tests can check that a refusal calls no
    generator: read it from the pipeline that answered, ``engine.pipeline.one("generator").calls``.
    """

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        cite: str = "1"

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.calls = 0

    def generate(self, query: Query, context: Context) -> Generation:
        self.calls += 1
        first = context.evidence[0].text if context.evidence else ""
        marker = "" if self.params.cite == "none" else f" [{self.params.cite}]"
        return Generation(text=f"{first}{marker}", model="fake-echo")


class FakeLLM(CustomLLM):
    """A LlamaIndex LLM that answers every prompt with ``reply`` and records the prompts."""

    reply: str = "fake reply [1]"
    prompts: list[str] = []

    @property
    def metadata(self) -> LLMMetadata:
        return LLMMetadata(model_name="fake-llm", is_chat_model=False)

    @llm_completion_callback()
    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> CompletionResponse:
        self.prompts.append(prompt)
        return CompletionResponse(text=self.reply)

    @llm_completion_callback()
    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        self.prompts.append(prompt)

        def gen() -> Iterator[CompletionResponse]:
            text = ""
            for word in self.reply.split(" "):
                delta = word if not text else " " + word
                text += delta
                yield CompletionResponse(text=text, delta=delta)

        return gen()


class FakeLLMParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    reply: str = "fake reply [1]"


def fake_llm(params: FakeLLMParams, ctx: ComponentContext) -> FakeLLM:
    """An LLM that always gives the same reply (tests only)."""
    return FakeLLM(reply=params.reply, prompts=[])


fake_llm.Params = FakeLLMParams  # type: ignore[attr-defined]


class SuffixTransform:
    """Appends ``suffix`` to what retrieval searches for."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        suffix: str = "cancer"

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params

    def transform(self, query: Query) -> Query:
        return replace(query, retrieval_text=f"{query.search_text} {self.params.suffix}")


class ScriptedHops:
    """Follows the listed queries, one per hop, then stops."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        queries: list[str] = Field(default_factory=list)

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params

    def next_query(self, query: Query, hits: list[Hit], hop: int) -> str | None:
        return self.params.queries[hop - 1] if hop <= len(self.params.queries) else None


class SharedWordVerifier:
    """Supports a sentence when it shares a word of three letters or more with its cited evidence."""

    def __init__(self, params: BaseModel, ctx: ComponentContext) -> None:
        pass

    def verify(self, query: Query, sentences: Sequence[SentenceSupport], context: Context) -> list[SentenceSupport]:
        out = []
        for sentence in sentences:
            words = set(_terms(sentence.text))
            shared = [n for n in sentence.cited if words & set(_terms(context.by_number(n).text))]  # type: ignore[union-attr]
            out.append(sentence.model_copy(update={"supported": bool(shared), "score": float(bool(shared)),
                                                   "evidence": shared[0] if shared else None, "method": "fake"}))
        return out


class ExactCache:
    """Remembers answers in memory: a hit needs the same question (case and spacing aside) and the
    same scope; refusals are not stored."""

    def __init__(self, params: BaseModel, ctx: ComponentContext) -> None:
        self.entries: dict[tuple[str, str], tuple[str, Answer]] = {}

    @staticmethod
    def _key(query: Query, scope: CacheScope) -> tuple[str, str]:
        return scope.key, " ".join(query.text.lower().split())

    def lookup(self, query: Query, scope: CacheScope) -> CacheHit | None:
        found = self.entries.get(self._key(query, scope))
        return CacheHit(found[1], 1.0, found[0]) if found else None

    def store(self, query: Query, scope: CacheScope, answer: Answer) -> None:
        if not answer.refused:
            self.entries[self._key(query, scope)] = (query.text, answer)


class FakeJudge:
    """Scores ``grounded`` 1.0 when the answer cites something, else 0.0, and raises the flag
    ``uncited`` when it cites nothing (a typed :class:`~criss_rag.types.JudgeVerdict`)."""

    def __init__(self, params: BaseModel, ctx: ComponentContext) -> None:
        pass

    def judge(self, question: Mapping[str, Any], answer: Answer) -> JudgeVerdict:
        cited = bool(answer.citations)
        return JudgeVerdict(judge="fake-judge", scores={"grounded": 1.0 if cited else 0.0},
                            flags={"uncited": not cited}, rationale="counts citations")


class FakeMetric:
    """Answer length in characters."""

    def __init__(self, params: BaseModel, ctx: ComponentContext) -> None:
        pass

    def compute(self, question: Mapping[str, Any], answer: Answer) -> Mapping[str, float]:
        return {"answer_chars": float(len(answer.text))}


class InlineExecutor:
    """Runs the batches in this process, like the local behaviour, and counts them."""

    def __init__(self, params: BaseModel, ctx: ComponentContext) -> None:
        self.batches = 0

    def map_batches(self, setup: Any, batches: Sequence[list[Any]]) -> Iterator[list[Any]]:
        work = setup()
        for batch in batches:
            self.batches += 1
            yield work(batch)


def _make_fake_plugin() -> SimpleNamespace:
    registrations: dict[str, list[tuple[str, Any]]] = {
        "register_loaders": [("fake-loader", FakeLoader)],
        "register_chunkers": [("fake-chunker", FakeChunker)],
        "register_embeddings": [("fake-hash", hash_embedding), ("fake-counting", counting_embedding)],
        "register_llms": [("fake-llm", fake_llm)],
        "register_analyzers": [("fake-words", FakeAnalyzer)],
        "register_query_transforms": [("fake-suffix", SuffixTransform)],
        "register_retrievers": [("fake-keyword", KeywordRetriever)],
        "register_fusions": [("fake-interleave", TopFusion)],
        "register_hop_policies": [("fake-hops", ScriptedHops)],
        "register_filters": [("fake-drop-doc", DropDocFilter)],
        "register_rerankers": [("fake-reverse", ReverseReranker)],
        "register_refusal_policies": [("fake-min-score", MinScoreRefusal)],
        "register_context_builders": [("fake-all", AllContext)],
        "register_generators": [("fake-echo", EchoGenerator)],
        "register_verifiers": [("fake-verifier", SharedWordVerifier)],
        "register_caches": [("fake-cache", ExactCache)],
        "register_judges": [("fake-judge", FakeJudge)],
        "register_metrics": [("fake-metric", FakeMetric)],
        "register_executors": [("fake-inline", InlineExecutor)],
    }
    plugin = SimpleNamespace()
    for hook, items in registrations.items():
        def impl(register: Any, items: list[tuple[str, Any]] = items) -> None:
            for name, factory in items:
                register(name, factory)

        impl.__name__ = hook
        setattr(plugin, hook, hookimpl(impl))
    return plugin


#: A plugin registering one fake of every component kind, named ``fake-*``.
fake_plugin = _make_fake_plugin()

#: A complete pipeline of fakes (no index files beyond JSON, no network, no models).
FAKE_PIPELINE_YAML = """\
name: fake
loader: {name: fake-loader}
chunker: {name: fake-chunker}
retrievers: [{name: fake-keyword, top_k: 5}]
refusal: {name: fake-min-score, min_score: 1}
context: {name: fake-all}
generator: {name: fake-echo}
"""


def plugin_host(
    plugins: Mapping[str, Any] | None = None, *, entry_points: bool = False, strict: bool = True
) -> PluginHost:
    """A fresh host with the fake plugin plus ``plugins`` (installed entry points only if asked)."""
    return PluginHost(strict=strict, only=None, use_entry_points=entry_points,
                      extra_plugins={"fake": fake_plugin, **(plugins or {})})


@contextmanager
def registered_plugin(name: str, plugin: Any, *, entry_points: bool = True) -> Iterator[PluginHost]:
    """A host with ``plugin`` registered under ``name`` for the duration of a ``with`` block.

    Hosts are independent, so nothing stays registered afterwards."""
    host = PluginHost(strict=True, only=None, use_entry_points=entry_points, extra_plugins={name: plugin})
    try:
        yield host
    finally:
        for plugin_name in list(host.plugins):
            host.pm.unregister(name=plugin_name)


def replaced(text: AnyStr, old: AnyStr, new: AnyStr, *more: AnyStr) -> AnyStr:
    """``text`` with every ``old`` replaced by ``new`` (then each further ``old, new`` pair in
    ``more``, in order), like ``str.replace`` (``bytes`` too), except that an ``old`` not in the
    text is an error: a fixture edit that silently changed nothing would leave a test checking the
    unedited fixture.

    Example::

        yaml_text = replaced(FAKE_PIPELINE_YAML, "min_score: 1", "min_score: 0")
        yaml_text = replaced(TEMPLATE, "DOCS", json.dumps(docs), "INDEX", "flat")
    """
    if len(more) % 2:
        raise TypeError(f"replaced() takes old/new pairs; the last one, {more[-1]!r}, has no replacement")
    pairs: list[tuple[AnyStr, AnyStr]] = [(old, new)]
    pairs.extend(zip(more[::2], more[1::2], strict=True))
    for old_text, new_text in pairs:
        if old_text not in text:
            more_text = "..." if len(text) > 200 else ""
            raise ValueError(
                f"replaced(): {old_text!r} is not in the text, so replacing it with {new_text!r} would change "
                f"nothing. The fixture no longer reads as the test expects; edit the test to match it. "
                f"The text begins: {text[:200]!r}{more_text}"
            )
        text = text.replace(old_text, new_text)
    return text


def pipeline_from_yaml(yaml_text: str, base_dir: Path, host: PluginHost | None = None,
                       overrides: Sequence[str] = ()) -> Pipeline:
    host = host or plugin_host()
    return Pipeline(parse_pipeline_text(yaml_text, host.registry, base_dir=base_dir, overrides=overrides), host)


def engine_from_yaml(yaml_text: str, base_dir: Path, host: PluginHost | None = None,
                     overrides: Sequence[str] = ()) -> Engine:
    """Ingest (into ``base_dir``) a pipeline given as YAML text and open an engine on it; the
    components it built are ``engine.pipeline.one(stage)`` (e.g. the fake generator's ``calls``)."""
    pipeline = pipeline_from_yaml(yaml_text, base_dir, host, overrides)
    ingest(pipeline)
    return Engine.open(pipeline)


def run_pipeline(yaml_text: str, question: str, base_dir: Path, host: PluginHost | None = None, **ask: Any) -> Answer:
    """Ingest (into ``base_dir``) and answer one question with a pipeline given as YAML text."""
    return engine_from_yaml(yaml_text, base_dir, host).ask(question, **ask)
