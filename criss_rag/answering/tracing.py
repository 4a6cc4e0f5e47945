"""Stage records of an answer's trace: how long a step took and what it kept."""

from __future__ import annotations

import time
from typing import Any

from criss_rag.component_helpers.model_loading import take_loads
from criss_rag.types import FilterOutcome, Hit, StageTrace, Trace


def ms_since(started: float) -> float:
    """Milliseconds since ``started`` (a ``time.perf_counter()`` reading), to the microsecond."""
    return round((time.perf_counter() - started) * 1000, 3)


def stage_trace(stage: str, component: str, n_in: int, hits: list[Hit], started: float,
                notes: dict | None = None) -> StageTrace:
    """The trace record of a step that took ``n_in`` candidates and kept ``hits``."""
    return scores_trace(stage, component, n_in, len(hits), [h.score for h in hits[:5]], started, notes)


def scores_trace(stage: str, component: str, n_in: int, n_out: int, top: list[float], started: float,
                 notes: dict | None = None) -> StageTrace:
    """The trace record of a step that took ``n_in`` candidates and kept ``n_out``, the first
    scoring ``top`` (up to five floats)."""
    return StageTrace.record(stage, component, n_in, n_out, ms_since(started), top, notes or {})


def filter_notes(outcome: FilterOutcome, n_in: int) -> dict[str, Any]:
    """A filter's trace notes: how many it kept, and how many it removed for which reason."""
    notes: dict[str, Any] = {"kept": len(outcome.hits), "removed": dict(outcome.removed), "applied": outcome.applied}
    if outcome.note:
        notes["note"] = outcome.note
    return notes


def add_stage(trace: Trace, stage: StageTrace) -> None:
    """Append ``stage`` to ``trace``; a model this thread loaded while the stage ran comes first as
    a ``load:<model>`` stage of its own, and its time is taken out of the stage's."""
    for load in take_loads():
        ms = round(load.seconds * 1000, 3)
        stage.ms = round(max(0.0, stage.ms - ms), 3)
        trace.stages.append(StageTrace(stage=f"load:{load.model}", component=stage.component, n_in=0, n_out=0,
                                       ms=ms, notes={"model": load.model, "needed_by": stage.stage}))
    trace.stages.append(stage)
