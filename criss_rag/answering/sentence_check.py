"""The sentence check: split an answer into sentences, read each sentence's ``[n]`` markers, and
decide whether the evidence supports it.

The engine runs this after every generation. Without a ``verifier:`` stage it uses
:class:`LexicalSupport` with :func:`basic_terms` (English words plus CJK character bigrams, no
plugin needed) and :data:`DEFAULT_THRESHOLD`; a ``verifier:`` stage replaces it (e.g. the
``lexical`` verifier with a registered analyzer and another threshold, or an LLM check).

Support is *lexical alignment*: the share of a sentence's distinct terms found in a passage (its
title included). A sentence quoted from the evidence scores 1.0; a faithful paraphrase scores
high; a sentence about something the passage never mentions scores low.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence

from criss_rag.language.text import CITATION_MARKER, HAN, HANGUL, KANA, split_sentences
from criss_rag.types import Context, Query, SentenceProblem, SentenceSupport

#: A sentence is supported when its alignment score reaches this (the engine's default check).
DEFAULT_THRESHOLD = 0.5

MARKER = CITATION_MARKER
# markers written after the sentence's full stop ("cells. [1] Next", "cells.[1]", "細胞。[1]") belong
# to the sentence before: move them in front of the stop so the sentence splitter keeps them there
# (one marker is CITATION_MARKER without its capturing group)
_ONE_MARKER = CITATION_MARKER.pattern.replace("(", "(?:", 1)
_TRAILING_MARKERS = re.compile(r"([.!?。！？]+)[ \t]*((?:" + _ONE_MARKER + r"[ \t]*)+)")
# "Direct answer:", "**Explanation**:", "説明：" in front of a sentence: a label, not part of the claim
_LABEL = re.compile(r"^[\s*_#>]*([^:：\[\]\n]{1,40}?)[\s*_]*[:：][\s*_]*(?=\S)")
_MARKDOWN = re.compile(r"[*_`#>]+")


def numbers_in(text: str) -> list[int]:
    """The evidence numbers cited in ``text`` (``[1]``, ``[2, 3]``), in order, without repeats."""
    found: list[int] = []
    for match in MARKER.finditer(text):
        for number in re.split(r"\s*,\s*", match.group(1)):
            if int(number) not in found:
                found.append(int(number))
    return found


def strip_markers(text: str) -> str:
    """``text`` without its ``[n]`` markers (e.g. an earlier answer, whose numbers meant other evidence)."""
    return "\n".join(_clean(MARKER.sub(" ", line)) for line in text.splitlines()).strip()


def answer_sentences(text: str) -> list[tuple[str, list[int]]]:
    """The answer's claims: ``(sentence without markers, cited numbers)`` in order.

    Line breaks end sentences too (LLM answers put items on lines of their own). Lead-ins that
    make no claim are left out: a line ending with a colon and citing nothing (the extractive
    generator's notice, "Here is what the sources say:"), and Markdown headings.
    """
    claims: list[tuple[str, list[int]]] = []
    for _, bare, numbers, kind in _walk(text):
        if kind == "claim":
            claims.append((bare, numbers))
        elif kind == "attach":  # a marker left on its own belongs to the sentence before
            claims[-1][1].extend(n for n in numbers if n not in claims[-1][1])
    return claims


def answer_pieces(text: str) -> list[tuple[str, int | None]]:
    """The answer cut for display: ``(piece, claim)`` in order, where ``claim`` is the position of
    the piece's sentence in :func:`answer_sentences` (so in ``Answer.sentences``), or ``None`` for
    lead-ins, headings, spaces and line breaks. Pieces keep their ``[n]`` markers (those written
    after a full stop are moved in front of it, as the check reads them)."""
    pieces: list[tuple[str, int | None]] = []
    claims = -1
    for raw, _, _, kind in _walk(text, keep_layout=True):
        if kind == "claim":
            claims += 1
        pieces.append((raw, claims if kind in ("claim", "attach") and claims >= 0 else None))
    return pieces


def _walk(text: str, *, keep_layout: bool = False) -> Iterator[tuple[str, str, list[int], str]]:
    """``(raw piece, sentence without markers, cited numbers, kind)``; kind is ``claim``, ``attach``
    (only markers: they belong to the claim before), ``skip`` (no claim) or ``layout`` (spaces and
    line breaks between sentences, only with ``keep_layout``)."""
    has_claim = False
    for line in text.splitlines(keepends=True):
        stripped = line.strip()
        if not stripped or re.match(r"^#{1,6}\s", stripped):
            if keep_layout:
                yield line, "", [], "skip"
            continue
        sentences = split_sentences(_TRAILING_MARKERS.sub(lambda m: f" {m.group(2).strip()}{m.group(1)} ", stripped))
        for n, sentence in enumerate(sentences):
            if keep_layout and n:
                yield " ", "", [], "layout"
            numbers = numbers_in(sentence)
            bare = _clean(MARKER.sub(" ", sentence))
            if not _has_words(bare):
                yield sentence, bare, numbers, "attach" if has_claim and numbers else "skip"
            elif not numbers and bare.rstrip().endswith((":", "：")):
                yield sentence, bare, numbers, "skip"  # a lead-in
            else:
                has_claim = True
                yield sentence, bare, numbers, "claim"
        if keep_layout and line[len(line.rstrip("\r\n")):]:
            yield "\n", "", [], "layout"


def _clean(sentence: str) -> str:
    sentence = " ".join(sentence.split())
    sentence = re.sub(r"\s+([.,;:!?。、，．！？])", r"\1", sentence)
    return sentence.strip()


def _has_words(text: str) -> bool:
    return any(ch.isalnum() for ch in text)


def claim_text(sentence: str) -> str:
    """The part of a sentence that makes the claim: no leading label ("Explanation:"), no Markdown."""
    match = _LABEL.match(sentence)
    if match and len(match.group(1).split()) <= 4 and sentence[match.end():].strip():
        sentence = sentence[match.end():]
    return _MARKDOWN.sub(" ", sentence)


# -- the core analyzer ----------------------------------------------------------------------------

_STOPWORDS = frozenset(
    """a an and are as at be been but by can could do does for from had has have he her his how i if in
    into is it its may might more most no not of on or our she so such than that the their them then
    there these they this those to was we were what when where which who why will with would you your
    also about which""".split()
)
_LATIN_WORD = re.compile(r"[a-z0-9]+")
_CJK_RUN = re.compile(f"[{HAN}{KANA}{HANGUL}]+")
_SUFFIXES = ("ations", "ation", "ments", "ment", "ings", "ing", "ies", "ied", "ed", "es", "s")


def _stem(word: str) -> str:
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            return word[: -len(suffix)]
    return word


def basic_terms(text: str) -> list[str]:
    """Terms for the engine's default check: lower-cased English words without stopwords, crudely
    stemmed, plus character bigrams of Hangul, kana and Han runs (works for ko, ja, zh alike)."""
    text = unicodedata.normalize("NFKC", text).lower()
    terms: list[str] = []
    for run in _CJK_RUN.findall(text):
        terms.extend([run] if len(run) == 1 else [run[i : i + 2] for i in range(len(run) - 1)])
    for word in _LATIN_WORD.findall(_CJK_RUN.sub(" ", text)):
        if word not in _STOPWORDS:
            terms.append(_stem(word))
    return terms


# -- scoring ----------------------------------------------------------------------------------------


def alignment(sentence_terms: set[str], evidence_terms: set[str]) -> float:
    """The share of the sentence's distinct terms that the evidence contains (0 when it has none)."""
    return len(sentence_terms & evidence_terms) / len(sentence_terms) if sentence_terms else 0.0


def unchecked_sentences(text: str, context: Context) -> list[SentenceSupport]:
    """The answer's sentences with their cited numbers split into valid and invalid, not yet judged."""
    out = []
    for sentence, numbers in answer_sentences(text):
        valid = [n for n in numbers if context.by_number(n) is not None]
        invalid = [n for n in numbers if context.by_number(n) is None]
        out.append(SentenceSupport(text=sentence, cited=valid, invalid_citations=invalid))
    return out


class LexicalSupport:
    """Judges each sentence by lexical alignment: against its cited evidence first, then (as a
    fallback) against every numbered passage; supported when the best score reaches ``threshold``."""

    def __init__(self, analyze: Callable[[str], list[str]] = basic_terms, threshold: float = DEFAULT_THRESHOLD,
                 *, fallback: bool = True, name: str = "lexical") -> None:
        self.analyze = analyze
        self.threshold = threshold
        self.fallback = fallback
        self.name = name

    def verify(self, query: Query, sentences: Sequence[SentenceSupport], context: Context) -> list[SentenceSupport]:
        passages = {
            e.number: set(self.analyze(f"{e.hit.metadata.get('title', '')}\n{e.text}")) for e in context.evidence
        }
        return [self.judge(s, passages) for s in sentences]

    def judge(self, sentence: SentenceSupport, passages: dict[int, set[str]]) -> SentenceSupport:
        terms = set(self.analyze(claim_text(sentence.text)))
        best_cited, score = None, 0.0
        if sentence.cited:
            union: set[str] = set().union(*(passages.get(n, set()) for n in sentence.cited))
            score = alignment(terms, union)
            best_cited = max(sentence.cited, key=lambda n: alignment(terms, passages.get(n, set())))
        if score >= self.threshold and terms:
            return sentence.model_copy(update={"supported": True, "score": round(score, 4), "evidence": best_cited,
                                               "method": self.name})
        if self.fallback and passages:
            number, other = max(((n, alignment(terms, p)) for n, p in passages.items()), key=lambda item: item[1])
            if other >= self.threshold and terms:
                return sentence.model_copy(update={"supported": True, "score": round(other, 4), "evidence": number,
                                                   "method": self.name})
            score = max(score, other)
        return sentence.model_copy(update={"supported": False, "score": round(score, 4), "evidence": None,
                                           "method": self.name, "problems": self._missing(terms, passages, sentence)})

    def _missing(
        self, terms: set[str], passages: dict[int, set[str]], sentence: SentenceSupport
    ) -> list[SentenceProblem]:
        """The sentence's terms its best passage lacks (the reason a lexical verdict gives)."""
        if not terms:
            return [SentenceProblem.of("no_match", "no words to compare")]
        candidates = sentence.cited or (list(passages) if self.fallback else [])
        if not candidates:
            return [SentenceProblem.of("no_match", "cites no evidence")]
        best = max(candidates, key=lambda n: alignment(terms, passages.get(n, set())))
        missing = sorted(terms - passages.get(best, set()))
        shown = ", ".join(missing[:8]) + (", ..." if len(missing) > 8 else "")
        return [SentenceProblem.of("not_in_evidence", f"{len(missing)} of {len(terms)} words ({shown})", best)]
