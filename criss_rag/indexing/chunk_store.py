"""The index's chunks as question-time components see them."""

from __future__ import annotations

from typing import Literal, overload

from llama_index.core.schema import BaseNode
from llama_index.core.storage.docstore import SimpleDocumentStore
from llama_index.core.storage.kvstore.simple_kvstore import SimpleKVStore


class ChunkStore(SimpleDocumentStore):
    """A ``SimpleDocumentStore`` that turns each stored chunk into a node once.

    LlamaIndex's key-value docstore keeps chunks as JSON dicts and rebuilds a pydantic node on every
    ``get_node()``: with two retrievers of ``top_k: 30`` that was 60 rebuilds, most of the engine's
    retrieval time (docs/benchmarks.md, "Framework overhead"). Here a node is built the first time a
    question retrieves it and then kept, so every question gets the same node objects: question-time
    components must not modify a node in place (they return new ``NodeWithScore`` / ``Hit`` objects,
    as the bundled ones do).
    """

    def __init__(self, simple_kvstore: SimpleKVStore | None = None, namespace: str | None = None,
                 batch_size: int = 1) -> None:
        super().__init__(simple_kvstore, namespace, batch_size)
        self._nodes: dict[str, BaseNode] = {}

    @overload
    def get_node(self, node_id: str, raise_error: Literal[True] = True) -> BaseNode: ...

    @overload
    def get_node(self, node_id: str, raise_error: Literal[False] = False) -> BaseNode | None: ...

    def get_node(self, node_id: str, raise_error: bool = True) -> BaseNode | None:
        # a node built before is returned at once (LlamaIndex's get_node checks its type every call)
        node = self._nodes.get(node_id)
        if node is not None:
            return node
        return super().get_node(node_id, raise_error=True) if raise_error else super().get_node(node_id, False)

    def get_document(self, doc_id: str, raise_error: bool = True) -> BaseNode | None:
        node = self._nodes.get(doc_id)
        if node is None:
            node = super().get_document(doc_id, raise_error=raise_error)
            if node is not None:
                self._nodes[doc_id] = node
        return node

    @property
    def docs(self) -> dict[str, BaseNode]:
        # every chunk, e.g. for the corpus checks at start-up: built fresh and not kept, so only the
        # chunks questions actually retrieve are held twice (as JSON and as a node)
        stored = super().docs
        return {doc_id: self._nodes.get(doc_id, node) for doc_id, node in stored.items()}
