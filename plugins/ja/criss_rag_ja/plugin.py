"""The ``ja`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_analyzers(register):
    register("mecab", "criss_rag_ja.mecab:MecabAnalyzer")
