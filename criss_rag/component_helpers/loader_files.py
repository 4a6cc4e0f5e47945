"""Helpers for loaders: reading JSONL and CSV with line-numbered errors, mapping records to
document fields, fingerprinting source files, and making a LlamaIndex ``Document`` whose indexed
text is chosen metadata plus the text."""

from __future__ import annotations

import codecs
import csv
import hashlib
import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from criss_rag.errors import DataError

if TYPE_CHECKING:  # LlamaIndex is imported by make_document: readers such as read_jsonl do not need it
    from llama_index.core.schema import Document


INDEX_FIELDS_HELP = "metadata indexed with the text (embedded and matched by lexical retrievers)"


def index_fields_param(description: str = INDEX_FIELDS_HELP) -> Any:
    """The ``index_fields`` param every loader shares (default: the title is indexed with the text)."""
    return Field(default_factory=lambda: ["title"], description=description)


def read_jsonl(path: Path, what: str = "file") -> Iterator[tuple[int, Any]]:
    """``(line number, parsed value)`` for each non-blank line; errors name the file and line.

    UTF-8, with or without a byte-order mark; a line that is not UTF-8 (a binary file, another
    encoding) is an error naming its file, line and byte."""
    if path.is_dir():
        raise DataError(f"{what} {path} is a directory, not a file: name a .jsonl file inside it")
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        raise DataError(f"{what} not found: {path}") from None
    with handle:
        binary = b"\x00" in handle.read(8192)  # a NUL near the start: not a text file at all
        handle.seek(0)
        for number, raw in enumerate(handle, start=1):
            if number == 1 and raw.startswith(codecs.BOM_UTF8):
                raw = raw[len(codecs.BOM_UTF8):]
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                kind = "a binary file?" if binary or b"\x00" in raw else "saved in another encoding?"
                raise DataError(f"{path}:{number}: not UTF-8 text (byte 0x{raw[exc.start]:02x} at column "
                                f"{exc.start + 1}; {kind}); JSONL files must be UTF-8") from None
            if not line.strip():
                continue
            try:
                yield number, json.loads(line)
            except json.JSONDecodeError as exc:
                raise DataError(f"{path}:{number}: not valid JSON ({exc.msg}, column {exc.colno})") from None


def corpus_file(ctx: Any, path: str, key: str = "loader.path") -> Path:
    """The loader's ``path`` resolved against the config file; an error if it is not a file."""
    resolved = ctx.resolve_path(path)
    if resolved.is_dir():
        raise DataError(f"stage loader: {resolved} is a directory, not a corpus file (check `{key}`: name a "
                        "file inside it)")
    if not resolved.is_file():
        raise DataError(f"stage loader: corpus file not found: {resolved} (check `{key}`)")
    return resolved


def read_csv(path: Path, delimiter: str = ",", encoding: str = "utf-8-sig") -> Iterator[tuple[int, dict[str, str]]]:
    """``(line number, row)`` for each CSV row, keyed by the header row; errors name the file and
    line, and a wrong encoding names the ``encoding`` option."""
    try:
        handle = open(path, encoding=encoding, newline="")
    except FileNotFoundError:
        raise DataError(f"corpus file not found: {path}") from None
    with handle:
        reader = csv.DictReader(handle, delimiter=delimiter)
        try:
            if reader.fieldnames is None:
                return
            repeated = [name for name in reader.fieldnames if reader.fieldnames.count(name) > 1]
            if repeated:
                raise DataError(f"{path}:1: the header names a column twice: {repeated[0]!r}")
            for row in reader:
                if None in row:  # more cells than header columns
                    raise DataError(
                        f"{path}:{reader.line_num}: {len(reader.fieldnames) + len(row[None])} cells but "
                        f"{len(reader.fieldnames)} columns in the header (is `delimiter` {delimiter!r} right?)"
                    )
                yield reader.line_num, {k: v for k, v in row.items() if k is not None}
        except UnicodeDecodeError as exc:
            raise DataError(
                f"{path}: not readable as {encoding} ({exc.reason}, near line {reader.line_num + 1}); set the loader's "
                "`encoding` "
                "(utf-8-sig for UTF-8 with or without a byte-order mark, cp932 for Japanese Shift_JIS, cp949 for "
                "Korean)"
            ) from None
        except csv.Error as exc:
            raise DataError(f"{path}:{reader.line_num}: not valid CSV ({exc})") from None


