"""The extractive generator: quotes the evidence sentences that best match the question.

It is not a language model and says so: every answer opens with a notice that the text is
extracted, and every sentence carries the ``[n]`` of the passage it was copied from. It quotes the
passages in the language of the best-ranked one; when that is another language than the question's,
the notice says which, and question and sentences are matched by what the shared multilingual
lexicon reads in them (a site, stage, treatment, test...: "局所進行膵がん" and "locally advanced
pancreatic cancer" name the same things) instead of by words they cannot share.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.lexicon.concepts import concepts_named
from criss_rag.plugin_utils import FILLER_WORDS, detect_language, languages_of, message_for, refers_to, split_sentences
from criss_rag.types import Context, Generation, Query
from criss_rag_basic.languages import evidence_language_note, hit_language

NOTICES = {
    "en": "Extracted from the sources (quoted evidence, not a generated answer):",
    "ko": "출처에서 발췌한 문장입니다 (생성된 답변이 아닌 인용입니다):",
    "ja": "出典からの抜粋です（生成された回答ではなく、引用です）：",
    "zh": "以下摘自来源（引用原文，并非生成的回答）：",
    "zh-Hant": "以下摘自來源（引用原文，並非生成的回答）：",
}

_HEADING_LINE = re.compile(r"^\s*#+\s")
#: how a sentence ends; a quoted unit without it is a list item (or a lead-in ending with a colon)
_SENTENCE_END = re.compile(r"[.!?。！？][)\"'」』）\]]*$")
_LEAD_IN_END = re.compile(r"[:：]$")
SECTION_FIELDS = ("section", "menu_name")  # category labels (a `heading` is free text, read with the title)
CONTEXT_WEIGHT = 0.6  # a question word in the sentence's passage title/section, not in the sentence
REPEAT_WEIGHT = 0.3  # a question word an earlier quoted sentence already covers
RANK_DECAY = 0.5  # evidence [n] weighs 1 / (1 + RANK_DECAY * (n - 1))
MAX_LIST_ITEMS = 8  # a quoted lead-in ("... may cause:") brings at most this many items of its list
KEEP_SHARE = 0.35  # a sentence is quoted only if it is this share as relevant as the best one


class ExtractiveGenerator:
    """Quotes the best-matching evidence sentences, each with its citation; no LLM involved."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        max_sentences: int = Field(3, ge=1, description="how many sentences to quote")
        analyzer: str | dict[str, Any] = Field(
            "standard", description="analyzer used to match question and sentences (a name, or {name: ..., params})"
        )
        min_sentence_chars: int = Field(20, ge=1, description="shorter fragments (headings) are skipped")
        notice: dict[str, str] = Field(default_factory=lambda: dict(NOTICES), description="opening line per language "
                                       "(en, ko, ja, zh; zh-Hant for a question in Traditional Chinese, else zh)",
                                       json_schema_extra=refers_to(keys="language"))

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.analyzer = ctx.analyzer(params.analyzer)

    def warm_up(self) -> None:
        """Load the analyzer's models now (``Engine.warm_up``), when it has any."""
        warm = getattr(self.analyzer, "warm_up", None)
        if callable(warm):
            warm()

    def generate(self, query: Query, context: Context) -> Generation:
        # quoted from the passages in the language of the best-ranked one: a Korean question whose
        # ranking put an English staging page above the Korean overview (its language has no staging
        # page) is answered from that page, not from the Korean one's shared words
        lead = hit_language(context.evidence[0].hit) if context.evidence else ""
        across = bool(lead) and lead != detect_language(query.text)
        read = self._concepts if across else self._terms
        question = read(query.text)
        # filler words in the question's languages only: an English question loads no Chinese analyzer
        languages = languages_of(query.text)
        generic = set() if across else {
            t for word in FILLER_WORDS if detect_language(word) in languages for t in self.analyzer.analyze(word)
        }
        wanted = (question - generic) or question  # "cancer" matches every passage: it selects nothing
        candidates = []  # (evidence number, position, sentence, terms)
        about: dict[int, set[str]] = {}  # what each passage is about: its title and section terms
        titles: set[str] = set()
        sections: set[str] = set()
        units: dict[int, list[str]] = {}  # each passage's sentences and list items, in order
        for evidence in (e for e in context.evidence if hit_language(e.hit) == lead):
            meta = evidence.hit.metadata
            title = read(str(meta.get("title") or ""))
            heading = read(str(meta.get("heading") or ""))
            section = read(" ".join(str(meta.get(k) or "") for k in SECTION_FIELDS))
            about[evidence.number] = title | heading | section
            titles |= title
            sections |= section
            # heading-marker lines ("### Symptoms") are not sentences; unskipped they would be
            # glued to the sentence after them, since a single line break does not end a sentence
            text = "\n".join(line for line in evidence.text.splitlines() if not _HEADING_LINE.match(line))
            units[evidence.number] = split_sentences(text)
            for position, sentence in enumerate(units[evidence.number]):
                if len(sentence) >= self.params.min_sentence_chars:
                    candidates.append((evidence.number, position, sentence, read(sentence)))
        # the question's topic: its words that some title names and no section label does (the
        # cancer, not "treatment"; headings are free text: "Warning signs of gastric cancer"); a
        # sentence whose passage and words miss all of them is about another one
        topic = (wanted & titles) - sections
        # idf over the candidate sentences: words many sentences share count little
        df = Counter(term for *_, terms in candidates for term in terms)
        idf = {t: math.log(1 + len(candidates) / df[t]) for t in df}

        def weight(terms: set[str]) -> float:
            return sum(idf.get(t, 1.0) for t in terms)

        total = weight(wanted) or 1.0

        def score(item: tuple[int, int, str, set[str]], covered: set[str]) -> float:
            # relevance to the question: its own words first, then what its passage is about (a
            # sentence in the pancreatic-symptoms section is about pancreatic cancer even if it says
            # "it"); words already quoted count less; on the question's topic; best-ranked evidence
            # and lead sentences first
            number, position, _, terms = item
            own = wanted & terms
            context_terms = (wanted & about[number]) - own
            if not own and not context_terms:
                return 0.0
            if topic and not topic & (own | context_terms):
                return 0.0

            def gain(found: set[str]) -> float:
                return weight(found - covered) + REPEAT_WEIGHT * weight(found & covered)

            fit = (len(topic & (own | context_terms)) + 1) / (len(topic) + 1)
            relevance = (gain(own) + CONTEXT_WEIGHT * gain(context_terms)) / total
            return relevance * fit / (1 + RANK_DECAY * (number - 1)) * (1 + 0.1 / (position + 1))

        # eligible: relevant enough on its own (a share of the best sentence's relevance); then
        # picked greedily, so that each further sentence adds what the question still asks
        alone = {id(c): score(c, set()) for c in candidates}
        best = max(alone.values(), default=0.0)
        pool = [c for c in candidates if alone[id(c)] > 0 and alone[id(c)] >= KEEP_SHARE * best]
        chosen: list[tuple[int, int, str, set[str]]] = []
        covered: set[str] = set()
        while pool and len(chosen) < self.params.max_sentences:
            top = max(pool, key=lambda c: score(c, covered))
            chosen.append(top)
            covered |= wanted & (top[3] | about[top[0]])
            pool.remove(top)
        if not chosen and candidates:  # nothing shares a term: quote the top passage's lead
            chosen = [min(candidates, key=lambda c: (c[0], c[1]))]
        chosen.sort(key=lambda c: (c[0], c[1]))
        quotes = with_their_lists([(number, position, sentence) for number, position, sentence, _ in chosen], units)
        language = detect_language(query.text)
        notice = message_for({"en": "", **self.params.notice}, language, query.text)
        # a question answered from passages in another language says so (cross-lingual retrieval)
        quoted = {number for number, *_ in chosen}
        note = evidence_language_note(
            language, [hit_language(e.hit) for e in context.evidence if e.number in quoted], query.text
        )
        notice = f"{notice}\n{note}" if note else notice
        body = quoted_body(quotes)
        return Generation(text=f"{notice}\n{body}".strip() if body else "", model="extractive (no LLM)")

    def _terms(self, text: str) -> set[str]:
        return set(self.analyzer.analyze(text))

    @staticmethod
    def _concepts(text: str) -> set[str]:
        """What the shared lexicon reads in ``text`` in any language ("site:pancreas", "stage:stage:IV")."""
        return set(concepts_named(text))


