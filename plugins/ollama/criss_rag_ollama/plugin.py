"""The ``ollama`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_llms(register):
    register("ollama", "criss_rag_ollama.components:ollama_llm")


@hookimpl
def register_embeddings(register):
    register("ollama", "criss_rag_ollama.components:ollama_embedding")
