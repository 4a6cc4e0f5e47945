"""Experiments: YAML validation, durable and resumable runs, paired statistics, the report, and the
expert-review sheet. Everything runs on criss_rag.testing fakes and fixtures written here
(tests/fixtures/eval_*), never on ../shared."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from pydantic import BaseModel, ConfigDict

from criss_rag import hookimpl
from criss_rag.cli.main import build_cli
from criss_rag.errors import ConfigError, DataError
from criss_rag.evaluation import stats
from criss_rag.evaluation.experiment import load_experiment
from criss_rag.evaluation.records import RECORDS, RunRecord, read_records
from criss_rag.evaluation.report import write_report
from criss_rag.evaluation.report_inputs import ReportOptions
from criss_rag.evaluation.report_numbers import build_report
from criss_rag.evaluation.review import export_sheet, import_ratings, krippendorff_alpha_interval
from criss_rag.evaluation.runner import DirectAnswerer, run_experiment
from criss_rag.testing import plugin_host, replaced
from criss_rag.types import Generation

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures"
N_QUESTIONS = 7

EXPERIMENT = """\
name: fake-experiment
pipeline: eval_pipeline.yaml
variants:
  - {name: plain}
  - {name: drop-liver, set: {filters: [{name: fake-drop-doc, doc_id: liver}]}}
  - {name: reversed, set: {rerankers: [fake-reverse]}}
