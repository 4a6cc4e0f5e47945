"""LLM backend ``ollama``: a model served by a local (or remote) Ollama.

A LlamaIndex ``Ollama`` subclass, so components call ``chat``, ``complete``, ``stream_chat``,
``stream_complete`` (and the async variants) on it as on any LlamaIndex LLM. What it adds:

- retries with exponential backoff (the ollama client has none) and failures turned into
  :class:`~criss_rag.errors.ComponentError` s that say what to do next (:mod:`criss_rag_ollama.errors`);
- ``context_window`` always set, so the client never calls ``/api/show`` before the first answer;
- token usage in ``response.additional_kwargs`` (``prompt_tokens``, ``completion_tokens``,
  ``total_tokens``; for streams on the last chunk).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.bridge.pydantic import PrivateAttr
from llama_index.llms.ollama import Ollama
from pydantic import BaseModel, ConfigDict, Field, field_validator

from criss_rag.context import ComponentContext
from criss_rag_ollama.errors import (
    Endpoint,
    acall_with_retries,
    astream_with_retries,
    call_with_retries,
    stream_with_retries,
    with_usage,
)

DEFAULT_BASE_URL = "http://127.0.0.1:11434"


class GuardedOllama(Ollama):
    """LlamaIndex ``Ollama`` with retries, criss_rag error messages and token usage."""

    _endpoint: Endpoint | None = PrivateAttr(default=None)

    def _ep(self) -> Endpoint:
        if self._endpoint is None:  # built directly, not by the factory
            self._endpoint = Endpoint(where=f"ollama (model {self.model!r})", url=self.base_url, model=self.model,
                                      timeout=float(self.request_timeout))
        return self._endpoint

    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Any:
        parent = super().chat
        return with_usage(call_with_retries(lambda: parent(messages, **kwargs), self._ep()))

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        parent = super().complete  # goes through self.chat (retries there)
        return with_usage(call_with_retries(lambda: parent(prompt, formatted=formatted, **kwargs), self._ep()))

    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Any:
        parent = super().stream_chat
        return stream_with_retries(lambda: parent(messages, **kwargs), self._ep())

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        parent = super().stream_complete
        return stream_with_retries(lambda: parent(prompt, formatted=formatted, **kwargs), self._ep())

    async def achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Any:
        parent = super().achat
        return with_usage(await acall_with_retries(lambda: parent(messages, **kwargs), self._ep()))

    async def acomplete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        parent = super().acomplete
        return with_usage(await acall_with_retries(lambda: parent(prompt, formatted=formatted, **kwargs), self._ep()))

    async def astream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Any:
        parent = super().astream_chat
        return astream_with_retries(lambda: parent(messages, **kwargs), self._ep())

    async def astream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        parent = super().astream_complete
        return astream_with_retries(lambda: parent(prompt, formatted=formatted, **kwargs), self._ep())


def check_base_url(value: str) -> str:
    if not value.startswith(("http://", "https://")):
        raise ValueError(f"must be an http:// or https:// URL, e.g. {DEFAULT_BASE_URL} (got {value!r})")
    return value.rstrip("/")


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

    @field_validator("base_url")
    @classmethod
    def check_url(cls, value: str) -> str:
        return check_base_url(value)


def ollama_llm(params: OllamaParams, ctx: ComponentContext) -> GuardedOllama:
    """A model served by Ollama (local by default), with retries and clear errors."""
    llm = GuardedOllama(model=params.model, base_url=params.base_url, temperature=params.temperature,
                        context_window=params.context_window, request_timeout=params.request_timeout,
                        additional_kwargs={"num_predict": params.max_tokens})
    stage = getattr(ctx, "stage", None) or "llm"
    llm._endpoint = Endpoint(where=f"{stage} (ollama, model {params.model!r})", url=params.base_url,
                             model=params.model, timeout=params.request_timeout, max_retries=params.max_retries,
                             retry_backoff=params.retry_backoff)
    return llm


ollama_llm.Params = OllamaParams  # type: ignore[attr-defined]
