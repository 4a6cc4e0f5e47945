"""Loopback stub servers that speak the OpenAI and Ollama HTTP APIs, for tests.

LLM code is tested here with the *real* LlamaIndex clients against a *fake* server: a stdlib
``ThreadingHTTPServer`` on 127.0.0.1 (a free port) that answers in the wire format of the real
service, streaming included. Nothing leaves the machine and no model is needed.

Each server is a context manager; it stops (and closes every open connection) when the block
exits. What it does is scriptable:

- ``reply``: the answer text, or a function of the :class:`RecordedRequest` returning it;
- ``think``: when set, every reply starts with ``<think>{think}</think>``, as a reasoning model's do;
  or, the way servers that separate it send it, apart from the answer: the OpenAI stub with
  ``think_apart=True`` in ``reasoning_content`` (vLLM, llama.cpp's server, DeepSeek), the Ollama
  stub in ``message.thinking`` whenever the request asks ``"think": true`` (as Ollama does);
- ``fail(429, 500, ...)``, ``stall(seconds)`` or ``enqueue(Failure(...))``: a queue of scripted
  failures, consumed one per request (an HTTP error with the service's own error JSON, a delay
  longer than the client's timeout, or a stream that breaks off: ``Failure(cut_after=N)``);
- ``chunked=True``: streams are sent with ``Transfer-Encoding: chunked`` on a kept-alive connection
  (as llama.cpp's server and most proxies do) instead of a body that ends when the connection closes;
- ``keep_alive_every=N`` (OpenAI): an SSE comment ``: keep-alive`` before every N-th piece, as
  proxies and some servers send while a model is slow;
- ``api_key``: when set, requests without ``Authorization: Bearer <api_key>`` get a 401;
- ``models``: when set, requests for any other model get the service's 404 "model not found".

``requests`` logs every request (method, path, headers, parsed JSON body), so tests can assert
what the client sent.

Example::

    from llama_index.llms.openai_like import OpenAILike
    from criss_rag.testing.servers import OpenAIStubServer

    def test_the_client_sends_my_settings():
        with OpenAIStubServer(reply="Liver cancer starts in liver cells [1].") as server:
            llm = OpenAILike(model="m", api_base=server.base_url, api_key="k", is_chat_model=True,
                             temperature=0.1, max_retries=0)
            assert llm.complete("What is liver cancer?").text.startswith("Liver cancer")
            assert server.requests[-1].body["temperature"] == 0.1
            assert server.requests[-1].bearer == "k"
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import socket
import struct
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, ClassVar, Self

__all__ = [
    "Failure",
    "OllamaStubServer",
    "OpenAIStubServer",
    "RecordedRequest",
    "StubServer",
    "hash_vector",
    "unused_port",
]

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


def _count_words(text: str) -> int:
    return len(text.split())


def _text_of(content: Any) -> str:
    """Text of a chat message's content: a string, or a list of ``{"type": "text"}`` parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return ""


def _pieces(text: str) -> list[str]:
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
            return sum(_count_words(_text_of(m.get("content"))) for m in messages if isinstance(m, dict))
        prompt = body.get("prompt", "")
        return _count_words(prompt) if isinstance(prompt, str) else 0


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


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    stub: StubServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # a client that gave up (timeout) and closed its socket is expected in these tests
        pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer
    cut: Failure | None = None  # this request's stream breaks off (one handler serves a kept-alive connection)

    def setup(self) -> None:
        super().setup()
        self.server.stub._track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        finally:
            self.server.stub._track(self.connection, add=False)

    def log_message(self, format: str, *args: Any) -> None:
        pass  # keep test output clean

    def do_GET(self) -> None:
        self.server.stub._handle(self)

    def do_POST(self) -> None:
        self.server.stub._handle(self)

    # -- writing -----------------------------------------------------------------------------
    def send_json(self, status: int, payload: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def send_text(self, status: int, text: str) -> None:
        data = text.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def send_stream(self, content_type: str, chunks: Iterable[bytes], *, chunked: bool = False,
                    cut_after: int | None = None, error: bytes | None = None) -> None:
        """A streamed body: without a length, ending when the connection closes; or ``chunked``
        (``Transfer-Encoding: chunked``, the connection kept alive). ``cut_after``: only that many
        chunks, then ``error`` and the end of the stream, or, with no ``error``, a dropped connection."""
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Cache-Control", "no-cache")
        if chunked:
            self.send_header("Transfer-Encoding", "chunked")
        else:
            self.close_connection = True
            self.send_header("Connection", "close")
        self.end_headers()

        def write(data: bytes) -> None:
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data) if chunked else data)
            self.wfile.flush()

        for i, chunk in enumerate(chunks):
            if cut_after is not None and i >= cut_after:
                if error is None:  # the connection drops mid-stream
                    self.close_connection = True
                    self.connection.shutdown(socket.SHUT_RDWR)
                    return
                write(error)
                break
            write(chunk)
        if chunked:
            self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()


