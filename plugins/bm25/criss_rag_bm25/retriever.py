"""BM25 over analyzer terms, built on LlamaIndex's ``BM25Retriever`` (bm25s underneath).

LlamaIndex's retriever tokenises with a regex, which turns Korean and Japanese into whole-phrase
tokens that never match; here every text goes through a criss_rag analyzer first, and the
pre-analysed terms are indexed as they are.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from llama_index.core.schema import BaseNode, MetadataMode, NodeWithScore
from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.errors import IndexStoreError
from criss_rag.types import Query, scored

if TYPE_CHECKING:  # bm25s imports scipy (about 0.4 s): only ingest and questions need it, not `validate`
    import bm25s
    from llama_index.core.storage.docstore import BaseDocumentStore

_TERMS = r"(?u)\S+"  # terms arrive pre-analysed and space-joined


class BM25:
    """Okapi BM25 over the terms of a configurable analyzer (title and text indexed)."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        analyzer: str | dict[str, Any] = Field(
            "standard", description="registered analyzer name, or {name: ..., params}"
        )
        k1: float = Field(1.5, gt=0, description="term-frequency saturation")
        b: float = Field(0.75, ge=0, le=1, description="document-length normalisation")
        repeat_fields: dict[str, int] = Field(
            default_factory=dict,
            description="metadata fields indexed this many extra times (a field weight), e.g. {title: 2}",
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.analyzer = ctx.analyzer(params.analyzer)
        self.show_progress = ctx.show_progress
        self._index: bm25s.BM25 | None = None
        self._topk: Any = None  # bm25s.selection.topk, imported by load()
        self._node_ids: list[str] = []
        self._docstore: BaseDocumentStore | None = None

    def warm_up(self) -> None:
        """Load the analyzer's models now (``Engine.warm_up``), when it has any."""
        warm = getattr(self.analyzer, "warm_up", None)
        if callable(warm):
            warm()

    def build(self, nodes: Sequence[BaseNode], directory: Path) -> None:
        import bm25s
        from llama_index.core.vector_stores.utils import node_to_metadata_dict
        from llama_index.retrievers.bm25 import BM25Retriever

        corpus = [node_to_metadata_dict(n) | {"node_id": n.node_id} for n in nodes]
        index = bm25s.BM25(k1=self.params.k1, b=self.params.b, corpus=corpus)
        index.index([self.analyzer.analyze(self._indexed_text(n)) for n in nodes], show_progress=False)
        retriever = BM25Retriever(existing_bm25=index, skip_stemming=True, token_pattern=_TERMS)
        retriever.persist(str(directory), show_progress=False)

    def _indexed_text(self, node: BaseNode) -> str:
        extra = [
            " ".join([str(node.metadata.get(field, ""))] * times) for field, times in self.params.repeat_fields.items()
        ]
        return "\n".join([node.get_content(MetadataMode.EMBED), *extra])

    def load(self, directory: Path, docstore: BaseDocumentStore) -> None:
        import bm25s
        from bm25s.selection import topk

        self._topk = topk
        try:
            # the files BM25Retriever.persist wrote; searched with bm25s directly, because the
            # LlamaIndex retriever rebuilds a node from JSON for every hit that is then looked up
            # in the docstore anyway (docs/benchmarks.md, "Framework overhead")
            index = bm25s.BM25.load(str(directory), load_corpus=True, show_progress=False)
            self._node_ids = [record["node_id"] for record in index.corpus]
        except (OSError, ValueError, KeyError) as exc:
            raise IndexStoreError(
                f"BM25 index at {directory} is unreadable ({exc}); re-run `criss-rag ingest CONFIG --force`"
            ) from None
        index.corpus = None  # answer with row numbers; the chunks live in the docstore
        self._index = index
        self._docstore = docstore

    def retrieve(self, query: Query, top_k: int) -> list[NodeWithScore]:
        found = self.retrieve_ids(query, top_k)  # (it checks the index is loaded)
        get_node = self._docstore.get_node  # type: ignore[union-attr]
        return [scored(get_node(node_id), score) for node_id, score in found]

    def retrieve_ids(self, query: Query, top_k: int) -> list[tuple[str, float]]:
        """``retrieve`` as ``(chunk id, score)`` pairs (what the engine asks for: criss_rag.ranked)."""
        if self._index is None or self._docstore is None:
            raise RuntimeError("BM25 index not loaded; call load() first")
        terms = " ".join(self.analyzer.analyze(query.search_text)).lower().split()  # as bm25s indexed them
        if not terms:
            return []
        # what BM25.retrieve does for one query (its scores, then bm25s' top-k selection, sorted),
        # without the progress bar and argument checks it runs for every call (half its time)
        scores, rows = self._topk(self._index.get_scores(terms), min(top_k, len(self._node_ids)), sorted=True)
        # bm25s returns k hits even at score 0: those matched nothing
        node_ids = self._node_ids
        return [(node_ids[row], score) for row, score in zip(rows.tolist(), scores.tolist(), strict=True) if score > 0]
