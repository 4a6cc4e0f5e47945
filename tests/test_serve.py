"""`criss-rag serve`: every endpoint over real HTTP (uvicorn on 127.0.0.1, httpx), the order of the
streamed events, every 4xx path, the bearer token, the limits, and a hanging LLM that fails only its
own request while the server keeps answering others."""

from __future__ import annotations

import json
import logging
import re
import threading
import time

import httpx
import pytest
from click.testing import CliRunner
from serve_fixtures import engine_for, parse_sse

from criss_rag.cli.main import build_cli
from criss_rag.errors import ConfigError
from criss_rag.plugins import PluginHost
from criss_rag.testing.servers import OpenAIStubServer
from criss_rag_serve.app import create_app
from criss_rag_serve.running import running
from criss_rag_serve.sessions import SessionStore
from criss_rag_serve.settings import ServeSettings, is_loopback, read_token

LIVER = "What raises the risk of liver cancer?"
TOKEN = "t0ken-for-the-serve-tests-0123456789"


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    return engine_for(tmp_path_factory.mktemp("serve"))


@pytest.fixture(scope="module")
def client(engine):
    with running(create_app(engine, ServeSettings(max_question_chars=200, max_body_bytes=2048))) as url:
        with httpx.Client(base_url=url, timeout=30) as http:
            yield http


def stream(client: httpx.Client, path: str, body: dict, **kwargs) -> tuple[httpx.Response, list[tuple[str, dict]]]:
    with client.stream("POST", path, json=body, **kwargs) as response:
        raw = response.read().decode("utf-8")
    return response, parse_sse(raw) if response.status_code == 200 else []


def error_of(response: httpx.Response) -> dict:
    body = response.json()
    assert set(body) == {"error"} and body["error"]["request_id"] == response.headers["x-request-id"]
    assert "Traceback" not in response.text
    return body["error"]


# -- endpoints ---------------------------------------------------------------------------------------------


def test_health_reports_index_components_and_corpus_version(client, engine):
    health = client.get("/health").json()
    assert health["status"] == "ok" and health["index_loaded"] is True
    assert health["corpus_version"] == f"v{engine.corpus_version}:{engine.manifest.corpus_fingerprint}"
    assert health["index_key"] == engine.manifest.key and health["documents"] == 5
    assert health["components"]["retrievers"] == ["bm25"] and health["components"]["generator"] == "extractive"
    assert health["cache"] == "fake-cache"


def test_ask_returns_the_answer_json(client):
    response = client.post("/ask", json={"question": LIVER})
    assert response.status_code == 200
    answer = response.json()
    assert answer["question"] == LIVER and not answer["refused"]
    assert answer["citations"][0]["doc_id"] == "liver" and answer["sentences"][0]["supported"] is True
    assert answer["trace"]["stages"][0]["stage"] == "cache"


def test_ask_applies_request_filters(client):
    breast = client.post(
        "/ask", json={"question": "What raises the risk of cancer?", "filters": {"cancer_type": "breast"}}
    )
    assert {c["doc_id"] for c in breast.json()["citations"]} == {"breast"}


def test_a_refusal_comes_back_as_a_refusal_with_its_reason(client):
    answer = client.post("/ask", json={"question": "What is the capital of France?"}).json()
    assert answer["refused"] is True and answer["refusal_reason"] == "no_evidence" and not answer["citations"]


def test_stream_sends_tokens_then_citations_then_done(client):
    response, events = stream(client, "/ask/stream", {"question": "Does radon raise the risk of lung cancer?"})
    assert response.headers["content-type"].startswith("text/event-stream")
    names = [name for name, _ in events]
    # progress before the answer's tokens, never among them
    steps = [data["step"] for name, data in events if name == "progress"]
    assert steps[0] == "retrieving" and "generating" in steps and names[0] == "progress"
    first_token = names.index("token")
    assert names.index("progress") < first_token and "generating" in [
        data["step"] for name, data in events[:first_token] if name == "progress"]
    assert names[-2:] == ["citations", "done"] and set(names[first_token:-2]) <= {"token", "progress"}
    done = events[-1][1]
    assert "".join(data["text"] for name, data in events if name == "token") == done["answer"]["text"]
    assert events[-2][1]["citations"] == done["answer"]["citations"]
    assert events[-2][1]["sentences"] == done["answer"]["sentences"]
    # the display pieces join to the text (markers moved before full stops) and point each sentence at its verdict
    def bare(text: str) -> str:
        return re.sub(r"[\s.]", "", text)

    assert bare("".join(p["text"] for p in done["display"])) == bare(done["answer"]["text"])
    assert "[1]." in "".join(p["text"] for p in done["display"])
    assert {p["sentence"] for p in done["display"] if p["sentence"] is not None} == set(
        range(len(done["answer"]["sentences"]))
    )


