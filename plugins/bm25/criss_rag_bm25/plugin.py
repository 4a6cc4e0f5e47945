"""The ``bm25`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl

from criss_rag_bm25.retriever import BM25


@hookimpl
def register_retrievers(register):
    register("bm25", BM25)
