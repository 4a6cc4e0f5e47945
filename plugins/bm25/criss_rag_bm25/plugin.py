"""The ``bm25`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_retrievers(register):
    register("bm25", "criss_rag_bm25.retriever:BM25")
