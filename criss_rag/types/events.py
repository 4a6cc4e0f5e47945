"""What :meth:`criss_rag.engine.Engine.ask_stream` yields: answer tokens, thinking, progress, the
final answer, or an error."""

from __future__ import annotations

from dataclasses import dataclass

from criss_rag.types.answer import Answer


@dataclass(frozen=True)
class TokenEvent:
    """A piece of the answer text, as the generator streams it."""

    text: str
    kind: str = "token"


@dataclass(frozen=True)
class ThinkingEvent:
    """A piece of a reasoning model's thinking (its ``<think>`` text): streamed apart from the
    answer, never part of the answer text or the sentence check."""

    text: str
    kind: str = "thinking"


@dataclass(frozen=True)
class ProgressEvent:
    """The pipeline reached a step: ``step`` is ``retrieving``, ``hop``, ``filtering``,
    ``reranking``, ``refusal_check``, ``generating`` or ``checking``; ``detail`` says more (e.g.
    the hop's query)."""

    step: str
    detail: str = ""
    kind: str = "progress"


@dataclass(frozen=True)
class AnswerEvent:
    """The final :class:`Answer` (checked citations, sentence verdicts, trace); always last."""

    answer: Answer
    kind: str = "answer"


@dataclass(frozen=True)
class ErrorEvent:
    """The pipeline failed (e.g. the LLM timed out); ``message`` says what to do next. Last event."""

    message: str
    error: Exception | None = None
    kind: str = "error"


#: What :meth:`criss_rag.engine.Engine.ask_stream` yields.
StreamEvent = TokenEvent | ThinkingEvent | ProgressEvent | AnswerEvent | ErrorEvent
