"""The engine's stages, refusals and citation checks, with fake components."""

from __future__ import annotations

import pytest
from llama_index.core import Settings
from pydantic import BaseModel, ConfigDict

from criss_rag import hookimpl
from criss_rag.engine import Engine
from criss_rag.errors import ConfigError
from criss_rag.indexing.ingestion import ingest
from criss_rag.testing import (
    FAKE_PIPELINE_YAML,
    engine_from_yaml,
    pipeline_from_yaml,
    replaced,
    run_pipeline,
)


def test_answer_cites_evidence_and_traces_every_stage(tmp_path):
    yaml_text = FAKE_PIPELINE_YAML + "filters: [{name: fake-drop-doc, doc_id: liver}]\nrerankers: [fake-reverse]\n"
    answer = run_pipeline(yaml_text, "Which test finds stomach cancer?", tmp_path)
    assert not answer.refused
    assert answer.citations[0].number == 1
    assert answer.text.endswith("[1]")
    stages = [s.stage for s in answer.trace.stages]
    assert stages == ["retrieve:fake-keyword", "filter:fake-drop-doc", "reranker:fake-reverse",
                      "refusal", "context", "generate", "cite"]
    assert answer.trace.config_hash and answer.trace.index_key
    assert answer.trace.plugins == {"fake": "0"}
    retrieve = answer.trace.stage("retrieve:fake-keyword")
    assert retrieve.n_out > 0 and retrieve.ms >= 0 and retrieve.top_scores


def test_best_evidence_is_cited(tmp_path):
    answer = run_pipeline(FAKE_PIPELINE_YAML, "Which test finds stomach cancer?", tmp_path)
    assert answer.citations[0].doc_id == "gastric"
    assert answer.citations[0].text == "Endoscopy is the main test for stomach cancer."


def test_reranker_reorders(tmp_path):
    plain = run_pipeline(FAKE_PIPELINE_YAML, "stomach cancer test", tmp_path / "a")
    reversed_ = run_pipeline(FAKE_PIPELINE_YAML + "rerankers: [fake-reverse]\n", "stomach cancer test", tmp_path / "b")
    assert plain.citations[0].node_id != reversed_.citations[0].node_id


def test_filter_drops_candidates(tmp_path):
    yaml_text = FAKE_PIPELINE_YAML + "filters: [{name: fake-drop-doc, doc_id: gastric}]\n"
    yaml_text = replaced(yaml_text, "min_score: 1", "min_score: 0")
    answer = run_pipeline(yaml_text, "stomach endoscopy", tmp_path)
    assert all(c.doc_id != "gastric" for c in answer.citations)
    stage = answer.trace.stage("filter:fake-drop-doc")
    assert stage.n_out < stage.n_in


def test_refusal_calls_no_generator(tmp_path):
    engine = engine_from_yaml(replaced(FAKE_PIPELINE_YAML, "min_score: 1", "min_score: 50"), tmp_path)
    answer = engine.ask("What is liver cancer?")
    assert answer.refused and answer.refusal_reason == "weak_evidence"
    assert answer.text == "insufficient evidence"
    assert answer.citations == []
    assert engine.pipeline.one("generator").calls == 0
    assert answer.trace.stage("generate") is None


def test_no_evidence_is_refused_even_without_a_policy(tmp_path):
    yaml_text = replaced(FAKE_PIPELINE_YAML, "refusal: {name: fake-min-score, min_score: 1}\n", "")
    answer = run_pipeline(yaml_text, "How do I bake sourdough bread?", tmp_path)
    assert answer.refused and answer.refusal_reason == "no_evidence"


def test_markers_to_missing_evidence_are_removed(tmp_path):
    yaml_text = replaced(
        FAKE_PIPELINE_YAML, "generator: {name: fake-echo}", "generator: {name: fake-echo, cite: '1, 99'}"
    )
    answer = run_pipeline(yaml_text, "What raises the risk of liver cancer?", tmp_path)
    assert "[99]" not in answer.text and answer.text.endswith("[1]")
    assert answer.trace.stage("cite").notes["invalid_markers"] == [99]


