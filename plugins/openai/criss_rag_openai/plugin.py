"""The ``openai`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_llms(register):
    register("openai", "criss_rag_openai.components:openai_llm")
    register("openai-compatible", "criss_rag_openai.components:openai_compatible_llm")


@hookimpl
def register_embeddings(register):
    register("openai", "criss_rag_openai.components:openai_embedding")
