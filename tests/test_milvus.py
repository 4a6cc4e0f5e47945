"""Milvus dense retrieval against Milvus Lite (the embedded edition, same client API as a server):
build, reload, search, request filters pushed down to the database, and teaching errors."""

from __future__ import annotations

import json
import socket

import pytest

from criss_rag.engine import Engine
from criss_rag.errors import ConfigError, DataError, IndexStoreError
from criss_rag.indexing.ingestion import ingest
from criss_rag.testing import pipeline_from_yaml, plugin_host, replaced
from criss_rag.types import Query

# 12 staging notes: 4 cancer types x 3 editions with year ranges and versions (the registry's shape,
# flattened the way JSONL loaders keep metadata). Every note shares the words "staging rule tumor".
EDITIONS = [("early", 2004, 2017, "2.5"), ("middle", 2018, 2022, "3.0"), ("latest", 2023, None, "3.3")]
CANCERS = [("lung", "Lung", "lung"), ("breast", "Breast", "breast"), ("liver", "간암 liver", "liver, 간암"),
           ("colon", "Colon", "colorectal")]
CORPUS = [
    {"doc_id": f"{cid}-{ver}", "title": f"{title} staging {ver}",
     "text": f"{title} staging rule tumor size extension nodes, {word} edition {ver} for {cid}.",
     "cancer_type": types, "applicable_years_from": start, "applicable_years_to": end, "version": ver}
    for cid, title, types in CANCERS for word, start, end, ver in EDITIONS
]
CORPUS.append(
    {"doc_id": "general", "title": "General rules", "text": "General staging rule tumor notes for every site."}
)

YAML = """\
name: milvus-test
loader: {name: jsonl, path: corpus.jsonl}
chunker: {name: whole-document}
embedding: {name: fake-hash}
retrievers:
  - name: milvus
    top_k: 4
    FILTERS
context: {name: fake-all}
generator: {name: fake-echo}
"""
FILTERS = """filters:
      - {request_key: diagnosis_year, field: applicable_years, match: year_range}
      - {request_key: cancer_type, field: cancer_type, match: any_of, separator: ","}
      - {request_key: version, field: version, match: equals}"""


@pytest.fixture(scope="module")
def host():
    return plugin_host(entry_points=True)


def make(tmp_path, host, extra: str = FILTERS, overrides=(), corpus=CORPUS):
    (tmp_path / "corpus.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in corpus), encoding="utf-8"
    )
    return pipeline_from_yaml(replaced(YAML, "FILTERS", extra), tmp_path, host, overrides)


@pytest.fixture(scope="module")
def engine(tmp_path_factory, host):
    pipeline = make(tmp_path_factory.mktemp("milvus"), host)
    ingest(pipeline)
    return Engine.open(pipeline)


def retriever(engine):
    return engine.retrievers[0][1]


def ids(hits):
    return [h.node_id for h in hits]


def test_search_finds_the_matching_chunk_with_cosine_scores(engine):
    hits = engine.retrieve(Query("Breast staging rule latest edition for breast"))
    assert hits[0].doc_id == "breast-3.3"
    assert 0.8 < hits[0].score <= 1.0 + 1e-5 and hits[0].score > hits[1].score
    assert all(-1.0 - 1e-5 <= h.score <= 1.0 + 1e-5 for h in hits)


def test_reload_in_a_new_pipeline_gives_identical_results(engine, host):
    again = Engine.open(make(engine.pipeline.config.base_dir, host))
    question = Query("liver tumor nodes", filters={"diagnosis_year": 2019})
    assert [(h.node_id, round(h.score, 5)) for h in engine.retrieve(question)] == \
        [(h.node_id, round(h.score, 5)) for h in again.retrieve(question)]
    assert (engine.index_dir / "retrievers" / "milvus" / "milvus.db").exists()  # the Lite file lives in the index


def test_year_filter_runs_in_the_database_and_still_fills_top_k(engine):
    question = Query("lung staging rule tumor latest edition", filters={"diagnosis_year": "2019"})
    assert retriever(engine).expression(question) == \
        "(f0_start == -1 or (f0_start <= 2019 and f0_end >= 2019))"
    unfiltered = retriever(engine).retrieve(Query(question.text), 4)
    assert "lung-3.3" in ids(unfiltered)  # without the filter the 2023+ edition ranks high
    hits = retriever(engine).retrieve(question, 4)
    # all four results apply to 2019 (the 2018-2022 editions, or the general note without years): the
    # database filtered before ranking, so no candidate was transferred only to be dropped afterwards
    assert len(hits) == 4
    assert set(ids(hits)) <= {f"{c}-3.0" for c, _, _ in CANCERS} | {"general"}
    assert ids(hits)[0] == "lung-3.0"


def test_the_trace_shows_the_expression_pushed_down(engine):
    traced = engine.ask("lung staging rule tumor latest edition", filters={"diagnosis_year": "2019"}).trace
    stage = next(s for s in traced.stages if s.stage == "retrieve:milvus")
    assert stage.notes["pushed_down"] == "(f0_start == -1 or (f0_start <= 2019 and f0_end >= 2019))"
    plain = engine.ask("lung staging rule tumor latest edition").trace
    assert "pushed_down" not in next(s for s in plain.stages if s.stage == "retrieve:milvus").notes


def test_open_ended_range_and_the_first_year_of_a_range(engine):
    r = retriever(engine)
    late = r.retrieve(Query("breast staging", filters={"diagnosis_year": 2031}), 20)
    assert {h.node.metadata.get("version") for h in late} == {"3.3", None}  # 2023+ is open-ended
    first = r.retrieve(Query("breast staging", filters={"diagnosis_year": 2018}), 20)
    assert {h.node.metadata.get("version") for h in first} == {"3.0", None}


