"""Corpus loaders: JSONL and CSV records with field mapping. Loaders of one dataset's own format are
in :mod:`criss_rag_basic.datasets`."""

from __future__ import annotations

import codecs
from collections.abc import Iterable, Iterator
from typing import Any, Literal

from llama_index.core.schema import Document
from pydantic import BaseModel, ConfigDict, Field, field_validator

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import (
    corpus_file,
    file_fingerprint,
    index_fields_param,
    make_document,
    read_csv,
    read_records,
)


class FieldMapping(BaseModel):
    """Which fields of a record are the id, the title and the text, and which become metadata."""

    model_config = ConfigDict(extra="forbid")
    path: str = Field(description="the corpus file (relative to the config file)")
    id_field: str = Field("doc_id", description="the field holding the document id (required in every record)")
    title_field: str = Field("title", description="the field holding the title (stored as metadata `title`)")
    text_field: str = Field("text", description="the field holding the text (required in every record)")
    metadata_fields: list[str] | None = Field(
        None, description="fields kept as metadata (null: every other field whose value is a string, number or boolean)"
    )
    index_fields: list[str] = index_fields_param()
    on_invalid: Literal["error", "skip"] = Field(
        "error",
        description="a record without its id or text field: stop with an error naming the line, or skip it "
        "(listed with the reason in the ingest summary)",
    )


class _RecordLoader:
    """Shared by the record loaders: one document per record, skipped records in ``self.skipped``."""

    suffixes: tuple[str, ...] = ()

    def __init__(self, params: FieldMapping, ctx: ComponentContext) -> None:
        self.params = params
        self.path = corpus_file(ctx, params.path)
        self.skipped: list[tuple[str, str]] = []

    def fingerprint(self) -> str:
        return file_fingerprint(self.path, self.params)

    def rows(self) -> Iterable[tuple[int, Any]] | None:
        """``(line number, record)`` pairs, or ``None`` for the JSONL lines of ``path``."""
        return None

    def load(self) -> Iterator[Document]:
        p = self.params
        self.skipped = []
        records = read_records(self.path, p.id_field, p.text_field, p.title_field, rows=self.rows(),
                               skipped=self.skipped, skip_invalid=p.on_invalid == "skip")
        for doc_id, text, record in records:
            keep = set(p.metadata_fields) | {"title"} if p.metadata_fields is not None else None
            metadata = {k: v for k, v in record.items()
                        if (keep is None or k in keep) and (isinstance(v, str | int | float | bool) or v is None)}
            yield make_document(doc_id, text, metadata, p.index_fields)


class JsonlLoader(_RecordLoader):
    """One JSON object per line: an id, a title and a text; other fields are kept as metadata."""

    suffixes = (".jsonl",)

    class Params(FieldMapping):
        path: str = Field(description="the JSONL file (relative to the config file)")


class CsvLoader(_RecordLoader):
    """One CSV row per document: columns mapped to id, title and text; other columns kept as metadata."""

    suffixes = (".csv",)

    class Params(FieldMapping):
        path: str = Field(description="the CSV file (relative to the config file); its first row names the columns")
        text_field: str | list[str] = Field(
            "text", description="the column holding the text, or several columns joined with blank lines"
        )
        delimiter: str = Field(",", min_length=1, max_length=1, description="the cell separator (\"\\t\" for TSV)")
        encoding: str = Field(
            "utf-8-sig",
            description="the file's encoding: utf-8-sig reads UTF-8 with or without Excel's byte-order mark; "
            "cp932 (or shift_jis) for Japanese Excel exports, cp949 for Korean",
        )

        @field_validator("encoding")
        @classmethod
        def _known_encoding(cls, value: str) -> str:
            try:
                codecs.lookup(value)
            except LookupError:
                raise ValueError(f"unknown encoding {value!r}; e.g. utf-8-sig, cp932, shift_jis, cp949") from None
            return value

    def rows(self) -> Iterable[tuple[int, Any]]:
        p = self.params
        return read_csv(self.path, p.delimiter, p.encoding)
