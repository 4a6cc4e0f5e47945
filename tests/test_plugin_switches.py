"""The plugin-control switches, exercised from the shell as a user would."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

import pytest

from criss_rag import hookimpl, hookspecs
from criss_rag.plugins import CrissRagDeprecationWarning
from criss_rag.testing import EchoGenerator, plugin_host


def cli(*args: str, **env: str) -> subprocess.CompletedProcess:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("CRISS_RAG_")}
    return subprocess.run([sys.executable, "-m", "criss_rag", *args], capture_output=True, text=True,
                          env={**clean, **env}, timeout=300)


def test_load_plugins_selects_and_all_lists_the_rest():
    result = cli("plugins", "--json", "--all", CRISS_RAG_LOAD_PLUGINS="basic,bm25")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [p["name"] for p in data["plugins"]] == ["basic", "bm25"]
    assert {"faiss", "minilm", "titleboost"} <= {p["name"] for p in data["skipped"]}
    assert data["summaries"]["retriever:bm25"].startswith("Okapi BM25")
    text = cli("plugins", "--all", CRISS_RAG_LOAD_PLUGINS="basic").stdout
    assert "faiss 0.1.0 (criss-rag-faiss): not loaded (not in CRISS_RAG_LOAD_PLUGINS)" in text
    assert "reranker truncate: Keeps the first ``n`` candidates." in text


def test_hook_filter():
    data = json.loads(cli("plugins", "--json", "--hook", "register_retrievers").stdout)
    names = {p["name"] for p in data["plugins"]}
    assert {"bm25", "faiss"} <= names and "basic" not in names and "minilm" not in names
    bad = cli("plugins", "--hook", "register_retriever")
    assert bad.returncode == 2 and "no such hook" in bad.stderr and "register_retrievers" in bad.stderr


def test_trace_plugins_logs_each_hook_call_with_timing():
    result = cli("plugins", CRISS_RAG_TRACE_PLUGINS="1", CRISS_RAG_LOAD_PLUGINS="basic")
    assert result.returncode == 0
    lines = [line for line in result.stderr.splitlines() if line.startswith("[criss-rag plugins]")]
    assert any(line.startswith("[criss-rag plugins] basic: imported in ") for line in lines)
    assert any("basic.register_loaders: 4 component(s) in " in line and line.endswith(" ms") for line in lines)
    quiet = cli("plugins", CRISS_RAG_LOAD_PLUGINS="basic")
    assert "[criss-rag plugins]" not in quiet.stderr


def test_strict_switch_from_the_shell():
    result = cli("plugins", CRISS_RAG_STRICT_PLUGINS="1", CRISS_RAG_LOAD_PLUGINS="basic,not-installed")
    assert result.returncode == 2
    assert "plugin 'not-installed' failed at import: not installed (named in CRISS_RAG_LOAD_PLUGINS)" in result.stderr


class _OldStyle:
    @hookimpl
    def register_generators(self, register):
        register("old-echo", EchoGenerator)


def test_deprecated_hook_warns_its_implementers(monkeypatch):
    monkeypatch.setitem(hookspecs.DEPRECATED_HOOKS, "register_generators", "implement register_answerers instead")
    with pytest.warns(
        CrissRagDeprecationWarning,
        match="plugin 'old' implements register_generators, which is deprecated: implement register_answerers",
    ):
        host = plugin_host({"old": _OldStyle()})
    assert host.registry.get("generator", "old-echo")  # still works while deprecated


def test_no_warning_for_current_hooks():
    with warnings.catch_warnings():
        warnings.simplefilter("error", CrissRagDeprecationWarning)
        plugin_host({"current": _OldStyle()})
