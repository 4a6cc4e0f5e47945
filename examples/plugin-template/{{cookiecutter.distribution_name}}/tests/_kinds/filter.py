"""Tests for the filter `{{ cookiecutter.component_name }}`, with the fakes of criss_rag.testing."""

import pytest
from llama_index.core.schema import NodeWithScore

import {{ cookiecutter.package_name }}.plugin as plugin
from criss_rag.errors import ConfigError
from criss_rag.testing import FAKE_PIPELINE_YAML, pipeline_from_yaml, plugin_host, run_pipeline
from criss_rag.types import Hit, Query, text_node
from {{ cookiecutter.package_name }} import {{ cookiecutter.__class_name }}


def hit(node_id, text, score=1.0):
    return Hit(NodeWithScore(node=text_node(node_id, text), score=score))


def test_short_candidates_are_dropped_and_the_rest_kept_in_order():
    keep = {{ cookiecutter.__class_name }}({{ cookiecutter.__class_name }}.Params(min_chars=20), ctx=None)
    hits = [hit("a", "Hepatitis B raises the risk of liver cancer."), hit("b", "Liver cancer"),
            hit("c", "A colonoscopy finds polyps.")]
    kept = keep.apply(Query("liver cancer"), hits)
    assert [h.node_id for h in kept] == ["a", "c"]
    assert kept[0] is hits[0]  # a filter drops candidates; it does not re-score them


def test_runs_in_a_pipeline(tmp_path):
    host = plugin_host({"{{ cookiecutter.plugin_slug }}": plugin})  # the fake plugin + this one
    yaml_text = FAKE_PIPELINE_YAML + "filters: [{name: {{ cookiecutter.component_name }}, min_chars: 40}]\n"
    answer = run_pipeline(yaml_text, "What is liver cancer?", tmp_path, host)
    assert not answer.refused, answer.refusal_detail
    stage = answer.trace.stage("filter:{{ cookiecutter.component_name }}")
    assert stage is not None and 0 < stage.n_out < stage.n_in  # it ran and dropped something
    assert all(len(c.text) >= 40 for c in answer.citations)


def test_a_bad_option_names_the_key(tmp_path):
    host = plugin_host({"{{ cookiecutter.plugin_slug }}": plugin})
    yaml_text = FAKE_PIPELINE_YAML + "filters: [{name: {{ cookiecutter.component_name }}, min_chars: -1}]\n"
    with pytest.raises(ConfigError, match="key 'min_chars': Input should be greater than or equal to 0"):
        pipeline_from_yaml(yaml_text, tmp_path, host)
