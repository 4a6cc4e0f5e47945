"""criss_rag: evidence-grounded cancer-information chatbots, built from plugins.

The public API is what ``__all__`` lists (see docs/api.md): within a 0.x minor release these
names keep their meaning and signatures; anything else (``criss_rag.engine``, ``criss_rag.pipeline``,
...) is internal and may change. ``import criss_rag`` loads only pluggy: the names below load the
modules that define them on first use.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
from typing import TYPE_CHECKING, Any

import pluggy

from criss_rag.llama_deferred import install as _defer_llama_index
from criss_rag.version import __version__

_defer_llama_index()  # before anything imports LlamaIndex: only the node classes load with a question

#: Decorator for plugin hook implementations: ``@hookimpl def register_retrievers(register): ...``
hookimpl = pluggy.HookimplMarker("criss_rag")

#: public name -> the module that defines it, imported when the name is first used
_LAZY: dict[str, str] = {
    "open": "criss_rag.api",
    "ingest": "criss_rag.api",
    "load_pipeline": "criss_rag.api",
    "Engine": "criss_rag.engine",
    "ChatSession": "criss_rag.answering.chat",
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
    "IngestReport": "criss_rag.indexing.ingest_report",
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
    from criss_rag.answering.chat import ChatSession
    from criss_rag.api import ingest, load_pipeline, open  # noqa: A004
    from criss_rag.engine import Engine
    from criss_rag.errors import ComponentError, ConfigError, CrissRagError, DataError, IndexStoreError, PluginError
    from criss_rag.indexing.ingest_report import IngestReport
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


#: modules that moved into the subpackages, by their old import path: ``import criss_rag.chat`` gives
#: the module ``criss_rag.answering.chat`` itself (the same object, not a copy)
MOVED_MODULES: dict[str, str] = {
    "criss_rag.chat": "criss_rag.answering.chat",
    "criss_rag.cache": "criss_rag.answering.answer_cache",
    "criss_rag.grounding": "criss_rag.answering.grounding_policy",
    "criss_rag.relevance": "criss_rag.answering.relevance",
    "criss_rag.support": "criss_rag.answering.sentence_check",
    "criss_rag.meaning": "criss_rag.answering.meaning_check",
    "criss_rag.thinking": "criss_rag.answering.thinking",
    "criss_rag.refusal_messages": "criss_rag.answering.refusal_messages",
    "criss_rag.source_titles": "criss_rag.answering.source_titles",
    "criss_rag.index_store": "criss_rag.indexing.index_store",
    "criss_rag.chunk_store": "criss_rag.indexing.chunk_store",
    "criss_rag.corpus_diff": "criss_rag.indexing.corpus_diff",
    "criss_rag.embedding_cache": "criss_rag.indexing.embedding_cache",
    "criss_rag.ingest_report": "criss_rag.indexing.ingest_report",
    "criss_rag.executors": "criss_rag.indexing.executors",
    "criss_rag.index_integrity": "criss_rag.indexing.index_integrity",
    "criss_rag.disk_space": "criss_rag.indexing.disk_space",
    "criss_rag.text": "criss_rag.language.text",
    "criss_rag.chinese_script": "criss_rag.language.chinese_script",
    "criss_rag.sources": "criss_rag.component_helpers.loader_files",
    "criss_rag.structured": "criss_rag.component_helpers.structured_output",
    "criss_rag.local_embedding": "criss_rag.component_helpers.local_embedding",
    "criss_rag.llama_settings": "criss_rag.component_helpers.llama_settings",
    "criss_rag.docs_reference": "criss_rag.config.reference_tables",
}


class _MovedModules:
    """An import finder that answers the old paths in ``MOVED_MODULES`` with the moved module."""

    def find_spec(
        self, fullname: str, path: object = None, target: object = None
    ) -> importlib.machinery.ModuleSpec | None:
        return importlib.machinery.ModuleSpec(fullname, self) if fullname in MOVED_MODULES else None

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> Any:
        return importlib.import_module(MOVED_MODULES[spec.name])

    def exec_module(self, module: Any) -> None:
        """The moved module ran when it was first imported under its own name."""


if not any(isinstance(finder, _MovedModules) for finder in sys.meta_path):
    sys.meta_path.append(_MovedModules())


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'criss_rag' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # once: later lookups are plain attribute reads
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
