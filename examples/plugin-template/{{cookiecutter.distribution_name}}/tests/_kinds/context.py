"""Tests for the context builder `{{ cookiecutter.component_name }}`, with the fakes of criss_rag.testing."""

import pytest
from llama_index.core.schema import NodeWithScore

import {{ cookiecutter.package_name }}.plugin as plugin
from criss_rag.errors import ConfigError
from criss_rag.testing import pipeline_from_yaml, plugin_host, replaced, run_pipeline
from criss_rag.types import Hit, Query, text_node
from {{ cookiecutter.package_name }} import {{ cookiecutter.__class_name }}

# the fake pipeline of criss_rag.testing (FAKE_PIPELINE_YAML), with this context builder instead of the fake one
PIPELINE_YAML = """\
name: {{ cookiecutter.plugin_slug }}-test
loader: {name: fake-loader}
chunker: {name: fake-chunker}
retrievers: [{name: fake-keyword, top_k: 5}]
refusal: {name: fake-min-score, min_score: 1}
context: {name: {{ cookiecutter.component_name }}, max_evidence: 2}
generator: {name: fake-echo}
"""


def hit(node_id, doc_id):
    return Hit(NodeWithScore(node=text_node(node_id, f"text of {node_id}", doc_id=doc_id, title=doc_id), score=1.0))


def test_numbers_one_passage_per_document():
    builder = {{ cookiecutter.__class_name }}({{ cookiecutter.__class_name }}.Params(max_evidence=2), ctx=None)
    context = builder.build(Query("q"), [hit("a#0", "a"), hit("a#1", "a"), hit("b#0", "b"), hit("c#0", "c")])
    assert [(e.number, e.hit.node_id) for e in context.evidence] == [(1, "a#0"), (2, "b#0")]
    assert context.text.startswith("[1] a\ntext of a#0")


def test_runs_in_a_pipeline(tmp_path):
    host = plugin_host({"{{ cookiecutter.plugin_slug }}": plugin})  # the fake plugin + this one
    answer = run_pipeline(PIPELINE_YAML, "What raises the risk of liver cancer?", tmp_path, host)
    assert not answer.refused, answer.refusal_detail
    stage = answer.trace.stage("context")
    assert stage is not None and stage.component == "{{ cookiecutter.component_name }}"
    assert stage.n_in > stage.n_out == 2  # five candidates came in; max_evidence passages went out
    assert answer.citations[0].doc_id == "liver"


def test_a_bad_option_names_the_key(tmp_path):
    host = plugin_host({"{{ cookiecutter.plugin_slug }}": plugin})
    yaml_text = replaced(PIPELINE_YAML, "max_evidence: 2", "max_evidence: 0")
    with pytest.raises(ConfigError, match="key 'max_evidence': Input should be greater than or equal to 1"):
        pipeline_from_yaml(yaml_text, tmp_path, host)
