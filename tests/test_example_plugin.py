"""The example third-party plugin examples/criss-rag-example-plugin: the `pii-redact` filter.

Installed by `make test` (``-e examples/criss-rag-example-plugin``) and found through its entry
point ``pii`` like any plugin. Pattern tests (true positives, and ordinary numbers that must stay),
the filter's params and its copy-not-mutate contract, and a pipeline from YAML whose answer cites
redacted evidence.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner
from llama_index.core.schema import NodeWithScore

import criss_rag_pii.plugin as pii_plugin
from criss_rag.cli.main import build_cli
from criss_rag.errors import ConfigError, DataError
from criss_rag.plugins import PluginHost
from criss_rag.testing import pipeline_from_yaml, plugin_host, replaced, run_pipeline
from criss_rag.types import Hit, Query, text_node
from criss_rag_pii import KINDS, SIGNAL, PiiRedact, Redactor

ROOT = Path(__file__).resolve().parents[1]
PLUGIN_DIR = ROOT / "examples" / "criss-rag-example-plugin"


def redact(text: str, **params) -> str:
    return PiiRedact(PiiRedact.Params(**params), ctx=None).redact(text).text


def hit(node_id: str, text: str, score: float = 1.0, **metadata) -> Hit:
    return Hit(NodeWithScore(node=text_node(node_id, text, **metadata), score=score), {"fake-keyword": score})


# -- each kind: true positives ---------------------------------------------------------------------

EMAILS = [
    ("Contact: jane.doe+onc@hospital.org.", "Contact: [EMAIL]."),
    ("이메일 hong_gildong@naver.com으로 보내세요", "이메일 [EMAIL]으로 보내세요"),
    ("メール：ｔａｒｏ＠ｅｘａｍｐｌｅ．ｊｐまで", "メール：[EMAIL]まで"),
    ("Two: a.b@x-y.co.kr, c@d.io", "Two: [EMAIL], [EMAIL]"),
]
PHONES = [
    ("Call +82-10-1234-5678 today", "Call [PHONE] today"),
    ("Seoul +82 2 2072 2114", "Seoul [PHONE]"),
    ("Tokyo +81 (0)3-1234-5678.", "Tokyo [PHONE]."),
    ("London +44 20 7946 0958", "London [PHONE]"),
    ("Paris +33 1 42 68 53 00", "Paris [PHONE]"),
    ("010-1234-5678로 연락하세요", "[PHONE]로 연락하세요"),
    ("휴대폰 010 1234 5678", "휴대폰 [PHONE]"),
    ("휴대폰 01012345678", "휴대폰 [PHONE]"),
    ("대표 02-2072-2114, 경기 031-920-0114", "대표 [PHONE], 경기 [PHONE]"),
    ("(02) 2072-2114", "[PHONE]"),
    ("電話03-1234-5678まで", "電話[PHONE]まで"),
    ("携帯 090-1234-5678", "携帯 [PHONE]"),
    ("携帯 09012345678", "携帯 [PHONE]"),
    ("藤沢 0466-12-3456", "藤沢 [PHONE]"),
    ("フリーダイヤル 0120-123-456", "フリーダイヤル [PHONE]"),
    ("電話：０３－１２３４－５６７８", "電話：[PHONE]"),
    ("US (555) 123-4567 or 555-123-4567 or 555.123.4567", "US [PHONE] or [PHONE] or [PHONE]"),
    ("NCI 1-800-422-6237", "NCI [PHONE]"),
]
RRNS = [
    ("주민등록번호: 900101-1234567", "주민등록번호: [RRN]"),
    ("주민등록번호는 900101-1234567이고", "주민등록번호는 [RRN]이고"),
    ("주민번호 9001011234567", "주민번호 [RRN]"),
    ("RRN 850315-2******.", "RRN [RRN]."),
    ("환자 950505-2345678 입원", "환자 [RRN] 입원"),
    ("foreign resident 010101-5234567", "foreign resident [RRN]"),
]
MY_NUMBERS = [
    ("マイナンバー：1234 5678 9012", "マイナンバー：[MY_NUMBER]"),
    ("マイナンバー 1234-5678-9012", "マイナンバー [MY_NUMBER]"),
    ("個人番号は123456789012です", "個人番号は[MY_NUMBER]です"),
    ("My Number: 1234 5678 9012", "My Number: [MY_NUMBER]"),
    ("マイナンバー：１２３４　５６７８　９０１２", "マイナンバー：[MY_NUMBER]"),
]
SSNS = [
    ("SSN 123-45-6789", "SSN [SSN]"),
    ("patient 078-05-1120 admitted", "patient [SSN] admitted"),
    ("SSN: 123456789", "SSN: [SSN]"),
    ("social security number is 078051120", "social security number is [SSN]"),
]
DOBS = [
    ("Date of birth: 12/05/1950", "Date of birth: [DOB]"),
    ("DOB 1950-12-05", "DOB [DOB]"),
    ("D.O.B.: 5 March 1948", "D.O.B.: [DOB]"),
    ("born on 3rd March 1948", "born on [DOB]"),
    ("birth date March 2, 1985", "birth date [DOB]"),
    ("생년월일: 1985년 3월 2일", "생년월일: [DOB]"),
    ("생년월일: 19850302", "생년월일: [DOB]"),
    ("생일은 1985.03.02", "생일은 [DOB]"),
    ("誕生日：1985年3月2日", "誕生日：[DOB]"),
    ("生年月日：昭和45年1月5日", "生年月日：[DOB]"),
]
POSITIVES = {"email": EMAILS, "phone": PHONES, "rrn": RRNS, "my_number": MY_NUMBERS, "ssn": SSNS, "dob": DOBS}


@pytest.mark.parametrize("kind, text, expected",
                         [(kind, text, expected) for kind, cases in POSITIVES.items() for text, expected in cases])
def test_each_kind_is_replaced_by_its_placeholder(kind, text, expected):
    assert redact(text) == expected
    # the kind alone is enough (the other kinds play no part in it)
    assert redact(text, kinds=[kind]) == expected


def test_every_kind_has_true_positive_tests():
    assert set(POSITIVES) == set(KINDS)


# -- ordinary numbers stay ------------------------------------------------------------------------

NEGATIVES = [
    "Stage T2N0M0; pT1cN0(sn)M0 G2; pT2 N1a M0, stage IIIA.",
    "Give 500 mg twice daily, 5-10 mg/kg, 1,000 mg/m2 on days 1-14, 0.5 mL.",
    "The 2010-2015 cohort had 5-year survival of 62.3% (1990-2020 data, published 2019).",
    "Registered 2019-03-15 to 2021-12-31; visit on 12-05-2019 at 09:00-18:00.",
    "ICD-10 C22.0, ICD-O-3 8500/3, KRAS G12C, Ki-67 30%, PD-L1 TPS 50%, ER 95%.",
    "Gleason 3+4=7, PSA 4.0 ng/mL, tumour grew +2.5 cm, HbA1c +0.5.",
    "PMID 31562799, NCT01234567, doi:10.1016/j.jtho.2020.01.001, ISBN 978-4-260-03846-1.",
    "〒104-0045 東京都中央区築地5-1-1; 서울 종로구 대학로 101 (우: 03080); 1,500,000원.",
    "A 12-digit number 123456789012 and a 13-digit 9001011234567 without a label.",
    "Patients born in 1948, or born 1950-1960; dates alone: 1985-03-02, March 2, 1985.",
    "No month 13: 901301-1234567; never-issued numbers: 900-12-3456, 000-12-3456.",
    "Service number 1588-1234; mail a@b or user@localhost; see www.cancer.gov/about.",
    "Aged 40-69 years: 1,234 of 5,678; version 0.14.25.",
]


@pytest.mark.parametrize("text", NEGATIVES)
def test_ordinary_numbers_codes_and_dosages_are_kept(text):
    assert redact(text) == text


# -- params ---------------------------------------------------------------------------------------

MIXED = "Mail kim@example.org, call 010-1234-5678, SSN 123-45-6789."


def test_kinds_selects_what_is_redacted():
    assert redact(MIXED, kinds=["email"]) == "Mail [EMAIL], call 010-1234-5678, SSN 123-45-6789."
    assert redact(MIXED, kinds=["phone", "ssn"]) == "Mail kim@example.org, call [PHONE], SSN [SSN]."
    assert redact(MIXED, kinds=[]) == MIXED


def test_the_placeholder_format():
    assert redact(MIXED, placeholder="<{kind}>") == "Mail <EMAIL>, call <PHONE>, SSN <SSN>."
    assert redact(MIXED, placeholder="█") == "Mail █, call █, SSN █."
    assert redact(MIXED, placeholder="{{{kind}}}") == "Mail {EMAIL}, call {PHONE}, SSN {SSN}."


def test_extra_patterns_come_first_and_keep_their_label():
    params = {"extra_patterns": {"MRN": r"MRN[: ]*(?P<value>\d{6,12})", "ward": r"Ward [A-Z]\d"}}
    text = "MRN: 09012345678, Ward B3, call 010-1234-5678."
    # without the MRN pattern the record number would be read as a phone number
    assert redact(text) == "MRN: [PHONE], Ward B3, call [PHONE]."
    assert redact(text, **params) == "MRN: [MRN], [WARD], call [PHONE]."


def test_counts_per_kind():
    result = PiiRedact(PiiRedact.Params(), ctx=None).redact(MIXED + " Also 02-123-4567.")
    assert dict(result.counts) == {"email": 1, "phone": 2, "ssn": 1}
    assert result.total == 4


def test_the_redactor_rejects_an_unknown_kind():
    with pytest.raises(ValueError, match="unknown kinds \\['fax'\\]"):
        Redactor(kinds=["email", "fax"])


@pytest.mark.parametrize("option, message", [
    ("kinds: [email, fax]", "key 'kinds.1': Input should be 'email', 'phone', 'rrn', 'my_number', 'ssn' or 'dob'"),
    ('placeholder: "[{type}]"', "key 'placeholder': Value error, unknown field {type}"),
    ('placeholder: "[{kind]"', "key 'placeholder': Value error"),
    ('extra_patterns: {MRN: "(\\\\d+"}',
     "key 'extra_patterns': Value error, pattern 'MRN' is not a valid regular expression"),
    ('extra_patterns: {MRN: "x*"}', "key 'extra_patterns': Value error, pattern 'MRN' matches the empty string"),
    ('extra_patterns: {"my mrn": "x"}', "key 'extra_patterns': Value error, pattern name 'my mrn' must be"),
    ("kind: [email]", "key 'kind': unknown key. Valid keys: extra_patterns, kinds, metadata_keys, placeholder"),
])
def test_a_bad_option_is_a_config_error_naming_the_key(tmp_path, option, message):
    yaml_text = replaced(PIPELINE_YAML, "filters: [{name: pii-redact}]", f"filters: [{{name: pii-redact, {option}}}]")
    assert yaml_text != PIPELINE_YAML
    with pytest.raises(ConfigError, match="stage filters\\[0\\], filter 'pii-redact', ") as error:
        pipeline_from_yaml(yaml_text, tmp_path, plugin_host({"pii": pii_plugin}))
    assert message in str(error.value)


# -- the filter: new hits, shared nodes untouched ----------------------------------------------------


def test_apply_returns_redacted_copies_and_leaves_the_shared_nodes_alone():
    original = "Nurse Kim: 010-1234-5678, kim@hospital.example.org. Liver clinic."
    hits = [hit("clinic#0", original, 0.8, title="Clinic"), hit("lung#0", "Lung cancer is linked to smoking.", 0.5)]
    nodes = [h.node.node for h in hits]
    out = PiiRedact(PiiRedact.Params(), ctx=None).apply(Query("nurse"), hits)
    assert [h.node_id for h in out] == ["clinic#0", "lung#0"]  # nothing dropped, order kept
    assert out[0].text == "Nurse Kim: [PHONE], [EMAIL]. Liver clinic."
    assert out[0].signals == {"fake-keyword": 0.8, SIGNAL: 2.0}
    assert out[1].signals == {"fake-keyword": 0.5, SIGNAL: 0.0}
    assert [h.score for h in out] == [0.8, 0.5]
    assert out[0].metadata == {"doc_id": "clinic#0", "title": "Clinic"} and out[0].doc_id == "clinic#0"
    # the retrieved nodes (shared with the docstore) and the input hits are unchanged
    assert nodes[0].text == original and hits[0].text == original
    assert SIGNAL not in hits[0].signals
    assert out[0].node.node is not nodes[0] and out[1].node.node is not nodes[1]


def test_metadata_keys_are_redacted_in_the_copy_only():
    source = hit("case#0", "A case report.", title="Case of Mr Lee, DOB 1950-12-05")
    [out] = PiiRedact(PiiRedact.Params(metadata_keys=["title", "missing"]), ctx=None).apply(Query("q"), [source])
    assert out.metadata["title"] == "Case of Mr Lee, DOB [DOB]"
    assert out.signals[SIGNAL] == 1.0
    assert source.metadata["title"] == "Case of Mr Lee, DOB 1950-12-05"


# -- end to end: a pipeline from YAML -------------------------------------------------------------------

PIPELINE_YAML = """\
name: pii-e2e
loader:
  name: fake-loader
  documents:
    - doc_id: clinic
      title: Liver cancer clinic
      text: >-
        Liver cancer patients can call nurse Kim at 010-1234-5678 or write to kim.nurse@hospital.example.org.
        The liver cancer clinic is open on weekdays.
    - doc_id: case
      title: Case report
      text: >-
        Liver cancer case: the patient (RRN 650812-1234567, DOB 1965-08-12, SSN 078-05-1120) had hepatitis B.
    - {doc_id: lung, title: Lung cancer, text: Lung cancer is linked to smoking.}
