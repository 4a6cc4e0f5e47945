"""Candidates between the retrievers and the fusion: each retriever's ranked ``(node, score)`` pairs.

A question's retrievers find about 60 candidates of which fusion keeps 30; making a
``NodeWithScore`` and a :class:`~criss_rag.types.Hit` for each of the 60 cost as much as the FAISS
and BM25 searches themselves (docs/benchmarks.md, "Index-only overhead"). So the engine asks a
retriever for pairs when it can give them (the optional ``retrieve_pairs``), hands them to a fusion
that can fuse them (the optional ``fuse_pairs``), and makes hits only for what the fusion keeps.
Components with only the Protocols' ``retrieve`` and ``fuse`` get and give what they always did.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from llama_index.core.schema import BaseNode

from criss_rag.types import Hit, Query

#: one retriever's candidates, best first: the node and the score the retriever gave it
Ranked = list[tuple[BaseNode, float]]


def ranked_pairs(retriever: Any, query: Query, top_k: int) -> Ranked:
    """``retriever``'s candidates for ``query`` as pairs: its ``retrieve_pairs`` when it has one,
    else its ``retrieve``'s ``NodeWithScore`` s taken apart (a missing score counts 0)."""
    pairs = getattr(retriever, "retrieve_pairs", None)
    if callable(pairs):
        return pairs(query, top_k)
    return [(found.node, float(found.score or 0.0)) for found in retriever.retrieve(query, top_k)]


def as_hits(label: str, pairs: Ranked) -> list[Hit]:
    """One retriever's pairs as hits, each with its score as the signal ``label``."""
    return [Hit.of(node, score, {label: score}) for node, score in pairs]


def fuse(fusion: Any, query: Query, ranked: Mapping[str, Ranked]) -> list[Hit]:
    """``fusion`` over every retriever's pairs (keyed by retriever label): its ``fuse_pairs`` when it
    has one, else its ``fuse`` over the pairs made into hits."""
    fuse_pairs = getattr(fusion, "fuse_pairs", None)
    if callable(fuse_pairs):
        return fuse_pairs(query, ranked)
    return fusion.fuse(query, {label: as_hits(label, pairs) for label, pairs in ranked.items()})
