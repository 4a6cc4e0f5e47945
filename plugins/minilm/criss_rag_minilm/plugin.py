"""The ``minilm`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_embeddings(register):
    register("minilm", "criss_rag_minilm.embedding:minilm")
