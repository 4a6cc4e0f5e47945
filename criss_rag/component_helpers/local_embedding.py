"""What the bundled in-process embeddings share: a model loaded once, on first use, under a lock
(two threads asking at once load it once), with a thread count chosen for small machines."""

from __future__ import annotations

import os
import threading
from typing import Any, ClassVar

from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.bridge.pydantic import PrivateAttr

from criss_rag.component_helpers.model_loading import loading
from criss_rag.llama_deferred import empty_callback_manager


def default_threads() -> int:
    """Half the CPU cores, at least 1 and at most 8: on a 2-core machine one thread, which keeps
    the other core for the rest of the process (OpenMP threads collapse when they share a core)."""
    return max(1, min(8, (os.cpu_count() or 1) // 2))


class LazyModelEmbedding(BaseEmbedding):
    """A LlamaIndex embedding whose model :meth:`_load` builds on first use (not at plugin load or
    pipeline build), with ``threads`` threads (:func:`default_threads` when not given). The load
    says so on stderr and shows in the trace as ``load:<LOAD_NAME>``
    (:mod:`criss_rag.component_helpers.model_loading`)."""

    #: the model's short name in the load line and the trace (e.g. ``multilingual-e5-small``)
    LOAD_NAME: ClassVar[str] = "embedding model"

    _model: Any = PrivateAttr(default=None)
    _threads: int = PrivateAttr(default=1)
    _lock: Any = PrivateAttr(default=None)

    def __init__(self, model_name: str, batch_size: int, threads: int | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("callback_manager", empty_callback_manager())  # what the default builds, lighter
        super().__init__(model_name=model_name, embed_batch_size=batch_size, **kwargs)
        self._threads = threads or default_threads()
        self._lock = threading.Lock()

    @property
    def threads(self) -> int:
        return self._threads

    @property
    def model(self) -> Any:
        with self._lock:
            if self._model is None:
                with loading(self.LOAD_NAME):
                    self._model = self._load()
        return self._model

    def load_model(self) -> None:
        """Load the model now (once): an ingest does, before its progress bar starts."""
        _ = self.model

    @property
    def loaded(self) -> bool:
        """Whether the model is in memory already."""
        return self._model is not None

    def query_vector(self, text: str) -> list[float]:
        """The question's vector, without LlamaIndex's per-call instrumentation (``Pipeline.embed_query``)."""
        return self._query_vector(text)

    def _query_vector(self, text: str) -> list[float]:
        return self._get_query_embedding(text)  # a subclass without its own: LlamaIndex's method

    def warm_up(self) -> None:
        """Load the model and embed one question now (``Engine.warm_up``), not in the first question."""
        self._get_query_embedding("warm-up")

    def _load(self) -> Any:
        raise NotImplementedError
