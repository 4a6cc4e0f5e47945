"""What the bundled in-process embeddings share: a model loaded once, on first use, under a lock
(two threads asking at once load it once), with a thread count chosen for small machines."""

from __future__ import annotations

import os
import threading
from typing import Any

from llama_index.core.base.embeddings.base import BaseEmbedding
from llama_index.core.bridge.pydantic import PrivateAttr


def default_threads() -> int:
    """Half the CPU cores, at least 1 and at most 8: on a 2-core machine one thread, which keeps
    the other core for the rest of the process (OpenMP threads collapse when they share a core)."""
    return max(1, min(8, (os.cpu_count() or 1) // 2))


class LazyModelEmbedding(BaseEmbedding):
    """A LlamaIndex embedding whose model :meth:`_load` builds on first use (not at plugin load or
    pipeline build), with ``threads`` threads (:func:`default_threads` when not given)."""

    _model: Any = PrivateAttr(default=None)
    _threads: int = PrivateAttr(default=1)
    _lock: Any = PrivateAttr(default=None)

    def __init__(self, model_name: str, batch_size: int, threads: int | None = None, **kwargs: Any) -> None:
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
                self._model = self._load()
        return self._model

    def _load(self) -> Any:
        raise NotImplementedError
