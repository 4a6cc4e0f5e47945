"""The ``ollama`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl

from criss_rag_ollama.embedding import ollama_embedding
from criss_rag_ollama.llm import ollama_llm


@hookimpl
def register_llms(register):
    register("ollama", ollama_llm)


@hookimpl
def register_embeddings(register):
    register("ollama", ollama_embedding)
