"""Answer-side stages: the evidence-threshold refusal policy and the numbered context builder."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.text import detect_language
from criss_rag.types import Context, Evidence, Hit, Query, Refusal

DEFAULT_REFUSALS = {
    "en": "Insufficient evidence: the sources available to me do not answer this question.",
    "ko": "근거 부족: 제공된 자료에서 이 질문에 대한 답을 찾을 수 없습니다.",
    "ja": "根拠が不十分です：参照できる資料にはこの質問への答えがありません。",
    "zh": "证据不足：现有资料无法回答这个问题。",
}


class EvidenceThreshold:
    """Refuses when candidates are too few, their best score is too low, or they miss the question's terms.

    ``signal`` names a retriever label (e.g. ``faiss``) whose raw score is comparable across
    questions (a cosine similarity), unlike a fused rank score. ``min_coverage`` asks that the top
    candidates contain that share of the question's analyzed terms: a language-independent check
    for embedding models that score every Korean or Japanese text alike.
    """

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        min_hits: int = Field(1, ge=1, description="fewer candidates than this -> refuse")
        signal: str | None = Field(None, description="the score to test (a retriever label or stage label)")
        min_score: float | None = Field(None, description="refuse if the best `signal` score is below this")
        when_signal_missing: Literal["refuse", "skip"] = Field(
            "refuse", description="no candidate carries the signal (e.g. its retriever serves other languages)"
        )
        min_coverage: float | None = Field(None, ge=0, le=1, description="share of question terms the top candidates must contain")
        coverage_top_n: int = Field(3, ge=1, description="how many top candidates the coverage check reads")
        coverage_analyzer: str = Field("standard", description="analyzer for the coverage check")
        message: dict[str, str] = Field(
            default_factory=lambda: dict(DEFAULT_REFUSALS),
            description="refusal text per question language (en, ko, ja, zh); en is the fallback",
        )
        no_evidence_message: dict[str, str] | None = Field(
            None, description="refusal text when nothing at all was retrieved (e.g. 'No references'); default: `message`"
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        if (params.signal is None) != (params.min_score is None):
            raise ValueError("set both `signal` and `min_score`, or neither")
        self.params = params
        self.analyzer = ctx.analyzer(params.coverage_analyzer) if params.min_coverage is not None else None

    def coverage(self, query: Query, hits: list[Hit]) -> float:
        """Share of the question's terms found in the top candidates (title included)."""
        assert self.analyzer is not None
        wanted = set(self.analyzer.analyze(query.text))
        if not wanted:
            return 0.0
        found: set[str] = set()
        for hit in hits[: self.params.coverage_top_n]:
            found.update(self.analyzer.analyze(f"{hit.metadata.get('title', '')}\n{hit.text}"))
        return len(wanted & found) / len(wanted)

    def _refuse(self, query: Query, reason: str, detail: str) -> Refusal:
        language = detect_language(query.text)
        messages = self.params.message
        if reason == "no_evidence" and self.params.no_evidence_message:
            messages = self.params.no_evidence_message
        text = messages.get(language) or messages.get("en") or DEFAULT_REFUSALS["en"]
        return Refusal(reason, detail, text)

    def decide(self, query: Query, hits: list[Hit]) -> Refusal | None:
        p = self.params
        if len(hits) < p.min_hits:
            return self._refuse(query, "no_evidence" if not hits else "too_little_evidence",
                                f"{len(hits)} candidate(s), at least {p.min_hits} required")
        if p.signal is not None and p.min_score is not None:
            scores = [h.signals[p.signal] for h in hits if p.signal in h.signals]
            best = max(scores, default=None)
            if best is None and p.when_signal_missing == "skip":
                pass
            elif best is None or best < p.min_score:
                shown = "none" if best is None else f"{best:.3f}"
                return self._refuse(query, "weak_evidence", f"best {p.signal} score {shown} < {p.min_score}")
        if p.min_coverage is not None:
            share = self.coverage(query, hits)
            if share < p.min_coverage:
                return self._refuse(query, "off_topic", f"top candidates contain {share:.0%} of the question's terms, "
                                    f"at least {p.min_coverage:.0%} required")
        return None


class NumberedContext:
    """Numbers the top candidates [1]..[n] (at most ``max_per_document`` chunks per document)."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        max_evidence: int = Field(5, ge=1, description="how many passages to number")
        max_per_document: int = Field(2, ge=1, description="at most this many passages from one document")
        max_chars: int = Field(6000, ge=200, description="total characters of evidence text")

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params

    def build(self, query: Query, hits: list[Hit]) -> Context:
        chosen: list[Evidence] = []
        per_doc: dict[str, int] = {}
        budget = self.params.max_chars
        for hit in hits:
            if len(chosen) == self.params.max_evidence or budget <= 0:
                break
            if per_doc.get(hit.doc_id, 0) >= self.params.max_per_document:
                continue
            text = hit.text[:budget]
            budget -= len(text)
            per_doc[hit.doc_id] = per_doc.get(hit.doc_id, 0) + 1
            chosen.append(Evidence(len(chosen) + 1, hit, text))
        rendered = "\n\n".join(
            f"[{e.number}] {e.hit.metadata.get('title', '')}\n{e.text}".strip() for e in chosen
        )
        return Context(tuple(chosen), rendered)
