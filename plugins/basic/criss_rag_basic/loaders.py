"""Corpus loaders: JSONL and CSV records with field mapping, and the Korean national
cancer-information JSON export."""

from __future__ import annotations

import codecs
import json
from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import Any, Literal

from llama_index.core.schema import Document
from pydantic import BaseModel, ConfigDict, Field, field_validator

from criss_rag.context import ComponentContext
from criss_rag.errors import DataError
from criss_rag.plugin_utils import (
    corpus_file,
    file_fingerprint,
    index_fields_param,
    make_document,
    read_csv,
    read_records,
)
from criss_rag_basic.html_text import html_to_text


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


def _part_number(value: Any) -> int:
    try:
        return int(value or 0)
    except (TypeError, ValueError):
        raise DataError(f"record part {value!r} is not a number (see `fields.part`)") from None


class NccFieldNames(BaseModel):
    """Field names of the export (the real API's names are not public, so they are configurable)."""

    model_config = ConfigDict(extra="forbid")
    records: str = Field("records", description="key of the record list when the file is an object")
    cancer_id: str = Field("cancer_seq", description="cancer id (records are merged per cancer, menu, language)")
    cancer_name: str = Field("cancer_name", description="cancer name, kept as metadata")
    menu_id: str = Field("menu_seq", description="menu (section) id")
    menu_name: str = Field("menu_name", description="menu (section) name, kept as metadata")
    language: str = Field("lang", description="language code of the record")
    part: str = Field("part", description="order of the parts of one merged document (a number)")
    title: str = Field("title", description="page title")
    body: str = Field("content", description="the HTML body")
    url: str = Field("url", description="source URL, kept as metadata and shown in citations")


class NccJsonLoader:
    """The Korean cancer-information centre's JSON export: records merged per (cancer, menu, language), HTML cleaned."""

    suffixes = (".json",)

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        path: str = Field(
            description="the JSON export (relative to the config file): a list of records, or an object "
            "holding the list under `fields.records`"
        )
        fields: NccFieldNames = Field(
            default_factory=NccFieldNames,
            description="the export's field names (the real API's names are not public, so they are configurable)",
        )
        cancers: list[int | str] | None = Field(None, description="keep only these cancer ids")
        languages: list[str] | None = Field(None, description="keep only these languages")
        boilerplate: list[str] | None = Field(None, description="regexes of UI lines to drop")
        index_fields: list[str] = index_fields_param()

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.path = corpus_file(ctx, params.path)
        self.skipped: list[tuple[str, str]] = []

    def fingerprint(self) -> str:
        return file_fingerprint(self.path, self.params)

    def load(self) -> Iterator[Document]:
        p, f = self.params, self.params.fields
        self.skipped = []
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise DataError(f"{self.path}:{exc.lineno}: not valid JSON ({exc.msg})") from None
        records = data.get(f.records) if isinstance(data, dict) else data
        if not isinstance(records, list):
            raise DataError(f"{self.path}: expected a list of records under `{f.records}` (see `fields.records`)")
        groups: dict[tuple[str, str, str], list[dict[str, Any]]] = defaultdict(list)
        wanted = {str(c) for c in p.cancers} if p.cancers else None
        for i, record in enumerate(records):
            missing = [k for k in (f.cancer_id, f.menu_id, f.body) if k not in record]
            if missing:
                raise DataError(f"{self.path}: record {i} lacks {', '.join(missing)} (map names with `fields:`)")
            cancer, menu = str(record[f.cancer_id]), str(record[f.menu_id])
            lang = str(record.get(f.language) or "und")
            if wanted is not None and cancer not in wanted and str(record.get(f.cancer_name)) not in wanted:
                continue
            if p.languages and lang not in p.languages:
                continue
            groups[(cancer, menu, lang)].append(record)
        for (cancer, menu, lang), parts in groups.items():
            parts.sort(key=lambda r: _part_number(r.get(f.part)))
            first = parts[0]
            text = "\n".join(html_to_text(str(r[f.body]), p.boilerplate) for r in parts)
            if not text.strip():
                self.skipped.append((f"cancer={cancer} menu={menu} lang={lang}", "no text left after HTML cleaning"))
                continue
            metadata = {
                "title": str(
                    first.get(f.title) or f"{first.get(f.cancer_name, cancer)}: {first.get(f.menu_name, menu)}"
                ),
                "cancer_id": cancer,
                "cancer_name": str(first.get(f.cancer_name, "")),
                "menu_id": menu,
                "menu_name": str(first.get(f.menu_name, "")),
                "lang": lang,
                "url": str(first.get(f.url) or ""),
                "source": f"{self.path.name}#cancer={cancer}&menu={menu}&lang={lang}",
                "parts": len(parts),
            }
            yield make_document(f"ncc-{cancer}-{menu}-{lang}", text, metadata, p.index_fields)
