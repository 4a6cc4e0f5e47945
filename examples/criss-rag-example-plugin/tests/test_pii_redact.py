"""Tests of the pii-redact filter, written with criss_rag.testing as a plugin author would.

Run: ``pip install -e '.[test]' && CRISS_RAG_STRICT_PLUGINS=1 python -m pytest -q``.
"""

import pytest
from llama_index.core.schema import NodeWithScore

import criss_rag_pii.plugin as plugin
from criss_rag import PluginHost
from criss_rag.errors import ConfigError
from criss_rag.testing import pipeline_from_yaml, plugin_host, replaced, run_pipeline
from criss_rag.types import Hit, Query, text_node
from criss_rag_pii import PiiRedact

PIPELINE_YAML = """\
name: pii-test
loader:
  name: fake-loader
  documents:
    - doc_id: clinic
      title: Liver cancer clinic
      text: >-
        Liver cancer patients can call nurse Kim at 010-1234-5678 or write to kim@hospital.example.org.
        The liver cancer clinic is open on weekdays.
    - {doc_id: lung, title: Lung cancer, text: Lung cancer is linked to smoking.}
chunker: {name: fake-chunker}
retrievers: [{name: fake-keyword, top_k: 5}]
filters: [{name: pii-redact}]
refusal: {name: fake-min-score, min_score: 1}
context: {name: fake-all}
generator: {name: fake-echo}
"""


def redact(text, **params):
    return PiiRedact(PiiRedact.Params(**params), ctx=None).redact(text).text


@pytest.mark.parametrize("text, expected", [
    ("Write to jane.doe@example.org.", "Write to [EMAIL]."),
    ("010-1234-5678로 연락하세요", "[PHONE]로 연락하세요"),
    ("電話 03-1234-5678 まで", "電話 [PHONE] まで"),
    ("Call +82 2 2072 2114", "Call [PHONE]"),
    ("주민등록번호: 900101-1234567", "주민등록번호: [RRN]"),
    ("マイナンバー：1234 5678 9012", "マイナンバー：[MY_NUMBER]"),
    ("SSN 123-45-6789", "SSN [SSN]"),
    ("Date of birth: 1950-12-05", "Date of birth: [DOB]"),
])
def test_personal_data_is_replaced_by_a_typed_placeholder(text, expected):
    assert redact(text) == expected


@pytest.mark.parametrize("text", [
    "Stage T2N0M0, 5-10 mg/kg, 500 mg twice daily, 2010-2015 cohort.",
    "Survival was 62.3% in 2019; ICD-10 C22.0.",
    "A 12-digit number 123456789012 with no label stays.",
])
def test_ordinary_numbers_are_kept(text):
    assert redact(text) == text


def test_a_copy_is_returned_and_the_shared_node_is_untouched():
    node = text_node("c#0", "Call 010-1234-5678 or 02-123-4567.")
    hit = Hit(NodeWithScore(node=node, score=0.7), {"bm25": 3.0})
    [out] = PiiRedact(PiiRedact.Params(), ctx=None).apply(Query("q"), [hit])
    assert out.text == "Call [PHONE] or [PHONE]."
    assert out.signals == {"bm25": 3.0, "pii-redactions": 2.0}
    assert out.score == 0.7
    assert node.text == "Call 010-1234-5678 or 02-123-4567." and out.node.node is not node


def test_the_answer_cites_redacted_evidence(tmp_path):
    host = plugin_host({"pii": plugin})  # the fake plugin + this one
    answer = run_pipeline(PIPELINE_YAML, "How can liver cancer patients call the nurse?", tmp_path, host)
    assert not answer.refused, answer.refusal_detail
    cited = answer.citations[0].text
    assert "[PHONE]" in cited and "[EMAIL]" in cited
    assert "010-1234-5678" not in answer.model_dump_json()


def test_a_bad_option_names_the_key(tmp_path):
    host = plugin_host({"pii": plugin})
    yaml_text = replaced(PIPELINE_YAML, "{name: pii-redact}", "{name: pii-redact, kinds: [email, fax]}")
    with pytest.raises(ConfigError, match="key 'kinds.1'"):
        pipeline_from_yaml(yaml_text, tmp_path, host)


def test_the_plugin_is_found_through_its_entry_point():
    host = PluginHost(strict=True, only=["pii"])
    assert host.plugins["pii"].components == {"filter": ["pii-redact"]}
    assert host.plugins["pii"].distribution == "criss-rag-example-plugin"
