"""``criss-rag ingest``: load → diff against the current index → chunk what changed → update (or
rebuild) every retriever → swap the new version in atomically.

An index is keyed by the ingest settings and the corpus *source* (the loader's name and params),
never by the corpus content: a changed corpus updates its index. Each version records its
documents' content hashes (:mod:`criss_rag.indexing.corpus_diff`), so the next ingest re-chunks and
re-embeds only added and changed documents, and takes the chunks of changed and deleted ones out
of every retriever.
"""

from __future__ import annotations

import logging
import shutil
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from llama_index.core.schema import BaseNode, Document, TextNode
from llama_index.core.storage.docstore import SimpleDocumentStore
from llama_index.core.utils import get_tokenizer

from criss_rag.config.model import not_in_index_key
from criss_rag.errors import ComponentError, DataError, IndexStoreError
from criss_rag.indexing.corpus_diff import (
    CorpusDiff,
    DocumentEntry,
    DocumentTable,
    corpus_fingerprint,
    diff_corpus,
    hashes_of,
)
from criss_rag.indexing.disk_space import describe, disk_full, estimate_version_bytes
from criss_rag.indexing.executors import embed_on_executor
from criss_rag.indexing.index_store import IndexLock, IndexStore, Manifest, index_key
from criss_rag.indexing.ingest_report import IngestReport, Progress, token_stats
from criss_rag.pipeline import Pipeline
from criss_rag.version import __version__

DOCSTORE = "docstore.json"
RETRIEVERS = "retrievers"
log = logging.getLogger("criss_rag.ingest")

__all__ = ["DOCSTORE", "IngestReport", "ingest", "load_documents", "open_index", "pipeline_index_key"]


class StaleIndexError(IndexStoreError):
    """The index exists but holds an older version of the corpus."""


def pipeline_index_key(pipeline: Pipeline) -> str:
    """The index key of a pipeline: its ingest settings plus its loader's name and params
    (params marked ``NOT_IN_INDEX_KEY``, e.g. inline documents, left out)."""
    loader_cc = pipeline.config.one("loader")
    source = loader_cc.plan() if loader_cc else {}
    for name in not_in_index_key(loader_cc.params_model_type) if loader_cc else ():
        source.pop(name, None)
    return index_key(pipeline.config.ingest_signature(), source)


def load_documents(pipeline: Pipeline) -> tuple[list[Document], list[tuple[str, str]]]:
    """The loader's documents (ids checked unique) and the items it skipped, with why."""
    loader_cc = pipeline.config.required("loader")
    loader = pipeline.build(loader_cc)
    documents = pipeline.call("loader", loader_cc.name, lambda: list(loader.load()))
    skipped = [(str(item), str(reason)) for item, reason in getattr(loader, "skipped", None) or []]
    if not documents:
        key = getattr(loader, "path_key", "loader.path")  # a loader may name its own key (e.g. manuals[].path)
        raise DataError(
            f"{pipeline.config.source}: the loader found no documents; check `{key}`"
            + (f" ({len(skipped)} items skipped, e.g. {skipped[0][0]}: {skipped[0][1]})" if skipped else "")
        )
    counts = Counter(doc.doc_id for doc in documents)
    dupes = [doc_id for doc_id, n in counts.items() if n > 1]
    if dupes:
        raise DataError(
            f"{pipeline.config.source}: document ids must be unique; repeated: {', '.join(dupes[:5])}"
        )
    return documents, skipped


def _source_fingerprint(pipeline: Pipeline) -> str:
    """The loader's own cheap fingerprint (e.g. a file hash), or "" when it has none."""
    own = getattr(pipeline.one("loader"), "fingerprint", None)
    return str(own()) if callable(own) else ""