def test_cancer_type_labels_including_korean_and_a_list(engine):
    r = retriever(engine)
    korean = r.retrieve(Query("staging rule tumor", filters={"cancer_type": "간암"}), 20)
    assert set(ids(korean)) == {"liver-2.5", "liver-3.0", "liver-3.3", "general"}
    assert 'ARRAY_CONTAINS_ANY(f1, ["간암"])' in r.expression(Query("x", filters={"cancer_type": "간암"}))
    both = r.retrieve(Query("staging rule tumor", filters={"cancer_type": ["LUNG", "colorectal"]}), 20)
    assert {i.split("-")[0] for i in ids(both)} == {"lung", "colon", "general"}  # case-folded on both sides


def test_filters_combine_with_and(engine):
    question = Query("staging rule", filters={"cancer_type": "breast", "diagnosis_year": 2010, "version": "2.5"})
    hits = retriever(engine).retrieve(question, 20)
    assert set(ids(hits)) == {"breast-2.5", "general"}
    assert retriever(engine).expression(question).count(" and ") >= 2


def test_no_request_filter_means_no_expression(engine):
    assert retriever(engine).expression(Query("staging")) == ""
    assert len(retriever(engine).retrieve(Query("staging"), 50)) == len(CORPUS)


def test_missing_drop_leaves_out_chunks_without_the_field(tmp_path, host):
    rules = """filters:
      - {request_key: diagnosis_year, field: applicable_years, match: year_range, missing: drop}
      - {request_key: version, field: version, match: equals, missing: drop}"""
    pipeline = make(tmp_path, host, rules)
    ingest(pipeline)
    r = retriever(Engine.open(pipeline))
    assert "general" not in ids(r.retrieve(Query("general rule", filters={"diagnosis_year": 2019}), 20))
    assert set(ids(r.retrieve(Query("rule", filters={"version": "3.0"}), 20))) == {f"{c}-3.0" for c, _, _ in CANCERS}


def test_a_request_year_that_is_not_a_year_is_a_data_error(engine):
    with pytest.raises(DataError, match="diagnosis_year='soon' is not a year"):
        retriever(engine).expression(Query("x", filters={"diagnosis_year": "soon"}))


def test_search_params_do_not_change_the_index_key(tmp_path, host):
    first = ingest(make(tmp_path, host, "index_type: HNSW"))
    second = ingest(make(tmp_path, host, "index_type: HNSW", ["retrievers.0.search_params.ef=64"]))
    assert not second.built and second.key == first.key


def test_a_shared_lite_file_holds_one_collection_per_content(tmp_path, host):
    shared = "uri: shared.db\n    collection: notes\n    " + FILTERS
    (tmp_path / "a").mkdir()
    one = make(tmp_path / "a", host, shared)
    ingest(one)
    meta = json.loads(next((tmp_path / "a" / ".criss_rag").rglob("milvus.json")).read_text())
    assert meta["collection"].startswith("notes_") and meta["uri"].endswith("shared.db")
    hits = Engine.open(one).retrieve(Query("colon staging middle edition", filters={"cancer_type": "colorectal"}))
    assert hits[0].doc_id == "colon-3.0"


@pytest.mark.parametrize("uri, message", [
    ("vectors/milvus.sqlite", "name must end in .db"),
    ("missing-folder/milvus.db", "does not exist; create it first"),
    ("ftp://example/x", "use http://host:19530"),
])
def test_bad_uri_is_explained_before_connecting(tmp_path, host, uri, message):
    (tmp_path / "vectors").mkdir()
    with pytest.raises(ConfigError, match=message):
        ingest(make(tmp_path, host, f"uri: {uri}"))


def test_an_unreachable_server_names_the_uri_and_the_token_variable(tmp_path, host, monkeypatch):
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("TEST_MILVUS_TOKEN", "root:s3cret-value")
    pipeline = make(
        tmp_path, host, f"uri: http://127.0.0.1:{port}\n    timeout: 1\n    token: {{env: TEST_MILVUS_TOKEN}}"
    )
    with pytest.raises(IndexStoreError) as caught:
        ingest(pipeline)
    message = str(caught.value)
    assert f"cannot connect to Milvus at http://127.0.0.1:{port}" in message
    assert "$TEST_MILVUS_TOKEN" in message and "s3cret" not in message
    assert "s3cret" not in json.dumps(pipeline.config.plan())


def test_a_token_whose_variable_is_unset_is_a_config_error(tmp_path, host, monkeypatch):
    monkeypatch.delenv("NO_SUCH_MILVUS_TOKEN", raising=False)
    with pytest.raises(ConfigError, match="environment variable NO_SUCH_MILVUS_TOKEN is not set"):
        make(tmp_path, host, "uri: http://127.0.0.1:19530\n    token: {env: NO_SUCH_MILVUS_TOKEN}")


def test_an_inline_token_is_refused(tmp_path, host):
    with pytest.raises(ConfigError, match="is a secret: write it as an environment reference"):
        make(tmp_path, host, "uri: http://127.0.0.1:19530\n    token: root:Milvus")


def test_a_dropped_collection_asks_for_a_rebuild(tmp_path, host):
    pipeline = make(tmp_path, host, "uri: own.db")
    report = ingest(pipeline)
    from pymilvus import MilvusClient

    meta = json.loads((report.index_dir / "retrievers" / "milvus" / "milvus.json").read_text())
    client = MilvusClient(str(tmp_path / "own.db"))
    client.drop_collection(meta["collection"])
    client.close()
    with pytest.raises(IndexStoreError, match="is not in .* re-run `criss-rag ingest CONFIG --force`"):
        Engine.open(make(tmp_path, host, "uri: own.db"))
