"""The ``rerank`` plugin: registration only; the components live in their own modules."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_rerankers(register):
    register("llm", "criss_rag_rerank.llm_rerank:LLMReranker")
    register("cross-encoder", "criss_rag_rerank.cross_encoder:CrossEncoderReranker")