def open_index(pipeline: Pipeline) -> tuple[Manifest, Path]:
    """The manifest and folder of the index this pipeline maps to, checked to hold the current
    corpus (a :class:`StaleIndexError` says to run ``criss-rag ingest`` when it does not)."""
    store = IndexStore(pipeline.config.index_dir)
    manifest, directory = store.open(pipeline_index_key(pipeline), pipeline.config.ingest_signature(),
                                     verify=pipeline.config.index_verify == "checksums")
    source = _source_fingerprint(pipeline)
    if source and source == manifest.source_fingerprint:
        return manifest, directory
    documents, _ = load_documents(pipeline)  # no cheap fingerprint, or the file changed: compare content
    current = corpus_fingerprint(hashes_of(documents))
    if current != manifest.corpus_fingerprint:
        raise StaleIndexError(
            f"index at {store.path(manifest.key)} holds corpus version {manifest.corpus_version} "
            f"(fingerprint {manifest.corpus_fingerprint}), but the corpus has changed since (now {current}). "
            "Run `criss-rag ingest CONFIG` (the same --set options) to update it."
        )
    return manifest, directory


@dataclass
class _Previous:
    """The current index version an ingest starts from."""

    manifest: Manifest
    directory: Path
    table: DocumentTable


def _previous(store: IndexStore, key: str, pipeline: Pipeline, progress: Progress) -> _Previous | None:
    if not store.has(key):
        return None
    try:
        manifest, directory = store.open(key, pipeline.config.ingest_signature())
        return _Previous(manifest, directory, DocumentTable.read(directory))
    except IndexStoreError as exc:  # the ingest itself is the remedy: build a new version whole
        progress.note(f"the current index is unusable, rebuilding it whole: {exc}")
        log.warning("rebuilding the index whole: %s", exc)
        return None


def ingest(
    pipeline: Pipeline, *, force: bool = False, executor: Any = None, lock_timeout: float = 600.0
) -> IngestReport:
    """Bring the index of ``pipeline`` up to date with its corpus (``force``: rebuild it whole);
    with an ``executor`` (:mod:`criss_rag.indexing.executors`) the new chunks are embedded there first.
    One writer per index at a time: another ingest of the same index is waited for, at most
    ``lock_timeout`` seconds (:class:`~criss_rag.indexing.index_store.IndexLock`)."""
    progress = Progress(pipeline.show_progress)
    store = IndexStore(pipeline.config.index_dir)
    key = pipeline_index_key(pipeline)

    def note(message: str) -> None:
        progress.note(message)
        log.warning("%s", message)

    with IndexLock(store.root, key, lock_timeout, note) as lock:
        if lock.recovered:
            note(lock.recovered)
        try:
            return _ingest_locked(pipeline, store, key, progress, force, executor)
        except IndexStoreError:
            raise
        except Exception as exc:  # e.g. the embedding cache (in index.dir/.cache) hit a full disk
            full = disk_full(exc)
            if full is None:
                raise
            raise IndexStoreError(
                f"the disk holding {store.root} filled up during ingest ({describe(full)}). Nothing of the new "
                f"version was made current; {store.serving_note(key)} Free some space and re-run ingest."
            ) from exc


