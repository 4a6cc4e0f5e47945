"""The `jsonl` loader's errors name the file and line: JSONL that is not UTF-8 (or not text at all),
a directory given as the corpus; a UTF-8 BOM is accepted."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from criss_rag.errors import DataError
from criss_rag.indexing.ingestion import ingest
from criss_rag.testing import pipeline_from_yaml, plugin_host, replaced

JSONL_YAML = """\
name: small
loader: {name: jsonl, path: PATH}
chunker: whole-document
retrievers: [{name: bm25, analyzer: standard}]
context: numbered
generator: extractive
"""


RECORD = {"doc_id": "a", "title": "Liver", "text": "Hepatitis B raises the risk of liver cancer."}


def _ingest(tmp_path: Path, path: str):
    return ingest(pipeline_from_yaml(replaced(JSONL_YAML, "PATH", path), tmp_path, plugin_host(entry_points=True)))


def test_invalid_utf8_and_binary_jsonl_name_the_file_and_line(tmp_path):
    (tmp_path / "latin.jsonl").write_bytes(json.dumps(RECORD).encode() + b"\n" +
                                           '{"doc_id": "b", "text": "caf\xe9"}'.encode("latin-1") + b"\n")
    with pytest.raises(DataError, match=r"latin\.jsonl:2: not UTF-8 text \(byte 0xe9 .*another encoding"):
        _ingest(tmp_path, "latin.jsonl")
    (tmp_path / "blob.jsonl").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xfe")
    with pytest.raises(DataError, match=r"blob\.jsonl:1: not UTF-8 text .*binary file"):
        _ingest(tmp_path, "blob.jsonl")


def test_a_utf8_bom_is_accepted(tmp_path):
    (tmp_path / "bom.jsonl").write_bytes(b"\xef\xbb\xbf" + json.dumps(RECORD).encode() + b"\n")
    assert _ingest(tmp_path, "bom.jsonl").documents == 1


def test_a_directory_as_the_corpus_is_named_as_a_directory(tmp_path):
    (tmp_path / "corpus").mkdir()
    with pytest.raises(DataError, match=r"corpus is a directory, not a corpus file \(check `loader.path`"):
        _ingest(tmp_path, "corpus")
