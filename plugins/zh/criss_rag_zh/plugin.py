"""The ``zh`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl

from criss_rag_zh.jieba_analyzer import JiebaAnalyzer


@hookimpl
def register_analyzers(register):
    register("jieba", JiebaAnalyzer)
