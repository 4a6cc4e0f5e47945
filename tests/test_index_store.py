"""Index persistence: reload gives identical results, corrupt or stale indexes give clear errors,
and a failed ingest leaves the previous index usable."""

from __future__ import annotations

import json

import pytest

from criss_rag.engine import Engine
from criss_rag.errors import IndexStoreError
from criss_rag.indexing.ingestion import ingest
from criss_rag.testing import FAKE_PIPELINE_YAML, pipeline_from_yaml, plugin_host, replaced

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


def test_changed_corpus_updates_its_index_and_another_source_gets_its_own(tmp_path):
    first = ingest(pipeline_from_yaml(FAKE_PIPELINE_YAML, tmp_path))
    changed = replaced(
        FAKE_PIPELINE_YAML,
        "loader: {name: fake-loader}",
        "loader: {name: fake-loader, documents: [{doc_id: a, title: A, text: 'Thyroid cancer is common.'}]}",
    )
    second = ingest(pipeline_from_yaml(changed, tmp_path))
    assert second.built and second.key == first.key and second.corpus_version == 2
    assert second.diff == {"added": 1, "changed": 0, "deleted": 6, "unchanged": 0}
    jsonl = tmp_path / "corpus.jsonl"
    jsonl.write_text('{"doc_id": "a", "title": "A", "text": "Thyroid cancer is common."}\n', encoding="utf-8")
    other = replaced(FAKE_PIPELINE_YAML, "loader: {name: fake-loader}", "loader: {name: jsonl, path: corpus.jsonl}")
    third = ingest(pipeline_from_yaml(other, tmp_path, plugin_host(entry_points=True)))
    assert third.built and third.key != first.key and third.corpus_version == 1  # another source: its own index


def test_the_swap_keeps_one_previous_version_and_cleans_dead_temp_folders(tmp_path):
    root = tmp_path / ".criss_rag" / "index"
    first = ingest(pipeline_from_yaml(FAKE_PIPELINE_YAML, tmp_path))
    dead = root / f".tmp-{first.key}-999999999-deadbeef"  # no such process
    dead.mkdir()
    for _ in range(3):
        ingest(pipeline_from_yaml(FAKE_PIPELINE_YAML, tmp_path), force=True)
    versions = sorted(p.name.split("-")[0] for p in root.iterdir() if p.name.startswith(first.key + "@"))
    assert versions == [f"{first.key}@v3", f"{first.key}@v4"]
    assert (root / first.key).is_symlink() and (root / first.key).resolve().name.startswith(f"{first.key}@v4-")
    assert not dead.exists()
