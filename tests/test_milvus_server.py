"""The milvus retriever against a real Milvus server: the standalone Milvus 2.3 of PyPI's `milvus`
package, started once for this module as its own process (in a private network namespace,
reached over http://127.0.0.1:PORT; see criss_rag_milvus.standalone). Insert, search with an HNSW
index the server builds, the pushed-down filters, a re-ingest that deletes and changes documents,
and a server restart that keeps the data."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from pymilvus import MilvusClient
from test_milvus import CANCERS, CORPUS, FILTERS, YAML

from criss_rag.engine import Engine
from criss_rag.indexing.ingestion import ingest
from criss_rag.testing import pipeline_from_yaml, plugin_host, replaced
from criss_rag.types import Query
from criss_rag_milvus.standalone import StandaloneMilvus

SERVER_SETTINGS = """uri: URI
    collection: notes
    index_type: HNSW
    index_params: {M: 8, efConstruction: 64}
    search_params: {ef: 32}
    """


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    milvus = StandaloneMilvus(tmp_path_factory.mktemp("milvus-server"))
    milvus.start()
    yield milvus
    milvus.stop()
    shutil.rmtree(milvus.data_dir, ignore_errors=True)  # ~450 MB: the unpacked binaries, etcd and rocksmq files


@pytest.fixture(scope="module")
def host():
    return plugin_host(entry_points=True)


def make(base, host, uri, corpus=CORPUS):
    (base / "corpus.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in corpus), encoding="utf-8"
    )
    return pipeline_from_yaml(replaced(YAML, "FILTERS", replaced(SERVER_SETTINGS, "URI", uri) + FILTERS), base, host)


def meta_of(report):
    return json.loads((report.index_dir / "retrievers" / "milvus" / "milvus.json").read_text(encoding="utf-8"))


def ranked(hits):
    return sorted((-round(h.score, 4), h.node_id) for h in hits)


def ids(hits):
    return [h.node_id for h in hits]


def rows(uri, collection):
    client = MilvusClient(uri=uri, timeout=30)
    try:
        client.load_collection(collection)
        found = client.query(collection, filter='id != ""', output_fields=["id"], consistency_level="Strong")
        return sorted(str(r["id"]) for r in found)
    finally:
        client.close()


@pytest.fixture(scope="module")
def built(tmp_path_factory, server, host):
    base = tmp_path_factory.mktemp("server-index")
    report = ingest(make(base, host, server.uri))
    return base, report


def alive(pid):
    """True while ``pid`` runs (a zombie has stopped running)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_milvus_server_is_a_separate_process_on_loopback(server):
    stat = Path(f"/proc/{server.server_pid}/stat").read_text().rsplit(")", 1)[1].split()
    assert int(stat[1]) == server.pid != os.getpid()  # the server's parent is the relay, not this process
    assert Path(f"/proc/{server.server_pid}/cmdline").read_bytes().split(b"\0")[-3:-1] == [b"run", b"standalone"]
    assert os.readlink(f"/proc/{server.server_pid}/ns/net") != os.readlink("/proc/self/ns/net")  # its own namespace
    assert server.uri.startswith("http://127.0.0.1:")
    client = MilvusClient(uri=server.uri, timeout=30)
    assert client.get_server_version().startswith("v2.3")  # the Go/C++ server, not milvus-lite's Python engine
    client.close()


def test_milvus_server_ingest_inserts_every_chunk_and_builds_hnsw(built, server):
    base, report = built
    meta = meta_of(report)
    assert meta["uri"] == server.uri and meta["collection"].startswith("notes_") and meta["count"] == len(CORPUS)
    assert rows(server.uri, meta["collection"]) == sorted(
        r["doc_id"] for r in CORPUS
    )  # whole-document chunks: id = doc_id
    client = MilvusClient(uri=server.uri, timeout=30)
    index = client.describe_index(meta["collection"], index_name=client.list_indexes(meta["collection"])[0])
    client.close()
    assert index["index_type"] == "HNSW" and index["metric_type"] == "COSINE"


