"""The ``tfidf`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_retrievers(register):
    register("tfidf", "criss_rag_tfidf.retriever:TfIdf")
