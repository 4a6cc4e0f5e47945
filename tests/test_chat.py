"""Multi-turn chat (:mod:`criss_rag.answering.chat`): condensing follow-ups (offline heuristic and LLM),
token-bounded memory, citations every turn, streaming, saving and resuming, ``criss-rag chat``.

LLMs are real LlamaIndex clients against the loopback stub servers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from criss_rag.answering.chat import ChatSession, condense_offline, find_topic, read_session
from criss_rag.cli.main import build_cli
from criss_rag.engine import Engine
from criss_rag.errors import ConfigError, DataError
from criss_rag.plugins import PluginHost
from criss_rag.testing import TINY_CORPUS, pipeline_from_yaml, replaced
from criss_rag.testing.servers import OpenAIStubServer, RecordedRequest
from criss_rag.types import AnswerEvent, TokenEvent

CORPUS = [
    *TINY_CORPUS,
    {"doc_id": "liver-treat", "title": "Liver cancer treatment",
     "text": "Liver cancer is treated with surgery, ablation or a liver transplant."},
    {"doc_id": "liver-ko", "title": "간암 치료", "text": "간암은 수술, 고주파 열치료, 간이식으로 치료합니다."},
    {"doc_id": "liver-ja", "title": "肝臓がんの治療", "text": "肝臓がんの治療には手術やラジオ波焼灼療法があります。"},
]


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return PluginHost(strict=True)


def make_workdir(root: Path) -> Path:
    (root / "corpus.jsonl").write_text(
        "\n".join(json.dumps(d, ensure_ascii=False) for d in CORPUS) + "\n", encoding="utf-8"
    )
    return root


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    return make_workdir(tmp_path_factory.mktemp("chat"))


def config(workdir: Path, generator: str = "extractive", llms: str = "", chat: str = "") -> str:
    return (f"name: chat-test\nindex: {{dir: {workdir / 'index'}}}\nloader: {{name: jsonl, path: corpus.jsonl}}\n"
            f"chunker: whole-document\nretrievers: [bm25]\ncontext: numbered\ngenerator: {generator}\n"
            f"{llms}{chat}")


def engine_for(workdir: Path, host: PluginHost, yaml_text: str) -> Engine:
    return Engine.open(pipeline_from_yaml(yaml_text, workdir, host), build_if_missing=True)


def stub_llms(server: OpenAIStubServer) -> str:
    return f'llms:\n  gen: {{name: openai-compatible, model: stub, api_base: "{server.base_url}", max_retries: 0}}\n'


# -- the offline heuristic ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("earlier", "follow_up", "expected"), [
    ("How is liver cancer diagnosed?", "And how is it treated?", "How is liver cancer treated?"),
    ("What causes small cell lung cancer?", "Is it hereditary?", "Is small cell lung cancer hereditary?"),
    ("How is liver cancer diagnosed?", "And the treatment?", "The treatment for liver cancer?"),
    ("How is liver cancer diagnosed?", "What about stomach cancer?", "How is stomach cancer diagnosed?"),
    ("간암은 어떻게 진단하나요?", "그럼 치료는 어떻게 하나요?", "간암 치료는 어떻게 하나요?"),
    ("간암은 어떻게 진단하나요?", "위암은요?", "위암은 어떻게 진단하나요?"),
    ("肝臓がんはどのように診断しますか？", "では、治療法は？", "肝臓がんについて、治療法は？"),
    ("肝臓がんはどのように診断しますか？", "それは遺伝しますか？", "肝臓がんは遺伝しますか？"),
    ("肝癌如何诊断？", "那怎么治疗？", "关于肝癌，怎么治疗？"),
])
def test_heuristic_names_the_cancer_of_the_earlier_turn(earlier, follow_up, expected):
    question, topic = condense_offline(follow_up, [earlier])
    assert question == expected
    assert topic is not None and topic in question


@pytest.mark.parametrize("message", [
    "What are the symptoms of Akesson syndrome?",   # a new question: no cue that it refers back
    "How is breast cancer screened?",               # names its own cancer
    "What is the best way to treat a sprained ankle at home?",
])
def test_heuristic_leaves_standalone_questions_alone(message):
    assert condense_offline(message, ["How is liver cancer diagnosed?"]) == (message, None)


def test_find_topic_in_four_languages():
    assert find_topic("What is (are) Adult Acute Lymphoblastic Leukemia ?") == "Adult Acute Lymphoblastic Leukemia"
    assert find_topic("Who is at risk for Childhood Craniopharyngioma?") == "Childhood Craniopharyngioma"
    assert find_topic("비소세포폐암과 소세포폐암은 어떻게 다른가요?") == "비소세포폐암"
    assert find_topic("肺がんの症状は？") == "肺がん"
    assert find_topic("胃癌怎么治疗？") == "胃癌"
    assert find_topic("How do I replace the battery in my car?") is None


# -- a session ---------------------------------------------------------------------------------------------


def test_session_condenses_follow_ups_and_cites_every_turn(workdir, host):
    session = ChatSession(engine_for(workdir, host, config(workdir)))
    first = session.ask("How is liver cancer diagnosed?")
    second = session.ask("And how is it treated?")
    assert first.citations and second.citations
    assert second.question == "How is liver cancer treated?"
    assert second.citations[0].doc_id == "liver-treat"
    stage = second.trace.stages[0]
    assert stage.stage == "condense" and stage.component == "heuristic"
    assert stage.notes == {"message": "And how is it treated?", "question": "How is liver cancer treated?",
                           "topic": "liver cancer"}
    assert first.trace.stages[0].component == "none"  # nothing to condense in a first turn
    assert [e.question for e in session.exchanges] == ["How is liver cancer diagnosed?", "How is liver cancer treated?"]


def test_korean_and_japanese_follow_ups_retrieve_the_earlier_cancer(workdir, host):
    session = ChatSession(engine_for(workdir, host, config(workdir)))
    session.ask("간암은 무엇인가요?")
    answer = session.ask("그럼 치료는 어떻게 하나요?")
    assert answer.question == "간암 치료는 어떻게 하나요?" and answer.citations[0].doc_id == "liver-ko"
    session = ChatSession(engine_for(workdir, host, config(workdir)))
    session.ask("肝臓がんとは何ですか？")
    answer = session.ask("では、治療は？")
    assert answer.question == "肝臓がんについて、治療は？" and answer.citations[0].doc_id == "liver-ja"


def test_condensing_with_the_llm_the_config_names(workdir, host):
    def reply(request: RecordedRequest) -> str:
        if "Rewrite the follow-up message" in request.prompt:
            return "Standalone question: How is liver cancer treated?"
        return "Liver cancer is treated with surgery, ablation or a liver transplant [1]."

    with OpenAIStubServer(reply=reply) as server:
        yaml_text = config(workdir, "{name: llm, llm: gen}", stub_llms(server), "chat: {condense_llm: gen}\n")
        session = ChatSession(engine_for(workdir, host, yaml_text))
        session.ask("How is liver cancer diagnosed?")
        answer = session.ask("and how is it treated?")
        condense = [r for r in server.requests if "Rewrite the follow-up message" in r.prompt]
        generation = [r for r in server.requests if "Rewrite the follow-up message" not in r.prompt]
    assert len(condense) == 1  # only for the follow-up
    assert "User: How is liver cancer diagnosed?" in condense[0].prompt
    assert "Follow-up message: and how is it treated?" in condense[0].prompt
    assert answer.question == "How is liver cancer treated?"
    assert answer.trace.stages[0].component == "llms.gen"
    assert answer.citations[0].doc_id == "liver-treat"
    # the generator got the earlier turn as history, and the standalone question last
    messages = generation[-1].body["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[1]["content"] == "How is liver cancer diagnosed?"
    assert messages[-1]["content"].endswith("Question: How is liver cancer treated?")


def test_chat_settings_are_validated(workdir, host):
    with pytest.raises(ConfigError, match="chat.condense_llm names the LLM 'nope', but `llms:` names only: \\(none\\)"):
        pipeline_from_yaml(config(workdir, chat="chat: {condense_llm: nope}\n"), workdir, host)
    with pytest.raises(
        ConfigError, match="chat, key 'memory': Extra inputs are not permitted. Valid keys: condense_llm"
    ):
        pipeline_from_yaml(config(workdir, chat="chat: {memory: 3}\n"), workdir, host)
    plan = pipeline_from_yaml(config(workdir, chat="chat: {memory_tokens: 64}\n"), workdir, host).config.plan()
    assert plan["chat"]["memory_tokens"] == 64 and plan["chat"]["condense_llm"] is None
    assert "chat" not in pipeline_from_yaml(config(workdir), workdir, host).config.plan()  # hashes stay as they were


def test_memory_is_bounded_by_tokens(workdir, host):
    engine = engine_for(workdir, host, config(workdir, chat="chat: {memory_tokens: 120}\n"))
    session = ChatSession(engine)
    for question in (
        "How is liver cancer diagnosed?",
        "How is lung cancer diagnosed?",
        "How is breast cancer screened?",
    ):
        session.ask(question)
    history = session.history()
    assert 0 < len(history) < 6 and len(history) % 2 == 0
    assert history[-2].text == "How is breast cancer screened?"  # the newest turns are kept
    from llama_index.core.utils import get_tokenizer

    assert sum(len(get_tokenizer()(t.text)) for t in history) <= 120
    roomy = ChatSession(engine, exchanges=session.exchanges)
    roomy.settings = roomy.settings.model_copy(update={"memory_tokens": 100_000})
    assert len(roomy.history()) == 6


def test_save_and_resume(workdir, host, tmp_path):
    engine = engine_for(workdir, host, config(workdir))
    session = ChatSession(engine)
    session.ask("How is liver cancer diagnosed?")
    path = session.save(tmp_path / "sessions" / "s.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["format"] == "criss_rag.chat/1" and data["pipeline"] == "chat-test"
    assert data["exchanges"][0]["answer"]["citations"]

    resumed = ChatSession.load(path, engine_for(workdir, host, config(workdir)))
    assert [e.question for e in resumed.exchanges] == ["How is liver cancer diagnosed?"]
    answer = resumed.ask("And how is it treated?")  # the topic comes from the saved turn
    assert answer.question == "How is liver cancer treated?" and answer.citations
    resumed.save(path)
    assert len(read_session(path).exchanges) == 2


@pytest.mark.parametrize(("content", "message"), [
    ("not json", "not a chat session file (invalid JSON"),
    ('{"format": "something-else"}', 'expected "format": "criss_rag.chat/1"'),
    ('{"format": "criss_rag.chat/1", "exchanges": [{"message": "x"}]}', "damaged chat session file"),
])
def test_bad_session_files_say_so(tmp_path, content, message):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(DataError, match=message.replace("(", "\\(").replace('"', '"')):
        read_session(path)


def test_streaming_a_follow_up(workdir, host):
    reply = "Liver cancer is treated with surgery, ablation or a liver transplant [1]."
    with OpenAIStubServer(reply=reply) as server:
        session = ChatSession(engine_for(workdir, host, config(workdir, "{name: llm, llm: gen}", stub_llms(server))))
        session.ask("How is liver cancer diagnosed?")
        events = list(session.ask_stream("And how is it treated?"))
        assert server.requests[-1].body["stream"] is True
    assert "".join(e.text for e in events if isinstance(e, TokenEvent)) == reply
    answer = events[-1].answer
    assert isinstance(events[-1], AnswerEvent) and answer.question == "How is liver cancer treated?"
    assert answer.trace.stages[0].stage == "condense" and answer.citations[0].doc_id == "liver-treat"
    assert all(s.supported for s in answer.sentences)
    assert len(session.exchanges) == 2


# -- the command -----------------------------------------------------------------------------------------


def built(host: PluginHost, path: Path) -> Path:
    """``criss-rag ingest PATH`` first: each command test builds the index it answers from, so it
    passes alone and in any order."""
    result = CliRunner().invoke(build_cli(host), ["ingest", str(path)], obj={"host": host})
    assert result.exit_code == 0, result.output
    return path


def test_cli_chat_streams_condenses_and_keeps_the_session(tmp_path, host, monkeypatch):
    workdir = make_workdir(tmp_path)
    path = workdir / "cli-chat.yaml"
    path.write_text(config(workdir), encoding="utf-8")
    built(host, path)
    session_file = tmp_path / "session.json"
    messages = iter(["How is liver cancer diagnosed?", "And how is it treated?", "exit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(messages))
    runner = CliRunner()
    result = runner.invoke(build_cli(host), ["chat", str(path), "--session", str(session_file)], obj={"host": host})
    assert result.exit_code == 0, result.output
    assert "follow-ups are condensed by the offline heuristic" in result.output
    assert "(asking: How is liver cancer treated?)" in result.output
    assert result.output.count("Sources:") == 2 and "Sentence check:" in result.output
    assert len(read_session(session_file).exchanges) == 2

    messages = iter(["What about stomach cancer?"])  # then Ctrl-D
    def next_or_eof(prompt=""):
        try:
            return next(messages)
        except StopIteration:
            raise EOFError from None

    monkeypatch.setattr("builtins.input", next_or_eof)
    result = runner.invoke(build_cli(host), ["chat", str(path), "--session", str(session_file)], obj={"host": host})
    assert result.exit_code == 0, result.output
    assert "resumed 2 turn(s)" in result.output
    assert "(asking: How is stomach cancer treated?)" in result.output and "[1] Stomach cancer" in result.output
    assert len(read_session(session_file).exchanges) == 3


def test_cli_chat_reports_a_failed_turn_and_goes_on(tmp_path, host, monkeypatch):
    workdir = make_workdir(tmp_path)
    with OpenAIStubServer(reply="Liver cancer starts in liver cells [1].") as server:
        path = workdir / "cli-chat-stall.yaml"
        llms = replaced(stub_llms(server), "max_retries: 0", "max_retries: 0, timeout: 0.2")
        path.write_text(config(workdir, "{name: llm, llm: gen}", llms), encoding="utf-8")
        built(host, path)
        server.stall(5)
        messages = iter(["What is liver cancer?", "What is liver cancer?", "exit"])
        monkeypatch.setattr("builtins.input", lambda prompt="": next(messages))
        result = CliRunner().invoke(build_cli(host), ["chat", str(path)], obj={"host": host})
    assert result.exit_code == 0
    assert "error: llms.gen (openai-compatible, model 'stub'): no answer from" in result.output
    assert "Liver cancer starts in liver cells [1]." in result.output  # the second try answered


def test_cli_chat_with_piped_messages_prints_each_answer_on_its_own_line(tmp_path):
    """`printf 'q1\\nq2\\n' | criss-rag chat CONFIG`: a real pipe, so stdin is not a terminal."""
    import subprocess
    import sys

    workdir = make_workdir(tmp_path)
    path = workdir / "piped.yaml"
    path.write_text(config(workdir), encoding="utf-8")
    built(PluginHost(strict=True), path)
    result = subprocess.run([sys.executable, "-m", "criss_rag", "chat", str(path)], capture_output=True, text=True,
                            input="How is liver cancer diagnosed?\nAnd how is it treated?\n", timeout=300)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert "you> How is liver cancer diagnosed?" in lines and "you> And how is it treated?" in lines
    assert not [line for line in lines if line.startswith("you> ") and line not in (
        "you> How is liver cancer diagnosed?", "you> And how is it treated?")]  # no answer shares a prompt line
    after = lines[lines.index("you> And how is it treated?") + 1]
    assert after == "(asking: How is liver cancer treated?)"
