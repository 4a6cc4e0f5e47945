"""The ``ollama`` plugin's components: their ``Params`` and factories.

This module stays light: the ollama client and LlamaIndex's Ollama classes are imported by the
factories, when a pipeline really builds a client, so ``criss-rag plugins``, ``validate`` and
every pipeline without these components do not pay for them. The clients live in
:mod:`criss_rag_ollama.llm` and :mod:`criss_rag_ollama.embedding`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict, Field, field_validator

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import NOT_IN_INDEX_KEY, http_url

if TYPE_CHECKING:
    from criss_rag_ollama.embedding import GuardedOllamaEmbedding
    from criss_rag_ollama.llm import GuardedOllama

DEFAULT_BASE_URL = "http://127.0.0.1:11434"


def check_base_url(value: str) -> str:
    return http_url(value, DEFAULT_BASE_URL)


class OllamaParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model: str = Field(description="an Ollama model tag, e.g. qwen2.5:7b-instruct (`ollama list` shows the "
                                   "pulled ones)")
    base_url: str = Field(DEFAULT_BASE_URL, description="the Ollama server's address, without a path")
    context_window: int = Field(8192, ge=256, description="context size in tokens, sent as `num_ctx` (given, so the "
                                                          "client never asks /api/show for it)")
    temperature: float = Field(0.1, ge=0.0, le=2.0, description="sampling temperature")
    max_tokens: int = Field(1024, ge=1, description="the most tokens an answer may have (sent as `num_predict`)")
    request_timeout: float = Field(120.0, gt=0, description="seconds to wait for each HTTP request (the first one "
                                                            "also loads the model)")
    max_retries: int = Field(2, ge=0, description="retries after HTTP 408/409/429/5xx, connection errors and timeouts")
    retry_backoff: float = Field(0.5, ge=0.0, description="seconds before the first retry; the wait doubles after "
                                                          "each retry (at most 30 s)")
    thinking: bool | None = Field(None, description="ask a reasoning model to think (Ollama's `think`): its "
                                                    "thinking comes apart from the answer and is streamed as thinking "
                                                    "events, never shown as the answer; null = the model's default")

    @field_validator("base_url")
    @classmethod
    def check_url(cls, value: str) -> str:
        return check_base_url(value)


def ollama_llm(params: OllamaParams, ctx: ComponentContext) -> GuardedOllama:
    """A model served by Ollama (local by default), with retries and clear errors."""
    from criss_rag_ollama.errors import Endpoint
    from criss_rag_ollama.llm import GuardedOllama

    llm = GuardedOllama(model=params.model, base_url=params.base_url, temperature=params.temperature,
                        context_window=params.context_window, request_timeout=params.request_timeout,
                        thinking=params.thinking, additional_kwargs={"num_predict": params.max_tokens})
    stage = getattr(ctx, "stage", None) or "llm"
    llm._endpoint = Endpoint(where=f"{stage} (ollama, model {params.model!r})", url=params.base_url,
                             model=params.model, timeout=params.request_timeout, max_retries=params.max_retries,
                             retry_backoff=params.retry_backoff)
    return llm


ollama_llm.Params = OllamaParams  # type: ignore[attr-defined]


# -- embedding `ollama` --------------------------------------------------------------------------------


class OllamaEmbeddingParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    model: str = Field(description="an Ollama embedding model tag, e.g. nomic-embed-text or bge-m3")
    base_url: str = Field(DEFAULT_BASE_URL, description="the Ollama server's address, without a path")
    batch_size: int = Field(
        10, ge=1, le=2048, description="texts per /api/embed request", json_schema_extra=NOT_IN_INDEX_KEY
    )
    request_timeout: float = Field(
        120.0, gt=0, description="seconds to wait for each HTTP request", json_schema_extra=NOT_IN_INDEX_KEY
    )
    max_retries: int = Field(
        2,
        ge=0,
        description="retries after HTTP 408/409/429/5xx, connection errors and timeouts",
        json_schema_extra=NOT_IN_INDEX_KEY,
    )
    retry_backoff: float = Field(
        0.5,
        ge=0.0,
        description="seconds before the first retry; the wait doubles after each retry (at most 30 s)",
        json_schema_extra=NOT_IN_INDEX_KEY,
    )

    @field_validator("base_url")
    @classmethod
    def check_url(cls, value: str) -> str:
        return check_base_url(value)


def ollama_embedding(params: OllamaEmbeddingParams, ctx: ComponentContext) -> GuardedOllamaEmbedding:
    """An embedding model served by Ollama (local by default), with retries and clear errors."""
    from criss_rag_ollama.embedding import GuardedOllamaEmbedding
    from criss_rag_ollama.errors import Endpoint

    embedding = GuardedOllamaEmbedding(model_name=params.model, base_url=params.base_url,
                                       embed_batch_size=params.batch_size,
                                       client_kwargs={"timeout": params.request_timeout})
    stage = getattr(ctx, "stage", None) or "embedding"
    embedding._endpoint = Endpoint(where=f"{stage} (ollama, model {params.model!r})", url=params.base_url,
                                   model=params.model, timeout=params.request_timeout,
                                   max_retries=params.max_retries, retry_backoff=params.retry_backoff)
    return embedding


ollama_embedding.Params = OllamaEmbeddingParams  # type: ignore[attr-defined]
