"""The ``milvus`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl

from criss_rag_milvus.retriever import MilvusDense


@hookimpl
def register_retrievers(register):
    register("milvus", MilvusDense)
