"""The ``faiss`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl

from criss_rag_faiss.retriever import FaissDense


@hookimpl
def register_retrievers(register):
    register("faiss", FaissDense)
