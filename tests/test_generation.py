"""The ``llm`` generator (plugin ``generate``), the sentence check, streaming and ``eval answers``.

Every LLM here is a real LlamaIndex client (``openai``, ``openai-compatible``, ``ollama``) talking
to a loopback stub server of :mod:`criss_rag.testing.servers`; the prompts are checked on the wire
through the stubs' request logs. Failure tests use tiny timeouts and backoffs.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner

from criss_rag.answering.refusal_messages import INSUFFICIENT_EVIDENCE
from criss_rag.answering.sentence_check import LexicalSupport, answer_sentences
from criss_rag.cli.main import build_cli
from criss_rag.engine import Engine, verify_citations
from criss_rag.errors import ComponentError, ConfigError
from criss_rag.language.text import detect_language
from criss_rag.plugins import PluginHost
from criss_rag.testing import MULTILINGUAL_CORPUS, pipeline_from_yaml, replaced, write_jsonl
from criss_rag.testing.servers import Failure, OllamaStubServer, OpenAIStubServer, RecordedRequest
from criss_rag.types import AnswerEvent, ChatTurn, Context, ErrorEvent, Evidence, Hit, Query, TokenEvent, text_node

SECRET = "sk-criss-generate-0123456789"
LIVER_Q = "What raises the risk of liver cancer?"
LIVER_A = "Hepatitis B infection raises the risk of liver cancer [1]."


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return PluginHost(strict=True)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("generation")
    write_jsonl(root / "corpus.jsonl", MULTILINGUAL_CORPUS)
    return root


def config(workdir: Path, llm: str, generator: str = "{name: llm, llm: gen}", extra: str = "") -> str:
    """A pipeline over the test corpus; ``llm`` is the flow mapping of `llms.gen`."""
    return (f"name: gen-test\nindex: {{dir: {workdir / 'index'}}}\nloader: {{name: jsonl, path: corpus.jsonl}}\n"
            f"chunker: whole-document\nretrievers: [bm25]\ncontext: numbered\nllms:\n  gen: {llm}\n"
            f"generator: {generator}\n{extra}")


def compatible(server: OpenAIStubServer, extra: str = "") -> str:
    return f'{{name: openai-compatible, model: stub-model, api_base: "{server.base_url}", max_retries: 0{extra}}}'


def ollama(server: OllamaStubServer, extra: str = "") -> str:
    return (
        f'{{name: ollama, model: qwen2.5, base_url: "{server.base_url}", max_retries: 0, retry_backoff: 0.01{extra}}}'
    )


def engine_for(workdir: Path, host: PluginHost, yaml_text: str) -> Engine:
    return Engine.open(pipeline_from_yaml(yaml_text, workdir, host), build_if_missing=True)


def chat_requests(server) -> list[RecordedRequest]:
    path = "/api/chat" if isinstance(server, OllamaStubServer) else "/v1/chat/completions"
    return server.requests_to(path)


def roles(request: RecordedRequest) -> list[str]:
    return [m["role"] for m in request.body["messages"]]


# -- answers, refusals, failures ------------------------------------------------------------------------


def test_answer_cites_evidence_and_records_model_and_usage(workdir, host):
    with OpenAIStubServer(reply=LIVER_A) as server:
        answer = engine_for(workdir, host, config(workdir, compatible(server))).ask(LIVER_Q)
    assert not answer.refused, answer.refusal_detail
    assert answer.text == LIVER_A
    assert [c.doc_id for c in answer.citations] == ["liver"]
    assert answer.generator == "stub-model (llms.gen, prompt ncc)"
    notes = answer.trace.stage("generate").notes
    assert notes["model"] == answer.generator
    assert notes["usage_completion_tokens"] == len(LIVER_A.split()) and notes["usage_prompt_tokens"] > 20
    assert [(s.text, s.cited, s.supported) for s in answer.sentences] == [(LIVER_A.replace(" [1]", ""), [1], True)]


@pytest.mark.parametrize(("prompt", "question", "reply"), [
    ("ncc", LIVER_Q, "Insufficient evidence"),
    ("ncc", "간암의 위험 요인은 무엇인가요?", "근거 부족"),
    ("jlcs", "肺がんの症状は何ですか？", "本文に十分な情報がありません"),
    ("jlcs", LIVER_Q, "There is insufficient information in the text."),
    ("criss", "什么会增加肝癌的风险？ liver cancer", "证据不足"),
])
def test_a_reply_that_says_the_evidence_is_insufficient_is_a_refusal(workdir, host, prompt, question, reply):
    with OpenAIStubServer(reply=reply) as server:
        answer = engine_for(
            workdir, host, config(workdir, compatible(server), f"{{name: llm, llm: gen, prompt: {prompt}}}")
        ).ask(question)
        assert len(chat_requests(server)) == 1  # the model was asked (the policy let the question through)
    assert answer.refused and answer.refusal_reason == "model_declined"
    assert answer.text == INSUFFICIENT_EVIDENCE[detect_language(question)]  # fixed text, never the model's
    assert answer.citations == [] and answer.sentences == []
    assert answer.trace.stage("generate").notes["declined"] == "model_declined"
    assert answer.trace.stage("generate").notes["declined_text"]["text"] == reply
    assert answer.trace.stage("generate").notes["declined_text"]["checked"] is False
    assert answer.trace.stage("cite") is None


def test_criss_refusal_s_missing_case_information_is_in_the_trace_not_the_answer(workdir, host):
    reply = "Insufficient evidence: the rule depends on the diagnosis year, which the question does not give."
    with OpenAIStubServer(reply=reply) as server:
        answer = engine_for(
            workdir, host, config(workdir, compatible(server), "{name: llm, llm: gen, prompt: criss}")
        ).ask(LIVER_Q)
    assert answer.refused and answer.refusal_reason == "model_declined"
    assert answer.text == INSUFFICIENT_EVIDENCE["en"] and "insufficient evidence" in answer.refusal_detail
    declined = answer.trace.stage("generate").notes["declined_text"]  # the model's words: in the trace, unchecked
    assert "diagnosis year" in declined["text"] and declined["checked"] is False


def test_configured_refusal_phrases_and_partial_answers(workdir, host):
    generator = '{name: llm, llm: gen, refusal_phrases: ["I cannot tell from these passages"]}'
    with OpenAIStubServer(reply="I cannot tell from these passages.") as server:
        declined = engine_for(workdir, host, config(workdir, compatible(server), generator)).ask(LIVER_Q)
    assert declined.refused and declined.refusal_reason == "model_declined"
    # the phrase after a cited answer: a partial answer, kept (its sentence check shows the gap)
    partial = f"{LIVER_A} There is not enough information about liver transplants."
    with OpenAIStubServer(reply=partial) as server:
        answer = engine_for(workdir, host, config(workdir, compatible(server), generator)).ask(LIVER_Q)
    assert not answer.refused
    assert [s.supported for s in answer.sentences] == [True]  # the unsupported sentence is dropped (the default)
    assert [d.text for d in answer.dropped] == ["There is not enough information about liver transplants."]
    # detection off: the refusal phrase is just text without a citation -> withheld as uncited
    with OpenAIStubServer(reply="Insufficient evidence") as server:
        off = engine_for(
            workdir, host, config(workdir, compatible(server), "{name: llm, llm: gen, detect_refusal: false}")
        ).ask(LIVER_Q)
    assert off.refused and off.refusal_reason == "uncited_answer"


def test_rate_limit_then_success(workdir, host):
    with OpenAIStubServer(reply=LIVER_A) as server:
        server.fail(429, retry_after=0.01)
        engine = engine_for(
            workdir, host, config(workdir, replaced(compatible(server), "max_retries: 0", "max_retries: 2"))
        )
        answer = engine.ask(LIVER_Q)
        assert len(chat_requests(server)) == 2 and server.pending_failures == 0
    assert not answer.refused and answer.citations[0].doc_id == "liver"


def test_ollama_busy_then_success(workdir, host):
    with OllamaStubServer(reply=LIVER_A) as server:
        server.fail(503)
        answer = engine_for(
            workdir, host, config(workdir, replaced(ollama(server), "max_retries: 0", "max_retries: 1"))
        ).ask(LIVER_Q)
        assert len(chat_requests(server)) == 2
        assert all(r.body["stream"] is False for r in chat_requests(server))
    assert not answer.refused and answer.text == LIVER_A
    assert answer.trace.stage("generate").notes["usage_completion_tokens"] == len(LIVER_A.split())


def test_a_stalled_server_is_a_timeout_error(workdir, host):
    with OpenAIStubServer(reply=LIVER_A) as server:
        engine = engine_for(workdir, host, config(workdir, compatible(server, ", timeout: 0.3")))
        server.stall(5)
        started = time.monotonic()
        with pytest.raises(ComponentError) as info:
            engine.ask(LIVER_Q)
        assert time.monotonic() - started < 3
        server.stall(5)
        events = list(engine.ask_stream(LIVER_Q))
    assert f"no answer from {server.base_url} within 0.3 s" in str(info.value)
    assert "raise `timeout` (now 0.3)" in str(info.value)
    assert len(events) == 1 and isinstance(events[0], ErrorEvent)
    assert "within 0.3 s" in events[0].message and isinstance(events[0].error, ComponentError)


class MalformedOpenAI(OpenAIStubServer):
    """Answers chat completions with a truncated JSON body."""

    def _chat(self, handler, request):
        data = b'{"id": "stub-1", "choices": [{"message": '
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        handler.end_headers()
        handler.wfile.write(data)


class MalformedOllama(OllamaStubServer):
    """Answers /api/chat with JSON that lacks the message."""

    def _chat(self, handler, request):
        handler.send_json(200, {"model": "qwen2.5", "done": True})


def test_a_malformed_reply_says_what_to_check(workdir, host):
    with MalformedOpenAI() as server:
        with pytest.raises(ComponentError) as info:
            engine_for(workdir, host, config(workdir, compatible(server))).ask(LIVER_Q)
    message = str(info.value)
    assert message.startswith(f"llms.gen (openai-compatible, model 'stub-model'): request to {server.base_url} failed")
    assert "not in its API's format" in message and "`api_base`" in message
    with MalformedOllama() as server:
        with pytest.raises(ComponentError) as info:
            engine_for(workdir, host, config(workdir, ollama(server))).ask(LIVER_Q)
    assert "llms.gen (ollama, model 'qwen2.5')" in str(info.value) and "not in its API's format" in str(info.value)


def test_the_api_key_never_reaches_answers_traces_or_plans(workdir, host, monkeypatch):
    monkeypatch.setenv("CRISS_TEST_KEY", SECRET)
    with OpenAIStubServer(reply=LIVER_A, api_key=SECRET) as server:
        llm = f'{{name: openai, api_key: {{env: CRISS_TEST_KEY}}, api_base: "{server.base_url}", max_retries: 0}}'
        engine = engine_for(workdir, host, config(workdir, llm))
        answer = engine.ask(LIVER_Q)
        streamed = list(engine.ask_stream(LIVER_Q))[-1].answer
        assert chat_requests(server)[0].bearer == SECRET
    assert not answer.refused and answer.generator.startswith("gpt-4o (llms.gen")
    for text in (answer.model_dump_json(), streamed.model_dump_json(), json.dumps(engine.pipeline.config.plan())):
        assert SECRET not in text
    assert engine.pipeline.config.plan()["llms"]["gen"]["api_key"] == {"env": "CRISS_TEST_KEY"}
    # the openai backend asks for usage on streams: it reaches the trace
    assert streamed.trace.stage("generate").notes["usage_total_tokens"] > 0


# -- the presets' message layouts on the wire -----------------------------------------------------------


def test_ncc_layout_system_then_user_with_evidence_and_question(workdir, host):
    with OpenAIStubServer(reply=LIVER_A) as server:
        engine_for(workdir, host, config(workdir, compatible(server))).ask(LIVER_Q)
        request = chat_requests(server)[0]
    assert roles(request) == ["system", "user"]
    system, user = (m["content"] for m in request.body["messages"])
    assert "Answer only from the numbered evidence" in system
    assert 'reply exactly "Insufficient evidence"' in system and "Answer in English" in system
    assert user.startswith("Evidence:\n[1] Liver cancer\nLiver cancer starts in liver cells.")
    assert user.endswith(f"Question: {LIVER_Q}")
    assert request.body["temperature"] == 0.1 and request.body["max_tokens"] == 1024


def test_ncc_answer_language_follows_the_question_and_history_goes_between(workdir, host):
    with OpenAIStubServer(reply="간암은 간세포에서 시작되는 암입니다 [1].") as server:
        engine = engine_for(workdir, host, config(workdir, compatible(server)))
        history = [ChatTurn("user", "간암이란?"), ChatTurn("assistant", "간암은 간세포에서 시작되는 암입니다 [1].")]
        answer = engine.ask("간암의 위험 요인은 무엇인가요?", history=history)
        request = chat_requests(server)[0]
    assert roles(request) == ["system", "user", "assistant", "user"]
    assert "Answer in Korean" in request.body["messages"][0]["content"]
    assert request.body["messages"][1]["content"] == "간암이란?"
    assert request.body["messages"][2]["content"] == "간암은 간세포에서 시작되는 암입니다."  # its old [1] removed
    assert request.body["messages"][-1]["content"].endswith("Question: 간암의 위험 요인은 무엇인가요?")
    assert not answer.refused and answer.citations[0].doc_id == "liver-ko"


@pytest.mark.parametrize("backend", ["openai-compatible", "ollama"])
def test_jlcs_layout_one_user_message_reference_then_question(workdir, host, backend):
    server_type = OllamaStubServer if backend == "ollama" else OpenAIStubServer
    with server_type(reply="肺がんは喫煙と強く関係しています[1]。") as server:
        llm = ollama(server) if backend == "ollama" else compatible(server)
        engine = engine_for(workdir, host, config(workdir, llm, "{name: llm, llm: gen, prompt: jlcs}"))
        answer = engine.ask("肺がんの症状は何ですか？", history=[ChatTurn("user", "前の質問")])
        request = chat_requests(server)[0]
    assert roles(request) == ["system", "user"]  # history is not part of this layout
    system, user = (m["content"] for m in request.body["messages"])
    assert "医療情報" in system and "「本文に十分な情報がありません」とだけ答えてください" in system
    assert "500字" in system and "（日本語）" in system
    assert user.startswith("参考情報: [1] 肺がん\n肺がんは喫煙と強く関係しています。")
    assert user.endswith("\n質問: 肺がんの症状は何ですか？")
    assert user.count("質問: ") == 1
    assert not answer.refused and answer.citations[0].doc_id == "lung-ja"
    assert answer.sentences[0].supported


def test_criss_layout_asks_for_the_four_parts(workdir, host):
    reply = ("Direct answer: Hepatitis B infection raises the risk of liver cancer [1].\n"
             "Explanation: Liver cancer starts in liver cells [1].\n"
             "References: [1] Liver cancer\n"
             "Why the rule applies: national guidelines recommend yearly ultrasound screening [1].")
    with OpenAIStubServer(reply=reply) as server:
        generator = "{name: llm, llm: gen, prompt: criss, unsupported: mark}"
        answer = engine_for(workdir, host, config(workdir, compatible(server), generator)).ask(LIVER_Q)
        request = chat_requests(server)[0]
    assert roles(request) == ["system", "user"]
    system = request.body["messages"][0]["content"]
    for part in (
        "Direct answer:",
        "Explanation:",
        "References:",
        "Why the rule applies:",
        "name the missing case information",
    ):
        assert part in system
    assert not answer.refused
    assert [s.text.split(":")[0] for s in answer.sentences] == [
        "Direct answer",
        "Explanation",
        "References",
        "Why the rule applies",
    ]
    assert [s.supported for s in answer.sentences] == [True, True, True, False]


def test_a_prompt_file_of_your_own(workdir, host, tmp_path):
    (workdir / "my_prompt.yaml").write_text(
        "description: terse\nrefusal: {en: NO ANSWER}\nmessages:\n"
        "  - {role: system, content: 'Be terse. Say {{ refusal }} when unsure.'}\n"
        '  - {role: user, content: "{% for p in passages %}<{{ p.number }}|{{ p.title }}>{% endfor %} '
        '{{ question }}"}\n',
        encoding="utf-8",
    )
    with OpenAIStubServer(reply="NO ANSWER") as server:
        engine = engine_for(
            workdir, host, config(workdir, compatible(server), "{name: llm, llm: gen, prompt: my_prompt.yaml}")
        )
        answer = engine.ask(LIVER_Q)
        request = chat_requests(server)[0]
    assert [m["content"] for m in request.body["messages"]][0] == "Be terse. Say NO ANSWER when unsure."
    assert request.body["messages"][1]["content"].startswith("<1|Liver cancer><2|")
    assert answer.refused and answer.refusal_reason == "model_declined" and "my_prompt.yaml" in answer.generator


@pytest.mark.parametrize(("content", "message"), [
    ("refusal: {en: x}\nmessages: [{role: user, content: '{{ nosuch }}'}]", "'nosuch' is undefined"),
    ("refusal: {en: x}\nmessages: [{role: system, content: hi}]", "no `user` message"),
    ("messages: [{role: user, content: hi}]", "`refusal:` must map language codes"),
    ("refusal: x\nmessages: [{role: user, content: '{% if %}'}]", "message 1 (user), line 1"),
    ("refusal: x\nmessages: [{role: robot, content: hi}]", "must be `{role: system|user|assistant"),
])
def test_bad_prompt_files_fail_at_start_up(workdir, host, content, message):
    (workdir / "bad_prompt.yaml").write_text(content, encoding="utf-8")
    yaml_text = config(workdir, '{name: openai-compatible, model: m, api_base: "http://127.0.0.1:9/v1"}',
                       "{name: llm, llm: gen, prompt: bad_prompt.yaml}")
    with pytest.raises(ConfigError) as info:
        pipeline_from_yaml(yaml_text, workdir, host).one("generator")
    assert message in str(info.value)


def test_unknown_preset_and_unknown_llm_key(workdir, host):
    base = '{name: openai-compatible, model: m, api_base: "http://127.0.0.1:9/v1"}'
    with pytest.raises(ConfigError, match="Presets: ncc, jlcs, criss"):
        pipeline_from_yaml(config(workdir, base, "{name: llm, llm: gen, prompt: nccc}"), workdir, host).one("generator")
    with pytest.raises(
        ConfigError, match="'gpt' names no llm of this config.*Valid: gen"
    ):  # checked as the config is read
        pipeline_from_yaml(config(workdir, base, "{name: llm, llm: gpt}"), workdir, host).one("generator")


# -- streaming -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("backend", ["openai-compatible", "ollama"])
def test_ask_stream_yields_tokens_then_the_checked_answer(workdir, host, backend):
    reply = f"{LIVER_A} Surgery always cures it [1]."
    server_type = OllamaStubServer if backend == "ollama" else OpenAIStubServer
    with server_type(reply=reply) as server:
        llm = ollama(server) if backend == "ollama" else compatible(server, ", stream_usage: true")
        # unsupported: mark, so nothing holds the tokens back (test_grounding covers the gated stream)
        events = list(
            engine_for(workdir, host, config(workdir, llm, "{name: llm, llm: gen, unsupported: mark}")).ask_stream(
                LIVER_Q
            )
        )
        request = chat_requests(server)[0]
    assert request.body["stream"] is True
    tokens = [e.text for e in events if isinstance(e, TokenEvent)]
    # the first sentence is held until the model has cited evidence and begun the next sentence (until then
    # the answer could still turn into a refusal); from then on each piece streams as it comes
    first = len(LIVER_A.split()) + 1
    assert tokens[0] == " ".join(reply.split()[:first]) + " " and tokens[1:] == [
        w + " " for w in reply.split()[first:-1]
    ] + ["[1]."]
    assert "".join(tokens) == reply
    assert all(isinstance(e, TokenEvent) for e in events[:-1]) and isinstance(events[-1], AnswerEvent)
    answer = events[-1].answer
    assert answer.text == reply and [c.number for c in answer.citations] == [1]
    assert [s.supported for s in answer.sentences] == [True, False]
    notes = answer.trace.stage("generate").notes
    assert notes["streamed"] is True and notes["usage_completion_tokens"] == len(reply.split())


@pytest.mark.parametrize("backend", ["openai-compatible", "ollama"])
@pytest.mark.parametrize("chunked", [False, True], ids=["close-delimited", "chunked"])
def test_a_stream_that_breaks_off_is_an_error_never_a_short_answer(workdir, host, backend, chunked):
    """The server dies after three pieces: with a body that ends when the connection closes the
    client sees a normal end, so only the missing finish_reason / "done" line gives it away. Either
    way the partial text never becomes an answer."""
    server_type = OllamaStubServer if backend == "ollama" else OpenAIStubServer
    with server_type(reply=LIVER_A, chunked=chunked) as server:
        llm = ollama(server) if backend == "ollama" else compatible(server)
        engine = engine_for(workdir, host, config(workdir, llm, "{name: llm, llm: gen, unsupported: mark}"))
        server.enqueue(Failure(cut_after=3))
        events = list(engine.ask_stream(LIVER_Q))
        again = list(engine.ask_stream(LIVER_Q))  # the next question is answered normally
    assert not any(isinstance(e, AnswerEvent) for e in events) and isinstance(events[-1], ErrorEvent)
    assert "".join(e.text for e in events if isinstance(e, TokenEvent)) == ""  # held: it could still have declined
    broke = "broke off" if chunked else "stopped before the server finished" if backend != "ollama" else \
        "stopped before Ollama finished"
    assert broke in events[-1].message and "crashed or restarted" in events[-1].message
    assert again[-1].answer.text == LIVER_A


@pytest.mark.parametrize("backend", ["openai-compatible", "ollama"])
def test_an_error_event_inside_a_stream_names_the_server_s_message(workdir, host, backend):
    server_type = OllamaStubServer if backend == "ollama" else OpenAIStubServer
    with server_type(reply=LIVER_A, chunked=True) as server:
        llm = ollama(server) if backend == "ollama" else compatible(server)
        engine = engine_for(workdir, host, config(workdir, llm, "{name: llm, llm: gen, unsupported: mark}"))
        server.enqueue(Failure(status=500, message="CUDA error: out of memory", cut_after=2))
        events = list(engine.ask_stream(LIVER_Q))
    assert not any(isinstance(e, AnswerEvent) for e in events) and isinstance(events[-1], ErrorEvent)
    assert "CUDA error: out of memory" in events[-1].message


def test_keep_alive_comments_between_chunks_are_not_part_of_the_answer(workdir, host):
    with OpenAIStubServer(reply=LIVER_A, chunked=True, keep_alive_every=1) as server:
        engine = engine_for(
            workdir, host, config(workdir, compatible(server), "{name: llm, llm: gen, unsupported: mark}")
        )
        events = list(engine.ask_stream(LIVER_Q))
        with httpx.stream(
            "POST",
            f"{server.base_url}/chat/completions",
            json={"model": "stub-model", "stream": True, "messages": [{"role": "user", "content": "q"}]},
        ) as raw:
            wire = raw.read().decode()
            encoding = raw.headers.get("transfer-encoding")
    assert encoding == "chunked" and wire.count(": keep-alive") == len(LIVER_A.split())  # really on the wire
    assert events[-1].answer.text == LIVER_A
    assert "".join(e.text for e in events if isinstance(e, TokenEvent)) == LIVER_A


def test_a_refusal_streams_nothing_but_the_refusal(workdir, host):
    with OpenAIStubServer(reply=LIVER_A) as server:
        yaml_text = config(workdir, compatible(server), extra="refusal: {name: evidence-threshold, min_hits: 99}\n")
        events = list(engine_for(workdir, host, yaml_text).ask_stream(LIVER_Q))
        assert server.requests == []  # no LLM call for a refusal
    assert len(events) == 1 and isinstance(events[0], AnswerEvent)
    assert events[0].answer.refused and events[0].answer.refusal_reason == "too_little_evidence"


def test_extractive_answers_stream_as_one_piece_and_keep_passing(workdir, host):
    engine = engine_for(workdir, host, config(workdir, '{name: ollama, model: unused}', "extractive"))
    events = list(engine.ask_stream(LIVER_Q))
    assert [e.kind for e in events] == ["token", "answer"]
    answer = events[-1].answer
    assert events[0].text.startswith("Extracted from the sources") and answer.citations
    assert answer.sentences and all(s.supported and s.score == 1.0 for s in answer.sentences)
    assert answer.trace.stage("cite").notes["verifier"] == "criss_rag (meaning)"


def test_cli_ask_stream_prints_the_tokens_then_sources_and_marks(workdir, host):
    path = workdir / "stream.yaml"
    reply = f"{LIVER_A} Surgery always cures it [1]. Lung cancer is linked to smoking [9]."
    with OpenAIStubServer(reply=reply) as server:
        path.write_text(
            config(workdir, compatible(server), "{name: llm, llm: gen, unsupported: mark}"), encoding="utf-8"
        )
        result = CliRunner().invoke(build_cli(host), ["ask", str(path), LIVER_Q, "--stream"], obj={"host": host})
        assert chat_requests(server)[0].body["stream"] is True
    assert result.exit_code == 0, result.output
    head, tail = result.output.split("\n\nSources:\n", 1)
    assert head == reply  # streamed as written (the checked text is in --json)
    assert tail.startswith("  [1] Liver cancer (doc liver")
    assert "Sentence check: 2 of 3 supported by the evidence" in tail
    assert "  UNSUPPORTED   0.00 [1] Surgery always cures it." in tail
    assert re.search(r"  ok            1\.00 Lung cancer is linked to smoking\. \(supported by \[\d\]\) "
                     r"\(cites \[9\]: no such evidence\)", tail), tail


def test_cli_ask_stream_shows_errors_as_messages(workdir, host):
    path = workdir / "stall.yaml"
    with OpenAIStubServer(reply=LIVER_A) as server:
        path.write_text(config(workdir, compatible(server, ", timeout: 0.2")), encoding="utf-8")
        server.stall(5)
        result = CliRunner().invoke(build_cli(host), ["ask", str(path), LIVER_Q, "--stream"], obj={"host": host})
    assert (
        result.exit_code == 2
        and "error: llms.gen (openai-compatible" in result.output
        and "Traceback" not in result.output
    )


# -- the sentence check --------------------------------------------------------------------------------------


def _context(*passages: tuple[str, str]) -> Context:
    evidence = tuple(
        Evidence(i, Hit(node_from(title, text)), text) for i, (title, text) in enumerate(passages, start=1)
    )
    return Context(evidence, "")


def node_from(title: str, text: str):
    from llama_index.core.schema import NodeWithScore

    return NodeWithScore(node=text_node(title.lower().replace(" ", "-"), text, title=title), score=1.0)


def test_sentence_verdicts_supported_unsupported_and_invalid_numbers_in_english():
    context = _context(("Liver cancer", "Hepatitis B infection raises the risk of liver cancer."),
                       ("Lung cancer", "Lung cancer is linked to smoking."))
    text = ("Hepatitis B infection raises liver cancer risk [1]. Chemotherapy always cures liver cancer [1]. "
            "Smoking is linked to lung cancer [5]. Lung cancer is linked to smoking [1].")
    check = verify_citations(text, context, LexicalSupport())
    assert check.invalid == [5] and [c.number for c in check.citations] == [1]
    assert "[5]" not in check.text and "Smoking is linked to lung cancer." in check.text
    verdicts = [(s.cited, s.invalid_citations, s.supported, s.evidence) for s in check.sentences]
    assert verdicts == [
        ([1], [], True, 1),          # supported by what it cites
        ([1], [], False, None),      # unsupported: nothing says so
        ([], [5], True, 2),          # cites a number that does not exist; passage 2 supports it
        ([1], [], True, 2),          # miscited: supported by passage 2, not by [1]
    ]
    assert check.sentences[1].score < 0.5 <= check.sentences[0].score


def test_sentence_verdicts_in_korean_and_japanese_with_a_registered_analyzer(workdir, host):
    context = _context(
        ("간암", "간암은 간세포에서 시작되는 암입니다. B형 간염 바이러스에 감염되면 간암 위험이 높아집니다."),
        ("肺がん", "肺がんは喫煙と強く関係しています。長引くせきは肺がんの症状のことがあります。"),
    )
    pipeline = pipeline_from_yaml(
        config(workdir, "{name: ollama, model: unused}", extra="verifier: {name: lexical, threshold: 0.6}\n"),
        workdir,
        host,
    )
    verifier = pipeline.one("verifier")
    korean = verify_citations(
        "B형 간염에 감염되면 간암 위험이 높아집니다 [1]. 간암은 유전자 치료로 완치됩니다 [1].", context, verifier
    )
    assert [(s.supported, s.evidence) for s in korean.sentences] == [(True, 1), (False, None)]
    japanese = verify_citations(
        "肺がんは喫煙と関係しています[2]。肺がんは遺伝子治療で必ず治ります[2]。長引くせきは症状のことがあります[7]。",
        context,
        verifier,
    )
    assert [(s.supported, s.cited, s.invalid_citations) for s in japanese.sentences] == [
        (True, [2], []), (False, [2], []), (True, [], [7])]
    # the engine's built-in check (no plugin) gives the same verdicts on CJK text
    builtin = verify_citations(
        "肺がんは喫煙と関係しています[2]。肺がんは遺伝子治療で必ず治ります[2]。", context, LexicalSupport()
    )
    assert [s.supported for s in builtin.sentences] == [True, False]


def test_answer_sentences_keep_markers_with_their_sentence_and_skip_lead_ins():
    text = ("Extracted from the sources (quoted evidence, not a generated answer):\n"
            "Liver cancer starts in liver cells. [1] Hepatitis B raises the risk.[2] It is common [1, 3].\n"
            "## Treatment\n- Surgery [4]\n")
    assert answer_sentences(text) == [
        ("Liver cancer starts in liver cells.", [1]), ("Hepatitis B raises the risk.", [2]),
        ("It is common.", [1, 3]), ("Surgery", [4]),
    ]


def test_verifier_stage_in_the_pipeline_and_llm_check(workdir, host):
    reply_answer = f"{LIVER_A} Liver cancer can often be cured with a liver transplant [1]."

    def reply(request: RecordedRequest) -> str:
        if "Answer YES or NO only" in request.prompt:  # the llm-check question
            return "YES" if "transplant" in request.prompt else "NO"
        return reply_answer

    with OpenAIStubServer(reply=reply) as server:
        extra = "verifier: {name: llm-check, llm: gen}\n"
        answer = engine_for(workdir, host, config(workdir, compatible(server), extra=extra)).ask(LIVER_Q)
        checks = [r for r in chat_requests(server) if "Answer YES or NO only" in r.prompt]
    assert len(checks) == 1  # only the sentence the lexical pass doubted
    assert "Sentence: Liver cancer can often be cured with a liver transplant." in checks[0].prompt
    assert "[1] Liver cancer\nLiver cancer starts in liver cells." in checks[0].prompt
    assert [(s.supported, s.method) for s in answer.sentences] == [(True, "lexical"), (True, "llm")]
    stage = answer.trace.stage("verify")
    assert stage.component == "llm-check" and stage.n_in == 2 and stage.n_out == 2 and stage.notes["threshold"] == 0.5


def test_a_verifier_that_returns_the_wrong_number_of_verdicts_is_reported(workdir, host):
    from types import SimpleNamespace

    from criss_rag import hookimpl

    class Dropper:
        def __init__(self, params, ctx):
            pass

        def verify(self, query, sentences, context):
            return []

    plugin = SimpleNamespace(register_verifiers=hookimpl(lambda register: register("dropper", Dropper)))
    plugin.register_verifiers.__name__ = "register_verifiers"
    from criss_rag.testing import plugin_host

    custom = plugin_host({"dropper": plugin}, entry_points=True)
    with OpenAIStubServer(reply=LIVER_A) as server:
        engine = Engine.open(
            pipeline_from_yaml(config(workdir, compatible(server), extra="verifier: dropper\n"), workdir, custom),
            build_if_missing=True,
        )
        with pytest.raises(ComponentError, match="returned 0 verdicts for 1 sentences"):
            engine.ask(LIVER_Q)


# -- eval answers ------------------------------------------------------------------------------------------------


def test_eval_answers_writes_one_line_per_question_and_the_summary_last(workdir, host, tmp_path):
    def reply(request: RecordedRequest) -> str:
        return "Insufficient evidence" if "jaundice" in request.prompt.split("Question:")[-1] else LIVER_A

    questions = tmp_path / "q.jsonl"
    questions.write_text("\n".join(json.dumps(q) for q in [
        {"qid": "a", "question": LIVER_Q, "expected": "answer"},
        {"qid": "b", "question": "Does pancreatic cancer cause jaundice?"},
        {"qid": "c", "question": "zebra giraffe"},
    ]) + "\n", encoding="utf-8")
    out = tmp_path / "answers.jsonl"
    path = workdir / "eval.yaml"
    with OpenAIStubServer(reply=reply) as server:
        path.write_text(config(workdir, compatible(server)), encoding="utf-8")
        result = CliRunner().invoke(build_cli(host), ["eval", "answers", str(path), "--questions", str(questions),
                                                      "--out", str(out)], obj={"host": host})
    assert result.exit_code == 0, result.output
    lines = result.stdout.strip().splitlines()
    assert lines[-1] == "answered=1 refused=2 n=3"
    assert lines[-2] == "refusals by reason: model_declined=1, no_evidence=1"
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [(r["qid"], r["refused"], r["reason"]) for r in rows] == [("a", False, None), ("b", True, "model_declined"),
                                                                        ("c", True, "no_evidence")]
    first = rows[0]
    assert first["expected"] == "answer" and first["answer"] == LIVER_A
    assert first["citations"][0]["doc_id"] == "liver" and first["sentences"][0]["supported"] is True
    assert [s["stage"] for s in first["trace"]["stages"]] == ["retrieve:bm25", "context", "generate", "cite"]


def test_query_history_reaches_templates_as_a_variable(workdir, host):
    (workdir / "history_prompt.yaml").write_text(
        "refusal: {en: none}\nmessages:\n  - role: user\n    content: |\n"
        "      {% for turn in history %}{{ turn.role }}: {{ turn.text }}\n"
        "      {% endfor %}Q: {{ question }} ({{ language }})\n",
        encoding="utf-8",
    )
    with OpenAIStubServer(reply=LIVER_A) as server:
        engine = engine_for(
            workdir, host, config(workdir, compatible(server), "{name: llm, llm: gen, prompt: history_prompt.yaml}")
        )
        engine.ask(LIVER_Q, history=[ChatTurn("user", "What is liver cancer?"), ChatTurn("assistant", "A cancer [1].")])
        content = chat_requests(server)[0].body["messages"][0]["content"]
    assert content == f"user: What is liver cancer?\nassistant: A cancer.\nQ: {LIVER_Q} (en)"  # old [n] dropped


def test_generation_refusal_field_is_reported_by_the_engine_for_any_generator(workdir, host):
    """A third-party generator may decline through ``Generation.refusal`` too."""
    from types import SimpleNamespace

    from criss_rag import hookimpl
    from criss_rag.testing import plugin_host
    from criss_rag.types import Generation, Refusal

    class Shy:
        def __init__(self, params, ctx):
            pass

        def generate(self, query, context):
            return Generation("", "shy", refusal=Refusal("model_declined", "shy", "No."))

    impl = hookimpl(lambda register: register("shy", Shy))
    impl.__name__ = "register_generators"
    custom = plugin_host({"shy": SimpleNamespace(register_generators=impl)}, entry_points=True)
    engine = Engine.open(pipeline_from_yaml(config(workdir, "{name: ollama, model: unused}", "shy"), workdir, custom),
                         build_if_missing=True)
    answer = engine.ask(LIVER_Q)
    # a generator's refusal shows the engine's fixed message; its own message is the trace's, unchecked
    assert answer.refused and answer.text == INSUFFICIENT_EVIDENCE["en"] and answer.generator == "shy"
    assert Query(text="x").history == ()