def _ingest_locked(pipeline: Pipeline, store: IndexStore, key: str, progress: Progress, force: bool,
                   executor: Any) -> IngestReport:
    started = time.perf_counter()
    previous = _previous(store, key, pipeline, progress)
    source = _source_fingerprint(pipeline)
    if previous and not force and source and source == previous.manifest.source_fingerprint:
        return _up_to_date(store, previous, started)  # the loader vouches nothing changed: no load

    with progress.step("loading documents"):
        documents, skipped = load_documents(pipeline)
    hashes = hashes_of(documents)
    diff = diff_corpus(hashes, previous.table if previous else None)
    if previous and not force and diff.empty:
        if source != previous.manifest.source_fingerprint:  # e.g. the file was touched: remember it
            previous.manifest.source_fingerprint = source
            previous.manifest.write(previous.directory)
        return _up_to_date(store, previous, started, diff, skipped)
    base = previous if previous is not None and not force else None  # the version an incremental build extends
    incremental = base is not None
    progress.note(f"{_counts_text(diff)}" + ("" if incremental else "; building every retriever whole"))

    # 1. chunk the documents that are new or changed (all of them for a whole build)
    fresh_ids = set(diff.added + diff.changed) if incremental else set(hashes)
    to_chunk = [doc for doc in documents if doc.doc_id in fresh_ids]
    with progress.step("chunking"):
        new_chunks, failed = _chunk(pipeline, to_chunk, progress)
    if failed:  # documents the chunker cannot handle are left out of this version and reported
        skipped = [*skipped, *((f"document {doc_id}", reason) for doc_id, reason in failed.items())]
        documents = [doc for doc in documents if doc.doc_id not in failed]
        hashes = {doc_id: h for doc_id, h in hashes.items() if doc_id not in failed}
        fresh_ids -= set(failed)
    by_doc = _chunks_by_document(new_chunks, fresh_ids, pipeline)
    # 2. the chunks that leave every retriever, and the whole new corpus in document order
    removed_ids = base.table.chunk_ids(diff.changed + diff.deleted) if base is not None else []
    with progress.step("reading the current index"):
        kept = _kept_chunks(base, diff.unchanged) if base is not None else {}
    chunks = [c for doc in documents for c in (by_doc.get(doc.doc_id) or kept.get(doc.doc_id, []))]
    if not chunks:
        raise DataError(f"{pipeline.config.source}: the chunker produced no chunks (are the documents empty?)")
    _check_unique_ids(chunks, pipeline)
    warnings = [
        f"{stage}: {warning}" for stage, warning in pipeline.check_corpus(chunks).items()
    ]  # strict filters raise
    warnings = [f"loader: {item}: {message}"  # e.g. pypdf's, instead of raw on stderr
                for item, message in getattr(pipeline.one("loader"), "warnings", None) or []] + warnings
    for warning in warnings:  # the report carries them (`criss-rag ingest` prints it): logged below WARNING,
        log.info("%s", warning)  # so that a warning is shown once, not also by logging's last-resort handler
    table = _new_table(documents, hashes, by_doc, base.table if base is not None else None)
    embedded_before, cached_before = pipeline.embedded_total, pipeline.from_cache_total
    # 3. `new_chunks` is everything this run embeds: computed ahead on an executor (a no-op locally),
    #    the retrievers then take each vector from the embedding cache.
    embed_on_executor(pipeline, new_chunks, executor)
    actions: dict[str, str] = {}
    because: dict[str, str] = {}

    def write_version(directory: Path) -> None:
        with progress.step("writing the docstore"):
            docstore = SimpleDocumentStore()
            docstore.add_documents(chunks)
            docstore.persist(str(directory / DOCSTORE))
            table.write(directory)
        with progress.step("starting the retrievers"):  # (and the embedding model they use)
            retrievers = pipeline.many("retrievers")
        for cc, retriever in retrievers:
            target = directory / RETRIEVERS / cc.label
            old = base.directory / RETRIEVERS / cc.label if base is not None else None
            with progress.step(f"retriever {cc.label}"):
                actions[cc.label] = _index(
                    pipeline, cc, retriever, chunks, new_chunks, removed_ids, old, target, because
                )

    version = (previous.manifest.corpus_version + 1) if previous else 1
    manifest = Manifest(
        key=key,
        config_name=pipeline.config.name,
        config_hash=pipeline.config.config_hash(),
        ingest_signature=pipeline.config.ingest_signature(),
        corpus_fingerprint=table.fingerprint(),
        source_fingerprint=source,
        corpus_version=version,
        documents=len(documents),
        chunks=len(chunks),
        plugins=pipeline.plugin_versions(),
        criss_rag_version=__version__,
    )
    previous_bytes = sum(int(f.get("size", 0)) for f in previous.manifest.files.values()) if previous else 0
    needed = estimate_version_bytes([c.get_content() for c in chunks], len(pipeline.config.many("retrievers")),
                                    previous_bytes, previous.manifest.chunks if previous else 0)
    store.write(manifest, write_version, needed_bytes=needed)
    mean, median = token_stats(table.tokens())
    return IngestReport(
        store.path(key),
        key,
        True,
        len(documents),
        len(chunks),
        mean,
        median,
        time.perf_counter() - started,
        mode="updated" if incremental else "built",
        corpus_version=version,
        corpus_fingerprint=manifest.corpus_fingerprint,
        diff=diff.counts(),
        rechunked=len(to_chunk),
        new_chunks=len(new_chunks),
        removed_chunks=len(removed_ids),
        embedded=pipeline.embedded_total - embedded_before if pipeline.config.one("embedding") else None,
        from_cache=pipeline.from_cache_total - cached_before,
        retrievers=actions,
        rebuilt_because=because,
        skipped=skipped,
        warnings=warnings,
        steps=progress.seconds,
    )


