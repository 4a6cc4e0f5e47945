"""`serve` and a re-ingest: each request is answered from one corpus version from start to end, the
server says which version answered and which it serves, and it loads the new version (or, with
`--no-reload`, says it needs a restart; a damaged new version is refused and the old one serves)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from types import SimpleNamespace

import httpx
import pytest

from criss_rag import hookimpl
from criss_rag.engine import Engine
from criss_rag.indexing.ingestion import ingest
from criss_rag.testing import EchoGenerator, pipeline_from_yaml, plugin_host
from criss_rag_serve.app import create_app
from criss_rag_serve.running import running
from criss_rag_serve.settings import ServeSettings

QUESTION = "Which test finds stomach cancer?"
OLD = "Endoscopy is the main test for stomach cancer."
NEW = "Gastroscopy is now the usual test for stomach cancer."
YAML = """\
name: versions
loader: {name: jsonl, path: corpus.jsonl}
chunker: {name: fake-chunker}
retrievers: [{name: fake-keyword, top_k: 5}]
context: {name: fake-all}
generator: {name: held-echo}
"""
WAIT_S = 30  # an upper bound for a thread to reach a point, never a measured time


class HeldEcho(EchoGenerator):
    """The fake echo generator, held mid-answer while ``hold`` is clear."""

    hold = threading.Event()
    entered = threading.Event()

    def generate(self, query, context):
        HeldEcho.entered.set()
        assert HeldEcho.hold.wait(WAIT_S)
        return super().generate(query, context)


def write_corpus(root: Path, gastric: str) -> None:
    docs = [{"doc_id": "gastric", "title": "Stomach cancer", "text": gastric},
            {"doc_id": "lung", "title": "Lung cancer", "text": "Lung cancer is linked to smoking."}]
    (root / "corpus.jsonl").write_text("\n".join(json.dumps(d) for d in docs) + "\n", encoding="utf-8")


@pytest.fixture
def host():
    impl = hookimpl(lambda register: register("held-echo", HeldEcho))
    impl.__name__ = "register_generators"
    return plugin_host({"held": SimpleNamespace(register_generators=impl)}, entry_points=True)


@pytest.fixture
def served(tmp_path, host):
    """An index at corpus version 1 and an engine on it."""
    write_corpus(tmp_path, OLD)
    pipeline = pipeline_from_yaml(YAML, tmp_path, host)
    ingest(pipeline)
    HeldEcho.hold.set()
    return Engine.open(pipeline)


def reingest(tmp_path: Path, host) -> None:
    write_corpus(tmp_path, NEW)
    assert ingest(pipeline_from_yaml(YAML, tmp_path, host)).corpus_version == 2


def cited(body: dict) -> str:
    return body["citations"][0]["text"]


def test_a_request_keeps_its_version_through_a_reingest_and_the_next_gets_the_new_one(tmp_path, host, served):
    app = create_app(served, ServeSettings())
    with running(app) as url, httpx.Client(base_url=url, timeout=WAIT_S) as http:
        assert http.get("/health").json()["corpus_version"].startswith("v1:")
        HeldEcho.hold.clear()
        HeldEcho.entered.clear()
        result: dict = {}
        slow = threading.Thread(target=lambda: result.update(r=http.post("/ask", json={"question": QUESTION})))
        slow.start()
        assert HeldEcho.entered.wait(WAIT_S)  # request 1 is mid-answer on version 1
        reingest(tmp_path, host)
        app.state.served.check(wait=True)  # the new version is loaded and swapped in while request 1 waits
        health = http.get("/health").json()
        assert health["corpus_version"].startswith("v2:") and health["reload"] == "current" and health["reloads"] == 1
        HeldEcho.hold.set()
        slow.join(WAIT_S)
        first = result["r"]
        second = http.post("/ask", json={"question": QUESTION})
    body = first.json()
    assert cited(body) == OLD and body["trace"]["corpus_version"].startswith("v1:")  # all of it from version 1
    assert first.headers["x-corpus-version"] == body["trace"]["corpus_version"]
    assert OLD in body["text"] and NEW not in body["text"]
    after = second.json()
    assert cited(after) == NEW and after["trace"]["corpus_version"].startswith("v2:")
    assert (
        second.headers["x-corpus-version"].startswith("v2:")
        and second.headers["x-index-version"] == health["index_version"]
    )


def test_a_stream_keeps_its_version_too(tmp_path, host, served):
    app = create_app(served, ServeSettings())
    with running(app) as url, httpx.Client(base_url=url, timeout=WAIT_S) as http:
        HeldEcho.hold.clear()
        HeldEcho.entered.clear()
        result: dict = {}

        def read_stream() -> None:
            with http.stream("POST", "/ask/stream", json={"question": QUESTION}) as response:
                result["headers"], result["raw"] = response.headers, response.read().decode()

        slow = threading.Thread(target=read_stream)
        slow.start()
        assert HeldEcho.entered.wait(WAIT_S)
        reingest(tmp_path, host)
        app.state.served.check(wait=True)
        HeldEcho.hold.set()
        slow.join(WAIT_S)
    done = json.loads(result["raw"].split("event: done", 1)[1].split("data: ", 1)[1].split("\n", 1)[0])
    assert cited(done["answer"]) == OLD and done["answer"]["trace"]["corpus_version"].startswith("v1:")
    assert result["headers"]["x-corpus-version"].startswith("v1:")


def test_no_reload_keeps_the_version_and_says_a_restart_is_needed(tmp_path, host, served):
    app = create_app(served, ServeSettings(reload=False))
    with running(app) as url, httpx.Client(base_url=url, timeout=WAIT_S) as http:
        reingest(tmp_path, host)
        app.state.served.check(wait=True)
        health = http.get("/health").json()
        answer = http.post("/ask", json={"question": QUESTION}).json()
    assert health["reload"] == "restart needed" and health["corpus_version"].startswith("v1:")
    assert health["index_version_on_disk"] != health["index_version"]
    assert cited(answer) == OLD


def test_a_damaged_new_version_is_refused_and_the_old_one_keeps_serving(tmp_path, host, served):
    app = create_app(served, ServeSettings())
    with running(app) as url, httpx.Client(base_url=url, timeout=WAIT_S) as http:
        reingest(tmp_path, host)
        new = app.state.served.on_disk()
        docstore = new / "docstore.json"
        docstore.write_bytes(docstore.read_bytes()[:-10])  # truncated after ingest wrote it
        app.state.served.check(wait=True)
        health = http.get("/health").json()
        answer = http.post("/ask", json={"question": QUESTION}).json()
    assert health["reload"] == "failed" and "docstore.json is damaged" in health["reload_error"]
    assert health["corpus_version"].startswith("v1:") and cited(answer) == OLD
