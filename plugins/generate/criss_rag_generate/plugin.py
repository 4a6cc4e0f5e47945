"""The ``generate`` plugin: registration only; the components live in their own modules."""

from __future__ import annotations

from criss_rag import hookimpl

from criss_rag_generate.generator import LlmGenerator
from criss_rag_generate.verifiers import LexicalVerifier, LlmCheckVerifier


@hookimpl
def register_generators(register):
    register("llm", LlmGenerator)


@hookimpl
def register_verifiers(register):
    register("lexical", LexicalVerifier)
    register("llm-check", LlmCheckVerifier)
