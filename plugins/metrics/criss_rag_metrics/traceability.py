"""The Korean system's five evidence-traceability counts, per answer.

1. ``retrieved_evidence``: passages given to the generator as numbered evidence;
2. ``verified_evidence``: those that map to an existing corpus document (the index's documents, or
   the document ids of ``corpus`` when set);
3. ``cancer_matched_evidence``: those about the question's cancer (its ``focus``), matched in the
   title and/or text with an analyzer, so Korean, Japanese and Chinese work too;
4. ``answer_sentences``: sentences of the answer (0 when refused);
5. ``evidence_aligned_sentences``: answer sentences supported by the evidence: at least
   ``min_overlap`` of the sentence's terms occur in one evidence passage.

Plus ``aligned_share`` (5 / 4, when the answer has sentences). A count that does not apply (no
focus on the question) is left out, never 0.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import HAN, HANGUL, KANA, answer_sentences, split_sentences
from criss_rag.types import Answer
from criss_rag_metrics.common import corpus_ids, evidence_of, strip_markers

_CJK = re.compile(f"[{HANGUL}{KANA}{HAN}]")


class Traceability:
    """Evidence traceability: retrieved, verified and cancer-matched evidence; answer and evidence-aligned sentences."""

    outputs = ("retrieved_evidence", "verified_evidence", "cancer_matched_evidence", "answer_sentences",
               "evidence_aligned_sentences", "aligned_share")

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        analyzer: str | dict[str, Any] = Field(
            "auto",
            description="analyzer for cancer matching and sentence alignment (name or {name: ..., params}); `auto` "
                        "picks one per script",
        )
        focus_fields: list[str] = Field(
            default_factory=lambda: ["focus", "cancer_type"],
            description="question fields naming its cancer, first present wins",
        )
        synonyms: dict[str, list[str]] = Field(
            default_factory=dict,
            description="focus value -> other names that also count as a match (compared case-insensitively)",
        )
        match_in: Literal["title_or_text", "title", "text"] = Field(
            "title_or_text", description="where evidence must name the cancer"
        )
        corpus: str | None = Field(
            None,
            description="corpus file (JSONL, or a JSON list) whose document ids count as verified; None = the "
                        "documents of the variant's index",
        )
        id_field: str = Field("doc_id", description="the id key of `corpus` documents")
        min_overlap: float = Field(
            0.5,
            ge=0,
            le=1,
            description="share of a sentence's terms that one evidence passage must contain for the sentence to "
            "count as aligned",
        )
        skip_lead_ins: bool = Field(
            True,
            description="do not count lead-ins as answer sentences: a line ending in a colon that cites nothing "
            "(e.g. the extractive generator's notice) and a Markdown heading",
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.analyzer = ctx.analyzer(params.analyzer)
        self.corpus = ctx.resolve_path(params.corpus) if params.corpus else None
        self._synonyms = {k.casefold(): v for k, v in params.synonyms.items()}

    def compute(self, question: Mapping[str, Any], answer: Answer) -> dict[str, float]:
        evidence = evidence_of(question)
        out: dict[str, float] = {"retrieved_evidence": float(len(evidence))}
        if self.corpus is not None:
            ids = corpus_ids(self.corpus, self.params.id_field)
            out["verified_evidence"] = float(sum(1 for e in evidence if str(e.get("doc_id")) in ids))
        else:
            out["verified_evidence"] = float(sum(1 for e in evidence if e.get("verified", False)))
        focus = next((str(question[f]) for f in self.params.focus_fields if question.get(f)), None)
        if focus:
            out["cancer_matched_evidence"] = float(sum(1 for e in evidence if self._about(focus, e)))
        sentences = [] if answer.refused else self.sentences(answer.text)
        out["answer_sentences"] = float(len(sentences))
        passages = [set(self.analyzer.analyze(str(e.get("text", "")))) for e in evidence]
        aligned = sum(1 for s in sentences if self._aligned(s, passages))
        out["evidence_aligned_sentences"] = float(aligned)
        if sentences:
            out["aligned_share"] = aligned / len(sentences)
        return out

    def sentences(self, text: str) -> list[str]:
        if self.params.skip_lead_ins:  # the claims the sentence check reads, as answer-basics counts them
            return [bare for bare, _ in answer_sentences(text) if bare.strip()]
        return [s for s in split_sentences(strip_markers(text)) if s.strip()]

    def _aligned(self, sentence: str, passages: list[set[str]]) -> bool:
        terms = set(self.analyzer.analyze(sentence))
        if not terms:
            return False
        return any(len(terms & p) / len(terms) >= self.params.min_overlap for p in passages)

    def _about(self, focus: str, evidence: Mapping[str, Any]) -> bool:
        title, text = str(evidence.get("title", "")), str(evidence.get("text", ""))
        where = {"title": title, "text": text, "title_or_text": f"{title}\n{text}"}[self.params.match_in]
        names = [focus, *self._synonyms.get(focus.casefold(), [])]
        haystack_terms = set(self.analyzer.analyze(where))
        folded = where.casefold()
        for name in names:
            if _CJK.search(name) and "".join(name.split()).casefold() in "".join(folded.split()):
                return True  # CJK names match as substrings, as analyzers split them differently
            terms = set(self.analyzer.analyze(name))
            if terms and terms <= haystack_terms:
                return True
        return False
