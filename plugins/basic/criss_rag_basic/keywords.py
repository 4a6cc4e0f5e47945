"""Query transforms that search for a few keywords instead of the whole question.

The Japanese guideline chatbot asked its LLM for two keywords and searched with those.
``llm-keywords`` does the same with any configured LLM; ``keywords`` is its offline stand-in
(the question's analyzer terms, joined back into compounds). Both set ``retrieval_text`` only:
the question itself still goes to the refusal policy and the generator, and the engine records
the keywords in the trace (``transform:<label>``, ``notes.retrieval_text``).

``llm-keywords`` asks a backend that can constrain decoding (``llama-cpp``; ``openai-compatible``
with ``json_schema``) for ``{"keywords": [...]}`` and gets exactly that shape; other backends get
the plain prompt and the lenient reply parser. ``LlmKeywordsTransform.stats`` counts the calls,
the constrained ones and the replies that gave no keyword (those fall back to ``keywords``).
"""

from __future__ import annotations

import json
import logging
from dataclasses import replace
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import ParseStats, complete_json, refers_to
from criss_rag.types import Query
from criss_rag_basic.readable_keywords import DEFAULT_STOPWORDS, parse_keyword_reply, surface_keywords

log = logging.getLogger(__name__)

#: The default keyword prompt (Japanese, like the system it reproduces): "From the following
#: question, output {n} search keywords separated by 、. Question: {question}"
DEFAULT_KEYWORD_PROMPT = "次の質問から検索用のキーワードを{n}個、読点区切りで出力してください。質問: {question}"


def keywords_schema(n: int, max_chars: int, choices: list[str] | None = None) -> dict[str, Any]:
    """``{"keywords": [1..n short strings]}``; with ``choices``, each keyword one of them."""
    item: dict[str, Any] = ({"type": "string", "enum": list(choices)} if choices else
                            {"type": "string", "minLength": 1, "maxLength": max_chars})
    return {
        "type": "object",
        "properties": {"keywords": {"type": "array", "minItems": 1, "maxItems": n, "items": item}},
        "required": ["keywords"],
        "additionalProperties": False,
    }


def json_keywords(reply: str) -> list[str] | None:
    """The ``keywords`` list of a JSON reply, or ``None`` when the reply is not that JSON."""
    try:
        data = json.loads(reply)
    except ValueError:
        return None
    items = data.get("keywords") if isinstance(data, dict) else None
    if not isinstance(items, list):
        return None
    return [str(item) for item in items if isinstance(item, str | int | float)]


def analyzer_keywords(analyzer: Any, text: str, max_keywords: int, *, merge_adjacent: bool = True,
                      stopwords: list[str] | tuple[str, ...] = ()) -> list[str]:
    """The first ``max_keywords`` keywords of ``text`` by the ``keywords`` rule."""
    terms = list(analyzer.analyze(text))
    return surface_keywords(text, terms, merge_adjacent=merge_adjacent, stopwords=stopwords)[:max_keywords]


