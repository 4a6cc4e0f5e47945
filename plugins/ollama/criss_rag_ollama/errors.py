"""Ollama failures turned into :class:`~criss_rag.errors.ComponentError` s that say what to do
next, the retry loop (the ollama client has none), and token usage copied to where a generator
can read it.

Retried: HTTP 408/409/429/5xx, connection errors and timeouts, ``max_retries`` times, waiting
``retry_backoff`` seconds and doubling the wait each time (at most 30 s), as the openai SDK does.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar

import httpx
from ollama import ResponseError

from criss_rag.errors import ComponentError, CrissRagError
from criss_rag.plugin_utils import retries_text, with_usage

T = TypeVar("T")
MAX_BACKOFF = 30.0
RETRY_STATUSES = {408, 409, 429}


@dataclass(frozen=True)
class Endpoint:
    """What the retry loop and the error messages need to know about one configured client."""

    where: str  # e.g. "llms.local (ollama, model 'qwen2.5')"
    url: str  # the base_url
    model: str
    timeout: float
    max_retries: int = 2
    retry_backoff: float = 0.5

    def wait(self, retry: int) -> float:
        """Seconds to wait before retry number ``retry`` (0-based)."""
        return min(self.retry_backoff * 2**retry, max(MAX_BACKOFF, self.retry_backoff))


def _message(exc: ResponseError) -> str:
    message = " ".join(str(exc.error).split()) or f"HTTP {exc.status_code}"
    return message if message.endswith((".", "!", "?")) else message + "."


def retryable(exc: BaseException) -> bool:
    if isinstance(exc, CrissRagError):
        return False
    if isinstance(exc, ResponseError):
        return exc.status_code in RETRY_STATUSES or exc.status_code >= 500
    # the ollama client raises the builtin ConnectionError for refused connections (streams: httpx's)
    return isinstance(exc, ConnectionError | httpx.ConnectError | httpx.TimeoutException)


def describe(exc: BaseException, ep: Endpoint, retries: int) -> CrissRagError:
    """The error to raise for ``exc`` after ``retries`` retries."""
    if isinstance(exc, CrissRagError):
        return exc
    where, url = ep.where, ep.url
    if isinstance(exc, httpx.TimeoutException):
        return ComponentError(
            f"{where}: no answer from Ollama at {url} within {ep.timeout:g} s ({retries_text(retries)}). If the model "
            "is "
            f"just slow or still loading, raise `request_timeout` (now {ep.timeout:g}) in the config; otherwise "
            "check `ollama ps` and the Ollama log."
        )
    if isinstance(exc, ConnectionError | httpx.ConnectError):
        return ComponentError(
            f"{where}: cannot connect to Ollama at {url} ({retries_text(retries)}). Is it running? Start it with "
            "`ollama serve`, or fix `base_url` in the config."
        )
    if isinstance(exc, httpx.TransportError):
        return ComponentError(
            f"{where}: the connection to Ollama at {url} broke off ({type(exc).__name__}: {exc}). "
            "Check the Ollama log; it may have crashed or restarted."
        )
    if isinstance(exc, ResponseError):
        status, message = exc.status_code, _message(exc)
        if status in (401, 403):
            return ComponentError(
                f"{where}: Ollama at {url} refused the request (HTTP {status}: {message}) If a proxy in front of "
                "Ollama wants a key: the ollama client sends the environment variable OLLAMA_API_KEY as a bearer "
                "token; check that it is set to a key the server accepts."
            )
        if status == 404:
            if ep.model in str(exc.error):
                return ComponentError(
                    f"{where}: Ollama at {url} has no model {ep.model!r} ({message}) Download it with "
                    f"`ollama pull {ep.model}`, or fix `model` in the config (`ollama list` shows the pulled models)."
                )
            return ComponentError(
                f"{where}: Ollama at {url} answered HTTP 404 ({message}) Check `base_url`: it is the server's "
                "address without a path, e.g. http://127.0.0.1:11434."
            )
        if status == 429:
            return ComponentError(
                f"{where}: Ollama at {url} is rate-limiting requests (HTTP 429, {retries_text(retries)}): {message} "
                f"Wait and try again, or raise `max_retries` (now {ep.max_retries})."
            )
        if status >= 500:
            return ComponentError(
                f"{where}: Ollama at {url} failed (HTTP {status}, {retries_text(retries)}): {message} Check the Ollama "
                f"log; if it is busy, try again later or raise `max_retries` (now {ep.max_retries})."
            )
        if status < 0:  # an error line in the middle of a stream
            return ComponentError(f"{where}: Ollama at {url} reported an error: {message}")
        return ComponentError(f"{where}: Ollama at {url} refused the request (HTTP {status}): {message}")
    return ComponentError(f"{where}: request to Ollama at {url} failed: {type(exc).__name__}: {exc}")


def call_with_retries(call: Callable[[], T], ep: Endpoint, sleep: Callable[[float], None] = time.sleep) -> T:
    retry = 0
    while True:
        try:
            return call()
        except Exception as exc:
            if retry < ep.max_retries and retryable(exc):
                sleep(ep.wait(retry))
                retry += 1
                continue
            _raise(exc, ep, retry)


async def acall_with_retries(call: Callable[[], Awaitable[T]], ep: Endpoint) -> T:
    retry = 0
    while True:
        try:
            return await call()
        except Exception as exc:
            if retry < ep.max_retries and retryable(exc):
                await asyncio.sleep(ep.wait(retry))
                retry += 1
                continue
            _raise(exc, ep, retry)


def stream_with_retries(start: Callable[[], Iterator[T]], ep: Endpoint) -> Iterator[T]:
    """Retry a stream until its first chunk arrives; after that a failure is final (the caller has
    already seen part of the answer)."""
    retry = 0
    while True:
        try:
            stream = start()
            first = next(stream)
        except StopIteration:  # not even the "done" line
            raise unfinished_stream(ep) from None
        except Exception as exc:
            if retry < ep.max_retries and retryable(exc):
                time.sleep(ep.wait(retry))
                retry += 1
                continue
            _raise(exc, ep, retry)
        break
    yield with_usage(first)
    last = first
    try:
        for item in stream:
            last = item
            yield with_usage(item)
    except Exception as exc:
        _raise(exc, ep, retry)
    if not _done(last):
        raise unfinished_stream(ep)


async def astream_with_retries(start: Callable[[], Awaitable[AsyncIterator[T]]], ep: Endpoint) -> AsyncIterator[T]:
    retry = 0
    while True:
        try:
            stream = await start()
            first = await stream.__anext__()
        except StopAsyncIteration:
            raise unfinished_stream(ep) from None
        except Exception as exc:
            if retry < ep.max_retries and retryable(exc):
                await asyncio.sleep(ep.wait(retry))
                retry += 1
                continue
            _raise(exc, ep, retry)
        break
    yield with_usage(first)
    last = first
    try:
        async for item in stream:
            last = item
            yield with_usage(item)
    except Exception as exc:
        _raise(exc, ep, retry)
    if not _done(last):
        raise unfinished_stream(ep)


def _done(chunk: Any) -> bool:
    """Whether a streamed chunk is Ollama's last (``"done": true``)."""
    raw = getattr(chunk, "raw", None)
    return bool(raw.get("done") if isinstance(raw, dict) else getattr(raw, "done", False))


def unfinished_stream(ep: Endpoint) -> ComponentError:
    """A stream whose last line is not ``"done": true``: the connection closed mid-answer, and what
    arrived is a truncated answer that must not be shown as if it were whole."""
    return ComponentError(
        f"{ep.where}: the answer from Ollama at {ep.url} stopped before Ollama finished it (the stream "
        "ended without its \"done\" line: the connection closed mid-answer). Check the Ollama log; it may "
        "have crashed or restarted."
    )


def _raise(exc: BaseException, ep: Endpoint, retries: int) -> None:
    if isinstance(exc, CrissRagError):
        raise exc
    raise describe(exc, ep, retries) from exc

