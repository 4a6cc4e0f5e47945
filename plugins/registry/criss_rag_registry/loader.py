"""``registry-jsonl``: JSONL records whose nested metadata is flattened instead of dropped.

The ``jsonl`` loader keeps only scalar fields, so the registry data's
``"applicable_years": {"from": 2018, "to": null}`` never reaches the chunks. LlamaIndex stores and
the BM25 index accept only flat metadata, so this loader writes a nested mapping as one scalar
field per key (``applicable_years_from``, ``applicable_years_to``) and a list of scalars as one
joined string (``schema_ids``); the ``diagnosis-year`` filter reads the flat pair.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from llama_index.core.schema import Document
from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.plugin_utils import corpus_file, file_fingerprint, index_fields_param, make_document, read_records

_SCALAR = (str, int, float, bool)


def flatten_metadata(record: dict[str, Any], list_separator: str | None) -> dict[str, Any]:
    """Scalars as they are; a mapping as ``<key>_<subkey>`` scalars; a list of scalars joined."""
    out: dict[str, Any] = {}
    for key, value in record.items():
        if value is None or isinstance(value, _SCALAR):
            out[key] = value
        elif isinstance(value, dict):
            for sub, item in value.items():
                if item is None or isinstance(item, _SCALAR):
                    out[f"{key}_{sub}"] = item
        elif isinstance(value, list) and list_separator is not None and all(isinstance(v, _SCALAR) for v in value):
            out[key] = list_separator.join(str(v) for v in value)
    return out


class RegistryJsonlLoader:
    """One JSON object per line, like `jsonl`, with nested fields flattened into scalar metadata.
    Records with empty text are skipped and listed in ``self.skipped``."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        path: str = Field(description="the JSONL file (relative to the config file)")
        id_field: str = Field("doc_id", description="the field holding the document id (required on every line)")
        title_field: str = Field("title", description="the field holding the title (stored as metadata `title`)")
        text_field: str = Field("text", description="the field holding the text (required on every line)")
        index_fields: list[str] = index_fields_param()
        list_separator: str | None = Field(
            ", ", description="lists of scalars are joined with this into one string; null drops lists"
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.path = corpus_file(ctx, params.path)
        self.skipped: list[tuple[str, str]] = []

    def fingerprint(self) -> str:
        return file_fingerprint(self.path, self.params)

    def load(self) -> Iterator[Document]:
        p = self.params
        self.skipped = []
        for doc_id, text, record in read_records(self.path, p.id_field, p.text_field, p.title_field,
                                                 skipped=self.skipped):
            yield make_document(doc_id, text, flatten_metadata(record, p.list_separator), p.index_fields)
