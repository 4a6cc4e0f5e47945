"""What a newcomer trips over, found by following the docs with a corpus, an experiment and a plugin
of one's own: misspelt keys (did-you-mean, the stage-level keys among the valid ones), errors that
blame the `--set` that caused them, `validate` running every check that needs no corpus, duplicate
metric values caught when the experiment loads, `plugins --params`, and the refusal sweep reading
how question files mark out-of-scope questions."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from criss_rag.cli.main import build_cli
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


def cli(host, *args):
    return CliRunner().invoke(build_cli(host), list(args), obj={"host": host})


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


# -- validate runs every check that needs no corpus -----------------------------------------------------


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


# -- duplicate metric values are caught when the experiment loads ------------------------------------------


def test_two_metrics_returning_the_same_value_are_refused_at_load(tmp_path):
    for name in ("eval_pipeline.yaml", "eval_questions.jsonl"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    experiment = tmp_path / "e.yaml"
    text = ("name: e\npipeline: eval_pipeline.yaml\nvariants: [{name: plain}]\n"
            "questions: [{path: eval_questions.jsonl}]\nmetrics:\n  - answer-basics\n  - traceability\n")
    experiment.write_text(text, encoding="utf-8")
    host = plugin_host(entry_points=True)
    with pytest.raises(ConfigError, match=r"e\.yaml:7: metrics\[0\] 'answer-basics' and metrics\[1\] 'traceability' "
                                          r"both return 'answer_sentences'; give one of them a `label:`"):
        load_experiment(experiment, host.registry)
    experiment.write_text(text.replace("  - traceability", "  - {name: traceability, label: t}"), encoding="utf-8")
    assert len(load_experiment(experiment, host.registry).metrics) == 2


# -- a component's parameters ------------------------------------------------------------------------


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


# -- the refusal sweep reads how question files mark out-of-scope questions ------------------------------


def test_refusal_sweep_reads_every_out_of_scope_marker():
    spec = importlib.util.spec_from_file_location("refusal_sweep", ROOT / "benchmarks" / "refusal_sweep.py")
    sweep = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sweep)
    assert sweep.out_of_scope({"expected": "refuse"}) and sweep.out_of_scope({"scope": "out"})
    assert sweep.out_of_scope({"expected_behavior": "out_of_scope"})
    assert not sweep.out_of_scope({"expected": "answer"}) and not sweep.out_of_scope({"scope": "in"})
    jlcs = [
        json.loads(line) for line in (ROOT / "examples" / "experiments" / "jlcs-questions.jsonl").open(encoding="utf-8")
    ]
    assert sum(map(sweep.out_of_scope, jlcs)) > 0  # the file that marks them `scope: out` has some


# -- the first question does not pay for loading models -------------------------------------------------


def test_eval_retrieval_reports_the_warm_up_apart_from_question_latency(tmp_path):
    for name in ("eval_pipeline.yaml", "eval_questions.jsonl"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    host = plugin_host(entry_points=True)
    result = CliRunner().invoke(build_cli(host), ["eval", "retrieval", str(tmp_path / "eval_pipeline.yaml"),
                                                  "--questions", str(tmp_path / "eval_questions.jsonl")],
                                obj={"host": host})
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    warm = next(
        i for i, line in enumerate(lines) if line.startswith("warm-up (models loaded before the first question): ")
    )
    assert warm < next(i for i, line in enumerate(lines) if "retrieval latency per question" in line)


def test_eval_run_records_each_variants_warm_up(tmp_path):
    from criss_rag.evaluation.runner import run_experiment

    for name in ("eval_pipeline.yaml", "eval_questions.jsonl"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    experiment = tmp_path / "e.yaml"
    experiment.write_text("name: e\npipeline: eval_pipeline.yaml\nvariants: [{name: plain}]\n"
                          "questions: [{path: eval_questions.jsonl}]\nmetrics: [answer-basics]\noutput: run\n",
                          encoding="utf-8")
    host = plugin_host(entry_points=True)
    run_experiment(load_experiment(experiment, host.registry), host, progress=False)
    manifest = json.loads((tmp_path / "run" / "run.json").read_text(encoding="utf-8"))
    assert manifest["variants"]["plain"]["warm_up_s"] >= 0


def test_the_overview_plot_shows_every_compared_metric(tmp_path):
    import math

    from PIL import Image

    from criss_rag.evaluation.report import ReportOptions, write_report
    from criss_rag.evaluation.runner import run_experiment

    for name in ("eval_pipeline.yaml", "eval_questions.jsonl"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    experiment = tmp_path / "e.yaml"
    experiment.write_text("name: e\npipeline: eval_pipeline.yaml\nvariants: [{name: a}, {name: b, set: {rerankers: "
                          "[fake-reverse]}}]\nquestions: [{path: eval_questions.jsonl}]\n"
                          "metrics: [answer-basics, {name: traceability, label: t}]\noutput: run\n", encoding="utf-8")
    host = plugin_host(entry_points=True)
    run_experiment(load_experiment(experiment, host.registry), host, progress=False)
    write_report(tmp_path / "run", ReportOptions())
    report = json.loads((tmp_path / "run" / "report.json").read_text(encoding="utf-8"))
    plotted = [m for m in report["compared"] if m in report["plots"]]  # the overview draws every metric that varies
    assert plotted == report["compared"] and len(plotted) >= 4
    rows = math.ceil(len(plotted) / 3)
    height = Image.open(tmp_path / "run" / "plots" / "overview.png").size[1]
    assert height >= rows * 3.4 * 100 * 0.95  # one row of three plots per three metrics, all of them
