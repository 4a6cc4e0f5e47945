"""``criss-rag ingest``: load → chunk → build every retriever's index → atomic write."""

from __future__ import annotations

import hashlib
import json
import logging
import statistics
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llama_index.core.schema import Document, TextNode
from llama_index.core.storage.docstore import SimpleDocumentStore
from llama_index.core.utils import get_tokenizer

import criss_rag
from criss_rag.errors import DataError
from criss_rag.executors import embed_on_executor
from criss_rag.index_store import IndexStore, Manifest, index_key
from criss_rag.pipeline import Pipeline

DOCSTORE = "docstore.json"
log = logging.getLogger("criss_rag.ingest")


@dataclass(frozen=True)
class IngestReport:
    """What an ingest did (or found already done)."""

    index_dir: Path
    key: str
    built: bool
    documents: int
    chunks: int
    mean_chunk_tokens: float
    median_chunk_tokens: float
    seconds: float

    def summary(self) -> str:
        if not self.built:
            return f"index up to date: {self.index_dir} ({self.documents} documents, {self.chunks} chunks)"
        return (
            f"indexed {self.documents} documents as {self.chunks} chunks "
            f"(tokens per chunk: mean {self.mean_chunk_tokens:.0f}, median {self.median_chunk_tokens:.0f}) "
            f"in {self.seconds:.1f}s -> {self.index_dir}"
        )


def corpus_fingerprint(pipeline: Pipeline) -> tuple[str, list[Document] | None]:
    """A content hash of the corpus: the loader's own ``fingerprint()`` when it has one (cheap,
    e.g. a file hash), else a hash of the loaded documents (which are then returned for reuse)."""
    loader = pipeline.one("loader")
    own = getattr(loader, "fingerprint", None)
    if callable(own):
        return str(own()), None
    documents = load_documents(pipeline)
    digest = hashlib.sha256()
    for doc in documents:
        digest.update(json.dumps([doc.doc_id, doc.text, doc.metadata], sort_keys=True, default=str).encode())
    return digest.hexdigest()[:16], documents


def load_documents(pipeline: Pipeline) -> list[Document]:
    loader_cc = pipeline.config.one("loader")
    documents = pipeline.call("loader", loader_cc.name, lambda: list(pipeline.build(loader_cc).load()))
    if not documents:
        raise DataError(f"{pipeline.config.source}: the loader found no documents; check `loader.path`")
    counts = Counter(doc.doc_id for doc in documents)
    dupes = [doc_id for doc_id, n in counts.items() if n > 1]
    if dupes:
        raise DataError(
            f"{pipeline.config.source}: document ids must be unique; repeated: {', '.join(dupes[:5])}"
        )
    return documents


def ingest(pipeline: Pipeline, *, force: bool = False, executor: Any = None) -> IngestReport:
    """Build the index; with an ``executor`` (:mod:`criss_rag.executors`) the chunks are embedded there first."""
    started = time.perf_counter()
    store = IndexStore(pipeline.config.index_dir)
    fingerprint, documents = corpus_fingerprint(pipeline)
    signature = pipeline.config.ingest_signature()
    key = index_key(signature, fingerprint)
    if store.has(key) and not force:
        manifest = store.open(key, signature)
        return IngestReport(store.path(key), key, False, manifest.documents, manifest.chunks, 0, 0, 0)
    documents = documents if documents is not None else load_documents(pipeline)
    chunker_cc = pipeline.config.one("chunker")
    chunks = pipeline.call("chunker", chunker_cc.name, pipeline.build(chunker_cc).chunk, documents)
    _check_chunks(chunks, pipeline)
    embed_on_executor(pipeline, chunks, executor)  # vectors into the embedding cache; a no-op locally
    for stage, warning in pipeline.check_corpus(chunks).items():  # a strict filter fails here
        log.warning("%s: %s", stage, warning)

    def build(directory: Path) -> None:
        docstore = SimpleDocumentStore()
        docstore.add_documents(chunks)
        docstore.persist(str(directory / DOCSTORE))
        for cc, retriever in pipeline.many("retrievers"):
            target = directory / "retrievers" / cc.label
            target.mkdir(parents=True)
            pipeline.call(cc.stage, cc.name, retriever.build, chunks, target)

    manifest = Manifest(
        key=key,
        config_name=pipeline.config.name,
        config_hash=pipeline.config.config_hash(),
        ingest_signature=signature,
        corpus_fingerprint=fingerprint,
        documents=len(documents),
        chunks=len(chunks),
        plugins=pipeline.plugin_versions(),
        criss_rag_version=criss_rag.__version__,
    )
    path = store.write(manifest, build)
    tokens = _token_counts(chunks)
    return IngestReport(
        path, key, True, len(documents), len(chunks),
        statistics.fmean(tokens), statistics.median(tokens), time.perf_counter() - started,
    )


def _check_chunks(chunks: Sequence[TextNode], pipeline: Pipeline) -> None:
    if not chunks:
        raise DataError(f"{pipeline.config.source}: the chunker produced no chunks (are the documents empty?)")
    missing = [c.node_id for c in chunks if not c.metadata.get("doc_id")]
    if missing:
        raise DataError(
            f"chunker {pipeline.config.one('chunker').name!r} produced chunks without `doc_id` "
            f"metadata (e.g. {missing[0]}); citations could not name their source"
        )


def _token_counts(chunks: Sequence[TextNode]) -> list[int]:
    encode = get_tokenizer()  # cl100k, bundled with llama-index-core: works offline
    return [len(encode(chunk.get_content())) for chunk in chunks]