class KeywordsTransform:
    """Searches for the question's first keywords (analyzer terms joined into compounds), not the whole question."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        analyzer: str | dict[str, Any] = Field(
            "standard", description="registered analyzer name, or {name: ..., <params>} (e.g. mecab: nouns)"
        )
        max_keywords: int = Field(2, ge=1, description="at most this many keywords (the Japanese system asked for 2)")
        merge_adjacent: bool = Field(
            True, description="join terms that touch in the question into one keyword (胸腺 + 腫 -> 胸腺腫)"
        )
        stopwords: list[str] = Field(
            default_factory=lambda: list(DEFAULT_STOPWORDS),
            description="keywords never chosen (question-frame nouns such as こと, 方法, 場合)",
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.analyzer = ctx.analyzer(params.analyzer)

    def keywords(self, text: str) -> list[str]:
        p = self.params
        return analyzer_keywords(self.analyzer, text, p.max_keywords, merge_adjacent=p.merge_adjacent,
                                 stopwords=p.stopwords)

    def transform(self, query: Query) -> Query:
        found = self.keywords(query.search_text)
        if not found:  # nothing but stopwords: search for the question as it is
            return query
        return replace(query, retrieval_text=" ".join(found))


class LlmKeywordsTransform:
    """Asks an LLM for search keywords (the Japanese system's step); `keywords` fallback when the reply has none."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        llm: str = Field(description="key of the LLM under the pipeline's `llms:`",
                         json_schema_extra=refers_to(names="llm"))
        max_keywords: int = Field(2, ge=1, description="how many keywords to ask for and keep")
        prompt: str = Field(
            DEFAULT_KEYWORD_PROMPT,
            description="prompt template with {n} (max_keywords) and {question}; write other braces as {{ }}",
        )
        max_keyword_chars: int = Field(
            40, ge=1, description="reply items longer than this are sentences, not keywords, and are dropped"
        )
        fallback_analyzer: str | dict[str, Any] = Field(
            "standard", description="analyzer of the `keywords` fallback, used when the reply yields no keyword"
        )
        from_question: bool = Field(
            False, description="keywords must be words of the question (its `fallback_analyzer` keywords): a "
                               "backend that constrains gets them as the only allowed values, and any other "
                               "reply's keywords that are not in the question are dropped (a small model "
                               "otherwise invents words)"
        )

        @field_validator("prompt")
        @classmethod
        def _placeholders(cls, value: str) -> str:
            try:
                value.format(n=2, question="")
            except (KeyError, IndexError, ValueError) as exc:
                raise ValueError(
                    f"the prompt may use only {{n}} and {{question}}; write literal braces as {{{{ }}}} ({exc!r})"
                ) from None
            if "{question}" not in value:
                raise ValueError("the prompt must contain {question}")
            return value

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.llm = ctx.llm(params.llm)
        self.fallback_analyzer = ctx.analyzer(params.fallback_analyzer)
        self.schema = keywords_schema(params.max_keywords, params.max_keyword_chars)
        #: what the last call did: "llm" or "fallback" (for tests and debugging)
        self.last_source = ""
        #: LLM replies asked for, how many were constrained to JSON, how many gave no keyword
        self.stats = ParseStats()

    def keywords(self, question: str) -> list[str]:
        p = self.params
        # the configured prompt as it is, also when the backend constrains: a format example in the
        # prompt is what a small model copies (SmolLM2 replied with the example's "..." items)
        prompt = p.prompt.format(n=p.max_keywords, question=question)
        choices = None
        if p.from_question:
            choices = analyzer_keywords(self.fallback_analyzer, question, 50, stopwords=DEFAULT_STOPWORDS)
        schema = keywords_schema(p.max_keywords, p.max_keyword_chars, choices) if choices else self.schema
        answered = complete_json(self.llm, prompt, schema)
        reply = answered.text
        items = json_keywords(reply)
        # the JSON items go through the same checks as a plain reply's (length, no sentences)
        text = "\n".join(items) if items is not None else reply
        found = parse_keyword_reply(text or "", max_chars=p.max_keyword_chars)
        if p.from_question:
            found = [k for k in found if k in question]
        found = found[: p.max_keywords]
        self.stats.record(constrained=answered.constrained, parsed=bool(found))
        if found:
            self.last_source = "llm"
            return found
        self.last_source = "fallback"
        found = analyzer_keywords(self.fallback_analyzer, question, p.max_keywords, stopwords=DEFAULT_STOPWORDS)
        log.warning("llm-keywords: no keyword in the LLM %r reply %r; using the question's analyzer keywords %r "
                    "instead", p.llm, (reply or "")[:200], found)
        return found

    def transform(self, query: Query) -> Query:
        found = self.keywords(query.search_text)
        if not found:
            return query
        return replace(query, retrieval_text=" ".join(found))
