"""Smaller reliability items: JSONL that is not UTF-8 names its file and line, a UTF-8 BOM is
accepted, a directory given as the corpus is named as such, the manuals loader's hint names its
own key, pypdf's warnings go into the ingest report, the server's malformed-JSON error names the
body (not a character offset), a wrong content type is 415, an IPv6 host is printed in brackets."""

from __future__ import annotations

import json
import re
from pathlib import Path

import httpx
import pytest
from fpdf import FPDF
from serve_fixtures import engine_for

from criss_rag.errors import DataError
from criss_rag.indexing import ingest
from criss_rag.testing import pipeline_from_yaml, plugin_host

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
    return ingest(pipeline_from_yaml(JSONL_YAML.replace("PATH", path), tmp_path, plugin_host(entry_points=True)))


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


MANUALS_YAML = """\
name: manuals
loader: {name: manuals, manuals: [{path: MANUAL, name: Manual, version: "1"}]}
chunker: {name: manual-structure}
retrievers: [{name: bm25, analyzer: standard}]
context: numbered
generator: extractive
"""


def test_the_manuals_loader_hint_names_its_own_key(tmp_path):
    pipeline = pipeline_from_yaml(MANUALS_YAML.replace("MANUAL", "missing.md"), tmp_path, plugin_host(entry_points=True))
    with pytest.raises(DataError) as err:
        ingest(pipeline)
    assert "check `loader.manuals[].path`" in str(err.value) and "check `loader.path`" not in str(err.value)


def test_pypdf_warnings_go_into_the_ingest_report(tmp_path, capfd):
    pdf = FPDF()
    pdf.add_page()
    pdf.set_font("Helvetica", size=12)
    pdf.multi_cell(0, 8, "Rule 1. Two tumors in one organ count as one primary when they share a histology.")
    data = re.sub(rb"startxref\s+\d+", b"startxref\n99", bytes(pdf.output()))  # a wrong xref pointer
    (tmp_path / "rules.pdf").write_bytes(data)
    pipeline = pipeline_from_yaml(MANUALS_YAML.replace("MANUAL", "rules.pdf"), tmp_path, plugin_host(entry_points=True))
    report = ingest(pipeline)
    assert report.documents == 1
    assert any("rules.pdf" in w and "pypdf: incorrect startxref pointer" in w for w in report.warnings), report.warnings
    assert "warning: loader:" in report.summary()
    assert "incorrect startxref" not in capfd.readouterr().err  # not raw on stderr


@pytest.fixture(scope="module")
def client(tmp_path_factory):
    from criss_rag_serve.app import create_app
    from criss_rag_serve.running import running
    from criss_rag_serve.settings import ServeSettings

    engine = engine_for(tmp_path_factory.mktemp("serve-small"))
    with running(create_app(engine, ServeSettings())) as url, httpx.Client(base_url=url, timeout=30) as http:
        yield http


def test_malformed_json_names_the_body_and_where_it_broke(client):
    response = client.post("/ask", content=b'{"question": ', headers={"content-type": "application/json"})
    assert response.status_code == 422
    detail = response.json()["error"]["details"][0]
    assert detail["field"] == "body" and detail["problem"].startswith("not valid JSON at character 13"), detail


def test_a_body_that_is_not_json_is_415(client):
    response = client.post("/ask", content=b"question=liver", headers={"content-type": "application/x-www-form-urlencoded"})
    assert response.status_code == 415, response.text
    error = response.json()["error"]
    assert error["code"] == "unsupported_media_type" and "application/json" in error["message"]
    assert client.post("/ask", content=b"{}", headers={"content-type": "text/plain"}).status_code == 415


def test_an_ipv6_host_is_printed_in_brackets():
    from criss_rag_serve.command import url_host

    assert url_host("::1") == "[::1]" and url_host("127.0.0.1") == "127.0.0.1" and url_host("[::1]") == "[::1]"


def test_the_ingest_summary_credits_the_embedding_cache_only_with_what_it_gave():
    from pathlib import Path

    from criss_rag.ingest_report import IngestReport

    def line(embedded: int | None, new_chunks: int, from_cache: int = 0) -> str:
        report = IngestReport(index_dir=Path("i"), key="k", built=True, documents=2, chunks=10, mean_chunk_tokens=1,
                              median_chunk_tokens=1, seconds=1.0, mode="updated", new_chunks=new_chunks,
                              embedded=embedded, from_cache=from_cache)
        return report.summary().splitlines()[2]

    assert line(10, 10).endswith("embedded 10 texts")  # every vector computed: nothing came from the cache
    assert line(4, 10, from_cache=6).endswith("embedded 4 texts (the other 6 came from the embedding cache)")
    assert line(4, 10).endswith("embedded 4 texts")  # 6 chunks repeat another's text: embedded once, not cached
    assert "embedded" not in line(None, 10)


def test_an_ingest_counts_what_the_embedding_cache_gave_and_loads_the_model_before_its_bar(tmp_path):
    from criss_rag.embedding_cache import EmbeddingCache, embed_with_cache

    class Model:
        embed_batch_size = 2
        loaded_before: list[int] = []

        def __init__(self) -> None:
            self.calls = 0

        def load_model(self) -> None:
            self.loaded_before.append(self.calls)

        def get_text_embedding_batch(self, texts: list[str]) -> list[list[float]]:
            self.calls += 1
            return [[float(len(t)), 1.0] for t in texts]

    cache = EmbeddingCache(tmp_path / "e.sqlite")
    counts: dict[str, int] = {}
    embed_with_cache(Model(), "m", ["a", "bb", "a"], cache, counts=counts)  # "a" twice: computed once
    assert counts == {"computed": 2, "from_cache": 0, "repeats": 1} and Model.loaded_before == [0]
    embed_with_cache(Model(), "m", ["a", "bb", "ccc"], cache, counts=counts)
    assert counts == {"computed": 1, "from_cache": 2, "repeats": 0}
    embed_with_cache(Model(), "m", ["a"], cache, counts=counts)  # nothing to compute: no model loaded
    assert counts == {"computed": 0, "from_cache": 1, "repeats": 0} and Model.loaded_before == [0, 0]
    cache.close()