def test_a_streamed_refusal_has_no_tokens(client):
    _, events = stream(client, "/ask/stream", {"question": "What is the capital of France?"})
    assert [name for name, _ in events if name != "progress"] == ["citations", "done"]
    assert events[-1][1]["answer"]["refused"]
    steps = [data["step"] for name, data in events if name == "progress"]
    assert steps[0] == "retrieving" and "generating" not in steps  # refused before the generator


def test_korean_and_japanese_stream_as_utf8_unescaped(client):
    for question, doc in (("간암의 위험 요인은 무엇인가요?", "liver-ko"), ("肺がんの症状は何ですか？", "lung-ja")):
        with client.stream("POST", "/ask/stream", json={"question": question}) as response:
            raw = response.read()
        text = raw.decode("utf-8")
        assert "\\u" not in text  # sent as UTF-8, not escaped
        done = parse_sse(text)[-1][1]["answer"]
        assert done["question"] == question and done["citations"][0]["doc_id"] == doc


def test_chat_keeps_a_server_side_session(client):
    first = client.post("/chat", json={"question": "How is liver cancer caused?"}).json()
    assert first["turn"] == 1 and first["session_id"]
    follow = client.post(
        "/chat", json={"question": "And what raises its risk?", "session_id": first["session_id"]}
    ).json()
    assert follow["turn"] == 2 and follow["session_id"] == first["session_id"]
    condense = follow["answer"]["trace"]["stages"][0]
    assert condense["stage"] == "condense" and "liver cancer" in condense["notes"]["question"]


def test_chat_stream_done_event_carries_the_session(client):
    _, events = stream(client, "/chat/stream", {"question": LIVER})
    done = events[-1][1]
    assert done["turn"] == 1 and done["session_id"]
    _, events = stream(client, "/chat/stream", {"question": "And how is it treated?", "session_id": done["session_id"]})
    assert events[-1][1]["turn"] == 2


def test_a_repeated_question_is_served_from_the_cache_and_marked(client):
    client.post("/ask", json={"question": "Which test finds breast cancer early?"})
    again = client.post("/ask", json={"question": "which test finds BREAST cancer early?"}).json()
    assert again["cached"]["original_question"] == "Which test finds breast cancer early?"


def test_openapi_and_docs_are_published(client):
    schema = client.get("/openapi.json").json()
    assert {"/ask", "/ask/stream", "/chat", "/chat/stream", "/health"} <= set(schema["paths"])
    question = schema["components"]["schemas"]["AskRequest"]["properties"]["question"]
    assert question["maxLength"] == 200
    assert client.get("/docs").status_code == 200


def test_the_page_and_its_files_are_served_with_a_strict_csp(client):
    page = client.get("/")
    assert page.status_code == 200 and "<ol id=\"log\"" in page.text
    assert "script-src 'self'" in page.headers["content-security-policy"]
    assert client.get("/static/chat.js").status_code == 200


# -- every 4xx -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("body, field", [
    ({}, "question"),
    ({"question": ""}, "question"),
    ({"question": "   "}, "question"),
    ({"question": "x" * 201}, "question"),
    ({"question": 42}, "question"),
    ({"question": LIVER, "colour": "red"}, "colour"),
    ({"question": LIVER, "filters": {"bad key!": "x"}}, "filters"),
    ({"question": LIVER, "filters": {"cancer_type": {"nested": 1}}}, "filters.cancer_type"),
    ({"question": LIVER, "filters": {f"k{i}": i for i in range(21)}}, "filters"),
])
def test_invalid_requests_are_422_with_the_field(client, body, field):
    for path in ("/ask", "/ask/stream", "/chat", "/chat/stream"):
        response = client.post(path, json=body)
        assert response.status_code == 422, (path, response.text)
        error = error_of(response)
        assert error["code"] == "invalid_request" and error["details"][0]["field"].startswith(field), error


def test_malformed_json_is_422(client):
    response = client.post("/ask", content=b'{"question": ', headers={"content-type": "application/json"})
    assert response.status_code == 422 and error_of(response)["code"] == "invalid_request"


def test_too_large_bodies_are_413_declared_or_streamed(client):
    response = client.post("/ask", json={"question": "x" * 4000})
    assert response.status_code == 413 and error_of(response)["code"] == "request_too_large"
    chunked = client.post("/ask", content=iter([b'{"question": "', b"y" * 3000, b'"}']),
                          headers={"content-type": "application/json"})
    assert chunked.status_code == 413


