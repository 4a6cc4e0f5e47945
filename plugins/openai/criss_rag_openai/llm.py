"""The clients of the LLM backends ``openai`` (OpenAI's API) and ``openai-compatible`` (llama.cpp,
vLLM, LM Studio...); their params and factories are in :mod:`criss_rag_openai.components`.

Both are LlamaIndex LLMs (``OpenAI`` and ``OpenAILike`` subclasses), so components call ``chat``,
``complete``, ``stream_chat``, ``stream_complete`` (and the async variants) on them as on any
LlamaIndex LLM. What the subclasses add:

- failures become :class:`~criss_rag.errors.ComponentError` s that say what to do next
  (see :mod:`criss_rag_openai.errors`);
- retries are the openai SDK's only: LlamaIndex wraps its calls in a second retry loop of its own
  (tenacity, waits of 1-20 s) that would multiply the attempts, so it is bypassed;
- a stream that ends without a ``finish_reason`` (the server died mid-answer) raises instead of
  passing for a short answer;
- token usage, when the server reports it, is in ``response.additional_kwargs`` as
  ``prompt_tokens`` / ``completion_tokens`` / ``total_tokens`` (for streams: on the last chunks);
- the API key is kept out of ``repr()`` and of ``model_dump()`` / ``to_dict()``;
- ``complete_constrained`` (:class:`criss_rag.component_helpers.structured_output.ConstrainedLLM`) sends a JSON
  schema as ``response_format`` when the config's ``structured_output`` says how the server takes it.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Sequence
from typing import Any

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.llms.openai import OpenAI
from llama_index.llms.openai_like import OpenAILike

from criss_rag.plugin_utils import with_usage
from criss_rag_openai.errors import Endpoint, finished, raise_for, unfinished_stream


def _inner(method: Any) -> Any:
    """The function under LlamaIndex's ``llm_retry_decorator`` (the SDK retries on its own)."""
    return getattr(method, "__wrapped__", method)


class _Guarded:
    """Mixin for the OpenAI-family LLMs: error translation, usage, a single retry loop.

    The concrete classes declare the private attribute ``_endpoint`` (set by the factories)."""

    def _ep(self) -> Endpoint:
        if self._endpoint is None:  # built directly, not by a factory
            self._endpoint = Endpoint(where=f"{type(self).__name__} (model {self.model!r})", url=str(self.api_base),
                                      model=self.model, timeout=self.timeout, max_retries=self.max_retries,
                                      secret=self.api_key)
        return self._endpoint

    # -- public methods: translate failures, record usage ---------------------------------------
    def chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Any:
        try:
            return with_usage(super().chat(messages, **kwargs))
        except Exception as exc:
            raise_for(exc, self._ep())

    def complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        try:
            return with_usage(super().complete(prompt, formatted=formatted, **kwargs))
        except Exception as exc:
            raise_for(exc, self._ep())

    def stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Any:
        try:
            return self._guard(super().stream_chat(messages, **kwargs))
        except Exception as exc:
            raise_for(exc, self._ep())

    def stream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        try:
            return self._guard(super().stream_complete(prompt, formatted=formatted, **kwargs))
        except Exception as exc:
            raise_for(exc, self._ep())

    async def achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Any:
        try:
            return with_usage(await super().achat(messages, **kwargs))
        except Exception as exc:
            raise_for(exc, self._ep())

    async def acomplete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        try:
            return with_usage(await super().acomplete(prompt, formatted=formatted, **kwargs))
        except Exception as exc:
            raise_for(exc, self._ep())

    async def astream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Any:
        try:
            return self._aguard(await super().astream_chat(messages, **kwargs))
        except Exception as exc:
            raise_for(exc, self._ep())

    async def astream_complete(self, prompt: str, formatted: bool = False, **kwargs: Any) -> Any:
        try:
            return self._aguard(await super().astream_complete(prompt, formatted=formatted, **kwargs))
        except Exception as exc:
            raise_for(exc, self._ep())

    def _guard(self, stream: Iterator[Any]) -> Iterator[Any]:
        # the request is sent on the first next(): failures surface here, not at the call. A body
        # without a length ends when the connection closes, so a server that dies mid-answer looks
        # like a short answer to the SDK: only a chunk with a finish_reason says it is whole.
        done = False
        try:
            for item in stream:
                done = done or finished(item)
                yield with_usage(item)
        except Exception as exc:
            raise_for(exc, self._ep())
        if not done:
            raise unfinished_stream(self._ep())

    async def _aguard(self, stream: AsyncIterator[Any]) -> AsyncIterator[Any]:
        done = False
        try:
            async for item in stream:
                done = done or finished(item)
                yield with_usage(item)
        except Exception as exc:
            raise_for(exc, self._ep())
        if not done:
            raise unfinished_stream(self._ep())

    # -- one retry loop: the SDK's (LlamaIndex's tenacity layer is skipped) ----------------------
    def _chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Any:
        return _inner(OpenAI._chat)(self, messages, **kwargs)

    def _stream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Any:
        return _inner(OpenAI._stream_chat)(self, messages, **kwargs)

    def _complete(self, prompt: str, **kwargs: Any) -> Any:
        return _inner(OpenAI._complete)(self, prompt, **kwargs)

    def _stream_complete(self, prompt: str, **kwargs: Any) -> Any:
        return _inner(OpenAI._stream_complete)(self, prompt, **kwargs)

    async def _achat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Any:
        return await _inner(OpenAI._achat)(self, messages, **kwargs)

    async def _astream_chat(self, messages: Sequence[ChatMessage], **kwargs: Any) -> Any:
        return await _inner(OpenAI._astream_chat)(self, messages, **kwargs)

    async def _acomplete(self, prompt: str, **kwargs: Any) -> Any:
        return await _inner(OpenAI._acomplete)(self, prompt, **kwargs)

    async def _astream_complete(self, prompt: str, **kwargs: Any) -> Any:
        return await _inner(OpenAI._astream_complete)(self, prompt, **kwargs)


class GuardedOpenAI(_Guarded, OpenAI):
    """LlamaIndex ``OpenAI`` with criss_rag error messages, usage and a hidden key."""

    api_key: str | None = Field(default=None, exclude=True, repr=False, description="API key (never shown)")
    _endpoint: Endpoint | None = PrivateAttr(default=None)


class GuardedOpenAILike(_Guarded, OpenAILike):
    """LlamaIndex ``OpenAILike`` with criss_rag error messages, usage, a hidden key and JSON-schema replies."""

    api_key: str | None = Field(default=None, exclude=True, repr=False, description="API key (never shown)")
    _endpoint: Endpoint | None = PrivateAttr(default=None)
    _structured: str = PrivateAttr(default="off")  # "off", "json_schema" or "json_object" (structured_output)

    @property
    def supports_constrained(self) -> bool:
        return self._structured != "off"

    def complete_constrained(self, prompt: str, *, json_schema: dict[str, Any] | None = None,
                             grammar: str | None = None) -> Any:
        """A reply the server constrains to ``json_schema`` (``NotImplementedError`` when
        ``structured_output`` is off, or for a GBNF grammar, which the OpenAI API has no field for)."""
        if self._structured == "off" or json_schema is None or grammar is not None:
            raise NotImplementedError("this openai-compatible LLM does not constrain replies")
        if self._structured == "json_schema":
            fmt: dict[str, Any] = {"type": "json_schema",
                                   "json_schema": {"name": "reply", "schema": json_schema, "strict": True}}
        else:
            fmt = {"type": "json_object", "schema": json_schema}
        return self.complete(prompt, response_format=fmt)
