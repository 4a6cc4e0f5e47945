"""The command line, run in-process with a host of fakes (fast) and as a subprocess (real)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from criss_rag.cli.main import build_cli
from criss_rag.testing import FAKE_PIPELINE_YAML, plugin_host


@pytest.fixture
def run(tmp_path):
    host = plugin_host()
    cli = build_cli(host)
    runner = CliRunner()

    def invoke(*args: str):
        return runner.invoke(cli, list(args), obj={"host": host}, catch_exceptions=False)

    return invoke


@pytest.fixture
def config(tmp_path) -> Path:
    path = tmp_path / "fake.yaml"
    path.write_text(FAKE_PIPELINE_YAML, encoding="utf-8")
    return path


def test_help_everywhere(run):
    for command in (
        [],
        ["ingest"],
        ["ask"],
        ["chat"],
        ["plugins"],
        ["validate"],
        ["explain"],
        ["demo"],
        ["eval"],
        ["eval", "retrieval"],
    ):
        result = run(*command, "--help")
        assert result.exit_code == 0 and "Usage:" in result.output, command


def test_validate_and_explain(run, config):
    result = run("validate", str(config))
    assert result.exit_code == 0 and "ok:" in result.output
    result = run("explain", str(config), "--set", "refusal.min_score=3")
    assert result.exit_code == 0
    assert "min_score: 3" in result.output and "config_hash:" in result.output
    assert "cite: '1'" in result.output  # defaults filled in


def test_config_error_is_a_message_not_a_traceback(run, config):
    result = run("validate", str(config), "--set", "generator.name=gpt-9")
    assert result.exit_code == 2
    assert "error:" in result.output and "unknown generator 'gpt-9'" in result.output
    assert "Traceback" not in result.output


def test_ingest_then_ask_text_and_json(run, config):
    result = run("ingest", str(config))
    assert result.exit_code == 0 and "indexed 6 documents as 12 chunks" in result.output
    assert "index up to date" in run("ingest", str(config)).output
    result = run("ask", str(config), "Which test finds stomach cancer?")
    assert result.exit_code == 0
    assert "Sources:" in result.output and "[1] Stomach cancer" in result.output
    data = json.loads(run("ask", str(config), "Which test finds stomach cancer?", "--json").output)
    assert set(data) >= {"text", "citations", "refused", "refusal_reason", "trace"}
    assert data["citations"][0]["doc_id"] == "gastric"
    assert [s["stage"] for s in data["trace"]["stages"]][0] == "retrieve:fake-keyword"


def test_ask_refusal_is_shown_with_reason(run, config):
    run("ingest", str(config))
    result = run("ask", str(config), "What is liver cancer?", "--set", "refusal.min_score=99")
    assert "REFUSED (weak_evidence)" in result.output and "why:" in result.output


def test_ask_without_index_says_to_ingest_with_no_build(run, config):
    result = run("ask", str(config), "What is liver cancer?", "--no-build")
    assert result.exit_code == 2 and "criss-rag ingest CONFIG" in result.output


def test_ask_and_chat_build_a_missing_index_first_and_say_so(run, config, monkeypatch):
    result = run("ask", str(config), "Which test finds stomach cancer?")
    assert result.exit_code == 0 and "no index for" in result.stderr and "building it now" in result.stderr
    assert "gastric" in result.output.lower() or "stomach" in result.output.lower()
    again = run("ask", str(config), "Which test finds stomach cancer?")
    assert again.exit_code == 0 and "building it now" not in again.stderr  # built once
    answers = iter(["Which test finds stomach cancer?", "exit"])
    monkeypatch.setattr("builtins.input", lambda *_: next(answers))
    chat = run("chat", str(config), "--set", "index.dir=chat-index")
    assert chat.exit_code == 0 and "building it now" in chat.stderr


def test_plugins_json(run):
    data = json.loads(run("plugins", "--json").output)
    assert data["plugins"][0]["name"] == "fake"
    assert data["plugins"][0]["components"]["generator"] == ["fake-echo"]


def test_chat_answers_until_exit(run, config, monkeypatch):
    run("ingest", str(config))
    answers = iter(["Which test finds stomach cancer?", "exit"])
    monkeypatch.setattr("builtins.input", lambda prompt="": next(answers))
    result = run("chat", str(config))
    assert result.exit_code == 0 and "[1] Stomach cancer" in result.output


def test_eval_retrieval_prints_the_summary_line_last(run, config, tmp_path):
    questions = tmp_path / "q.jsonl"
    questions.write_text(
        "\n".join(json.dumps(q) for q in [
            {"qid": "a", "question": "colonoscopy polyps", "gold_doc_ids_any": ["colorectal"]},
            {"qid": "b", "question": "Which test finds stomach cancer?", "gold_doc_id": "gastric"},
            {"qid": "c", "question": "zebra giraffe", "gold_doc_ids": ["lung"]},
        ]) + "\n", encoding="utf-8")
    out = tmp_path / "r.jsonl"
    result = run("eval", "retrieval", str(config), "--questions", str(questions), "--k", "5", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert result.stdout.strip().splitlines()[-1] == "recall@5=0.667 mrr@10=0.667 hit@1=0.667 n=3"
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["first_gold_rank"] for r in rows] == [1, 1, None]
    assert rows[0]["doc_ids"][0] == "colorectal"


def test_eval_retrieval_with_a_corpus_override_picks_the_loader_by_suffix(config, tmp_path):
    host = plugin_host(entry_points=True)  # the installed `basic` plugin brings the jsonl loader
    corpus = tmp_path / "c.jsonl"
    corpus.write_text("\n".join(json.dumps(d) for d in [
        {"doc_id": "x1", "title": "Thyroid", "text": "Thyroid cancer is often treated with surgery."},
        {"doc_id": "x2", "title": "Skin", "text": "Melanoma is a skin cancer."},
    ]) + "\n")
    questions = tmp_path / "q.jsonl"
    questions.write_text(json.dumps({"qid": "t", "question": "thyroid surgery", "gold_doc_id": "x1"}) + "\n")
    runner = CliRunner()
    result = runner.invoke(build_cli(host), ["eval", "retrieval", str(config), "--questions", str(questions),
                                             "--corpus", str(corpus)], obj={"host": host})
    assert result.exit_code == 0, result.output
    assert "(loader jsonl)" in result.output
    assert result.stdout.strip().splitlines()[-1] == "recall@5=1.000 mrr@10=1.000 hit@1=1.000 n=1"
    table = tmp_path / "c.csv"
    table.write_text("doc_id,title,text\nx1,Thyroid,Thyroid cancer is often treated with surgery.\n", encoding="utf-8")
    csv_run = runner.invoke(build_cli(host), ["eval", "retrieval", str(config), "--questions", str(questions),
                                              "--corpus", str(table)], obj={"host": host})
    assert csv_run.exit_code == 0 and "(loader csv)" in csv_run.output, csv_run.output
    bad = runner.invoke(build_cli(host), ["eval", "retrieval", str(config), "--questions", str(questions),
                                          "--corpus", str(tmp_path / "c.parquet")], obj={"host": host})
    assert bad.exit_code == 2 and "cannot tell which loader reads '.parquet' files" in bad.output


def test_real_cli_subprocess_validates_and_explains_the_default_pipeline():
    root = Path(__file__).resolve().parents[1]
    result = subprocess.run([sys.executable, "-m", "criss_rag", "validate", "examples/default.yaml"],
                            capture_output=True, text=True, cwd=root, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "pipeline 'default'" in result.stdout
    result = subprocess.run([sys.executable, "-m", "criss_rag", "explain", "examples/default.yaml"],
                            capture_output=True, text=True, cwd=root, timeout=120)
    assert result.returncode == 0, result.stderr
    import yaml

    plan = yaml.safe_load(result.stdout)
    assert plan["embedding"]["name"] == "multilingual-e5" and plan["retrievers"][1]["languages"] is None
    assert plan["refusal"]["min_score"] == {"en": 0.865, "ko": 0.86, "ja": 0.86, "zh": 0.86}
    assert {"basic", "bm25", "faiss", "e5"} <= set(plan["plugins"]) and "minilm" not in plan["plugins"]
