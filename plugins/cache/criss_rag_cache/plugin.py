"""The ``cache`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_caches(register):
    register("semantic", "criss_rag_cache.semantic:SemanticCache")
