"""OpenAI SDK failures turned into :class:`~criss_rag.errors.ComponentError` s that say what to do
next, and token usage copied to where a generator can read it.

Retries are the SDK's own (``max_retries``: HTTP 408/409/429/5xx, connection errors and timeouts,
exponential backoff from 0.5 s doubling up to 8 s, or the server's ``Retry-After``); by the time an
error reaches this module they are spent, and the message says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx
import openai

from criss_rag.errors import ComponentError, CrissRagError
from criss_rag.plugin_utils import retries_text


@dataclass(frozen=True)
class Endpoint:
    """What an error message needs to know about one configured client."""

    where: str  # e.g. "llms.answer (openai-compatible, model 'qwen2.5')"
    url: str  # the api_base
    model: str
    timeout: float
    max_retries: int
    key_env: str | None = None  # the environment variable the key came from, if known
    has_key: bool = True  # False: the config gave no key (openai-compatible without api_key)
    secret: str | None = field(default=None, repr=False)  # only to scrub it from server messages

    @property
    def remote_openai(self) -> bool:
        return "api.openai.com" in self.url


def _server_message(exc: openai.APIStatusError, secret: str | None) -> str:
    body = exc.body
    message = body.get("message") if isinstance(body, Mapping) else None
    if not isinstance(message, str) or not message.strip():
        message = body if isinstance(body, str) and body.strip() else f"HTTP {exc.status_code}"
    message = " ".join(str(message).split())
    if secret:
        message = message.replace(secret, "***")
    return message if message.endswith((".", "!", "?")) else message + "."


def _chain(exc: BaseException) -> list[BaseException]:
    """``exc`` and its causes, outermost first."""
    chain = [exc]
    while chain[-1].__cause__ is not None and chain[-1].__cause__ not in chain:
        chain.append(chain[-1].__cause__)
    return chain


def _refused(exc: BaseException) -> bool:
    """A connection that could not be opened (as opposed to one that broke off)."""
    causes = _chain(exc)
    if len(causes) == 1 and isinstance(exc, openai.APIConnectionError):
        return True  # the SDK gave no detail
    return any(isinstance(c, httpx.ConnectError | ConnectionRefusedError) for c in causes)


def describe(exc: BaseException, ep: Endpoint) -> tuple[CrissRagError, bool]:
    """The error to raise for ``exc``, and whether to chain ``exc`` as its cause (never for
    authentication failures: a server's message may quote part of the key)."""
    if isinstance(exc, CrissRagError):
        return exc, False
    where, url = ep.where, ep.url
    if isinstance(exc, openai.APITimeoutError | httpx.TimeoutException):
        return ComponentError(
            f"{where}: no answer from {url} within {ep.timeout:g} s ({retries_text(ep.max_retries)}). If the model is "
            f"just slow, raise `timeout` (now {ep.timeout:g}) in the config; otherwise check that the server is "
            "not stuck."
        ), True
    if isinstance(exc, openai.APIConnectionError | httpx.ConnectError) and _refused(exc):
        hint = ("Check the network connection, or fix `api_base` in the config." if ep.remote_openai else
                "Is the server running? Start it (e.g. llama.cpp's llama-server, vllm serve, LM Studio), "
                "or fix `api_base` in the config.")
        return ComponentError(f"{where}: cannot connect to {url} ({retries_text(ep.max_retries)}). {hint}"), True
    if isinstance(exc, openai.APIConnectionError | httpx.TransportError):
        cause = next((c for c in _chain(exc) if isinstance(c, httpx.TransportError)), _chain(exc)[-1])
        return ComponentError(
            f"{where}: the connection to {url} broke off ({type(cause).__name__}: {cause}). "
            "Check the server's log; it may have crashed or restarted."
        ), True
    if isinstance(exc, openai.APIStatusError):
        status = exc.status_code
        if status in (401, 403):
            if not ep.has_key:
                return ComponentError(
                    f"{where}: the server at {url} requires an API key (HTTP {status}). Add "
                    "`api_key: {env: VAR_NAME}` to the config and export VAR_NAME=<the key>."
                ), False
            source = (f"The key comes from the environment variable {ep.key_env}" if ep.key_env
                      else "The key was given as `api_key`")
            if status == 401:
                return ComponentError(
                    f"{where}: the server at {url} rejected the API key (HTTP 401). {source}: check that it "
                    "holds a valid key for this server."
                ), False
            return ComponentError(
                f"{where}: the server at {url} does not let this API key use model {ep.model!r} (HTTP 403). "
                f"{source}: use a key (or project) that may use this model, or pick another `model`."
            ), False
        message = _server_message(exc, ep.secret)
        if status == 404:
            return ComponentError(
                f"{where}: the server at {url} has no model {ep.model!r} (HTTP 404: {message}) Use a model it "
                f"serves (GET {url}/models lists them), or fix `api_base` (an OpenAI-compatible URL ends in /v1)."
            ), True
        if status == 429:
            return ComponentError(
                f"{where}: the server at {url} is rate-limiting requests (HTTP 429, {retries_text(ep.max_retries)}): "
                f"{message} Wait and try again, or raise `max_retries` (now {ep.max_retries})."
            ), True
        if status >= 500:
            return ComponentError(
                f"{where}: the server at {url} failed (HTTP {status}, {retries_text(ep.max_retries)}): {message} "
                f"Check the server's log; if it is overloaded, try again later or raise `max_retries` "
                f"(now {ep.max_retries})."
            ), True
        return ComponentError(f"{where}: the server at {url} refused the request (HTTP {status}): {message}"), True
    text = str(exc).replace(ep.secret, "***") if ep.secret else str(exc)
    if type(exc) is openai.APIError:  # an error event inside a stream that had started (HTTP 200)
        return ComponentError(
            f"{where}: the server at {url} reported an error in the middle of the answer: {text} "
            "Check the server's log; no answer is made from the partial text."
        ), True
    return ComponentError(f"{where}: request to {url} failed: {type(exc).__name__}: {text}"), True


def finished(chunk: Any) -> bool:
    """Whether a streamed chunk is the one that closes the answer (a ``finish_reason`` is set)."""
    raw = getattr(chunk, "raw", None)
    choices = raw.get("choices") if isinstance(raw, dict) else getattr(raw, "choices", None)
    return any((c.get("finish_reason") if isinstance(c, dict) else getattr(c, "finish_reason", None))
               for c in choices or ())


def unfinished_stream(ep: Endpoint) -> ComponentError:
    """A stream that ended without a ``finish_reason``: the connection closed mid-answer, and
    what arrived is a truncated answer that must not be shown as if it were whole."""
    return ComponentError(
        f"{ep.where}: the answer from {ep.url} stopped before the server finished it (the stream ended "
        "without a finish_reason: the connection closed mid-answer). Check the server's log; it may have "
        "crashed or restarted."
    )


def raise_for(exc: BaseException, ep: Endpoint) -> None:
    """Raise the :class:`ComponentError` for ``exc`` (a criss_rag error is raised unchanged)."""
    if isinstance(exc, CrissRagError):
        raise exc
    error, chain = describe(exc, ep)
    if chain:
        raise error from exc
    raise error from None

