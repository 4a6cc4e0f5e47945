"""The relevance verdict: does the answer (or, before generation, the evidence) speak about what
the question asks, not just about cancer?

Support (:mod:`criss_rag.support`) asks whether the evidence states a sentence; a sentence quoted
from a staging passage is always supported, even when the question was whether cancer spreads by
sharing a razor. Relevance asks something else: the question's content words (its terms, minus
stopwords, filler words and the generic cancer words every passage shares) must be *covered*.

- Before generation, by the evidence: the titles and sections of the numbered passages plus the
  ``max_sentences`` evidence sentences that together cover most of the question. A word that only
  occurs somewhere in a long chunk but in no sentence that could be quoted does not count as more
  than one sentence's worth.
- After generation, by the answer: a term counts when a shown sentence says it *and* the passage
  supporting that sentence contains it (a model repeating the question's words does not cover
  them), or when it is in the title or section of a cited passage (which names the cancer and
  the topic the sentences leave implicit).

The verdict is relevant when the covered share reaches ``min_coverage``. It is configured with
the engine key ``relevance`` of the generator stage (see :class:`RelevancePolicy`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.support import basic_terms
from criss_rag.text import split_sentences
from criss_rag.types import Context, Evidence, RelevanceVerdict, SentenceSupport

#: Words of a question that name no topic (besides the analyzer's stopwords), and the generic words
#: for cancer that every passage of a cancer corpus shares. Compared after the analyzer.
FILLER_WORDS = (
    "know tell please get got thing things really ok okay just much many any some someone anyone anything "
    "something people person possible true normal good bad best need want like one make go going question "
    "worry worried should my me am mine us ever still too very lot bit actually also even way mean means "
    "cancer cancers tumor tumors tumour tumours"
).split() + ["암", "がん", "ガン", "癌", "肿瘤", "腫瘍", "종양", "何", "무엇", "什么", "怎么", "如何"]

_META_FIELDS = ("title", "heading", "section", "menu_name")


class RelevancePolicy(BaseModel):
    """The ``relevance`` engine key of the generator stage (null: no relevance verdict)."""

    model_config = ConfigDict(extra="forbid")
    min_coverage: float = Field(0.5, ge=0, le=1, description="share of the question's content words the answer "
                                                             "(before generation: the evidence) must cover")
    before_generation: bool = Field(True, description="also check the evidence before the generator runs: a "
                                                      "question it cannot cover is refused without calling the model")
    max_sentences: int = Field(3, ge=1, description="how many evidence sentences the check before generation may use")
    on_fail: Literal["refuse", "mark"] = Field("refuse", description="refuse an off-topic answer, or show it with "
                                                                    "`relevance.relevant: false`")
    analyzer: str | None = Field("standard", description="a registered analyzer for the terms (standard: English "
                                                         "stems, Korean without particles, Japanese content runs; or "
                                                         "kiwi, mecab, auto); null: the engine's built-in terms")
    ignore: list[str] = Field(default_factory=lambda: list(FILLER_WORDS),
                              description="words that never need covering (question filler, the generic cancer words)")


class RelevanceCheck:
    """Computes :class:`~criss_rag.types.RelevanceVerdict` s for one policy."""

    def __init__(self, policy: RelevancePolicy, analyze: Callable[[str], list[str]] | None = None) -> None:
        self.policy = policy
        self.analyze = analyze or _builtin_terms
        self.ignored = {term for word in policy.ignore for term in self.analyze(word)} | set(policy.ignore)

    def question_terms(self, question: str) -> list[str]:
        return [t for t in dict.fromkeys(self.analyze(question)) if t not in self.ignored]

    def _meta_terms(self, evidence: Evidence) -> set[str]:
        meta = evidence.hit.metadata
        return set(self.analyze(" ".join(str(meta.get(f) or "") for f in _META_FIELDS)))

    def before(self, question: str, context: Context) -> RelevanceVerdict:
        """Can the numbered evidence cover the question? (titles + the best few sentences)"""
        wanted = self.question_terms(question)
        covered: set[str] = set()
        for evidence in context.evidence:
            covered |= self._meta_terms(evidence)
        sentences = [set(self.analyze(s)) for e in context.evidence for s in split_sentences(e.text)]
        for _ in range(self.policy.max_sentences):  # greedy: the sentence adding most uncovered terms
            gains = [len((terms - covered) & set(wanted)) for terms in sentences]
            if not gains or max(gains) == 0:
                break
            covered |= sentences[gains.index(max(gains))]
        return self._verdict(wanted, covered, "evidence")

    def after(self, question: str, sentences: Sequence[SentenceSupport], context: Context) -> RelevanceVerdict:
        """Does the shown answer cover the question? (said by a sentence and in its evidence, or in a
        cited passage's title/section)"""
        wanted = self.question_terms(question)
        covered: set[str] = set()
        for sentence in sentences:
            numbers = _numbers(sentence)
            if not sentence.supported or not numbers:
                continue
            said = set(self.analyze(sentence.text))
            for number in numbers:
                evidence = context.by_number(number)
                if evidence is not None:
                    meta = self._meta_terms(evidence)
                    covered |= meta | (said & (set(self.analyze(evidence.text)) | meta))
        return self._verdict(wanted, covered, "answer")

    def _verdict(self, wanted: list[str], covered: set[str], checked: str) -> RelevanceVerdict:
        hit = [t for t in wanted if t in covered]
        missing = [t for t in wanted if t not in covered]
        score = len(hit) / len(wanted) if wanted else 1.0
        return RelevanceVerdict(relevant=score >= self.policy.min_coverage, score=round(score, 4), covered=hit,
                                missing=missing, checked=checked, threshold=self.policy.min_coverage)


def _builtin_terms(text: str) -> list[str]:
    """The engine's built-in terms without the bigrams written in hiragana alone (Japanese
    particles and verb endings: の, です, ます), which name no topic."""
    return [t for t in basic_terms(text) if not _HIRAGANA.fullmatch(t)]


_HIRAGANA = re.compile("[\u3040-\u309f]+")


def _numbers(sentence: SentenceSupport) -> Iterable[int]:
    numbers = list(sentence.cited)
    if sentence.evidence is not None and sentence.evidence not in numbers:
        numbers.append(sentence.evidence)
    return numbers
