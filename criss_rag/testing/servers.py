"""Loopback stub servers that speak the OpenAI and Ollama HTTP APIs, for tests.

LLM code is tested here with the *real* LlamaIndex clients against a *fake* server: a stdlib
``ThreadingHTTPServer`` on 127.0.0.1 (a free port) that answers in the wire format of the real
service, streaming included. Nothing leaves the machine and no model is needed.

Each server is a context manager; it stops (and closes every open connection) when the block
exits. What it does is scriptable:

- ``reply``: the answer text, or a function of the :class:`RecordedRequest` returning it;
- ``think``: when set, every reply starts with ``<think>{think}</think>``, as a reasoning model's do;
  or, the way servers that separate it send it, apart from the answer: the OpenAI stub with
  ``think_apart=True`` in ``reasoning_content`` (vLLM, llama.cpp's server, DeepSeek), the Ollama
  stub in ``message.thinking`` whenever the request asks ``"think": true`` (as Ollama does);
- ``fail(429, 500, ...)``, ``stall(seconds)`` or ``enqueue(Failure(...))``: a queue of scripted
  failures, consumed one per request (an HTTP error with the service's own error JSON, a delay
  longer than the client's timeout, or a stream that breaks off: ``Failure(cut_after=N)``);
- ``chunked=True``: streams are sent with ``Transfer-Encoding: chunked`` on a kept-alive connection
  (as llama.cpp's server and most proxies do) instead of a body that ends when the connection closes;
- ``keep_alive_every=N`` (OpenAI): an SSE comment ``: keep-alive`` before every N-th piece, as
  proxies and some servers send while a model is slow;
- ``api_key``: when set, requests without ``Authorization: Bearer <api_key>`` get a 401;
- ``models``: when set, requests for any other model get the service's 404 "model not found".

``requests`` logs every request (method, path, headers, parsed JSON body), so tests can assert
what the client sent.

Example::

    from llama_index.llms.openai_like import OpenAILike
    from criss_rag.testing.servers import OpenAIStubServer

    def test_the_client_sends_my_settings():
        with OpenAIStubServer(reply="Liver cancer starts in liver cells [1].") as server:
            llm = OpenAILike(model="m", api_base=server.base_url, api_key="k", is_chat_model=True,
                             temperature=0.1, max_retries=0)
            assert llm.complete("What is liver cancer?").text.startswith("Liver cancer")
            assert server.requests[-1].body["temperature"] == 0.1
            assert server.requests[-1].bearer == "k"

The servers live in :mod:`criss_rag.testing.openai_stub` and :mod:`criss_rag.testing.ollama_stub`,
on the plumbing of :mod:`criss_rag.testing.stub_server` and :mod:`criss_rag.testing.stub_requests`;
this module is their public home.
"""

from __future__ import annotations

from criss_rag.testing.ollama_stub import OllamaStubServer
from criss_rag.testing.openai_stub import OpenAIStubServer
from criss_rag.testing.stub_requests import Failure, RecordedRequest, hash_vector, unused_port
from criss_rag.testing.stub_server import StubServer

__all__ = [
    "Failure",
    "OllamaStubServer",
    "OpenAIStubServer",
    "RecordedRequest",
    "StubServer",
    "hash_vector",
    "unused_port",
]
