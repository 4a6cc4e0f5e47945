"""``criss-rag eval run``: every question through every variant, one durable record each.

Engines are built once per variant (ingesting first when the variant's index does not exist yet)
and reused for all its questions. Each record holds the answer (text, citations, refusal, trace),
the evidence the generator saw, the ranked candidates, timings, the config hash, the plugin
versions, the metric values and the judges' verdicts. Records are appended and fsynced one at a
time, so a rerun skips what is finished and a crash loses at most the record in flight.
"""

from __future__ import annotations

import functools
import json
import math
import sys
import threading
import time
from collections.abc import Callable, Generator, Mapping
from concurrent.futures import FIRST_EXCEPTION, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from criss_rag.config.model import stable_hash
from criss_rag.engine import Engine
from criss_rag.errors import ConfigError, CrissRagError
from criss_rag.evaluation.experiment import Evaluator, Experiment, Variant
from criss_rag.evaluation.judging import as_verdict, combine
from criss_rag.evaluation.records import (
    MANIFEST,
    RECORDS,
    JsonlAppender,
    RecordWriter,
    RunRecord,
    read_records,
    record_key,
)
from criss_rag.evaluation.retrieval import GOLD_FIELDS
from criss_rag.indexing.executors import run_batches
from criss_rag.pipeline import Pipeline
from criss_rag.plugins import PluginHost
from criss_rag.types import Answer, Context, Hit, Query
from criss_rag.version import __version__

_local = threading.local()  # what the engine showed the generator, per worker thread
MAX_RETRIEVED = 50
_META_SKIP = {"text", "doc_id", "title"}


