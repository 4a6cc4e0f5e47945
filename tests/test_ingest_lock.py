"""Two ingests of one index never write at once: the second waits for the first (saying whom it
waits for) or refuses clearly when its wait is over; a lock left by a killed ingest is recovered;
version folders a crashed or concurrent writer left are removed by the next ingest."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from llama_index.core.schema import TextNode
from pydantic import BaseModel

from criss_rag import hookimpl
from criss_rag.errors import IndexStoreError
from criss_rag.indexing.index_store import IndexLock, IndexStore
from criss_rag.indexing.ingestion import ingest, pipeline_index_key
from criss_rag.testing import FAKE_PIPELINE_YAML, pipeline_from_yaml, plugin_host, replaced


class _SlowChunker:
    """One chunk per document, after a pause: an ingest that takes long enough to overlap another."""

    calls = 0

    def __init__(self, params: BaseModel, ctx) -> None:
        pass

    def chunk(self, documents):
        type(self).calls += 1
        time.sleep(1.0)
        return [TextNode(id_=f"{doc.doc_id}#0", text=doc.text, metadata=dict(doc.metadata)) for doc in documents]


class _Slow:
    @hookimpl
    def register_chunkers(self, register):
        register("slow", _SlowChunker)


def _pipeline(tmp_path: Path):
    yaml_text = replaced(FAKE_PIPELINE_YAML, "chunker: {name: fake-chunker}", "chunker: {name: slow}")
    return pipeline_from_yaml("index: {dir: idx}\n" + yaml_text, tmp_path, plugin_host({"slow": _Slow()}))


def _versions(tmp_path: Path, key: str) -> list[str]:
    return sorted(p.name for p in (tmp_path / "idx").iterdir() if p.name.startswith(f"{key}@"))


def test_a_second_ingest_waits_for_the_first_and_does_no_work_twice(tmp_path, caplog):
    _SlowChunker.calls = 0
    reports: dict[str, object] = {}

    def run(name: str) -> None:
        reports[name] = ingest(_pipeline(tmp_path))

    first = threading.Thread(target=run, args=("first",))
    with caplog.at_level(logging.WARNING, logger="criss_rag.ingest"):
        first.start()
        time.sleep(0.3)  # the first holds the lock (it is chunking)
        run("second")
        first.join()
    assert reports["first"].mode == "built" and reports["second"].mode == "up-to-date"
    assert _SlowChunker.calls == 1  # the second found the index up to date: nothing chunked twice
    assert any("waiting for another ingest of this index" in r.getMessage() and "pid" in r.getMessage()
               for r in caplog.records)
    key = pipeline_index_key(_pipeline(tmp_path))
    assert len(_versions(tmp_path, key)) == 1  # no orphan version folder


def test_an_ingest_that_cannot_wait_refuses_naming_the_holder(tmp_path):
    pipeline = _pipeline(tmp_path)
    key = pipeline_index_key(pipeline)
    with IndexLock(tmp_path / "idx", key, note=lambda m: None):
        with pytest.raises(IndexStoreError) as err:
            ingest(pipeline, lock_timeout=0.3)
    message = str(err.value)
    assert "another ingest is writing this index" in message and f".lock-{key}" in message and "pid" in message


def test_a_lock_left_by_a_killed_ingest_is_recovered(tmp_path, caplog):
    pipeline = _pipeline(tmp_path)
    key = pipeline_index_key(pipeline)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (tmp_path / "idx").mkdir()
    (tmp_path / "idx" / f".lock-{key}").write_text(
        json.dumps({"pid": int(dead.stdout), "host": "h", "started": "then"})
    )
    with caplog.at_level(logging.WARNING, logger="criss_rag.ingest"):
        report = ingest(pipeline, lock_timeout=0)
    assert report.mode == "built"
    assert any(f"pid {int(dead.stdout)}" in r.getMessage() and "recovered" in r.getMessage() for r in caplog.records)


def test_orphan_versions_are_removed_by_the_next_ingest_even_when_up_to_date(tmp_path):
    pipeline = _pipeline(tmp_path)
    ingest(pipeline)
    key = pipeline_index_key(pipeline)
    store = IndexStore(tmp_path / "idx")
    current = store.current(key)
    orphan = tmp_path / "idx" / f"{key}@v1-0rphan00"  # what a concurrent writer that lost the race left
    orphan.mkdir()
    (orphan / "manifest.json").write_text((current / "manifest.json").read_text())
    assert ingest(_pipeline(tmp_path)).mode == "up-to-date"
    assert not orphan.exists() and _versions(tmp_path, key) == [current.name]
