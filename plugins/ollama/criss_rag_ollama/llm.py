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

from criss_rag.plugin_utils import with_usage
from criss_rag_ollama.errors import (
    Endpoint,
    acall_with_retries,
    astream_with_retries,
    call_with_retries,
    stream_with_retries,
)


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