class _RecordingContext:
    """Wraps the context builder so the runner can keep the numbered evidence of each answer."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def build(self, query: Query, hits: list[Hit]) -> Context:
        context = self._inner.build(query, hits)
        _local.context = context
        return context

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class RecordingPipeline(Pipeline):
    """A pipeline whose context builder reports the evidence it numbered (per thread)."""

    def build(self, cc: Any, protocol: Any = None) -> Any:
        component = super().build(cc) if protocol is None else super().build(cc, protocol)
        return _RecordingContext(component) if cc.stage == "context" else component


class RecordingEngine(Engine):
    """An engine that also reports the final ranked candidates of each question (per thread)."""

    def retrieve_steps(self, query: Query, trace: Any) -> Generator[Any, None, list[Hit]]:
        hits = yield from super().retrieve_steps(query, trace)
        _local.hits = hits
        return hits


class MetricCollision(ConfigError):
    """Two metrics gave a value of the same name: a config problem, so the run stops."""


@dataclass
class RunSummary:
    run_dir: Path
    total: int
    skipped: int  # finished by an earlier run
    written: int = 0
    errors: int = 0
    review: int = 0
    seconds: float = 0.0
    error_examples: list[str] = field(default_factory=list)

    def line(self) -> str:
        return (f"{self.written} records written, {self.skipped} already done, {self.errors} errors, "
                f"{self.review} for review, {self.seconds:.1f} s -> {self.run_dir}")


def run_experiment(
    experiment: Experiment,
    host: PluginHost,
    *,
    restart: bool = False,
    fail_fast: bool = False,
    progress: bool = True,
    echo: Callable[[str], None] = lambda line: print(line, file=sys.stderr),
    executor: Any = None,
) -> RunSummary:
    """Answer every pending (question, variant) pair and append its record (on ``executor``'s
    workers when one is given: :mod:`criss_rag.indexing.executors`; records are still written here)."""
    started = time.perf_counter()
    out = experiment.output
    out.mkdir(parents=True, exist_ok=True)
    records_path = out / RECORDS
    review_path = out / experiment.spec.judge_panel.review_file
    if restart:
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
        for path in (records_path, review_path):
            if path.exists():
                path.rename(path.with_name(f"{path.stem}.{stamp}{path.suffix}"))
                echo(f"kept the earlier {path.name} as {path.stem}.{stamp}{path.suffix}")
    writer = RecordWriter(records_path)
    finished = {r.key: r for r in writer.prepare()}
    eval_hash = experiment.eval_hash()
    _check_stale(experiment, finished.values(), eval_hash, records_path)

    eval_pipeline = Pipeline(experiment.eval_config, host)
    metrics = [(m, eval_pipeline.build(m.cc)) for m in experiment.metrics]
    judges = [(j, eval_pipeline.build(j.cc)) for j in experiment.judges]
    manifest = _manifest(experiment, out, metrics, judges, eval_hash)
    _write_manifest(out, manifest)

    work = [(v, [q for q in experiment.questions if record_key(v.name, str(q["qid"])) not in finished])
            for v in experiment.variants]
    total = len(experiment.variants) * len(experiment.questions)
    pending = sum(len(qs) for _, qs in work)
    summary = RunSummary(out, total=total, skipped=total - pending)
    review = JsonlAppender(review_path)
    bar = _progress(pending, progress)
    status = "interrupted"
    try:
        for variant, questions in work:
            if not questions:
                continue
            with _bar_set_aside(bar):  # the variant's ingest prints its own progress, on lines of its own
                engine = _open(variant, host, progress, eval_pipeline)
                warm_up = getattr(engine, "warm_up", None)  # models load now: question latencies exclude it
                warm_up_s = round(sum(warm_up().values()), 3) if callable(warm_up) else 0.0
            manifest["variants"][variant.name].update(
                index_key=engine.manifest.key, plugins=engine.pipeline.plugin_versions(), warm_up_s=warm_up_s)
            _write_manifest(out, manifest)
            doc_ids = _index_doc_ids(engine)
            task = _Task(variant, engine, doc_ids, metrics, judges, eval_pipeline, eval_hash,
                         experiment.spec.judge_panel.disagreement)

            def done(record: RunRecord) -> None:
                writer.write(record)
                if record.error:
                    summary.errors += 1
                    if len(summary.error_examples) < 5:
                        summary.error_examples.append(f"{record.variant} / {record.qid}: {record.error}")
                    if fail_fast:
                        raise CrissRagError(f"variant {record.variant!r}, question {record.qid!r}: {record.error} "
                                            "(stopped by --fail-fast; a rerun resumes here)")
                else:
                    summary.written += 1
                    if record.judges and record.judges.get("review"):
                        summary.review += 1
                        review.append(review_entry(record))
                bar.update(1)

            if executor is None:
                _run_variant(task, questions, variant.concurrency, done)
            else:
                _run_on_executor(executor, experiment, variant, eval_hash, host, questions, done)
        status = "complete" if summary.errors == 0 else "complete with errors"
    finally:
        bar.close()
        writer.close()
        summary.seconds = time.perf_counter() - started
        _rewrite_review(review_path, read_records(records_path, keep_errors=False))
        manifest.update(status=status, finished=_now(), counts={
            "records": len(read_records(records_path, keep_errors=False)), "expected": total,
            "errors_this_run": summary.errors})
        _write_manifest(out, manifest)
    return summary


# -- one variant ------------------------------------------------------------------------------------


@dataclass
class _Task:
    variant: Variant
    engine: Engine
    doc_ids: set[str]
    metrics: list[tuple[Evaluator, Any]]
    judges: list[tuple[Evaluator, Any]]
    eval_pipeline: Pipeline
    eval_hash: str
    disagreement: float

    def __call__(self, question: dict[str, Any]) -> RunRecord:
        variant = self.variant
        qid = str(question["qid"])
        stored_question = {k: v for k, v in question.items() if not k.startswith("_")}
        record = RunRecord(
            key=record_key(variant.name, qid), variant=variant.name, qid=qid,
            question_set=str(question.get("question_set", "")), question=stored_question,
            request_filters=dict(question.get("_request_filters") or {}),
            config_hash=variant.config_hash, eval_hash=self.eval_hash,
            plugins=self.engine.pipeline.plugin_versions(),
        )
        _local.context = None
        _local.hits = []
        stage = "answer"
        try:
            started = time.perf_counter()
            answer = self.engine.ask(str(question["question"]), filters=record.request_filters)
            record.timings["ask_ms"] = _ms(started)
            record.answer = answer.model_dump(mode="json")
            record.refused = answer.refused
            record.refusal_reason = answer.refusal_reason
            record.evidence = _evidence(_local.context, self.doc_ids)
            record.retrieved = _retrieved(_local.hits)
            view = metric_view(question, record)
            stage = "metrics"
            started = time.perf_counter()
            record.metrics = self._metrics(view, answer)
            record.timings["metrics_ms"] = _ms(started)
            if self.judges:
                stage = "judges"
                started = time.perf_counter()
                verdicts = []
                for evaluator, judge in self.judges:
                    name = evaluator.label or evaluator.cc.name
                    result = self.eval_pipeline.call(evaluator.cc.stage, evaluator.cc.name, judge.judge, view, answer)
                    verdicts.append(as_verdict(result, name))
                record.judges = combine(verdicts, disagreement=self.disagreement)
                record.timings["judges_ms"] = _ms(started)
        except (KeyboardInterrupt, SystemExit, MetricCollision):
            raise
        except Exception as exc:  # one failing question must not end a long run; a rerun retries it
            record.error = f"{stage}: {type(exc).__name__}: {exc}" if not isinstance(exc, CrissRagError) \
                else f"{stage}: {exc}"
        record.finished_at = _now()
        return record

    def _metrics(self, view: Mapping[str, Any], answer: Answer) -> dict[str, float]:
        values: dict[str, float] = {}
        for evaluator, metric in self.metrics:
            result = self.eval_pipeline.call(evaluator.cc.stage, evaluator.cc.name, metric.compute, view, answer)
            for key, value in (result or {}).items():
                if value is None or not _finite(value):
                    continue  # not applicable to this question: missing, never 0 or NaN
                name = f"{evaluator.label}.{key}" if evaluator.label else str(key)
                if name in values:
                    raise MetricCollision(
                        f"metric {evaluator.cc.name!r} returned {name!r}, which another metric already gave; "
                        "give one of them a `label:` in the experiment"
                    )
                values[name] = float(value)
        return values


def metric_view(question: Mapping[str, Any], record: RunRecord) -> dict[str, Any]:
    """What metrics and judges receive as ``question``: the question's fields plus ``_gold``,
    ``_evidence``, ``_retrieved``, ``_variant`` and ``_request_filters``."""
    view = {k: v for k, v in question.items() if not k.startswith("_")}
    gold: str | list[Any] = next((question[f] for f in GOLD_FIELDS if question.get(f) not in (None, [], "")), [])
    view["_gold"] = [gold] if isinstance(gold, str) else [str(g) for g in gold]
    view["_evidence"] = record.evidence
    view["_retrieved"] = record.retrieved
    view["_variant"] = record.variant
    view["_request_filters"] = record.request_filters
    return view


def _run_variant(task: _Task, questions: list[dict[str, Any]], concurrency: int,
                 done: Callable[[RunRecord], None]) -> None:
    if concurrency <= 1:
        for question in questions:
            done(task(question))
        return
    pool = ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix=f"eval-{task.variant.name}")
    try:
        futures = [pool.submit(task, q) for q in questions]
        remaining = set(futures)
        while remaining:
            finished, remaining = wait(remaining, return_when=FIRST_EXCEPTION)
            for future in finished:
                done(future.result())  # re-raises a crash (KeyboardInterrupt) from the worker
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _run_on_executor(executor: Any, experiment: Experiment, variant: Variant, eval_hash: str, host: PluginHost,
                     questions: list[dict[str, Any]], done: Callable[[RunRecord], None]) -> None:
    """One question per batch, spread over the executor's workers; records come back here."""
    setup = functools.partial(_worker_task, variant, experiment.eval_config, experiment.metrics, experiment.judges,
                              eval_hash, experiment.spec.judge_panel.disagreement, host.recipe)
    for records in run_batches(executor, setup, [[question] for question in questions]):
        for record in records:
            done(record)


