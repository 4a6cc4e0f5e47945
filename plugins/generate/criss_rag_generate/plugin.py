"""The ``generate`` plugin: registration only; the components live in their own modules."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_generators(register):
    register("llm", "criss_rag_generate.generator:LlmGenerator")


@hookimpl
def register_verifiers(register):
    register("meaning", "criss_rag_generate.verifiers:MeaningVerifier")
    register("lexical", "criss_rag_generate.verifiers:LexicalVerifier")
    register("llm-check", "criss_rag_generate.verifiers:LlmCheckVerifier")
