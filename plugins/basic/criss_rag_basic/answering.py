"""Answer-side stages: the evidence-threshold refusal policy and the numbered context builder."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from criss_rag.context import ComponentContext
from criss_rag.text import detect_language
from criss_rag.types import Context, Evidence, Hit, Query, Refusal

DEFAULT_REFUSALS = {
    "en": "Insufficient evidence: the sources available to me do not answer this question.",
    "ko": "근거 부족: 제공된 자료에서 이 질문에 대한 답을 찾을 수 없습니다.",
    "ja": "根拠が不十分です：参照できる資料にはこの質問への答えがありません。",
    "zh": "证据不足：现有资料无法回答这个问题。",
}

#: Words that name a cancer (regular expressions, case-insensitive), in English, Korean, Japanese
#: and Chinese. A question that names none is held to `min_coverage_no_cancer`.
CANCER_TERMS = [
    r"cancers?", r"tumou?rs?", r"neoplas", r"malignan", r"metasta", r"oncolog", r"leuka?emia",
    r"\w*(?:carcinom|sarcom|blastom|cytom|gliom|giom|lymphom|melanom|myelom|thymom|ymom|mesotheliom|adenom|seminom|teratom|chordom)as?",
    r"carcinoid",
    r"암", r"종양", r"백혈병", r"림프종", r"육종",
    r"がん", r"ガン", r"癌", r"腫瘍", r"肉腫", r"白血病", r"リンパ腫", r"骨髄腫",
    r"肿瘤", r"淋巴瘤", r"肉瘤",
]


class EvidenceThreshold:
    """Refuses when candidates are too few, their best score is too low, or they miss the question's terms.

    ``signal`` names a retriever label (e.g. ``faiss``) whose raw score is comparable across
    questions (a cosine similarity), unlike a fused rank score. ``min_coverage`` asks that the top
    candidates contain that share of the question's analyzed terms: a language-independent check
    for embedding models that score every Korean or Japanese text alike.

    ``min_coverage_no_cancer`` catches questions about other diseases ("What are the symptoms of
    Akesson syndrome?"), which sit close to cancer passages in embedding space: when the question
    names no cancer (no ``cancer_terms`` match), that share of its terms must appear somewhere among
    *all* the candidates. A disease name the corpus never mentions appears in none of them.
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
        coverage_analyzer: str = Field("standard", description="analyzer for the coverage checks")
        min_coverage_no_cancer: float | None = Field(
            None, ge=0, le=1,
            description="when the question names no cancer (no `cancer_terms` match): share of its terms that must "
            "appear somewhere among all the candidates (a disease the corpus never names appears in none)",
        )
        cancer_terms: list[str] = Field(
            default_factory=lambda: list(CANCER_TERMS),
            description="regular expressions (case-insensitive) for words that name a cancer, in any language",
        )
        message: dict[str, str] = Field(
            default_factory=lambda: dict(DEFAULT_REFUSALS),
            description="refusal text per question language (en, ko, ja, zh); en is the fallback",
        )
        no_evidence_message: dict[str, str] | None = Field(
            None, description="refusal text when nothing at all was retrieved (e.g. 'No references'); default: `message`"
        )

        @field_validator("cancer_terms")
        @classmethod
        def check_patterns(cls, value: list[str]) -> list[str]:
            for pattern in value:
                try:
                    re.compile(pattern)
                except re.error as exc:
                    raise ValueError(f"{pattern!r} is not a regular expression: {exc}") from None
            return value

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        if (params.signal is None) != (params.min_score is None):
            raise ValueError("set both `signal` and `min_score`, or neither")
        self.params = params
        needs_terms = params.min_coverage is not None or params.min_coverage_no_cancer is not None
        self.analyzer = ctx.analyzer(params.coverage_analyzer) if needs_terms else None
        self._cancer = re.compile("|".join(f"(?:{t})" for t in params.cancer_terms), re.IGNORECASE) \
            if params.cancer_terms else None

    def names_cancer(self, text: str) -> bool:
        """Whether ``text`` names a cancer (one of ``cancer_terms``)."""
        return bool(self._cancer and self._cancer.search(text))

    def unfound_terms(self, query: Query, hits: list[Hit]) -> tuple[list[str], float]:
        """The question's terms that no candidate contains, and the share of its terms that some do."""
        assert self.analyzer is not None
        wanted = list(dict.fromkeys(self.analyzer.analyze(query.text)))
        if not wanted:
            return [], 0.0
        found: set[str] = set()
        for hit in hits:
            found.update(self.analyzer.analyze(f"{hit.metadata.get('title', '')}\n{hit.text}"))
        missing = [t for t in wanted if t not in found]
        return missing, 1 - len(missing) / len(wanted)

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
        if p.min_coverage_no_cancer is not None and not self.names_cancer(query.text):
            missing, share = self.unfound_terms(query, hits)
            if share < p.min_coverage_no_cancer:
                shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
                return self._refuse(query, "off_topic", f"the question names no cancer, and {share:.0%} of its terms "
                                    f"appear in the {len(hits)} candidates (at least {p.min_coverage_no_cancer:.0%} "
                                    f"required; not found: {shown})")
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
