"""Tests for the query transform `{{ cookiecutter.component_name }}`, with the fakes of criss_rag.testing."""

import pytest

import {{ cookiecutter.package_name }}.plugin as plugin
from criss_rag.errors import ConfigError
from criss_rag.testing import FAKE_PIPELINE_YAML, pipeline_from_yaml, plugin_host, run_pipeline
from criss_rag.types import Query
from {{ cookiecutter.package_name }} import {{ cookiecutter.__class_name }}


def test_synonyms_are_appended_and_the_question_is_kept():
    transform = {{ cookiecutter.__class_name }}({{ cookiecutter.__class_name }}.Params(synonyms={"gastric": ["stomach"]}), ctx=None)
    query = transform.transform(Query("Gastric cancer tests"))
    assert query.retrieval_text == "Gastric cancer tests stomach"
    assert query.text == "Gastric cancer tests"  # the question as asked never changes
    assert transform.transform(Query("lung cancer")).retrieval_text == ""  # nothing to add


def test_runs_in_a_pipeline(tmp_path):
    host = plugin_host({"{{ cookiecutter.plugin_slug }}": plugin})  # the fake plugin + this one
    yaml_text = FAKE_PIPELINE_YAML + "query_transforms: [{name: {{ cookiecutter.component_name }}}]\n"
    # no corpus sentence says "gastric"; the default synonyms add "stomach"
    answer = run_pipeline(yaml_text, "Which test finds gastric tumours?", tmp_path, host)
    assert not answer.refused, answer.refusal_detail
    stage = answer.trace.stage("transform:{{ cookiecutter.component_name }}")
    assert stage is not None and "stomach" in stage.notes["retrieval_text"]
    assert answer.citations[0].doc_id == "gastric"


def test_a_bad_option_names_the_key(tmp_path):
    host = plugin_host({"{{ cookiecutter.plugin_slug }}": plugin})
    yaml_text = FAKE_PIPELINE_YAML + "query_transforms: [{name: {{ cookiecutter.component_name }}, max_added: 0}]\n"
    with pytest.raises(ConfigError, match="key 'max_added': Input should be greater than or equal to 1"):
        pipeline_from_yaml(yaml_text, tmp_path, host)
