"""Dense retrieval: FAISS inner product over L2-normalised vectors (cosine similarity), stored
with LlamaIndex's ``FaissVectorStore``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

import faiss
import numpy as np
from llama_index.core.schema import BaseNode, MetadataMode, NodeWithScore
from llama_index.core.storage.docstore import BaseDocumentStore
from llama_index.core.vector_stores.types import VectorStoreQuery
from llama_index.vector_stores.faiss import FaissVectorStore
from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.errors import IndexStoreError
from criss_rag.types import Query

VECTORS = "vectors.faiss"
IDS = "node_ids.json"


def normalise(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype="float32")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, 1e-12)


class FaissDense:
    """Dense search with the pipeline's embedding model; scores are cosine similarities."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        index_type: Literal["flat"] = Field("flat", description="exact inner-product search")

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.embedding = ctx.embedding()
        self.show_progress = ctx.show_progress
        self._store: FaissVectorStore | None = None
        self._ids: list[str] = []
        self._docstore: BaseDocumentStore | None = None

    def build(self, nodes: Sequence[BaseNode], directory: Path) -> None:
        texts = [node.get_content(MetadataMode.EMBED) for node in nodes]
        vectors = normalise(self.embedding.get_text_embedding_batch(texts, show_progress=self.show_progress))
        store = FaissVectorStore(faiss_index=faiss.IndexFlatIP(vectors.shape[1]))
        store.client.add(vectors)
        store.persist(persist_path=str(directory / VECTORS))
        meta = {"node_ids": [node.node_id for node in nodes], "dim": int(vectors.shape[1]),
                "embedding": self.embedding.model_name}
        (directory / IDS).write_text(json.dumps(meta), encoding="utf-8")

    def load(self, directory: Path, docstore: BaseDocumentStore) -> None:
        try:
            meta = json.loads((directory / IDS).read_text(encoding="utf-8"))
            self._store = FaissVectorStore.from_persist_path(str(directory / VECTORS))
        except (OSError, ValueError, RuntimeError) as exc:
            raise IndexStoreError(f"FAISS index at {directory} is unreadable ({exc}); re-run `criss-rag ingest CONFIG --force`") from None
        if self._store.client.ntotal != len(meta["node_ids"]):
            raise IndexStoreError(f"FAISS index at {directory} does not match its id list; re-run `criss-rag ingest CONFIG --force`")
        self._ids = meta["node_ids"]
        self._docstore = docstore

    def retrieve(self, query: Query, top_k: int) -> list[NodeWithScore]:
        if self._store is None or self._docstore is None:
            raise RuntimeError("FAISS index not loaded; call load() first")
        vector = normalise([self.embedding.get_query_embedding(query.search_text)])[0]
        result = self._store.query(VectorStoreQuery(query_embedding=vector.tolist(), similarity_top_k=top_k))
        return [
            NodeWithScore(node=self._docstore.get_node(self._ids[int(i)]), score=float(s))
            for i, s in zip(result.ids or [], result.similarities or [], strict=True)
        ]
