"""The client of the embedding ``openai``: OpenAI's embedding API (text-embedding-3-large by
default, as the Korean system used), or any OpenAI-compatible ``/v1/embeddings`` at ``api_base``.
Its params and factory are in :mod:`criss_rag_openai.components`.

A LlamaIndex ``OpenAIEmbedding`` subclass: failures become ComponentErrors (see
:mod:`criss_rag_openai.errors`), only the SDK retries (LlamaIndex's extra tenacity loop is off),
and the key is kept out of ``repr()`` and dumps.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.embeddings.openai import OpenAIEmbedding

from criss_rag.plugin_utils import GuardedEmbeddingCalls
from criss_rag_openai.errors import Endpoint, raise_for

T = TypeVar("T")


class GuardedOpenAIEmbedding(GuardedEmbeddingCalls, OpenAIEmbedding):
    """LlamaIndex ``OpenAIEmbedding`` with criss_rag error messages and a hidden key."""

    api_key: str = Field(default="", exclude=True, repr=False, description="API key (never shown)")
    _endpoint: Endpoint | None = PrivateAttr(default=None)

    def _ep(self) -> Endpoint:
        if self._endpoint is None:
            self._endpoint = Endpoint(where=f"embedding (openai, model {self.model_name!r})", url=str(self.api_base),
                                      model=self.model_name, timeout=self.timeout, max_retries=self.max_retries,
                                      secret=self.api_key)
        return self._endpoint

    def _create_retry_decorator(self) -> Callable[[T], T]:
        # the openai SDK already retries `max_retries` times; a second loop would multiply them
        return lambda func: func

    def _call(self, func: Callable[..., T], *args: Any) -> T:
        try:
            return func(*args)
        except Exception as exc:
            raise_for(exc, self._ep())
            raise  # unreachable: raise_for always raises

    async def _acall(self, func: Callable[..., Awaitable[T]], *args: Any) -> T:
        try:
            return await func(*args)
        except Exception as exc:
            raise_for(exc, self._ep())
            raise
