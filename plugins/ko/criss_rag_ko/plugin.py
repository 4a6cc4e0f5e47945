"""The ``ko`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_analyzers(register):
    register("kiwi", "criss_rag_ko.kiwi:KiwiAnalyzer")
