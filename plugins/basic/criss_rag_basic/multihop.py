"""Multi-hop policies: when the evidence so far does not cover the question, name a follow-up search.

The cancer-registrar assistant retrieved again when its evidence was short. ``missing-terms``
does this offline: the question's terms that the evidence lacks become the next query.
``llm-judge`` asks an LLM instead, in a strict reply format, and falls back to ``missing-terms``
(with a logged warning) when the reply does not follow it: an unreadable verdict is never taken
for "covered".

The engine appends each hop's new candidates after the ones it had, so a policy that only read
the top candidates would never see what its own hops found. Both policies therefore read the
top candidates plus every candidate added by earlier hops of the same question, and never ask
the same follow-up twice.
"""

from __future__ import annotations

import logging
import re
import threading
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import refers_to
from criss_rag.types import Hit, Query
from criss_rag_basic.readable_keywords import surface_keywords, unique

log = logging.getLogger(__name__)


class _HopMemory(threading.local):
    """Per-question (and per-thread) memory: how many candidates the first hop saw, what was asked."""

    def __init__(self) -> None:
        self.initial = 0
        self.asked: set[str] = set()

    def start(self, hop: int, hits: list[Hit]) -> None:
        if hop <= 1:
            self.initial = len(hits)
            self.asked = set()

    def window(self, hits: list[Hit], top_n: int) -> list[Hit]:
        """The top ``top_n`` candidates plus those added by earlier hops."""
        return hits[:top_n] + hits[max(self.initial, top_n):]

    def first_time(self, follow_up: str) -> bool:
        key = " ".join(follow_up.split()).lower()
        if key in self.asked:
            return False
        self.asked.add(key)
        return True


class MissingTermsHop:
    """Searches again for the question's terms that the top candidates lack, when too many are missing."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        analyzer: str | dict[str, Any] = Field(
            "standard", description="registered analyzer name, or {name: ..., <params>}, for the question's key terms"
        )
        top_n: int = Field(3, ge=1, description="how many top candidates (title and text) are checked for the terms")
        max_missing_share: float = Field(
            0.25, ge=0, lt=1, description="hop only when more than this share of the question's terms is missing"
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.analyzer = ctx.analyzer(params.analyzer)
        self._memory = _HopMemory()

    def missing(self, question: str, hits: list[Hit]) -> tuple[list[str], list[str]]:
        """(the question's terms, those not found in ``hits``' titles and texts)."""
        terms = unique(self.analyzer.analyze(question))
        found: set[str] = set()
        for hit in hits:
            found.update(self.analyzer.analyze(f"{hit.metadata.get('title', '')}\n{hit.text}"))
        return terms, [t for t in terms if t not in found]

    def follow_up(self, query: Query, hits: list[Hit], *, min_share: float | None = None) -> str | None:
        """The missing terms as a query when more than ``min_share`` (default ``max_missing_share``) are missing."""
        threshold = self.params.max_missing_share if min_share is None else min_share
        terms, missing = self.missing(query.text, self._memory.window(hits, self.params.top_n))
        if not terms or not missing or len(missing) / len(terms) <= threshold:
            return None
        text = " ".join(surface_keywords(query.text, missing))
        return text if text and self._memory.first_time(text) else None

    def next_query(self, query: Query, hits: list[Hit], hop: int) -> str | None:
        self._memory.start(hop, hits)
        return self.follow_up(query, hits)


DEFAULT_JUDGE_PROMPT = """\
You check whether numbered evidence passages contain what is needed to answer a question.

Question: {question}

Evidence:
{evidence}

