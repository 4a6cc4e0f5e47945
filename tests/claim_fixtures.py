"""Shared by the sentence-check tests: one claim judged by the built-in check against passages given
as text (each passage is cited as [1], [2], ... in order)."""

from __future__ import annotations

from llama_index.core.schema import NodeWithScore

from criss_rag.answering.meaning_check import MeaningSupport
from criss_rag.types import Context, Evidence, Hit, Query, SentenceSupport, text_node


def judge(claim: str, *passages: str) -> SentenceSupport:
    evidence = tuple(Evidence(i, Hit(NodeWithScore(node=text_node(f"p{i}", p), score=1.0)), p)
                     for i, p in enumerate(passages, 1))
    sentence = SentenceSupport(text=claim, cited=list(range(1, len(passages) + 1)))
    (verdict,) = MeaningSupport().verify(Query(text=""), [sentence], Context(evidence, ""))
    return verdict
