"""The HTTP plumbing of the loopback stub servers: :class:`StubServer` (a stdlib
``ThreadingHTTPServer`` on 127.0.0.1 with a request log, a queue of scripted failures, API-key and
model checks, streaming that can be chunked or cut off, and a clean stop) and the request handler
it serves with. Each service's wire format is a subclass: :mod:`criss_rag.testing.openai_stub`,
:mod:`criss_rag.testing.ollama_stub`."""

from __future__ import annotations

import json
import math
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

from criss_rag.testing.stub_requests import HOST, Failure, RecordedRequest, Reply, hash_vector


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False
    stub: StubServer

    def handle_error(self, request: Any, client_address: Any) -> None:
        # a client that gave up (timeout) and closed its socket is expected in these tests
        pass


class StubHandler(BaseHTTPRequestHandler):
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


Route = Callable[[StubHandler, RecordedRequest], None]


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
        httpd = _HTTPServer((HOST, 0), StubHandler)
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

    def stream(self, handler: StubHandler, request: RecordedRequest, content_type: str,
               chunks: Iterable[bytes]) -> None:
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

    def _handle(self, handler: StubHandler) -> None:
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

    def _answer(self, handler: StubHandler, request: RecordedRequest, failure: Failure | None) -> None:
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
