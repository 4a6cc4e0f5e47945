"""Dense retrieval: FAISS inner product over L2-normalised vectors (cosine similarity), stored
with LlamaIndex's ``FaissVectorStore``. Exact (flat) or approximate (HNSW, IVF, IVF-PQ) indexes.

Every vector carries a stable 64-bit id (``node_ids.json`` maps it to the chunk id), so an
incremental ingest can remove the vectors of changed and deleted documents and add new ones
without touching the rest: flat and HNSW indexes sit in a ``faiss.IndexIDMap2``, IVF indexes keep
ids natively. FAISS's HNSW cannot remove vectors, so an update with removals rebuilds an HNSW index
whole (from the embedding cache: nothing is re-embedded). LlamaIndex's ``FaissMapVectorStore`` is
not used: it numbers new vectors by ``ntotal``, which repeats an id still in use after a removal,
and its IndexIDMap2 wrapper cannot remove from IVF indexes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import numpy as np
from llama_index.core.schema import BaseNode, MetadataMode, NodeWithScore
from llama_index.core.storage.docstore import BaseDocumentStore
from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.errors import ConfigError, IndexStoreError
from criss_rag.plugin_utils import NOT_IN_INDEX_KEY
from criss_rag.types import Query, scored

if TYPE_CHECKING:  # faiss is imported when an index is built or loaded, not when the plugin loads
    import faiss
    from llama_index.vector_stores.faiss import FaissVectorStore

VECTORS = "vectors.faiss"
IDS = "node_ids.json"
ID_FORMAT = 2  # node_ids.json: {"ids": {node_id: faiss id}, "next_id": ...}


def normalise(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, dtype="float32")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    return matrix / np.maximum(norms, 1e-12)


class FaissDense:
    """Dense search with the pipeline's embedding model; scores are cosine similarities."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        embedding: str | dict[str, Any] | None = Field(
            None, description="a registered embedding (name, or {name: ..., <params>}) for this retriever; null: "
            "the pipeline's `embedding:`. Lets one pipeline hold several dense retrievers, e.g. MiniLM for "
            "English and multilingual-e5 for Korean, Japanese and Chinese (each with its `languages:`)",
        )
        index_type: Literal["flat", "hnsw", "ivf", "ivf-pq"] = Field(
            "flat", description="flat = exact; hnsw, ivf, ivf-pq = approximate, for large corpora"
        )
        hnsw_m: int = Field(32, ge=4, description="hnsw: neighbours per node (memory vs recall)")
        ef_construction: int = Field(200, ge=8, description="hnsw: build-time search depth")
        ef_search: int = Field(
            128, ge=1, description="hnsw: query-time search depth", json_schema_extra=NOT_IN_INDEX_KEY
        )
        nlist: int = Field(1024, ge=1, description="ivf: number of clusters (capped at vectors/39 for training)")
        nprobe: int = Field(
            16, ge=1, description="ivf: clusters searched per query", json_schema_extra=NOT_IN_INDEX_KEY
        )
        pq_m: int | None = Field(
            None, ge=1, description="ivf-pq: sub-quantizers, one byte each (must divide the dimension); null: half "
            "the dimension (192 for 384-d: recall@10 0.91 at 1M chunks in docs/benchmarks.md, where 48 gave 0.50)",
        )
        pq_bits: int = Field(8, ge=4, le=12, description="ivf-pq: bits per sub-quantizer code")
        search_threads: int = Field(
            1, ge=1, le=256, description="OpenMP threads of one question's search (the index is searched with one "
            "query vector: more threads only wait on each other, 30x slower on a busy 2-core machine)",
            json_schema_extra=NOT_IN_INDEX_KEY,
        )
        mmap: bool = Field(
            False, description="load the index memory-mapped (faiss IO_FLAG_MMAP): vectors and inverted lists "
            "stay in the file and the OS pages them in, so a large index needs little RAM (docs/scaling.md)",
            json_schema_extra=NOT_IN_INDEX_KEY,
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.ctx = ctx
        self.embedding = ctx.embedding(params.embedding)
        self._index: Any = None  # the loaded faiss index (a question needs no FaissVectorStore around it)
        self._ids: dict[int, str] = {}
        self.rebuild_reason = ""
        self._docstore: BaseDocumentStore | None = None
        self._faiss: Any = None  # the faiss module, once an index is loaded

    def _new_index(self, vectors: np.ndarray) -> faiss.Index:
        import faiss

        p, (n, dim) = self.params, vectors.shape
        if p.index_type == "flat":
            return faiss.IndexIDMap2(faiss.IndexFlatIP(dim))
        if p.index_type == "hnsw":
            index = faiss.IndexHNSWFlat(dim, p.hnsw_m, faiss.METRIC_INNER_PRODUCT)
            index.hnsw.efConstruction = p.ef_construction
            return faiss.IndexIDMap2(index)
        nlist = max(1, min(p.nlist, n // 39))  # FAISS wants >= 39 training points per cluster
        quantizer = faiss.IndexFlatIP(dim)
        if p.index_type == "ivf":
            index = faiss.IndexIVFFlat(quantizer, dim, nlist, faiss.METRIC_INNER_PRODUCT)
        else:
            pq_m = p.pq_m or (dim // 2 if dim % 2 == 0 else dim)
            if dim % pq_m:
                raise ConfigError(f"faiss ivf-pq: pq_m={pq_m} must divide the embedding dimension {dim}")
            if n < 2**p.pq_bits:
                raise ConfigError(
                    f"faiss ivf-pq: {n} chunks are too few to train {2**p.pq_bits} codes per sub-quantizer "
                    f"(pq_bits={p.pq_bits}); use index_type: flat for a corpus this small, or lower pq_bits"
                )
            index = faiss.IndexIVFPQ(quantizer, dim, nlist, pq_m, p.pq_bits, faiss.METRIC_INNER_PRODUCT)
        index.train(vectors)
        return index

    def _vectors(self, nodes: Sequence[BaseNode]) -> np.ndarray:
        texts = [node.get_content(MetadataMode.EMBED) for node in nodes]
        return normalise(self.ctx.embed_documents(texts, self.params.embedding))

    def build(self, nodes: Sequence[BaseNode], directory: Path) -> None:
        from llama_index.vector_stores.faiss import FaissVectorStore

        vectors = self._vectors(nodes)
        store = FaissVectorStore(faiss_index=self._new_index(vectors))
        ids = {node.node_id: i for i, node in enumerate(nodes)}
        store.client.add_with_ids(vectors, np.arange(len(nodes), dtype="int64"))
        self._save(store, ids, len(nodes), int(vectors.shape[1]), directory)

    def update(self, added: Sequence[BaseNode], removed_ids: Sequence[str], directory: Path) -> bool:
        """Remove the vectors of ``removed_ids`` and add those of ``added`` in place; ``False``
        (rebuild whole) for an HNSW index that would have to remove vectors."""
        meta = self._read_meta(directory)
        ids: dict[str, int] = meta["ids"]
        gone = [ids[node_id] for node_id in removed_ids if node_id in ids]
        if gone and self.params.index_type == "hnsw":
            self.rebuild_reason = "FAISS HNSW indexes cannot remove vectors"
            return False
        store = self._read_store(directory)
        if gone:
            removed = store.client.remove_ids(np.asarray(gone, dtype="int64"))
            if removed != len(gone):
                raise IndexStoreError(f"FAISS index at {directory} lacked {len(gone) - removed} of the vectors "
                                      "to remove; re-run `criss-rag ingest CONFIG --force`")
            for node_id in removed_ids:
                ids.pop(node_id, None)
        next_id = int(meta["next_id"])
        if added:
            vectors = self._vectors(added)
            if vectors.shape[1] != store.client.d:
                raise IndexStoreError(f"FAISS index at {directory} holds {store.client.d}-dimensional vectors, the "
                                      f"embedding gives {vectors.shape[1]}; re-run `criss-rag ingest CONFIG --force`")
            new_ids = np.arange(next_id, next_id + len(added), dtype="int64")
            store.client.add_with_ids(vectors, new_ids)
            ids.update({node.node_id: int(i) for node, i in zip(added, new_ids, strict=True)})
            next_id += len(added)
        self._save(store, ids, next_id, int(store.client.d), directory)
        return True

    def _save(self, store: FaissVectorStore, ids: dict[str, int], next_id: int, dim: int, directory: Path) -> None:
        store.persist(persist_path=str(directory / VECTORS))
        meta = {"format": ID_FORMAT, "ids": ids, "next_id": next_id, "dim": dim,
                "embedding": self.embedding.model_name, "index_type": self.params.index_type}
        (directory / IDS).write_text(json.dumps(meta), encoding="utf-8")

    def _read_meta(self, directory: Path) -> dict:
        try:
            meta = json.loads((directory / IDS).read_text(encoding="utf-8"))
            if meta.get("format") != ID_FORMAT:
                raise ValueError(f"id list format {meta.get('format')} is not {ID_FORMAT}")
            return meta
        except (OSError, ValueError) as exc:
            raise IndexStoreError(
                f"FAISS index at {directory} is unreadable ({exc}); re-run `criss-rag ingest CONFIG --force`"
            ) from None

    def _read_store(self, directory: Path) -> FaissVectorStore:
        from llama_index.vector_stores.faiss import FaissVectorStore

        return FaissVectorStore(faiss_index=self._read_index(directory))

    def _read_index(self, directory: Path, *, mmap: bool = False) -> Any:
        import faiss

        # IVF indexes map their inverted lists, flat and HNSW their vectors (the flags do not combine)
        ivf = self.params.index_type.startswith("ivf")
        flags = (faiss.IO_FLAG_MMAP if ivf else faiss.IO_FLAG_MMAP_IFC) if mmap else 0
        try:
            return faiss.read_index(str(directory / VECTORS), flags)
        except (OSError, ValueError, RuntimeError) as exc:
            raise IndexStoreError(
                f"FAISS index at {directory} is unreadable ({exc}); re-run `criss-rag ingest CONFIG --force`"
            ) from None

    def load(self, directory: Path, docstore: BaseDocumentStore) -> None:
        import faiss

        meta = self._read_meta(directory)
        self._index = index = self._read_index(directory, mmap=self.params.mmap)
        if index.ntotal != len(meta["ids"]):
            raise IndexStoreError(
                f"FAISS index at {directory} does not match its id list; re-run `criss-rag ingest CONFIG --force`"
            )
        inner = faiss.downcast_index(index.index) if isinstance(index, faiss.IndexIDMap2) else index
        if hasattr(inner, "nprobe"):
            inner.nprobe = self.params.nprobe
        if hasattr(inner, "hnsw"):
            inner.hnsw.efSearch = self.params.ef_search
        self._ids = {int(i): node_id for node_id, i in meta["ids"].items()}
        self._docstore = docstore
        self._faiss = faiss

    def warm_up(self) -> None:
        """Load this retriever's embedding model now (``Engine.warm_up``), if it is a local one."""
        warm = getattr(self.embedding, "warm_up", None)
        if callable(warm):
            warm()

    def retrieve(self, query: Query, top_k: int) -> list[NodeWithScore]:
        found = self.retrieve_ids(query, top_k)  # (it checks the index is loaded)
        get_node = self._docstore.get_node  # type: ignore[union-attr]
        return [scored(get_node(node_id), score) for node_id, score in found]

    def retrieve_ids(self, query: Query, top_k: int) -> list[tuple[str, float]]:
        """``retrieve`` as ``(chunk id, score)`` pairs (what the engine asks for: criss_rag.ranked)."""
        if self._index is None or self._docstore is None:
            raise RuntimeError("FAISS index not loaded; call load() first")
        # unit length; shared with an answer cache
        vector = self.ctx.embed_query(query.search_text, self.params.embedding)
        # the FAISS index itself (FaissVectorStore.query converts the vector to a list and back, and its
        # ids to strings); -1 pads an approximate index's short answer
        threads = self._faiss.omp_get_max_threads()  # this thread's setting, restored after the search
        self._faiss.omp_set_num_threads(self.params.search_threads)
        try:
            scores, ids = self._index.search(vector.reshape(1, -1), top_k)
        finally:
            self._faiss.omp_set_num_threads(threads)
        node_ids = self._ids
        return [(node_ids[i], s) for i, s in zip(ids[0].tolist(), scores[0].tolist(), strict=True) if i >= 0]
