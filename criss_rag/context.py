"""What a component factory receives besides its params."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    import numpy as np
    from llama_index.core.base.embeddings.base import BaseEmbedding

    from criss_rag.config import PipelineConfig
    from criss_rag.protocols import Analyzer


class Resources(Protocol):
    """What a context hands out, and from where: :class:`criss_rag.pipeline.Pipeline` is the one
    implementation (named here as a protocol, so this module does not import the pipeline back)."""

    config: PipelineConfig
    show_progress: bool

    def embedding(self, *, requested_by: str) -> Any: ...
    def named(self, kind: str, spec: str | dict[str, Any], *, requested_by: str) -> Any: ...
    def embed_query(self, text: str, spec: str | dict[str, Any] | None = None, *, requested_by: str) -> Any: ...
    def embed_documents(self, texts: Any, spec: str | dict[str, Any] | None = None, *, requested_by: str) -> Any: ...
    def llm(self, key: str, *, requested_by: str) -> Any: ...
    def analyzer(self, spec: str | dict[str, Any], *, requested_by: str) -> Any: ...


class ComponentContext:
    """Gives a component the shared resources the config names, and nothing else.

    ``embedding()`` returns the pipeline's configured embedding model (an error if the config
    names none: there is no hidden default), ``analyzer(name)`` a registered analyzer.
    """

    def __init__(self, pipeline: Resources, stage: str) -> None:
        self._pipeline = pipeline
        self.stage = stage

    @property
    def base_dir(self) -> Path:
        """The folder of the config file; relative paths in params resolve against it."""
        return self._pipeline.config.base_dir

    @property
    def show_progress(self) -> bool:
        return self._pipeline.show_progress

    def resolve_path(self, path: str | Path) -> Path:
        path = Path(path).expanduser()
        return path if path.is_absolute() else self.base_dir / path

    def embedding(self, spec: str | dict[str, Any] | None = None) -> BaseEmbedding:
        """The pipeline's embedding; with ``spec`` (a registered name, or ``{name: ..., <params>}``),
        that embedding instead, built once."""
        if spec is not None:
            return self._pipeline.named("embedding", spec, requested_by=self.stage)
        return self._pipeline.embedding(requested_by=self.stage)

    def embed_query(self, text: str, spec: str | dict[str, Any] | None = None) -> np.ndarray:
        """The unit-length float32 vector of a question with the pipeline's embedding (or ``spec``).
        Recent questions' vectors are shared between stages: a dense retriever and an answer cache
        embed each question once between them. The array is read-only."""
        return self._pipeline.embed_query(text, spec, requested_by=self.stage)

    def embed_documents(self, texts: Sequence[str], spec: str | dict[str, Any] | None = None) -> np.ndarray:
        """Vectors of ``texts`` with the pipeline's embedding (or ``spec``), through the embedding
        cache (keyed by model): unchanged text is never embedded twice, and an interrupted ingest
        resumes."""
        return self._pipeline.embed_documents(texts, spec, requested_by=self.stage)

    def env_ref(self, param: str) -> str | None:
        """The environment variable the YAML named for ``param`` (``{env: NAME}``), or ``None``.

        For error messages: name the variable a rejected key came from, never the key itself."""
        cc = self._pipeline.config.find(self.stage)
        return cc.env_refs.get(param) if cc else None

    def llm(self, key: str) -> Any:
        """The LLM the config names under ``llms: {key: ...}`` (a LlamaIndex ``LLM``)."""
        return self._pipeline.llm(key, requested_by=self.stage)

    def analyzer(self, spec: str | dict[str, Any]) -> Analyzer:
        return self._pipeline.analyzer(spec, requested_by=self.stage)
