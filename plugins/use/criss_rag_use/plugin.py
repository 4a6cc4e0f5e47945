"""The ``use`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl

from criss_rag_use.embedding import multilingual_use


@hookimpl
def register_embeddings(register):
    register("multilingual-use", multilingual_use)
