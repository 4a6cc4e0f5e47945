"""Embeddings cached by (embedding model, text hash), so re-ingesting re-embeds only new text.

The cache is one SQLite file per index root (``<index.dir>/.cache/embeddings.sqlite``). Vectors are
committed step by step as they are computed, so an ingest that dies half-way resumes from where it
stopped: the next run finds the finished steps in the cache. A step is small: the first is one
model batch, and each next one is sized to take about ``step_seconds`` (default 2 s) at the speed
measured so far, never more than ``batch_size`` texts; so at most a few seconds of embedding are
lost to a crash, and the progress bar moves after each step.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding

from criss_rag.indexing.ingest_report import progress_bar


def text_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


class EmbeddingCache:
    """A persistent map (model id, text hash) → float32 vector."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(path)
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS vectors (model TEXT, hash TEXT, vector BLOB, PRIMARY KEY (model, hash))"
        )

    def get_many(self, model: str, keys: Sequence[str]) -> dict[str, np.ndarray]:
        found: dict[str, np.ndarray] = {}
        unique = list(dict.fromkeys(keys))
        for start in range(0, len(unique), 500):  # SQLite's variable limit
            chunk = unique[start : start + 500]
            rows = self._db.execute(
                f"SELECT hash, vector FROM vectors WHERE model = ? AND hash IN ({','.join('?' * len(chunk))})",
                [model, *chunk],
            )
            found.update({h: np.frombuffer(blob, dtype="float32") for h, blob in rows})
        return found

    def put_many(self, model: str, items: dict[str, np.ndarray]) -> None:
        with self._db:  # one transaction per batch: a crash keeps every finished batch
            self._db.executemany(
                "INSERT OR REPLACE INTO vectors VALUES (?, ?, ?)",
                [(model, key, np.asarray(vec, dtype="float32").tobytes()) for key, vec in items.items()],
            )

    def close(self) -> None:
        self._db.close()


def embed_with_cache(
    embedding: BaseEmbedding,
    model_id: str,
    texts: Sequence[str],
    cache: EmbeddingCache | None,
    *,
    batch_size: int = 256,
    min_batch: int | None = None,
    step_seconds: float = 2.0,
    show_progress: bool = False,
    clock: Callable[[], float] = time.monotonic,
    counts: dict[str, int] | None = None,
) -> tuple[np.ndarray, int]:
    """Vectors for ``texts`` (float32 matrix) and how many were computed (not cached).

    Computed in steps committed to ``cache`` one by one: the first of ``min_batch`` texts (default:
    the model's ``embed_batch_size``), the next ones sized so that a step takes about
    ``step_seconds``, between ``min_batch`` and ``batch_size`` texts. A local model is loaded
    before the progress bar starts (its ``load_model()``), so the bar's rate is the embedding's.
    ``counts``, when given, receives ``computed``, ``from_cache`` (texts whose vector was cached
    already) and ``repeats`` (texts equal to an earlier one of ``texts``, computed once)."""
    keys = [text_key(t) for t in texts]
    known = cache.get_many(model_id, keys) if cache else {}
    text_of = dict(zip(keys, texts, strict=True))
    # shortest first: texts of similar length share a model batch, so little of it is padding (as
    # sentence-transformers' own encode() does); the vectors are keyed by hash, so order is free
    missing = sorted(dict.fromkeys(k for k in keys if k not in known), key=lambda k: len(text_of[k]))
    if counts is not None:
        from_cache = sum(1 for k in keys if k in known)
        counts.update(computed=len(missing), from_cache=from_cache, repeats=len(keys) - from_cache - len(missing))
    load = getattr(embedding, "load_model", None)
    if missing and callable(load):
        load()
    smallest = max(1, min(batch_size, min_batch or int(getattr(embedding, "embed_batch_size", 0) or 0) or batch_size))
    step = smallest
    bar = progress_bar(len(missing), "embedding", "chunk", enabled=show_progress and bool(missing))
    start = 0
    while start < len(missing):
        batch = missing[start : start + step]
        began = clock()
        vectors = embedding.get_text_embedding_batch([text_of[k] for k in batch])
        fresh = {k: np.asarray(v, dtype="float32") for k, v in zip(batch, vectors, strict=True)}
        if cache:
            cache.put_many(model_id, fresh)
        known.update(fresh)
        bar.update(len(batch))
        start += len(batch)
        took = max(clock() - began, 1e-6)
        wanted = int(len(batch) * step_seconds / took)  # texts that would take step_seconds at this speed
        step = max(smallest, min(batch_size, wanted // smallest * smallest or smallest))
    bar.close()
    matrix = np.vstack([known[k] for k in keys]) if keys else np.zeros((0, 0), dtype="float32")
    return matrix, len(missing)
