"""Candidates pass from the retrievers to the fusion as ``(chunk id, score)`` pairs (criss_rag.ranked):
the same hits, signals and trace as through ``retrieve`` and ``fuse``, with a ``NodeWithScore`` made
only for what a later stage reads, and components with only the Protocol methods unchanged."""

from __future__ import annotations

import copy
import pickle
from types import SimpleNamespace

import pytest
from llama_index.core.schema import NodeWithScore

import criss_rag.engine
import criss_rag.types.stages
from criss_rag.engine import Engine
from criss_rag.indexing.ingestion import ingest
from criss_rag.ranked import Candidates
from criss_rag.testing import FAKE_PIPELINE_YAML, pipeline_from_yaml, plugin_host
from criss_rag.types import Hit, Query, StageTrace, Trace, scored, text_node
from criss_rag_basic.fusion import ReciprocalRankFusion

NODES = {name: text_node(name, f"text of {name}", title=name.upper()) for name in "abcde"}


def test_a_lazy_hit_reads_as_the_hit_of_its_node_with_score(monkeypatch):
    made: list[object] = []
    real = criss_rag.types.stages.scored
    monkeypatch.setattr(criss_rag.types.stages, "scored", lambda node, score: made.append(node) or real(node, score))
    lazy = Hit.of(NODES["a"], 0.5, {"bm25": 0.5})
    eager = Hit(NodeWithScore(node=NODES["a"], score=0.5), {"bm25": 0.5})
    for field in ("node_id", "score", "text", "metadata", "doc_id", "signals"):
        assert getattr(lazy, field) == getattr(eager, field)
    rescored = lazy.with_score(0.9, "boost")
    assert (rescored.score, rescored.signals) == (0.9, {"bm25": 0.5, "boost": 0.9})
    assert made == []  # nothing above needed a NodeWithScore
    assert lazy.node == eager.node and lazy.node is lazy.node and lazy == eager
    assert made == [NODES["a"]]  # made once, on first read


def test_a_lazy_hit_copies_and_pickles_as_a_hit():
    lazy = Hit.of(NODES["b"], 0.25, {"faiss": 0.25})
    for again in (pickle.loads(pickle.dumps(lazy)), copy.copy(lazy), copy.deepcopy(lazy)):
        assert again == lazy and again.score == 0.25 and again.node.node.node_id == "b"
    with pytest.raises(TypeError):
        hash(lazy)  # mutable, as the dataclass it was


def rrf(**params) -> ReciprocalRankFusion:
    return ReciprocalRankFusion(ReciprocalRankFusion.Params(**params), SimpleNamespace())  # reads no context


class Docstore:
    """The docstore the retrievers were loaded with (a stand-in: the nodes by id)."""

    def get_node(self, node_id: str) -> object:
        return NODES[node_id]


@pytest.mark.parametrize("params", [{}, {"k": 10, "weights": {"faiss": 1.5}}, {"k": 1, "top_k": 2}])
def test_rrf_over_ids_is_rrf_over_the_retrievers_hits(params):
    candidates = Candidates(Docstore())
    # "b" found by both; "c" twice by bm25 (it keeps the later score, as fuse's signals do)
    candidates.ranked = {"bm25": [("a", 12.0), ("b", 9.0), ("c", 3.0), ("c", 2.0)],
                         "faiss": [("b", 0.81), ("d", 0.64), ("e", 0.5)]}
    from_ids = candidates.fuse(rrf(**params), Query("q"))
    from_hits = rrf(**params).fuse(Query("q"), {label: candidates.hits(label) for label in candidates.ranked})
    assert [(h.node_id, h.score, h.signals) for h in from_ids] == [(h.node_id, h.score, h.signals) for h in from_hits]
    assert [list(h.signals) for h in from_ids] == [list(h.signals) for h in from_hits]  # same order too
    assert from_ids == from_hits and from_ids[0].base_node is NODES[from_ids[0].node_id]


class OnlyRetrieve:
    """A third-party retriever with the Protocol's ``retrieve`` only (its nodes need not be in the docstore)."""

    def retrieve(self, query: Query, top_k: int) -> list[NodeWithScore]:
        return [scored(text_node("web", "found elsewhere"), 2.0), scored(NODES["b"], None)][:top_k]


class BothMethods(OnlyRetrieve):
    def retrieve(self, query: Query, top_k: int) -> list[NodeWithScore]:
        raise AssertionError("the engine asks for ids when a retriever gives them")

    def retrieve_ids(self, query: Query, top_k: int) -> list[tuple[str, float]]:
        return [("c", 1.0)]


