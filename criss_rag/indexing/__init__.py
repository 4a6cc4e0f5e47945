"""Building and keeping an index: ``criss-rag ingest`` (``ingest``), the index directory and its
versions (``index_store``, ``index_integrity``, ``disk_space``), the chunks question-time components
read (``chunk_store``), what changed since the last ingest (``corpus_diff``), cached embeddings
(``embedding_cache``), the ingest summary (``ingest_report``) and where batch work runs
(``executors``). Internal: the public names are in :mod:`criss_rag`.
"""

from __future__ import annotations

import importlib
from typing import Any

#: names ``criss_rag.indexing`` held when it was one module (``from criss_rag.indexing import ingest``
#: is a documented path); loaded from ``criss_rag.indexing.ingestion`` on first use
_INGESTION_NAMES = frozenset({"ingest", "open_index", "load_documents", "pipeline_index_key", "StaleIndexError"})


def __getattr__(name: str) -> Any:
    if name not in _INGESTION_NAMES:
        raise AttributeError(f"module 'criss_rag.indexing' has no attribute {name!r}")
    return getattr(importlib.import_module("criss_rag.indexing.ingestion"), name)
