"""FAISS dense retrieval: index types, search-time settings, persistence and the embedding cache."""

from __future__ import annotations

import json

import pytest

from criss_rag.engine import Engine
from criss_rag.errors import ComponentError, ConfigError
from criss_rag.indexing.ingestion import ingest
from criss_rag.testing import TINY_CORPUS, pipeline_from_yaml, plugin_host, replaced
from criss_rag.types import Query

YAML = """\
name: dense
loader: {name: fake-loader}
chunker: {name: fake-chunker}
embedding: {name: fake-hash}
retrievers: [{name: faiss, top_k: 3, index_type: INDEX}]
context: {name: fake-all}
generator: {name: fake-echo}
"""


@pytest.fixture(scope="module")
def host():
    return plugin_host(entry_points=True)


def open_engine(tmp_path, host, index_type="flat", overrides=()):
    pipeline = pipeline_from_yaml(replaced(YAML, "INDEX", index_type), tmp_path, host, overrides)
    report = ingest(pipeline)
    return Engine.open(pipeline), report, pipeline


@pytest.mark.parametrize("index_type", ["flat", "hnsw", "ivf"])
def test_each_index_type_finds_the_matching_chunk(tmp_path, host, index_type):
    engine, _, _ = open_engine(tmp_path, host, index_type)
    hits = engine.retrieve(Query("Mammography screening finds breast cancer early"))
    assert hits[0].doc_id == "breast"
    assert hits[0].signals["faiss"] > 0.8  # the same sentence (the chunk also embeds its metadata)
    assert hits[0].signals["faiss"] > hits[1].signals["faiss"]
    assert all(-1.0 - 1e-5 <= h.score <= 1.0 + 1e-5 for h in hits)


def test_approximate_index_agrees_with_flat_on_a_small_corpus(tmp_path, host):
    flat, _, _ = open_engine(tmp_path / "flat", host, "flat")
    hnsw, _, _ = open_engine(tmp_path / "hnsw", host, "hnsw")
    for question in ("smoking cough", "hepatitis liver", "colonoscopy polyps"):
        exact = [round(h.score, 5) for h in flat.retrieve(Query(question))]
        approx = [round(h.score, 5) for h in hnsw.retrieve(Query(question))]
        assert exact == approx  # same scores (hash vectors tie often, so ids may swap within a tie)


def test_ivf_pq_rejects_a_sub_quantizer_count_that_does_not_divide_the_dimension(tmp_path, host):
    pipeline = pipeline_from_yaml(replaced(YAML, "INDEX", "ivf-pq, pq_m: 5"), tmp_path, host)
    with pytest.raises(ConfigError, match="pq_m=5 must divide the embedding dimension 64"):
        ingest(pipeline)


def test_search_time_settings_do_not_change_the_index(tmp_path, host):
    _, first, _ = open_engine(tmp_path, host, "ivf")
    engine, second, _ = open_engine(tmp_path, host, "ivf", ["retrievers.0.nprobe=4", "retrievers.0.top_k=2"])
    assert not second.built and second.key == first.key
    assert len(engine.retrieve(Query("lung cancer"))) == 2
    _, third, _ = open_engine(tmp_path, host, "ivf", ["retrievers.0.nlist=2"])
    assert third.built and third.key != first.key  # build settings do


def test_reload_gives_identical_scores(tmp_path, host):
    engine, _, pipeline = open_engine(tmp_path, host)
    again = Engine.open(pipeline_from_yaml(replaced(YAML, "INDEX", "flat"), tmp_path, host))
    a = [(h.node_id, h.score) for h in engine.retrieve(Query("stomach endoscopy"))]
    assert a == [(h.node_id, h.score) for h in again.retrieve(Query("stomach endoscopy"))]


def test_embedding_cache_reembeds_only_changed_text(tmp_path, host):
    _, _, pipeline = open_engine(tmp_path, host)
    assert pipeline.embedded_last == 12  # 6 documents, 2 sentences each
    ingest(pipeline, force=True)
    assert pipeline.embedded_last == 0  # unchanged corpus: everything from the cache
    changed = [dict(d) for d in TINY_CORPUS]
    changed[0]["text"] = "Liver cancer starts in liver cells. Alcohol also raises the risk."
    docs = (
        "[" + ", ".join(f"{{doc_id: {d['doc_id']}, title: '{d['title']}', text: '{d['text']}'}}" for d in changed) + "]"
    )
    edited = pipeline_from_yaml(
        replaced(YAML, "INDEX", "flat", "{name: fake-loader}", f"{{name: fake-loader, documents: {docs}}}"),
        tmp_path,
        host,
    )
    ingest(edited)
    assert edited.embedded_last == 1  # only the new sentence


def test_embedding_failure_names_the_stage(tmp_path, host, monkeypatch):
    from criss_rag.testing import HashEmbedding

    def broken(self, texts, **kwargs):
        raise RuntimeError("embedding server exploded")

    monkeypatch.setattr(HashEmbedding, "get_text_embedding_batch", broken)
    pipeline = pipeline_from_yaml(replaced(YAML, "INDEX", "flat"), tmp_path, host)
    with pytest.raises(
        ComponentError,
        match=r"stage retrievers\[0\]: component 'faiss' failed: RuntimeError: embedding server exploded",
    ):
        ingest(pipeline)


def test_ivf_pq_on_too_few_chunks_says_what_to_use_instead(tmp_path, host):
    pipeline = pipeline_from_yaml(replaced(YAML, "INDEX", "ivf-pq, pq_bits: 8"), tmp_path, host)
    with pytest.raises(ConfigError, match="12 chunks are too few to train 256 codes.*use index_type: flat"):
        ingest(pipeline)


def test_ivf_pq_uses_half_the_dimension_as_sub_quantizers_by_default(tmp_path, host):
    import faiss

    many = [{"doc_id": f"d{i}", "text": f"Note {i} on cancer care."} for i in range(20)]
    many.append({"doc_id": "breast", "text": "Mammography screening finds breast cancer early."})
    pipeline = pipeline_from_yaml(
        replaced(
            YAML,
            "INDEX",
            "ivf-pq, pq_bits: 4",
            "{name: fake-loader}",
            "{name: fake-loader, documents: " + json.dumps(many) + "}",
        ),
        tmp_path,
        host,
    )
    ingest(pipeline)
    engine = Engine.open(pipeline)
    index = faiss.read_index(str(engine.index_dir / "retrievers" / "faiss" / "vectors.faiss"))
    assert faiss.downcast_index(faiss.extract_index_ivf(index)).pq.M == 32  # fake-hash vectors have 64 dimensions
    assert engine.retrieve(Query("Mammography screening finds breast cancer early"))[0].doc_id == "breast"
