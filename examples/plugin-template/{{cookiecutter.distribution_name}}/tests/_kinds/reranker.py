"""Tests for the reranker `{{ cookiecutter.component_name }}`, with the fakes of criss_rag.testing."""

import pytest
from llama_index.core.schema import NodeWithScore

import {{ cookiecutter.package_name }}.plugin as plugin
from criss_rag.errors import ConfigError
from criss_rag.testing import FAKE_PIPELINE_YAML, pipeline_from_yaml, plugin_host, run_pipeline
from criss_rag.types import Hit, Query, text_node
from {{ cookiecutter.package_name }} import {{ cookiecutter.__class_name }}


def hit(node_id, text, score):
    return Hit(NodeWithScore(node=text_node(node_id, text), score=score))


def test_a_candidate_that_matches_the_question_moves_up():
    reranker = {{ cookiecutter.__class_name }}({{ cookiecutter.__class_name }}.Params(weight=2.0), ctx=None)
    hits = [hit("a", "Breast cancer forms in breast tissue.", 1.0),
            hit("b", "Liver cancer risk grows with hepatitis.", 0.9)]
    ranked = reranker.rerank(Query("liver cancer risk"), hits)
    assert [h.node_id for h in ranked] == ["b", "a"]
    assert ranked[0].signals["{{ cookiecutter.component_name }}"] == pytest.approx(0.9 * 3)  # full match: 1 + weight
    assert len(ranked) == len(hits)  # a reranker never adds or drops candidates


def test_runs_in_a_pipeline(tmp_path):
    host = plugin_host({"{{ cookiecutter.plugin_slug }}": plugin})  # the fake plugin + this one
    # fake-reverse puts the weakest candidate first; this reranker must bring the best one back up
    yaml_text = FAKE_PIPELINE_YAML + (
        "rerankers: [{name: fake-reverse}, {name: {{ cookiecutter.component_name }}, weight: 2}]\n"
    )
    answer = run_pipeline(yaml_text, "What raises the risk of liver cancer?", tmp_path, host)
    assert not answer.refused, answer.refusal_detail
    stage = answer.trace.stage("reranker:{{ cookiecutter.component_name }}")
    assert stage is not None and stage.n_out > 0
    assert answer.citations[0].text.startswith("Hepatitis B")  # the best-matching sentence is first again


def test_a_bad_option_names_the_key(tmp_path):
    host = plugin_host({"{{ cookiecutter.plugin_slug }}": plugin})
    yaml_text = FAKE_PIPELINE_YAML + "rerankers: [{name: {{ cookiecutter.component_name }}, weight: -1}]\n"
    with pytest.raises(ConfigError, match="key 'weight': Input should be greater than 0"):
        pipeline_from_yaml(yaml_text, tmp_path, host)
