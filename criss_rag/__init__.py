"""criss_rag: evidence-grounded cancer-information chatbots, built from plugins.

The public API is what ``__all__`` lists (see docs/api.md): within a 0.x minor release these
names keep their meaning and signatures; anything else (``criss_rag.engine``, ``criss_rag.pipeline``,
...) is internal and may change. ``import criss_rag`` loads only pluggy: the names below load the
modules that define them on first use.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

import pluggy

from criss_rag.version import __version__

#: Decorator for plugin hook implementations: ``@hookimpl def register_retrievers(register): ...``
hookimpl = pluggy.HookimplMarker("criss_rag")

#: public name -> the module that defines it, imported when the name is first used
_LAZY: dict[str, str] = {
    "open": "criss_rag.api",
    "ingest": "criss_rag.api",
    "load_pipeline": "criss_rag.api",
    "Engine": "criss_rag.engine",
    "ChatSession": "criss_rag.chat",
    "Answer": "criss_rag.types",
    "Citation": "criss_rag.types",
    "ContextItem": "criss_rag.types",
    "SentenceSupport": "criss_rag.types",
    "CachedFrom": "criss_rag.types",
    "Trace": "criss_rag.types",
    "StageTrace": "criss_rag.types",
    "StreamEvent": "criss_rag.types",
    "TokenEvent": "criss_rag.types",
    "AnswerEvent": "criss_rag.types",
    "ErrorEvent": "criss_rag.types",
    "IngestReport": "criss_rag.ingest_report",
    "PluginHost": "criss_rag.plugins",
    "CrissRagError": "criss_rag.errors",
    "ConfigError": "criss_rag.errors",
    "DataError": "criss_rag.errors",
    "IndexStoreError": "criss_rag.errors",
    "ComponentError": "criss_rag.errors",
    "PluginError": "criss_rag.errors",
}

__all__ = ["__version__", "hookimpl", *_LAZY]

if TYPE_CHECKING:  # for type checkers and IDEs; at run time __getattr__ below loads them
    from criss_rag.api import ingest, load_pipeline, open  # noqa: A004
    from criss_rag.chat import ChatSession
    from criss_rag.engine import Engine
    from criss_rag.errors import ComponentError, ConfigError, CrissRagError, DataError, IndexStoreError, PluginError
    from criss_rag.ingest_report import IngestReport
    from criss_rag.plugins import PluginHost
    from criss_rag.types import (
        Answer,
        AnswerEvent,
        CachedFrom,
        Citation,
        ContextItem,
        ErrorEvent,
        SentenceSupport,
        StageTrace,
        StreamEvent,
        TokenEvent,
        Trace,
    )


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'criss_rag' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # once: later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