class OnlyFuse:
    """A third-party fusion with the Protocol's ``fuse`` only: it gets hits, as before."""

    def fuse(self, query: Query, ranked: dict[str, list[Hit]]) -> list[Hit]:
        return [h for hits in ranked.values() for h in hits]


def test_components_without_the_id_methods_get_and_give_what_they_always_did():
    candidates = Candidates(Docstore())
    assert candidates.retrieve("words", OnlyRetrieve(), Query("q"), 5) == [("web", 2.0), ("b", 0.0)]
    assert candidates.retrieve("dense", BothMethods(), Query("q"), 5) == [("c", 1.0)]
    hits = candidates.fuse(OnlyFuse(), Query("q"))
    assert [(h.node_id, h.score, h.signals) for h in hits] == [
        ("web", 2.0, {"words": 2.0}), ("b", 0.0, {"words": 0.0}), ("c", 1.0, {"dense": 1.0})
    ]
    assert hits[0].text == "found elsewhere"  # a node the retriever returned, not looked up


def test_a_stage_record_is_the_validated_one_and_writes_four_decimals():
    record = StageTrace.record("fusion", "rrf", 60, 30, 0.123, [0.0327868852, 0.5], {"k": 1})
    validated = StageTrace(stage="fusion", component="rrf", n_in=60, n_out=30, ms=0.123,
                           top_scores=[0.0327868852, 0.5], notes={"k": 1})
    assert record == validated and record.model_fields_set == validated.model_fields_set
    assert record.top_scores == [0.0327868852, 0.5]  # kept as the stage gave them
    assert record.model_dump()["top_scores"] == [0.0328, 0.5]
    assert '"top_scores":[0.0328,0.5]' in record.model_dump_json()
    record.ms = 1.0  # assignable as any stage record (a later step adds its time)
    assert "ms" in record.model_fields_set


HYBRID = """\
name: pairs
loader: {name: fake-loader}
chunker: {name: fake-chunker}
embedding: {name: fake-hash}
retrievers:
  - {name: bm25, top_k: 5}
  - {name: faiss, top_k: 5}
fusion: {name: rrf}
context: {name: fake-all}
generator: {name: fake-echo}
"""


def test_the_engine_ranks_bm25_faiss_rrf_as_through_retrieve_and_fuse(tmp_path):
    pipeline = pipeline_from_yaml(HYBRID, tmp_path, plugin_host(entry_points=True))
    ingest(pipeline)
    engine = Engine.open(pipeline)
    fusion = pipeline.build(pipeline.config.one("fusion"))
    for question in ("Which test finds stomach cancer?", "lung cancer smoking", "liver"):
        trace = Trace(config_hash="x")
        hits = engine.retrieve(Query(question), trace)
        ranked = {cc.label: [Hit(n, {cc.label: float(n.score or 0.0)}) for n in r.retrieve(Query(question), 5)]
                  for cc, r in engine.retrievers}
        expected = fusion.fuse(Query(question), ranked)
        assert [(h.node_id, h.score, h.signals) for h in hits] == [(h.node_id, h.score, h.signals) for h in expected]
        assert [s.stage for s in trace.stages] == ["retrieve:bm25", "retrieve:faiss", "fusion"]
        assert [(s.n_in, s.n_out) for s in trace.stages] == [
            (0, len(ranked["bm25"])), (0, len(ranked["faiss"])), (len(ranked["bm25"]) + len(ranked["faiss"]), len(hits))
        ]
        assert trace.stages[1].top_scores == [h.score for h in ranked["faiss"]]


def test_the_language_is_detected_once_per_question_and_only_when_a_retriever_needs_it(tmp_path, monkeypatch):
    calls: list[str] = []
    real = criss_rag.engine.detect_language
    monkeypatch.setattr(criss_rag.engine, "detect_language", lambda text: calls.append(text) or real(text))
    hops = "multihop: {name: fake-hops, queries: [smoking cough, hepatitis], max_hops: 2}\n"
    for languages, expected in (("", 0), (", languages: [en]", 1)):
        yaml_text = FAKE_PIPELINE_YAML.replace("top_k: 5}", f"top_k: 5{languages}}}") + hops
        pipeline = pipeline_from_yaml(yaml_text, tmp_path / str(expected))
        ingest(pipeline)
        calls.clear()
        trace = Trace(config_hash="x")
        Engine.open(pipeline).retrieve(Query("stomach endoscopy"), trace)
        assert len([s for s in trace.stages if s.stage.startswith("retrieve:")]) == 3  # the question and two hops
        assert calls == ["stomach endoscopy"] * expected
