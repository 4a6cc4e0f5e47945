"""Incremental re-indexing: a changed corpus updates its index (only what changed is chunked and
embedded, deleted documents leave every retriever), the corpus version counts the changes, and an
ingest killed half-way leaves the previous index usable."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from criss_rag.engine import Engine
from criss_rag.indexing.ingestion import StaleIndexError, ingest
from criss_rag.testing import TINY_CORPUS, pipeline_from_yaml, plugin_host, replaced
from criss_rag.types import Query

CORPUS = [
    *TINY_CORPUS,
    {
        "doc_id": "thyroid",
        "title": "Thyroid cancer",
        "text": "Thyroid cancer grows in the thyroid gland. Radioiodine treats thyroid cancer.",
    },
    {
        "doc_id": "ko-liver",
        "title": "간암",
        "text": "간암은 간세포에서 시작됩니다. 간염 바이러스가 간암의 위험을 높입니다.",
    },
    {"doc_id": "ja-lung", "title": "肺がん", "text": "肺がんは喫煙と関係があります。長引く咳は肺がんの兆候です。"},
]

YAML = """\
name: incremental
loader: {name: fake-loader, documents: DOCS}
chunker: {name: fake-chunker}
embedding: {name: fake-counting}
retrievers:
  - {name: faiss, top_k: 20, index_type: INDEX}
  - {name: bm25, top_k: 20}
fusion: {name: rrf}
context: {name: fake-all}
generator: {name: fake-echo}
"""


@pytest.fixture(scope="module")
def host():
    return plugin_host(entry_points=True)


def pipeline(tmp_path, host, docs, index_type="flat"):
    return pipeline_from_yaml(replaced(YAML, "DOCS", json.dumps(docs, ensure_ascii=False), "INDEX", index_type),
                              tmp_path, host)


def embedded(pipeline):
    """The texts the pipeline's fake-counting embedding embedded (each pipeline builds its own)."""
    return pipeline.embedding(requested_by="test").texts


def edited(**changes):
    """CORPUS with documents replaced (a dict), deleted (None) or added (a new doc_id)."""
    docs = [dict(d) for d in CORPUS if changes.get(d["doc_id"], d) is not None]
    for doc in docs:
        doc.update(changes.get(doc["doc_id"], {}))
    known = {d["doc_id"] for d in CORPUS}
    docs += [{"doc_id": k, **v} for k, v in changes.items() if k not in known and v is not None]
    return docs


def doc_ids(engine, question, retriever=None):
    hits = engine.retrieve(Query(question))
    return {h.doc_id for h in hits if retriever is None or retriever in h.signals}


def test_unchanged_reingest_embeds_nothing_and_rebuilds_nothing(tmp_path, host):
    first_pipeline = pipeline(tmp_path, host, CORPUS)
    first = ingest(first_pipeline)
    assert first.mode == "built" and first.corpus_version == 1 and first.chunks == 18
    assert len(embedded(first_pipeline)) == 18 and first.embedded == 18
    version_dir = (tmp_path / ".criss_rag" / "index" / first.key).resolve()
    again_pipeline = pipeline(tmp_path, host, CORPUS)
    again = ingest(again_pipeline)
    assert embedded(again_pipeline) == []
    assert not again.built and again.mode == "up-to-date" and again.corpus_version == 1
    assert again.retrievers == {"bm25": "unchanged", "faiss": "unchanged"}
    assert again.diff == {"added": 0, "changed": 0, "deleted": 0, "unchanged": 9}
    assert (tmp_path / ".criss_rag" / "index" / first.key).resolve() == version_dir  # no new version written
    assert "index up to date" in again.summary() and "corpus version 1" in again.summary()


def test_a_changed_document_is_the_only_one_rechunked_and_reembedded(tmp_path, host):
    first = ingest(pipeline(tmp_path, host, CORPUS))
    # without the embedding cache, whatever the retrievers ask for is embedded again
    (tmp_path / ".criss_rag" / "index" / ".cache" / "embeddings.sqlite").unlink()
    text = "Liver cancer starts in liver cells. Aflatoxin in mouldy grain raises the risk."
    changed = pipeline(tmp_path, host, edited(liver={"text": text}))
    report = ingest(changed)
    assert report.mode == "updated" and report.key == first.key and report.corpus_version == 2
    assert report.diff == {"added": 0, "changed": 1, "deleted": 0, "unchanged": 8}
    assert report.rechunked == 1 and report.new_chunks == 2 and report.removed_chunks == 2
    assert len(embedded(changed)) == 2 and all("Liver cancer" in t for t in embedded(changed))
    assert report.retrievers == {"faiss": "updated", "bm25": "rebuilt"}
    assert report.rebuilt_because == {"bm25": "no incremental update method"}
    engine = Engine.open(pipeline(tmp_path, host, edited(liver={"text": text})))
    assert "liver" in doc_ids(engine, "aflatoxin mouldy grain", "faiss")
    assert "liver" in doc_ids(engine, "aflatoxin mouldy grain", "bm25")
    assert "liver" not in doc_ids(engine, "hepatitis infection", "bm25")  # the old sentence is gone


