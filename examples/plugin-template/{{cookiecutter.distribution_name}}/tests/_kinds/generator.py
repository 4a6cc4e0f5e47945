"""Tests for the generator `{{ cookiecutter.component_name }}`, with the fakes of criss_rag.testing."""

import pytest
from llama_index.core.schema import NodeWithScore

import {{ cookiecutter.package_name }}.plugin as plugin
from criss_rag.errors import ConfigError
from criss_rag.testing import pipeline_from_yaml, plugin_host, replaced, run_pipeline
from criss_rag.types import Context, Evidence, Hit, Query, text_node
from {{ cookiecutter.package_name }} import {{ cookiecutter.__class_name }}

# the fake pipeline of criss_rag.testing (FAKE_PIPELINE_YAML), with this generator instead of the fake one
PIPELINE_YAML = """\
name: {{ cookiecutter.plugin_slug }}-test
loader: {name: fake-loader}
chunker: {name: fake-chunker}
retrievers: [{name: fake-keyword, top_k: 5}]
refusal: {name: fake-min-score, min_score: 1}
context: {name: fake-all}
generator: {name: {{ cookiecutter.component_name }}, max_quotes: 2}
"""


def evidence(number, text):
    return Evidence(number, Hit(NodeWithScore(node=text_node(f"n{number}", text), score=1.0)), text)


def test_quotes_the_first_sentence_of_each_passage():
    generator = {{ cookiecutter.__class_name }}({{ cookiecutter.__class_name }}.Params(max_quotes=2), ctx=None)
    context = Context((evidence(1, "First one. More."), evidence(2, "Second one."), evidence(3, "Third.")), "")
    generation = generator.generate(Query("q"), context)
    assert generation.text == "From the sources: First one. [1] Second one. [2]"


def test_runs_in_a_pipeline(tmp_path):
    host = plugin_host({"{{ cookiecutter.plugin_slug }}": plugin})  # the fake plugin + this one
    answer = run_pipeline(PIPELINE_YAML, "What raises the risk of liver cancer?", tmp_path, host)
    assert not answer.refused, answer.refusal_detail
    assert [c.number for c in answer.citations] == [1, 2]  # the engine's citation check kept both
    assert answer.generator.startswith("{{ cookiecutter.component_name }}")


def test_a_bad_option_names_the_key(tmp_path):
    host = plugin_host({"{{ cookiecutter.plugin_slug }}": plugin})
    yaml_text = replaced(PIPELINE_YAML, "max_quotes: 2", "max_quotes: 0")
    with pytest.raises(ConfigError, match="key 'max_quotes': Input should be greater than or equal to 1"):
        pipeline_from_yaml(yaml_text, tmp_path, host)
