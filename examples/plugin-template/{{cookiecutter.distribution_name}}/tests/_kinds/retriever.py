"""Tests for the retriever `{{ cookiecutter.component_name }}`, with the fakes of criss_rag.testing."""

import pytest
from llama_index.core.storage.docstore import SimpleDocumentStore

import {{ cookiecutter.package_name }}.plugin as plugin
from criss_rag.errors import ConfigError
from criss_rag.testing import pipeline_from_yaml, plugin_host, replaced, run_pipeline
from criss_rag.types import Query, text_node
from {{ cookiecutter.package_name }} import {{ cookiecutter.__class_name }}

# the fake pipeline of criss_rag.testing (FAKE_PIPELINE_YAML), with this retriever instead of the
# fake one; its scores are shares (0..1), so the fake refusal policy's threshold is lowered
PIPELINE_YAML = """\
name: {{ cookiecutter.plugin_slug }}-test
loader: {name: fake-loader}
chunker: {name: fake-chunker}
retrievers: [{name: {{ cookiecutter.component_name }}, top_k: 5}]
refusal: {name: fake-min-score, min_score: 0.2}
context: {name: fake-all}
generator: {name: fake-echo}
"""


def test_builds_loads_and_retrieves(tmp_path):
    nodes = [text_node("liver", "Hepatitis B raises the risk of liver cancer."),
             text_node("lung", "Smoking causes most lung cancer."),
             text_node("other", "Regular exercise helps.")]
    docstore = SimpleDocumentStore()
    docstore.add_documents(nodes)
    params = {{ cookiecutter.__class_name }}.Params()
    {{ cookiecutter.__class_name }}(params, ctx=None).build(nodes, tmp_path)   # ingest
    retriever = {{ cookiecutter.__class_name }}(params, ctx=None)              # query time: a fresh instance
    retriever.load(tmp_path, docstore)
    found = retriever.retrieve(Query("liver cancer risk"), top_k=5)
    assert [n.node.node_id for n in found] == ["liver", "lung"]  # best first; no zero scores
    assert found[0].score == pytest.approx(1.0)
    assert retriever.retrieve(Query("liver cancer risk"), top_k=1)[0].node.node_id == "liver"


def test_runs_in_a_pipeline(tmp_path):
    host = plugin_host({"{{ cookiecutter.plugin_slug }}": plugin})  # the fake plugin + this one
    answer = run_pipeline(PIPELINE_YAML, "Which test finds stomach cancer?", tmp_path, host)
    assert not answer.refused, answer.refusal_detail
    stage = answer.trace.stage("retrieve:{{ cookiecutter.component_name }}")
    assert stage is not None and 0 < stage.n_out <= 5
    assert answer.citations[0].doc_id == "gastric"


def test_a_bad_option_names_the_key(tmp_path):
    host = plugin_host({"{{ cookiecutter.plugin_slug }}": plugin})
    yaml_text = replaced(PIPELINE_YAML, "top_k: 5}", "top_k: 5, min_word_length: 0}")
    with pytest.raises(ConfigError, match="key 'min_word_length': Input should be greater than or equal to 1"):
        pipeline_from_yaml(yaml_text, tmp_path, host)
