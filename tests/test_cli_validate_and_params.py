"""`criss-rag validate` runs every check that needs no corpus and writes nothing; `criss-rag plugins
--params` lists a component's parameters."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from criss_rag.cli.main import build_cli
from criss_rag.plugins import PluginHost

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def host():
    return PluginHost(strict=True)


def cli(host, *args):
    return CliRunner().invoke(build_cli(host), list(args), obj={"host": host})


def test_validate_rejects_what_ingest_would_reject(host, tmp_path):
    config = str(ROOT / "examples" / "default.yaml")
    ok = cli(host, "validate", config, "--set", f"index.dir={tmp_path / 'index'}")
    assert ok.exit_code == 0 and "components started" in ok.output, ok.output
    bad = cli(host, "validate", config, "--set", "embedding=null", "--set", f"index.dir={tmp_path / 'index'}")
    assert bad.exit_code == 2 and "stage retrievers[1] needs an embedding model" in bad.output
    assert not (tmp_path / "index").exists()  # validate wrote nothing


def test_validate_writes_no_cache_file(host, tmp_path):
    (tmp_path / "corpus.jsonl").write_text('{"doc_id": "a", "title": "A", "text": "Liver cancer."}\n', encoding="utf-8")
    config = tmp_path / "p.yaml"
    config.write_text("name: c\nindex: {dir: index}\nloader: {name: jsonl, path: corpus.jsonl}\n"
                      "chunker: whole-document\nretrievers: [bm25]\ncontext: numbered\ngenerator: extractive\n"
                      "cache: {name: semantic, path: answers.sqlite}\n", encoding="utf-8")
    result = cli(host, "validate", str(config))
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "index").exists() and not (tmp_path / "answers.sqlite").exists()


def test_plugins_params_lists_a_components_parameters(host):
    shown = cli(host, "plugins", "--params", "bm25")
    assert shown.exit_code == 0, shown.output
    assert shown.output.startswith("retriever bm25 (plugin bm25): ")
    assert "  k1: float = 1.5  -- term-frequency saturation" in shown.output
    assert "top_k = 20" in shown.output and "languages = None" in shown.output
    data = json.loads(cli(host, "plugins", "--params", "retriever:faiss", "--json").output)
    assert [d["name"] for d in data] == ["faiss"] and data[0]["stage_keys"]["top_k"] == 20
    index_type = next(p for p in data[0]["params"] if p["name"] == "index_type")
    assert index_type["default"] == "flat" and "approximate" in index_type["description"]
    unknown = cli(host, "plugins", "--params", "bm2")
    assert unknown.exit_code == 2 and "Did you mean bm25?" in unknown.output