def with_their_lists(chosen: list[tuple[int, int, str]], units: dict[int, list[str]]) -> list[tuple[int, str]]:
    """``(evidence number, sentence)`` to quote: the chosen sentences, each lead-in ending with a
    colon followed by the list items after it in its passage (a lead-in promises its list; the
    items rarely repeat the question's words, so they are not chosen on their own)."""
    taken = {(number, position) for number, position, _ in chosen}
    quotes: list[tuple[int, str]] = []
    for number, position, sentence in chosen:
        quotes.append((number, sentence))
        if not _LEAD_IN_END.search(sentence):
            continue
        following = units.get(number, [])[position + 1 : position + 1 + MAX_LIST_ITEMS]
        for offset, item in enumerate(following, start=position + 1):
            if _SENTENCE_END.search(item) or _LEAD_IN_END.search(item) or (number, offset) in taken:
                break
            quotes.append((number, item))
            taken.add((number, offset))
    return quotes


def quoted_body(chosen: list[tuple[int, str]]) -> str:
    """The quoted sentences with their markers: prose joined by spaces; a list item (a unit that
    does not end as a sentence does) on a line of its own as ``- item [n]``, and a lead-in ending
    with a colon ends its line, so the items stay items for the reader and the sentence check."""
    body, line_break = "", False
    for number, sentence in chosen:
        item = not _SENTENCE_END.search(sentence) and not _LEAD_IN_END.search(sentence)
        quoted = f"- {sentence} [{number}]" if item else f"{sentence} [{number}]"
        body = quoted if not body else body + ("\n" if item or line_break else " ") + quoted
        line_break = item or bool(_LEAD_IN_END.search(sentence))
    return body