def _index(pipeline: Pipeline, cc: Any, retriever: Any, chunks: list[BaseNode], added: Sequence[BaseNode],
           removed_ids: list[str], old: Path | None, target: Path, because: dict[str, str]) -> str:
    """Update one retriever from its previous files, or build it whole; returns what was done."""
    update = getattr(retriever, "update", None)
    if old is not None and not old.is_dir():
        because[cc.label] = f"its previous files are missing ({old})"
    elif old is not None and callable(update):
        shutil.copytree(old, target)  # a private copy: the current version is never written to
        if pipeline.call(cc.stage, cc.name, update, added, removed_ids, target) is not False:
            return "updated"
        shutil.rmtree(target)
        because[cc.label] = str(getattr(retriever, "rebuild_reason", "") or "it asked for a whole build")
    elif old is not None:
        because[cc.label] = "no incremental update method"
    target.mkdir(parents=True)
    pipeline.call(cc.stage, cc.name, retriever.build, chunks, target)
    return "rebuilt" if old is not None else "built"


def _chunk(pipeline: Pipeline, documents: list[Document], progress: Progress) -> tuple[list[TextNode], dict[str, str]]:
    """Chunk ``documents`` in batches (a chunker's output for one document must not depend on
    the others: incremental ingest chunks only what changed). A batch the chunker fails on is
    chunked again one document at a time; the documents that still fail are returned with why
    (``doc_id -> reason``) instead of stopping the ingest."""
    chunker_cc = pipeline.config.required("chunker")
    chunker = pipeline.build(chunker_cc)
    chunks: list[TextNode] = []
    failed: dict[str, str] = {}
    with progress.bar(len(documents), "chunking", "doc") as bar:
        for start in range(0, len(documents), 256):
            batch = documents[start : start + 256]
            try:
                chunks.extend(pipeline.call("chunker", chunker_cc.name, chunker.chunk, batch))
            except (ComponentError, RecursionError, MemoryError):
                for doc in batch:
                    try:
                        chunks.extend(pipeline.call("chunker", chunker_cc.name, chunker.chunk, [doc]))
                    except (ComponentError, RecursionError, MemoryError) as exc:
                        reason = f"the chunker could not split it ({len(doc.text):,} characters): {exc}"
                        failed[doc.doc_id] = reason[:500]
                        progress.note(f"skipped document {doc.doc_id}: {failed[doc.doc_id]}")
                        log.warning("skipped document %s: %s", doc.doc_id, failed[doc.doc_id])
            bar.update(len(batch))
    missing = [c.node_id for c in chunks if not c.metadata.get("doc_id")]
    if missing:
        raise DataError(
            f"chunker {chunker_cc.name!r} produced chunks without `doc_id` "
            f"metadata (e.g. {missing[0]}); citations could not name their source"
        )
    return chunks, failed


