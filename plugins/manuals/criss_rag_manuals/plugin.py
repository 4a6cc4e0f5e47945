"""The ``manuals`` plugin: registration only; the components live in their own modules."""

from __future__ import annotations

from criss_rag import hookimpl

from criss_rag_manuals.chunker import ManualStructureChunker
from criss_rag_manuals.loaders import HtmlManualLoader, ManualsLoader, MarkdownManualLoader, PdfManualLoader


@hookimpl
def register_loaders(register):
    register("manual-pdf", PdfManualLoader)
    register("manual-html", HtmlManualLoader)
    register("manual-markdown", MarkdownManualLoader)
    register("manuals", ManualsLoader)


@hookimpl
def register_chunkers(register):
    register("manual-structure", ManualStructureChunker)
