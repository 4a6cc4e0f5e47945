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

The verdict is relevant when the covered share reaches ``min_coverage`` (one value, or one per
question language). When no evidence is in the question's language the words cannot be compared,
and the verdict says it was not checked. It is configured with
the engine key ``relevance`` of the generator stage (see :class:`RelevancePolicy`).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from criss_rag.support import basic_terms
from criss_rag.text import HAN, HANGUL, detect_language, split_sentences
from criss_rag.types import Context, Evidence, RelevanceVerdict, SentenceSupport

Language = Literal["en", "ko", "ja", "zh"]
LANGUAGES = ("en", "ko", "ja", "zh")

#: Words of a question that name no topic (besides the analyzer's stopwords), and the generic words
#: for cancer that every passage of a cancer corpus shares. Compared after the analyzer.
FILLER_WORDS = (
    "know tell please get got thing things really ok okay just much many any some someone anyone anything "
    "something people person possible true normal good bad best need want like one make go going question "
    "worry worried should my me am mine us ever still too very lot bit actually also even way mean means "
    "again soon now later often always never usually instead away afterwards afterward else "
    "father mother dad mum mom husband wife brother sister friend friends family "
    "cancer cancers tumor tumors tumour tumours"
).split() + ["암", "がん", "ガン", "癌", "肿瘤", "腫瘍", "종양", "何", "무엇", "什么", "怎么", "如何"] + (
    # Korean and Japanese question grammar: possibility, time, manner, "what kind of", "I"
    "수 있나요 있을까요 있습니까 있어요 중 중에 경우 경우에 때 후 후에 전 어떤 어떻게 언제 얼마나 왜 어디 "
    "좋을까요 좋나요 되나요 하나요 해야 받을 받으면 할 하면 등 정말 같이 그냥 저 제 우리 "
    "場合 時 方法 本当 私 家族"
).split()

_META_FIELDS = ("title", "heading", "section", "menu_name")


class RelevancePolicy(BaseModel):
    """The ``relevance`` engine key of the generator stage (null: no relevance verdict)."""

    model_config = ConfigDict(extra="forbid")
    min_coverage: float | dict[Language, float] = Field(
        0.5, description="share of the question's content words the answer (before generation: the evidence) must "
                         "cover; one value, or one per question language (en, ko, ja, zh all named)")
    before_generation: bool = Field(True, description="also check the evidence before the generator runs: a "
                                                      "question it cannot cover is refused without calling the model")
    max_sentences: int = Field(3, ge=1, description="how many evidence sentences the check before generation may use")
    on_fail: Literal["refuse", "mark"] = Field("refuse", description="refuse an off-topic answer, or show it with "
                                                                    "`relevance.relevant: false`")
    analyzer: str | dict[str, Any] | None = Field(
        "standard", description="a registered analyzer for the terms, a name or {name: ..., <params>} (standard: "
                                "English stems, Korean without particles, Japanese content runs; or kiwi, mecab, "
                                "auto with per-language analyzers); null: the engine's built-in terms")
    ignore: list[str] = Field(default_factory=lambda: list(FILLER_WORDS),
                              description="words that never need covering (question filler, the generic cancer words)")


    @field_validator("min_coverage")
    @classmethod
    def _every_language(cls, value: float | dict[str, float]) -> float | dict[str, float]:
        if isinstance(value, dict) and set(value) != set(LANGUAGES):
            raise ValueError(f"a per-language min_coverage names {', '.join(LANGUAGES)} (missing: "
                             f"{', '.join(sorted(set(LANGUAGES) - set(value)))})")
        for share in (value.values() if isinstance(value, dict) else [value]):
            if not 0 <= share <= 1:
                raise ValueError(f"min_coverage is a share between 0 and 1, got {share}")
        return value

    def threshold(self, language: str) -> float:
        return self.min_coverage.get(language, self.min_coverage["en"]) if isinstance(self.min_coverage, dict) \
            else self.min_coverage


