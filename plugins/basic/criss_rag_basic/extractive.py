"""The extractive generator: quotes the evidence sentences that best match the question.

It is not a language model and says so: every answer opens with a notice that the text is
extracted, and every sentence carries the ``[n]`` of the passage it was copied from. When the quoted
passages are in another language than the question, the notice says which.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.text import detect_language, split_sentences
from criss_rag.types import Context, Generation, Query
from criss_rag_basic.languages import evidence_language_note, hit_language

NOTICES = {
    "en": "Extracted from the sources (quoted evidence, not a generated answer):",
    "ko": "출처에서 발췌한 문장입니다 (생성된 답변이 아닌 인용입니다):",
    "ja": "出典からの抜粋です（生成された回答ではなく、引用です）：",
    "zh": "以下摘自来源（引用原文，并非生成的回答）：",
}

_HEADING_LINE = re.compile(r"^\s*#+\s")


class ExtractiveGenerator:
    """Quotes the best-matching evidence sentences, each with its citation; no LLM involved."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        max_sentences: int = Field(3, ge=1, description="how many sentences to quote")
        analyzer: str = Field("standard", description="analyzer used to match question and sentences")
        min_sentence_chars: int = Field(20, ge=1, description="shorter fragments (headings) are skipped")
        notice: dict[str, str] = Field(default_factory=lambda: dict(NOTICES), description="opening line per language")

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.analyzer = ctx.analyzer(params.analyzer)

    def generate(self, query: Query, context: Context) -> Generation:
        question = set(self.analyzer.analyze(query.text))
        candidates = []  # (evidence number, position, sentence, terms)
        about: dict[int, set[str]] = {}  # what each passage is about: its title and section terms
        for evidence in context.evidence:
            meta = evidence.hit.metadata
            about[evidence.number] = set(self.analyzer.analyze(f"{meta.get('title', '')} {meta.get('heading', '')}"))
            # heading-marker lines ("### Symptoms") are not sentences; unskipped they would be
            # glued to the sentence after them, since a single line break does not end a sentence
            text = "\n".join(line for line in evidence.text.splitlines() if not _HEADING_LINE.match(line))
            for position, sentence in enumerate(split_sentences(text)):
                if len(sentence) >= self.params.min_sentence_chars:
                    candidates.append((evidence.number, position, sentence, set(self.analyzer.analyze(sentence))))
        # idf over the candidate sentences: words every sentence shares ("cancer") count little
        df = Counter(term for *_, terms in candidates for term in terms)
        idf = {t: math.log(1 + len(candidates) / df[t]) for t in df}
        weight = sum(idf.get(t, 0.0) for t in question) or 1.0

        def overlap(terms: set[str]) -> float:
            return sum(idf.get(t, 1.0) for t in question & terms) / weight

        def score(item: tuple[int, int, str, set[str]]) -> float:
            # a sentence matches by its own words, and by what its passage is about (a sentence in
            # the pancreatic-symptoms section is about pancreatic cancer even if it says "it");
            # earlier evidence and lead sentences are preferred
            number, position, _, terms = item
            own = overlap(terms)
            if own == 0:
                return 0.0
            return (own + overlap(terms | about[number])) / (1 + 0.3 * (number - 1)) * (1 + 0.1 / (position + 1))

        ranked = sorted(candidates, key=score, reverse=True)
        chosen = [c for c in ranked if score(c) > 0][: self.params.max_sentences]
        if not chosen and candidates:  # nothing shares a term: quote the top passage's lead
            chosen = [min(candidates, key=lambda c: (c[0], c[1]))]
        chosen.sort(key=lambda c: (c[0], c[1]))
        language = detect_language(query.text)
        notice = self.params.notice.get(language) or self.params.notice.get("en", "")
        # a question answered from passages in another language says so (cross-lingual retrieval)
        quoted = {number for number, *_ in chosen}
        note = evidence_language_note(language, [hit_language(e.hit) for e in context.evidence if e.number in quoted])
        notice = f"{notice}\n{note}" if note else notice
        body = " ".join(f"{sentence} [{number}]" for number, _, sentence, _ in chosen)
        return Generation(text=f"{notice}\n{body}".strip() if body else "", model="extractive (no LLM)")