Route = Callable[[_Handler, RecordedRequest], None]


class StubServer:
    """Base of the stub servers: threading, request log, failure queue, auth and model checks.

    Subclasses define ``routes()`` and ``error_body()``; use :class:`OpenAIStubServer` or
    :class:`OllamaStubServer`.
    """

    def __init__(
        self,
        reply: Reply = "Stub answer about cancer.",
        *,
        api_key: str | None = None,
        models: Sequence[str] | None = None,
        embedding_dim: int = 64,
        think: str | None = None,
        think_apart: bool = False,
        chunked: bool = False,
        keep_alive_every: int = 0,
    ) -> None:
        self.reply = reply
        self.think = think
        self.think_apart = think_apart
        self.chunked = chunked
        self.keep_alive_every = keep_alive_every
        self.api_key = api_key
        self.models = list(models) if models is not None else None
        self.embedding_dim = embedding_dim
        self._requests: list[RecordedRequest] = []
        self._failures: deque[Failure] = deque()
        self._lock = threading.Lock()
        self._stopping = threading.Event()
        self._connections: set[socket.socket] = set()
        self._httpd: _HTTPServer | None = None
        self._port: int | None = None
        self._thread: threading.Thread | None = None
        self._routes = self.routes()

    # -- lifecycle --------------------------------------------------------------------------------
    def start(self) -> Self:
        if self._httpd is not None:
            return self
        self._stopping.clear()
        httpd = _HTTPServer((HOST, 0), _Handler)
        httpd.stub = self
        self._httpd = httpd
        self._port = int(httpd.server_address[1])
        # a short poll interval so that stop() returns at once
        self._thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.01},
                                        name=f"{type(self).__name__}:{self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, wake any stalled request, and close every open connection."""
        httpd, self._httpd = self._httpd, None
        if httpd is None:
            return
        self._stopping.set()
        httpd.shutdown()
        httpd.server_close()
        with self._lock:
            connections = list(self._connections)
        for conn in connections:  # keep-alive connections would otherwise outlive the server
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        """The port it listens on (still known after it stopped, for assertions on messages)."""
        if self._port is None:
            raise RuntimeError("the stub server was never started; use it in a `with` block or call start()")
        return self._port

    @property
    def url(self) -> str:
        """``http://127.0.0.1:<port>`` (no path)."""
        return f"http://{HOST}:{self.port}"

    @property
    def base_url(self) -> str:
        """The URL a client is configured with (OpenAI: ``.../v1``; Ollama: the plain URL)."""
        return self.url

    # -- scripting ---------------------------------------------------------------------------------
    def fail(self, *statuses: int, message: str | None = None, retry_after: float | None = None) -> Self:
        """Answer the next requests with these HTTP statuses, one per request, in order."""
        return self.enqueue(*(Failure(status=s, message=message, retry_after=retry_after) for s in statuses))

    def stall(self, seconds: float, times: int = 1) -> Self:
        """Delay the next ``times`` requests by ``seconds`` (then answer them normally)."""
        return self.enqueue(*(Failure(delay=seconds) for _ in range(times)))

    def enqueue(self, *failures: Failure) -> Self:
        with self._lock:
            self._failures.extend(failures)
        return self

    @property
    def pending_failures(self) -> int:
        with self._lock:
            return len(self._failures)

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, oldest first (a copy)."""
        with self._lock:
            return list(self._requests)

    def requests_to(self, path: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path == path]

    def clear(self) -> None:
        """Forget logged requests and pending failures."""
        with self._lock:
            self._requests.clear()
            self._failures.clear()

    def reply_for(self, request: RecordedRequest) -> str:
        text = self.reply(request) if callable(self.reply) else self.reply
        if self.think is None or self.thinking_apart(request) is not None:
            return text
        return f"<think>{self.think}</think>\n{text}"

    def thinking_apart(self, request: RecordedRequest) -> str | None:
        """The thinking this request gets in the service's own field, apart from the answer."""
        return self.think if self.think is not None and self.think_apart else None

    # -- for subclasses --------------------------------------------------------------------------------
    def routes(self) -> dict[tuple[str, str], Route]:
        raise NotImplementedError

    def error_body(self, status: int, message: str | None, model: str | None) -> Any:
        raise NotImplementedError

    def model_known(self, model: str) -> bool:
        return self.models is None or model in self.models

    def stream(self, handler: _Handler, request: RecordedRequest, content_type: str, chunks: Iterable[bytes]) -> None:
        """Send a streamed answer the way this server is set up to (chunked or not, cut off or not)."""
        cut: Failure | None = getattr(handler, "cut", None)
        error = None
        if cut is not None and cut.status is not None:
            error = self.stream_error(self.error_body(cut.status, cut.message, request.model))
        handler.send_stream(content_type, chunks, chunked=self.chunked,
                            cut_after=None if cut is None else cut.cut_after, error=error)

    def stream_error(self, body: Any) -> bytes:
        """The service's error inside a started stream."""
        raise NotImplementedError

    def vectors(self, texts: Sequence[str], dim: int | None = None) -> list[list[float]]:
        return [hash_vector(text, dim or self.embedding_dim) for text in texts]

    # -- request handling -----------------------------------------------------------------------------
    def _track(self, conn: socket.socket, *, add: bool) -> None:
        with self._lock:
            (self._connections.add if add else self._connections.discard)(conn)

    def _handle(self, handler: _Handler) -> None:
        handler.cut = None
        path = handler.path.split("?", 1)[0]
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""
        try:
            body = json.loads(raw) if raw else None
        except ValueError:
            handler.send_json(400, self.error_body(400, "request body is not valid JSON", None))
            return
        request = RecordedRequest(handler.command, path, {k.lower(): v for k, v in handler.headers.items()}, body,
                                  time.monotonic())
        with self._lock:
            self._requests.append(request)
            failure = self._failures.popleft() if self._failures else None
        try:
            self._answer(handler, request, failure)
        except OSError:
            handler.close_connection = True  # the client went away (e.g. it timed out)

    def _answer(self, handler: _Handler, request: RecordedRequest, failure: Failure | None) -> None:
        if failure is not None and failure.cut_after is not None:
            handler.cut = failure  # read by stream(): the answer starts normally and breaks off
            failure = None
        if failure is not None:
            if failure.delay and self._stopping.wait(failure.delay):
                handler.close_connection = True  # the server is stopping: drop the request
                return
            if failure.status is not None:
                headers = {}
                if failure.retry_after is not None:
                    headers["retry-after-ms"] = f"{failure.retry_after * 1000:g}"
                    headers["Retry-After"] = str(max(1, math.ceil(failure.retry_after)))
                handler.send_json(failure.status, self.error_body(failure.status, failure.message, request.model),
                                  headers)
                return
        route = self._routes.get((request.method, request.path))
        if route is None:
            handler.send_json(404, self.error_body(404, f"no route {request.method} {request.path}", None))
            return
        if self.api_key is not None and request.bearer != self.api_key:
            handler.send_json(401, self.error_body(401, None, request.model))
            return
        if request.method == "POST" and request.model is not None and not self.model_known(request.model):
            handler.send_json(404, self.error_body(404, None, request.model))
            return
        route(handler, request)


