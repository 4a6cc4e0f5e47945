"""Embeddings cached by (embedding model, text hash), so re-ingesting re-embeds only new text.

The cache is one SQLite file per index root (``<index.dir>/.cache/embeddings.sqlite``). Vectors are
written batch by batch as they are computed, so an ingest that dies half-way resumes from where it
stopped: the next run finds the finished batches in the cache.
"""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from llama_index.core.base.embeddings.base import BaseEmbedding
from tqdm import tqdm


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
    show_progress: bool = False,
) -> tuple[np.ndarray, int]:
    """Vectors for ``texts`` (float32 matrix) and how many were computed (not cached)."""
    keys = [text_key(t) for t in texts]
    known = cache.get_many(model_id, keys) if cache else {}
    text_of = dict(zip(keys, texts, strict=True))
    # shortest first: texts of similar length share a model batch, so little of it is padding (as
    # sentence-transformers' own encode() does); the vectors are keyed by hash, so order is free
    missing = sorted(dict.fromkeys(k for k in keys if k not in known), key=lambda k: len(text_of[k]))
    bar = tqdm(total=len(missing), desc="embedding", unit="chunk", disable=not show_progress or not missing)
    for start in range(0, len(missing), batch_size):
        batch = missing[start : start + batch_size]
        vectors = embedding.get_text_embedding_batch([text_of[k] for k in batch])
        fresh = {k: np.asarray(v, dtype="float32") for k, v in zip(batch, vectors, strict=True)}
        if cache:
            cache.put_many(model_id, fresh)
        known.update(fresh)
        bar.update(len(batch))
    bar.close()
    matrix = np.vstack([known[k] for k in keys]) if keys else np.zeros((0, 0), dtype="float32")
    return matrix, len(missing)