def _worker_task(variant: Variant, eval_config: Any, metric_evaluators: list[Evaluator],
                 judge_evaluators: list[Evaluator], eval_hash: str, disagreement: float,
                 host_recipe: Callable[[], PluginHost]) -> Callable[[list[dict[str, Any]]], list[RunRecord]]:
    """On a worker: the variant's engine, metrics and judges, built once from the same configs."""
    host = host_recipe()
    eval_pipeline = Pipeline(eval_config, host)
    metrics = [(m, eval_pipeline.build(m.cc)) for m in metric_evaluators]
    judges = [(j, eval_pipeline.build(j.cc)) for j in judge_evaluators]
    engine = _open(variant, host, False, eval_pipeline)
    task = _Task(variant, engine, _index_doc_ids(engine), metrics, judges, eval_pipeline, eval_hash, disagreement)
    return lambda questions: [task(question) for question in questions]


class DirectAnswerer:
    """A no-retrieval baseline: the question goes straight to an LLM; no evidence, no citations.

    It stands in for an engine in the runner (``ask``, ``pipeline``, ``manifest.key``)."""

    def __init__(self, variant: Variant, llm: Any, versions: dict[str, str]) -> None:
        if variant.no_retrieval is None or variant.direct_llm is None:
            raise ValueError(f"variant {variant.name!r} is not a no-retrieval baseline (no `no_retrieval:` LLM)")
        self.variant = variant
        self.spec = variant.no_retrieval
        self.llm_name = variant.direct_llm.name
        self.llm = llm
        self._versions = versions  # the LLM's plugin -> its version
        self.pipeline = self  # plugin_versions() below
        self.manifest = type("NoIndex", (), {"key": ""})()
        self.index_dir = None
        self.model = str(getattr(getattr(llm, "metadata", None), "model_name", "") or self.llm_name)

    def plugin_versions(self) -> dict[str, str]:
        return self._versions

    def ask(self, question: str, *, filters: Mapping[str, Any] | None = None) -> Answer:
        from criss_rag.types import StageTrace, Trace

        started = time.perf_counter()
        text = str(self.llm.complete(self.spec.prompt.replace("{question}", question.strip())).text).strip()
        trace = Trace(config_hash=self.variant.config_hash, plugins=self._versions, stages=[
            StageTrace(stage="generate", component=f"no-retrieval ({self.llm_name})", n_in=0, n_out=0,
                       ms=_ms(started), notes={"model": self.model})])
        return Answer(question=question.strip(), text=text, generator=f"{self.model} (no retrieval)", trace=trace)


