"""What the loopback stub servers record and are scripted with: :class:`RecordedRequest` (one
request as received), :class:`Failure` (a scripted failure) and ``Reply``; with the helpers every
wire format shares (:func:`hash_vector`, the stubs' embedding; :func:`unused_port`; word counts and
streaming pieces)."""

from __future__ import annotations

import hashlib
import math
import re
import socket
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

HOST = "127.0.0.1"
_WORD = re.compile(r"\w+")
_PIECE = re.compile(r"\S+\s*|\s+")


def hash_vector(text: str, dim: int = 64) -> list[float]:
    """The stub servers' embedding: an L2-normalised hashed bag of lower-cased words.

    Deterministic, so a test can compute the vector it expects; texts sharing words are close.
    A text without words gives the zero vector.
    """
    vec = [0.0] * dim
    for word in _WORD.findall(text.lower()):
        vec[int(hashlib.md5(word.encode("utf-8")).hexdigest(), 16) % dim] += 1.0
    norm = math.sqrt(sum(v * v for v in vec))
    return [v / norm for v in vec] if norm else vec


def unused_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (for "server is down" tests)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((HOST, 0))
        return int(sock.getsockname()[1])


def count_words(text: str) -> int:
    return len(text.split())


def _text_of(content: Any) -> str:
    """Text of a chat message's content: a string, or a list of ``{"type": "text"}`` parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def stream_pieces(text: str) -> list[str]:
    """Streaming pieces: each word with its trailing space (``"a b"`` -> ``["a ", "b"]``)."""
    return _PIECE.findall(text) or [text]


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the server received it. ``headers`` keys are lower-case; ``at`` is
    ``time.monotonic()`` on arrival (to check retry backoff)."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any  # the parsed JSON body, or None
    at: float = 0.0

    @property
    def bearer(self) -> str | None:
        """The token of an ``Authorization: Bearer <token>`` header."""
        value = self.headers.get("authorization", "")
        return value[len("Bearer "):] if value.startswith("Bearer ") else None

    @property
    def model(self) -> str | None:
        return self.body.get("model") if isinstance(self.body, dict) else None

    @property
    def prompt(self) -> str:
        """The text the model is asked about: the last user message, or the completion prompt."""
        body = self.body if isinstance(self.body, dict) else {}
        for message in reversed(body.get("messages") or []):
            if isinstance(message, dict) and message.get("role") == "user":
                return _text_of(message.get("content"))
        prompt = body.get("prompt", "")
        return prompt if isinstance(prompt, str) else ""

    @property
    def prompt_tokens(self) -> int:
        """Words in every message (or the prompt): the stub's stand-in for a token count."""
        body = self.body if isinstance(self.body, dict) else {}
        messages = body.get("messages")
        if isinstance(messages, list):
            return sum(count_words(_text_of(m.get("content"))) for m in messages if isinstance(m, dict))
        prompt = body.get("prompt", "")
        return count_words(prompt) if isinstance(prompt, str) else 0


@dataclass(frozen=True)
class Failure:
    """A scripted failure for one request.

    ``status``: answer with this HTTP status and the service's error JSON (``message`` replaces the
    default error text). ``delay``: wait this many seconds first; with no ``status`` the request is
    then answered normally, so a delay longer than the client's timeout makes the client time out.
    ``retry_after``: seconds, sent as ``retry-after-ms`` and ``Retry-After`` headers.
    ``cut_after``: a streamed answer starts normally (HTTP 200) and breaks off after this many
    pieces: with ``status``, the service's in-stream error follows (OpenAI: an SSE ``data:`` event
    holding an ``error`` object; Ollama: an NDJSON line ``{"error": ...}``) and the stream ends;
    without it the connection simply drops, the stream unfinished (no ``[DONE]``, no ``done``).
    A request that does not stream is answered normally.
    """

    status: int | None = None
    delay: float = 0.0
    message: str | None = None
    retry_after: float | None = None
    cut_after: int | None = None


Reply = str | Callable[[RecordedRequest], str]
