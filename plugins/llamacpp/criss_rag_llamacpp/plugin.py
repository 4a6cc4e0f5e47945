"""The ``llamacpp`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_llms(register):
    register("llama-cpp", "criss_rag_llamacpp.components:llama_cpp_llm")