def _open(variant: Variant, host: PluginHost, progress: bool, eval_pipeline: Pipeline | None = None) -> Any:
    if variant.no_retrieval is not None:
        assert eval_pipeline is not None and variant.direct_llm is not None
        plugin = variant.direct_llm.spec.plugin
        return DirectAnswerer(
            variant, eval_pipeline.llm(variant.no_retrieval.llm, requested_by=f"variant {variant.name}"),
            {plugin: host.versions().get(plugin, "")},
        )
    pipeline = RecordingPipeline(variant.config, host, show_progress=progress)
    try:
        return RecordingEngine.open(pipeline, build_if_missing=True)
    except CrissRagError as exc:
        raise type(exc)(f"variant {variant.name!r}: {exc}") from None


def _index_doc_ids(engine: Any) -> set[str]:
    """Ids of the documents in the variant's index: evidence 'verified' means its doc_id is one."""
    from llama_index.core.storage.docstore import SimpleDocumentStore

    from criss_rag.indexing.ingestion import DOCSTORE

    if engine.index_dir is None:
        return set()

    docstore = SimpleDocumentStore.from_persist_path(str(engine.index_dir / DOCSTORE))
    return {str(n.metadata.get("doc_id") or n.ref_doc_id or n.node_id) for n in docstore.docs.values()}


def _evidence(context: Context | None, doc_ids: set[str]) -> list[dict[str, Any]]:
    if context is None:
        return []
    return [
        {
            "number": e.number, "doc_id": e.hit.doc_id, "node_id": e.hit.node_id,
            "title": str(e.hit.metadata.get("title", "")), "text": e.text, "score": round(e.hit.score, 6),
            "signals": {k: round(float(v), 6) for k, v in e.hit.signals.items()},
            "metadata": _small_metadata(e.hit.metadata), "verified": e.hit.doc_id in doc_ids,
        }
        for e in context.evidence
    ]


def _retrieved(hits: list[Hit]) -> list[dict[str, Any]]:
    return [{"rank": i, "doc_id": h.doc_id, "node_id": h.node_id, "score": round(h.score, 6),
             "title": str(h.metadata.get("title", ""))} for i, h in enumerate(hits[:MAX_RETRIEVED], start=1)]


def _small_metadata(meta: Mapping[str, Any]) -> dict[str, Any]:
    """Scalar metadata (and short lists), for metrics such as diagnosis years; text stays out."""
    out: dict[str, Any] = {}
    for key, value in meta.items():
        if key in _META_SKIP:
            continue
        if isinstance(value, bool | int | float) or (isinstance(value, str) and len(value) <= 300):
            out[key] = value
        elif (
            isinstance(value, list | tuple)
            and len(value) <= 50
            and all(isinstance(v, str | int | float) for v in value)
        ):
            out[key] = list(value)
    return out


