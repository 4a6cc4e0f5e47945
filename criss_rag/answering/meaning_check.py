"""The meaning-aware sentence check: the engine's built-in check (YAML ``verifier: {name: meaning}``).

A sentence is supported by the passages it cites (else, as a fallback, by the numbered passages
together) when

1. its content aligns with them: the sentence is aligned with the passage sentence that shares
   most of its content terms (:mod:`criss_rag.lexicon.terms`: paraphrase-tolerant, KO/JA/ZH
   without a plugin), plus up to two more passage sentences when each adds at least two of its
   terms, plus the passage sentence each of its clauses restates (a condensed restatement, a claim
   drawn from two passages); at least ``threshold`` of its terms must be found there; and every
   clause of it with three or more terms must have at least ``clause_threshold`` of them somewhere
   in the cited passages (an appended clause, a new claim); and
2. nothing decisive in it is contradicted by, or absent from, the aligned sentences
   (:mod:`criss_rag.lexicon.claims`, :mod:`criss_rag.answering.meaning_items`): its polarity (negating cues
   with their scope, clause by clause), each number with its comparison word and unit in any
   notation (:mod:`criss_rag.lexicon.quantities`), stages / TNM / grades and disease states,
   entities by category, populations, directions on each scale and the standard of a comparison
   ("than men"); each item bound to its clause (a clause against the passage clause that says the
   same about the same thing); one changed span or two exchanged spans of a near copy
   (:mod:`criss_rag.lexicon.edits`).

An item of the sentence that the aligned sentences lack is a problem when they name another item of
the same category (a contradiction: "stage III" where they say "stage I"), or when no cited passage
names it at all; it is accepted when another sentence of a cited passage names it (context the
claim carries over). A rejected sentence's ``problems`` say which item failed and what the
evidence says instead.

This module holds the check itself: the passages as it reads them, the alignment, the share of
terms, an added clause, the decisive items of the sentence against the aligned sentences, a
stronger claim and a near copy's changed span. The clause-by-clause checks (directions, bound
items, polarity, "only") and the cutting into clauses are in
:mod:`criss_rag.answering.meaning_clauses`; how items compare, in
:mod:`criss_rag.answering.meaning_items`.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from criss_rag.answering.meaning_clauses import ClauseChecks, Sentence, Terms, _coverage, clauses
from criss_rag.answering.meaning_items import _direction, _disease_group, _implied, _items, _marker_agrees, _stage_kind
from criss_rag.answering.sentence_check import claim_text
from criss_rag.language.text import detect_language, split_sentences
from criss_rag.lexicon.claims import Reading, read
from criss_rag.lexicon.claims import prepare as _prepare
from criss_rag.lexicon.directions import gradual, stronger
from criss_rag.lexicon.edits import single_change, swapped
from criss_rag.lexicon.negation import without_partial
from criss_rag.lexicon.quantities import same_quantity as _same_quantity
from criss_rag.lexicon.terms import content_terms
from criss_rag.types import Context, Query, SentenceProblem, SentenceSupport

#: share of a sentence's content terms its aligned passage sentences must contain
DEFAULT_THRESHOLD = 0.4
#: a sentence whose best passage sentence has this share of its terms is compared with that sentence alone
SINGLE_SENTENCE = 0.75
#: share of each clause's content terms the cited passages must contain
CLAUSE_THRESHOLD = 0.4

#: a clause added to a restated sentence: no passage sentence holds this share of its terms ...
ADDED_COVERAGE = 0.6
#: ... and this many of its terms are in no cited passage ...
ADDED_ABSENT = 1
#: ... while another clause of the sentence has this share of its terms in one passage sentence
RESTATED = 0.9

_CORRELATION = re.compile(r"^the\s|수록|ほど|越")  # a stronger word that is a correlation, not a universal
_STAGE_TERM = re.compile(r"^(?:stage|grade|gleason):|^[TNM](?:[0-4]|is|x)")
_ABSENT_DIMENSIONS = ("side", "vessel", "order")


@dataclass(frozen=True)
class Passage:
    number: int
    sentences: tuple[Sentence, ...]
    terms: frozenset[str]  # of the whole passage, its title included
    title_terms: frozenset[str]
    reading: Reading  # of the whole passage, its title included


@lru_cache(maxsize=2048)
def _passage(number: int, title: str, text: str, terms: Terms) -> Passage:
    sentences = []
    for sentence in split_sentences(text):
        language = detect_language(sentence)
        sentences.append(Sentence(number, sentence, terms(sentence, language), language))
    whole = f"{title}\n{text}" if title else text
    title_terms = terms(title, None) if title else frozenset()
    return Passage(number, tuple(sentences), title_terms | frozenset().union(*(s.terms for s in sentences)),
                   title_terms, read(whole))


def _merge(readings: Sequence[Reading]) -> Reading:
    merged = Reading(language=readings[0].language if readings else "en")
    for r in readings:
        merged.quantities.extend(r.quantities)
        merged.stages |= r.stages
        merged.disease |= r.disease
        for facet, values in r.entities.items():
            merged.entities.setdefault(facet, set()).update(values)
        merged.population |= r.population
        merged.directions |= r.directions
        merged.standard = merged.standard or r.standard
        merged.negations += r.negations
        merged.implied |= r.implied
    return merged


_HAN_TERM = re.compile(r"^[一-龥]{1,2}$")


def _soft_coverage(terms: frozenset[str], other: frozenset[str]) -> float:
    """:func:`_coverage` for Chinese and Japanese, where a Han bigram the passage lacks counts when
    one of its characters is in a Han bigram of the passage: a reworded word keeps a character of
    the passage's word more often than not (抽烟 / 吸烟, 掉发 / 脱发, 喝酒 / 饮酒). A single Han
    character (a Japanese verb or adjective stem written with okurigana: 続く, 治る, 長い) counts when
    a Han term of the passage contains it: the passage's Sino-Japanese compound of the same verb
    (持続, 治癒, 長期) keeps its character. Only the share of
    a sentence and of its clauses found in the evidence reads it; the decisive items, the changed
    span and an added clause are compared as written."""
    chars = {c for t in other if _HAN_TERM.match(t) for c in t}
    held = sum(1 for t in terms if t in other or (_HAN_TERM.match(t) and any(c in chars for c in t)))
    return held / len(terms) if terms else 0.0


class MeaningSupport(ClauseChecks):
    """The meaning-aware check (module docstring); ``terms`` turns text into content terms (the
    built-in :func:`~criss_rag.lexicon.terms.content_terms` unless an analyzer is given)."""

    def __init__(self, threshold: float = DEFAULT_THRESHOLD, clause_threshold: float = CLAUSE_THRESHOLD, *,
                 fallback: bool = True, terms: Terms | None = None, name: str = "meaning") -> None:
        self.threshold = threshold
        self.single_sentence = SINGLE_SENTENCE
        self.clause_threshold = clause_threshold
        self.fallback = fallback
        self.terms: Terms = terms or content_terms
        self.name = name

    # -- the verifier protocol --------------------------------------------------------------------
    def verify(self, query: Query, sentences: Sequence[SentenceSupport], context: Context) -> list[SentenceSupport]:
        passages = {e.number: _passage(e.number, str(e.hit.metadata.get("title", "") or ""), e.text, self.terms)
                    for e in context.evidence}
        return [self.judge(s, passages) for s in sentences]

    def judge(self, sentence: SentenceSupport, passages: dict[int, Passage]) -> SentenceSupport:
        text = claim_text(sentence.text)
        if _decisive_label(sentence.text, text):
            text = sentence.text  # "Stage IIA: ..." is a claim about stage IIA, not a label
        cited = [passages[n] for n in sentence.cited if n in passages]
        verdict = self.check(text, cited) if cited else None
        if (verdict is None or not verdict[0]) and self.fallback and passages:
            fallback = self.check(text, list(passages.values()))
            if verdict is None or fallback[0]:
                verdict = fallback
        if verdict is None:
            return sentence.model_copy(update={"supported": False, "method": self.name,
                                               "problems": [SentenceProblem.of("no_match", "cites no evidence")]})
        supported, score, evidence, problems = verdict
        return sentence.model_copy(update={"supported": supported, "score": round(score, 4),
                                           "evidence": evidence if supported else None, "method": self.name,
                                           "problems": problems})

    # -- one sentence against a set of passages --------------------------------------------------
    def check(self, text: str, passages: Sequence[Passage]) -> tuple[bool, float, int | None, list[SentenceProblem]]:
        """``(supported, alignment score, passage of the best-aligned sentence, problems)``."""
        language = detect_language(text)
        terms = self.terms(text, language)
        pool = [s for p in passages for s in p.sentences]
        if not terms or not pool:
            why = "no words to compare" if not terms else "empty evidence"
            return False, 0.0, None, [SentenceProblem.of("no_match", why)]
        unit = self._align(terms, pool, [self.terms(c, language) for c in clauses(text, language)])
        first = unit[0].number
        titles = frozenset().union(*(p.title_terms for p in passages if p.number in {s.number for s in unit}))
        covered = frozenset().union(*(s.terms for s in unit)) | titles
        score = _soft_coverage(terms, covered) if language in ("zh", "ja") else _coverage(terms, covered)
        everything = frozenset().union(*(p.terms for p in passages))
        problems: list[SentenceProblem] = []
        if score < self.threshold:
            missing = sorted(terms - covered)
            shown = ", ".join(missing[:6]) + (", ..." if len(missing) > 6 else "")
            problems.append(
                SentenceProblem.of("not_in_evidence", f"{len(missing)} of {len(terms)} terms ({shown})", first)
            )
        parts = [(c, self.terms(c, language)) for c in clauses(text, language)]
        for clause, clause_terms in parts:
            held = _soft_coverage(clause_terms, everything) if language in ("zh", "ja") else None
            if len(clause_terms) >= 3 and (held or _coverage(clause_terms, everything)) < self.clause_threshold:
                problems.append(SentenceProblem.of("not_in_evidence", f"'{clause}'", first))
        problems += self._added(parts, pool, everything, first)
        claim = read(text, language)
        aligned = _merge([s.reading for s in unit])
        states = set().union(*(_implied_states(s.reading) for s in unit))
        aligned.disease |= states
        implied = aligned.implied | states | _aged(claim, aligned)  # items the evidence implies, not names
        wide = _merge([p.reading for p in passages])
        problems += self._compare(claim, aligned, wide, first)
        nearest = sorted(pool, key=lambda s: -len(terms & s.terms))[:4]
        problems += self._directions(text, language, list(dict.fromkeys([*unit, *nearest])), first)
        problems += self._bound(text, language, unit, first)
        problems += self._negation(text, language, unit)
        problems += self._only(text, language, pool, first)
        passage_text = " ".join(s.text for p in passages for s in p.sentences)
        for word in stronger(without_partial(prepare_text(text, language), language), language):
            ground = without_partial(prepare_text(passage_text, language), language)
            if not stronger(ground, language) and not (_CORRELATION.search(word) and gradual(ground, language)):
                problems.append(SentenceProblem.of("not_in_evidence", f"'{word}' (a stronger claim)", first))
                break
        if not problems:
            rest = " ".join(s.text for p in passages if p.number == first for s in p.sentences if s is not unit[0])
            change = single_change(text, unit[0].text, language, context=rest)
            if change is not None and change[0] not in implied and not self._reworded_negation(*change, language):
                said, instead = change
                problems.append(SentenceProblem.of("changed", f"'{said}'", first, f"'{instead}'" if instead else ""))
            exchanged = swapped(text, unit[0].text, language, reorder=not (claim.standard or aligned.standard))
            if exchanged is not None:
                problems.append(
                    SentenceProblem.of(
                        "changed",
                        f"'{exchanged[0]}' and '{exchanged[1]}' swapped",
                        first,
                        f"'{exchanged[1]}' ... '{exchanged[0]}'",
                    )
                )
        problems = list({(p.kind, p.what): p for p in reversed(problems)}.values())[::-1]  # one per item
        return not problems, score, first, problems

    def _added(
        self, parts: list[tuple[str, frozenset[str]]], pool: list[Sentence], everything: frozenset[str], number: int
    ) -> list[SentenceProblem]:
        """A clause added to a restated passage sentence: when one clause of the sentence is (nearly)
        all in one passage sentence, another clause that no passage sentence holds ``ADDED_COVERAGE``
        of, with terms that no cited passage has, says something the evidence does not ("Radiotherapy
        is usually followed by chemotherapy, which cures it within a year")."""
        claimed = frozenset().union(*(t for _, t in parts))
        best = [max(pool, key=lambda s: (_coverage(t, s.terms), -len(s.terms))) if len(t) >= 2 else None
                for _, t in parts]
        problems = []
        for i, (clause, terms) in enumerate(parts):
            held = best[i]
            absent = terms - everything
            if held is None or _coverage(terms, held.terms) >= ADDED_COVERAGE or len(absent) < ADDED_ABSENT:
                continue
            # another clause restates a passage sentence and leaves out fewer of its terms than this
            # clause brings: nothing of that sentence was left for this clause to reword
            if any(
                b is not None and j != i and _coverage(parts[j][1], b.terms) >= RESTATED
                and len(b.terms - claimed) < len(absent)
                for j, b in enumerate(best)
            ):
                problems.append(SentenceProblem.of("not_in_evidence", f"'{clause}' (added to what it restates)",
                                                   number))
        return problems

    def _align(
        self, terms: frozenset[str], pool: list[Sentence], parts: Sequence[frozenset[str]] = ()
    ) -> list[Sentence]:
        """The passage sentence sharing most of ``terms``, plus (when it has less than
        ``single_sentence`` of them) up to two more that each add at least two terms it lacks, and
        for each clause of the sentence (``parts``: their terms) that the sentences so far hold less
        than 60% of, the passage sentence that holds 60% of it (a condensed restatement of two
        sentences, a claim drawn from two passages)."""
        described = frozenset(t for t in terms if not _STAGE_TERM.match(t))  # aligned by what it says, not its stage
        unit = [max(pool, key=lambda s: (len(described & s.terms), len(terms & s.terms), -len(s.terms)))]
        uncovered = terms - unit[0].terms
        if _coverage(terms, unit[0].terms) < self.single_sentence:
            for _ in range(2):
                rest = [s for s in pool if s not in unit]
                if not rest or len(uncovered) < 2:
                    break
                best = max(rest, key=lambda s: len(uncovered & s.terms))
                if len(uncovered & best.terms) < 2:
                    break
                unit.append(best)
                uncovered -= best.terms
        for part in parts:
            held = frozenset().union(*(s.terms for s in unit))
            if len(part) < 2 or _coverage(part, held) >= 1.0 or len(unit) >= 4:
                continue
            best = max(pool, key=lambda s: len(part & s.terms))
            if best not in unit and _coverage(part, best.terms) >= max(0.6, _coverage(part, held) + 1e-9):
                unit.append(best)  # the sentence that holds the clause best, when the others hold less of it
        return unit

    # -- decisive items ---------------------------------------------------------------------------
    def _compare(self, claim: Reading, aligned: Reading, wide: Reading, number: int) -> list[SentenceProblem]:
        problems = []
        for quantity in claim.quantities:
            if (
                quantity.value == "1"
                and quantity.comparison == "="
                and not any(q.unit == quantity.unit for q in aligned.quantities)
            ):
                continue  # "once", "one type": a count of one, unless the passage counts the same thing
            if not any(_same_quantity(quantity, other) for other in aligned.quantities):
                same_unit = [q for q in aligned.quantities if q.unit == quantity.unit] or aligned.quantities
                problems.append(
                    SentenceProblem.of(
                        "number", str(quantity), number, ", ".join(dict.fromkeys(str(q) for q in same_unit))
                    )
                )
        problems += _items("stage", claim.stages, aligned.stages, wide.stages, number, group=_stage_kind)
        problems += _items("stage", claim.disease, aligned.disease, wide.disease, number, group=_disease_group)
        near, far = _implied(aligned), _implied(wide)
        for facet, values in claim.entities.items():
            if facet == "biomarker":
                values = {v for v in values if not _marker_agrees(v, near.get(facet, set()))}
            problems += _items("entity", values, near.get(facet, set()), far.get(facet, set()), number, label=facet)
        problems += _items("population", claim.population, aligned.population | _aged(claim, aligned),
                           wide.population, number)
        for value in sorted(claim.directions - aligned.directions - wide.directions):
            if value.split(":")[0] in _ABSENT_DIMENSIONS:
                problems.append(SentenceProblem.of("direction", _direction(value), number))
        if claim.standard and aligned.standard:
            mine, theirs = self.terms(claim.standard, claim.language), self.terms(aligned.standard, claim.language)
            if mine and theirs and not mine & theirs:
                problems.append(
                    SentenceProblem.of(
                        "direction", f"compared with '{claim.standard}'", number, f"compared with '{aligned.standard}'"
                    )
                )
        return problems


def _implied_states(reading: Reading) -> set[str]:
    """Disease states a passage sentence implies without naming them: a tumour that surgery removes
    (surgery named, nothing negated) is resectable."""
    return {"resectable"} if "surgery" in reading.entities.get("treatment", set()) and not reading.negations else set()


def _aged(claim: Reading, aligned: Reading) -> set[str]:
    """The age groups an age both say implies: 18 or more is an adult, 65 or more also elderly
    ("adults ... from the age of 45" where the passage says "people ... at age 45")."""
    ages = [q for q in claim.quantities if q.unit == "y" and any(_same_quantity(q, o) for o in aligned.quantities)]
    groups = set()
    for age in ages:
        low = min(float(v) for v in age.value.split("-"))
        if low >= 18:
            groups.add("adult")
        if low >= 65:
            groups.add("elderly")
    return groups


def _decisive_label(sentence: str, claim: str) -> bool:
    """Whether the label :func:`~criss_rag.answering.sentence_check.claim_text` cut off names a stage or a number."""
    cut = sentence[: max(0, len(sentence) - len(claim.lstrip()))]
    reading = read(cut) if cut.strip() else None
    return bool(reading and (reading.stages or reading.quantities or reading.population or reading.entities))


def prepare_text(text: str, language: str) -> str:
    """``text`` in the normal form the word lists read (English lower-cased)."""
    text = _prepare(text, language)
    return text.lower() if language == "en" else text