def test_milvus_server_search_matches_milvus_lite(built, server, tmp_path, host):
    base, _ = built
    on_server = Engine.open(make(base, host, server.uri))
    (tmp_path / "corpus.jsonl").write_text(
        "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in CORPUS), encoding="utf-8"
    )
    lite = pipeline_from_yaml(replaced(YAML, "FILTERS", FILTERS), tmp_path, host)  # no uri: a Milvus Lite file
    ingest(lite)
    lite_engine = Engine.open(lite)
    for question in ("Breast staging rule latest edition for breast", "liver tumor nodes", "general rule"):
        # the whole ranking of the 13 rows: HNSW with ef 32 finds the exact neighbours (equal scores may
        # come in either order)
        a, b = (e.retrievers[0][1].retrieve(Query(question), 20) for e in (on_server, lite_engine))
        assert ranked(a) == ranked(b) and len(a) == len(CORPUS)
    assert on_server.retrieve(Query("Breast staging rule latest edition for breast"))[0].doc_id == "breast-3.3"


def test_milvus_server_pushes_down_year_cancer_type_and_version(built, server, host):
    base, _ = built
    engine = Engine.open(make(base, host, server.uri))
    retriever = engine.retrievers[0][1]
    year = retriever.retrieve(Query("lung staging rule tumor latest edition", filters={"diagnosis_year": 2019}), 4)
    assert len(year) == 4 and ids(year)[0] == "lung-3.0"
    assert set(ids(year)) <= {f"{c}-3.0" for c, _, _ in CANCERS} | {"general"}
    korean = retriever.retrieve(Query("staging rule tumor", filters={"cancer_type": "간암"}), 20)
    assert set(ids(korean)) == {"liver-2.5", "liver-3.0", "liver-3.3", "general"}
    both = retriever.retrieve(Query("staging rule tumor", filters={"cancer_type": ["LUNG", "colorectal"]}), 20)
    assert {i.split("-")[0] for i in ids(both)} == {"lung", "colon", "general"}
    combined = retriever.retrieve(Query("staging rule", filters={"cancer_type": "breast", "diagnosis_year": 2010,
                                                                "version": "2.5"}), 20)
    assert set(ids(combined)) == {"breast-2.5", "general"}
    traced = engine.ask("lung staging rule tumor", filters={"diagnosis_year": "2019"}).trace
    stage = next(s for s in traced.stages if s.stage == "retrieve:milvus")
    assert stage.notes["pushed_down"] == "(f0_start == -1 or (f0_start <= 2019 and f0_end >= 2019))"


def test_milvus_server_reingest_drops_deleted_and_changed_chunks(tmp_path, server, host):
    first = ingest(make(tmp_path, host, server.uri))
    before = meta_of(first)["collection"]
    changed = [dict(r, text="Lung staging rule rewritten: pleural invasion counts.") if r["doc_id"] == "lung-3.3" else r
               for r in CORPUS if r["doc_id"] not in ("breast-2.5", "colon-3.0")]
    pipeline = make(tmp_path, host, server.uri, changed)
    second = ingest(pipeline)
    assert second.mode == "updated" and second.diff["deleted"] == 2 and second.diff["changed"] == 1
    after = meta_of(second)["collection"]
    assert after != before  # a new collection for the new corpus version
    assert rows(server.uri, after) == sorted(r["doc_id"] for r in changed)
    hits = Engine.open(pipeline).retrieve(Query("staging rule tumor breast colon", filters={}))
    assert not {"breast-2.5", "colon-3.0"} & set(ids(hits))
    engine = Engine.open(pipeline)
    assert "pleural invasion" in engine.retrieve(Query("lung pleural invasion"))[0].node.get_content()
    # the previous version's collection is untouched: a process still serving it keeps its answers
    assert rows(server.uri, before) == sorted(r["doc_id"] for r in CORPUS)


def test_milvus_server_restart_keeps_the_data(built, server, host):
    base, report = built
    question = Query("liver tumor nodes", filters={"diagnosis_year": 2019})
    engine = Engine.open(make(base, host, server.uri))
    expected = [(h.node_id, round(h.score, 4)) for h in engine.retrieve(question)]
    old_pid = server.server_pid
    server.stop()
    assert not alive(old_pid)
    server.start()
    assert server.server_pid != old_pid
    again = Engine.open(make(base, host, server.uri))  # same port: same config, same index key
    assert [(h.node_id, round(h.score, 4)) for h in again.retrieve(question)] == expected
    assert rows(server.uri, meta_of(report)["collection"]) == sorted(r["doc_id"] for r in CORPUS)