def test_uncited_answer_is_withheld(tmp_path):
    yaml_text = replaced(FAKE_PIPELINE_YAML, "generator: {name: fake-echo}", "generator: {name: fake-echo, cite: none}")
    answer = run_pipeline(yaml_text, "What raises the risk of liver cancer?", tmp_path)
    assert answer.refused and answer.refusal_reason == "uncited_answer"


def test_empty_question_is_refused(tmp_path):
    answer = run_pipeline(FAKE_PIPELINE_YAML, "   ", tmp_path)
    assert answer.refused and answer.refusal_reason == "empty_question"


def test_fusion_merges_retrievers_and_signals_survive(tmp_path):
    yaml_text = replaced(
        FAKE_PIPELINE_YAML,
        "retrievers: [{name: fake-keyword, top_k: 5}]",
        "embedding: {name: fake-hash}\nretrievers: [{name: fake-keyword}, {name: fake-keyword, label: dense, dense: "
        "true}]\n"
        "fusion: {name: fake-interleave}",
        "min_score: 1",
        "min_score: 0",
    )
    pipeline = pipeline_from_yaml(yaml_text, tmp_path)
    ingest(pipeline)
    engine = Engine.open(pipeline)
    hits = engine.retrieve(__import__("criss_rag.types", fromlist=["Query"]).Query("lung cancer smoking"))
    assert hits[0].doc_id == "lung"
    assert {"fake-keyword", "dense"} & set(hits[0].signals)


def test_dense_retriever_without_embedding_is_a_config_error(tmp_path):
    yaml_text = replaced(FAKE_PIPELINE_YAML, "{name: fake-keyword, top_k: 5}", "{name: fake-keyword, dense: true}")
    pipeline = pipeline_from_yaml(yaml_text, tmp_path)
    with pytest.raises(ConfigError, match="needs an embedding model, but the config names none"):
        ingest(pipeline)


def test_llama_index_global_defaults_cannot_reach_a_remote_service(tmp_path):
    pipeline_from_yaml(FAKE_PIPELINE_YAML, tmp_path)
    with pytest.raises(ConfigError, match="never falls back"):
        Settings.llm.complete("hello")
    with pytest.raises(ConfigError, match="never falls back"):
        Settings.embed_model.get_text_embedding("hello")


def test_query_transform_changes_what_is_searched_not_the_question(tmp_path):
    yaml_text = FAKE_PIPELINE_YAML + "query_transforms: [{name: fake-suffix, suffix: endoscopy}]\n"
    answer = run_pipeline(yaml_text, "Which test?", tmp_path)
    assert answer.question == "Which test?"
    assert answer.trace.stages[0].stage == "transform:fake-suffix"
    assert answer.trace.stages[0].notes["retrieval_text"] == "Which test? endoscopy"
    assert answer.citations[0].doc_id == "gastric"


def test_multihop_follows_queries_appends_new_evidence_and_stops(tmp_path):
    yaml_text = replaced(FAKE_PIPELINE_YAML, "min_score: 1", "min_score: 0") + (
        "multihop: {name: fake-hops, queries: [smoking cough, hepatitis], max_hops: 3}\n")
    pipeline = pipeline_from_yaml(yaml_text, tmp_path)
    ingest(pipeline)
    from criss_rag.types import Query, Trace

    engine = Engine.open(pipeline)
    trace = Trace(config_hash="x")
    hits = engine.retrieve(Query("stomach endoscopy"), trace)
    hops = [s for s in trace.stages if s.stage.startswith("hop:")]
    assert [h.notes.get("query") for h in hops] == ["smoking cough", "hepatitis", None]
    assert hops[-1].notes["stopped"]
    assert hits[0].doc_id == "gastric"  # first-hop ranking kept, later hops appended
    assert {"lung", "liver"} <= {h.doc_id for h in hits}
    assert all(n.startswith("lung") for n in hops[0].notes["added"])
    assert "retrieve:fake-keyword@hop1" in [s.stage for s in trace.stages]


