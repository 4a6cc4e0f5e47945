"""What the clients of LLM servers share (the ``ollama`` and ``openai`` backends): token usage
copied to where a generator reads it, the words an error uses for spent retries, and the check of
a server's URL param."""

from __future__ import annotations

from collections.abc import Mapping
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
        counts = {key: get(key) for key in USAGE_KEYS}
        if all(isinstance(value, int) for value in counts.values()):
            return {key: int(value) for key, value in counts.items()}
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
