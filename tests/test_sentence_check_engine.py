"""The meaning-aware check inside the engine: the built-in check of every pipeline, named in YAML
(`verifier: {name: meaning}`), beside the `lexical` check; the streaming gate asks it too; its
reasons reach the answer, the trace and the CLI. Every LLM is a loopback stub that writes exactly
the given answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from criss_rag.cli.main import build_cli
from criss_rag.engine import Engine
from criss_rag.plugins import PluginHost
from criss_rag.testing import pipeline_from_yaml
from criss_rag.testing.servers import OpenAIStubServer
from criss_rag.types import AnswerEvent, TokenEvent

CORPUS = [
    {"doc_id": "outlook", "title": "Bone tumour outlook",
     "text": "About 70% of patients with this bone tumour are alive five years after diagnosis. "
             "Chemotherapy is not usually given to older patients with this bone tumour."},
    {"doc_id": "outlook-ko", "title": "골종양 예후",
     "text": "이 골종양 환자의 약 70%는 진단 후 5년 동안 생존합니다. 고령 환자에게는 보통 항암 치료를 하지 않습니다."},
]
QUESTION = "What is the outlook for this bone tumour?"
FAITHFUL = "About 70% of patients with this bone tumour are alive five years after diagnosis."
CHANGED = "About 30% of patients with this bone tumour are alive five years after diagnosis."


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return PluginHost(strict=True)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("sentence-check")
    (root / "corpus.jsonl").write_text(
        "\n".join(json.dumps(d, ensure_ascii=False) for d in CORPUS) + "\n", encoding="utf-8"
    )
    return root


def config(workdir: Path, server: OpenAIStubServer, policy: str = "citations: attribute", verifier: str = "") -> str:
    llm = f'{{name: openai-compatible, model: small-local, api_base: "{server.base_url}", max_retries: 0}}'
    return (
        f"name: sentence-check-test\nindex: {{dir: {workdir / 'index'}}}\nloader: {{name: jsonl, path: corpus.jsonl}}\n"
        f"chunker: whole-document\nretrievers: [bm25]\ncontext: numbered\nllms:\n  gen: {llm}\n"
        f"generator: {{name: llm, llm: gen, {policy}}}\n" + (f"verifier: {verifier}\n" if verifier else "")
    )


def ask(workdir, host, reply, verifier="", policy="citations: attribute", question=QUESTION):
    with OpenAIStubServer(reply=reply) as server:
        engine = Engine.open(pipeline_from_yaml(config(workdir, server, policy, verifier), workdir, host),
                             build_if_missing=True)
        return engine.ask(question)


def test_the_built_in_check_reads_meaning_and_says_why(workdir, host):
    answer = ask(workdir, host, f"{FAITHFUL} {CHANGED}")
    assert not answer.refused and answer.text.startswith(FAITHFUL[:-1])
    (dropped,) = answer.dropped
    assert dropped.text == CHANGED and dropped.problems[0].kind == "number"
    assert dropped.why == "number: about 30% — evidence [1] says about 70%"
    cite = answer.trace.stage("cite").notes
    assert cite["verifier"] == "criss_rag (meaning)" and cite["dropped"][0]["why"] == dropped.why


def test_meaning_is_named_in_yaml_and_lexical_stays_available(workdir, host):
    named = ask(workdir, host, f"{FAITHFUL} {CHANGED}", verifier="{name: meaning, threshold: 0.45}")
    assert [d.text for d in named.dropped] == [CHANGED] and named.trace.stage("verify").component == "meaning"
    assert named.trace.stage("verify").notes["why"] == {"2": named.dropped[0].why}
    lexical = ask(workdir, host, f"{FAITHFUL} {CHANGED}", verifier="{name: lexical}")
    assert lexical.dropped == [] and [s.method for s in lexical.sentences] == ["lexical", "lexical"]  # words only


def test_a_refusal_with_mark_keeps_what_was_found(workdir, host):
    answer = ask(workdir, host, CHANGED, policy="citations: attribute, unsupported: mark")
    assert answer.refused and answer.refusal_reason == "unsupported_answer"
    assert [d.text for d in answer.dropped] == [CHANGED] and "number: about 30%" in answer.refusal_detail


def test_the_streaming_gate_asks_the_same_check(workdir, host):
    with OpenAIStubServer(reply=f"{FAITHFUL} {CHANGED} {FAITHFUL}") as server:
        engine = Engine.open(pipeline_from_yaml(config(workdir, server), workdir, host), build_if_missing=True)
        events = list(engine.ask_stream(QUESTION))
    streamed = "".join(e.text for e in events if isinstance(e, TokenEvent))
    answer = next(e.answer for e in events if isinstance(e, AnswerEvent))
    assert "30%" not in streamed and "70%" in streamed  # never shown, not even while streaming
    assert [d.text for d in answer.dropped] == [CHANGED] and answer.dropped[0].problems[0].kind == "number"


def test_korean_answers_are_checked_by_meaning(workdir, host):
    answer = ask(
        workdir,
        host,
        "이 골종양 환자의 약 70%는 진단 후 5년 동안 생존합니다. 고령 환자에게는 보통 항암 치료를 합니다.",
        question="이 골종양의 예후는 어떤가요?",
    )
    assert not answer.refused, answer.refusal_detail
    (dropped,) = answer.dropped
    assert dropped.problems[0].kind == "negation"


def test_the_cli_shows_why_a_sentence_was_not_shown(workdir, host):
    path = workdir / "cli.yaml"
    with OpenAIStubServer(reply=f"{FAITHFUL} {CHANGED}") as server:
        path.write_text(config(workdir, server), encoding="utf-8")
        result = CliRunner().invoke(build_cli(host), ["ask", str(path), QUESTION], obj={"host": host})
        as_json = CliRunner().invoke(build_cli(host), ["ask", str(path), QUESTION, "--json"], obj={"host": host})
    assert result.exit_code == 0, result.output
    assert "why: number: about 30% — evidence [1] says about 70%" in result.output
    assert json.loads(as_json.output)["dropped"][0]["problems"][0]["kind"] == "number"
