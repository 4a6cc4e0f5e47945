"""The public API of `criss_rag` (docs/api.md): open, ingest, ask, ask_stream, chat, warm-up,
overrides, the result types importable from the package, and `__all__` kept to what is promised.
Runs on the fakes of criss_rag.testing (no model)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from llama_index.core.schema import NodeWithScore

import criss_rag
from criss_rag.testing import FAKE_PIPELINE_YAML, TINY_CORPUS, plugin_host

ROOT = Path(__file__).resolve().parents[1]
PROMISED = {"open", "ingest", "load_pipeline", "Engine", "ChatSession", "Answer", "Citation", "ContextItem",
            "SentenceSupport", "CachedFrom", "Trace", "StageTrace", "StreamEvent", "TokenEvent", "AnswerEvent",
            "ErrorEvent", "IngestReport", "PluginHost", "CrissRagError", "ConfigError", "DataError",
            "IndexStoreError", "ComponentError", "PluginError", "hookimpl", "__version__"}
QUESTION = "Which test finds stomach cancer?"


@pytest.fixture()
def config(tmp_path):
    path = tmp_path / "fake.yaml"
    path.write_text(FAKE_PIPELINE_YAML, encoding="utf-8")
    return path


def test_all_is_exactly_the_promised_names_and_each_resolves():
    assert set(criss_rag.__all__) == PROMISED and len(criss_rag.__all__) == len(PROMISED)
    for name in criss_rag.__all__:
        assert getattr(criss_rag, name) is not None
    assert criss_rag.Answer is criss_rag.types.Answer and criss_rag.Engine.__module__ == "criss_rag.engine"
    assert set(criss_rag.__all__) <= set(dir(criss_rag))
    with pytest.raises(AttributeError, match="no attribute 'nope'"):
        criss_rag.nope  # noqa: B018


def test_every_promised_name_is_on_the_api_page():
    page = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    assert not [name for name in PROMISED if f"`{name}" not in page and f"{name}`" not in page]


def test_import_criss_rag_loads_no_library_beyond_pluggy():
    probe = ("import sys, json; import criss_rag; "
             "print(json.dumps(sorted(m for m in sys.modules if m.split('.')[0] in "
             "('llama_index', 'pydantic', 'yaml', 'click', 'numpy', 'torch') or m.startswith('criss_rag.'))))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                                       cwd=ROOT).stdout)
    # llama_deferred imports only the standard library (it puts the LlamaIndex import hook in place)
    assert loaded == ["criss_rag.llama_deferred", "criss_rag.version"]


def test_open_builds_the_index_and_answers(config):
    engine = criss_rag.open(config, host=plugin_host())
    assert isinstance(engine, criss_rag.Engine) and engine.corpus_version == 1
    answer = engine.ask(QUESTION)
    assert isinstance(answer, criss_rag.Answer) and not answer.refused
    assert isinstance(answer.citations[0], criss_rag.Citation) and answer.citations[0].doc_id == "gastric"


def test_open_without_build_says_to_ingest(config):
    with pytest.raises(criss_rag.IndexStoreError, match="criss-rag ingest"):
        criss_rag.open(config, host=plugin_host(), build=False)
    report = criss_rag.ingest(config, host=plugin_host())
    assert isinstance(report, criss_rag.IngestReport) and report.built and report.documents == len(TINY_CORPUS)
    assert criss_rag.ingest(config, host=plugin_host()).mode == "up-to-date"
    assert criss_rag.open(config, host=plugin_host(), build=False).ask(QUESTION).citations


@pytest.mark.parametrize("overrides", [["refusal.min_score=50"], {"refusal.min_score": 50}, "refusal.min_score=50"])
def test_overrides_as_set_strings_or_a_mapping(config, overrides):
    answer = criss_rag.open(config, host=plugin_host(), overrides=overrides).ask(QUESTION)
    assert answer.refused and answer.refusal_reason == "weak_evidence"


def test_a_mapping_override_keeps_the_value_type(config, tmp_path):
    pipeline = criss_rag.load_pipeline(
        config, host=plugin_host(), overrides={"retrievers.fake-keyword.top_k": 2, "index.dir": str(tmp_path / "ix")}
    )
    assert pipeline.config.many("retrievers")[0].options["top_k"] == 2
    assert pipeline.config.index_dir == tmp_path / "ix"


def test_a_bad_override_is_a_config_error(config):
    with pytest.raises(criss_rag.ConfigError, match="topk"):
        criss_rag.open(config, host=plugin_host(), overrides=["retrievers.fake-keyword.topk=5"])


def test_ask_stream_yields_tokens_then_the_answer(config):
    events = list(criss_rag.open(config, host=plugin_host()).ask_stream(QUESTION))
    assert isinstance(events[-1], criss_rag.AnswerEvent)
    assert all(isinstance(e, criss_rag.TokenEvent) for e in events[:-1]) and events[:-1]
    assert "".join(e.text for e in events[:-1]) == events[-1].answer.text


def test_chat_condenses_a_follow_up_and_resumes_a_saved_session(config, tmp_path):
    engine = criss_rag.open(config, host=plugin_host())
    chat = engine.chat()
    assert isinstance(chat, criss_rag.ChatSession)
    chat.ask("What causes liver cancer?")
    follow = chat.ask("And how is it treated?")
    assert follow.trace.stages[0].stage == "condense" and "liver cancer" in follow.trace.stages[0].notes["question"]
    saved = chat.save(tmp_path / "s.json")
    assert len(engine.chat(session=saved).exchanges) == 2
    assert engine.chat(session=tmp_path / "new.json").exchanges == []  # a file not written yet: a new session


def test_the_answer_reports_every_context_passage_cited_or_not(config):
    answer = criss_rag.open(config, host=plugin_host()).ask(QUESTION)
    assert len(answer.context) > len(answer.citations) >= 1  # fake-all puts every hit in the context
    cited = {c.number for c in answer.citations}
    assert {i.number for i in answer.context if i.cited} == cited
    assert all(isinstance(i, criss_rag.ContextItem) and i.text and i.source_title for i in answer.context)
    nodes = answer.source_nodes
    assert all(isinstance(n, NodeWithScore) for n in nodes) and [n.node.node_id for n in nodes] == [
        i.node_id for i in answer.context]
    assert json.loads(answer.model_dump_json())["context"][0]["node_id"] == answer.context[0].node_id


def test_warm_up_starts_every_question_time_component(config):
    engine = criss_rag.open(config, host=plugin_host(), warm_up=False)
    assert engine.warmed_up == {}
    seconds = engine.warm_up()
    assert set(seconds) == {"retrievers[0]", "refusal", "context", "generator"} and engine.warmed_up == seconds


def test_the_done_when_one_liner_runs_after_make_demo():
    """The issue's check, as a user types it, in a fresh interpreter (examples/ copied: no index is
    written into the repository)."""
    import shutil
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        shutil.copytree(ROOT / "examples", Path(folder) / "examples",
                        ignore=shutil.ignore_patterns(".criss_rag", "__pycache__"))
        code = ("import criss_rag; e = criss_rag.open('examples/default.yaml'); "
                "print(e.ask('How is liver cancer treated?').citations[0])")
        result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=folder, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "doc_id=" in result.stdout and "Liver cancer" in result.stdout
