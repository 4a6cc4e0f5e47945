"""Loader ``ncc-json``: the Korean national cancer-information centre's JSON export."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterator
from typing import Any

from llama_index.core.schema import Document
from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.errors import DataError
from criss_rag.plugin_utils import corpus_file, file_fingerprint, index_fields_param, make_document
from criss_rag_basic.html_text import html_to_text


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
