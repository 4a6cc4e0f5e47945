"""The ``ja`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl

from criss_rag_ja.mecab import MecabAnalyzer


@hookimpl
def register_analyzers(register):
    register("mecab", MecabAnalyzer)
