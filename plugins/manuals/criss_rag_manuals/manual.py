"""What the manual loaders share: the config entry of one manual, rule-identifier patterns, the
Markdown form every loader writes, and the loader base class.

Every manual loader turns its format into the same text: Markdown headings (``#`` … ``######``),
paragraphs separated by blank lines, tables as pipe tables (``| a | b |`` with a ``|---|`` row under
the header). A PDF's page starts are kept in the metadata ``page_offsets`` (character offsets, one
per page, space-separated), so the text itself stays clean for any chunker; ``manual-structure``
reads them to tag each chunk with its page.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from llama_index.core.schema import Document
from pydantic import BaseModel, ConfigDict, Field, field_validator
from tqdm import tqdm

from criss_rag.context import ComponentContext
from criss_rag.errors import DataError
from criss_rag.plugin_utils import index_fields_param, make_document, paths_fingerprint

#: A paragraph that starts with one of these begins a rule; the rule keeps what follows it
#: (its notes, its explanation) until the next rule, table or heading.
DEFAULT_RULE_PATTERNS = [
    r"Rule\s+[A-Z]{0,3}\d+[A-Za-z]?",  # Rule M3, Rule H12, Rule PH5, Rule 7
    r"(?:規則|ルール|규칙|规则)\s*[A-Z]{0,3}\d+",  # 規則M3, ルール 3, 규칙 H12, 规则 5
]
#: A paragraph that starts with one of these is a note: inside a rule it stays with the rule.
DEFAULT_NOTE_PATTERNS = [
    r"Notes?\s+\d+[A-Za-z]?",  # Note 2, Notes 1
    r"(?:注記|注|참고|주)\s*\d+",  # 注2, 注記 1, 참고 1, 주 3
]
_LEAD = r"^[\s*_>(\[-]*"  # Markdown emphasis, quote, list and bracket characters before an id


def id_matcher(patterns: Sequence[str]) -> re.Pattern[str]:
    """One regex that finds an identifier at the start of a paragraph (after emphasis marks)."""
    return re.compile(_LEAD + "(" + "|".join(f"(?:{p})" for p in patterns) + r")(?![0-9A-Za-z])")


def find_id(matcher: re.Pattern[str], text: str) -> str | None:
    """The identifier a paragraph starts with, spaces normalised (``Rule  M3`` -> ``Rule M3``;
    full-width ``Ｒｕｌｅ　Ｍ３`` -> ``Rule M3``), or ``None``."""
    match = matcher.match(unicodedata.normalize("NFKC", text[:80]))
    return " ".join(match.group(1).split()) if match else None


_YEARS = re.compile(r"^\s*(\d{4})\s*(?:(\+)|([-–~])\s*(\d{4})?)?\s*$")


def parse_years(value: str | int) -> tuple[int, int | None]:
    """``2018-2022`` -> (2018, 2022); ``2018+`` and ``2018-`` -> (2018, None); ``2019`` -> (2019, 2019)."""
    match = _YEARS.match(str(value))
    if not match:
        raise ValueError(f"years {value!r}: write a range as 2018-2022, an open one as 2018+ , or one year")
    start, plus, dash, end = match.groups()
    first = int(start)
    last = None if plus or (dash and not end) else int(end or start)
    if last is not None and last < first:
        raise ValueError(f"years {value!r}: the range ends before it starts")
    return first, last


_Scalar = str | int | float | bool | None


class ManualEntry(BaseModel):
    """One manual: its file and what every chunk of it is tagged with."""

    model_config = ConfigDict(extra="forbid")
    path: str = Field(description="the manual's file (relative to the config file)")
    name: str | None = Field(None, description="the manual's name, shown in citations (default: the file name)")
    version: str | None = Field(None, description="the manual's version or edition (metadata `version`)")
    years: str | int | None = Field(
        None,
        description="diagnosis years the manual applies to: 2018-2022, 2018+ (open-ended) or one year; written "
        "as metadata `applicable_years_from` / `applicable_years_to`, which the `diagnosis-year` filter reads",
    )
    doc_id: str | None = Field(None, description="document id (default: `manual-` and the file name without suffix)")
    metadata: dict[str, _Scalar] = Field(
        default_factory=dict, description="more metadata for every chunk, e.g. {algorithm: eod_public}"
    )

    @field_validator("years")
    @classmethod
    def _years_parse(cls, value: str | int | None) -> str | int | None:
        if value is not None:
            parse_years(value)
        return value


class ManualsParams(BaseModel):
    """Params shared by the manual loaders."""

    model_config = ConfigDict(extra="forbid")
    manuals: list[ManualEntry] = Field(
        min_length=1, description="the manuals to load: [{path, name, version, years, doc_id, metadata}]"
    )
    encoding: str = Field("utf-8", description="text encoding of HTML and Markdown files (ignored for PDF)")
    index_fields: list[str] = index_fields_param()


class ManualLoader:
    """Base of the manual loaders: one document per manual; a manual that cannot be read or has no
    text is skipped and recorded in ``self.skipped`` as ``(path, reason)``; warnings met while
    reading (pypdf's) are in ``self.warnings`` as ``(path, message)`` for the ingest report."""

    path_key = "loader.manuals[].path"  # what the ingest's "no documents" hint names

    format = ""  # pdf, html or markdown; empty: chosen per file by its suffix (format_of)
    Params = ManualsParams

    def __init__(self, params: ManualsParams, ctx: ComponentContext) -> None:
        self.params = params
        self.paths = [ctx.resolve_path(entry.path) for entry in params.manuals]
        self.show_progress = bool(getattr(ctx, "show_progress", False))
        self.skipped: list[tuple[str, str]] = []
        self.warnings: list[tuple[str, str]] = []

    def fingerprint(self) -> str:
        return paths_fingerprint(self.paths, self.params)

    def format_of(self, path: Path) -> str:
        return self.format

    def convert(self, path: Path, fmt: str) -> tuple[str, list[int] | None]:
        """The manual as Markdown, and the character offset where each page starts (PDF only)."""
        raise NotImplementedError

    def load(self) -> Iterator[Document]:
        self.skipped = []
        self.warnings = []
        manuals = tqdm(list(zip(self.params.manuals, self.paths, strict=True)), desc="manuals", unit="manual",
                       disable=not self.show_progress or len(self.paths) < 2)
        for entry, path in manuals:
            if not path.is_file():
                self.skipped.append((str(path), "file not found (check `manuals[].path`)"))
                continue
            fmt = self.format_of(path)
            try:
                text, pages = self.convert(path, fmt)
            except (DataError, OSError, UnicodeDecodeError, ValueError) as exc:
                self.skipped.append((str(path), f"unreadable {fmt}: {exc}"))
                continue
            if not text.strip():
                self.skipped.append((str(path), f"no text found in the {fmt}"))
                continue
            yield make_document(entry.doc_id or f"manual-{path.stem}", text, self.metadata(entry, path, fmt, pages),
                                self.params.index_fields)

    def metadata(self, entry: ManualEntry, path: Path, fmt: str, pages: list[int] | None) -> dict[str, Any]:
        name = entry.name or path.name
        metadata: dict[str, Any] = {"title": name, "manual": name, "source": path.name, "format": fmt}
        if entry.version is not None:
            metadata["version"] = entry.version
        if entry.years is not None:
            metadata["applicable_years_from"], metadata["applicable_years_to"] = parse_years(entry.years)
        if pages is not None:
            metadata["page_offsets"] = " ".join(str(offset) for offset in pages)
        return {**metadata, **entry.metadata}


def markdown_table(rows: Sequence[Sequence[str]]) -> str:
    """Rows of cells as a pipe table; the first row is the header. Pipes inside cells become ``/``."""
    width = max(len(row) for row in rows)
    lines = []
    for i, row in enumerate(rows):
        cells = [" ".join(cell.replace("|", "/").split()) for cell in row] + [""] * (width - len(row))
        lines.append("| " + " | ".join(cells) + " |")
        if i == 0:
            lines.append("|" + "---|" * width)
    return "\n".join(lines)