Reply with exactly one line, nothing else:
COVERED
if the evidence answers the question, or
MISSING: <a short search query for the missing information, in the question's language>
if it does not."""

_COVERED = re.compile(r"covered[.!。]?", re.IGNORECASE)
_MISSING = re.compile(r"missing(?:\s*[:：]\s*(.*))?", re.IGNORECASE)


def parse_verdict(reply: str) -> tuple[str, str]:
    """``("covered", "")``, ``("missing", query)`` (query may be empty) or ``("unparsed", "")``,
    from the first non-empty line of the reply (markdown emphasis and quotes ignored)."""
    for line in reply.splitlines():
        line = line.strip().strip("*_`\"'「」 ").strip()
        if not line:
            continue
        if _COVERED.fullmatch(line):
            return "covered", ""
        match = _MISSING.fullmatch(line)
        if match:
            return "missing", (match.group(1) or "").strip().strip("*_`\"'「」<> ").strip()
        return "unparsed", ""
    return "unparsed", ""


class LlmJudgeHop:
    """Asks an LLM whether the evidence covers the question (COVERED / MISSING: <query>); `missing-terms` fallback."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        llm: str = Field(description="key of the LLM under the pipeline's `llms:`",
                         json_schema_extra=refers_to(names="llm"))
        prompt: str = Field(
            DEFAULT_JUDGE_PROMPT,
            description="prompt template with {question} and {evidence}; it must ask for `COVERED` or "
            "`MISSING: <query>` on the first line; write other braces as {{ }}",
        )
        max_evidence: int = Field(5, ge=1, description="how many top candidates the LLM (and the fallback) reads")
        max_chars: int = Field(800, ge=50, description="characters of each passage shown to the LLM")
        analyzer: str | dict[str, Any] = Field("standard", description="analyzer of the `missing-terms` fallback")
        max_missing_share: float = Field(
            0.25, ge=0, lt=1, description="the fallback hops only when more than this share of the terms is missing"
        )

        @field_validator("prompt")
        @classmethod
        def _placeholders(cls, value: str) -> str:
            try:
                value.format(question="", evidence="")
            except (KeyError, IndexError, ValueError) as exc:
                raise ValueError(
                    "the prompt may use only {question} and {evidence}; write literal braces as {{ }} "
                    f"({exc!r})"
                ) from None
            if "{question}" not in value or "{evidence}" not in value:
                raise ValueError("the prompt must contain {question} and {evidence}")
            return value

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.llm = ctx.llm(params.llm)
        self.fallback = MissingTermsHop(
            MissingTermsHop.Params(analyzer=params.analyzer, top_n=params.max_evidence,
                                   max_missing_share=params.max_missing_share),
            ctx,
        )
        #: the last verdict: covered, missing, repeated, unparsed (fallback) or missing-without-query (fallback)
        self.last_verdict = ""

    def render_evidence(self, hits: list[Hit]) -> str:
        lines = []
        for number, hit in enumerate(hits, start=1):
            text = " ".join(hit.text.split())[: self.params.max_chars]
            title = str(hit.metadata.get("title", "") or "")
            lines.append(f"[{number}] {title}\n{text}" if title else f"[{number}] {text}")
        return "\n\n".join(lines) or "(no evidence)"

    def next_query(self, query: Query, hits: list[Hit], hop: int) -> str | None:
        memory = self.fallback._memory  # one memory: the fallback must not repeat the judge's queries
        memory.start(hop, hits)
        window = memory.window(hits, self.params.max_evidence)
        prompt = self.params.prompt.format(question=query.text, evidence=self.render_evidence(window))
        reply = self.llm.complete(prompt).text or ""
        verdict, follow_up = parse_verdict(reply)
        if verdict == "covered":
            self.last_verdict = "covered"
            return None
        if verdict == "missing" and follow_up:
            if memory.first_time(follow_up):
                self.last_verdict = "missing"
                return follow_up
            self.last_verdict = "repeated"
            log.info("llm-judge: the LLM asked again for %r; stopping", follow_up)
            return None
        if verdict == "missing":
            # the judge says something is missing but not what: search for every missing term
            self.last_verdict = "missing-without-query"
            result = self.fallback.follow_up(query, hits, min_share=0.0)
            log.warning("llm-judge: the LLM %r said MISSING without a query; falling back to missing-terms: %r",
                        self.params.llm, result)
            return result
        self.last_verdict = "unparsed"
        result = self.fallback.follow_up(query, hits)
        log.warning("llm-judge: could not read the LLM %r verdict %r (expected COVERED or MISSING: <query>); "
                    "falling back to missing-terms: %r", self.params.llm, reply[:200], result)
        return result
