"""Answer vs reference by shared terms: ROUGE-1/2/L and containment.

rouge-score's own tokenizer keeps only ``[a-z0-9]``: every Korean pair scores 0 and Japanese
collapses to its Latin letters. Here the tokens come from a criss_rag analyzer instead (``auto``:
MeCab for Japanese, Kiwi for Korean, jieba for Chinese, English stemming otherwise), so CJK answers
are scored on their words. Citation markers ``[n]`` are removed first. A question without a
reference answer gets no value (missing, not 0).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.types import Answer
from criss_rag_metrics.common import REFERENCE_FIELDS, answer_text, reference_of


class _AnalyzerTokenizer:
    """The tokenizer object rouge-score accepts: ``tokenize(text) -> list[str]``."""

    def __init__(self, analyzer: Any) -> None:
        self.analyzer = analyzer

    def tokenize(self, text: str) -> list[str]:
        return list(self.analyzer.analyze(text))


class Rouge:
    """ROUGE-1/2/L F1 (and optionally precision and recall) of the answer against the reference,
    tokenised by an analyzer."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        analyzer: str | dict[str, Any] = Field(
            "auto",
            description="analyzer that tokenises answer and reference (name or {name: ..., params}); never "
                        "rouge-score's own, which drops CJK",
        )
        types: list[Literal["rouge1", "rouge2", "rougeL", "rougeLsum"]] = Field(
            default_factory=lambda: ["rouge1", "rouge2", "rougeL"], description="ROUGE variants to compute"
        )
        measures: list[Literal["f1", "precision", "recall"]] = Field(
            default_factory=lambda: ["f1"],
            description="which of each variant's measures to report (`rouge1` is F1, others get a suffix)",
        )
        reference_fields: list[str] = Field(
            default_factory=lambda: list(REFERENCE_FIELDS),
            description="question fields holding the reference answer, first present wins",
        )
        skip_refused: bool = Field(
            False, description="leave refused answers out (missing) instead of scoring the refusal message"
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        from rouge_score import rouge_scorer

        self.params = params
        self.analyzer = ctx.analyzer(params.analyzer)
        self.scorer = rouge_scorer.RougeScorer(list(params.types), tokenizer=_AnalyzerTokenizer(self.analyzer))

    def describe(self) -> str:
        return f"rouge-score with the {_name(self.params.analyzer)!r} analyzer as tokenizer"

    def compute(self, question: Mapping[str, Any], answer: Answer) -> dict[str, float]:
        reference = reference_of(question, self.params.reference_fields)
        text = answer_text(answer, self.params.skip_refused)
        if reference is None or text is None:
            return {}
        scores = self.scorer.score(reference, text)  # (target, prediction)
        out = {}
        for kind, score in scores.items():
            for measure in self.params.measures:
                value = {"f1": score.fmeasure, "precision": score.precision, "recall": score.recall}[measure]
                out[kind if measure == "f1" else f"{kind}_{measure}"] = float(value)
        return out


class Containment:
    """Share of the reference's distinct terms that the answer contains (the registrar assistant's
    containment score)."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        analyzer: str | dict[str, Any] = Field(
            "auto", description="analyzer whose terms are compared (name or {name: ..., params})"
        )
        reference_fields: list[str] = Field(
            default_factory=lambda: list(REFERENCE_FIELDS),
            description="question fields holding the reference answer, first present wins",
        )
        skip_refused: bool = Field(
            False, description="leave refused answers out (missing) instead of scoring the refusal message"
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.analyzer = ctx.analyzer(params.analyzer)

    def compute(self, question: Mapping[str, Any], answer: Answer) -> dict[str, float]:
        reference = reference_of(question, self.params.reference_fields)
        text = answer_text(answer, self.params.skip_refused)
        if reference is None or text is None:
            return {}
        wanted = set(self.analyzer.analyze(reference))
        if not wanted:
            return {}
        return {"containment": len(wanted & set(self.analyzer.analyze(text))) / len(wanted)}


def _name(spec: str | dict[str, Any]) -> str:
    return spec if isinstance(spec, str) else str(spec.get("name"))
