"""Answer-side stages: the evidence-threshold refusal policy and the numbered context builder."""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationInfo, field_validator, model_validator

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import INSUFFICIENT_EVIDENCE, detect_language, message_for, refers_to
from criss_rag.types import Context, Evidence, Hit, Query, Refusal
from criss_rag_basic.languages import hit_language

#: the question languages ``detect_language`` tells apart; a per-language setting names each of them
LANGUAGES = ("en", "ko", "ja", "zh")

DEFAULT_REFUSALS = INSUFFICIENT_EVIDENCE  # the engine's own table (criss_rag.answering.refusal_messages)

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
        signal: str | dict[str, str] | None = Field(
            None, description="the score to test (a retriever label or stage label); or one per question language, "
            "`{en: faiss, ko: e5, ja: e5, zh: e5}` (every language en, ko, ja, zh named), for pipelines whose "
            "dense retrievers serve different languages",
            json_schema_extra=refers_to(names="signal", keys="language"),
        )
        min_score: float | dict[str, float] | None = Field(
            None, description="refuse if the best `signal` score is below this; or one per question language, "
            "`{en: 0.55, ko: 0.85, ...}` (every language named): cosine scales differ between models and languages",
            json_schema_extra=refers_to(keys="language"),
        )
        when_signal_missing: Literal["refuse", "skip"] = Field(
            "refuse", description="no candidate carries the signal (e.g. its retriever serves other languages)"
        )
        cross_lingual_min_score: dict[str, float] = Field(
            default_factory=dict,
            description="question languages that may be answered from passages in another language (a Korean "
            "question over English passages), each with the best `signal` score such evidence needs, e.g. "
            "`{ko: 0.82, ja: 0.82}`. When none of the top `coverage_top_n` candidates is in the question's language, "
            "the term-coverage checks (which cannot match words across languages) are skipped and this score decides; "
            "a language not named here is held to the usual checks",
            json_schema_extra=refers_to(keys="language"),
        )
        min_coverage: float | dict[str, float | None] | None = Field(
            None, description="share (0-1) of question terms the top candidates must contain; or one per question "
            "language, null for no check in that language (`{en: 0.3, ko: null, ja: null, zh: null}`: paraphrased "
            "Korean and Japanese questions share few words with the passages, the e5 score decides for them)",
            json_schema_extra=refers_to(keys="language"),
        )
        coverage_top_n: int = Field(3, ge=1, description="how many top candidates the coverage check reads")
        coverage_analyzer: str = Field("standard", description="analyzer for the coverage checks")
        min_coverage_no_cancer: float | dict[str, float | None] | None = Field(
            None,
            description="when the question names no cancer (no `cancer_terms` match): share (0-1) of its terms that "
            "must appear somewhere among all the candidates (a disease the corpus never names appears in none); or "
            "one per question language, null for no check in that language",
            json_schema_extra=refers_to(keys="language"),
        )
        cancer_terms: list[str] = Field(
            default_factory=lambda: list(CANCER_TERMS),
            description="regular expressions (case-insensitive) for words that name a cancer, in any language",
        )
        message: dict[str, str] = Field(
            default_factory=lambda: dict(DEFAULT_REFUSALS),
            description="refusal text per question language (en, ko, ja, zh; zh-Hant for a question in Traditional "
            "Chinese, else zh); en is the fallback",
            json_schema_extra=refers_to(keys="language"),
        )
        no_evidence_message: dict[str, str] | None = Field(
            None,
            description="refusal text when nothing at all was retrieved (e.g. 'No references'); default: `message`",
            json_schema_extra=refers_to(keys="language"),
        )

        @field_validator("signal", "min_score", "min_coverage", "min_coverage_no_cancer")
        @classmethod
        def check_languages(cls, value: str | float | dict | None, info: ValidationInfo) -> str | float | dict | None:
            if info.field_name.startswith("min_coverage"):
                for share in (value.values() if isinstance(value, dict) else [value]):
                    if share is not None and not 0 <= share <= 1:
                        raise ValueError(f"a share between 0 and 1, got {share}")
            if isinstance(value, dict):
                unknown = sorted(set(value) - set(LANGUAGES))
                missing = [lang for lang in LANGUAGES if lang not in value]
                if unknown or missing:
                    raise ValueError(
                        f"a per-language mapping names every question language {', '.join(LANGUAGES)} and nothing "
                        f"else (unknown: {', '.join(unknown) or 'none'}; missing: {', '.join(missing) or 'none'})"
                    )
            return value

        @field_validator("cross_lingual_min_score")
        @classmethod
        def check_cross_lingual(cls, value: dict[str, float]) -> dict[str, float]:
            unknown = sorted(set(value) - set(LANGUAGES))
            if unknown:
                raise ValueError(f"unknown question language(s) {', '.join(unknown)}; valid: {', '.join(LANGUAGES)}")
            return value

        @model_validator(mode="after")
        def check_pair(self) -> BaseModel:
            if (self.signal is None) != (self.min_score is None):
                raise ValueError("set both `signal` and `min_score`, or neither")
            if self.cross_lingual_min_score and self.signal is None:
                raise ValueError("`cross_lingual_min_score` tests the `signal` score: set `signal` and `min_score` too")
            return self

        def coverage_for(self, language: str) -> float | None:
            """``min_coverage`` for a question in ``language`` (``None``: no check)."""
            return self.min_coverage.get(language) if isinstance(self.min_coverage, dict) else self.min_coverage

        def no_cancer_coverage_for(self, language: str) -> float | None:
            """``min_coverage_no_cancer`` for a question in ``language`` (``None``: no check)."""
            value = self.min_coverage_no_cancer
            return value.get(language) if isinstance(value, dict) else value

        def score_check(self, language: str) -> tuple[str, float] | None:
            """The (signal, min_score) that applies to a question in ``language``, if any."""
            if self.signal is None or self.min_score is None:
                return None
            signal = self.signal[language] if isinstance(self.signal, dict) else self.signal
            minimum = self.min_score[language] if isinstance(self.min_score, dict) else self.min_score
            return signal, float(minimum)

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

    def cross_lingual(self, query: Query, hits: list[Hit]) -> bool:
        """Whether none of the top candidates is written in the question's language."""
        language = detect_language(query.text)
        top = hits[: self.params.coverage_top_n]
        return bool(top) and all(hit_language(h) != language for h in top)

    def _refuse(self, query: Query, reason: str, detail: str) -> Refusal:
        language = detect_language(query.text)
        messages = self.params.message
        if reason == "no_evidence" and self.params.no_evidence_message:
            messages = self.params.no_evidence_message
        text = message_for({"en": DEFAULT_REFUSALS["en"], **messages}, language, query.text)
        return Refusal(reason, detail, text)

    def skipped_checks(self, query: Query, hits: list[Hit]) -> list[str]:
        """The checks ``decide`` leaves out for this question, with why (the trace shows them):
        the score check when no candidate carries the signal and ``when_signal_missing: skip``."""
        language = detect_language(query.text)
        check = self.params.score_check(language)
        if check is None or self.params.when_signal_missing != "skip" or len(hits) < self.params.min_hits:
            return []
        if language in self.params.cross_lingual_min_score and self.cross_lingual(query, hits):
            return []
        if any(check[0] in h.signals for h in hits):
            return []
        return [f"score check skipped: no candidate carries the signal {check[0]!r} (question language {language}; "
                f"when_signal_missing: skip), so min_score {check[1]} was not tested"]

    def trace_notes(self, query: Query, hits: list[Hit]) -> dict[str, list[str]]:
        """What the engine adds to the refusal stage's trace notes."""
        skipped = self.skipped_checks(query, hits)
        return {"skipped_checks": skipped} if skipped else {}

    def decide(self, query: Query, hits: list[Hit]) -> Refusal | None:
        p = self.params
        if len(hits) < p.min_hits:
            return self._refuse(query, "no_evidence" if not hits else "too_little_evidence",
                                f"{len(hits)} candidate(s), at least {p.min_hits} required")
        language = detect_language(query.text)
        check = p.score_check(language)
        if language in p.cross_lingual_min_score and check is not None and self.cross_lingual(query, hits):
            signal, minimum = check[0], p.cross_lingual_min_score[language]
            best = max((h.signals[signal] for h in hits if signal in h.signals), default=None)
            if best is None or best < minimum:
                shown = "none" if best is None else f"{best:.3f}"
                return self._refuse(query, "weak_evidence", f"evidence in another language: best {signal} score "
                                    f"{shown} < {minimum}")
            return None
        if check is not None:
            signal, minimum = check
            scores = [h.signals[signal] for h in hits if signal in h.signals]
            best = max(scores, default=None)
            if best is None and p.when_signal_missing == "skip":
                pass
            elif best is None or best < minimum:
                shown = "none" if best is None else f"{best:.3f}"
                return self._refuse(query, "weak_evidence", f"best {signal} score {shown} < {minimum}")
        min_coverage = p.coverage_for(language)
        if min_coverage is not None:
            share = self.coverage(query, hits)
            if share < min_coverage:
                return self._refuse(query, "off_topic", f"top candidates contain {share:.0%} of the question's terms, "
                                    f"at least {min_coverage:.0%} required")
        no_cancer = p.no_cancer_coverage_for(language)
        if no_cancer is not None and not self.names_cancer(query.text):
            missing, share = self.unfound_terms(query, hits)
            if share < no_cancer:
                shown = ", ".join(missing[:5]) + (", ..." if len(missing) > 5 else "")
                return self._refuse(query, "off_topic", f"the question names no cancer, and {share:.0%} of its terms "
                                    f"appear in the {len(hits)} candidates (at least {no_cancer:.0%} "
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
