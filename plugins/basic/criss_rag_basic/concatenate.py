"""The ``concatenate`` context builder: the Japanese guideline chatbot's context, with citations kept.

That system joined the texts of every page that passed its threshold, in score order, collapsed
whitespace and cut the result at 4,096 characters. This builder does the same and still numbers
the passages, so citations work: every passage that contributed text (the last one possibly cut)
becomes evidence ``[n]``, in rank order. With ``number: false`` the rendered text carries no
``[n]`` markers, exactly as that system sent it; the evidence is numbered all the same.

The limit applies to the rendered text, markers and titles included, so ``len(context.text)``
(or its cl100k token count with ``unit: tokens``) never exceeds ``max_chars``.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.types import Context, Evidence, Hit, Query


@cache
def cl100k() -> Any:
    """tiktoken's cl100k_base encoding, from the copy LlamaIndex ships (no download)."""
    import llama_index.core
    import tiktoken

    cache_dir = Path(llama_index.core.__file__).parent / "_static" / "tiktoken_cache"
    previous = os.environ.get("TIKTOKEN_CACHE_DIR")
    if previous is None:
        os.environ["TIKTOKEN_CACHE_DIR"] = str(cache_dir)
    try:
        return tiktoken.get_encoding("cl100k_base")
    finally:
        if previous is None:
            del os.environ["TIKTOKEN_CACHE_DIR"]


def collapse(text: str) -> str:
    """Every run of whitespace (line breaks included) as one space, ends stripped."""
    return " ".join(text.split())


class ConcatenateContext:
    """Candidates' texts in rank order, whitespace collapsed, cut at `max_chars`; each contributing one is [n]."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        max_chars: int = Field(
            4096,
            ge=1,
            description="the most the rendered context may hold, in `unit`s (the Japanese system: 4096 characters)",
        )
        unit: Literal["chars", "tokens"] = Field(
            "chars", description="what `max_chars` counts: characters, or cl100k tokens (tiktoken, offline)"
        )
        number: bool = Field(True, description="prefix each passage with its [n] marker in the rendered text")
        include_title: bool = Field(False, description="prefix each passage's text with its title")
        separator: str = Field(" ", description="put between passages (the passages' own whitespace is collapsed)")

    def __init__(self, params: Params, ctx: ComponentContext | None = None) -> None:
        self.params = params
        if params.unit == "tokens":
            encoding = cl100k()
            self.measure: Callable[[str], int] = lambda s: len(encoding.encode(s, allowed_special="all"))
        else:
            self.measure = len

    def _longest_prefix(self, before: str, text: str) -> str:
        """The longest prefix of ``text`` such that ``before + prefix`` fits the limit."""
        limit = self.params.max_chars
        low, high = 0, len(text)  # invariant: text[:low] fits (or low == 0)
        while low < high:
            middle = (low + high + 1) // 2
            if self.measure(before + text[:middle]) <= limit:
                low = middle
            else:
                high = middle - 1
        prefix = text[:low].rstrip()
        while prefix and self.measure(before + prefix) > limit:  # tokens need not grow monotonically
            prefix = prefix[:-1].rstrip()
        return prefix

    def build(self, query: Query, hits: list[Hit]) -> Context:
        p = self.params
        rendered = ""
        evidence: list[Evidence] = []
        for hit in hits:
            text = collapse(hit.text)
            if not text:
                continue
            number = len(evidence) + 1
            head = f"[{number}] " if p.number else ""
            if p.include_title and collapse(str(hit.metadata.get("title", "") or "")):
                head += collapse(str(hit.metadata["title"])) + " "
            before = rendered + (p.separator if rendered else "") + head
            if self.measure(before + text) <= p.max_chars:
                rendered = before + text
                evidence.append(Evidence(number, hit, text))
                continue
            cut = self._longest_prefix(before, text) if self.measure(before) < p.max_chars else ""
            if cut:
                rendered = before + cut
                evidence.append(Evidence(number, hit, cut))
            break  # the limit is reached
        return Context(tuple(evidence), rendered)
