"""The manual loaders: ``manual-pdf``, ``manual-html``, ``manual-markdown``, and ``manuals``,
which takes each file's format from its suffix (a manual set in several formats)."""

from __future__ import annotations

import logging
import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from pydantic import Field

from criss_rag.context import ComponentContext
from criss_rag.errors import ConfigError
from criss_rag_manuals.html import html_to_markdown
from criss_rag_manuals.manual import (
    DEFAULT_NOTE_PATTERNS,
    DEFAULT_RULE_PATTERNS,
    ManualLoader,
    ManualsParams,
    id_matcher,
)
from criss_rag_manuals.pdf import pdf_to_markdown

SUFFIXES = {".pdf": "pdf", ".html": "html", ".htm": "html", ".md": "markdown", ".markdown": "markdown",
            ".txt": "markdown"}


class HtmlParams(ManualsParams):
    boilerplate: list[str] | None = Field(
        None, description="HTML: regexes of whole blocks to drop (default: the basic plugin's print/share/top lines)"
    )


class PdfParams(ManualsParams):
    heading_ratio: float = Field(
        1.15, gt=1, description="PDF: a short line in a font this many times the body size (or larger) is a heading"
    )
    paragraph_gap: float = Field(
        1.8, gt=0, description="PDF: a vertical gap wider than this many body-font heights ends a paragraph"
    )
    drop_lines: list[str] = Field(
        default_factory=lambda: [r"(?:page\s*)?\d+(?:\s*(?:of|/)\s*\d+)?"],
        description="PDF: regexes of whole lines to drop (running headers, page numbers), case-insensitive",
    )
    rule_patterns: list[str] = Field(
        default_factory=lambda: list(DEFAULT_RULE_PATTERNS + DEFAULT_NOTE_PATTERNS),
        description="PDF: a line starting with one of these regexes starts a new paragraph (rules and notes)",
    )


class _Collect(logging.Handler):
    def __init__(self, out: list[str]) -> None:
        super().__init__(logging.WARNING)
        self.out = out

    def emit(self, record: logging.LogRecord) -> None:
        self.out.append(record.getMessage())


@contextmanager
def _pypdf_warnings(path: Path, into: list[tuple[str, str]]) -> Iterator[None]:
    """pypdf's log warnings and Python warnings while reading ``path``, collected into ``into``
    as ``(path, message)`` (for the ingest report) instead of going raw to stderr."""
    messages: list[str] = []
    logger = logging.getLogger("pypdf")
    handler = _Collect(messages)
    logger.addHandler(handler)
    propagate, logger.propagate = logger.propagate, False
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield
        messages += [str(w.message) for w in caught]
    finally:
        logger.removeHandler(handler)
        logger.propagate = propagate
        for message in dict.fromkeys(messages):  # once each, in order
            into.append((str(path), f"pypdf: {message}"))


class _Converters(ManualLoader):
    """The three conversions; which one runs is the subclass's (or the file suffix's) choice."""

    def convert(self, path: Path, fmt: str) -> tuple[str, list[int] | None]:
        p = self.params
        if fmt == "pdf":
            with _pypdf_warnings(path, self.warnings):
                return pdf_to_markdown(
                    path, id_start=id_matcher(p.rule_patterns),
                    drop_lines=[re.compile(rf"^\s*(?:{x})\s*$", re.IGNORECASE) for x in p.drop_lines],
                    heading_ratio=p.heading_ratio, paragraph_gap=p.paragraph_gap,
                )
        text = path.read_text(encoding=p.encoding).replace("\r\n", "\n")
        if fmt == "html":
            return html_to_markdown(text, p.boilerplate), None
        return re.sub(r"^---\n.*?\n---\n", "", text, count=1, flags=re.DOTALL).strip(), None  # YAML front matter


class MarkdownManualLoader(_Converters):
    """Markdown manuals, read as they are (headings, pipe tables and paragraphs are already Markdown)."""

    format = "markdown"


class HtmlManualLoader(_Converters):
    """HTML manuals: headings, paragraphs, list items and tables become Markdown; page furniture goes."""

    format = "html"
    Params = HtmlParams


class PdfManualLoader(_Converters):
    """PDF manuals with pypdf: headings from font sizes, tables from column gaps, page numbers kept."""

    format = "pdf"
    Params = PdfParams


class ManualsLoader(_Converters):
    """Manuals in several formats, each read by its file suffix (.pdf, .html/.htm, .md/.markdown/.txt)."""

    format = ""

    class Params(PdfParams, HtmlParams):
        pass

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        super().__init__(params, ctx)
        for entry, path in zip(params.manuals, self.paths, strict=True):
            if path.suffix.lower() not in SUFFIXES:
                raise ConfigError(
                    f"loader `manuals`: cannot tell the format of {entry.path!r} from its suffix; use one of "
                    f"{', '.join(SUFFIXES)}, or the loader manual-pdf / manual-html / manual-markdown"
                )

    def format_of(self, path: Path) -> str:
        return SUFFIXES[path.suffix.lower()]