def test_a_deleted_document_can_no_longer_be_retrieved_by_faiss_or_bm25(tmp_path, host):
    ingest(pipeline(tmp_path, host, CORPUS))
    before = Engine.open(pipeline(tmp_path, host, CORPUS))
    assert "thyroid" in doc_ids(before, "radioiodine thyroid gland", "faiss")
    assert "thyroid" in doc_ids(before, "radioiodine thyroid gland", "bm25")
    docs = edited(thyroid=None)
    deleted = pipeline(tmp_path, host, docs)
    report = ingest(deleted)
    assert report.diff["deleted"] == 1 and report.removed_chunks == 2 and report.new_chunks == 0
    assert embedded(deleted) == []  # a deletion embeds nothing
    after = Engine.open(pipeline(tmp_path, host, docs))
    assert "thyroid" not in doc_ids(after, "radioiodine thyroid gland")
    assert after.manifest.documents == 8 and after.manifest.chunks == 16


def test_an_added_document_is_retrievable_and_versions_count_up(tmp_path, host):
    ingest(pipeline(tmp_path, host, CORPUS))
    first = Engine.open(pipeline(tmp_path, host, CORPUS))
    docs = edited(
        cervix={
            "title": "Cervical cancer",
            "text": "Cervical cancer screening uses a Pap smear. HPV vaccination prevents it.",
        }
    )
    report = ingest(pipeline(tmp_path, host, docs))
    assert report.diff["added"] == 1 and report.corpus_version == 2
    engine = Engine.open(pipeline(tmp_path, host, docs))
    assert "cervix" in doc_ids(engine, "pap smear screening", "faiss")
    assert "cervix" in doc_ids(engine, "pap smear screening", "bm25")
    assert engine.corpus_version == 2 and first.corpus_version == 1
    assert engine.corpus_id != first.corpus_id and engine.manifest.key == first.manifest.key
    # the engine opened before the update still answers from its own (previous) version
    assert "cervix" not in doc_ids(first, "pap smear screening")


def test_cjk_documents_are_diffed_and_updated(tmp_path, host):
    ingest(pipeline(tmp_path, host, CORPUS))
    docs = edited(
        **{"ko-liver": {"text": "간암은 간세포에서 시작됩니다. 음주도 간암의 위험을 높입니다."}, "ja-lung": None}
    )
    report = ingest(pipeline(tmp_path, host, docs))
    assert report.diff == {"added": 0, "changed": 1, "deleted": 1, "unchanged": 7}
    engine = Engine.open(pipeline(tmp_path, host, docs))
    assert "ko-liver" in doc_ids(engine, "음주도 간암의 위험", "bm25")
    assert "ja-lung" not in doc_ids(engine, "肺がんは喫煙と関係があります")


def test_incremental_index_answers_like_a_whole_rebuild(tmp_path, host):
    docs = edited(liver={"text": "Liver cancer can follow cirrhosis."}, breast=None,
                  cervix={"title": "Cervical cancer", "text": "HPV vaccination prevents cervical cancer."})
    ingest(pipeline(tmp_path / "a", host, CORPUS))
    ingest(pipeline(tmp_path / "a", host, docs))
    updated = Engine.open(pipeline(tmp_path / "a", host, docs))
    ingest(pipeline(tmp_path / "b", host, docs))
    whole = Engine.open(pipeline(tmp_path / "b", host, docs))
    for question in ("liver cirrhosis", "HPV vaccination", "smoking cough", "mammography"):
        for label in ("faiss", "bm25"):
            a = sorted(
                (h.node_id, round(h.signals[label], 5)) for h in updated.retrieve(Query(question)) if label in h.signals
            )
            b = sorted(
                (h.node_id, round(h.signals[label], 5)) for h in whole.retrieve(Query(question)) if label in h.signals
            )
            assert a == b, (question, label)


