"""An answer's citations: markers checked against the numbered evidence, and the passages an
answer reports (cited or not)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any, NamedTuple

from criss_rag.answering.sentence_check import unchecked_sentences
from criss_rag.answering.source_titles import source_titles
from criss_rag.language.text import CITATION_MARKER
from criss_rag.types import Citation, Context, ContextItem, Query, SentenceSupport

if TYPE_CHECKING:
    from criss_rag.protocols import Verifier


class CitationCheck(NamedTuple):
    """What :func:`verify_citations` found."""

    text: str  # the answer with markers that match no evidence removed
    citations: list[Citation]  # the cited evidence, in number order
    invalid: list[int]  # cited numbers that match no evidence
    sentences: list[SentenceSupport]  # per-sentence verdicts (empty unless a verifier was given)


def verify_citations(text: str, context: Context, verifier: Verifier | None = None,
                     query: Query | None = None) -> CitationCheck:
    """Keep markers that point at real evidence, drop the others, and number the citations.

    With a ``verifier`` (e.g. :class:`criss_rag.answering.sentence_check.LexicalSupport`) each sentence of ``text``
    is also judged against the evidence; sentences citing numbers that match no evidence keep them
    in ``invalid_citations``.
    """
    cited: dict[int, Citation] = {}
    invalid: list[int] = []
    titles = source_titles(context)

    def keep(match: re.Match[str]) -> str:
        numbers = [int(n) for n in re.split(r"\s*,\s*", match.group(1))]
        valid = []
        for number in numbers:
            evidence = context.by_number(number)
            if evidence is None:
                invalid.append(number)
                continue
            valid.append(number)
            if number not in cited:
                meta = evidence.hit.metadata
                cited[number] = Citation(
                    number=number, doc_id=evidence.hit.doc_id, node_id=evidence.hit.node_id,
                    title=str(meta.get("title", "")), location=str(meta.get("url") or meta.get("source") or ""),
                    score=evidence.hit.score, text=evidence.text, source_title=titles[number],
                )
        return "".join(f"[{n}]" for n in valid)

    cleaned = CITATION_MARKER.sub(keep, text)
    if invalid:  # tidy the gaps that removed markers leave ("smoking  [7]." -> "smoking.")
        cleaned = re.sub(r"[ \t]+([.,;:!?。、])", r"\1", re.sub(r"(?<=\S)[ \t]{2,}", " ", cleaned))
    sentences: list[SentenceSupport] = []
    if verifier is not None:
        unchecked = unchecked_sentences(text, context)
        sentences = verifier.verify(query or Query(text=""), unchecked, context) if unchecked else []
    return CitationCheck(cleaned, [cited[n] for n in sorted(cited)], invalid, sentences)


def context_items(context: Context, citations: list[Citation]) -> list[ContextItem]:
    """Every passage of ``context`` as the answer reports it, marked cited or not."""
    titles = source_titles(context)
    cited = {c.number for c in citations}
    return [ContextItem(number=e.number, doc_id=e.hit.doc_id, node_id=e.hit.node_id,
                        title=str(e.hit.metadata.get("title", "")), source_title=titles[e.number],
                        location=str(e.hit.metadata.get("url") or e.hit.metadata.get("source") or ""),
                        score=e.hit.score, text=e.text, cited=e.number in cited,
                        metadata={k: v for k, v in e.hit.metadata.items() if _plain(v)})
            for e in context.evidence]


def _plain(value: Any) -> bool:
    if isinstance(value, list | tuple):
        return all(isinstance(v, str | int | float | bool) for v in value)
    return value is None or isinstance(value, str | int | float | bool)
