"""Bounded resources under clients that misbehave.

- :class:`AnswerPool`: the worker threads that answer (at most ``workers``), counting the answers
  in flight, so ``/health`` shows that a client that went away mid-answer left nothing running.
- :func:`header_timeout_protocol`: uvicorn's HTTP protocol with a deadline for a request's line and
  headers: a client that sends them slowly (or never) is disconnected after ``header_timeout_s``
  instead of holding its connection open; the deadline starts again for each keep-alive request.
- :func:`uvicorn_options`: those settings, plus the connection limit, as uvicorn keywords.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

log = logging.getLogger("criss_rag_serve")


class AnswerPool(ThreadPoolExecutor):
    """A thread pool that counts the jobs running in it (``in_flight``)."""

    def __init__(self, workers: int) -> None:
        super().__init__(max_workers=workers, thread_name_prefix="criss-rag-answer")
        self.workers = workers
        self._lock = threading.Lock()
        self.in_flight = 0

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        def counted() -> Any:
            with self._lock:
                self.in_flight += 1
            try:
                return fn(*args, **kwargs)
            finally:
                with self._lock:
                    self.in_flight -= 1

        return super().submit(counted)

    def threads(self) -> int:
        """Worker threads alive (never more than ``workers``)."""
        return sum(1 for t in self._threads if t.is_alive())


def header_timeout_protocol(header_timeout_s: float) -> type[H11Protocol]:
    """uvicorn's h11 protocol, closing a connection whose request headers take longer than
    ``header_timeout_s`` to arrive."""

    class HeaderTimeoutProtocol(H11Protocol):
        _header_timer: Any = None

        def connection_made(self, transport: Any) -> None:  # noqa: ANN401 - asyncio's transport
            super().connection_made(transport)
            self._arm_header_timer()

        def _arm_header_timer(self) -> None:
            self._cancel_header_timer()
            self._header_timer = self.loop.call_later(header_timeout_s, self._headers_too_slow)

        def _cancel_header_timer(self) -> None:
            if self._header_timer is not None:
                self._header_timer.cancel()
                self._header_timer = None

        def handle_events(self) -> None:
            super().handle_events()
            if self.conn.their_state is not h11.IDLE:  # the request line and headers are in
                self._cancel_header_timer()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
                self._arm_header_timer()  # the next request on this connection gets the same deadline

        def connection_lost(self, exc: Exception | None) -> None:
            self._cancel_header_timer()
            super().connection_lost(exc)

        def _headers_too_slow(self) -> None:
            self._header_timer = None
            if not self.transport.is_closing() and self.conn.their_state is h11.IDLE:
                log.warning("closed a connection from %s: no complete request headers within %g s",
                            "%s:%d" % self.client if self.client else "?", header_timeout_s)
                self.transport.close()

    return HeaderTimeoutProtocol


def uvicorn_options(header_timeout_s: float, max_connections: int) -> dict[str, Any]:
    """Keywords for ``uvicorn.Config`` / ``uvicorn.run``: the header deadline and the connection
    limit (beyond it uvicorn answers 503 at once)."""
    return {"http": header_timeout_protocol(header_timeout_s), "limit_concurrency": max_connections}
