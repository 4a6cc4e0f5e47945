"""Candidates between the retrievers and the fusion: each retriever's ranked ``(node id, score)`` pairs.

A question's retrievers find about 60 candidates of which fusion keeps 30; making a
``NodeWithScore`` and a :class:`~criss_rag.types.Hit` for each of the 60 cost as much as the FAISS
and BM25 searches themselves (docs/benchmarks.md, "Index-only overhead"). So the engine asks a
retriever for chunk ids and scores when it can give them (the optional ``retrieve_ids``), hands
them to a fusion that can rank them (the optional ``fuse_ids``), and looks up nodes and makes hits
only for what the fusion keeps. Components with only the Protocols' ``retrieve`` and ``fuse`` get
and give what they always did.
"""

from __future__ import annotations

from typing import Any

from llama_index.core.schema import BaseNode
from llama_index.core.storage.docstore import BaseDocumentStore

from criss_rag.types import Hit, Query

#: one retriever's candidates, best first: a chunk id and the score the retriever gave it
Ranked = list[tuple[str, float]]
#: what ``fuse_ids`` returns, best first: a chunk id, its fused score and its signals
Fused = list[tuple[str, float, dict[str, float]]]


class Candidates:
    """One question's candidates: every retriever's ranked ids by label, and their nodes, looked up
    in the docstore the retrievers were loaded with (or kept from a retriever that returned nodes)."""

    def __init__(self, docstore: BaseDocumentStore) -> None:
        self.ranked: dict[str, Ranked] = {}
        self._docstore = docstore
        self._nodes: dict[str, BaseNode] = {}  # from retrievers without retrieve_ids

    def retrieve(self, label: str, retriever: Any, query: Query, top_k: int) -> Ranked:
        """``retriever``'s candidates for ``query``, kept under ``label``: its ``retrieve_ids`` when it
        has one, else its ``retrieve``'s ``NodeWithScore`` s taken apart (a missing score counts 0)."""
        by_id = getattr(retriever, "retrieve_ids", None)
        if callable(by_id):
            ranked: Ranked = by_id(query, top_k)
        else:
            found = retriever.retrieve(query, top_k)
            ranked = []
            for item in found:
                self._nodes.setdefault(item.node.node_id, item.node)  # the first seen, as a fusion keeps
                ranked.append((item.node.node_id, float(item.score or 0.0)))
        self.ranked[label] = ranked
        return ranked

    def node(self, node_id: str) -> BaseNode:
        node = self._nodes.get(node_id)
        return node if node is not None else self._docstore.get_node(node_id)

    def hits(self, label: str) -> list[Hit]:
        """One retriever's candidates as hits, each with its score as the signal ``label``."""
        node = self.node
        return [Hit.of(node(node_id), score, {label: score}) for node_id, score in self.ranked[label]]

    def fuse(self, fusion: Any, query: Query) -> list[Hit]:
        """``fusion`` over every retriever's candidates: its ``fuse_ids`` when it has one (hits made
        for what it keeps), else its ``fuse`` over every candidate made into a hit."""
        by_id = getattr(fusion, "fuse_ids", None)
        if not callable(by_id):
            return fusion.fuse(query, {label: self.hits(label) for label in self.ranked})
        fused: Fused = by_id(query, self.ranked)
        node = self.node
        return [Hit.of(node(node_id), score, signals) for node_id, score, signals in fused]
