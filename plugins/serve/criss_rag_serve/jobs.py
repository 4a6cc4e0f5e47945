"""Engine calls off the event loop: a thread pool, a deadline per request, and SSE events.

The engine is synchronous (retrievers, embeddings, LLM clients). Each request's engine call runs
in a worker thread and the event loop waits for it with a deadline, so a slow or hung LLM call
ends only its own request (504, or an ``error`` event) while the server keeps answering others.
A thread that outlives its deadline keeps its worker until the LLM client's own timeout frees
it; set the LLM's ``timeout`` below the server's ``--timeout``.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from criss_rag.errors import CrissRagError
from criss_rag.plugin_utils import answer_pieces
from criss_rag.types import Answer, AnswerEvent, ErrorEvent, ProgressEvent, StreamEvent, ThinkingEvent, TokenEvent
from criss_rag_serve.sources import shown_answer

log = logging.getLogger("criss_rag_serve")


class ApiError(Exception):
    """An error answered as ``{"error": {"code", "message", "request_id"}}`` with ``status``."""

    def __init__(self, status: int, code: str, message: str, headers: dict[str, str] | None = None) -> None:
        super().__init__(message)
        self.status, self.code, self.message, self.headers = status, code, message, headers or {}


def timeout_error(timeout_s: float, request_id: str) -> ApiError:
    return ApiError(504, "timeout", f"no answer within {timeout_s:g} s: the pipeline (or its LLM) is slow or not "
                                    f"answering. Try again later; the server log has request {request_id}.")


def pipeline_error(exc: BaseException, request_id: str) -> ApiError:
    """What a client sees of a failed pipeline: the kind of failure and the request id, never the
    message (it may name internal hosts and files) or a traceback; both go to the server log."""
    log.error("request %s: the pipeline failed: %s", request_id, exc, exc_info=exc)
    kind = type(exc).__name__ if isinstance(exc, CrissRagError) else "internal error"
    return ApiError(
        502 if isinstance(exc, CrissRagError) else 500,
        "pipeline_error" if isinstance(exc, CrissRagError) else "internal_error",
        f"the pipeline could not answer ({kind}); the server log has the details under request {request_id}.",
    )


async def run_job(executor: ThreadPoolExecutor, work: Callable[[], Any], timeout_s: float, request_id: str,
                  on_done: Callable[[], None] | None = None) -> Any:
    """``work()`` in a worker thread, awaited for at most ``timeout_s`` (queueing included).
    ``on_done`` runs when the thread finishes or the job is dropped unstarted."""
    future: Future[Any] = executor.submit(work)
    if on_done is not None:
        future.add_done_callback(lambda _: on_done())
    try:
        return await asyncio.wait_for(asyncio.wrap_future(future), timeout_s)
    except TimeoutError:
        future.cancel()  # only drops it if it never started; a running thread finishes on its own
        log.warning("request %s: no answer within %g s", request_id, timeout_s)
        raise timeout_error(timeout_s, request_id) from None
    except CrissRagError as exc:
        raise pipeline_error(exc, request_id) from None


# -- streaming ----------------------------------------------------------------------------------------

_END = object()


def sse(event: str, payload: dict[str, Any]) -> dict[str, str]:
    """One server-sent event (JSON data; UTF-8 as is: Korean and Japanese are not escaped)."""
    return {"event": event, "data": json.dumps(payload, ensure_ascii=False)}


def answer_events(answer: Answer, extra: dict[str, Any]) -> list[dict[str, str]]:
    """``citations`` (with the per-sentence verdicts), then ``done`` (the whole answer)."""
    display = [{"text": text, "sentence": claim} for text, claim in answer_pieces(answer.text)]
    return [
        sse("citations", {"citations": [c.model_dump(mode="json") for c in answer.citations],
                          "sentences": [s.model_dump(mode="json") for s in answer.sentences],
                          "dropped": [s.model_dump(mode="json") for s in answer.dropped],
                          "relevance": answer.relevance.model_dump(mode="json") if answer.relevance else None}),
        sse("done", {**extra, "answer": answer.model_dump(mode="json"), "display": display,
                     "sources": [s.as_dict() for s in shown_answer(answer)[1]]}),
    ]


def stream_job(
    executor: ThreadPoolExecutor,
    events: Callable[[threading.Event], Iterator[StreamEvent]],
    timeout_s: float,
    request_id: str,
    extra: Callable[[], dict[str, Any]] = dict,
    on_done: Callable[[], None] | None = None,
) -> AsyncIterator[dict[str, str]]:
    """The engine's stream as SSE events: ``progress``, ``thinking`` and ``token`` events as they
    come, then ``citations`` and ``done``; or ``error``.

    The engine runs in a worker thread (started now, not when the response starts) that hands
    events to the loop; the deadline covers the whole stream. A client that goes away stops the
    worker at its next event: ``events(stop)`` gets the event that is set then, to pass on as the
    engine's ``cancel`` (the generator's stream is closed at its next piece, even one the gate holds)."""
    loop = asyncio.get_running_loop()
    queue: asyncio.Queue[Any] = asyncio.Queue()
    stop = threading.Event()

    def hand_over(item: Any) -> None:
        try:
            loop.call_soon_threadsafe(queue.put_nowait, item)
        except RuntimeError:  # the loop is gone (server shutting down)
            stop.set()

    def work() -> None:
        if stop.is_set():
            return
        stream = None
        try:
            stream = events(stop)
            for event in stream:
                hand_over(event)
                if stop.is_set():
                    break
        except BaseException as exc:  # noqa: BLE001 - handed to the loop, which logs it
            hand_over(exc)
        finally:
            close = getattr(stream, "close", None)
            if callable(close):
                close()
            hand_over(_END)

    future = executor.submit(work)
    if on_done is not None:
        future.add_done_callback(lambda _: on_done())
    deadline = loop.time() + timeout_s
    return _drain(queue, stop, future, deadline, timeout_s, request_id, extra)


async def _drain(
    queue: asyncio.Queue[Any],
    stop: threading.Event,
    future: Future[Any],
    deadline: float,
    timeout_s: float,
    request_id: str,
    extra: Callable[[], dict[str, Any]],
) -> AsyncIterator[dict[str, str]]:
    loop = asyncio.get_running_loop()
    try:
        while True:
            try:
                item = await asyncio.wait_for(queue.get(), max(0.0, deadline - loop.time()))
            except TimeoutError:
                log.warning("request %s: stream not finished within %g s", request_id, timeout_s)
                yield sse("error", _error_payload(timeout_error(timeout_s, request_id), request_id))
                return
            if isinstance(item, TokenEvent):
                yield sse("token", {"text": item.text})
            elif isinstance(item, ThinkingEvent):  # never part of the answer text
                yield sse("thinking", {"text": item.text})
            elif isinstance(item, ProgressEvent):
                yield sse("progress", {"step": item.step, "detail": item.detail})
            elif isinstance(item, AnswerEvent):
                for event in answer_events(item.answer, extra()):
                    yield event
                return
            elif isinstance(item, ErrorEvent | BaseException):
                error = item.error if isinstance(item, ErrorEvent) else item
                exc = error if isinstance(error, BaseException) else CrissRagError(item.message)
                yield sse("error", _error_payload(pipeline_error(exc, request_id), request_id))
                return
            else:  # _END before an answer: cannot happen with the engine's streams
                yield sse("error", _error_payload(pipeline_error(RuntimeError("the stream ended without an answer"),
                                                                 request_id), request_id))
                return
    finally:
        stop.set()
        future.cancel()


def _error_payload(error: ApiError, request_id: str) -> dict[str, Any]:
    return {"code": error.code, "message": error.message, "request_id": request_id}
