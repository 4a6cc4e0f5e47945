"""The ``minilm`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl

from criss_rag_minilm.embedding import minilm


@hookimpl
def register_embeddings(register):
    register("minilm", minilm)
