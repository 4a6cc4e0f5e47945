"""Shared by the sentence-check and relevance tests: passages given as text, numbered [1], [2], ... in
order, as a context (:func:`context`), and one claim judged by the built-in check against them
(:func:`judge`)."""

from __future__ import annotations

from llama_index.core.schema import NodeWithScore

from criss_rag.answering.meaning_check import MeaningSupport
from criss_rag.types import Context, Evidence, Hit, Query, SentenceSupport, text_node


def context(*texts: str) -> Context:
    """``texts`` as the numbered evidence of a question (documents d1, d2, ...)."""
    return Context(
        tuple(
            Evidence(n, Hit(NodeWithScore(node=text_node(f"d{n}", t), score=1.0)), t) for n, t in enumerate(texts, 1)
        ),
        "",
    )


def judge(claim: str, *passages: str) -> SentenceSupport:
    evidence = tuple(Evidence(i, Hit(NodeWithScore(node=text_node(f"p{i}", p), score=1.0)), p)
                     for i, p in enumerate(passages, 1))
    sentence = SentenceSupport(text=claim, cited=list(range(1, len(passages) + 1)))
    (verdict,) = MeaningSupport().verify(Query(text=""), [sentence], Context(evidence, ""))
    return verdict