def read_records(
    path: Path,
    id_field: str,
    text_field: str | list[str],
    title_field: str,
    *,
    rows: Iterable[tuple[int, Any]] | None = None,
    skipped: list[tuple[str, str]] | None = None,
    skip_invalid: bool = False,
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """``(doc_id, text, other fields)`` per record (JSONL lines of ``path``, or the given ``rows``);
    the title is stored as ``title``; several text fields are joined with blank lines.

    A record without an id or text field is an error, or with ``skip_invalid`` a ``(path:line,
    reason)`` entry in ``skipped``; when ``skipped`` is given, records with empty text are skipped
    and recorded there too (the loader convention of :class:`criss_rag.protocols.Loader`)."""
    text_fields = [text_field] if isinstance(text_field, str) else list(text_field)
    for number, record in rows if rows is not None else read_jsonl(path, "corpus file"):
        where = f"{path.name}:{number}"
        if not isinstance(record, dict) or not record.get(id_field) or any(f not in record for f in text_fields):
            if skip_invalid and skipped is not None:
                absent = [f for f in text_fields if f not in record] if isinstance(record, dict) else []
                absent = ([id_field] if isinstance(record, dict) and not record.get(id_field) else []) + absent
                skipped.append((where, f"missing {', '.join(absent)}" if absent else "not an object"))
                continue
            raise DataError(
                f"{path}:{number}: each line needs `{id_field}` and `{'`, `'.join(text_fields)}` "
                "(set `id_field` / `text_field` in the loader if your fields are named differently)"
            )
        doc_id = str(record.pop(id_field))
        texts = [record.pop(f) for f in text_fields]
        text = "\n\n".join(str(t) for t in texts if t is not None and str(t).strip())
        record["title"] = str(record.pop(title_field, "") or "")
        if skipped is not None and not text.strip():
            skipped.append((where, f"empty text (document {doc_id!r})"))
            continue
        yield doc_id, text, record


def file_fingerprint(path: Path, params: BaseModel) -> str:
    """A hash of the file's bytes and the loader's params: a cheap corpus fingerprint."""
    return paths_fingerprint([path], params)


def paths_fingerprint(paths: Iterable[Path], params: BaseModel) -> str:
    """A hash of the loader's params and each file's bytes (a missing file counts as missing, so it
    is noticed when it appears); a folder's files are taken in sorted order, with their names
    relative to the folder (never absolute paths: the same corpus elsewhere has the same hash)."""
    digest = hashlib.sha256(params.model_dump_json().encode())
    for path in paths:
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for file in files:
            if path.is_dir():
                digest.update(file.relative_to(path).as_posix().encode() + b"\0")
            if not file.is_file():
                digest.update(b"<missing>")
                continue
            with open(file, "rb") as handle:
                for block in iter(lambda: handle.read(1 << 20), b""):
                    digest.update(block)
    return digest.hexdigest()[:16]


def make_document(doc_id: str, text: str, metadata: dict[str, Any], index_fields: list[str]) -> Document:
    """A Document whose indexed text is the listed metadata fields plus the text; ``doc_id`` is
    kept in the metadata so every chunk and citation can name its source."""
    metadata = {**metadata, "doc_id": doc_id}
    from llama_index.core.schema import Document

    doc = Document(id_=doc_id, text=text, metadata=metadata)
    doc.excluded_embed_metadata_keys = [key for key in metadata if key not in index_fields]
    doc.excluded_llm_metadata_keys = list(metadata)
    doc.metadata_template = "{value}"
    return doc
