"""The ``llamacpp`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl

from criss_rag_llamacpp.components import llama_cpp_llm


@hookimpl
def register_llms(register):
    register("llama-cpp", llama_cpp_llm)
