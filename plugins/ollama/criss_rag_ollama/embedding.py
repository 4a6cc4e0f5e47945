"""Embedding ``ollama``: an embedding model served by Ollama (``/api/embed``, batched).

A LlamaIndex ``OllamaEmbedding`` subclass with the same retries and error messages as the
``ollama`` LLM (:mod:`criss_rag_ollama.errors`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.embeddings.ollama import OllamaEmbedding

from criss_rag.plugin_utils import GuardedEmbeddingCalls
from criss_rag_ollama.errors import Endpoint, acall_with_retries, call_with_retries

T = TypeVar("T")


class GuardedOllamaEmbedding(GuardedEmbeddingCalls, OllamaEmbedding):
    """LlamaIndex ``OllamaEmbedding`` with retries and criss_rag error messages."""

    _endpoint: Endpoint | None = PrivateAttr(default=None)

    def _ep(self) -> Endpoint:
        if self._endpoint is None:
            self._endpoint = Endpoint(where=f"embedding (ollama, model {self.model_name!r})", url=self.base_url,
                                      model=self.model_name, timeout=0.0)
        return self._endpoint

    def _call(self, func: Callable[..., T], *args: Any) -> T:
        return call_with_retries(lambda: func(*args), self._ep())

    async def _acall(self, func: Callable[..., Awaitable[T]], *args: Any) -> T:
        return await acall_with_retries(lambda: func(*args), self._ep())
