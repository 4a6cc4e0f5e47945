"""The ``rerank`` plugin: registration only; the components live in their own modules."""

from __future__ import annotations

from criss_rag import hookimpl

from criss_rag_rerank.cross_encoder import CrossEncoderReranker
from criss_rag_rerank.llm_rerank import LLMReranker


@hookimpl
def register_rerankers(register):
    register("llm", LLMReranker)
    register("cross-encoder", CrossEncoderReranker)
