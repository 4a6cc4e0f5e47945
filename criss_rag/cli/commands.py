"""The core commands: ingest, ask, chat, plugins, validate, explain, demo, eval retrieval."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from criss_rag.cli.answer_commands import eval_answers
from criss_rag.cli.context import corpus_overrides, host_from
from criss_rag.cli.context import pipeline_from as _pipeline
from criss_rag.cli.experiment_commands import add_experiment_commands
from criss_rag.cli.render import render_answer, render_plan, render_plugins, render_trace
from criss_rag.errors import ConfigError, DataError

CONFIG = click.argument("config", type=click.Path(dir_okay=False, path_type=Path))
EXECUTOR = click.option(
    "--executor",
    default="local",
    show_default=True,
    metavar="NAME",
    help="Where the heavy batch work runs: local (this process) or a registered executor, e.g. ray.",
)
EXECUTOR_SET = click.option(
    "--executor-set",
    "executor_settings",
    multiple=True,
    metavar="KEY=VALUE",
    help="A setting of the executor, e.g. --executor-set address=ray://head:10001 (repeatable).",
)
SET = click.option("--set", "overrides", multiple=True, metavar="KEY.PATH=VALUE",
                   help="Override a config value, e.g. --set retrievers.bm25.top_k=8 (repeatable).")


@click.command()
@CONFIG
@SET
@click.option("--force", is_flag=True, help="Rebuild every retriever whole, even if the index is up to date.")
@click.option(
    "--json", "as_json", is_flag=True, help="Print the ingest report as JSON (progress still goes to stderr)."
)
@EXECUTOR
@EXECUTOR_SET
@click.pass_context
def ingest(ctx: click.Context, config: Path, overrides: tuple[str, ...], force: bool, as_json: bool, executor: str,
           executor_settings: tuple[str, ...]) -> None:
    """Load, chunk and index the corpus the CONFIG names; a changed corpus updates only what
    changed (atomic: a crash keeps the old index)."""
    from criss_rag.indexing.executors import open_executor
    from criss_rag.indexing.ingestion import ingest as run_ingest

    pipeline = _pipeline(ctx, config, overrides, progress=True)
    runner = open_executor(pipeline, executor, executor_settings)
    try:
        report = run_ingest(pipeline, force=force, executor=runner)
    finally:
        getattr(runner, "close", lambda: None)()
    click.echo(json.dumps(report.to_json(), ensure_ascii=False, indent=2) if as_json else report.summary())


def _parse_filters(items: tuple[str, ...]) -> dict[str, Any]:
    filters: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"--filter {item!r}: expected KEY=VALUE, e.g. --filter lang=ko")
        filters[key.strip()] = value.strip()
    return filters


BUILD = click.option("--build/--no-build", default=True, show_default=True,
                     help="Build the index first when this config has none yet (as `criss-rag ingest` would, with its "
                          "progress line); --no-build: stop and say to ingest.")


def open_engine(ctx: click.Context, config: Path, overrides: tuple[str, ...], build: bool) -> Any:
    """The engine for CONFIG. With ``build``, an index that does not exist yet is built first (saying
    so on stderr, with the ingest's progress); a stale or incompatible index is left to
    ``criss-rag ingest`` (its error says so)."""
    from criss_rag.engine import Engine
    from criss_rag.indexing.index_store import IndexStore
    from criss_rag.indexing.ingestion import pipeline_index_key

    pipeline = _pipeline(ctx, config, overrides)
    if not build or IndexStore(pipeline.config.index_dir).has(pipeline_index_key(pipeline)):
        return Engine.open(pipeline)
    click.echo(f"no index for {config} yet: building it now, as `criss-rag ingest {config}` would ...", err=True)
    return Engine.open(_pipeline(ctx, config, overrides, progress=True), build_if_missing=True)


@click.command()
@CONFIG
@click.argument("question")
@SET
@click.option(
    "--json", "as_json", is_flag=True, help="Print the whole Answer (text, citations, refusal, trace) as JSON."
)
@click.option(
    "--filter", "filters", multiple=True, metavar="KEY=VALUE", help="Request-level filter read by filter components."
)
@click.option("--trace", "show_trace", is_flag=True, help="Also print the per-stage trace.")
@click.option(
    "--stream", is_flag=True, help="Print the answer as it is generated, then its sources and sentence check."
)
@BUILD
@click.pass_context
def ask(ctx: click.Context, config: Path, question: str, overrides: tuple[str, ...], as_json: bool,
        filters: tuple[str, ...], show_trace: bool, stream: bool, build: bool) -> None:
    """Answer QUESTION with citations (or a refusal with its reason)."""
    engine = open_engine(ctx, config, overrides, build)
    if stream and not as_json:
        from criss_rag.cli.answer_commands import echo_stream

        answer = echo_stream(engine.ask_stream(question, filters=_parse_filters(filters)))
        if show_trace:
            click.echo(render_trace(answer))
        return
    answer = engine.ask(question, filters=_parse_filters(filters))
    if as_json:
        click.echo(answer.model_dump_json(indent=2))
        return
    click.echo(render_answer(answer))
    if show_trace:
        click.echo(render_trace(answer))


@click.command()
@CONFIG
@SET
@click.option("--session", "session_file", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Resume the conversation saved in this JSON file (if it exists) and save every turn to it.")
@click.option("--filter", "filters", multiple=True, metavar="KEY=VALUE", help="Request-level filter for every turn.")
@BUILD
@click.pass_context
def chat(ctx: click.Context, config: Path, overrides: tuple[str, ...], session_file: Path | None,
         filters: tuple[str, ...], build: bool) -> None:
    """Converse (type `exit` or Ctrl-D to leave): follow-ups are condensed into standalone questions,
    answers stream with citations, and --session keeps the conversation."""
    from criss_rag.cli.answer_commands import run_chat

    run_chat(open_engine(ctx, config, overrides, build), session_file, _parse_filters(filters))


@click.command()
@click.option("--json", "as_json", is_flag=True, help="Machine-readable output.")
@click.option("--all", "show_all", is_flag=True,
              help="Also list plugins left out by CRISS_RAG_LOAD_PLUGINS, and each component's summary.")
@click.option("--hook", "hook", default=None, metavar="NAME", help="Only plugins implementing this hook.")
@click.option("--params", "params_of", default=None, metavar="[KIND:]NAME",
              help="The parameters of component NAME (type, default, description), e.g. --params bm25.")
@click.pass_context
def plugins(ctx: click.Context, as_json: bool, show_all: bool, hook: str | None, params_of: str | None) -> None:
    """List installed plugins: name, version, components registered, hooks; and failures."""
    from criss_rag import hookspecs

    host = host_from(ctx)
    if params_of is not None:
        from criss_rag.cli.params import component_params, render_params

        described = component_params(host.registry, params_of)
        click.echo(json.dumps(described, indent=2, ensure_ascii=False) if as_json else render_params(described))
        return
    hooks = sorted(
        name for name in dir(hookspecs) if name.startswith("register_") and callable(getattr(hookspecs, name))
    )
    if hook is not None and hook not in hooks:
        raise ConfigError(f"--hook {hook!r}: no such hook. Hooks: {', '.join(hooks)}")
    loaded = [i for i in sorted(host.plugins.values(), key=lambda i: i.name) if hook is None or hook in i.hooks]
    if as_json:
        data: dict[str, Any] = {
            "plugins": [
                {"name": i.name, "version": i.version, "distribution": i.distribution,
                 "components": i.components, "hooks": i.hooks}
                for i in loaded
            ],
            "failures": [{"name": f.name, "stage": f.stage, "error": f.error} for f in host.failures],
        }
        if show_all:
            data["skipped"] = [{"name": i.name, "version": i.version, "distribution": i.distribution}
                               for i in host.skipped]
            data["summaries"] = {f"{s.kind}:{s.name}": s.summary for s in host.registry.specs()}
        click.echo(json.dumps(data, indent=2, ensure_ascii=False))
    else:
        click.echo(render_plugins(host, loaded, show_all=show_all))


@click.command()
@CONFIG
@SET
@click.pass_context
def validate(ctx: click.Context, config: Path, overrides: tuple[str, ...]) -> None:
    """Check CONFIG without reading the corpus: every component registered, every key known, every
    env var set, and every component started (so what ingest would reject, e.g. a dense retriever
    with no embedding, fails here). Starting loads no model and calls no service."""
    pipeline = _pipeline(ctx, config, overrides)
    started = 0
    for cc in pipeline.config.all_components():
        if cc.stage != "cache":  # a cache opens its store file when it starts: validate writes nothing
            pipeline.build(cc)
            started += 1
    click.echo(f"ok: {config} (pipeline {pipeline.config.name!r}, config hash {pipeline.config.config_hash()}, "
               f"{started} components started)")


@click.command()
@CONFIG
@SET
@click.pass_context
def explain(ctx: click.Context, config: Path, overrides: tuple[str, ...]) -> None:
    """Print the resolved plan: every component with every default filled in (secrets as env refs)."""
    pipeline = _pipeline(ctx, config, overrides)
    plan = pipeline.config.plan()
    plan["config_hash"] = pipeline.config.config_hash()
    plan["plugins"] = pipeline.plugin_versions()
    click.echo(render_plan(plan))


@click.command()
@click.option("--config", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Pipeline to demo (default: examples/default.yaml of the repository).")
@click.pass_context
def demo(ctx: click.Context, config: Path | None) -> None:
    """Ingest the bundled example corpus and answer the sample questions, offline."""
    from criss_rag.engine import Engine
    from criss_rag.indexing.ingestion import ingest as run_ingest

    examples = Path(__file__).resolve().parents[2] / "examples"
    config = config or examples / "default.yaml"
    questions_file = config.parent / "demo_questions.txt"
    if not config.is_file() or not questions_file.is_file():
        raise DataError(f"the demo needs {config} and {questions_file} (run it from a clone of the repository)")
    pipeline = _pipeline(ctx, config, (), progress=True)
    click.echo(run_ingest(pipeline).summary())
    engine = Engine.open(pipeline)
    for question in questions_file.read_text(encoding="utf-8").splitlines():
        if question.strip() and not question.startswith("#"):
            click.echo(f"\n>>> {question}")
            click.echo(render_answer(engine.ask(question)))


@click.group(name="eval")
def eval_group() -> None:
    """Evaluate pipelines."""


@eval_group.command(name="retrieval")
@CONFIG
@click.option("--questions", type=click.Path(dir_okay=False, path_type=Path), required=True,
              help="JSONL with qid, question and gold ids (gold_doc_ids_any, gold_doc_ids or gold_doc_id).")
@click.option("--corpus", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Use this corpus instead of the config's (its own index, kept up to date like any other).")
@click.option("--loader", default=None, help="Loader for --corpus (default: the one registered for its file suffix).")
@click.option("--k", "k", type=int, default=5, show_default=True, help="Cut-off for recall@k.")
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write one JSON line per question here.",
)
@SET
@click.pass_context
def eval_retrieval(ctx: click.Context, config: Path, questions: Path, corpus: Path | None, loader: str | None,
                   k: int, out: Path | None, overrides: tuple[str, ...]) -> None:
    """Run retrieval only for each question; print recall@K, MRR@10 and hit@1 as the last line."""
    from tqdm import tqdm

    from criss_rag.engine import Engine
    from criss_rag.evaluation.retrieval import evaluate_question, read_questions, summarise

    overrides = overrides + corpus_overrides(ctx, config, corpus, loader)
    pipeline = _pipeline(ctx, config, overrides, progress=True)
    engine = Engine.open(pipeline, build_if_missing=True)
    warm = engine.warm_up()  # models load before the first question: the latencies below are per question only
    click.echo(f"warm-up (models loaded before the first question): {sum(warm.values()):.2f} s", err=True)
    records = list(read_questions(questions))
    results = []
    sink = open(out, "w", encoding="utf-8") if out else None
    try:
        for record in tqdm(records, desc="questions", unit="q", file=sys.stderr, disable=not records):
            result = evaluate_question(engine, record)
            results.append(result)
            if sink:
                sink.write(result.to_json() + "\n")
    finally:
        if sink:
            sink.close()
    summary = summarise(results, k)
    click.echo(summary.latency_line())
    click.echo(summary.line())


add_experiment_commands(eval_group)  # eval run, eval report, eval review-sheet
eval_group.add_command(eval_answers)

#: The core commands, added to every new root command by ``build_cli``.
CORE_COMMANDS: list[click.Command] = [ingest, ask, chat, plugins, validate, explain, demo, eval_group]