def test_max_hops_caps_the_loop(tmp_path):
    yaml_text = FAKE_PIPELINE_YAML + "multihop: {name: fake-hops, queries: [a, b, c, d], max_hops: 2}\n"
    pipeline = pipeline_from_yaml(yaml_text, tmp_path)
    ingest(pipeline)
    from criss_rag.types import Query, Trace

    trace = Trace(config_hash="x")
    Engine.open(pipeline).retrieve(Query("lung"), trace)
    assert [s.stage for s in trace.stages if s.stage.startswith("hop:")] == ["hop:1", "hop:2"]


def test_llm_is_named_under_llms_and_unknown_keys_are_explained(tmp_path):
    yaml_text = FAKE_PIPELINE_YAML + "llms: {mock: {name: fake-llm, reply: hi}}\n"
    pipeline = pipeline_from_yaml(yaml_text, tmp_path)
    from criss_rag.context import ComponentContext

    ctx = ComponentContext(pipeline, "generator")
    assert ctx.llm("mock").complete("x").text == "hi"
    with pytest.raises(ConfigError, match=r"uses the LLM 'gpt', but `llms:` names only: mock"):
        ctx.llm("gpt")
    assert pipeline.config.plan()["llms"] == {"mock": {"name": "fake-llm", "reply": "hi"}}


class _StrictFieldFilter:
    """Keeps hits whose `lang` is `en`; the corpus must have the field (or, lenient, warns)."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        lenient: bool = False

    def __init__(self, params, ctx):
        self.lenient = params.lenient

    def check_corpus(self, nodes):
        if all("lang" in n.metadata for n in nodes):
            return None
        if self.lenient:
            return "corpus has no `lang` metadata: this filter does not apply"
        raise ConfigError("filter lang-only: the corpus has no `lang` metadata; add it or set lenient: true")

    def apply(self, query, hits):
        from criss_rag.types import FilterOutcome

        kept = [h for h in hits if h.metadata.get("lang", "en") == "en"]
        return FilterOutcome(kept, {"not English": len(hits) - len(kept)}, applied=True, note="kept English only")


class _LangPlugin:
    @hookimpl
    def register_filters(self, register):
        register("lang-only", _StrictFieldFilter)


def test_filter_accounting_and_corpus_checks(tmp_path):
    from criss_rag.testing import plugin_host

    host = plugin_host({"lang": _LangPlugin()})
    strict = FAKE_PIPELINE_YAML + "filters: [lang-only]\n"
    with pytest.raises(ConfigError, match="the corpus has no `lang` metadata"):
        ingest(pipeline_from_yaml(strict, tmp_path / "a", host))
    lenient = FAKE_PIPELINE_YAML + "filters: [{name: lang-only, lenient: true}]\n"
    answer = run_pipeline(lenient, "Which test finds stomach cancer?", tmp_path / "b", host)
    notes = answer.trace.stage("filter:lang-only").notes
    assert notes["corpus_warning"] == "corpus has no `lang` metadata: this filter does not apply"
    assert notes["kept"] == answer.trace.stage("filter:lang-only").n_out
    assert notes["removed"] == {"not English": 0} and notes["note"] == "kept English only"
    plain = run_pipeline(FAKE_PIPELINE_YAML + "filters: [{name: fake-drop-doc, doc_id: gastric}]\n",
                         "stomach cancer test", tmp_path / "c")
    stage = plain.trace.stage("filter:fake-drop-doc")
    assert stage.notes["removed"] == {"filtered": stage.n_in - stage.n_out} and stage.n_in > stage.n_out
