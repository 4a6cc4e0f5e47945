"""The ``use`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_embeddings(register):
    register("multilingual-use", "criss_rag_use.embedding:multilingual_use")
