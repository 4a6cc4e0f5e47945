"""The ``e5`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl

from criss_rag_e5.embedding import multilingual_e5


@hookimpl
def register_embeddings(register):
    register("multilingual-e5", multilingual_e5)
