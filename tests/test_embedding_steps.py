"""Crash-resume granularity: embeddings are committed in small steps bounded by time and count,
so an ingest killed during the embedding of even a small corpus keeps the finished steps."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

from test_incremental_ingest import _cached_vectors

from criss_rag.indexing.embedding_cache import EmbeddingCache, embed_with_cache
from criss_rag.testing import CountingEmbedding, replaced

KILLABLE = """\
import sys
from criss_rag.cli.main import build_cli
from criss_rag.testing import plugin_host
host = plugin_host(entry_points=True)
build_cli(host).main(args=["ingest", sys.argv[1]], prog_name="criss-rag", obj={"host": host})
"""
YAML = """\
name: steps
loader: {name: fake-loader, documents: DOCS}
chunker: {name: fake-chunker}
embedding: {name: fake-counting, delay_s: 0.4}
retrievers: [{name: faiss, top_k: 5}]
context: {name: fake-all}
generator: {name: fake-echo}
"""


def test_a_kill_during_the_embedding_of_a_small_corpus_keeps_the_finished_steps(tmp_path):
    # 60 chunks: with steps of 8 model batches (80 texts) they were one step, committed only at its end
    docs = [
        {"doc_id": f"d{i}", "title": f"T{i}", "text": f"Document {i} is about screening test w{i}."} for i in range(60)
    ]
    config = tmp_path / "p.yaml"
    config.write_text(replaced(YAML, "DOCS", json.dumps(docs)), encoding="utf-8")
    cache = tmp_path / ".criss_rag" / "index" / ".cache" / "embeddings.sqlite"
    proc = subprocess.Popen([sys.executable, "-c", KILLABLE, str(config)], cwd=tmp_path,
                            env={**os.environ, "CRISS_RAG_STRICT_PLUGINS": "1"},
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    seen = 0
    while time.monotonic() < deadline and proc.poll() is None:
        seen = _cached_vectors(cache)
        if 0 < seen < 60:
            break  # some steps are committed, the embedding is not done
        time.sleep(0.05)
    assert proc.poll() is None, f"the ingest ended with {seen} vectors committed before it: {proc.communicate()}"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert 0 < _cached_vectors(cache) < 60


def test_steps_start_at_one_model_batch_and_grow_to_the_time_target(tmp_path):
    now = [0.0]
    steps: list[int] = []
    embedding = CountingEmbedding(model_name="fake-hash", embed_batch_size=10)
    original = embedding.get_text_embedding_batch

    def timed(texts, **kwargs):
        steps.append(len(texts))
        now[0] += 0.05 * len(texts)  # 0.05 s per text
        return original(texts, **kwargs)

    object.__setattr__(embedding, "get_text_embedding_batch", timed)
    cache = EmbeddingCache(tmp_path / "e.sqlite")
    texts = [f"text number {i}" for i in range(500)]
    matrix, computed = embed_with_cache(embedding, "m", texts, cache, batch_size=200, step_seconds=2.0,
                                        clock=lambda: now[0])
    assert computed == 500 and matrix.shape[0] == 500
    assert steps[0] == 10  # one model batch first: committed within a fraction of a second
    assert max(steps) == 40  # 2 s at 0.05 s per text, in whole model batches, under batch_size
    assert sum(steps) == 500
    assert _cached_vectors(tmp_path / "e.sqlite") == 500
    cache.close()
