"""The ``e5`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_embeddings(register):
    register("multilingual-e5", "criss_rag_e5.embedding:multilingual_e5")
