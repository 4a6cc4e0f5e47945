"""Bounded resources under misbehaving clients: many SSE clients that drop mid-answer leave no
answer running, no model slot held and no extra thread; a client that sends its headers (or its
body) slowly is cut off instead of holding a connection open."""

from __future__ import annotations

import socket
import threading
import time
from types import SimpleNamespace

import httpx
import pytest

from criss_rag import hookimpl
from criss_rag.engine import Engine
from criss_rag.indexing.ingestion import ingest
from criss_rag.testing import FAKE_PIPELINE_YAML, EchoGenerator, pipeline_from_yaml, plugin_host, replaced
from criss_rag.types import Generation
from criss_rag_serve.app import create_app
from criss_rag_serve.limits import uvicorn_options
from criss_rag_serve.running import running
from criss_rag_serve.settings import ServeSettings

QUESTION = "Which test finds stomach cancer?"
WAIT_S = 30  # an upper bound for something to happen, never a measured time
WORKERS = 4
CLIENTS = 12


class SlotStream(EchoGenerator):
    """Streams a long answer slowly while holding the one model slot (as llama-cpp's lock does)."""

    slot = threading.Lock()
    counts = {"opened": 0, "closed": 0, "pieces": 0}

    def may_decline(self, text, context) -> bool:
        return False

    def stream(self, query, context):
        assert SlotStream.slot.acquire(timeout=WAIT_S)
        SlotStream.counts["opened"] += 1
        try:
            for i in range(300):
                time.sleep(0.01)
                SlotStream.counts["pieces"] += 1
                yield f"word{i} "
            return Generation(text="".join(f"word{i} " for i in range(300)) + "[1]", model="slot-stream")
        finally:
            SlotStream.counts["closed"] += 1
            SlotStream.slot.release()


#: tokens stream as written (unsupported: mark), or the sentence gate holds them (citations: attribute): the
#: answer here has no sentence end, so a reader sees no token before the end and leaves at "generating"
POLICIES = {"token-by-token": "unsupported: mark", "gated": "unsupported: mark, citations: attribute"}


def engine_with(root, policies: str) -> Engine:
    impl = hookimpl(lambda register: register("slot-stream", SlotStream))
    impl.__name__ = "register_generators"
    host = plugin_host({"slot": SimpleNamespace(register_generators=impl)})
    yaml_text = replaced(
        FAKE_PIPELINE_YAML, "generator: {name: fake-echo}", f"generator: {{name: slot-stream, {policies}}}"
    )
    pipeline = pipeline_from_yaml(yaml_text, root, host)
    ingest(pipeline)
    return Engine.open(pipeline)


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    return engine_with(tmp_path_factory.mktemp("limits"), POLICIES["token-by-token"])


def settings(**changes) -> ServeSettings:
    return ServeSettings(workers=WORKERS, timeout_s=WAIT_S, **changes)


def drop_mid_answer(url: str) -> None:
    """Read until the first token (or, when the gate holds them, the `generating` step), then leave."""
    with httpx.Client(base_url=url, timeout=WAIT_S) as http, \
            http.stream("POST", "/ask/stream", json={"question": QUESTION}) as response:
        for line in response.iter_lines():
            if line.startswith("event: token") or '"step": "generating"' in line:
                return  # leaving the block closes the connection mid-answer


def answer_threads() -> int:
    return sum(1 for t in threading.enumerate() if t.name.startswith("criss-rag-answer"))


@pytest.mark.parametrize("policy", list(POLICIES))
def test_clients_dropping_sse_streams_mid_answer_leave_nothing_running(tmp_path, policy):
    engine = engine_with(tmp_path, POLICIES[policy])
    baseline = threading.active_count()
    app = create_app(engine, settings())
    with running(app, **uvicorn_options(10.0, 256)) as url, httpx.Client(base_url=url, timeout=WAIT_S) as http:
        clients = [threading.Thread(target=drop_mid_answer, args=(url,)) for _ in range(CLIENTS)]
        for client in clients:
            client.start()
        for client in clients:
            client.join(WAIT_S)
        deadline = time.monotonic() + WAIT_S
        while (health := http.get("/health").json())["in_flight"] and time.monotonic() < deadline:
            time.sleep(0.05)
        assert health["in_flight"] == 0  # every dropped answer stopped
        assert health["answer_threads"] <= WORKERS and answer_threads() <= WORKERS
        assert SlotStream.counts["opened"] == SlotStream.counts["closed"]  # every model stream closed
        assert SlotStream.counts["pieces"] < CLIENTS * 300  # stopped mid-answer, not written to the end
        assert SlotStream.slot.acquire(blocking=False)  # the model slot is free
        SlotStream.slot.release()
        whole = http.post("/ask", json={"question": QUESTION}).json()  # and the server still answers in full
        assert not whole["refused"] and whole["citations"]
    # the pool's threads end with the app (shut down without waiting: give them a moment; the +1: a closing thread)
    deadline = time.monotonic() + WAIT_S
    while threading.active_count() > baseline + 1 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert threading.active_count() <= baseline + 1, [t.name for t in threading.enumerate()]


def raw_connection(url: str) -> socket.socket:
    host, port = url.removeprefix("http://").split(":")
    sock = socket.create_connection((host, int(port)), timeout=WAIT_S)
    return sock


def closed_by_server(sock: socket.socket) -> bool:
    try:
        return sock.recv(1024) == b""
    except ConnectionResetError:
        return True


def test_a_client_that_never_finishes_its_headers_is_disconnected(engine):
    app = create_app(engine, settings())
    with running(app, **uvicorn_options(0.5, 256)) as url:
        sock = raw_connection(url)
        sock.sendall(b"POST /ask HTTP/1.1\r\nHost: x\r\n")  # and never the blank line
        assert closed_by_server(sock)
        sock.close()


def test_headers_sent_a_byte_at_a_time_are_cut_off_at_the_deadline(engine):
    app = create_app(engine, settings())
    request = b"POST /ask HTTP/1.1\r\nHost: x\r\n" + b"X-Slow: " + b"a" * 200
    sent = 0
    with running(app, **uvicorn_options(0.5, 256)) as url:
        sock = raw_connection(url)
        try:
            for sent in range(len(request)):  # 200+ bytes, 0.05 s apart: ten seconds, twenty deadlines
                sock.sendall(request[sent:sent + 1])
                time.sleep(0.05)
        except (BrokenPipeError, ConnectionResetError):
            pass
        cut = sent < len(request) - 1 or closed_by_server(sock)
        sock.close()
    assert cut


def test_a_slow_body_gets_408_and_normal_requests_still_pass(engine):
    app = create_app(engine, settings(body_timeout_s=0.5))
    with running(app, **uvicorn_options(10.0, 256)) as url:
        with httpx.Client(base_url=url, timeout=WAIT_S) as http:
            assert not http.post("/ask", json={"question": QUESTION}).json()["refused"]
        sock = raw_connection(url)
        sock.sendall(
            b'POST /ask HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"q'
        )
        reply = b""
        while chunk := sock.recv(4096):  # the server closes the connection after its 408
            reply += chunk
        reply = reply.decode()
        sock.close()
    assert reply.startswith("HTTP/1.1 408") and "request_timeout" in reply