class RelevanceCheck:
    """Computes :class:`~criss_rag.types.RelevanceVerdict` s for one policy."""

    def __init__(self, policy: RelevancePolicy, analyze: Callable[[str], list[str]] | None = None) -> None:
        self.policy = policy
        self.analyze = analyze or _builtin_terms
        self.ignored = {term for word in policy.ignore for term in self.analyze(word)} | set(policy.ignore)

    def question_words(self, question: str) -> list[tuple[str, set[str]]]:
        """The question's content words with their terms. A word is a Latin word, a Hangul word
        (particles are the analyzer's business) or a run of kanji/katakana or of Han characters, so
        that a long word the analyzer cuts into several bigrams still counts once."""
        words: dict[str, set[str]] = {}
        if detect_language(question) == "zh":  # no word boundaries: each term is a word
            return [(t, {t}) for t in dict.fromkeys(self.analyze(question)) if t not in self.ignored]
        for word in _WORD.findall(question):
            terms = {t for t in self.analyze(word) if t not in self.ignored}
            if terms and word.lower() not in self.ignored:
                words.setdefault(word, set()).update(terms)
        return list(words.items())

    def _meta_terms(self, evidence: Evidence) -> set[str]:
        meta = evidence.hit.metadata
        return set(self.analyze(" ".join(str(meta.get(f) or "") for f in _META_FIELDS)))

    def not_checked(self, question: str, context: Context, checked: str) -> RelevanceVerdict | None:
        """The verdict when no evidence is in the question's language (a Korean question over an
        English corpus): words cannot be compared across languages, so the check says so and passes
        (the refusal policy's ``cross_lingual_min_score`` judges such questions). Else None."""
        language = detect_language(question)
        if not context.evidence or any(detect_language(e.text) == language for e in context.evidence):
            return None
        return RelevanceVerdict(relevant=True, score=1.0, threshold=self.policy.threshold(language),
                                checked=f"{checked}: not checked (the question is {language}, no evidence is)")

    def before(self, question: str, context: Context) -> RelevanceVerdict:
        """Can the numbered evidence cover the question? (titles + the best few sentences)"""
        if (skipped := self.not_checked(question, context, "evidence")) is not None:
            return skipped
        words = self.question_words(question)
        wanted = set().union(*(terms for _, terms in words))
        covered: set[str] = set()
        for evidence in context.evidence:
            covered |= self._meta_terms(evidence)
        sentences = [set(self.analyze(s)) for e in context.evidence for s in split_sentences(e.text)]
        for _ in range(self.policy.max_sentences):  # greedy: the sentence adding most uncovered terms
            gains = [len((terms - covered) & wanted) for terms in sentences]
            if not gains or max(gains) == 0:
                break
            covered |= sentences[gains.index(max(gains))]
        return self._verdict(question, words, covered, "evidence")

    def after(self, question: str, sentences: Sequence[SentenceSupport], context: Context) -> RelevanceVerdict:
        """Does the shown answer cover the question? (said by a sentence and in its evidence, or in a
        cited passage's title/section)"""
        if (skipped := self.not_checked(question, context, "answer")) is not None:
            return skipped
        words = self.question_words(question)
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
        return self._verdict(question, words, covered, "answer")

    def _verdict(self, question: str, words: list[tuple[str, set[str]]], covered: set[str],
                 checked: str) -> RelevanceVerdict:
        # a word is covered when at least half of its terms are (a Korean word's bigrams, a kanji run's)
        hit = [w for w, terms in words if len(terms & covered) * 2 >= len(terms)]
        missing = [w for w, terms in words if len(terms & covered) * 2 < len(terms)]
        score = len(hit) / len(words) if words else 1.0
        threshold = self.policy.threshold(detect_language(question))
        return RelevanceVerdict(relevant=score >= threshold, score=round(score, 4), covered=hit,
                                missing=missing, checked=checked, threshold=threshold)


def _builtin_terms(text: str) -> list[str]:
    """The engine's built-in terms without the bigrams written in hiragana alone (Japanese
    particles and verb endings: の, です, ます), which name no topic."""
    return [t for t in basic_terms(text) if not _HIRAGANA.fullmatch(t)]


_HIRAGANA = re.compile("[\u3040-\u309f]+")
# Latin words; Hangul words; kanji/katakana runs (hiragana between them is grammar); Han runs
_WORD = re.compile(f"[A-Za-z0-9\u00c0-\u024f'’-]+|[{HANGUL}]+|[{HAN}\u30a0-\u30ffー]+")


def _numbers(sentence: SentenceSupport) -> Iterable[int]:
    numbers = list(sentence.cited)
    if sentence.evidence is not None and sentence.evidence not in numbers:
        numbers.append(sentence.evidence)
    return numbers
