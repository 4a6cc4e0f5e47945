"""The ``milvus`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_retrievers(register):
    register("milvus", "criss_rag_milvus.retriever:MilvusDense")
