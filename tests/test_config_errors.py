"""Errors in a pipeline config that a newcomer trips over: a misspelt key gets a did-you-mean (with
the stage-level keys among the valid ones), and an error caused by a `--set` blames the `--set`, not
a line of the file (pipelines and experiments alike)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from criss_rag.config import load_pipeline_config
from criss_rag.errors import ConfigError
from criss_rag.evaluation.experiment import load_experiment
from criss_rag.plugins import PluginHost
from criss_rag.testing import FAKE_PIPELINE_YAML, plugin_host, replaced

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures"


@pytest.fixture(scope="module")
def host():
    return PluginHost(strict=True)


def fake_config(tmp_path: Path) -> Path:
    path = tmp_path / "p.yaml"
    path.write_text(FAKE_PIPELINE_YAML, encoding="utf-8")
    return path


# -- misspelt keys -----------------------------------------------------------------------------------


def test_a_misspelt_stage_key_gets_a_did_you_mean_and_the_stage_keys(host):
    with pytest.raises(ConfigError) as err:
        load_pipeline_config(ROOT / "examples" / "default.yaml", host.registry, ["retrievers.faiss.topk=5"])
    message = str(err.value)
    assert "key 'topk': unknown key. Valid keys: " in message
    assert message.endswith("; and for every retrievers component: label, languages, top_k. Did you mean 'top_k'?")


def test_a_misspelt_param_and_top_level_key_get_a_did_you_mean(tmp_path):
    registry = plugin_host().registry
    path = fake_config(tmp_path)
    path.write_text(replaced(FAKE_PIPELINE_YAML, "min_score: 1", "min_scroe: 1") + "retriever: []\n", encoding="utf-8")
    with pytest.raises(
        ConfigError, match=r"unknown top-level key 'retriever'\. Valid keys: .*\. Did you mean 'retrievers'\?"
    ):
        load_pipeline_config(path, registry)
    path.write_text(replaced(FAKE_PIPELINE_YAML, "min_score: 1", "min_scroe: 1"), encoding="utf-8")
    with pytest.raises(
        ConfigError,
        match=r"p\.yaml:5: .*key 'min_scroe': unknown key\. Valid keys: min_score\. Did you mean 'min_score'\?",
    ):
        load_pipeline_config(path, registry)


def test_an_unknown_key_far_from_any_gets_no_guess(tmp_path):
    path = fake_config(tmp_path)
    with pytest.raises(ConfigError) as err:
        load_pipeline_config(path, plugin_host().registry, ["refusal.colour=blue"])
    assert "Did you mean" not in str(err.value)


# -- the --set is blamed, not a line of the file ------------------------------------------------------


@pytest.mark.parametrize(("override", "expected"), [
    ("retrievers.fake-keyword.topk=5", "--set 'retrievers.fake-keyword.topk=5': stage retrievers[0]"),
    ("retrievers.fake-keyword.top_k=0", "--set 'retrievers.fake-keyword.top_k=0': stage retrievers[0]"),
    ("x=1", "--set 'x=1': unknown top-level key 'x'"),
    ("generator=lead", "--set 'generator=lead': stage generator: unknown generator 'lead'"),
])
def test_errors_about_a_set_value_name_the_set(tmp_path, override, expected):
    path = fake_config(tmp_path)
    with pytest.raises(ConfigError) as err:
        load_pipeline_config(path, plugin_host().registry, [override])
    assert f"{path}: {expected}" in str(err.value)
    assert f"{path}:" + "1:" not in str(err.value)


def test_an_error_in_the_file_still_names_its_line_when_a_set_is_elsewhere(tmp_path):
    path = fake_config(tmp_path)
    path.write_text(replaced(FAKE_PIPELINE_YAML, "top_k: 5", "top_k: 0"), encoding="utf-8")
    with pytest.raises(ConfigError, match=r"p\.yaml:4: stage retrievers\[0\]: `top_k` must be a positive integer"):
        load_pipeline_config(path, plugin_host().registry, ["refusal.min_score=2"])


def test_eval_run_set_blames_the_set_not_line_1(tmp_path):
    for name in ("eval_pipeline.yaml", "eval_questions.jsonl"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    experiment = tmp_path / "e.yaml"
    experiment.write_text("name: e\npipeline: eval_pipeline.yaml\nvariants: [{name: plain}]\n"
                          "questions: [{path: eval_questions.jsonl}]\n", encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        load_experiment(experiment, plugin_host().registry, overrides=["x=1"])
    assert f"{experiment}: --set 'x=1'" in str(err.value) and f"{experiment}:1" not in str(err.value)
