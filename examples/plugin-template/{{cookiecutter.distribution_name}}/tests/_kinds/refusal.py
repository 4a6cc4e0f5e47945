"""Tests for the refusal policy `{{ cookiecutter.component_name }}`, with the fakes of criss_rag.testing."""

import pytest
from llama_index.core.schema import NodeWithScore

import {{ cookiecutter.package_name }}.plugin as plugin
from criss_rag.errors import ConfigError
from criss_rag.testing import engine_from_yaml, pipeline_from_yaml, plugin_host, replaced, run_pipeline
from criss_rag.types import Hit, Query, text_node
from {{ cookiecutter.package_name }} import {{ cookiecutter.__class_name }}

# the fake pipeline of criss_rag.testing (FAKE_PIPELINE_YAML), with this policy instead of the fake one
PIPELINE_YAML = """\
name: {{ cookiecutter.plugin_slug }}-test
loader: {name: fake-loader}
chunker: {name: fake-chunker}
retrievers: [{name: fake-keyword, top_k: 5}]
refusal: {name: {{ cookiecutter.component_name }}, min_hits: 2}
context: {name: fake-all}
generator: {name: fake-echo}
"""


def hit(node_id):
    return Hit(NodeWithScore(node=text_node(node_id, "some evidence"), score=1.0))


def test_refuses_below_min_hits():
    policy = {{ cookiecutter.__class_name }}({{ cookiecutter.__class_name }}.Params(min_hits=2), ctx=None)
    assert policy.decide(Query("q"), [hit("a"), hit("b")]) is None
    refusal = policy.decide(Query("q"), [hit("a")])
    assert refusal is not None and refusal.reason == "too_little_evidence"
    assert policy.decide(Query("q"), []).reason == "no_evidence"


def test_runs_in_a_pipeline(tmp_path):
    host = plugin_host({"{{ cookiecutter.plugin_slug }}": plugin})  # the fake plugin + this one
    answered = run_pipeline(PIPELINE_YAML, "What is liver cancer?", tmp_path, host)
    assert not answered.refused, answered.refusal_detail
    engine = engine_from_yaml(PIPELINE_YAML, tmp_path, host)
    refused = engine.ask("Does jaundice matter?")  # one sentence says jaundice
    assert refused.refused and refused.refusal_reason == "too_little_evidence"
    assert refused.trace.stage("refusal").notes["refused"] is True
    assert engine.pipeline.one("generator").calls == 0  # a refusal calls no generator


def test_a_bad_option_names_the_key(tmp_path):
    host = plugin_host({"{{ cookiecutter.plugin_slug }}": plugin})
    yaml_text = replaced(PIPELINE_YAML, "min_hits: 2", "min_hits: 0")
    with pytest.raises(ConfigError, match="key 'min_hits': Input should be greater than or equal to 1"):
        pipeline_from_yaml(yaml_text, tmp_path, host)
