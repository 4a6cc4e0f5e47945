"""A reasoning model's thinking (``<think>...</think>``), kept apart from its answer.

Reasoning models (DeepSeek-R1 distills, Qwen3, ...) write their thinking between ``<think>`` and
``</think>`` before the answer. That text is not the answer: it never reaches the answer text,
the refusal-phrase detection or the sentence check. Streamed, it becomes
:class:`~criss_rag.types.ThinkingEvent` s.
"""

from __future__ import annotations

import re

OPEN, CLOSE = "<think>", "</think>"
_BLOCK = re.compile(r"<think>(.*?)(?:</think>|\Z)", re.DOTALL | re.IGNORECASE)


def split_thinking(text: str) -> tuple[str, str]:
    """``(thinking, answer)`` of a whole reply. An unclosed ``<think>`` runs to the end (a reply
    cut off while thinking has no answer)."""
    thinking = [m.group(1).strip() for m in _BLOCK.finditer(text)]
    answer = _BLOCK.sub("", text)
    if not thinking and CLOSE in text.lower():  # the template opened <think> in the prompt
        head, _, answer = re.split(f"({re.escape(CLOSE)})", text, maxsplit=1, flags=re.IGNORECASE)
        thinking = [head.strip()]
    return "\n\n".join(t for t in thinking if t), answer.strip()


class ThinkSplitter:
    """Splits a stream of text pieces into ``("thinking" | "answer", text)`` parts as they come,
    with tags cut anywhere across pieces (``"<thi"`` + ``"nk>"``)."""

    def __init__(self) -> None:
        self.thinking = False
        self.buffer = ""

    def feed(self, piece: str) -> list[tuple[str, str]]:
        self.buffer += piece
        out: list[tuple[str, str]] = []
        while self.buffer:
            tag = CLOSE if self.thinking else OPEN
            at = self.buffer.lower().find(tag)
            if at >= 0:
                self._emit(out, self.buffer[:at])
                self.buffer = self.buffer[at + len(tag):]
                self.thinking = not self.thinking
                continue
            keep = _partial_tag(self.buffer, tag)  # a tag may be starting at the end: hold it back
            self._emit(out, self.buffer[: len(self.buffer) - keep])
            self.buffer = self.buffer[len(self.buffer) - keep:]
            break
        return out

    def finish(self) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        self._emit(out, self.buffer)
        self.buffer = ""
        return out

    def _emit(self, out: list[tuple[str, str]], text: str) -> None:
        if text:
            out.append(("thinking" if self.thinking else "answer", text))


def _partial_tag(text: str, tag: str) -> int:
    """How many characters at the end of ``text`` could be the start of ``tag``."""
    lowered = text.lower()
    for size in range(min(len(tag) - 1, len(text)), 0, -1):
        if tag.startswith(lowered[-size:]):
            return size
    return 0
