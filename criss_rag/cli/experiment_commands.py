"""``criss-rag eval run``, ``eval report`` and ``eval review-sheet``: experiments from YAML.

Only click is imported here; the evaluation modules (and scipy, matplotlib, openpyxl) load when a
command runs, so building the CLI stays fast.
"""

from __future__ import annotations

from pathlib import Path

import click

from criss_rag.cli.context import host_from

RUN_DIR = click.argument("run_dir", type=click.Path(file_okay=False, path_type=Path))


@click.command(name="run")
@click.argument("experiment", type=click.Path(dir_okay=False, path_type=Path))
@click.option(
    "--restart",
    is_flag=True,
    help="Start over: keep the earlier records beside (records.<time>.jsonl) and answer everything again.",
)
@click.option("--variant", "variants", multiple=True, metavar="NAME", help="Run only this variant (repeatable).")
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=None,
    help="Answer at most this many questions per question set (a quick try).",
)
@click.option(
    "--concurrency",
    type=click.IntRange(min=1),
    default=None,
    help="Questions answered at once per variant (overrides the experiment's `concurrency:`).",
)
@click.option(
    "--fail-fast",
    is_flag=True,
    help="Stop at the first question that fails (default: record the error, go on; a rerun retries it).",
)
@click.option("--no-progress", is_flag=True, help="No progress bar.")
@click.option(
    "--set",
    "overrides",
    multiple=True,
    metavar="KEY.PATH=VALUE",
    help="Override a value of the experiment file, e.g. --set llms.judge-a.base_url=http://127.0.0.1:11434 "
         "(repeatable).",
)
@click.option(
    "--executor",
    default="local",
    show_default=True,
    metavar="NAME",
    help="Where the records are answered and scored: local (this process, `concurrency` threads) or a registered "
         "executor, e.g. ray.",
)
@click.option("--executor-set", "executor_settings", multiple=True, metavar="KEY=VALUE",
              help="A setting of the executor, e.g. --executor-set address=ray://head:10001 (repeatable).")
@click.pass_context
def run(ctx: click.Context, experiment: Path, restart: bool, variants: tuple[str, ...], limit: int | None,
        concurrency: int | None, fail_fast: bool, no_progress: bool, overrides: tuple[str, ...], executor: str,
        executor_settings: tuple[str, ...]) -> None:
    """Answer every question of EXPERIMENT with every variant; one record each in its output folder.

    Resumable: a rerun skips finished records and retries failed ones.
    """
    from dataclasses import replace

    from criss_rag.evaluation.experiment import load_experiment
    from criss_rag.evaluation.runner import run_experiment

    host = host_from(ctx)
    loaded = load_experiment(experiment, host.registry, only_variants=variants, limit=limit, overrides=overrides)
    if concurrency is not None:
        loaded.variants = [replace(v, concurrency=concurrency) for v in loaded.variants]
    click.echo(f"experiment {loaded.spec.name!r}: {len(loaded.variants)} variants x {len(loaded.questions)} questions "
               f"-> {loaded.output}", err=True)
    from criss_rag.indexing.executors import open_executor
    from criss_rag.pipeline import Pipeline

    runner = open_executor(Pipeline(loaded.eval_config, host), executor, executor_settings)
    try:
        summary = run_experiment(loaded, host, restart=restart, fail_fast=fail_fast, progress=not no_progress,
                                 echo=lambda line: click.echo(line, err=True), executor=runner)
    finally:
        getattr(runner, "close", lambda: None)()
    for example in summary.error_examples:
        click.echo(f"error: {example}", err=True)
    if summary.errors:
        click.echo(f"{summary.errors} questions failed; rerun the same command to retry them", err=True)
    click.echo(summary.line())


@click.command(name="report")
@RUN_DIR
@click.option(
    "--out",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Write the report here (default: RUN_DIR).",
)
@click.option(
    "--metric",
    "metrics",
    multiple=True,
    metavar="NAME",
    help="Compare and plot only these metrics (repeatable; they form the Holm family).",
)
@click.option(
    "--alpha",
    type=click.FloatRange(0, 1, min_open=True, max_open=True),
    default=None,
    help="Significance level after Holm's correction (default: the experiment's, 0.05).",
)
@click.option(
    "--bootstrap",
    type=click.IntRange(min=100),
    default=None,
    help="Bootstrap resamples for the 95% CI (default: the experiment's, 10000).",
)
@click.option(
    "--holm-family",
    type=click.Choice(["pair", "all"]),
    default=None,
    help="Correct across each variant pair's metrics, or across every test.",
)
@click.option("--seed", type=int, default=None, help="Bootstrap seed (default: the experiment's).")
@click.option(
    "--ratings",
    multiple=True,
    type=click.Path(dir_okay=False, path_type=Path),
    help="A filled expert-review sheet (repeatable, one per rater).",
)
def report(
    run_dir: Path,
    out: Path | None,
    metrics: tuple[str, ...],
    alpha: float | None,
    bootstrap: int | None,
    holm_family: str | None,
    seed: int | None,
    ratings: tuple[Path, ...],
) -> None:
    """Write report.md, report.html, report.json and box plots for the run in RUN_DIR."""
    from criss_rag.evaluation.report import write_report
    from criss_rag.evaluation.report_inputs import ReportOptions

    options = ReportOptions(metrics=list(metrics), alpha=alpha, bootstrap=bootstrap, holm_family=holm_family,
                            seed=seed, ratings=list(ratings), out=out)
    paths = write_report(run_dir, options)
    for kind in ("md", "html", "json"):
        click.echo(str(paths[kind]))


@click.command(name="review-sheet")
@RUN_DIR
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="The .xlsx to write (default: RUN_DIR/expert-review.xlsx).",
)
@click.option(
    "--per-variant",
    type=click.IntRange(min=1),
    default=None,
    help="Rate only this many questions (the same ones for every variant).",
)
@click.option("--seed", type=int, default=13, show_default=True, help="Seed of the question sample and the row order.")
def review_sheet(run_dir: Path, out: Path | None, per_variant: int | None, seed: int) -> None:
    """Export a blinded .xlsx for expert raters (five dimensions, 0-5); read it back with `eval report --ratings`."""
    from criss_rag.evaluation.review import export_sheet

    click.echo(str(export_sheet(run_dir, out, seed=seed, per_variant=per_variant)))


#: Added to the `eval` group by criss_rag/cli/commands.py.
EXPERIMENT_COMMANDS: list[click.Command] = [run, report, review_sheet]


def add_experiment_commands(group: click.Group) -> None:
    for command in EXPERIMENT_COMMANDS:
        group.add_command(command)