def test_unknown_paths_methods_and_sessions(client):
    assert error_of(client.get("/nope"))["code"] == "not_found"
    assert error_of(client.get("/ask"))["code"] == "method_not_allowed"
    response = client.post("/chat", json={"question": LIVER, "session_id": "no-such-session"})
    assert response.status_code == 404 and error_of(response)["code"] == "session_not_found"
    response, _ = stream(client, "/chat/stream", {"question": LIVER, "session_id": "no-such-session"})
    assert response.status_code == 404


def test_cors_is_off_unless_configured(client, engine):
    preflight = {"Origin": "https://elsewhere.example", "Access-Control-Request-Method": "POST"}
    assert "access-control-allow-origin" not in client.options("/ask", headers=preflight).headers
    settings = ServeSettings(cors_origins=["https://elsewhere.example"])
    with running(create_app(engine, settings)) as url:
        allowed = httpx.options(f"{url}/ask", headers=preflight)
    assert allowed.headers["access-control-allow-origin"] == "https://elsewhere.example"


# -- the token -------------------------------------------------------------------------------------------


def test_the_bearer_token_guards_ask_and_chat(engine):
    with running(create_app(engine, ServeSettings(), token=TOKEN)) as url, httpx.Client(base_url=url) as http:
        for path in ("/ask", "/ask/stream", "/chat", "/chat/stream"):
            missing = http.post(path, json={"question": LIVER})
            assert missing.status_code == 401 and missing.headers["www-authenticate"] == "Bearer"
            assert error_of(missing)["code"] == "unauthorized" and TOKEN not in missing.text
            wrong = http.post(path, json={"question": LIVER}, headers={"Authorization": "Bearer wrong"})
            assert wrong.status_code == 401
        ok = http.post("/ask", json={"question": LIVER}, headers={"Authorization": f"Bearer {TOKEN}"})
        assert ok.status_code == 200
        assert http.get("/health").status_code == 200 and http.get("/").status_code == 200


def test_a_non_loopback_host_needs_a_token(monkeypatch):
    monkeypatch.delenv("CRISS_RAG_SERVE_TOKEN", raising=False)
    assert is_loopback("127.0.0.1") and is_loopback("localhost") and is_loopback("::1")
    assert not is_loopback("0.0.0.0") and not is_loopback("example.org")
    assert read_token(ServeSettings()) is None
    with pytest.raises(ConfigError, match=r"(?s)--host 0\.0\.0\.0 is reachable.*export CRISS_RAG_SERVE_TOKEN="):
        read_token(ServeSettings(host="0.0.0.0"))
    monkeypatch.setenv("CRISS_RAG_SERVE_TOKEN", "short")
    with pytest.raises(ConfigError, match="at least 16"):
        read_token(ServeSettings(host="0.0.0.0"))
    monkeypatch.setenv("CRISS_RAG_SERVE_TOKEN", "  ")
    with pytest.raises(ConfigError, match="set but empty"):
        read_token(ServeSettings())
    monkeypatch.setenv("CRISS_RAG_SERVE_TOKEN", TOKEN)
    assert read_token(ServeSettings(host="0.0.0.0")) == TOKEN


def test_the_serve_command_refuses_to_start_open_to_the_network(monkeypatch, tmp_path):
    monkeypatch.delenv("CRISS_RAG_SERVE_TOKEN", raising=False)
    host = PluginHost(strict=True)
    (tmp_path / "p.yaml").write_text("name: x\n", encoding="utf-8")
    result = CliRunner().invoke(build_cli(host), ["serve", str(tmp_path / "p.yaml"), "--host", "0.0.0.0"],
                                obj={"host": host})
    assert result.exit_code == 2 and "export CRISS_RAG_SERVE_TOKEN=" in result.output


# -- sessions --------------------------------------------------------------------------------------------


def test_sessions_are_bounded_and_expire_when_idle():
    now = [0.0]
    store = SessionStore(lambda: object(), max_sessions=2, idle_s=10, clock=lambda: now[0])  # type: ignore[arg-type]
    a, b = store.create(), store.create()
    now[0] = 5
    assert store.get(a.id) is a  # a is now the most recently used
    c = store.create()  # the bound evicts b, the least recently used
    assert store.get(b.id) is None and store.get(c.id) is c and len(store) == 2
    now[0] = 12
    assert store.get(c.id) is c
    now[0] = 16
    assert store.get(a.id) is None and store.get(c.id) is c  # a idle for 11 s: gone; c used 4 s ago
    now[0] = 100
    assert len(store) == 0


# -- a slow or failing LLM fails only its own request -------------------------------------------------------


