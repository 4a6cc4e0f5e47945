"""The shipped default pipeline on a corpus without the metadata its intent reranker reads (no
`section`, no `menu_name`: a crawled site, a Q&A export, a user's own JSONL) and without the page
keys `pivot-language` reads (`cancer_id`, `menu_id`): it ingests and answers, with one warning per
component in the ingest report and the trace; `on_missing_field: error` still stops."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from criss_rag.engine import Engine
from criss_rag.errors import ConfigError
from criss_rag.indexing.ingestion import ingest
from criss_rag.pipeline import Pipeline
from criss_rag.plugins import PluginHost

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
DOCUMENTS = [  # team-written
    {"doc_id": "chemo-side-effects", "title": "Side effects of chemotherapy",
     "text": "Chemotherapy can cause nausea, tiredness, mouth sores and hair loss. Most side effects of "
             "chemotherapy fade after the treatment ends. Call the care team at once about a fever during "
             "chemotherapy, because a low white cell count makes infections dangerous."},
    {"doc_id": "bowel-screening", "title": "Screening for colorectal cancer",
     "text": "Screening looks for colorectal cancer before it causes symptoms. A stool test every one or two "
             "years, or a colonoscopy every ten years, can find polyps and early cancers."},
]


def plain_pipeline(tmp_path: Path, *overrides: str) -> Pipeline:
    corpus = tmp_path / "corpus.jsonl"
    corpus.write_text("".join(json.dumps(d) + "\n" for d in DOCUMENTS), encoding="utf-8")
    return Pipeline.from_file(EXAMPLES / "default.yaml", PluginHost(strict=True), [
        f"index.dir={tmp_path / 'index'}", f"loader={{name: jsonl, path: '{corpus}'}}", *overrides])


def test_default_pipeline_ingests_and_answers_a_corpus_without_section_metadata(tmp_path):
    pipeline = plain_pipeline(tmp_path)
    report = ingest(pipeline)
    assert report.documents == 2
    assert len(report.warnings) == 2
    warning, pivot = report.warnings
    assert "intent-boost" in warning and "'section' or 'menu_name'" in warning and "boosts nothing" in warning
    assert "pivot-language" in pivot and "cancer_id, menu_id" in pivot and "moves nothing" in pivot
    assert report.summary().count("intent-boost") == 1 and report.summary().count("pivot-language") == 1
    answer = Engine.open(pipeline).ask("What side effects does chemotherapy have?")
    assert not answer.refused, answer.refusal_detail
    assert answer.citations[0].doc_id == "chemo-side-effects"
    assert answer.trace.stage("reranker:section-intent").notes["corpus_warning"] == warning.split(": ", 1)[1]
    assert answer.trace.stage("reranker:pivot-language").notes["corpus_warning"] == pivot.split(": ", 1)[1]


def test_on_missing_field_error_still_stops_the_ingest(tmp_path):
    pipeline = plain_pipeline(tmp_path, "rerankers.section-intent.on_missing_field=error")
    with pytest.raises(ConfigError, match="intent-boost': no chunk of the corpus has the metadata field 'section'"):
        ingest(pipeline)
