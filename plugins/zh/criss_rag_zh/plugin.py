"""The ``zh`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_analyzers(register):
    register("jieba", "criss_rag_zh.jieba_analyzer:JiebaAnalyzer")