def llm_engine(root, server, policy: str = ""):
    llm = f'{{name: openai-compatible, model: stub-model, api_base: "{server.base_url}", max_retries: 0, timeout: 60}}'
    return engine_for(root, generator=f"{{name: llm, llm: gen{policy}}}", extra=f"llms:\n  gen: {llm}")


def wait_for_requests(server, n: int) -> None:
    deadline = time.monotonic() + 10
    while len(server.requests) < n:
        assert time.monotonic() < deadline, "the stub LLM never got the request"
        time.sleep(0.02)


def test_a_hanging_llm_times_out_its_request_while_others_are_answered(tmp_path, caplog):
    reply = "Hepatitis B infection raises the risk of liver cancer [1]."
    with OpenAIStubServer(reply=reply) as llm:
        engine = llm_engine(tmp_path, llm)
        settings = ServeSettings(timeout_s=1.5, workers=4)
        with running(create_app(engine, settings)) as url, httpx.Client(base_url=url, timeout=30) as http:
            llm.stall(60)  # the next LLM call hangs (until the stub stops)
            results: dict[str, httpx.Response] = {}
            hung = threading.Thread(
                target=lambda: results.setdefault("hung", http.post("/ask", json={"question": LIVER}))
            )
            hung.start()
            wait_for_requests(llm, 1)
            started = time.monotonic()
            other = http.post("/ask", json={"question": "What raises the risk of breast cancer?"})
            assert other.status_code == 200 and not other.json()["refused"]
            assert time.monotonic() - started < 1.5  # answered while the first request still hangs
            hung.join(timeout=10)
            assert results["hung"].status_code == 504 and error_of(results["hung"])["code"] == "timeout"
            assert http.get("/health").status_code == 200  # the server keeps serving

            llm.stall(60)  # the same for a stream: one error event
            _, events = stream(http, "/ask/stream", {"question": LIVER})
            assert [name for name, _ in events][-1] == "error" and events[-1][1]["code"] == "timeout"

            # a chat session answering one message is busy for a second one
            session = http.post("/chat", json={"question": LIVER}).json()["session_id"]
            llm.stall(60)
            first = threading.Thread(
                target=lambda: http.post("/chat", json={"question": "and?", "session_id": session})
            )
            first.start()
            wait_for_requests(llm, len(llm.requests) + 1)
            busy = http.post("/chat", json={"question": "again?", "session_id": session})
            assert busy.status_code == 409 and error_of(busy)["code"] == "session_busy"
            first.join(timeout=10)
            llm.clear()
    assert any("no answer within 1.5 s" in r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING)


def test_a_failing_llm_is_a_502_without_internals_and_the_log_has_the_details(tmp_path, caplog):
    with OpenAIStubServer(reply="x [1]") as llm:
        engine = llm_engine(tmp_path, llm)
        with running(create_app(engine, ServeSettings())) as url, httpx.Client(base_url=url, timeout=30) as http:
            llm.fail(500)
            response = http.post("/ask", json={"question": LIVER})
            llm.fail(500)
            _, events = stream(http, "/ask/stream", {"question": LIVER})
    assert response.status_code == 502
    error = error_of(response)
    assert error["code"] == "pipeline_error" and error["request_id"] in error["message"]
    assert llm.base_url not in response.text and "127.0.0.1" not in response.text
    assert events[-1][0] == "error" and events[-1][1]["code"] == "pipeline_error"
    assert "127.0.0.1" not in json.dumps(events)
    logged = [r for r in caplog.records if r.name == "criss_rag_serve" and r.levelno == logging.ERROR]
    assert logged and logged[0].exc_info is not None  # the traceback goes to the server log


def test_an_llm_streams_korean_token_by_token_and_the_tokens_join_to_the_answer(tmp_path):
    # the first sentence is held until the model has cited and begun the next one (until then it could still
    # decline); the second streams token by token
    reply = "B형 간염 바이러스에 감염되면 간암 위험이 높아집니다 [1]. 간암은 간세포에서 시작되는 암입니다 [1]."
    with OpenAIStubServer(reply=reply) as llm:
        engine = llm_engine(tmp_path, llm, ", unsupported: mark")  # mark: tokens stream as the model writes them
        with running(create_app(engine, ServeSettings())) as url, httpx.Client(base_url=url, timeout=30) as http:
            _, events = stream(http, "/ask/stream", {"question": "간암의 위험 요인은 무엇인가요?"})
    tokens = [data["text"] for name, data in events if name == "token"]
    assert len(tokens) > 3 and "".join(tokens) == reply
    done = events[-1][1]["answer"]
    assert done["text"] == reply and done["citations"][0]["doc_id"] == "liver-ko"
