"""Remote LLM and embedding backends (plugins ``openai`` and ``ollama``), built from real YAML and
run with the real LlamaIndex clients against the loopback stub servers of
:mod:`criss_rag.testing.servers`. Failure tests use tiny timeouts and backoffs."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from pathlib import Path

import httpx
import pytest
from llama_index.core.llms import ChatMessage

from criss_rag.config import parse_pipeline_text
from criss_rag.context import ComponentContext
from criss_rag.errors import ComponentError, ConfigError
from criss_rag.plugins import PluginHost
from criss_rag.testing import TINY_CORPUS, pipeline_from_yaml, replaced, run_pipeline
from criss_rag.testing.servers import Failure, OllamaStubServer, OpenAIStubServer, hash_vector, unused_port

SECRET = "sk-criss-test-0123456789abcdef"
REPLY = "Liver cancer starts in liver cells [1]."
BASE = """\
name: remote
loader: {name: jsonl, path: corpus.jsonl}
chunker: whole-document
retrievers: [bm25]
context: numbered
generator: extractive
"""
USER = [ChatMessage(role="user", content="What raises the risk of liver cancer?")]


@pytest.fixture(scope="module")
def host() -> PluginHost:
    return PluginHost(strict=True)


@pytest.fixture
def openai_key(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("OPENAI_API_KEY", SECRET)
    return SECRET


def build_llm(tmp_path: Path, host: PluginHost, spec: str, key: str = "gen"):
    """The LLM ``llms: {key: spec}`` of a pipeline built from YAML (``spec`` is a flow mapping)."""
    pipeline = pipeline_from_yaml(f"{BASE}llms:\n  {key}: {spec}\n", tmp_path, host)
    return pipeline.llm(key, requested_by="test")


def openai_llm(tmp_path: Path, host: PluginHost, server: OpenAIStubServer, extra: str = ""):
    return build_llm(tmp_path, host, "{name: openai, api_key: {env: OPENAI_API_KEY}, "
                                     f'api_base: "{server.base_url}"{extra}}}')


def compatible_llm(tmp_path: Path, host: PluginHost, api_base: str, extra: str = ""):
    return build_llm(tmp_path, host, f'{{name: openai-compatible, model: qwen2.5-7b, api_base: "{api_base}"{extra}}}')


def ollama_llm(tmp_path: Path, host: PluginHost, base_url: str, extra: str = ""):
    return build_llm(tmp_path, host, f'{{name: ollama, model: qwen2.5, base_url: "{base_url}", '
                                     f"retry_backoff: 0.01{extra}}}", key="local")


def build_embedding(tmp_path: Path, host: PluginHost, spec: str):
    pipeline = pipeline_from_yaml(replaced(BASE, "retrievers: [bm25]", "retrievers: [faiss]") + f"embedding: {spec}\n",
                                  tmp_path, host)
    return pipeline.embedding(requested_by="test")


def error_of(call) -> ComponentError:
    with pytest.raises(ComponentError) as info:
        call()
    return info.value


def words(text: str) -> int:
    return len(text.split())


# -- registration ---------------------------------------------------------------------------------


def test_plugins_register_through_their_entry_points(host):
    assert host.plugins["openai"].distribution == "criss-rag-openai"
    assert host.plugins["openai"].components == {"llm": ["openai", "openai-compatible"], "embedding": ["openai"]}
    assert host.plugins["ollama"].distribution == "criss-rag-ollama"
    assert host.plugins["ollama"].components == {"llm": ["ollama"], "embedding": ["ollama"]}


# -- openai (llm) ------------------------------------------------------------------------------------


def test_openai_chat_sends_model_temperature_max_tokens_and_the_key(tmp_path, host, openai_key):
    with OpenAIStubServer(reply=REPLY, api_key=SECRET) as server:
        llm = openai_llm(tmp_path, host, server)
        response = llm.chat(USER)
        request = server.requests_to("/v1/chat/completions")[-1]
    assert response.message.content == REPLY
    assert request.body["model"] == "gpt-4o"
    assert request.body["temperature"] == 0.1
    assert request.body["max_tokens"] == 1024
    assert request.body["stream"] is False
    assert request.body["messages"][-1]["content"] == USER[0].content
    assert request.headers["authorization"] == f"Bearer {SECRET}"
    prompt = words(USER[0].content)
    assert response.additional_kwargs == {"prompt_tokens": prompt, "completion_tokens": words(REPLY),
                                          "total_tokens": prompt + words(REPLY)}


def test_openai_complete_and_streams_collect_the_whole_reply(tmp_path, host, openai_key):
    with OpenAIStubServer(reply=REPLY) as server:
        llm = openai_llm(tmp_path, host, server)
        completion = llm.complete("What is liver cancer?")
        chunks = list(llm.stream_complete("What is liver cancer?"))
        chat_chunks = list(llm.stream_chat(USER))
        stream_request = server.requests[-1]
    assert completion.text == REPLY
    assert completion.additional_kwargs["completion_tokens"] == words(REPLY)
    assert "".join(c.delta for c in chunks) == REPLY
    assert len([c for c in chunks if c.delta]) == words(REPLY)  # really streamed, piece by piece
    assert chunks[-1].text == REPLY
    assert "".join(c.delta for c in chat_chunks) == REPLY
    assert stream_request.body["stream"] is True
    assert stream_request.body["stream_options"] == {"include_usage": True}
    assert chat_chunks[-1].additional_kwargs["completion_tokens"] == words(REPLY)  # usage on the last chunk


def test_openai_async_chat_and_stream(tmp_path, host, openai_key):
    with OpenAIStubServer(reply=REPLY) as server:
        llm = openai_llm(tmp_path, host, server)

        async def both():
            response = await llm.achat(USER)
            stream = await llm.astream_complete("hi")
            return response, [chunk.delta async for chunk in stream]

        response, deltas = asyncio.run(both())
        server.fail(503)
        error = error_of(lambda: asyncio.run(openai_llm(tmp_path, host, server, ", max_retries: 0").acomplete("hi")))
    assert response.message.content == REPLY
    assert response.additional_kwargs["total_tokens"] > 0
    assert "".join(deltas) == REPLY
    assert "failed (HTTP 503, after 0 retries)" in str(error)


def test_openai_key_is_never_shown(tmp_path, host, openai_key):
    with OpenAIStubServer() as server:
        pipeline = pipeline_from_yaml(
            f'{BASE}llms:\n  gen: {{name: openai, api_key: {{env: OPENAI_API_KEY}}, api_base: "{server.base_url}"}}\n',
            tmp_path, host)
        llm = ComponentContext(pipeline, "generator").llm("gen")
        plan = pipeline.config.plan()
        assert llm.complete("hi").text
    assert plan["llms"]["gen"]["api_key"] == {"env": "OPENAI_API_KEY"}
    for shown in (repr(llm), str(llm), json.dumps(llm.to_dict(), default=str), llm.model_dump_json(),
                  json.dumps(plan), pipeline.config.config_hash()):
        assert SECRET not in shown
    assert llm.api_key == SECRET  # still there for the client


def test_openai_key_written_inline_is_refused(tmp_path, host):
    with pytest.raises(ConfigError, match=r"key 'api_key' is a secret: write it as an environment reference"):
        build_llm(tmp_path, host, f"{{name: openai, api_key: {SECRET}}}")


def test_openai_key_env_var_must_be_set(tmp_path, host, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(ConfigError, match=r"environment variable OPENAI_API_KEY is not set. Set it first"):
        build_llm(tmp_path, host, "{name: openai, api_key: {env: OPENAI_API_KEY}}")


def test_openai_unknown_model_points_to_openai_compatible(tmp_path, host, openai_key):
    with pytest.raises(ConfigError) as info:
        build_llm(tmp_path, host, "{name: openai, model: llama3, api_key: {env: OPENAI_API_KEY}}")
    assert str(info.value) == (
        "llms.gen: the `openai` backend does not know the model 'llama3' (it accepts OpenAI's model names, e.g. "
        "gpt-4o, gpt-4o-mini). For a local or other OpenAI-compatible server use `name: openai-compatible` with "
        "its `api_base`.")


def test_openai_rejected_key_names_the_env_var_never_the_key(tmp_path, host, monkeypatch):
    monkeypatch.setenv("GATEWAY_KEY", SECRET)
    with OpenAIStubServer(api_key="another-key") as server:
        llm = build_llm(tmp_path, host, "{name: openai, api_key: {env: GATEWAY_KEY}, "
                                        f'api_base: "{server.base_url}", max_retries: 0}}')
        server.fail(401, message=f"Incorrect API key provided: {SECRET}.")
        error = error_of(lambda: llm.chat(USER))
        assert server.requests[-1].bearer == SECRET
    assert str(error) == (
        f"llms.gen (openai, model 'gpt-4o'): the server at {server.base_url} rejected the API key (HTTP 401). "
        "The key comes from the environment variable GATEWAY_KEY: check that it holds a valid key for this server.")
    assert error.__cause__ is None and error.__suppress_context__  # the server's text may quote the key


def test_openai_forbidden_model(tmp_path, host, openai_key):
    with OpenAIStubServer() as server:
        llm = openai_llm(tmp_path, host, server, ", max_retries: 0")
        server.fail(403)
        error = error_of(lambda: llm.complete("hi"))
    assert str(error) == (
        f"llms.gen (openai, model 'gpt-4o'): the server at {server.base_url} does not let this API key use model "
        "'gpt-4o' (HTTP 403). The key comes from the environment variable OPENAI_API_KEY: use a key (or project) "
        "that may use this model, or pick another `model`.")
    assert SECRET not in str(error)


def test_openai_unknown_model_on_the_server(tmp_path, host, openai_key):
    with OpenAIStubServer(models=["gpt-4o-mini"]) as server:
        llm = openai_llm(tmp_path, host, server)
        error = error_of(lambda: llm.chat(USER))
        assert len(server.requests) == 1  # a 404 is not retried
    assert str(error) == (
        f"llms.gen (openai, model 'gpt-4o'): the server at {server.base_url} has no model 'gpt-4o' (HTTP 404: The "
        "model `gpt-4o` does not exist or you do not have access to it.) Use a model it serves (GET "
        f"{server.base_url}/models lists them), or fix `api_base` (an OpenAI-compatible URL ends in /v1).")


def test_openai_rate_limit_then_success(tmp_path, host, openai_key):
    with OpenAIStubServer(reply=REPLY) as server:
        llm = openai_llm(tmp_path, host, server, ", max_retries: 2")
        server.fail(429, retry_after=0.01)
        assert llm.chat(USER).message.content == REPLY
        assert len(server.requests) == 2
        assert server.pending_failures == 0


def test_openai_rate_limit_after_all_retries(tmp_path, host, openai_key):
    with OpenAIStubServer() as server:
        llm = openai_llm(tmp_path, host, server, ", max_retries: 2")
        server.fail(429, 429, 429, retry_after=0.01)
        error = error_of(lambda: llm.chat(USER))
        assert len(server.requests) == 3  # the first try and max_retries retries, no more
    assert str(error) == (
        f"llms.gen (openai, model 'gpt-4o'): the server at {server.base_url} is rate-limiting requests (HTTP 429, "
        "after 2 retries): Rate limit reached for requests. Please try again later. Wait and try again, or raise "
        "`max_retries` (now 2).")


def test_openai_server_error_after_all_retries(tmp_path, host, openai_key):
    with OpenAIStubServer() as server:
        llm = openai_llm(tmp_path, host, server, ", max_retries: 1")
        server.fail(503, 500, retry_after=0.01)
        error = error_of(lambda: llm.complete("hi"))
        assert len(server.requests) == 2
    assert str(error) == (
        f"llms.gen (openai, model 'gpt-4o'): the server at {server.base_url} failed (HTTP 500, after 1 retry): The "
        "server had an error while processing your request. Sorry about that! Check the server's log; if it is "
        "overloaded, try again later or raise `max_retries` (now 1).")


def test_openai_retry_backs_off_without_retry_after(tmp_path, host, openai_key):
    with OpenAIStubServer(reply=REPLY) as server:
        llm = openai_llm(tmp_path, host, server, ", max_retries: 1")
        server.fail(500)
        assert llm.complete("hi").text == REPLY
        first, second = server.requests
    assert second.at - first.at >= 0.35  # the SDK waits 0.5 s (minus at most 25% jitter) before retry 1


def test_openai_streaming_failure_surfaces_when_iterated(tmp_path, host, openai_key):
    with OpenAIStubServer() as server:
        llm = openai_llm(tmp_path, host, server, ", max_retries: 0")
        server.fail(503)
        stream = llm.stream_chat(USER)
        error = error_of(lambda: list(stream))
    assert str(error).startswith(f"llms.gen (openai, model 'gpt-4o'): the server at {server.base_url} failed "
                                 "(HTTP 503, after 0 retries): The server is overloaded or not ready yet.")


def test_openai_timeout_names_the_param_to_raise(tmp_path, host, openai_key):
    with OpenAIStubServer() as server:
        llm = openai_llm(tmp_path, host, server, ", timeout: 0.2, max_retries: 0")
        server.stall(5)
        started = time.monotonic()
        error = error_of(lambda: llm.chat(USER))
        assert time.monotonic() - started < 3
    assert str(error) == (
        f"llms.gen (openai, model 'gpt-4o'): no answer from {server.base_url} within 0.2 s (after 0 retries). If the "
        "model is just slow, raise `timeout` (now 0.2) in the config; otherwise check that the server is not stuck.")


def test_openai_server_down(tmp_path, host, openai_key):
    url = f"http://127.0.0.1:{unused_port()}/v1"
    llm = build_llm(tmp_path, host, f'{{name: openai, api_key: {{env: OPENAI_API_KEY}}, api_base: "{url}", '
                                    "max_retries: 0}")
    error = error_of(lambda: llm.complete("hi"))
    assert str(error) == (
        f"llms.gen (openai, model 'gpt-4o'): cannot connect to {url} (after 0 retries). Is the server running? "
        "Start it (e.g. llama.cpp's llama-server, vllm serve, LM Studio), or fix `api_base` in the config.")


# -- openai-compatible (llm) ---------------------------------------------------------------------------


def test_openai_compatible_any_model_and_no_openai_key_leak(tmp_path, host, openai_key):
    with OpenAIStubServer(reply=REPLY, models=["qwen2.5-7b"]) as server:
        llm = compatible_llm(tmp_path, host, server.base_url)
        response = llm.chat(USER)
        request = server.requests[-1]
    assert response.message.content == REPLY
    assert request.path == "/v1/chat/completions"
    assert (request.body["model"], request.body["temperature"], request.body["max_tokens"]) == ("qwen2.5-7b", 0.1, 1024)
    assert "stream_options" not in request.body
    # no key configured: a placeholder goes out, never the OPENAI_API_KEY of the environment
    assert request.bearer == "no-key"
    assert SECRET not in json.dumps(request.headers)
    assert llm.metadata.context_window == 8192 and llm.metadata.is_chat_model


def test_openai_compatible_key_from_env(tmp_path, host, monkeypatch):
    monkeypatch.setenv("LOCAL_LLM_KEY", "local-secret")
    with OpenAIStubServer(reply=REPLY, api_key="local-secret") as server:
        llm = compatible_llm(tmp_path, host, server.base_url, ", api_key: {env: LOCAL_LLM_KEY}")
        assert llm.complete("hi").text == REPLY
        assert server.requests[-1].bearer == "local-secret"
    assert "local-secret" not in repr(llm)


def test_openai_compatible_completion_endpoint_and_stream_usage(tmp_path, host):
    with OpenAIStubServer(reply=REPLY) as server:
        llm = compatible_llm(tmp_path, host, server.base_url, ", is_chat_model: false, stream_usage: true")
        text = llm.complete("Q: liver cancer?").text
        chunks = list(llm.stream_complete("Q: liver cancer?"))
        paths = [r.path for r in server.requests]
        stream_body = server.requests[-1].body
    assert text == REPLY
    assert "".join(c.delta for c in chunks) == REPLY
    assert paths == ["/v1/completions", "/v1/completions"]
    assert stream_body["stream_options"] == {"include_usage": True}
    assert stream_body["prompt"] == "Q: liver cancer?"


def test_openai_compatible_server_wants_a_key(tmp_path, host):
    with OpenAIStubServer(api_key="needed") as server:
        llm = compatible_llm(tmp_path, host, server.base_url, ", max_retries: 0")
        error = error_of(lambda: llm.chat(USER))
    assert str(error) == (
        f"llms.gen (openai-compatible, model 'qwen2.5-7b'): the server at {server.base_url} requires an API key "
        "(HTTP 401). Add `api_key: {env: VAR_NAME}` to the config and export VAR_NAME=<the key>.")


def test_openai_compatible_unknown_model(tmp_path, host):
    with OpenAIStubServer(models=["llama-3.1-8b"]) as server:
        llm = compatible_llm(tmp_path, host, server.base_url)
        error = error_of(lambda: list(llm.stream_chat(USER)))
    assert str(error) == (
        f"llms.gen (openai-compatible, model 'qwen2.5-7b'): the server at {server.base_url} has no model "
        "'qwen2.5-7b' (HTTP 404: The model `qwen2.5-7b` does not exist or you do not have access to it.) Use a model "
        f"it serves (GET {server.base_url}/models lists them), or fix `api_base` (an OpenAI-compatible URL ends "
        "in /v1).")


def test_openai_compatible_needs_api_base(tmp_path, host):
    with pytest.raises(ConfigError, match=r"llm 'openai-compatible', key 'api_base': required key is missing"):
        build_llm(tmp_path, host, "{name: openai-compatible, model: m}")
    with pytest.raises(ConfigError, match=r"key 'api_base': Value error, must be an http:// or https:// URL"):
        build_llm(tmp_path, host, "{name: openai-compatible, model: m, api_base: 127.0.0.1:8080}")


def test_openai_compatible_async_error_is_translated(tmp_path, host):
    url = f"http://127.0.0.1:{unused_port()}/v1"
    llm = compatible_llm(tmp_path, host, url, ", max_retries: 0")
    error = error_of(lambda: asyncio.run(llm.acomplete("hi")))
    assert str(error).startswith(f"llms.gen (openai-compatible, model 'qwen2.5-7b'): cannot connect to {url}")


# -- openai (embedding) ----------------------------------------------------------------------------------


def test_openai_embedding_batches_and_queries(tmp_path, host, openai_key):
    texts = [doc["text"] for doc in TINY_CORPUS[:5]]
    with OpenAIStubServer(api_key=SECRET) as server:
        embedding = build_embedding(tmp_path, host, "{name: openai, api_key: {env: OPENAI_API_KEY}, "
                                                    f'api_base: "{server.base_url}", dimensions: 32, batch_size: 2}}')
        vectors = embedding.get_text_embedding_batch(texts)
        query = embedding.get_query_embedding("liver cancer risk")
        requests = server.requests_to("/v1/embeddings")
    assert [len(r.body["input"]) for r in requests[:3]] == [2, 2, 1]  # batch_size 2
    assert {r.body["model"] for r in requests} == {"text-embedding-3-large"}
    assert {r.body["dimensions"] for r in requests} == {32}
    assert {r.bearer for r in requests} == {SECRET}
    for text, vector in zip(texts, vectors, strict=True):
        assert vector == pytest.approx(hash_vector(text, 32), abs=1e-6)
    assert query == pytest.approx(hash_vector("liver cancer risk", 32), abs=1e-6)
    assert embedding.model_name == "text-embedding-3-large"
    assert SECRET not in repr(embedding) and SECRET not in embedding.model_dump_json()


def test_openai_embedding_any_model_name_for_compatible_servers(tmp_path, host, openai_key):
    with OpenAIStubServer() as server:
        embedding = build_embedding(tmp_path, host, "{name: openai, model: bge-m3, api_key: {env: OPENAI_API_KEY}, "
                                                    f'api_base: "{server.base_url}"}}')
        assert len(embedding.get_query_embedding("stomach")) == 64
        assert server.requests[-1].body["model"] == "bge-m3"


def test_openai_embedding_errors(tmp_path, host, openai_key):
    with OpenAIStubServer() as server:
        embedding = build_embedding(tmp_path, host, "{name: openai, api_key: {env: OPENAI_API_KEY}, "
                                                    f'api_base: "{server.base_url}", max_retries: 1}}')
        server.fail(429, retry_after=0.01)
        assert len(embedding.get_text_embedding_batch(["a b", "c d"])) == 2  # retried, then fine
        server.fail(401)
        error = error_of(lambda: embedding.get_query_embedding("x"))
        assert len(server.requests) == 3  # a 401 is not retried
    assert str(error) == (
        f"embedding (openai, model 'text-embedding-3-large'): the server at {server.base_url} rejected the API key "
        "(HTTP 401). The key comes from the environment variable OPENAI_API_KEY: check that it holds a valid key "
        "for this server.")
    url = f"http://127.0.0.1:{unused_port()}/v1"
    down = build_embedding(tmp_path, host, "{name: openai, api_key: {env: OPENAI_API_KEY}, "
                                           f'api_base: "{url}", max_retries: 0}}')
    assert str(error_of(lambda: down.get_text_embedding_batch(["x"]))).startswith(
        f"embedding (openai, model 'text-embedding-3-large'): cannot connect to {url} (after 0 retries).")


def _corpus(tmp_path: Path) -> None:
    lines = [json.dumps(doc) for doc in TINY_CORPUS]
    (tmp_path / "corpus.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


def test_faiss_end_to_end_through_the_openai_embedding_server(tmp_path, host, openai_key):
    _corpus(tmp_path)
    with OpenAIStubServer() as server:
        yaml_text = (replaced(BASE, "retrievers: [bm25]", "retrievers: [{name: faiss, top_k: 3}]") +
                     "embedding: {name: openai, api_key: {env: OPENAI_API_KEY}, "
                     f'api_base: "{server.base_url}"}}\n')
        answer = run_pipeline(yaml_text, "Which test finds stomach cancer early?", tmp_path, host)
        requests = server.requests_to("/v1/embeddings")
    assert answer.citations and answer.citations[0].doc_id == "gastric"
    assert answer.trace.stage("retrieve:faiss").n_out == 3
    assert sum(len(r.body["input"]) for r in requests) == len(TINY_CORPUS) + 1  # the corpus, then the question


# -- ollama (llm) -------------------------------------------------------------------------------------------


def test_ollama_chat_sends_options_and_never_asks_show(tmp_path, host):
    with OllamaStubServer(reply=REPLY, models=["qwen2.5"]) as server:
        llm = ollama_llm(tmp_path, host, server.url)
        response = llm.chat(USER)
        completion = llm.complete("What is liver cancer?")
        paths = [r.path for r in server.requests]
        body = server.requests[0].body
    assert response.message.content == REPLY and completion.text == REPLY
    assert paths == ["/api/chat", "/api/chat"]  # no /api/show round-trip
    assert body["model"] == "qwen2.5" and body["stream"] is False
    assert body["options"] == {"temperature": 0.1, "num_ctx": 8192, "num_predict": 1024}
    prompt = words(USER[0].content)
    assert response.additional_kwargs == {"prompt_tokens": prompt, "completion_tokens": words(REPLY),
                                          "total_tokens": prompt + words(REPLY)}
    assert completion.additional_kwargs["completion_tokens"] == words(REPLY)


def test_ollama_streams(tmp_path, host):
    with OllamaStubServer(reply=REPLY) as server:
        llm = ollama_llm(tmp_path, host, server.url)
        chat_chunks = list(llm.stream_chat(USER))
        chunks = list(llm.stream_complete("What is liver cancer?"))
        assert server.requests[-1].body["stream"] is True
    assert "".join(c.delta for c in chat_chunks) == REPLY
    assert "".join(c.delta for c in chunks) == REPLY
    assert len([c for c in chunks if c.delta]) == words(REPLY)
    assert chunks[-1].text == REPLY
    assert chat_chunks[-1].additional_kwargs["completion_tokens"] == words(REPLY)


def test_ollama_async(tmp_path, host):
    with OllamaStubServer(reply=REPLY) as server:
        llm = ollama_llm(tmp_path, host, server.url)
        server.fail(503)

        async def both():
            response = await llm.achat(USER)
            stream = await llm.astream_complete("hi")
            return response, [chunk.delta async for chunk in stream]

        response, deltas = asyncio.run(both())
    assert response.message.content == REPLY
    assert "".join(deltas) == REPLY


def test_ollama_missing_model_says_ollama_pull(tmp_path, host):
    with OllamaStubServer(models=["llama3.1"]) as server:
        llm = ollama_llm(tmp_path, host, server.url)
        error = error_of(lambda: llm.chat(USER))
        assert len(server.requests) == 1
    assert str(error) == (
        f"llms.local (ollama, model 'qwen2.5'): Ollama at {server.url} has no model 'qwen2.5' (model \"qwen2.5\" not "
        "found, try pulling it first.) Download it with `ollama pull qwen2.5`, or fix `model` in the config "
        "(`ollama list` shows the pulled models).")


def test_ollama_wrong_path_in_base_url(tmp_path, host):
    with OllamaStubServer() as server:
        llm = ollama_llm(tmp_path, host, server.url + "/v1")
        error = error_of(lambda: llm.complete("hi"))
    assert str(error) == (
        f"llms.local (ollama, model 'qwen2.5'): Ollama at {server.url}/v1 answered HTTP 404 (no route POST "
        "/v1/api/chat.) Check `base_url`: it is the server's address without a path, e.g. http://127.0.0.1:11434.")


def test_ollama_busy_then_success_backs_off_exponentially(tmp_path, host):
    with OllamaStubServer(reply=REPLY) as server:
        llm = build_llm(tmp_path, host, f'{{name: ollama, model: qwen2.5, base_url: "{server.url}", '
                                        "max_retries: 2, retry_backoff: 0.1}")
        server.fail(503, 429)
        assert llm.complete("hi").text == REPLY
        first, second, third = server.requests
    assert second.at - first.at >= 0.1  # 0.1 s, then
    assert third.at - second.at >= 0.2  # twice that


def test_ollama_busy_after_all_retries(tmp_path, host):
    with OllamaStubServer() as server:
        llm = ollama_llm(tmp_path, host, server.url)
        server.fail(503, 503, 503, 503)
        error = error_of(lambda: llm.chat(USER))
        assert len(server.requests) == 3
        assert server.pending_failures == 1
    assert str(error) == (
        f"llms.local (ollama, model 'qwen2.5'): Ollama at {server.url} failed (HTTP 503, after 2 retries): server "
        "busy, please try again. maximum pending requests exceeded. Check the Ollama log; if it is busy, try again "
        "later or raise `max_retries` (now 2).")


def test_ollama_rate_limited_after_all_retries(tmp_path, host):
    with OllamaStubServer() as server:
        llm = ollama_llm(tmp_path, host, server.url, ", max_retries: 1")
        server.fail(429, 429)
        error = error_of(lambda: list(llm.stream_chat(USER)))
    assert str(error) == (
        f"llms.local (ollama, model 'qwen2.5'): Ollama at {server.url} is rate-limiting requests (HTTP 429, after 1 "
        "retry): too many requests. Wait and try again, or raise `max_retries` (now 1).")


def test_ollama_stream_is_retried_until_the_first_chunk(tmp_path, host):
    with OllamaStubServer(reply=REPLY) as server:
        llm = ollama_llm(tmp_path, host, server.url)
        server.fail(500)
        assert "".join(c.delta for c in llm.stream_chat(USER)) == REPLY
        assert len(server.requests) == 2


def test_ollama_timeout_names_request_timeout(tmp_path, host):
    with OllamaStubServer() as server:
        llm = ollama_llm(tmp_path, host, server.url, ", request_timeout: 0.2, max_retries: 0")
        server.stall(5)
        started = time.monotonic()
        error = error_of(lambda: llm.complete("hi"))
        assert time.monotonic() - started < 3
    assert str(error) == (
        f"llms.local (ollama, model 'qwen2.5'): no answer from Ollama at {server.url} within 0.2 s (after 0 retries). "
        "If the model is just slow or still loading, raise `request_timeout` (now 0.2) in the config; otherwise "
        "check `ollama ps` and the Ollama log.")


def test_ollama_server_down(tmp_path, host):
    url = f"http://127.0.0.1:{unused_port()}"
    llm = ollama_llm(tmp_path, host, url, ", max_retries: 1")
    expected = (f"llms.local (ollama, model 'qwen2.5'): cannot connect to Ollama at {url} (after 1 retry). Is it "
                "running? Start it with `ollama serve`, or fix `base_url` in the config.")
    assert str(error_of(lambda: llm.chat(USER))) == expected
    assert str(error_of(lambda: list(llm.stream_complete("hi")))) == expected


def test_ollama_unauthorized_names_ollama_api_key(tmp_path, host):
    with OllamaStubServer() as server:
        llm = ollama_llm(tmp_path, host, server.url)
        server.fail(401)
        error = error_of(lambda: llm.chat(USER))
    assert str(error) == (
        f"llms.local (ollama, model 'qwen2.5'): Ollama at {server.url} refused the request (HTTP 401: unauthorized.) "
        "If a proxy in front of Ollama wants a key: the ollama client sends the environment variable OLLAMA_API_KEY "
        "as a bearer token; check that it is set to a key the server accepts.")


# -- ollama (embedding) ---------------------------------------------------------------------------------------


def test_ollama_embedding_batches_and_queries(tmp_path, host):
    texts = [doc["text"] for doc in TINY_CORPUS[:3]]
    with OllamaStubServer(models=["nomic-embed-text"]) as server:
        spec = f'{{name: ollama, model: nomic-embed-text, base_url: "{server.url}", batch_size: 2}}'
        embedding = build_embedding(tmp_path, host, spec)
        vectors = embedding.get_text_embedding_batch(texts)
        query = embedding.get_query_embedding("liver cancer risk")
        requests = server.requests
    assert [r.path for r in requests] == ["/api/embed"] * 3
    assert [r.body["input"] for r in requests] == [texts[:2], texts[2:], "liver cancer risk"]
    assert {r.body["model"] for r in requests} == {"nomic-embed-text"}
    assert vectors == [pytest.approx(hash_vector(t)) for t in texts]
    assert query == pytest.approx(hash_vector("liver cancer risk"))


def test_ollama_embedding_errors_and_retries(tmp_path, host):
    with OllamaStubServer(models=["bge-m3"]) as server:
        spec = f'{{name: ollama, model: nomic-embed-text, base_url: "{server.url}", retry_backoff: 0.01}}'
        embedding = build_embedding(tmp_path, host, spec)
        error = error_of(lambda: embedding.get_query_embedding("x"))
        assert "Download it with `ollama pull nomic-embed-text`" in str(error)
        good = build_embedding(tmp_path, host, replaced(spec, "nomic-embed-text", "bge-m3"))
        server.fail(500)
        assert len(good.get_text_embedding_batch(["a", "b"])) == 2
    url = f"http://127.0.0.1:{unused_port()}"
    down = build_embedding(tmp_path, host, f'{{name: ollama, model: bge-m3, base_url: "{url}", max_retries: 0}}')
    assert str(error_of(lambda: down.get_text_embedding_batch(["x"]))) == (
        f"embedding (ollama, model 'bge-m3'): cannot connect to Ollama at {url} (after 0 retries). Is it running? "
        "Start it with `ollama serve`, or fix `base_url` in the config.")


def test_faiss_end_to_end_through_the_ollama_embedding_server(tmp_path, host):
    _corpus(tmp_path)
    with OllamaStubServer() as server:
        yaml_text = (replaced(BASE, "retrievers: [bm25]", "retrievers: [{name: faiss, top_k: 2}]") +
                     f'embedding: {{name: ollama, model: bge-m3, base_url: "{server.url}"}}\n')
        answer = run_pipeline(yaml_text, "Does smoking cause lung cancer?", tmp_path, host)
        assert server.requests_to("/api/embed")
    assert answer.citations[0].doc_id == "lung"


# -- the stub servers themselves ------------------------------------------------------------------------------


def test_stub_servers_stop_when_the_block_exits():
    with OpenAIStubServer() as server:
        port = server.port
        server.stall(30)
        started = time.monotonic()
        with pytest.raises(httpx.ReadTimeout):
            httpx.get(f"{server.base_url}/models", timeout=0.1)
    assert time.monotonic() - started < 5  # the stalled request did not hold the exit
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        pass


def test_stub_server_scripting_and_routes():
    seen = []

    def echo(request):
        seen.append(request.prompt)
        return f"echo: {request.prompt}"

    with OpenAIStubServer(reply=echo, models=["a", "b"], api_key="k") as server:
        auth = {"Authorization": "Bearer k"}
        assert [m["id"] for m in httpx.get(f"{server.base_url}/models", headers=auth).json()["data"]] == ["a", "b"]
        assert httpx.get(f"{server.base_url}/models").status_code == 401
        body = {"model": "a", "messages": [{"role": "user", "content": "hi"}]}
        reply = httpx.post(f"{server.base_url}/chat/completions", json=body, headers=auth).json()
        assert reply["choices"][0]["message"]["content"] == "echo: hi"
        server.enqueue(Failure(status=429, retry_after=2), Failure(status=500, message="boom"))
        limited = httpx.post(f"{server.base_url}/chat/completions", json=body, headers=auth)
        assert limited.status_code == 429 and limited.headers["retry-after-ms"] == "2000"
        assert limited.json()["error"]["code"] == "rate_limit_exceeded"
        failed = httpx.post(f"{server.base_url}/chat/completions", json=body, headers=auth)
        assert failed.json() == {"error": {"message": "boom", "type": "server_error", "param": None, "code": None}}
        assert httpx.post(f"{server.base_url}/nowhere", json={}, headers=auth).status_code == 404
        assert [r.path for r in server.requests][-3:] == ["/v1/chat/completions", "/v1/chat/completions", "/v1/nowhere"]
    assert seen == ["hi"]


def test_ollama_stub_routes():
    with OllamaStubServer(models=["m"], context_length=4096) as server:
        assert httpx.get(server.url).text == "Ollama is running"
        show = httpx.post(f"{server.url}/api/show", json={"model": "m:latest"}).json()
        assert show["model_info"]["llama.context_length"] == 4096
        assert [m["name"] for m in httpx.get(f"{server.url}/api/tags").json()["models"]] == ["m"]
        old = httpx.post(f"{server.url}/api/embeddings", json={"model": "m", "prompt": "a b"}).json()
        assert old["embedding"] == pytest.approx(hash_vector("a b"))
        generated = httpx.post(f"{server.url}/api/generate", json={"model": "m", "prompt": "x", "stream": False}).json()
        assert generated["response"] == "Stub answer about cancer." and generated["done"] is True
        missing = httpx.post(f"{server.url}/api/chat", json={"model": "other", "messages": []})
        assert missing.status_code == 404
        assert missing.json() == {"error": 'model "other" not found, try pulling it first'}


def test_parse_pipeline_text_keeps_the_env_reference(tmp_path, host, openai_key):
    config = parse_pipeline_text(f"{BASE}llms:\n  gen: {{name: openai, api_key: {{env: OPENAI_API_KEY}}}}\n",
                                 host.registry, base_dir=tmp_path)
    assert config.llms["gen"].env_refs == {"api_key": "OPENAI_API_KEY"}
    assert config.llms["gen"].params.api_key.get_secret_value() == SECRET
    assert SECRET not in repr(config.llms["gen"].params)
