"""Typed values that flow between pipeline stages and come out of the engine; import them from here
(``from criss_rag.types import Answer, Hit, Query``).

- :mod:`criss_rag.types.stages`: per-query values (:class:`Query`, :class:`Hit`, :class:`Context`,
  :class:`Generation`, ...), plain dataclasses holding LlamaIndex types.
- :mod:`criss_rag.types.answer`: the engine's result (:class:`Answer` and its parts), pydantic
  models so it serialises to JSON exactly as ``criss-rag ask --json`` prints it; a judge's
  :class:`JudgeVerdict`.
- :mod:`criss_rag.types.cache`: an answer cache's :class:`CacheScope` and :class:`CacheHit`.
- :mod:`criss_rag.types.events`: what ``Engine.ask_stream`` yields (:data:`StreamEvent`).
"""

from __future__ import annotations

from criss_rag.types.answer import (
    Answer,
    CachedFrom,
    Citation,
    ContextItem,
    JudgeVerdict,
    RelevanceVerdict,
    SentenceProblem,
    SentenceSupport,
    StageTrace,
    Trace,
)
from criss_rag.types.cache import CacheHit, CacheScope
from criss_rag.types.events import AnswerEvent, ErrorEvent, ProgressEvent, StreamEvent, ThinkingEvent, TokenEvent
from criss_rag.types.stages import (
    ChatTurn,
    Context,
    Evidence,
    FilterOutcome,
    Generation,
    Hit,
    Query,
    Refusal,
    scored,
    text_node,
)

__all__ = [
    "Answer", "AnswerEvent", "CacheHit", "CacheScope", "CachedFrom", "ChatTurn", "Citation", "Context", "ContextItem",
    "ErrorEvent", "Evidence", "FilterOutcome", "Generation", "Hit", "JudgeVerdict", "ProgressEvent", "Query",
    "Refusal", "RelevanceVerdict", "SentenceProblem", "SentenceSupport", "StageTrace", "StreamEvent",
    "ThinkingEvent", "TokenEvent", "Trace", "scored", "text_node",
]
