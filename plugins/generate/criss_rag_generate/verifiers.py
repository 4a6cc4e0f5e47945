"""Sentence verifiers (YAML ``verifier:``): whether the evidence supports each answer sentence.

``meaning`` is the engine's built-in check (:mod:`criss_rag.answering.meaning_check`) made configurable: its
thresholds, and optionally a registered analyzer for its alignment terms. ``lexical`` is the
word-overlap check (the share of a sentence's terms found in a passage, nothing more). ``llm-check``
adds an LLM: it asks the model about the sentences the lexical check doubts (or about all of them).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import Any, Literal

from llama_index.core.llms import ChatMessage
from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import CLAUSE_THRESHOLD, MEANING_THRESHOLD, LexicalSupport, MeaningSupport, refers_to
from criss_rag.plugin_utils import LEXICAL_THRESHOLD as DEFAULT_THRESHOLD
from criss_rag.types import Context, Query, SentenceSupport

DEFAULT_CHECK_PROMPT = (
    "Evidence:\n{evidence}\n\nSentence: {sentence}\n\n"
    "Does the evidence above state everything the sentence claims? Answer YES or NO only."
)
_YES = re.compile(r"^\W*(yes|true|supported|예|네|はい|是|支持)", re.IGNORECASE)
_NO = re.compile(r"^\W*(no|false|unsupported|not supported|아니|いいえ|否|不)", re.IGNORECASE)


class MeaningVerifier:
    """Supported when a sentence aligns with its cited passage and nothing decisive in it (negation,
    numbers, stages, entities, populations, directions) is contradicted by or absent from it."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        threshold: float = Field(
            MEANING_THRESHOLD,
            ge=0,
            le=1,
            description="share of a sentence's content terms its aligned passage sentences must contain",
        )
        clause_threshold: float = Field(
            CLAUSE_THRESHOLD,
            ge=0,
            le=1,
            description="share of each clause's content terms the cited passages must contain",
        )
        fallback: bool = Field(True, description="when the cited evidence does not support the sentence, also try "
                                                 "the numbered passages together (the verdict then names one)")
        analyzer: str | dict[str, Any] | None = Field(
            None,
            description="analyzer for the alignment terms (e.g. auto, kiwi); default: the built-in multilingual terms",
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.threshold = params.threshold
        terms = None
        if params.analyzer is not None:
            analyze = ctx.analyzer(params.analyzer).analyze

            def terms(text: str, language: str | None = None) -> frozenset[str]:
                return frozenset(analyze(text))
        self.check = MeaningSupport(params.threshold, params.clause_threshold, fallback=params.fallback,
                                    terms=terms, name="meaning")

    def verify(self, query: Query, sentences: Sequence[SentenceSupport], context: Context) -> list[SentenceSupport]:
        return self.check.verify(query, sentences, context)


class LexicalVerifier:
    """Supported when a sentence's terms align with its cited evidence (else any evidence) above a threshold."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        analyzer: str | dict[str, Any] = Field("standard", description="analyzer that turns sentences and passages "
                                                                       "into terms (e.g. standard, auto, mecab, kiwi)")
        threshold: float = Field(DEFAULT_THRESHOLD, ge=0, le=1, description="a sentence is supported when this share "
                                                                            "of its terms is in the evidence")
        fallback: bool = Field(True, description="when the cited evidence falls short, also try every other "
                                                 "numbered passage (the verdict then names that passage)")

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.threshold = params.threshold
        self.check = LexicalSupport(ctx.analyzer(params.analyzer).analyze, params.threshold,
                                    fallback=params.fallback, name="lexical")

    def verify(self, query: Query, sentences: Sequence[SentenceSupport], context: Context) -> list[SentenceSupport]:
        return self.check.verify(query, sentences, context)


class LlmCheckVerifier:
    """Lexical check first; an LLM from `llms:` then decides the sentences it doubts (or all of them)."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        llm: str = Field(description="key of the LLM under the pipeline's `llms:`",
                         json_schema_extra=refers_to(names="llm"))
        analyzer: str | dict[str, Any] = Field("standard", description="analyzer of the lexical first pass")
        threshold: float = Field(DEFAULT_THRESHOLD, ge=0, le=1, description="threshold of the lexical first pass")
        check: Literal["doubtful", "all"] = Field("doubtful", description="ask the LLM about the sentences the "
                                                                          "lexical pass did not support, or about all")
        prompt: str = Field(DEFAULT_CHECK_PROMPT, description="the question put to the LLM, with {evidence} and "
                                                              "{sentence}; write other braces as {{ }}")

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.threshold = params.threshold
        self.lexical = LexicalSupport(ctx.analyzer(params.analyzer).analyze, params.threshold, name="lexical")
        self.llm = ctx.llm(params.llm)
        try:
            params.prompt.format(evidence="", sentence="")
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(
                f"`prompt` may use only {{evidence}} and {{sentence}} (other braces as {{{{ }}}}): {exc}"
            ) from None

    def verify(self, query: Query, sentences: Sequence[SentenceSupport], context: Context) -> list[SentenceSupport]:
        out = []
        for sentence in self.lexical.verify(query, sentences, context):
            if self.params.check == "all" or not sentence.supported:
                sentence = self._ask(sentence, context)
            out.append(sentence)
        return out

    def _ask(self, sentence: SentenceSupport, context: Context) -> SentenceSupport:
        numbers = sentence.cited or [e.number for e in context.evidence]
        evidence = "\n\n".join(f"[{e.number}] {e.hit.metadata.get('title', '')}\n{e.text}".strip()
                               for e in context.evidence if e.number in numbers)
        prompt = self.params.prompt.format(evidence=evidence, sentence=sentence.text)
        reply = str(self.llm.chat([ChatMessage(role="user", content=prompt)]).message.content or "")
        answer = unicodedata.normalize("NFKC", reply).strip()
        if _YES.match(answer):
            supported = True
        elif _NO.match(answer):
            supported = False
        else:  # an unreadable reply is no verdict: the lexical one stands, and says so
            return sentence.model_copy(update={"method": "lexical (llm reply unreadable)"})
        best = sentence.evidence if sentence.evidence is not None else (numbers[0] if supported and numbers else None)
        return sentence.model_copy(update={"supported": supported, "evidence": best if supported else None,
                                           "method": "llm"})
