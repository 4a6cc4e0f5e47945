"""The tests docs/writing-a-plugin.md shows (its section 6), run by the suite as they are."""

import pytest
from llama_index.core.schema import NodeWithScore

import criss_rag_titleboost
from criss_rag.errors import ConfigError
from criss_rag.testing import FAKE_PIPELINE_YAML, pipeline_from_yaml, plugin_host, run_pipeline
from criss_rag.types import Hit, Query, text_node
from criss_rag_titleboost import TitleBoost


def hit(node_id, title, score):
    return Hit(NodeWithScore(node=text_node(node_id, "some text", title=title), score=score))


def test_title_match_moves_up():
    boost = TitleBoost(TitleBoost.Params(weight=2.0), ctx=None)
    hits = [hit("a", "Breast cancer", 1.0), hit("b", "Liver cancer", 0.9)]
    ranked = boost.rerank(Query("liver cancer risk"), hits)
    assert [h.node_id for h in ranked] == ["b", "a"]
    assert "title-boost" in ranked[0].signals


def test_runs_in_a_pipeline(tmp_path):
    host = plugin_host({"titleboost": criss_rag_titleboost})  # the fake plugin + this one
    yaml_text = FAKE_PIPELINE_YAML + "rerankers: [{name: title-boost, weight: 2}]\n"
    answer = run_pipeline(yaml_text, "Which test finds stomach cancer?", tmp_path, host)
    assert not answer.refused
    assert answer.trace.stage("reranker:title-boost").n_out > 0


def test_rejects_a_negative_weight(tmp_path):
    host = plugin_host({"titleboost": criss_rag_titleboost})
    yaml_text = FAKE_PIPELINE_YAML + "rerankers: [{name: title-boost, weight: -1}]\n"
    with pytest.raises(ConfigError, match="key 'weight': Input should be greater than 0"):
        pipeline_from_yaml(yaml_text, tmp_path, host)
