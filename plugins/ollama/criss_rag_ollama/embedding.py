"""Embedding ``ollama``: an embedding model served by Ollama (``/api/embed``, batched).

A LlamaIndex ``OllamaEmbedding`` subclass with the same retries and error messages as the
``ollama`` LLM (:mod:`criss_rag_ollama.errors`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.embeddings.ollama import OllamaEmbedding

from criss_rag_ollama.errors import Endpoint, acall_with_retries, call_with_retries

T = TypeVar("T")


class GuardedOllamaEmbedding(OllamaEmbedding):
    """LlamaIndex ``OllamaEmbedding`` with retries and criss_rag error messages."""

    _endpoint: Endpoint | None = PrivateAttr(default=None)

    def _ep(self) -> Endpoint:
        if self._endpoint is None:
            self._endpoint = Endpoint(where=f"embedding (ollama, model {self.model_name!r})", url=self.base_url,
                                      model=self.model_name, timeout=0.0)
        return self._endpoint

    def _call(self, func: Callable[..., T], *args: Any) -> T:
        return call_with_retries(lambda: func(*args), self._ep())

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._call(super()._get_query_embedding, query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._call(super()._get_text_embedding, text)

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._call(super()._get_text_embeddings, texts)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        parent = super()._aget_query_embedding
        return await acall_with_retries(lambda: parent(query), self._ep())

    async def _aget_text_embedding(self, text: str) -> list[float]:
        parent = super()._aget_text_embedding
        return await acall_with_retries(lambda: parent(text), self._ep())

    async def _aget_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        parent = super()._aget_text_embeddings
        return await acall_with_retries(lambda: parent(texts), self._ep())
