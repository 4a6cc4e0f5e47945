"""A model that says the evidence is insufficient (`model_declined`) gets the engine's fixed refusal
in the reader's language; what the model wrote goes to the trace marked unchecked and is never
streamed as answer text, not even before the decision."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from criss_rag.answering.refusal_messages import INSUFFICIENT_EVIDENCE
from criss_rag.cli.main import build_cli
from criss_rag.engine import Engine
from criss_rag.plugins import PluginHost
from criss_rag.testing import TINY_CORPUS, pipeline_from_yaml
from criss_rag.testing.servers import OpenAIStubServer
from criss_rag.types import AnswerEvent, TokenEvent

CORPUS = [
    *TINY_CORPUS,
    {
        "doc_id": "gastric-ja",
        "title": "胃がん",
        "text": "胃がんの治療は手術が中心です。早期の胃がんは内視鏡で切除することがあります。",
    },
    {"doc_id": "gastric-zh", "title": "胃癌", "text": "胃癌怎么治疗？胃癌的治疗以手术为主。早期胃癌可以通过内镜切除。"},
    {
        "doc_id": "liver-ko",
        "title": "간암",
        "text": "간암의 치료에는 수술과 간이식이 있습니다. B형 간염은 간암 위험을 높입니다.",
    },
]
#: the reply the issue saw: a decline followed by a wrong medical claim no sentence check ever read
JA_DECLINE = "根拠が不十分です 胃がんの治療法は、1回の食事量を減らして回数を増やすなどの工夫が必要になる。"
CASES = [
    ("胃がんの治療法は何ですか？", JA_DECLINE, "ja"),
    ("간암의 치료법은 무엇인가요?", "근거 부족. 간암은 식이요법만으로 완치됩니다.", "ko"),
    ("What raises the risk of liver cancer?", "Insufficient evidence. Liver cancer is caused by eating sugar.", "en"),
    ("胃癌怎么治疗？", "证据不足。胃癌只需要多喝水就能治好。", "zh"),
    # a decline further on, in an answer that cites nothing: everything before it was held too
    ("What raises the risk of liver cancer?", "Liver cancer is caused by eating sugar. There is not enough "
                                              "information in the sources.", "en"),
]


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return PluginHost(strict=True)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("declined")
    (root / "corpus.jsonl").write_text("\n".join(json.dumps(d, ensure_ascii=False) for d in CORPUS) + "\n",
                                       encoding="utf-8")
    return root


def config(workdir: Path, server: OpenAIStubServer, policies: str = "citations: attribute, unsupported: drop") -> str:
    """The generator settings of examples/local-llm.yaml, over a stub OpenAI-compatible server."""
    return (f"name: declined\nindex: {{dir: {workdir / 'index'}}}\nloader: {{name: jsonl, path: corpus.jsonl}}\n"
            "chunker: whole-document\nretrievers: [{name: bm25, analyzer: auto}]\ncontext: numbered\n"
            f'llms:\n  gen: {{name: openai-compatible, model: stub, api_base: "{server.base_url}", max_retries: 0}}\n'
            f"generator: {{name: llm, llm: gen, {policies}}}\n")


@pytest.mark.parametrize(("question", "reply", "language"), CASES)
@pytest.mark.parametrize("policies", ["citations: attribute, unsupported: drop", "unsupported: mark"])
def test_a_declined_answer_streams_nothing_and_shows_the_fixed_message(workdir, host, question, reply, language,
                                                                        policies):
    with OpenAIStubServer(reply=reply) as server:
        engine = Engine.open(
            pipeline_from_yaml(config(workdir, server, policies), workdir, host), build_if_missing=True
        )
        events = list(engine.ask_stream(question))
    assert [e for e in events if isinstance(e, TokenEvent)] == []
    answer = events[-1].answer
    assert isinstance(events[-1], AnswerEvent) and answer.refused and answer.refusal_reason == "model_declined"
    assert answer.text == INSUFFICIENT_EVIDENCE[language]
    notes = answer.trace.stage("generate").notes
    assert notes["declined_text"]["text"] == reply and notes["declined_text"]["checked"] is False
    assert reply.split()[-1] not in answer.text + answer.refusal_detail  # the model's claim is nowhere but the trace


def test_not_streamed_also_shows_only_the_fixed_message(workdir, host):
    with OpenAIStubServer(reply=JA_DECLINE) as server:
        engine = Engine.open(pipeline_from_yaml(config(workdir, server), workdir, host), build_if_missing=True)
        answer = engine.ask("胃がんの治療法は何ですか？")
    assert answer.refused and answer.text == INSUFFICIENT_EVIDENCE["ja"]
    assert "食事量" not in answer.model_dump_json().split('"trace"')[0]  # only the trace holds the model's words


def test_an_answer_that_cites_streams_once_it_can_no_longer_decline(workdir, host):
    reply = "Hepatitis B infection raises the risk of liver cancer [1]. Liver cancer is linked to hepatitis B [1]."
    with OpenAIStubServer(reply=reply) as server:
        engine = Engine.open(pipeline_from_yaml(config(workdir, server, "unsupported: mark"), workdir, host),
                             build_if_missing=True)
        events = list(engine.ask_stream("What raises the risk of liver cancer?"))
    tokens = [e.text for e in events if isinstance(e, TokenEvent)]
    assert len(tokens) > 2 and "".join(tokens) == reply and not events[-1].answer.refused


def test_cli_ask_stream_prints_the_fixed_refusal_and_trace_marks_the_model_text_unchecked(workdir, host):
    path = workdir / "declined.yaml"
    with OpenAIStubServer(reply=JA_DECLINE) as server:
        path.write_text(config(workdir, server), encoding="utf-8")
        result = CliRunner().invoke(
            build_cli(host), ["ask", str(path), "胃がんの治療法は何ですか？", "--stream", "--trace"], obj={"host": host}
        )
    assert result.exit_code == 0, result.output
    head, trace = result.output.split("trace (stage", 1)
    assert "食事量" not in head
    assert f"REFUSED (model_declined): {INSUFFICIENT_EVIDENCE['ja']}" in head
    assert "! the model declined; what it wrote (unchecked, never shown as the answer): 根拠が不十分です" in trace
