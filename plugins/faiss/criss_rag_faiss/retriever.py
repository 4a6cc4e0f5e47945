"""Dense retrieval: FAISS inner product over L2-normalised vectors (cosine similarity), stored
with LlamaIndex's ``FaissVectorStore``. Exact (flat) or approximate (HNSW, IVF, IVF-PQ) indexes."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Literal

import numpy as np
from llama_index.core.schema import BaseNode, MetadataMode, NodeWithScore
from llama_index.core.storage.docstore import BaseDocumentStore
from llama_index.core.vector_stores.types import VectorStoreQuery
from pydantic import BaseModel, ConfigDict, Field

from criss_rag.config.model import NOT_IN_INDEX_KEY
from criss_rag.context import ComponentContext
from criss_rag.errors import ConfigError, IndexStoreError
from criss_rag.types import Query

if TYPE_CHECKING:  # faiss is imported when an index is built or loaded, not when the plugin loads
    import faiss
    from llama_index.vector_stores.faiss import FaissVectorStore

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
        index_type: Literal["flat", "hnsw", "ivf", "ivf-pq"] = Field(
            "flat", description="flat = exact; hnsw, ivf, ivf-pq = approximate, for large corpora"
        )
        hnsw_m: int = Field(32, ge=4, description="hnsw: neighbours per node (memory vs recall)")
        ef_construction: int = Field(200, ge=8, description="hnsw: build-time search depth")
        ef_search: int = Field(128, ge=1, description="hnsw: query-time search depth", json_schema_extra=NOT_IN_INDEX_KEY)
        nlist: int = Field(1024, ge=1, description="ivf: number of clusters (capped at vectors/39 for training)")
        nprobe: int = Field(16, ge=1, description="ivf: clusters searched per query", json_schema_extra=NOT_IN_INDEX_KEY)
        pq_m: int = Field(48, ge=1, description="ivf-pq: sub-quantizers (must divide the dimension)")
        pq_bits: int = Field(8, ge=4, le=12, description="ivf-pq: bits per sub-quantizer code")
        mmap: bool = Field(
            False, description="load the index memory-mapped (faiss IO_FLAG_MMAP): vectors and inverted lists "
            "stay in the file and the OS pages them in, so a large index needs little RAM (docs/scaling.md)",
            json_schema_extra=NOT_IN_INDEX_KEY,
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.ctx = ctx
        self.embedding = ctx.embedding()
        self._store: FaissVectorStore | None = None
        self._ids: list[str] = []
        self._docstore: BaseDocumentStore | None = None

    def _new_index(self, vectors: np.ndarray) -> faiss.Index:
        import faiss

        p, (n, dim) = self.params, vectors.shape
        if p.index_type == "flat":
            return faiss.IndexFlatIP(dim)
        if p.index_type == "hnsw":
            index = faiss.IndexHNSWFlat(dim, p.hnsw_m, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = p.ef_construction
            return index
        nlist = max(1, min(p.nlist, n // 39))  # FAISS wants >= 39 training points per cluster
        quantizer = faiss.IndexFlatIP(dim)
        if p.index_type == "ivf":
            index = faiss.IndexIVFFlat(quantizer, dim, nlist, faiss.METRIC_INNER_PRODUCT)
        else:
            if dim % p.pq_m:
                raise ConfigError(f"faiss ivf-pq: pq_m={p.pq_m} must divide the embedding dimension {dim}")
            index = faiss.IndexIVFPQ(quantizer, dim, nlist, p.pq_m, p.pq_bits, faiss.METRIC_INNER_PRODUCT)
        index.train(vectors)
        return index

    def build(self, nodes: Sequence[BaseNode], directory: Path) -> None:
        from llama_index.vector_stores.faiss import FaissVectorStore

        vectors = normalise(self.ctx.embed_documents([node.get_content(MetadataMode.EMBED) for node in nodes]))
        index = self._new_index(vectors)
        store = FaissVectorStore(faiss_index=index)
        store.client.add(vectors)
        store.persist(persist_path=str(directory / VECTORS))
        meta = {"node_ids": [node.node_id for node in nodes], "dim": int(vectors.shape[1]),
                "embedding": self.embedding.model_name, "index_type": self.params.index_type}
        (directory / IDS).write_text(json.dumps(meta), encoding="utf-8")

    def load(self, directory: Path, docstore: BaseDocumentStore) -> None:
        import faiss
        from llama_index.vector_stores.faiss import FaissVectorStore

        try:
            meta = json.loads((directory / IDS).read_text(encoding="utf-8"))
            # IVF indexes map their inverted lists, flat and HNSW their vectors (the flags do not combine)
            ivf = str(meta.get("index_type", self.params.index_type)).startswith("ivf")
            flags = (faiss.IO_FLAG_MMAP if ivf else faiss.IO_FLAG_MMAP_IFC) if self.params.mmap else 0
            self._store = FaissVectorStore(faiss_index=faiss.read_index(str(directory / VECTORS), flags))
        except (OSError, ValueError, RuntimeError) as exc:
            raise IndexStoreError(f"FAISS index at {directory} is unreadable ({exc}); re-run `criss-rag ingest CONFIG --force`") from None
        index = self._store.client
        if index.ntotal != len(meta["node_ids"]):
            raise IndexStoreError(f"FAISS index at {directory} does not match its id list; re-run `criss-rag ingest CONFIG --force`")
        if hasattr(index, "nprobe"):
            index.nprobe = self.params.nprobe
        if hasattr(index, "hnsw"):
            index.hnsw.efSearch = self.params.ef_search
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
            if int(i) >= 0  # approximate indexes pad with -1 when they find fewer than top_k
        ]
