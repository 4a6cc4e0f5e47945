"""Structured output: a component asks an LLM for a reply that follows a JSON schema.

Backends that can constrain decoding (llama.cpp's in-process ``llama-cpp`` backend; an
``openai-compatible`` server with ``json_schema`` set) implement :class:`ConstrainedLLM`; with them
the reply is forced to follow the schema token by token, so a small model's reply parses. Every
other LLM gets the plain prompt: the component's lenient parser reads what comes back, and the
:class:`ParseStats` it keeps count how often that still fails.

    reply = complete_json(llm, prompt, RUBRIC_SCHEMA)
    reply.text          # what the model wrote
    reply.constrained   # True when the backend enforced the schema
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class ConstrainedLLM(Protocol):
    """An LLM that can force its reply to follow a JSON schema (or, for llama.cpp, a GBNF grammar)."""

    def complete_constrained(self, prompt: str, *, json_schema: dict[str, Any] | None = None,
                             grammar: str | None = None) -> Any:
        """A LlamaIndex ``CompletionResponse`` whose ``text`` follows ``json_schema`` (or ``grammar``).

        Raises ``NotImplementedError`` when this instance cannot constrain (e.g. a server
        configured without ``json_schema``): the caller then asks without the constraint."""
        ...


@dataclass(frozen=True)
class StructuredReply:
    text: str
    constrained: bool


def can_constrain(llm: Any) -> bool:
    """Whether ``llm`` enforces schemas (``supports_constrained`` false: it has the method, but it is off)."""
    return isinstance(llm, ConstrainedLLM) and bool(getattr(llm, "supports_constrained", True))


def complete_json(llm: Any, prompt: str, json_schema: dict[str, Any]) -> StructuredReply:
    """Ask ``llm`` for a reply following ``json_schema``: constrained where the backend can, plain otherwise."""
    if can_constrain(llm):
        try:
            response = llm.complete_constrained(prompt, json_schema=json_schema)
        except NotImplementedError:
            pass
        else:
            return StructuredReply(str(response.text or ""), True)
    return StructuredReply(str(llm.complete(prompt).text or ""), False)


@dataclass
class ParseStats:
    """How often a component's LLM replies parsed: for reports and the benchmarks (thread-safe)."""

    calls: int = 0
    constrained: int = 0
    parse_failures: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def record(self, *, constrained: bool, parsed: bool) -> None:
        with self._lock:
            self.calls += 1
            self.constrained += int(constrained)
            self.parse_failures += int(not parsed)

    def as_dict(self) -> dict[str, int]:
        with self._lock:
            return {"calls": self.calls, "constrained": self.constrained, "parse_failures": self.parse_failures}
