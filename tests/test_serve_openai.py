"""The OpenAI-compatible endpoint of `criss-rag serve`, driven by the official `openai` client over
real HTTP on 127.0.0.1: a cited answer and a refusal, streaming and not, the model list, the bearer
token, follow-up turns, request filters; and `criss-rag serve examples/default.yaml` end to end."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx
import openai
import pytest
from serve_fixtures import engine_for

from criss_rag.testing.servers import unused_port
from criss_rag_serve.app import create_app
from criss_rag_serve.running import running
from criss_rag_serve.settings import ServeSettings

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "t0ken-for-the-openai-tests-0123456789"
LIVER = "What raises the risk of liver cancer?"
OFF_TOPIC = "What is the capital of France?"


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    return engine_for(tmp_path_factory.mktemp("serve-openai"), extra="")


@pytest.fixture(scope="module")
def base_url(engine):
    with running(create_app(engine, ServeSettings(max_question_chars=200), token=TOKEN)) as url:
        yield url


@pytest.fixture()
def client(base_url):
    with openai.OpenAI(base_url=f"{base_url}/v1", api_key=TOKEN, max_retries=0, timeout=30) as client:
        yield client


def user(text: str) -> dict:
    return {"role": "user", "content": text}


def test_models_lists_the_served_pipeline(client):
    models = client.models.list()
    assert [m.id for m in models.data] == ["serve-test"] and models.data[0].owned_by == "criss_rag"


def test_a_cited_answer_in_message_content_and_the_answer_in_criss_rag(client):
    completion = client.chat.completions.create(model="serve-test", messages=[user(LIVER)])
    message = completion.choices[0].message
    extra = completion.criss_rag  # the documented extra field: the whole Answer
    assert completion.object == "chat.completion" and completion.model == "serve-test"
    assert completion.choices[0].finish_reason == "stop" and message.role == "assistant"
    answer_part, _, block = message.content.partition("\n\nSources:\n")
    assert answer_part == extra["text"] and "[1]" in answer_part and message.refusal is None
    assert block == "1. Liver cancer — https://example.org/liver"  # readable title, working link, numbered as shown
    assert completion.sources == [{"number": 1, "evidence": 1, "title": "Liver cancer",
                                   "url": "https://example.org/liver", "doc_id": "liver"}]
    assert extra["refused"] is False and extra["citations"][0]["doc_id"] == "liver"
    assert extra["sentences"] and extra["context"] and extra["trace"]["stages"]
    assert completion.usage is None  # the extractive generator counts no tokens, and none are made up


def test_a_refusal_says_so_in_content_refusal_and_criss_rag(client):
    completion = client.chat.completions.create(model="serve-test", messages=[user(OFF_TOPIC)])
    message = completion.choices[0].message
    assert completion.criss_rag["refused"] is True and completion.criss_rag["refusal_reason"] == "no_evidence"
    assert message.content == message.refusal == completion.criss_rag["text"] and not completion.criss_rag["citations"]
    assert "Sources" not in message.content and completion.sources == []


def test_streaming_sends_the_checked_answer_then_criss_rag_in_the_last_chunk(client):
    chunks = list(client.chat.completions.create(model="serve-test", messages=[user(LIVER)], stream=True))
    assert chunks[0].choices[0].delta.role == "assistant"
    text = "".join(c.choices[0].delta.content or "" for c in chunks)
    last = chunks[-1]
    assert last.choices[0].finish_reason == "stop" and all(c.choices[0].finish_reason is None for c in chunks[:-1])
    assert len(chunks) > 3  # cut into pieces, not one blob
    non_streamed = client.chat.completions.create(model="serve-test", messages=[user(LIVER)])
    assert text == non_streamed.choices[0].message.content and "\n\nSources:\n1. Liver cancer" in text
    assert last.sources == non_streamed.sources and last.criss_rag["citations"][0]["doc_id"] == "liver"
    assert len({c.id for c in chunks}) == 1 and all(c.object == "chat.completion.chunk" for c in chunks)


def test_a_streamed_refusal(client):
    chunks = list(client.chat.completions.create(model="serve-test", messages=[user(OFF_TOPIC)], stream=True))
    last = chunks[-1]
    assert last.criss_rag["refused"] is True and last.choices[0].delta.refusal == last.criss_rag["text"]
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == last.criss_rag["text"]


def test_korean_and_japanese_answers(client):
    for question, doc in (("간암의 위험 요인은 무엇인가요?", "liver-ko"), ("肺がんの症状は何ですか？", "lung-ja")):
        completion = client.chat.completions.create(model="serve-test", messages=[user(question)])
        assert completion.criss_rag["citations"][0]["doc_id"] == doc
        assert {"간암": "\n\n출처:\n1. 간암 — ", "肺がん": "\n\n出典:\n1. 肺がん — "}[completion.sources[0]["title"]] \
            in completion.choices[0].message.content
        chunks = list(client.chat.completions.create(model="serve-test", messages=[user(question)], stream=True))
        assert "".join(c.choices[0].delta.content or "" for c in chunks) == completion.choices[0].message.content


def test_earlier_turns_make_a_follow_up_standalone(client):
    first = client.chat.completions.create(model="serve-test", messages=[user("How is liver cancer caused?")])
    follow = client.chat.completions.create(model="serve-test", messages=[
        {"role": "system", "content": "You are a helpful assistant."},  # ignored: the pipeline has its prompts
        user("How is liver cancer caused?"),
        {"role": "assistant", "content": first.choices[0].message.content},
        user("And what raises its risk?"),
    ])
    condense = follow.criss_rag["trace"]["stages"][0]
    assert condense["stage"] == "condense" and "liver cancer" in condense["notes"]["question"]
    assert follow.criss_rag["citations"][0]["doc_id"] == "liver"


def test_the_sources_block_can_be_left_out_per_request_or_per_server(client, engine):
    completion = client.chat.completions.create(model="serve-test", messages=[user(LIVER)],
                                                extra_body={"criss_rag": {"sources_in_content": False}})
    assert completion.choices[0].message.content == completion.criss_rag["text"] and completion.sources
    with running(create_app(engine, ServeSettings(sources_in_content=False))) as url:
        with openai.OpenAI(base_url=f"{url}/v1", api_key="none", max_retries=0, timeout=30) as plain:
            chunks = list(plain.chat.completions.create(model="serve-test", messages=[user(LIVER)], stream=True))
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == chunks[-1].criss_rag["text"]


def test_llamaindex_openai_like_as_a_chat_model_gets_the_sources_in_its_text(base_url):
    """The documented LlamaIndex settings: OpenAILike with is_chat_model=True (chat and stream_chat)."""
    from llama_index.core.llms import ChatMessage
    from llama_index.llms.openai_like import OpenAILike

    llm = OpenAILike(model="serve-test", api_base=f"{base_url}/v1", api_key=TOKEN, is_chat_model=True,
                     max_retries=0, timeout=30)
    reply = llm.chat([ChatMessage(role="user", content=LIVER)])
    content = reply.message.content
    assert "[1]" in content and content.endswith("\n\nSources:\n1. Liver cancer — https://example.org/liver")
    streamed = list(llm.stream_chat([ChatMessage(role="user", content=LIVER)]))
    assert streamed[-1].message.content == content
    assert llm.complete(LIVER).text == content  # is_chat_model=True: complete() goes through the chat endpoint


def test_the_legacy_completions_endpoint_names_the_chat_endpoint(client, base_url):
    from llama_index.llms.openai_like import OpenAILike

    with pytest.raises(openai.NotFoundError, match="/v1/chat/completions.*is_chat_model=True"):
        client.completions.create(model="serve-test", prompt=LIVER)
    llm = OpenAILike(model="serve-test", api_base=f"{base_url}/v1", api_key=TOKEN, max_retries=0)  # is_chat_model=False
    with pytest.raises(openai.NotFoundError, match="is_chat_model=True"):
        llm.complete(LIVER)


def test_a_follow_up_after_an_answer_with_its_sources_block(client):
    first = client.chat.completions.create(model="serve-test", messages=[user("How is liver cancer caused?")])
    assert "Sources:" in first.choices[0].message.content
    follow = client.chat.completions.create(model="serve-test", messages=[
        user("How is liver cancer caused?"), {"role": "assistant", "content": first.choices[0].message.content},
        user("And what raises its risk?")])
    assert follow.criss_rag["citations"][0]["doc_id"] == "liver"


def test_request_filters_travel_in_the_criss_rag_field(client):
    completion = client.chat.completions.create(model="serve-test", messages=[user("What raises the risk of cancer?")],
                                                extra_body={"criss_rag": {"filters": {"cancer_type": "breast"}}})
    assert {c["doc_id"] for c in completion.criss_rag["citations"]} == {"breast"}


def test_content_given_as_text_parts(client):
    completion = client.chat.completions.create(model="serve-test", messages=[
        {"role": "user", "content": [{"type": "text", "text": LIVER}]}])
    assert completion.criss_rag["question"] == LIVER and not completion.criss_rag["refused"]


def test_the_bearer_token_is_needed(base_url):
    with openai.OpenAI(base_url=f"{base_url}/v1", api_key="wrong", max_retries=0) as wrong:
        with pytest.raises(openai.AuthenticationError, match="bearer token"):
            wrong.chat.completions.create(model="serve-test", messages=[user(LIVER)])
        with pytest.raises(openai.AuthenticationError):
            wrong.models.list()
    assert httpx.post(f"{base_url}/v1/chat/completions", json={"model": "serve-test", "messages": [user(LIVER)]}
                      ).status_code == 401


def test_bad_requests_name_what_is_wrong(client):
    with pytest.raises(openai.NotFoundError, match="serves one model, 'serve-test'"):
        client.chat.completions.create(model="gpt-4o", messages=[user(LIVER)])
    with pytest.raises(openai.UnprocessableEntityError, match="last message must be the user"):
        client.chat.completions.create(
            model="serve-test", messages=[user(LIVER), {"role": "assistant", "content": "x"}]
        )
    with pytest.raises(openai.UnprocessableEntityError, match="n=1"):
        client.chat.completions.create(model="serve-test", messages=[user(LIVER)], n=2)
    with pytest.raises(openai.UnprocessableEntityError, match="longer than 200"):
        client.chat.completions.create(model="serve-test", messages=[user("liver " * 50)])
    with pytest.raises(openai.UnprocessableEntityError, match="empty"):
        client.chat.completions.create(model="serve-test", messages=[user("   ")])


# -- the real command on the default pipeline ------------------------------------------------------------


def test_criss_rag_serve_default_yaml_answers_the_openai_client(tmp_path):
    """`criss-rag serve examples/default.yaml` (its own index in tmp_path): cited and refused, streaming
    and not; /health answers only once the models are loaded (the server warms up first)."""
    port = unused_port()
    env = {**os.environ, "CRISS_RAG_SERVE_TOKEN": TOKEN}
    command = [sys.executable, "-m", "criss_rag", "serve", str(ROOT / "examples" / "default.yaml"), "--port", str(port),
               "--set", f"index.dir={tmp_path / 'index'}", "--build-if-missing"]
    server = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 240
        while True:
            assert server.poll() is None, server.stdout.read()
            try:
                health = httpx.get(f"{url}/health", timeout=2).json()
                break
            except httpx.TransportError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.5)
        assert health["index_loaded"] and health["warm_up_s"]["embedding"] > 0
        with openai.OpenAI(base_url=f"{url}/v1", api_key=TOKEN, max_retries=0, timeout=120) as client:
            assert [m.id for m in client.models.list().data] == ["default"]
            for stream in (False, True):
                answered = client.chat.completions.create(model="default", stream=stream,
                                                          messages=[user("How is liver cancer treated?")])
                refused = client.chat.completions.create(model="default", stream=stream,
                                                         messages=[user("How do I replace the battery in my car?")])
                if stream:
                    answered, refused = list(answered)[-1], list(refused)[-1]
                assert answered.criss_rag["refused"] is False, answered.criss_rag["refusal_detail"]
                assert answered.criss_rag["citations"][0]["title"].startswith("Liver cancer")
                assert refused.criss_rag["refused"] is True and not refused.criss_rag["citations"]
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        server.stdout.close()
