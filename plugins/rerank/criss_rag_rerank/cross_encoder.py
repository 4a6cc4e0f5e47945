"""The ``cross-encoder`` reranker: a sentence-transformers cross-encoder, loaded from a local
folder, scores each (question, passage) pair. Nothing is ever downloaded."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.errors import ConfigError
from criss_rag.types import Hit, Query

SIGNAL = "cross-encoder"
WEIGHT_FILES = (
    "model.safetensors",
    "pytorch_model.bin",
    "model.safetensors.index.json",
    "pytorch_model.bin.index.json",
)
EXPECTED = ("config.json, the weights (model.safetensors or pytorch_model.bin) and the tokenizer files "
            "(e.g. tokenizer.json or vocab.txt, with tokenizer_config.json)")
HOW_TO_GET_ONE = (
    "criss_rag never downloads models: on a machine with internet, download a cross-encoder (e.g. "
    "`huggingface-cli download cross-encoder/ms-marco-MiniLM-L6-v2 --local-dir ms-marco-MiniLM-L6-v2`), "
    f"copy the folder here and point `model_path` at it. The folder must hold {EXPECTED}. "
    "A relative `model_path` is relative to the config file."
)
MISSING_PACKAGE = (
    "the cross-encoder reranker needs the package sentence-transformers (and torch), which is not "
    "installed. Install the CPU build of torch first (`pip install torch==2.13.0`), then "
    "`pip install 'criss-rag-rerank[cross-encoder]'` (or `pip install sentence-transformers`)"
)


def check_model_dir(path: Path, where: str) -> None:
    """A ConfigError unless ``path`` looks like a saved Hugging Face model folder."""
    if not path.exists():
        raise ConfigError(f"{where}: cross-encoder model_path {path} does not exist. {HOW_TO_GET_ONE}")
    if not path.is_dir():
        raise ConfigError(f"{where}: cross-encoder model_path {path} is a file, not a model folder. {HOW_TO_GET_ONE}")
    missing = [] if (path / "config.json").is_file() else ["config.json"]
    if not any((path / name).is_file() for name in WEIGHT_FILES):
        missing.append("model.safetensors (or pytorch_model.bin)")
    if missing:
        raise ConfigError(
            f"{where}: cross-encoder model_path {path} has no {' and no '.join(missing)}. {HOW_TO_GET_ONE}"
        )


def sentence_transformers_installed() -> bool:
    try:
        return importlib.util.find_spec("sentence_transformers") is not None
    except (ImportError, ValueError):  # ValueError: a module object without a spec (e.g. blocked in tests)
        return False


class CrossEncoderReranker:
    """A local cross-encoder model re-scores the top candidates against the question.

    The model (sentence-transformers ``CrossEncoder``) is read from ``model_path`` on first use,
    offline; each of the top ``candidates`` is scored as a (question, passage) pair and they are
    re-sorted by that score, which becomes the ranking score and the signal ``cross-encoder``.
    Candidates beyond ``candidates`` follow unchanged.
    """

    SIGNALS = (SIGNAL,)

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        model_path: str = Field(
            description="local folder of a saved cross-encoder (config.json, model.safetensors, tokenizer files), "
            "relative to the config file"
        )
        candidates: int = Field(20, ge=1, description="how many of the top candidates to re-score")
        batch_size: int = Field(16, ge=1, description="pairs per model batch")
        max_length: int = Field(512, ge=8, description="pairs are truncated to this many tokens")
        device: str = Field("cpu", description="torch device, e.g. cpu or cuda")
        with_title: bool = Field(True, description="put the passage's title (metadata `title`) before its text")

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.where = f"stage {ctx.stage}"
        self.path = ctx.resolve_path(params.model_path)
        check_model_dir(self.path, self.where)
        if not sentence_transformers_installed():
            raise ConfigError(f"{self.where}: {MISSING_PACKAGE}")
        self._model: Any = None

    @property
    def model(self) -> Any:
        """The CrossEncoder, loaded on first use (importing torch takes seconds)."""
        if self._model is None:
            # the model is local: make any hub lookup fail at once instead of fetching or hanging
            os.environ["HF_HUB_OFFLINE"] = "1"
            os.environ["TRANSFORMERS_OFFLINE"] = "1"
            try:
                from sentence_transformers import CrossEncoder
            except ImportError as exc:
                raise ConfigError(f"{self.where}: {MISSING_PACKAGE} ({exc})") from None
            from transformers.utils import logging as hf_logging

            hf_logging.disable_progress_bar()
            try:
                self._model = CrossEncoder(str(self.path), device=self.params.device,
                                           max_length=self.params.max_length, local_files_only=True)
            except Exception as exc:  # a broken folder fails in many ways; all mean the same to the user
                raise ConfigError(
                    f"{self.where}: could not load a cross-encoder from {self.path}: {type(exc).__name__}: "
                    f"{exc}. {HOW_TO_GET_ONE}"
                ) from exc
        return self._model

    def passage(self, hit: Hit) -> str:
        title = str(hit.metadata.get("title") or "").strip()
        return f"{title}\n{hit.text}" if self.params.with_title and title else hit.text

    def score(self, question: str, passages: list[str]) -> list[float]:
        scores = self.model.predict([(question, p) for p in passages], batch_size=self.params.batch_size,
                                    show_progress_bar=False, convert_to_numpy=True)
        if getattr(scores, "ndim", 1) != 1:
            raise ConfigError(
                f"{self.where}: the model in {self.path} gives {scores.shape[-1]} scores per pair; a reranking "
                "cross-encoder gives one (num_labels: 1). Point model_path at a reranking cross-encoder."
            )
        return [float(s) for s in scores]

    def rerank(self, query: Query, hits: list[Hit]) -> list[Hit]:
        if not hits:
            return hits
        reviewed, rest = hits[: self.params.candidates], hits[self.params.candidates :]
        scores = self.score(query.text, [self.passage(h) for h in reviewed])
        rescored = [hit.with_score(score, SIGNAL) for hit, score in zip(reviewed, scores, strict=True)]
        return sorted(rescored, key=lambda h: -h.score) + rest
