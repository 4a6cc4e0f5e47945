"""The ``faiss`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_retrievers(register):
    register("faiss", "criss_rag_faiss.retriever:FaissDense")
