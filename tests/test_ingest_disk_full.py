"""A full disk during ingest (simulated: ENOSPC raised by a write, or too little free space before
it) leaves the previous version current and serving, nothing half-written behind, and an error
that says what filled up."""

from __future__ import annotations

import errno
import shutil
from collections import namedtuple
from pathlib import Path

import pytest

from criss_rag.engine import Engine
from criss_rag.errors import IndexStoreError
from criss_rag.indexing import disk_space
from criss_rag.indexing.ingestion import ingest
from criss_rag.testing import TINY_CORPUS, pipeline_from_yaml, plugin_host, replaced

YAML = """\
name: disk-full
loader: {name: fake-loader, documents: DOCS}
chunker: {name: fake-chunker}
embedding: {name: fake-hash}
retrievers:
  - {name: bm25, top_k: 5}
  - {name: faiss, top_k: 5}
fusion: {name: rrf}
context: {name: fake-all}
generator: {name: fake-echo}
"""
QUESTION = "Which test finds stomach cancer?"
NEW_DOC = {"doc_id": "thyroid", "title": "Thyroid cancer", "text": "Thyroid cancer is found with an ultrasound scan."}
Usage = namedtuple("Usage", "total used free")


def yaml_for(documents: list[dict]) -> str:
    import json

    return replaced(YAML, "DOCS", json.dumps(documents))


@pytest.fixture(scope="module")
def host():
    return plugin_host(entry_points=True)


@pytest.fixture
def served(tmp_path, host):
    """Version 1 built; returns (its folder, its answer)."""
    pipeline = pipeline_from_yaml(yaml_for(TINY_CORPUS), tmp_path, host)
    report = ingest(pipeline)
    return report.index_dir.resolve(), Engine.open(pipeline).ask(QUESTION)


def second_ingest(tmp_path: Path, host):
    """An ingest of a changed corpus (version 2)."""
    return ingest(pipeline_from_yaml(yaml_for([*TINY_CORPUS, NEW_DOC]), tmp_path, host))


def assert_previous_version_serves(tmp_path: Path, host, version: Path, answer) -> None:
    index_root = tmp_path / ".criss_rag" / "index"
    assert [p.name for p in index_root.iterdir() if p.name.startswith(".tmp-")] == []
    assert sorted(p.name for p in index_root.iterdir() if "@v" in p.name) == [version.name]  # nothing half-written
    engine = Engine.open(pipeline_from_yaml(yaml_for(TINY_CORPUS), tmp_path, host))  # checksums verified
    assert engine.index_dir == version and engine.corpus_version == 1
    assert engine.ask(QUESTION).text == answer.text


def enospc(path: str) -> OSError:
    return OSError(errno.ENOSPC, "No space left on device", path)


def test_enospc_while_a_retriever_writes_keeps_the_previous_version(tmp_path, host, served, monkeypatch):
    version, answer = served
    from criss_rag_faiss.retriever import FaissDense

    def full_disk(self, store, ids, next_id, dim, directory):
        (directory / "vectors.faiss").write_bytes(b"\0" * 100)  # a partial file, then the disk is full
        raise enospc(str(directory / "vectors.faiss"))

    monkeypatch.setattr(FaissDense, "_save", full_disk)
    with pytest.raises(IndexStoreError) as err:
        second_ingest(tmp_path, host)
    message = str(err.value)
    assert "filled up" in message and "No space left on device" in message and "vectors.faiss" in message
    assert "corpus version 1" in message and "still the one served" in message
    monkeypatch.undo()
    assert_previous_version_serves(tmp_path, host, version, answer)
    assert second_ingest(tmp_path, host).corpus_version == 2  # once there is room, the same ingest works


def test_enospc_while_the_docstore_is_written(tmp_path, host, served, monkeypatch):
    version, answer = served
    import criss_rag.indexing.ingestion as indexing

    class FullDocstore(indexing.SimpleDocumentStore):
        def persist(self, persist_path: str, fs=None) -> None:  # noqa: ANN001 - LlamaIndex's signature
            raise enospc(persist_path)

    monkeypatch.setattr(indexing, "SimpleDocumentStore", FullDocstore)
    with pytest.raises(IndexStoreError, match=r"filled up.*No space left on device.*docstore\.json"):
        second_ingest(tmp_path, host)
    monkeypatch.undo()
    assert_previous_version_serves(tmp_path, host, version, answer)


def test_enospc_while_the_manifest_is_written(tmp_path, host, served, monkeypatch):
    version, answer = served
    import criss_rag.indexing.index_store as index_store

    def full(path, data):
        raise enospc(str(path))

    monkeypatch.setattr(index_store, "write_json_atomically", full)
    with pytest.raises(IndexStoreError, match=r"filled up.*manifest\.json"):
        second_ingest(tmp_path, host)
    monkeypatch.undo()
    assert_previous_version_serves(tmp_path, host, version, answer)


def test_a_full_embedding_cache_is_reported_as_a_full_disk(tmp_path, host, served, monkeypatch):
    import sqlite3

    version, answer = served
    from criss_rag.indexing.embedding_cache import EmbeddingCache

    def full(self, *args, **kwargs):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(EmbeddingCache, "put_many", full)
    with pytest.raises(IndexStoreError, match="filled up.*database or disk is full"):
        second_ingest(tmp_path, host)
    monkeypatch.undo()
    assert_previous_version_serves(tmp_path, host, version, answer)


def test_too_little_free_space_refuses_before_writing(tmp_path, host, served, monkeypatch):
    version, answer = served
    monkeypatch.setattr(disk_space.shutil, "disk_usage", lambda path: Usage(10**9, 10**9 - 4096, 4096))
    with pytest.raises(IndexStoreError) as err:
        second_ingest(tmp_path, host)
    message = str(err.value)
    assert "not enough free space" in message and "4.0 KiB free" in message and "Nothing was written" in message
    assert "still the one served" in message
    monkeypatch.undo()
    assert_previous_version_serves(tmp_path, host, version, answer)


def test_the_estimate_grows_with_the_corpus_and_follows_the_previous_version():
    small = disk_space.estimate_version_bytes(["x" * 1000] * 10, retrievers=2)
    large = disk_space.estimate_version_bytes(["x" * 1000] * 1000, retrievers=2)
    assert large > small > disk_space.MARGIN_BYTES
    assert large - disk_space.MARGIN_BYTES >= 1000 * 1000 * 6  # docstore ~2x, each retriever ~2x the text
    grown = disk_space.estimate_version_bytes(["x"] * 200, retrievers=2, previous_bytes=10**8, previous_chunks=100)
    assert grown == 2 * 10**8 + disk_space.MARGIN_BYTES


def test_the_real_free_space_is_read_from_the_index_root(tmp_path):
    assert disk_space.free_bytes(tmp_path / "not" / "yet" / "there") == shutil.disk_usage(tmp_path).free
