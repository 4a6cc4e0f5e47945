"""The ``llm`` reranker: an LLM reads the top passages and names the relevant ones, best first.

With a backend that can constrain decoding (``llama-cpp``; ``openai-compatible`` with
``json_schema``) the reply is forced to ``{"relevant": [passage numbers]}``; otherwise the lenient
:func:`parse_order` reads free text. ``LLMReranker.stats`` counts the calls, the constrained ones
and the unparseable replies.
"""

from __future__ import annotations

import json
import logging
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import CITATION_MARKER, ParseStats, can_constrain, complete_json, refers_to
from criss_rag.types import Hit, Query

log = logging.getLogger(__name__)

SIGNAL = "llm-rank"
#: ``llm-rank`` of a passage the LLM saw but did not name.
UNMENTIONED = 0.0
#: ``llm-rank`` of every passage the LLM saw when its reply could not be parsed (order kept).
UNPARSED = -1.0

DEFAULT_PROMPT = """\
You are ranking evidence passages for a question from a cancer-information service.

Question: {question}

Passages:
{passages}

Which passages help answer the question? Reply with their numbers only, most relevant first, \
separated by commas (for example: 3, 1, 5). Leave out passages that do not help. \
If none of them helps, reply: none"""

_THINKING = re.compile(r"<think>.*?(?:</think>|$)", re.DOTALL | re.IGNORECASE)
_LIST_MARKER = re.compile(r"^\s*\d+[.)]\s+(?=\D*\d)")  # "1. [3] ..." in a numbered list: the 1 is not a passage
_NUMBER = re.compile(r"\d+")
_NONE = re.compile(
    r"^\W*(none|nothing|no passages?( help)?|없음|없습니다|なし|ありません|无|沒有|没有)\W*$", re.IGNORECASE
)


#: Appended to the prompt when the backend constrains the reply to JSON.
JSON_REPLY_NOTE = '\nReply as JSON: {"relevant": [numbers, most relevant first]} ([] if none helps).'


def order_schema(n: int) -> dict[str, Any]:
    """``{"relevant": [distinct passage numbers 1..n]}`` (``[]``: none helps)."""
    return {
        "type": "object",
        "properties": {"relevant": {"type": "array", "maxItems": n,
                                    "items": {"type": "integer", "enum": list(range(1, n + 1))}}},
        "required": ["relevant"],
        "additionalProperties": False,
    }


def json_order(reply: str, n: int) -> list[int] | None:
    """The order in a ``{"relevant": [...]}`` reply (repeats and numbers outside 1..n dropped), or
    ``None`` when the reply is not that JSON."""
    try:
        data = json.loads(reply)
    except ValueError:
        return None
    items = data.get("relevant") if isinstance(data, dict) else None
    if not isinstance(items, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in items):
        return None
    return list(dict.fromkeys(x for x in items if 1 <= x <= n))


def parse_order(reply: str, n: int) -> list[int] | None:
    """The passage numbers (1..n) a reply names, first mention first, without repeats.

    ``[]`` when the reply says that none helps; ``None`` when it names no passage and does not say
    none (unparseable). Reasoning blocks (``<think>...</think>``), numbered-list markers and numbers
    outside 1..n are ignored; bracketed numbers (``[3]``, ``[3, 1]``) win over bare ones when both appear.
    """
    text = _THINKING.sub(" ", reply)
    text = "\n".join(_LIST_MARKER.sub("", line) for line in text.splitlines())
    found = [n for m in CITATION_MARKER.finditer(text) for n in _NUMBER.findall(m.group(1))] or _NUMBER.findall(text)
    numbers = [int(x) for x in found if 1 <= int(x) <= n]
    if numbers:
        return list(dict.fromkeys(numbers))
    if _NONE.match(text.strip()):
        return []
    return None


class LLMReranker:
    """An LLM orders the top candidates (and may drop the ones it does not name).

    The LLM sees the question and the top ``candidates`` passages, numbered, and replies with the
    numbers of the relevant ones, best first. Named passages come first in that order; the others
    follow in their earlier order, or are dropped with ``drop_unmentioned``. Candidates beyond
    ``candidates`` follow unchanged. Signal ``llm-rank``: the position the LLM gave (1 = best), 0
    when it did not name the passage, -1 when its reply could not be parsed (then the order and
    scores are kept and a warning is logged). The ranking score of the passages it read becomes
    1 / their new position.
    """

    SIGNALS = (SIGNAL,)

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        llm: str = Field(description="key of the LLM under the pipeline's `llms:`",
                         json_schema_extra=refers_to(names="llm"))
        candidates: int = Field(10, ge=1, description="how many of the top candidates the LLM reads and orders")
        max_chars_per_passage: int = Field(
            600, ge=50, description="each passage is cut to this many characters in the prompt"
        )
        drop_unmentioned: bool = Field(
            False, description="drop the passages the LLM read but did not name (never on an unparseable reply)"
        )
        prompt: str = Field(
            DEFAULT_PROMPT,
            description="the prompt template; {question} and {passages} (numbered `[n] title: text` lines) are filled "
                        "in",
        )

        @field_validator("prompt")
        @classmethod
        def _placeholders(cls, value: str) -> str:
            missing = [p for p in ("{question}", "{passages}") if p not in value]
            if missing:
                raise ValueError(f"the prompt must contain {' and '.join(missing)}")
            return value

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.llm: Any = ctx.llm(params.llm)
        #: replies asked for, how many were constrained to JSON, how many could not be parsed
        self.stats = ParseStats()

    def render_prompt(self, query: Query, hits: list[Hit]) -> str:
        limit = self.params.max_chars_per_passage
        lines = []
        for number, hit in enumerate(hits, start=1):
            text = " ".join(hit.text.split())
            if len(text) > limit:
                text = text[: limit - 1].rstrip() + "…"
            title = " ".join(str(hit.metadata.get("title") or "").split())
            lines.append(f"[{number}] {title}: {text}" if title else f"[{number}] {text}")
        # replace, not str.format: passages and questions may contain braces
        return self.params.prompt.replace("{question}", query.text).replace("{passages}", "\n".join(lines))

    def rerank(self, query: Query, hits: list[Hit]) -> list[Hit]:
        if not hits:
            return hits
        reviewed, rest = hits[: self.params.candidates], hits[self.params.candidates :]
        prompt = self.render_prompt(query, reviewed)
        if can_constrain(self.llm):
            prompt += JSON_REPLY_NOTE
        answered = complete_json(self.llm, prompt, order_schema(len(reviewed)))
        reply = answered.text
        order = json_order(reply, len(reviewed))
        if order is None:
            order = parse_order(reply, len(reviewed))
        self.stats.record(constrained=answered.constrained, parsed=order is not None)
        if order is None:
            log.warning("llm reranker: could not find passage numbers in the LLM's reply %r; keeping the "
                        "original order of %d candidates", reply[:200], len(reviewed))
            return [_with_signal(h, h.score, UNPARSED) for h in reviewed] + rest
        named = [(reviewed[n - 1], float(position)) for position, n in enumerate(order, start=1)]
        mentioned = set(order)
        others = [] if self.params.drop_unmentioned else [
            (hit, UNMENTIONED) for i, hit in enumerate(reviewed, start=1) if i not in mentioned
        ]
        ranked = [_with_signal(hit, 1.0 / position, llm_rank)
                  for position, (hit, llm_rank) in enumerate(named + others, start=1)]
        return ranked + rest


def _with_signal(hit: Hit, score: float, llm_rank: float) -> Hit:
    out = hit.with_score(score)
    out.signals[SIGNAL] = llm_rank
    return out
