"""Ingest survives huge and pathological documents: the sections chunker is linear in the length
of a document (unclosed HTML headings, a long run without breaks), and a document the chunker
fails on is left out with a reason in the report while the others are indexed."""

from __future__ import annotations

import json
from pathlib import Path

from llama_index.core.schema import TextNode
from pydantic import BaseModel

from criss_rag import hookimpl
from criss_rag.engine import Engine
from criss_rag.indexing.ingestion import ingest
from criss_rag.testing import FAKE_PIPELINE_YAML, pipeline_from_yaml, plugin_host, replaced

NORMAL = [
    {
        "doc_id": "liver",
        "title": "Liver cancer",
        "text": "### Risk\nHepatitis B infection raises the risk of liver cancer.",
    },
    {
        "doc_id": "lung",
        "title": "Lung cancer",
        "text": "### Signs\nA cough that does not go away can be a sign of lung cancer.",
    },
    {"doc_id": "skin", "title": "Skin cancer", "text": "### Prevention\nSunscreen lowers the risk of skin cancer."},
]
SECTIONS_YAML = """\
name: huge
index: {dir: index}
loader: {name: jsonl, path: corpus.jsonl}
chunker: sections
retrievers: [{name: bm25, analyzer: standard}]
context: numbered
generator: extractive
"""


def test_pathological_documents_among_normal_ones_are_chunked_and_the_rest_indexed(tmp_path):
    docs = [*NORMAL,
            # 2 MB of unclosed headings: the heading pattern used to rescan the rest of the text at each one
            {"doc_id": "headings", "title": "Broken export", "text": "<h1>tumour " * 180_000},
            # 1 MB without a space, a line end or a sentence end
            {"doc_id": "run", "title": "One long run", "text": "x" * 1_000_000}]
    (tmp_path / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in docs) + "\n", encoding="utf-8")
    pipeline = pipeline_from_yaml(SECTIONS_YAML, tmp_path, plugin_host(entry_points=True))
    report = ingest(pipeline)
    assert report.documents == 5 and not report.skipped
    assert report.chunks > 100  # the large documents were split, not kept whole
    answer = Engine.open(pipeline).ask("What raises the risk of liver cancer?")
    assert not answer.refused and answer.citations[0].doc_id == "liver"


class _FragileChunker:
    """One chunk per document; fails on a document that says BOOM (a chunker bug on one input)."""

    def __init__(self, params: BaseModel, ctx) -> None:
        pass

    def chunk(self, documents):
        for doc in documents:
            if "BOOM" in doc.text:
                raise ValueError("cannot split this text")
        return [TextNode(id_=f"{doc.doc_id}#0", text=doc.text, metadata=dict(doc.metadata)) for doc in documents]


class _Fragile:
    @hookimpl
    def register_chunkers(self, register):
        register("fragile", _FragileChunker)


def _fragile_pipeline(tmp_path: Path, boom: bool):
    documents = [{"doc_id": "a", "title": "A", "text": "Stomach cancer is found by endoscopy."},
                 {"doc_id": "b", "title": "B", "text": "BOOM stomach cancer text" if boom else "Stomach cancer text."},
                 {"doc_id": "c", "title": "C", "text": "Stomach cancer can cause pain."}]
    yaml_text = replaced(
        FAKE_PIPELINE_YAML,
        "loader: {name: fake-loader}",
        f"loader: {{name: fake-loader, documents: {json.dumps(documents)}}}",
    )
    yaml_text = replaced(yaml_text, "chunker: {name: fake-chunker}", "chunker: {name: fragile}")
    return pipeline_from_yaml(yaml_text, tmp_path, plugin_host({"fragile": _Fragile()}))


def test_a_document_the_chunker_fails_on_is_skipped_with_a_reason_and_the_others_indexed(tmp_path):
    report = ingest(_fragile_pipeline(tmp_path, boom=True))
    assert report.documents == 2 and report.chunks == 2
    assert [item for item, _ in report.skipped] == ["document b"]
    assert "cannot split this text" in report.skipped[0][1] and "chunker" in report.skipped[0][1]
    assert "skipped 1 items" in report.summary() and "document b" in report.summary()
    fixed = ingest(_fragile_pipeline(tmp_path, boom=False))  # the document was not recorded: fixed, it is indexed
    assert fixed.documents == 3 and fixed.diff["added"] == 1 and not fixed.skipped


def test_the_segments_of_a_long_section_lose_and_reorder_nothing():
    from criss_rag_basic.chunkers import SEGMENT_CHARS, _segments

    text = ("A sentence about the liver. " * 3000) + ("y" * (SEGMENT_CHARS * 2)) + "\nlast line"
    pieces = _segments(text)
    assert "".join(pieces) == text and all(len(p) <= SEGMENT_CHARS for p in pieces)
    assert pieces[0].endswith(". ")  # cut at a sentence end where there is one
    assert _segments("short") == ["short"]