def test_force_rebuilds_every_retriever_whole(tmp_path, host):
    first = ingest(pipeline(tmp_path, host, CORPUS))
    forced = ingest(pipeline(tmp_path, host, CORPUS), force=True)
    assert forced.built and forced.mode == "built" and forced.corpus_version == 2
    assert forced.retrievers == {"faiss": "built", "bm25": "built"} and forced.rechunked == 9
    assert forced.embedded == 0  # every vector came from the cache
    assert forced.corpus_fingerprint == first.corpus_fingerprint  # same content, new version
    assert len([p for p in (tmp_path / ".criss_rag" / "index").iterdir() if p.name.startswith(first.key + "@")]) == 2


@pytest.mark.parametrize("index_type", ["hnsw", "ivf", "ivf-pq, pq_m: 8, pq_bits: 4"])
def test_every_faiss_index_type_forgets_deleted_documents(tmp_path, host, index_type):
    ingest(pipeline(tmp_path, host, CORPUS, index_type))
    added = edited(cervix={"title": "Cervical cancer", "text": "Cervical cancer screening uses a Pap smear."})
    grown = ingest(pipeline(tmp_path, host, added, index_type))
    assert grown.retrievers["faiss"] == "updated"  # additions only: every index type adds in place
    docs = edited(
        thyroid=None, cervix={"title": "Cervical cancer", "text": "Cervical cancer screening uses a Pap smear."}
    )
    report = ingest(pipeline(tmp_path, host, docs, index_type))
    if index_type == "hnsw":
        assert report.retrievers["faiss"] == "rebuilt"
        assert report.rebuilt_because["faiss"] == "FAISS HNSW indexes cannot remove vectors"
    else:
        assert report.retrievers["faiss"] == "updated"
    engine = Engine.open(pipeline(tmp_path, host, docs, index_type))
    assert "thyroid" not in doc_ids(engine, "radioiodine thyroid gland", "faiss")
    assert "cervix" in doc_ids(engine, "pap smear", "faiss")


def test_a_stale_index_says_to_ingest_and_build_if_missing_updates_it(tmp_path, host):
    ingest(pipeline(tmp_path, host, CORPUS))
    docs = edited(thyroid=None)
    with pytest.raises(StaleIndexError, match=r"holds corpus version 1 .* Run `criss-rag ingest CONFIG`"):
        Engine.open(pipeline(tmp_path, host, docs))
    engine = Engine.open(pipeline(tmp_path, host, docs), build_if_missing=True)
    assert engine.corpus_version == 2 and engine.manifest.documents == 8


def test_skipped_items_and_progress_are_reported(tmp_path, host, capsys):
    docs = [*CORPUS, {"doc_id": "empty-page", "title": "Navigation"}]
    p = pipeline(tmp_path, host, docs)
    p.show_progress = True
    report = ingest(p)
    assert report.skipped == [("empty-page", "no text")]
    assert "skipped 1 items:\n    empty-page: no text" in report.summary()
    assert report.to_json()["skipped"] == [{"item": "empty-page", "reason": "no text"}]
    err = capsys.readouterr().err
    for step in (
        "ingest: loading documents",
        "chunking",
        "embedding",
        "ingest: retriever faiss",
        "ingest: retriever bm25",
    ):
        assert step in err


def test_cli_ingest_json_reports_the_diff(tmp_path):
    from click.testing import CliRunner

    from criss_rag.cli.main import build_cli

    cli_host = plugin_host(entry_points=True)
    config = tmp_path / "p.yaml"
    config.write_text(replaced(YAML, "DOCS", json.dumps(CORPUS, ensure_ascii=False), "INDEX", "flat"), encoding="utf-8")
    runner = CliRunner()
    result = runner.invoke(
        build_cli(cli_host), ["ingest", str(config), "--json"], obj={"host": cli_host}, catch_exceptions=False
    )
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert data["mode"] == "built" and data["documents"] == 9 and data["diff"]["added"] == 9
    config.write_text(
        replaced(YAML, "DOCS", json.dumps(edited(thyroid=None), ensure_ascii=False), "INDEX", "flat"), encoding="utf-8"
    )
    result = runner.invoke(build_cli(cli_host), ["ingest", str(config)], obj={"host": cli_host}, catch_exceptions=False)
    assert "corpus version 2 (updated): 0 added, 0 changed, 1 deleted, 8 unchanged documents" in result.stdout
    assert "retrievers: faiss updated; bm25 rebuilt (no incremental update method)" in result.stdout


# -- kill -9 half-way ---------------------------------------------------------------------------

KILLABLE = """\
import sys
from criss_rag.cli.main import build_cli
from criss_rag.testing import plugin_host
host = plugin_host(entry_points=True)
build_cli(host).main(args=["ingest", sys.argv[1]], prog_name="criss-rag", obj={"host": host})
"""


