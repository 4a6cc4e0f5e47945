"""What the clients of LLM servers share (the ``ollama`` and ``openai`` backends): token usage
copied to where a generator reads it, the words an error uses for spent retries, the check of a
server's URL param, and the embedding calls routed through a backend's retries and errors."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from typing import Any, TypeVar

T = TypeVar("T")

#: Keys of the token counts in ``response.additional_kwargs`` (chat, complete, last stream chunk).
USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens")


def usage_of(response: Any) -> dict[str, int]:
    """Token counts a response carries: in its ``additional_kwargs``, its message's, or its raw
    reply's ``usage`` (a mapping or an object); ``{}`` when none holds all of :data:`USAGE_KEYS`."""
    sources: list[Any] = [getattr(response, "additional_kwargs", None)]
    message = getattr(response, "message", None)
    if message is not None:
        sources.append(getattr(message, "additional_kwargs", None))
    raw = getattr(response, "raw", None)
    sources.append(raw.get("usage") if isinstance(raw, Mapping) else getattr(raw, "usage", None))
    for source in sources:
        if source is None:
            continue
        get = source.get if isinstance(source, Mapping) else (lambda key, s=source: getattr(s, key, None))
        counts = [value for value in map(get, USAGE_KEYS) if isinstance(value, int)]
        if len(counts) == len(USAGE_KEYS):
            return dict(zip(USAGE_KEYS, counts, strict=True))
    return {}


def with_usage(response: T) -> T:
    """Copy the token counts into ``response.additional_kwargs`` (where generators read them)."""
    counts = usage_of(response)
    if counts:
        response.additional_kwargs.update(counts)  # type: ignore[attr-defined]
    return response


def retries_text(n: int) -> str:
    """``after 1 retry`` / ``after 2 retries``: how an error says the retries are spent."""
    return f"after {n} retr{'y' if n == 1 else 'ies'}"


def http_url(value: str, example: str) -> str:
    """A server URL param checked to be http(s) (``example`` shows one in the error), without a
    trailing slash."""
    if not value.startswith(("http://", "https://")):
        raise ValueError(f"must be an http:// or https:// URL, e.g. {example} (got {value!r})")
    return value.rstrip("/")


class GuardedEmbeddingCalls:
    """The six embedding calls of a LlamaIndex ``BaseEmbedding`` subclass routed through the backend's
    :meth:`_call` and :meth:`_acall` (its retries and error messages). List it before the LlamaIndex
    class in the bases: ``class GuardedX(GuardedEmbeddingCalls, XEmbedding)``."""

    def _call(self, func: Callable[..., T], *args: Any) -> T:
        raise NotImplementedError(f"{type(self).__name__} must define _call(func, *args)")

    async def _acall(self, func: Callable[..., Awaitable[T]], *args: Any) -> T:
        raise NotImplementedError(f"{type(self).__name__} must define _acall(func, *args)")

    def _parent(self, name: str) -> Callable[..., Any]:
        """The method ``name`` of the LlamaIndex class after this one in the bases."""
        method: Callable[..., Any] = getattr(super(), name)
        return method

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._call(self._parent("_get_query_embedding"), query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._call(self._parent("_get_text_embedding"), text)

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._call(self._parent("_get_text_embeddings"), texts)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return await self._acall(self._parent("_aget_query_embedding"), query)

    async def _aget_text_embedding(self, text: str) -> list[float]:
        return await self._acall(self._parent("_aget_text_embedding"), text)

    async def _aget_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return await self._acall(self._parent("_aget_text_embeddings"), texts)
