"""The ``tfidf`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl

from criss_rag_tfidf.retriever import TfIdf


@hookimpl
def register_retrievers(register):
    register("tfidf", TfIdf)