# -- bookkeeping --------------------------------------------------------------------------------------


def review_entry(record: RunRecord) -> dict[str, Any]:
    panel = record.judges or {}
    return {
        "key": record.key, "variant": record.variant, "qid": record.qid,
        "question": record.question.get("question"), "answer": (record.answer or {}).get("text"),
        "reasons": panel.get("review_reasons", []), "scores": panel.get("scores", {}),
        "verdicts": panel.get("verdicts", []),
    }


def _rewrite_review(path: Path, records: list[RunRecord]) -> None:
    """The review file from the records themselves: one entry per record, none lost or doubled."""
    entries = [review_entry(r) for r in records if r.judges and r.judges.get("review")]
    if not entries and not path.exists():
        return
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries), encoding="utf-8")
    tmp.replace(path)


def _check_stale(experiment: Experiment, records: Any, eval_hash: str, path: Path) -> None:
    hashes = {v.name: v.config_hash for v in experiment.variants}
    for record in records:
        if record.variant in hashes and record.config_hash != hashes[record.variant]:
            raise ConfigError(
                f"{path} holds records of variant {record.variant!r} made with config hash {record.config_hash}, "
                f"but the variant now resolves to {hashes[record.variant]}. Rerun with --restart to start over "
                "(the old records are kept beside), or set a new `output:` in the experiment"
            )
        if record.eval_hash != eval_hash:
            raise ConfigError(
                f"{path} holds records scored with other metrics or judges (eval hash {record.eval_hash}, now "
                f"{eval_hash}). Rerun with --restart to start over (the old records are kept beside), or set a "
                "new `output:` in the experiment"
            )


def _manifest(experiment: Experiment, out: Path, metrics: list[tuple[Evaluator, Any]],
              judges: list[tuple[Evaluator, Any]], eval_hash: str) -> dict[str, Any]:
    previous: dict[str, Any] = {}
    if (out / MANIFEST).is_file():
        try:
            previous = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            previous = {}
    old_variants = previous.get("variants", {}) if isinstance(previous.get("variants"), dict) else {}
    variants = {}
    for v in experiment.variants:
        entry = {k: old_variants.get(v.name, {}).get(k) for k in ("index_key", "plugins")}
        entry.update(description=v.description, pipeline=str(v.pipeline_path), overrides=list(v.overrides),
                     config_hash=v.config_hash, concurrency=v.concurrency, plan=v.config.plan())
        variants[v.name] = entry
    return {
        "experiment": experiment.spec.name,
        "description": experiment.spec.description,
        "experiment_file": str(experiment.path.resolve()),
        "experiment_hash": stable_hash(experiment.spec.model_dump(mode="json")),
        "eval_hash": eval_hash,
        "seed": experiment.spec.seed,
        "groups": experiment.spec.groups,
        "report": experiment.spec.report.model_dump(),
        "question_sets": experiment.set_counts,
        "variants": variants,
        "metrics": [{**m.plan(), "description": _describe(c), "about_refusals": list(getattr(c, "about_refusals", ()))}
                    for m, c in metrics],
        "judges": [{**j.plan(), "description": _describe(c)} for j, c in judges],
        "judge_panel": experiment.spec.judge_panel.model_dump(),
        "criss_rag_version": __version__,
        "started": previous.get("started") or _now(),
        "status": "running",
    }


def _describe(component: Any) -> str:
    describe = getattr(component, "describe", None)
    return str(describe()) if callable(describe) else ""


def _write_manifest(out: Path, manifest: dict[str, Any]) -> None:
    tmp = out / (MANIFEST + ".tmp")
    tmp.write_text(json.dumps(manifest, indent=2, ensure_ascii=False, default=str), encoding="utf-8")
    tmp.replace(out / MANIFEST)


def _bar_set_aside(bar: Any) -> Any:
    """A context in which other output goes to stderr without tearing the progress bar."""
    from contextlib import nullcontext

    from tqdm import tqdm

    return tqdm.external_write_mode(file=sys.stderr) if isinstance(bar, tqdm) and not bar.disable else nullcontext()


def _progress(total: int, enabled: bool) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc="eval run", unit="answer", file=sys.stderr, disable=not enabled or total == 0,
                dynamic_ncols=True)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 3)


def _finite(value: Any) -> bool:
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False
