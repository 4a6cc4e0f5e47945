"""Index persistence: reload gives identical results, corrupt or stale indexes give clear errors,
and a failed ingest leaves the previous index usable."""

from __future__ import annotations

import json

import pytest

from criss_rag.engine import Engine
from criss_rag.errors import IndexStoreError
from criss_rag.ingest import ingest
from criss_rag.testing import FAKE_PIPELINE_YAML, pipeline_from_yaml

QUESTION = "Which test finds colorectal polyps?"


def test_ingest_is_idempotent_and_reload_is_identical(tmp_path):
    pipeline = pipeline_from_yaml(FAKE_PIPELINE_YAML, tmp_path)
    first = ingest(pipeline)
    assert first.built and first.documents == 6 and first.chunks == 12
    again = ingest(pipeline)
    assert not again.built and again.key == first.key
    before = Engine.open(pipeline).ask(QUESTION)
    reopened = Engine.open(pipeline_from_yaml(FAKE_PIPELINE_YAML, tmp_path)).ask(QUESTION)
    assert before.model_dump(exclude={"trace"}) == reopened.model_dump(exclude={"trace"})
    assert [c.score for c in before.citations] == [c.score for c in reopened.citations]


def test_missing_index_says_to_ingest(tmp_path):
    with pytest.raises(IndexStoreError, match="criss-rag ingest CONFIG"):
        Engine.open(pipeline_from_yaml(FAKE_PIPELINE_YAML, tmp_path))


def test_corrupt_manifest_gives_a_clear_error(tmp_path):
    pipeline = pipeline_from_yaml(FAKE_PIPELINE_YAML, tmp_path)
    report = ingest(pipeline)
    (report.index_dir / "manifest.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(IndexStoreError, match=r"is corrupt \(manifest.json unreadable.*ingest CONFIG --force"):
        Engine.open(pipeline)


def test_manifest_from_an_incompatible_config_is_rejected(tmp_path):
    pipeline = pipeline_from_yaml(FAKE_PIPELINE_YAML, tmp_path)
    report = ingest(pipeline)
    manifest = json.loads((report.index_dir / "manifest.json").read_text())
    manifest["ingest_signature"]["chunker"] = {"name": "something-else"}
    (report.index_dir / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(IndexStoreError, match="built by an incompatible config"):
        Engine.open(pipeline)


def test_failed_rebuild_keeps_the_previous_index(tmp_path, monkeypatch):
    pipeline = pipeline_from_yaml(FAKE_PIPELINE_YAML, tmp_path)
    report = ingest(pipeline)
    retriever = pipeline.many("retrievers")[0][1]

    def crash(nodes, directory):
        raise OSError("disk full")

    monkeypatch.setattr(retriever, "build", crash)
    with pytest.raises(Exception, match="disk full"):
        ingest(pipeline, force=True)
    assert not list(report.index_dir.parent.glob(".tmp-*"))
    assert Engine.open(pipeline_from_yaml(FAKE_PIPELINE_YAML, tmp_path)).ask(QUESTION).citations


def test_changed_corpus_gets_its_own_index(tmp_path):
    first = ingest(pipeline_from_yaml(FAKE_PIPELINE_YAML, tmp_path))
    changed = FAKE_PIPELINE_YAML.replace(
        "loader: {name: fake-loader}",
        "loader: {name: fake-loader, documents: [{doc_id: a, title: A, text: 'Thyroid cancer is common.'}]}",
    )
    second = ingest(pipeline_from_yaml(changed, tmp_path))
    assert second.built and second.key != first.key
    assert first.index_dir.exists() and second.index_dir.exists()
