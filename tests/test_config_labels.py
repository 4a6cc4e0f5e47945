"""Every name a config refers to (a refusal signal, a fusion weight's retriever, an LLM key, a
language code) must name something the config has: a misspelt one is an error with the valid
names and a did-you-mean, never a safety check that silently stops applying."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from criss_rag.cli.main import build_cli
from criss_rag.config import load_pipeline_config
from criss_rag.errors import ConfigError
from criss_rag.testing import plugin_host, run_pipeline

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
DEFAULT = EXAMPLES / "default.yaml"


@pytest.fixture(scope="module")
def bundled():
    return plugin_host(entry_points=True)


def rejected(bundled, *overrides: str, config: Path = DEFAULT) -> str:
    with pytest.raises(ConfigError) as err:
        load_pipeline_config(config, bundled.registry, overrides)
    return str(err.value)


def test_the_bundled_example_configs_name_only_what_they_have(bundled):
    for name in ("default.yaml", "local-llm.yaml", "jlcs.yaml", "ncc.yaml", "registry-manuals.yaml"):
        load_pipeline_config(EXAMPLES / name, bundled.registry)


def test_a_misspelt_refusal_signal_is_rejected_with_the_valid_names(bundled):
    message = rejected(bundled, "refusal.signal={en: fass, ko: faiss, ja: faiss, zh: faiss}")
    assert "stage refusal, refusal 'evidence-threshold', key 'signal'" in message
    assert "'fass' names no signal" in message
    assert "Did you mean 'faiss'?" in message
    for valid in ("faiss", "bm25", "rrf"):
        assert valid in message


def test_a_single_signal_for_every_language_is_checked_too(bundled):
    message = rejected(bundled, "refusal.signal=fass", "refusal.min_score=0.5", "refusal.cross_lingual_min_score={}",
                       config=EXAMPLES / "local-llm.yaml")
    assert "'fass' names no signal" in message and "Did you mean 'faiss'?" in message


def test_a_signal_a_reranker_records_is_valid_and_its_label_is_not(bundled):
    config = EXAMPLES / "local-llm.yaml"  # reranker intent-boost, label section-intent, records signal intent-boost
    load_pipeline_config(config, bundled.registry, ["refusal.signal=intent-boost"])
    message = rejected(bundled, "refusal.signal=section-intent", config=config)
    assert "'section-intent' names no signal" in message and "intent-boost (recorded by rerankers[0]" in message


def test_a_fusion_weight_for_an_unknown_retriever_is_rejected(bundled):
    message = rejected(bundled, "fusion.weights.fass=1.5")
    assert "stage fusion, fusion 'rrf', key 'weights'" in message
    assert "'fass' names no retriever" in message and "Did you mean 'faiss'?" in message


def test_a_language_key_must_be_a_known_language_code(bundled):
    message = rejected(bundled, "refusal.message={en: No., kr: 아니요.}")
    assert "'kr' names no language" in message and "en (question language)" in message
    message = rejected(bundled, "retrievers.1.languages=[eng]")
    assert "stage retrievers[1], key 'languages'" in message and "'eng' names no language" in message


def test_an_llm_key_is_checked_when_the_config_is_read(bundled):
    message = rejected(bundled, "generator.llm=locl", config=EXAMPLES / "local-llm.yaml")
    assert "'locl' names no llm" in message and "Did you mean 'local'?" in message


def invoke(host, *args: str):
    return CliRunner().invoke(build_cli(host), list(args), obj={"host": host})


def test_validate_names_the_file_and_line_and_exits_non_zero(bundled):
    result = invoke(bundled, "validate", str(DEFAULT), "--set", "refusal.signal=fass")
    assert result.exit_code != 0
    assert "default.yaml" in result.output and "Did you mean 'faiss'?" in result.output
    assert "Traceback" not in result.output


SKIP_YAML = """\
name: skip
loader: {name: fake-loader}
chunker: {name: fake-chunker}
retrievers:
  - {name: fake-keyword, label: words, top_k: 5}
  - {name: fake-keyword, label: korean-words, top_k: 5, languages: [ko]}
fusion: {name: rrf}
refusal:
  name: evidence-threshold
  signal: {en: korean-words, ko: korean-words, ja: korean-words, zh: korean-words}
  min_score: 100
  when_signal_missing: skip
context: {name: fake-all}
generator: {name: fake-echo}
"""


def test_when_signal_missing_skip_is_reported_in_the_trace_every_time_it_skips(tmp_path):
    host = plugin_host(entry_points=True)
    answer = run_pipeline(SKIP_YAML, "Which test finds stomach cancer?", tmp_path, host)
    notes = answer.trace.stage("refusal").notes
    assert notes["refused"] is False
    assert len(notes["skipped_checks"]) == 1
    assert "no candidate carries the signal 'korean-words'" in notes["skipped_checks"][0]
    assert "when_signal_missing: skip" in notes["skipped_checks"][0]


def test_ask_trace_prints_the_skipped_check(tmp_path):
    config = tmp_path / "skip.yaml"
    config.write_text(SKIP_YAML, encoding="utf-8")
    host = plugin_host(entry_points=True)
    assert invoke(host, "ingest", str(config)).exit_code == 0
    result = invoke(host, "ask", str(config), "Which test finds stomach cancer?", "--trace")
    assert result.exit_code == 0, result.output
    assert "! score check skipped: no candidate carries the signal 'korean-words'" in result.output