class OpenAIStubServer(StubServer):
    """Speaks the OpenAI API under ``/v1``: chat completions, completions, embeddings, models.

    ``base_url`` (``http://127.0.0.1:<port>/v1``) is what an OpenAI client takes as ``api_base``.
    Streaming answers are ``text/event-stream`` chunks of ``data: {...}`` ending with
    ``data: [DONE]``; ``stream_options.include_usage`` adds the usage chunk. Embeddings honour
    ``dimensions`` and ``encoding_format: base64`` (what the openai SDK asks for by default).
    """

    @property
    def base_url(self) -> str:
        return f"{self.url}/v1"

    def routes(self) -> dict[tuple[str, str], Route]:
        return {
            ("POST", "/v1/chat/completions"): self._chat,
            ("POST", "/v1/completions"): self._completions,
            ("POST", "/v1/embeddings"): self._embeddings,
            ("GET", "/v1/models"): self._list_models,
        }

    _ERRORS: ClassVar[dict[int, tuple[str, str, str | None]]] = {
        400: ("Invalid request.", "invalid_request_error", None),
        401: ("Incorrect API key provided. You can find your API key at https://platform.openai.com/account/api-keys.",
              "invalid_request_error", "invalid_api_key"),
        403: ("You are not allowed to sample from this model.", "invalid_request_error", "model_not_allowed"),
        404: ("The model `{model}` does not exist or you do not have access to it.", "invalid_request_error",
              "model_not_found"),
        429: ("Rate limit reached for requests. Please try again later.", "requests", "rate_limit_exceeded"),
        500: ("The server had an error while processing your request. Sorry about that!", "server_error", None),
        502: ("Bad gateway.", "server_error", None),
        503: ("The server is overloaded or not ready yet.", "server_error", None),
    }

    def error_body(self, status: int, message: str | None, model: str | None) -> Any:
        default, kind, code = self._ERRORS.get(status, (f"HTTP {status}", "server_error" if status >= 500 else
                                                        "invalid_request_error", None))
        text = message if message is not None else default.format(model=model)
        return {"error": {"message": text, "type": kind, "param": None, "code": code}}

    def _usage(self, request: RecordedRequest, text: str) -> dict[str, int]:
        prompt, completion = request.prompt_tokens, _count_words(text)
        return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}

    def _chat(self, handler: _Handler, request: RecordedRequest) -> None:
        self._generate(handler, request, chat=True)

    def _completions(self, handler: _Handler, request: RecordedRequest) -> None:
        self._generate(handler, request, chat=False)

    def _generate(self, handler: _Handler, request: RecordedRequest, *, chat: bool) -> None:
        body = request.body or {}
        text = self.reply_for(request)
        model = body.get("model", "stub-model")
        head = {"id": "stub-1", "object": "chat.completion" if chat else "text_completion", "created": 0,
                "model": model}
        usage = self._usage(request, text)
        thinking = self.thinking_apart(request) if chat else None
        if not body.get("stream"):
            choice: dict[str, Any] = {"index": 0, "finish_reason": "stop", "logprobs": None}
            if chat:
                choice["message"] = {"role": "assistant", "content": text}
                if thinking is not None:
                    choice["message"]["reasoning_content"] = thinking
            else:
                choice["text"] = text
            handler.send_json(200, {**head, "choices": [choice], "usage": usage})
            return
        head["object"] = "chat.completion.chunk" if chat else "text_completion"
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))

        def events() -> Iterator[bytes]:
            for piece in _pieces(thinking) if thinking else ():
                yield _sse(
                    {**head, "choices": [{"index": 0, "delta": {"reasoning_content": piece}, "finish_reason": None}]}
                )
            for i, piece in enumerate(_pieces(text)):
                if self.keep_alive_every and i % self.keep_alive_every == 0:
                    yield b": keep-alive\n\n"
                if chat:
                    delta = {"role": "assistant", "content": piece} if i == 0 else {"content": piece}
                    choice = {"index": 0, "delta": delta, "finish_reason": None}
                else:
                    choice = {"index": 0, "text": piece, "finish_reason": None}
                yield _sse({**head, "choices": [choice]})
            last = {"index": 0, "delta": {}, "finish_reason": "stop"} if chat else \
                {"index": 0, "text": "", "finish_reason": "stop"}
            yield _sse({**head, "choices": [last]})
            if include_usage:
                yield _sse({**head, "choices": [], "usage": usage})
            yield b"data: [DONE]\n\n"

        self.stream(handler, request, "text/event-stream", events())

    def stream_error(self, body: Any) -> bytes:
        return _sse(body)

    def _embeddings(self, handler: _Handler, request: RecordedRequest) -> None:
        body = request.body or {}
        raw = body.get("input", "")
        if isinstance(raw, str):
            texts = [raw]
        elif raw and all(isinstance(t, int) for t in raw):
            texts = [" ".join(map(str, raw))]  # one input given as token ids
        else:
            texts = [t if isinstance(t, str) else " ".join(map(str, t)) for t in raw]
        vectors = self.vectors(texts, body.get("dimensions"))
        as_base64 = body.get("encoding_format") == "base64"
        data = [
            {"object": "embedding", "index": i,
             "embedding": base64.b64encode(struct.pack(f"<{len(v)}f", *v)).decode("ascii") if as_base64 else v}
            for i, v in enumerate(vectors)
        ]
        tokens = sum(_count_words(t) for t in texts)
        handler.send_json(200, {"object": "list", "data": data, "model": body.get("model", "stub-embedding"),
                                "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})

    def _list_models(self, handler: _Handler, request: RecordedRequest) -> None:
        names = self.models if self.models is not None else ["stub-model"]
        handler.send_json(200, {"object": "list", "data": [
            {"id": name, "object": "model", "created": 0, "owned_by": "stub"} for name in names]})


def _sse(payload: Any) -> bytes:
    return f"data: {json.dumps(payload)}\n\n".encode()


class OllamaStubServer(StubServer):
    """Speaks the Ollama API: ``/api/chat``, ``/api/generate``, ``/api/embed``, the older
    ``/api/embeddings``, ``/api/show``, ``/api/tags`` and ``GET /`` ("Ollama is running").

    Streaming answers are NDJSON lines, the last one with ``"done": true`` and the token counts
    (``prompt_eval_count``, ``eval_count``). ``context_length`` is what ``/api/show`` reports.
    A model ``name`` also matches ``name:latest``, as in Ollama.
    """

    def __init__(self, reply: Reply = "Stub answer about cancer.", *, context_length: int = 8192,
                 **kwargs: Any) -> None:
        self.context_length = context_length
        super().__init__(reply, **kwargs)

    def routes(self) -> dict[tuple[str, str], Route]:
        return {
            ("GET", "/"): lambda handler, request: handler.send_text(200, "Ollama is running"),
            ("POST", "/api/chat"): self._chat,
            ("POST", "/api/generate"): self._generate,
            ("POST", "/api/embed"): self._embed,
            ("POST", "/api/embeddings"): self._embeddings,
            ("POST", "/api/show"): self._show,
            ("GET", "/api/tags"): self._tags,
        }

    def model_known(self, model: str) -> bool:
        return self.models is None or model in self.models or model.removesuffix(":latest") in self.models

    _ERRORS: ClassVar[dict[int, str]] = {
        400: "invalid request",
        401: "unauthorized",
        403: "forbidden",
        404: 'model "{model}" not found, try pulling it first',
        429: "too many requests",
        500: "llama runner process has terminated: exit status 2",
        503: "server busy, please try again.  maximum pending requests exceeded",
    }

    def error_body(self, status: int, message: str | None, model: str | None) -> Any:
        text = message if message is not None else self._ERRORS.get(status, f"HTTP {status}").format(model=model)
        return {"error": text}

    def _final(self, request: RecordedRequest, text: str) -> dict[str, Any]:
        return {"done": True, "done_reason": "stop", "total_duration": 1000, "load_duration": 100,
                "prompt_eval_count": request.prompt_tokens, "prompt_eval_duration": 100,
                "eval_count": _count_words(text), "eval_duration": 800}

    def _head(self, request: RecordedRequest) -> dict[str, Any]:
        return {"model": request.model or "stub", "created_at": "2025-01-01T00:00:00Z"}

    def thinking_apart(self, request: RecordedRequest) -> str | None:
        # Ollama separates a model's thinking when the request asks for it ("think": true)
        return self.think if self.think is not None and (request.body or {}).get("think") is True else None

    def _chat(self, handler: _Handler, request: RecordedRequest) -> None:
        self._answer_text(handler, request, lambda piece: {"message": {"role": "assistant", "content": piece}})

    def _generate(self, handler: _Handler, request: RecordedRequest) -> None:
        self._answer_text(handler, request, lambda piece: {"response": piece})

    def _answer_text(self, handler: _Handler, request: RecordedRequest,
                     shape: Callable[[str], dict[str, Any]]) -> None:
        text = self.reply_for(request)
        head = self._head(request)
        thinking = self.thinking_apart(request)

        def with_thinking(part: dict[str, Any], thought: str) -> dict[str, Any]:
            if thought and "message" in part:
                return {**part, "message": {**part["message"], "thinking": thought}}
            return {**part, "thinking": thought} if thought else part  # /api/generate: a top-level field

        # Ollama streams unless the request says "stream": false
        if (request.body or {}).get("stream") is False:
            handler.send_json(200, {**head, **with_thinking(shape(text), thinking or ""), **self._final(request, text)})
            return

        def lines() -> Iterator[bytes]:
            for piece in _pieces(thinking) if thinking else ():
                yield (json.dumps({**head, **with_thinking(shape(""), piece), "done": False}) + "\n").encode()
            for piece in _pieces(text):
                yield (json.dumps({**head, **shape(piece), "done": False}) + "\n").encode()
            yield (json.dumps({**head, **shape(""), **self._final(request, text)}) + "\n").encode()

        self.stream(handler, request, "application/x-ndjson", lines())

    def stream_error(self, body: Any) -> bytes:
        return (json.dumps(body) + "\n").encode()

    def _embed(self, handler: _Handler, request: RecordedRequest) -> None:
        body = request.body or {}
        raw = body.get("input", "")
        texts = [raw] if isinstance(raw, str) else [str(t) for t in raw]
        handler.send_json(200, {"model": body.get("model"), "embeddings": self.vectors(texts, body.get("dimensions")),
                                "total_duration": 1000, "load_duration": 100,
                                "prompt_eval_count": sum(_count_words(t) for t in texts)})

    def _embeddings(self, handler: _Handler, request: RecordedRequest) -> None:
        prompt = (request.body or {}).get("prompt", "")
        handler.send_json(200, {"embedding": hash_vector(str(prompt), self.embedding_dim)})

    def _show(self, handler: _Handler, request: RecordedRequest) -> None:
        handler.send_json(200, {
            "modelfile": "", "parameters": "", "template": "{{ .Prompt }}",
            "details": {"format": "gguf", "family": "llama", "parameter_size": "7B", "quantization_level": "Q4_0"},
            "model_info": {"general.architecture": "llama", "llama.context_length": self.context_length},
            "capabilities": ["completion"],
        })

    def _tags(self, handler: _Handler, request: RecordedRequest) -> None:
        names = self.models if self.models is not None else ["stub"]
        handler.send_json(200, {"models": [
            {"name": n, "model": n, "modified_at": "2025-01-01T00:00:00Z", "size": 0, "digest": "",
             "details": {"format": "gguf", "family": "llama"}} for n in names]})
