"""The index's chunks as question-time components see them."""

from __future__ import annotations

from llama_index.core.schema import BaseNode
from llama_index.core.storage.docstore import SimpleDocumentStore


class ChunkStore(SimpleDocumentStore):
    """A ``SimpleDocumentStore`` that turns each stored chunk into a node once.

    LlamaIndex's key-value docstore keeps chunks as JSON dicts and rebuilds a pydantic node on every
    ``get_node()``: with two retrievers of ``top_k: 30`` that was 60 rebuilds, most of the engine's
    retrieval time (docs/benchmarks.md, "Framework overhead"). Here a node is built on first use and
    kept, so every question gets the same node objects: question-time components must not modify a
    node in place (they return new ``NodeWithScore`` / ``Hit`` objects, as the bundled ones do).
    """

    def __init__(self, *args, **kwargs) -> None:  # noqa: ANN002, ANN003 - SimpleDocumentStore's own
        super().__init__(*args, **kwargs)
        self._nodes: dict[str, BaseNode] = {}

    def get_document(self, doc_id: str, raise_error: bool = True) -> BaseNode | None:
        node = self._nodes.get(doc_id)
        if node is None:
            node = super().get_document(doc_id, raise_error=raise_error)
            if node is not None:
                self._nodes[doc_id] = node
        return node

    @property
    def docs(self) -> dict[str, BaseNode]:
        return {doc_id: self.get_document(doc_id) for doc_id in self._kvstore.get_all(collection=self._node_collection)}
