"""The ``ollama`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl

from criss_rag_ollama.components import ollama_embedding, ollama_llm


@hookimpl
def register_llms(register):
    register("ollama", ollama_llm)


@hookimpl
def register_embeddings(register):
    register("ollama", ollama_embedding)
