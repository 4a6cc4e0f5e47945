"""Helpers for loaders: reading JSONL with line-numbered errors, fingerprinting a source file,
and making a LlamaIndex ``Document`` whose indexed text is chosen metadata plus the text."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from llama_index.core.schema import Document
from pydantic import BaseModel

from criss_rag.errors import DataError


def read_jsonl(path: Path, what: str = "file") -> Iterator[tuple[int, Any]]:
    """``(line number, parsed value)`` for each non-blank line; errors name the file and line."""
    try:
        handle = open(path, encoding="utf-8")
    except FileNotFoundError:
        raise DataError(f"{what} not found: {path}") from None
    with handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(f"{path}:{number}: not valid JSON ({exc.msg})") from None


def corpus_file(ctx: Any, path: str) -> Path:
    """The loader's ``path`` resolved against the config file; an error if it is not a file."""
    resolved = ctx.resolve_path(path)
    if not resolved.is_file():
        raise DataError(f"stage loader: corpus file not found: {resolved} (check `loader.path`)")
    return resolved


def read_records(
    path: Path, id_field: str, text_field: str, title_field: str
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """``(doc_id, text, other fields)`` per JSONL line; the title is stored as ``title``."""
    for number, record in read_jsonl(path, "corpus file"):
        if not isinstance(record, dict) or not record.get(id_field) or text_field not in record:
            raise DataError(
                f"{path}:{number}: each line needs `{id_field}` and `{text_field}` "
                "(set `id_field` / `text_field` in the loader if your fields are named differently)"
            )
        doc_id = str(record.pop(id_field))
        text = str(record.pop(text_field))
        record["title"] = str(record.pop(title_field, "") or "")
        yield doc_id, text, record


def file_fingerprint(path: Path, params: BaseModel) -> str:
    """A hash of the file's bytes and the loader's params: a cheap corpus fingerprint."""
    digest = hashlib.sha256(params.model_dump_json().encode())
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:16]


def make_document(doc_id: str, text: str, metadata: dict[str, Any], index_fields: list[str]) -> Document:
    """A Document whose indexed text is the listed metadata fields plus the text; ``doc_id`` is
    kept in the metadata so every chunk and citation can name its source."""
    metadata = {**metadata, "doc_id": doc_id}
    doc = Document(id_=doc_id, text=text, metadata=metadata)
    doc.excluded_embed_metadata_keys = [key for key in metadata if key not in index_fields]
    doc.excluded_llm_metadata_keys = list(metadata)
    doc.metadata_template = "{value}"
    return doc
