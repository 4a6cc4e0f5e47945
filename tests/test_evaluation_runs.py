"""Experiments as `criss-rag eval` loads and runs them: two metrics returning the same value are
refused when the experiment loads, the warm-up is reported apart from question latency (eval
retrieval) and recorded per variant (eval run), and the report's overview plot shows every
compared metric."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from criss_rag.cli.main import build_cli
from criss_rag.errors import ConfigError
from criss_rag.evaluation.experiment import load_experiment
from criss_rag.testing import plugin_host, replaced

FIXTURES = Path(__file__).parent / "fixtures"


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
    experiment.write_text(replaced(text, "  - traceability", "  - {name: traceability, label: t}"), encoding="utf-8")
    assert len(load_experiment(experiment, host.registry).metrics) == 2


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

    from criss_rag.evaluation.report import write_report
    from criss_rag.evaluation.report_inputs import ReportOptions
    from criss_rag.evaluation.runner import run_experiment

    for name in ("eval_pipeline.yaml", "eval_questions.jsonl"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    experiment = tmp_path / "e.yaml"
    experiment.write_text("name: e\npipeline: eval_pipeline.yaml\nvariants: [{name: a}, {name: b, set: {rerankers: "
                          "[fake-reverse]}}]\nquestions: [{path: eval_questions.jsonl}]\n"
                          "metrics: [answer-basics, {name: traceability, label: t}, {name: retrieval, k: 1}]\n"
                          "output: run\n", encoding="utf-8")
    host = plugin_host(entry_points=True)
    run_experiment(load_experiment(experiment, host.registry), host, progress=False)
    write_report(tmp_path / "run", ReportOptions())
    report = json.loads((tmp_path / "run" / "report.json").read_text(encoding="utf-8"))
    plotted = [m for m in report["compared"] if m in report["plots"]]  # the overview draws every metric that varies
    assert plotted == report["compared"] and len(plotted) >= 4
    rows = math.ceil(len(plotted) / 3)
    height = Image.open(tmp_path / "run" / "plots" / "overview.png").size[1]
    assert height >= rows * 3.4 * 100 * 0.95  # one row of three plots per three metrics, all of them