def _chunks_by_document(chunks: list[TextNode], doc_ids: set[str], pipeline: Pipeline) -> dict[str, list[TextNode]]:
    by_doc: dict[str, list[TextNode]] = {}
    for chunk in chunks:
        doc_id = str(chunk.metadata["doc_id"])
        if doc_id not in doc_ids:
            raise DataError(
                f"chunker {pipeline.config.required('chunker').name!r} produced chunk {chunk.node_id!r} with "
                f"doc_id {doc_id!r}, which is not one of the documents it was given; a chunk's `doc_id` "
                "metadata must name the document it came from"
            )
        by_doc.setdefault(doc_id, []).append(chunk)
    return by_doc


def _kept_chunks(previous: _Previous, doc_ids: Sequence[str]) -> dict[str, list[BaseNode]]:
    docstore = SimpleDocumentStore.from_persist_path(str(previous.directory / DOCSTORE))
    try:
        return {d: [docstore.get_node(c) for c in previous.table.entries[d].chunks] for d in doc_ids}
    except ValueError as exc:  # the table names a chunk the docstore lacks
        raise IndexStoreError(
            f"index at {previous.directory} is inconsistent ({exc}); re-run `criss-rag ingest CONFIG --force`"
        ) from None


def _check_unique_ids(chunks: Sequence[BaseNode], pipeline: Pipeline) -> None:
    counts = Counter(c.node_id for c in chunks)
    dupes = [node_id for node_id, n in counts.items() if n > 1]
    if dupes:
        raise DataError(
            f"chunker {pipeline.config.required('chunker').name!r} gave the same chunk id to several chunks "
            f"({', '.join(dupes[:5])}); chunk ids must be unique across the corpus"
        )


def _new_table(documents: list[Document], hashes: dict[str, str], by_doc: dict[str, list[TextNode]],
               previous: DocumentTable | None) -> DocumentTable:
    """The document table of the new version: new entries for re-chunked documents, the previous
    ones (token counts included) for the rest."""
    encode = get_tokenizer()  # cl100k, bundled with llama-index-core: works offline
    entries: dict[str, DocumentEntry] = {}
    for doc in documents:
        chunks = by_doc.get(doc.doc_id)
        if chunks is None and previous is not None and previous.entries.get(doc.doc_id, None) is not None \
                and previous.entries[doc.doc_id].hash == hashes[doc.doc_id]:
            entries[doc.doc_id] = previous.entries[doc.doc_id]
            continue
        chunks = chunks or []
        entries[doc.doc_id] = DocumentEntry(
            hashes[doc.doc_id], [c.node_id for c in chunks], [len(encode(c.get_content())) for c in chunks]
        )
    return DocumentTable(entries)


def _up_to_date(store: IndexStore, previous: _Previous, started: float, diff: CorpusDiff | None = None,
                skipped: list[tuple[str, str]] | None = None) -> IngestReport:
    m = previous.manifest
    store.remove_stale(m.key)  # versions left by a crashed or concurrent writer, even when nothing changed
    mean, median = token_stats(previous.table.tokens())
    unchanged = {"added": 0, "changed": 0, "deleted": 0, "unchanged": m.documents}
    return IngestReport(
        store.path(m.key), m.key, False, m.documents, m.chunks, mean, median, time.perf_counter() - started,
        mode="up-to-date", corpus_version=m.corpus_version, corpus_fingerprint=m.corpus_fingerprint,
        diff=diff.counts() if diff else unchanged, retrievers={label: "unchanged" for label in _labels(previous)},
        skipped=skipped or [],
    )


def _labels(previous: _Previous) -> list[str]:
    folder = previous.directory / RETRIEVERS
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []


def _counts_text(diff: CorpusDiff) -> str:
    return ", ".join(f"{n} {what}" for what, n in diff.counts().items()) + " documents"