chunker: {name: fake-chunker}
retrievers: [{name: fake-keyword, top_k: 5}]
filters: [{name: pii-redact}]
refusal: {name: fake-min-score, min_score: 1}
context: {name: fake-all}
generator: {name: fake-echo}
"""
SECRETS = ["010-1234-5678", "kim.nurse@hospital.example.org", "650812-1234567", "1965-08-12", "078-05-1120"]


def test_the_answer_and_its_citations_carry_redacted_text(tmp_path):
    host = plugin_host({"pii": pii_plugin})  # the fake plugin + this one
    answer = run_pipeline(PIPELINE_YAML, "How can liver cancer patients call the nurse?", tmp_path, host)
    assert not answer.refused, answer.refusal_detail
    assert answer.citations[0].doc_id == "clinic"
    assert answer.citations[0].text == "Liver cancer patients can call nurse Kim at [PHONE] or write to [EMAIL]."
    assert answer.text.startswith("Liver cancer patients can call nurse Kim at [PHONE]")
    stage = answer.trace.stage("filter:pii-redact")
    assert stage is not None and stage.n_in == stage.n_out > 0  # nothing dropped
    dumped = answer.model_dump_json()
    assert not [s for s in SECRETS if s in dumped]


def test_every_kind_is_redacted_through_the_pipeline_and_the_index_keeps_the_original(tmp_path):
    host = plugin_host({"pii": pii_plugin})
    question = "What did the liver cancer case patient have?"
    answer = run_pipeline(PIPELINE_YAML, question, tmp_path, host)
    assert answer.citations[0].text == (
        "Liver cancer case: the patient (RRN [RRN], DOB [DOB], SSN [SSN]) had hepatitis B.")
    # the same index without the filter: the original text is still there (redaction is at question
    # time, and the docstore was not changed by the run above)
    plain = run_pipeline(replaced(PIPELINE_YAML, "filters: [{name: pii-redact}]\n", ""), question, tmp_path, host)
    assert plain.trace.index_key == answer.trace.index_key
    assert "650812-1234567" in plain.citations[0].text


# -- installed like any third-party plugin -------------------------------------------------------------


def test_the_plugin_is_found_through_its_entry_point():
    host = PluginHost(strict=True, only=["pii"])
    info = host.plugins["pii"]
    assert info.components == {"filter": ["pii-redact"]}
    assert info.distribution == "criss-rag-example-plugin"
    assert host.registry.get("filter", "pii-redact").summary.startswith("Redacts personal data")


def test_examples_pii_yaml_validates_and_is_the_default_pipeline_plus_the_filter():
    config = ROOT / "examples" / "pii.yaml"
    result = CliRunner().invoke(build_cli(PluginHost(strict=True)), ["validate", str(config)])
    assert result.exit_code == 0, result.output
    assert "ok:" in result.output and "'pii'" in result.output
    default = yaml.safe_load((ROOT / "examples" / "default.yaml").read_text(encoding="utf-8"))
    pii = yaml.safe_load(config.read_text(encoding="utf-8"))
    assert pii.pop("filters") == [{"name": "pii-redact"}]
    for key in ("name", "description"):
        pii.pop(key), default.pop(key)
    assert "filters" not in default
    assert pii == default, "examples/pii.yaml should be examples/default.yaml plus `filters: [pii-redact]`"


def test_the_plugins_own_tests_pass():
    env = {k: v for k, v in os.environ.items() if k != "CRISS_RAG_LOAD_PLUGINS"}
    env["CRISS_RAG_STRICT_PLUGINS"] = "1"
    result = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(PLUGIN_DIR / "tests")],
                            cwd=PLUGIN_DIR, env=env, capture_output=True, text=True, timeout=180, check=False)
    assert result.returncode == 0, result.stdout + result.stderr
    assert " passed" in result.stdout and " failed" not in result.stdout


def test_the_readme_example_runs():
    readme = (PLUGIN_DIR / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", readme, flags=re.MULTILINE | re.DOTALL)
    assert blocks
    for code in blocks:
        exec(compile(code, "examples/criss-rag-example-plugin/README.md", "exec"), {"__name__": "readme"})
    assert "- {name: pii-redact}" in readme and "criss-rag validate examples/pii.yaml" in readme


def test_a_node_without_text_is_a_clear_error():
    class Opaque:
        """Stands for a node type that is not a TextNode (e.g. from another plugin's retriever)."""

        node_id = "o1"
        metadata: dict = {}

        def get_content(self, metadata_mode=None):
            return "call 010-1234-5678"

    candidate = Hit(NodeWithScore.model_construct(node=Opaque(), score=1.0))
    with pytest.raises(DataError, match="can only redact text nodes, but candidate 'o1' is of type Opaque"):
        PiiRedact(PiiRedact.Params(), ctx=None).apply(Query("q"), [candidate])
