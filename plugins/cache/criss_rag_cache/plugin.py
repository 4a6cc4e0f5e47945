"""The ``cache`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl

from criss_rag_cache.semantic import SemanticCache


@hookimpl
def register_caches(register):
    register("semantic", SemanticCache)
