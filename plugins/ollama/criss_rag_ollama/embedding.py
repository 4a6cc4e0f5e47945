"""Embedding ``ollama``: an embedding model served by Ollama (``/api/embed``, batched).

A LlamaIndex ``OllamaEmbedding`` subclass with the same retries and error messages as the
``ollama`` LLM (:mod:`criss_rag_ollama.errors`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.embeddings.ollama import OllamaEmbedding
from pydantic import BaseModel, ConfigDict, Field, field_validator

from criss_rag.config.model import NOT_IN_INDEX_KEY
from criss_rag.context import ComponentContext
from criss_rag_ollama.errors import Endpoint, acall_with_retries, call_with_retries
from criss_rag_ollama.llm import DEFAULT_BASE_URL, check_base_url

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


class OllamaEmbeddingParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model: str = Field(description="an Ollama embedding model tag, e.g. nomic-embed-text or bge-m3")
    base_url: str = Field(DEFAULT_BASE_URL, description="the Ollama server's address, without a path")
    batch_size: int = Field(10, ge=1, le=2048, description="texts per /api/embed request", json_schema_extra=NOT_IN_INDEX_KEY)
    request_timeout: float = Field(120.0, gt=0, description="seconds to wait for each HTTP request", json_schema_extra=NOT_IN_INDEX_KEY)
    max_retries: int = Field(2, ge=0, description="retries after HTTP 408/409/429/5xx, connection errors and timeouts", json_schema_extra=NOT_IN_INDEX_KEY)
    retry_backoff: float = Field(0.5, ge=0.0, description="seconds before the first retry; the wait doubles after "
                                                          "each retry (at most 30 s)", json_schema_extra=NOT_IN_INDEX_KEY)

    @field_validator("base_url")
    @classmethod
    def check_url(cls, value: str) -> str:
        return check_base_url(value)


def ollama_embedding(params: OllamaEmbeddingParams, ctx: ComponentContext) -> GuardedOllamaEmbedding:
    """An embedding model served by Ollama (local by default), with retries and clear errors."""
    embedding = GuardedOllamaEmbedding(model_name=params.model, base_url=params.base_url,
                                       embed_batch_size=params.batch_size,
                                       client_kwargs={"timeout": params.request_timeout})
    stage = getattr(ctx, "stage", None) or "embedding"
    embedding._endpoint = Endpoint(where=f"{stage} (ollama, model {params.model!r})", url=params.base_url,
                                   model=params.model, timeout=params.request_timeout,
                                   max_retries=params.max_retries, retry_backoff=params.retry_backoff)
    return embedding


ollama_embedding.Params = OllamaEmbeddingParams  # type: ignore[attr-defined]
