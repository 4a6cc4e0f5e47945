"""The ``manuals`` plugin: registration only; the components live in their own modules."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_loaders(register):
    register("manual-pdf", "criss_rag_manuals.loaders:PdfManualLoader")
    register("manual-html", "criss_rag_manuals.loaders:HtmlManualLoader")
    register("manual-markdown", "criss_rag_manuals.loaders:MarkdownManualLoader")
    register("manuals", "criss_rag_manuals.loaders:ManualsLoader")


@hookimpl
def register_chunkers(register):
    register("manual-structure", "criss_rag_manuals.chunker:ManualStructureChunker")
