"""The ``openai`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl

from criss_rag_openai.components import openai_compatible_llm, openai_embedding, openai_llm


@hookimpl
def register_llms(register):
    register("openai", openai_llm)
    register("openai-compatible", openai_compatible_llm)


@hookimpl
def register_embeddings(register):
    register("openai", openai_embedding)