def big_corpus(n, variant=""):
    words = ["biopsy", "staging", "radiation", "surgery", "chemotherapy", "screening", "remission", "prognosis"]
    return [{"doc_id": f"doc{i}", "title": f"Topic {i}",
             "text": f"Document {i}{variant} covers {words[i % 8]} and {words[(i * 3) % 8]}. Code word w{i}x{variant}."}
            for i in range(n)]


def test_an_ingest_killed_half_way_keeps_the_previous_index_and_the_next_one_completes(tmp_path, host):
    yaml = replaced(YAML, "{name: fake-counting}", "{name: fake-counting, delay_s: 0.05}", "INDEX", "flat")
    config = tmp_path / "p.yaml"
    config.write_text(replaced(yaml, "DOCS", json.dumps(big_corpus(40))), encoding="utf-8")
    first = ingest(pipeline_from_yaml(config.read_text(), tmp_path, host))
    root = tmp_path / ".criss_rag" / "index"
    previous_version = (root / first.key).resolve()

    changed = big_corpus(40) + big_corpus(400, variant="b")[40:]  # 360 new documents: slow to embed
    config.write_text(replaced(yaml, "DOCS", json.dumps(changed)), encoding="utf-8")
    env = {**os.environ, "CRISS_RAG_STRICT_PLUGINS": "1"}
    proc = subprocess.Popen([sys.executable, "-c", KILLABLE, str(config)], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 120
    cache = root / ".cache" / "embeddings.sqlite"
    while time.monotonic() < deadline and proc.poll() is None:
        if list(root.glob(f".tmp-{first.key}-*")) and _cached_vectors(cache) > 80 + 40 * 2:
            break  # embedding has started writing the new chunks' vectors
        time.sleep(0.05)
    assert proc.poll() is None, f"the ingest ended before it could be killed: {proc.communicate()}"
    os.kill(proc.pid, signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL
    assert list(root.glob(f".tmp-{first.key}-*"))  # it died mid-build

    # the previous index is untouched and answers
    assert (root / first.key).resolve() == previous_version
    old = pipeline_from_yaml(replaced(yaml, "DOCS", json.dumps(big_corpus(40))), tmp_path, host)
    engine = Engine.open(old)
    assert engine.corpus_version == 1 and "doc7" in doc_ids(engine, "w7x")

    # the next ingest resumes (finished embedding batches come from the cache) and cleans up
    resuming = pipeline_from_yaml(config.read_text(), tmp_path, host)
    resumed = ingest(resuming)
    assert resumed.mode == "updated" and resumed.corpus_version == 2 and resumed.documents == 400
    assert 0 < len(embedded(resuming)) < 720  # 360 documents of 2 chunks: some already cached
    assert not list(root.glob(f".tmp-{first.key}-*"))
    engine = Engine.open(pipeline_from_yaml(config.read_text(), tmp_path, host))
    assert "doc399" in doc_ids(engine, "w399xb")


def _cached_vectors(path: Path) -> int:
    import sqlite3

    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=0.1) as db:
            return db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0]
    except sqlite3.Error:
        return 0



def test_a_loader_fingerprint_skips_loading_and_a_touched_file_is_compared_by_content(tmp_path, host):
    corpus = tmp_path / "corpus.jsonl"
    lines = [json.dumps(d, ensure_ascii=False) for d in CORPUS]
    corpus.write_text("\n".join(lines) + "\n", encoding="utf-8")
    yaml = replaced(YAML, "{name: fake-loader, documents: DOCS}", "{name: jsonl, path: corpus.jsonl}", "INDEX", "flat")
    first = ingest(pipeline_from_yaml(yaml, tmp_path, host))
    corpus.write_text("\n\n".join(lines) + "\n", encoding="utf-8")  # new bytes, same documents
    # the file's fingerprint changed, so the engine loads the documents and compares their hashes
    assert Engine.open(pipeline_from_yaml(yaml, tmp_path, host)).corpus_version == 1
    touched = ingest(pipeline_from_yaml(yaml, tmp_path, host))
    assert touched.mode == "up-to-date" and touched.corpus_version == 1 and touched.key == first.key
    again = pipeline_from_yaml(yaml, tmp_path, host)
    assert Engine.open(again).manifest.source_fingerprint == again.one("loader").fingerprint()  # remembered
    corpus.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")  # one document fewer
    with pytest.raises(StaleIndexError, match="has changed since"):
        Engine.open(pipeline_from_yaml(yaml, tmp_path, host))
