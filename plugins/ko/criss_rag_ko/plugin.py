"""The ``ko`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl

from criss_rag_ko.kiwi import KiwiAnalyzer


@hookimpl
def register_analyzers(register):
    register("kiwi", KiwiAnalyzer)
