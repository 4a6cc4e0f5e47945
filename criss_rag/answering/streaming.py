"""A generator's streamed pieces turned into stream events: thinking apart from the answer, text
held back while the generator may still decline or a sentence is unchecked, and a stream closed
as soon as its reader goes away."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from collections.abc import Generator as Generator_
from typing import Any

from criss_rag.answering.grounding_policy import SentenceGate
from criss_rag.answering.thinking import ThinkSplitter
from criss_rag.errors import ComponentError, CrissRagError, StreamCancelled
from criss_rag.types import Generation, StreamEvent, ThinkingEvent, TokenEvent


def always(text: str) -> bool:
    """A hold that never releases (a generator that cannot say whether it may still decline)."""
    return True


def stream_pieces(name: str, stream: Iterator[Any], pieces: list[str], gate: SentenceGate | None = None,
                   hold: Callable[[str], bool] | None = None, cancel: Any = None) -> Generator_[StreamEvent, None, Any]:
    """Yield a generator's streamed pieces as token events (collected in ``pieces``; through the
    ``gate`` when there is one), its ``<think>`` text (or the :class:`ThinkingEvent` s it yields)
    as thinking events; return what its stream returned (a final Generation, or None). Failures
    name the stage and component.

    While ``hold(answer text so far)`` is true (the generator may still decline), answer text is
    held back; it is released once ``hold`` turns false, or when the stream ends with an answer,
    and never when the stream ends in a refusal. Once ``cancel.is_set()`` the stream is closed and
    :class:`StreamCancelled` raised, at the next piece, held or not."""
    iterator = iter(stream)
    splitter = ThinkSplitter()
    answer: list[str] = []  # the answer text so far (thinking excluded)
    held: list[str] = []
    released = hold is None

    def shown(text: str) -> Iterator[StreamEvent]:
        if gate is None:
            yield TokenEvent(text)
        elif out := gate.feed(text):
            yield TokenEvent(out)

    def events(parts: list[tuple[str, str]]) -> Iterator[StreamEvent]:
        nonlocal released
        for kind, text in parts:
            if kind == "thinking":
                yield ThinkingEvent(text)
                continue
            answer.append(text)
            if not released:
                assert hold is not None
                if hold("".join(answer)):
                    held.append(text)
                    continue
                released, text = True, "".join(held) + text
                held.clear()
            yield from shown(text)

    try:
        while True:
            try:
                piece = next(iterator)
            except StopIteration as stop:
                yield from events(splitter.finish())
                if not released:
                    if isinstance(stop.value, Generation) and stop.value.refusal is not None:
                        return stop.value  # a refusal: nothing the generator wrote is shown
                    if held:
                        yield from shown("".join(held))
                if gate is not None and (out := gate.finish()):
                    yield TokenEvent(out)
                return stop.value
            except CrissRagError:
                raise
            except Exception as exc:
                raise ComponentError(
                    f"stage generator: component {name!r} failed: {type(exc).__name__}: {exc}"
                ) from exc
            if cancel is not None and cancel.is_set():
                raise StreamCancelled(f"stage generator: the reader went away; {name!r} was stopped mid-answer")
            if isinstance(piece, ThinkingEvent):
                yield piece
            elif piece:
                pieces.append(piece)
                yield from events(splitter.feed(piece))
    finally:  # also when the reader stops early (a client gone): the generator's stream (an LLM slot) is freed now
        close = getattr(iterator, "close", None)
        if callable(close):
            close()


def drain(steps: Generator_[Any, None, Any]) -> Any:
    """Run ``steps`` to the end, ignoring what it yields; return what it returns."""
    while True:
        try:
            next(steps)
        except StopIteration as stop:
            return stop.value