questions: [{path: eval_questions.jsonl, name: fake}]
metrics: [traceability, {name: retrieval, k: 3}, {name: rouge, analyzer: standard}, caution]
judges: [fake-judge]
groups: [difficulty]
seed: 7
output: run
"""


class Crash:
    """A generator that quotes evidence [1] and raises after ``after`` calls (a simulated kill)."""

    calls = 0

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        after: int = 1_000_000
        error: str = "interrupt"  # interrupt: KeyboardInterrupt (a crash); runtime: a failing question

    def __init__(self, params, ctx):
        self.params = params

    def generate(self, query, context):
        Crash.calls += 1
        if Crash.calls > self.params.after:
            if self.params.error == "interrupt":
                raise KeyboardInterrupt("simulated kill")
            raise RuntimeError("the model server went away")
        return Generation(text=f"{context.evidence[0].text} [1]", model="crash-test")


def _host():
    return plugin_host({"crash": _CrashPlugin()}, entry_points=True)


class _CrashPlugin:
    @hookimpl
    def register_generators(self, register):
        register("crash-test", Crash)


def make_experiment(tmp_path: Path, text: str = EXPERIMENT) -> Path:
    for name in ("eval_pipeline.yaml", "eval_questions.jsonl"):
        shutil.copy(FIXTURES / name, tmp_path / name)
    path = tmp_path / "experiment.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def host():
    return _host()


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory, host):
    tmp = tmp_path_factory.mktemp("run")
    experiment = load_experiment(make_experiment(tmp), host.registry)
    summary = run_experiment(experiment, host, progress=False)
    return experiment, summary


# -- experiment YAML validation ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (
            lambda t: replaced(t, "seed: 7", "seed: 7\nsead: 8"),
            ["experiment.yaml:12", "unknown key 'sead'", "Valid keys here:"],
        ),
        (lambda t: replaced(t, "{name: reversed,", "{name: plain,"), ["two variants are named 'plain'"]),
        (
            lambda t: replaced(t, "caution]", "caution, no-such-metric]"),
            ["unknown metric 'no-such-metric'", "Registered metrics:", "traceability"],
        ),
        (
            lambda t: replaced(t, "eval_questions.jsonl", "missing.jsonl"),
            ["experiment.yaml:7", "question file not found"],
        ),
        (lambda t: replaced(t, "doc_id: liver", "doc_ids: liver"), ["variant 'drop-liver'", "unknown key"]),
        (
            lambda t: replaced(t, "judges: [fake-judge]", "judges: [{name: rubric, llm: nobody}]"),
            ["uses the LLM 'nobody'", "llms:"],
        ),
        (
            lambda t: replaced(t, "{name: plain}", "{name: plain, colour: red}"),
            ["unknown key 'variants.0.colour'", "pipeline, set"],
        ),
        (lambda t: replaced(t, "caution]", "caution, caution]"), ["both called 'caution'", "label:"]),
        (lambda t: replaced(t, "name: fake-experiment\n", ""), ["required key 'name' is missing"]),
    ],
)
def test_experiment_errors_say_where_and_what_to_do(tmp_path, host, edit, expected):
    path = make_experiment(tmp_path, edit(EXPERIMENT))
    with pytest.raises(ConfigError) as info:
        load_experiment(path, host.registry)
    for text in expected:
        assert text in str(info.value), str(info.value)


def test_experiment_paths_read_environment_variables_and_an_unset_one_names_its_line(tmp_path, host, monkeypatch):
    data = tmp_path / "data"
    data.mkdir()
    shutil.move(make_experiment(tmp_path).parent / "eval_questions.jsonl", data / "eval_questions.jsonl")
    text = replaced(EXPERIMENT, "{path: eval_questions.jsonl,", '{path: "${CRISS_TEST_DATA}/eval_questions.jsonl",')
    monkeypatch.setenv("CRISS_TEST_DATA", str(data))
    experiment = load_experiment(make_experiment(tmp_path, text), host.registry)
    assert len(experiment.questions) == N_QUESTIONS
    monkeypatch.delenv("CRISS_TEST_DATA")
    with pytest.raises(ConfigError, match=r"experiment\.yaml:7: \$\{CRISS_TEST_DATA\} is the environment variable "
                       r"CRISS_TEST_DATA, which is not set\. Set it first: `export CRISS_TEST_DATA=\.\.\.`"):
        load_experiment(make_experiment(tmp_path, text), host.registry)


def test_the_bundled_experiments_read_their_data_from_the_data_variable(host, monkeypatch):
    monkeypatch.delenv("DATA", raising=False)
    for name in ("ncc-filtering.yaml", "ncc-filtering-local.yaml", "criss-models-local.yaml"):
        path = ROOT / "examples" / "experiments" / name
        assert "shared/data" not in path.read_text(encoding="utf-8")
        with pytest.raises(ConfigError, match=r"\$\{DATA\} is the environment variable DATA, which is not set"):
            load_experiment(path, host.registry)


def test_a_direct_answerer_is_only_for_a_no_retrieval_variant(tmp_path, host):
    experiment = load_experiment(make_experiment(tmp_path), host.registry)
    with pytest.raises(ValueError, match="'plain' is not a no-retrieval baseline"):
        DirectAnswerer(experiment.variants[0], llm=None, versions={})


def test_experiment_loads_variants_questions_and_overrides(tmp_path, host):
    experiment = load_experiment(make_experiment(tmp_path), host.registry, overrides=["seed=11"])
    assert [v.name for v in experiment.variants] == ["plain", "drop-liver", "reversed"]
    assert len({v.config_hash for v in experiment.variants}) == 3
    assert len(experiment.questions) == N_QUESTIONS and experiment.spec.seed == 11
    assert experiment.output == tmp_path / "run"
    limited = load_experiment(make_experiment(tmp_path), host.registry, only_variants=["reversed"], limit=2)
    assert [v.name for v in limited.variants] == ["reversed"] and len(limited.questions) == 2
    sampled = replaced(EXPERIMENT, "name: fake}]", "name: fake, sample: 3, where: {difficulty: [easy, hard]}}]")
    a = load_experiment(make_experiment(tmp_path, sampled), host.registry)
    b = load_experiment(make_experiment(tmp_path, sampled), host.registry)
    assert [q["qid"] for q in a.questions] == [q["qid"] for q in b.questions] and len(a.questions) == 3


# -- running ----------------------------------------------------------------------------------------


def test_run_writes_one_complete_record_per_question_and_variant(finished_run):
    experiment, summary = finished_run
    records = read_records(experiment.output / RECORDS)
    assert summary.written == len(records) == 3 * N_QUESTIONS and summary.errors == 0
    assert len({r.key for r in records}) == len(records)
    by_key = {r.key: r for r in records}
    plain = by_key["plain\te1"]
    assert plain.answer["citations"] and plain.answer["trace"]["stages"]
    assert plain.refused is False and plain.evidence and plain.evidence[0]["verified"] is True
    assert plain.retrieved[0]["doc_id"] == "gastric"
    assert plain.config_hash == experiment.variants[0].config_hash and plain.plugins
    assert {"ask_ms", "metrics_ms", "judges_ms"} <= set(plain.timings)
    assert plain.metrics["retrieved_evidence"] == len(plain.evidence)
    assert plain.judges["scores"] == {"grounded": 1.0} and plain.judges["flags"] == {"uncited": False}
    # the liver document is gone from every evidence list of the filtered variant
    assert all(e["doc_id"] != "liver" for r in records if r.variant == "drop-liver" for e in r.evidence)
    refused = by_key["plain\te7"]
    assert (
        refused.refused
        and refused.refusal_reason == "weak_evidence"
        and refused.metrics["caution_explicit_refusal"] == 1.0
    )
    manifest = json.loads((experiment.output / "run.json").read_text())
    assert manifest["status"] == "complete" and set(manifest["variants"]) == {"plain", "drop-liver", "reversed"}
    assert manifest["variants"]["plain"]["index_key"] and manifest["counts"]["records"] == 3 * N_QUESTIONS


def test_a_crash_loses_at_most_the_record_in_flight_and_a_rerun_completes_without_duplicates(tmp_path):
    host = _host()
    text = replaced(
        EXPERIMENT,
        "pipeline: eval_pipeline.yaml",
        "pipeline: eval_pipeline.yaml\nset: {generator: {name: crash-test, after: 5}}",
    )
    path = make_experiment(tmp_path, text)
    Crash.calls = 0
    with pytest.raises(KeyboardInterrupt):
        run_experiment(load_experiment(path, host.registry), host, progress=False)
    records_path = tmp_path / "run" / RECORDS
    before = read_records(records_path)
    # 5 answers generated; refusals call no generator, so a few more records may precede the crash
    assert 5 <= len(before) < 3 * N_QUESTIONS
    assert json.loads((tmp_path / "run" / "run.json").read_text())["status"] == "interrupted"
    with open(records_path, "a", encoding="utf-8") as handle:  # a record torn by the kill, mid-write
        handle.write('{"key": "plain\\te9", "variant": "pla')
    Crash.calls = -1000
    summary = run_experiment(load_experiment(path, host.registry), host, progress=False)
    assert summary.skipped == len(before) and summary.written == 3 * N_QUESTIONS - len(before)
    lines = records_path.read_text(encoding="utf-8").splitlines()
    keys = [json.loads(line)["key"] for line in lines]
    assert len(keys) == len(set(keys)) == 3 * N_QUESTIONS  # physically no duplicates, no torn line
    after = {r.key: r for r in read_records(records_path)}
    assert all(after[r.key].finished_at == r.finished_at for r in before)  # finished records untouched
    again = run_experiment(load_experiment(path, host.registry), host, progress=False)
    assert again.written == 0 and again.skipped == 3 * N_QUESTIONS


def test_a_failing_question_is_recorded_and_retried_by_the_next_run(tmp_path):
    host = _host()
    text = replaced(
        EXPERIMENT,
        "pipeline: eval_pipeline.yaml",
        "pipeline: eval_pipeline.yaml\nset: {generator: {name: crash-test, after: 2, error: runtime}}",
    )
    path = make_experiment(tmp_path, text)
    Crash.calls = 0
    first = run_experiment(load_experiment(path, host.registry), host, progress=False)
    assert first.errors > 0 and "the model server went away" in first.error_examples[0]
    failed = [r for r in read_records(tmp_path / "run" / RECORDS) if r.error]
    assert failed and failed[0].error.startswith("answer: stage generator") and "RuntimeError" in failed[0].error
    Crash.calls = -1000
    second = run_experiment(load_experiment(path, host.registry), host, progress=False)
    assert second.written == len(failed) and second.errors == 0
    assert not [r for r in read_records(tmp_path / "run" / RECORDS) if r.error]
    with pytest.raises(Exception, match="stopped by --fail-fast"):
        Crash.calls = 0
        run_experiment(load_experiment(path, host.registry), host, progress=False, restart=True, fail_fast=True)


def test_a_changed_variant_is_not_resumed_silently(tmp_path, host):
    path = make_experiment(tmp_path)
    experiment = load_experiment(path, host.registry, only_variants=["plain"], limit=2)
    run_experiment(experiment, host, progress=False)
    changed = load_experiment(path, host.registry, only_variants=["plain"], limit=2,
                              overrides=["variants.plain.set={retrievers.0.top_k: 2}"])
    with pytest.raises(ConfigError, match="--restart"):
        run_experiment(changed, host, progress=False)
    summary = run_experiment(changed, host, progress=False, restart=True)
    assert summary.written == 2 and list((tmp_path / "run").glob("records.*.jsonl"))  # the old records kept


def test_concurrency_gives_the_same_records(tmp_path, host):
    one = load_experiment(make_experiment(tmp_path), host.registry)
    run_experiment(one, host, progress=False)
    threaded_text = replaced(EXPERIMENT, "output: run", "output: run-threads\nconcurrency: 3")
    threaded = load_experiment(make_experiment(tmp_path, threaded_text), host.registry)
    summary = run_experiment(threaded, host, progress=False)
    assert summary.written == 3 * N_QUESTIONS
    a = {r.key: (r.answer["text"], r.metrics) for r in read_records(tmp_path / "run" / RECORDS)}
    b = {r.key: (r.answer["text"], r.metrics) for r in read_records(tmp_path / "run-threads" / RECORDS)}
    assert a == b


# -- statistics -------------------------------------------------------------------------------------


def test_holm_matches_the_textbook_example():
    reject, adjusted = stats.holm([0.01, 0.04, 0.03, 0.2], alpha=0.05)
    assert reject == [True, False, False, False]
    assert adjusted == pytest.approx([0.04, 0.09, 0.09, 0.2])


def test_wilcoxon_matches_scipy_and_handles_ties_at_zero():
    from scipy.stats import wilcoxon

    a = [3.1, 2.0, 4.5, 5.0, 1.2, 3.3, 2.8, 4.1, 3.9, 2.2]
    b = [2.0, 2.5, 3.0, 4.1, 1.0, 2.1, 2.9, 3.0, 2.5, 1.1]
    statistic, p, note = stats.wilcoxon(a, b)
    expected = wilcoxon(a, b)
    assert statistic == pytest.approx(expected.statistic) and p == pytest.approx(expected.pvalue) and not note
    assert stats.wilcoxon([1, 2], [1, 2]) == (None, 1.0, "all differences are zero")


def test_bootstrap_ci_is_reproducible_with_its_seed():
    diffs = [0.5, 1.0, -0.2, 0.8, 0.3, 1.2, 0.0, 0.7, 0.4, 0.9]
    first = stats.bootstrap_ci(diffs, seed=13, resamples=2000)
    assert first == stats.bootstrap_ci(diffs, seed=13, resamples=2000)
    assert first != stats.bootstrap_ci(diffs, seed=14, resamples=2000)
    mean = sum(diffs) / len(diffs)
    assert first[0] < mean < first[1] and first[0] > -0.2 and first[1] < 1.2


def test_paired_test_effect_size_and_direction():
    test = stats.paired_test([2, 3, 4, 5, 6, 7], [1, 1, 1, 1, 1, 1], seed=1, resamples=500)
    assert test.mean_diff == pytest.approx(3.5) and test.effect_size == 1.0 and test.n == 6
    assert stats.direction(test.mean_diff, 0.01, 0.05) == "a>b"
    assert stats.direction(-1.0, 0.01, 0.05) == "a<b" and stats.direction(1.0, 0.2, 0.05) == "n.s."
    assert stats.rank_biserial([1, -1, 2, -2]) == 0.0


# -- the report -------------------------------------------------------------------------------------

COMPARISON_KEYS = {"metric", "a", "b", "n", "mean_diff", "ci_low", "ci_high", "p_value", "p_holm", "direction",
                   "effect_size", "mean_a", "mean_b", "significant"}


def test_report_json_schema_tables_and_box_plots(finished_run, tmp_path):
    experiment, _ = finished_run
    out = tmp_path / "report"
    paths = write_report(experiment.output, ReportOptions(out=out, bootstrap=500))
    report = json.loads(paths["json"].read_text(encoding="utf-8"))
    metrics = report["metrics"]
    traceability = ["retrieved_evidence", "verified_evidence", "cancer_matched_evidence", "answer_sentences",
                    "evidence_aligned_sentences"]
    aliased = {a for same in report["aliases"].values() for a in same}
    assert metrics[:len(set(traceability) - aliased)] == [m for m in traceability if m not in aliased]
    assert {"judge.grounded", "flag.uncited", "recall@3", "rougeL", "caution_answered"} <= set(metrics) | aliased
    pairs = {("plain", "drop-liver"), ("plain", "reversed"), ("drop-liver", "reversed")}
    assert {(c["a"], c["b"]) for c in report["comparisons"]} == pairs
    assert len(report["comparisons"]) == len(pairs) * len(report["compared"])
    # duplicates are reported once (their names listed as aliases), constant metrics are not tested
    aliased = {a for same in report["aliases"].values() for a in same}
    assert not aliased & set(metrics) and not set(report["degenerate"]) & set(report["compared"])
    assert set(report["compared"]) | set(report["degenerate"]) == set(metrics)
    for metric in report["degenerate"]:
        assert not any(c["metric"] == metric for c in report["comparisons"])
    for entry in report["comparisons"]:
        assert COMPARISON_KEYS <= set(entry)
        assert entry["p_holm"] >= entry["p_value"] - 1e-12 and entry["ci_low"] <= entry["mean_diff"] <= entry["ci_high"]
    retrieved = next(c for c in report["comparisons"] if c["metric"] == "retrieved_evidence" and c["b"] == "drop-liver")
    answered = {v: {r.qid for r in read_records(experiment.output / RECORDS) if r.variant == v and not r.refused}
                for v in ("plain", "drop-liver")}
    # the filter removed evidence
    assert retrieved["n"] == len(answered["plain"] & answered["drop-liver"]) and retrieved["mean_diff"] > 0
    assert report["settings"]["seed"] == 7 and report["summary"]["retrieved_evidence"]["plain"]["n"] == len(
        answered["plain"]
    )
    assert set(report["groups"]["difficulty"]["values"]) == {"easy", "hard"}
    assert report["answers"]["plain"]["refused"] == 1
    assert report["judges"]["parse_failures_total"] == 0
    for metric in metrics:
        if metric in report["plots"]:
            assert (out / report["plots"][metric]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (out / "plots" / "retrieved_evidence.png").is_file() and (out / "plots" / "overview.png").is_file()
    md = paths["md"].read_text(encoding="utf-8")
    assert "## Paired comparisons" in md and "Holm" in md and "| retrieved_evidence | plain | drop-liver |" in md
    answers, timing = md.split("## Answers")[1].split("\n## ")[0], md.split("## Timing")[1].split("\n## ")[0]
    assert "ask ms" not in answers and "median ask ms" in timing and "not compared or tested" in timing
    html = paths["html"].read_text(encoding="utf-8")
    assert "data:image/png;base64," in html and "<table>" in html


def test_refused_questions_count_only_in_the_metrics_about_refusals(finished_run, tmp_path):
    """One rule for every metric, judges included: a refused question is missing from all but the
    metrics its metric declares about refusals (caution's labels here), and the tables say so."""
    experiment, _ = finished_run
    records = read_records(experiment.output / RECORDS)
    refused = {(r.variant, r.qid) for r in records if r.refused}
    assert refused and all(("plain", "e7") == key or key[1] == "e7" for key in refused)
    paths = write_report(experiment.output, ReportOptions(out=tmp_path / "report", bootstrap=200))
    report = json.loads(paths["json"].read_text(encoding="utf-8"))
    about = [
        "caution_answered",
        "caution_explicit_refusal",
        "caution_acknowledged_ambiguity",
        "caution_request_for_information",
        "caution_conditional_answer",
    ]
    assert sorted(report["about_refusals"]) == sorted(about)
    for metric in report["metrics"]:
        for variant, stat in report["summary"][metric].items():
            mine = [r for r in records if r.variant == variant]
            if metric in about:
                assert stat["n"] == len(mine), (metric, variant)  # every question, refused ones included
            else:  # a refused record's value of any other metric is not counted, whatever the metric gave
                scored = [
                    r
                    for r in mine
                    if not r.refused
                    and metric.split(".")[-1]
                    in {**r.metrics, **(r.judges or {}).get("scores", {}), **(r.judges or {}).get("flags", {})}
                ]
                assert stat.get("n", 0) == len(scored), (metric, variant)
    refusals = report["summary"]["caution_explicit_refusal"]["plain"]
    assert refusals["count"] >= sum(1 for v, _ in refused if v == "plain")
    md = paths["md"].read_text(encoding="utf-8")
    metrics_section = md.split("## Metrics")[1].split("\n## ")[0]
    assert "Refused questions: a refused question has no answer to score" in metrics_section
    assert "(" + ", ".join(report["about_refusals"]) + ")" in metrics_section
    assert "both variants scored" in md.split("## Paired comparisons")[1].split("\n## ")[0]
    assert "leave the refused ones out" in md.split("## By difficulty")[1].split("\n## ")[0]
    manifest = json.loads((experiment.output / "run.json").read_text(encoding="utf-8"))
    assert sorted({m["name"]: m["about_refusals"] for m in manifest["metrics"]}["caution"]) == sorted(about)


def test_duplicate_and_constant_metrics_stay_out_of_the_holm_family():
    from criss_rag.evaluation.report_numbers import collapse_duplicates, constant_value

    table = {
        "citations": {"a": {"q1": 1, "q2": 2}, "b": {"q1": 1, "q2": 3}},
        "cited_documents": {"a": {"q1": 1, "q2": 2}, "b": {"q1": 1, "q2": 3}},
        "hops": {"a": {"q1": 0, "q2": 0}, "b": {"q1": 0, "q2": 0}},
        "rougeL": {"a": {"q1": 0.2, "q2": 0.5}, "b": {"q1": 0.3, "q2": 0.1}},
    }
    kept, aliases = collapse_duplicates(table, ["citations", "cited_documents", "hops", "rougeL"])
    assert kept == ["citations", "hops", "rougeL"] and aliases == {"citations": ["cited_documents"]}
    assert constant_value(table["hops"]) == 0 and constant_value(table["rougeL"]) is None


def test_report_metric_selection_forms_the_holm_family(finished_run, tmp_path):
    experiment, _ = finished_run
    picked = ["retrieved_evidence", "rougeL"]
    report = build_report(experiment.output, ReportOptions(metrics=picked, bootstrap=200))
    assert report["metrics"] == picked and len(report["comparisons"]) == 3 * 2
    single = build_report(experiment.output, ReportOptions(metrics=["rougeL"], bootstrap=200))
    one = {(c["a"], c["b"]): c for c in single["comparisons"]}
    for c in report["comparisons"]:
        if c["metric"] == "rougeL":  # a family of one: Holm changes nothing
            assert one[(c["a"], c["b"])]["p_holm"] == pytest.approx(c["p_value"]) and c["p_holm"] >= c["p_value"]
    with pytest.raises(DataError, match="no values for metric"):
        build_report(experiment.output, ReportOptions(metrics=["nope"]))


def test_cli_eval_run_and_report(tmp_path):
    host = _host()
    path = make_experiment(tmp_path)
    cli = build_cli(host)
    result = CliRunner().invoke(
        cli, ["eval", "run", str(path), "--limit", "2", "--no-progress", "--variant", "plain"], obj={"host": host}
    )
    assert result.exit_code == 0, result.output
    assert "2 records written" in result.output
    result = CliRunner().invoke(
        cli, ["eval", "run", str(path), "--limit", "2", "--no-progress", "--variant", "plain"], obj={"host": host}
    )
    assert "0 records written, 2 already done" in result.output
    result = CliRunner().invoke(
        cli,
        ["eval", "report", str(tmp_path / "run"), "--bootstrap", "200", "--metric", "retrieved_evidence"],
        obj={"host": host},
    )
    assert result.exit_code == 0, result.output
    assert (tmp_path / "run" / "report.md").is_file() and "report.json" in result.output
    result = CliRunner().invoke(cli, ["eval", "run", str(tmp_path / "nope.yaml")], obj={"host": host})
    assert result.exit_code == 2 and "config file not found" in result.output


# -- expert review ----------------------------------------------------------------------------------


def _fill(path: Path, rater: str, rating) -> None:
    import openpyxl

    book = openpyxl.load_workbook(path)
    sheet = book["ratings"]
    header = [c.value for c in sheet[1]]
    for row in sheet.iter_rows(min_row=2):
        item = row[0].value
        for dim in ("accuracy", "relevance", "completeness", "clarity", "consistency"):
            row[header.index(dim)].value = rating(item, dim)
    book["instructions"]["B1"] = rater
    book.save(path)


def test_expert_review_sheet_round_trip(finished_run, tmp_path):
    experiment, _ = finished_run
    sheet = export_sheet(experiment.output, tmp_path / "sheet.xlsx", seed=3, per_variant=4)
    import openpyxl

    rows = list(openpyxl.load_workbook(sheet)["ratings"].iter_rows(values_only=True))
    assert len(rows) == 1 + 3 * 4
    text = json.dumps(rows, default=str)
    assert "drop-liver" not in text and "reversed" not in text  # blinded
    key = json.loads((experiment.output / "review-key.json").read_text())["items"]
    scores = {item: (5 if k["variant"] == "plain" else 2) for item, k in key.items()}
    a, b = tmp_path / "a.xlsx", tmp_path / "b.xlsx"
    shutil.copy(sheet, a)
    shutil.copy(sheet, b)
    _fill(a, "dr-a", lambda item, dim: scores[item])
    _fill(b, "dr-b", lambda item, dim: scores[item])
    result = import_ratings(experiment.output, [a, b])
    assert result["raters"] == ["dr-a", "dr-b"]
    assert result["per_variant"]["plain"]["means"]["accuracy"] == 5.0
    assert result["per_variant"]["reversed"]["means"]["clarity"] == 2.0
    assert result["agreement"]["accuracy"]["krippendorff_alpha"] == pytest.approx(1.0)
    report = build_report(experiment.output, ReportOptions(ratings=[a, b], bootstrap=200, metrics=["rougeL"]))
    assert report["expert_review"]["per_variant"]["plain"]["items"] == 4
    _fill(b, "dr-b", lambda item, dim: 7)
    with pytest.raises(DataError, match="outside 0-5"):
        import_ratings(experiment.output, [b])


def test_krippendorff_alpha_interval():
    assert krippendorff_alpha_interval([[1, 1], [3, 3], [5, 5]]) == pytest.approx(1.0)
    disagree = krippendorff_alpha_interval([[1, 5], [5, 1], [3, 3]])
    assert disagree is not None and disagree < 0
    assert krippendorff_alpha_interval([[2, 2], [2, 2]]) is None  # no variation at all


def test_record_model_round_trips():
    record = RunRecord(
        key="v\tq", variant="v", qid="q", question_set="s", question={"question": "?"}, metrics={"x": 1.0}
    )
    assert RunRecord.model_validate_json(record.model_dump_json()) == record
