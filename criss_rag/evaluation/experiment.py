"""Experiment files: a base pipeline, its variants, question sets, metrics, judges, seed, output.

An experiment YAML (see ``docs/evaluation.md``)::

    name: ncc-filtering
    pipeline: ../default.yaml            # the base pipeline (relative to this file)
    variants:
      - {name: plain}
      - {name: hard, set: {filters: [{name: metadata, field: focus}]}}
      - {name: other, pipeline: other.yaml}
    questions:
      - {path: questions.jsonl, request_filters: {focus: focus}}
    metrics: [traceability, {name: rouge, analyzer: auto}]
    judges: [{name: rubric, llm: judge-a}, {name: rubric, llm: judge-b, label: b}]
    llms: {judge-a: {name: ollama, model: qwen2.5}, judge-b: {...}}
    seed: 13
    output: runs/ncc-filtering

Loading validates everything a run needs before the first question: every variant's pipeline
(with its overrides), every metric and judge against the registry, and every question file.
Errors name the file, the line and what to do next.
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from criss_rag.config import ComponentConfig, PipelineConfig, load_pipeline_config
from criss_rag.config.model import _component, stable_hash
from criss_rag.config.overrides import apply_overrides
from criss_rag.config.yaml_source import blame, read_yaml_file
from criss_rag.errors import ConfigError, DataError
from criss_rag.evaluation.retrieval import read_questions
from criss_rag.registry import Registry

Overrides = list[str] | dict[str, Any]


DIRECT_PROMPT = (
    "Answer the question briefly and accurately, in the language of the question. "
    "If you are not sure, say so.\n\nQuestion: {question}\nAnswer:"
)


class NoRetrievalSpec(BaseModel):
    """A baseline that asks an LLM the question directly: no retrieval, no evidence, no citation check."""

    model_config = ConfigDict(extra="forbid")
    llm: str = Field(description="key of the LLM under the experiment's `llms:`")
    prompt: str = Field(DIRECT_PROMPT, description="the prompt; {question} is replaced by the question")


class VariantSpec(BaseModel):
    """One variant: the base pipeline (or another pipeline file) with dotted overrides."""

    model_config = ConfigDict(extra="forbid")
    name: str = Field(min_length=1, description="the variant's name in records and reports")
    description: str = Field("", description="a line for the report")
    pipeline: str | None = Field(
        None, description="another pipeline file instead of the base one (relative to the experiment)"
    )
    set: Overrides = Field(
        default_factory=list, description="dotted overrides: a list of KEY.PATH=VALUE, or a mapping KEY.PATH: VALUE"
    )
    concurrency: int | None = Field(
        None,
        ge=1,
        description="questions answered at once for this variant (LLM-bound variants); default: the experiment's",
    )
    no_retrieval: NoRetrievalSpec | None = Field(
        None, description="answer with an LLM alone (a no-RAG baseline) instead of the pipeline"
    )


class QuestionSet(BaseModel):
    """A JSONL file of questions (``qid``, ``question``, optional gold ids and group fields)."""

    model_config = ConfigDict(extra="forbid")
    path: str = Field(description="JSONL file, relative to the experiment")
    name: str | None = Field(
        None, description="the set's name (default: the file name without suffix); recorded as `question_set`"
    )
    sample: int | None = Field(
        None, ge=1, description="answer a random sample of this many questions (drawn with the experiment seed)"
    )
    limit: int | None = Field(None, ge=1, description="answer only the first this many questions (after sampling)")
    where: dict[str, Any] = Field(
        default_factory=dict, description="keep questions whose FIELD equals VALUE (a list: any of them)"
    )
    request_filters: dict[str, str] = Field(
        default_factory=dict,
        description="request filter KEY -> question FIELD, passed to the engine as `ask --filter KEY=<value of FIELD>`",
    )


class JudgePanelSpec(BaseModel):
    """How several judges' verdicts combine."""

    model_config = ConfigDict(extra="forbid")
    disagreement: float = Field(
        default=0.5,
        ge=0,
        description="judges whose scores differ by more than this on any score send the record to the review file",
    )
    review_file: str = Field(default="review.jsonl", description="file in the output folder for records to review")


class ReportSpec(BaseModel):
    """What ``criss-rag eval report`` compares (its options override these)."""

    model_config = ConfigDict(extra="forbid")
    metrics: list[str] = Field(
        default_factory=list,
        description="metrics to compare, plot and correct together (Holm); default: every metric in the records",
    )
    alpha: float = Field(default=0.05, gt=0, lt=1, description="significance level after Holm's correction")
    bootstrap: int = Field(default=10_000, ge=100, description="bootstrap resamples for the CI of the mean difference")
    holm_family: Literal["pair", "all"] = Field(
        default="pair",
        description="correct across the metrics of each variant pair, or across every test of the report",
    )


class ExperimentSpec(BaseModel):
    """The experiment YAML, as written."""

    model_config = ConfigDict(extra="forbid")
    version: int = Field(1, description="file format version (1)")
    name: str = Field(min_length=1, description="the experiment's name")
    description: str = Field("", description="a line for the report")
    pipeline: str = Field(description="the base pipeline YAML, relative to the experiment")
    set: Overrides = Field(default_factory=list, description="overrides applied to every variant before its own")
    variants: list[VariantSpec] = Field(min_length=1, description="the variants compared")
    questions: list[QuestionSet] = Field(min_length=1, description="question files")
    metrics: list[str | dict[str, Any]] = Field(
        default_factory=list, description="registered metrics ({name, label, params})"
    )
    judges: list[str | dict[str, Any]] = Field(
        default_factory=list, description="registered judges ({name, label, params})"
    )
    judge_panel: JudgePanelSpec = Field(default_factory=JudgePanelSpec, description="how judges combine")
    llms: dict[str, Any] = Field(
        default_factory=dict, description="LLMs the judges (and metrics) name, as in a pipeline's `llms:`"
    )
    seed: int = Field(13, description="seed for question sampling, bootstrap CIs and the review sheet's order")
    output: str | None = Field(None, description="run folder, relative to the experiment (default: runs/<name>)")
    concurrency: int = Field(1, ge=1, description="questions answered at once per variant (threads)")
    cache: bool = Field(
        False, description="keep the pipelines' `cache:` stage; by default evaluation answers every question afresh"
    )
    groups: list[str] = Field(
        default_factory=list,
        description="question fields the report breaks results down by (default: question_set, focus, qtype, "
                    "question_type, difficulty, scope when present)",
    )
    report: ReportSpec = Field(default_factory=ReportSpec, description="defaults of `criss-rag eval report`")

    @field_validator("version")
    @classmethod
    def _version(cls, value: int) -> int:
        if value != 1:
            raise ValueError("unsupported experiment version; use 1")
        return value


@dataclass(frozen=True)
class Variant:
    """A variant resolved to a validated pipeline config."""

    name: str
    description: str
    config: PipelineConfig
    pipeline_path: Path
    overrides: tuple[str, ...]
    concurrency: int
    no_retrieval: NoRetrievalSpec | None = None
    direct_llm: ComponentConfig | None = None  # the LLM of a no-retrieval baseline

    @property
    def config_hash(self) -> str:
        if self.no_retrieval is not None and self.direct_llm is not None:
            return stable_hash({"no_retrieval": self.no_retrieval.model_dump(), "llm": self.direct_llm.plan()})
        return self.config.config_hash()


@dataclass(frozen=True)
class Evaluator:
    """A configured metric or judge: its label (prefix of its values) and component config."""

    label: str | None
    cc: ComponentConfig

    def plan(self) -> dict[str, Any]:
        return {"label": self.label, **self.cc.plan()}


@dataclass
class Experiment:
    """A validated experiment, ready to run."""

    spec: ExperimentSpec
    path: Path
    variants: list[Variant]
    questions: list[dict[str, Any]]
    metrics: list[Evaluator]
    judges: list[Evaluator]
    eval_config: PipelineConfig  # base pipeline + the experiment's llms, paths relative to the experiment
    output: Path
    set_counts: dict[str, int] = field(default_factory=dict)

    @property
    def base_dir(self) -> Path:
        return self.path.resolve().parent

    def eval_plan(self) -> dict[str, Any]:
        """What decides metric and judge values (their hash is in every record)."""
        return {
            "metrics": [m.plan() for m in self.metrics],
            "judges": [j.plan() for j in self.judges],
            "llms": {k: cc.plan() for k, cc in self.eval_config.llms.items() if k in self.spec.llms},
            "judge_panel": self.spec.judge_panel.model_dump(),
        }

    def eval_hash(self) -> str:
        return stable_hash(self.eval_plan())


def without_cache(config: PipelineConfig) -> PipelineConfig:
    """``config`` without its ``cache:`` stage (its config hash is unchanged: a cache changes no answer)."""
    return replace(config, components={**config.components, "cache": None})


def overrides_list(value: Overrides) -> list[str]:
    """``--set`` strings from a list of ``KEY=VALUE`` or a mapping ``{KEY: VALUE}`` (VALUE as YAML data)."""
    if isinstance(value, dict):
        return [f"{key}={json.dumps(item, ensure_ascii=False)}" for key, item in value.items()]
    return [str(item) for item in value]


def load_experiment(path: str | Path, registry: Registry, *, only_variants: Iterable[str] = (),
                    limit: int | None = None, overrides: Iterable[str] = ()) -> Experiment:
    """Read and validate an experiment YAML (every pipeline, component and question file).

    ``overrides`` are ``--set KEY.PATH=VALUE`` items applied to the experiment file itself
    (e.g. ``llms.judge-a.base_url=http://127.0.0.1:11434``)."""
    path = Path(path)
    raw = read_yaml_file(path)
    source = str(path)
    if isinstance(raw, dict):
        apply_overrides(raw, overrides)

    def where(loc: tuple[Any, ...]) -> str:
        return blame(raw, loc, source)

    if not isinstance(raw, dict):
        raise ConfigError(
            f"{source}: an experiment must be a YAML mapping (name:, pipeline:, variants:, questions:, ...)"
        )
    try:
        spec = ExperimentSpec.model_validate(raw)
    except ValidationError as exc:
        lines = []
        for error in exc.errors():
            loc = tuple(error["loc"])
            key = ".".join(str(p) for p in loc) or "(top level)"
            if error["type"] == "extra_forbidden":
                valid = _valid_keys(loc)
                lines.append(f"{where(loc)}: unknown key {key!r}. Valid keys here: {valid}")
            elif error["type"] == "missing":
                lines.append(f"{where(loc[:-1])}: required key {key!r} is missing")
            else:
                lines.append(f"{where(loc)}: {key}: {error['msg']} (got {error.get('input')!r})")
        raise ConfigError("\n".join(lines)) from None
    if expand_environment(raw, (), where):
        spec = ExperimentSpec.model_validate(raw)

    base_dir = path.resolve().parent
    names = [v.name for v in spec.variants]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ConfigError(f"{where(('variants',))}: two variants are named {dupes[0]!r}; give each a distinct `name:`")
    wanted = list(only_variants)
    unknown = [n for n in wanted if n not in names]
    if unknown:
        raise ConfigError(f"--variant {unknown[0]!r}: no such variant in {source}. Variants: {', '.join(names)}")

    base_pipeline = _resolve(base_dir, spec.pipeline)
    common = overrides_list(spec.set)
    variants = []
    for i, v in enumerate(spec.variants):
        if wanted and v.name not in wanted:
            continue
        pipeline_path = _resolve(base_dir, v.pipeline) if v.pipeline else base_pipeline
        overrides = tuple(common + overrides_list(v.set))
        try:
            config = load_pipeline_config(pipeline_path, registry, overrides)
        except ConfigError as exc:
            raise ConfigError(f"{where(('variants', i))}: variant {v.name!r}: {exc}") from None
        if not spec.cache:  # a cached answer would measure an earlier run, not this one
            config = without_cache(config)
        variants.append(
            Variant(
                v.name,
                v.description,
                config,
                pipeline_path,
                overrides,
                v.concurrency or spec.concurrency,
                v.no_retrieval,
            )
        )

    # metrics and judges get a context built on the base pipeline plus the experiment's `llms:`
    try:
        base_config = load_pipeline_config(base_pipeline, registry, common)
    except ConfigError as exc:
        raise ConfigError(f"{where(('pipeline',))}: base pipeline: {exc}") from None
    exp_llms = {
        str(key): _component(value, registry, "llm", f"llms.{key}", ("llms", key), raw, where, "llms")
        for key, value in spec.llms.items()
    }
    eval_config = replace(base_config, llms={**base_config.llms, **exp_llms}, base_dir=base_dir, source=source)
    for n, variant in enumerate(variants):
        if variant.no_retrieval is not None:
            key = variant.no_retrieval.llm
            if key not in exp_llms:
                i = names.index(variant.name)
                raise ConfigError(
                    f"{where(('variants', i, 'no_retrieval', 'llm'))}: variant {variant.name!r} asks the LLM {key!r}, "
                    "but the "
                    f"experiment's `llms:` names only: {', '.join(sorted(exp_llms)) or '(none)'}. Add it there"
                )
            variants[n] = replace(variant, direct_llm=exp_llms[key])
    metrics = _evaluators(spec.metrics, "metrics", "metric", registry, raw, where)
    judges = _evaluators(spec.judges, "judges", "judge", registry, raw, where)
    for evaluator in judges:  # an LLM key a judge names must exist before the first question
        llm_key = getattr(evaluator.cc.params, "llm", None)
        if isinstance(llm_key, str) and llm_key not in eval_config.llms:
            named = ", ".join(sorted(eval_config.llms)) or "(none)"
            raise ConfigError(
                f"{where(('judges',))}: judge {evaluator.cc.name!r} uses the LLM {llm_key!r}, but `llms:` names only: "
                f"{named}. Add it to the experiment, e.g. `llms: {{{llm_key}: {{name: ollama, model: qwen2.5}}}}`"
            )

    questions: list[dict[str, Any]] = []
    counts: dict[str, int] = {}
    seen: dict[str, str] = {}
    for i, qs in enumerate(spec.questions):
        qpath = _resolve(base_dir, qs.path)
        if not qpath.is_file():
            raise ConfigError(f"{where(('questions', i, 'path'))}: question file not found: {qpath}")
        set_name = qs.name or qpath.stem
        try:
            items = list(read_questions(qpath))
        except DataError as exc:
            raise ConfigError(f"{where(('questions', i))}: {exc}") from None
        items = [q for q in items if _matches(q, qs.where)]
        if qs.sample is not None and qs.sample < len(items):
            picked = sorted(random.Random(f"{spec.seed}:{set_name}").sample(range(len(items)), qs.sample))
            items = [items[j] for j in picked]
        cap = min(x for x in (qs.limit, limit) if x is not None) if (qs.limit or limit) else None
        items = items[:cap] if cap else items
        for q in items:
            qid = str(q["qid"])
            if qid in seen:
                raise ConfigError(
                    f"{where(('questions', i))}: question id {qid!r} appears twice ({seen[qid]} and {set_name}); "
                    "question ids must be unique across the experiment's question sets"
                )
            seen[qid] = set_name
            missing = [f for f in qs.request_filters.values() if q.get(f) in (None, "")]
            q["question_set"] = set_name
            q["_request_filters"] = {} if missing else {k: q[f] for k, f in qs.request_filters.items()}
            questions.append(q)
        counts[set_name] = len(items)
    if not questions:
        raise ConfigError(f"{where(('questions',))}: the question sets hold no question (check `where:` and the files)")

    output = _resolve(base_dir, spec.output) if spec.output else base_dir / "runs" / spec.name
    return Experiment(spec, path, variants, questions, metrics, judges, eval_config, output, counts)


_ENV_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")


def expand_environment(node: Any, loc: tuple[Any, ...], where: Callable[[tuple[Any, ...]], str]) -> bool:
    """Replace each ``${NAME}`` in the strings of ``node`` (in place) with the environment variable
    ``NAME``, e.g. ``path: ${DATA}/medquad-cancergov/corpus.jsonl``; whether any was replaced. A
    variable that is not set is an error naming the file and line."""

    def value_of(match: re.Match[str], at: tuple[Any, ...]) -> str:
        name = match.group(1)
        value = os.environ.get(name)
        if not value:
            raise ConfigError(
                f"{where(at)}: {match.group(0)} is the environment variable {name}, which is not set. Set it "
                f"first: `export {name}=...` (the bundled experiments read the public data sets from "
                "${DATA}/<set>/...; see docs/benchmarks.md, Data)"
            )
        return value

    if isinstance(node, dict):
        entries: list[tuple[Any, Any]] = list(node.items())
    elif isinstance(node, list):
        entries = list(enumerate(node))
    else:
        return False
    changed = False
    for key, value in entries:
        at = (*loc, key)
        if isinstance(value, str) and _ENV_REFERENCE.search(value):
            node[key] = _ENV_REFERENCE.sub(partial(value_of, at=at), value)
            changed = True
        else:
            changed = expand_environment(value, at, where) or changed
    return changed


def _resolve(base_dir: Path, value: str) -> Path:
    p = Path(value).expanduser()
    return p if p.is_absolute() else base_dir / p


def _matches(question: dict[str, Any], where: dict[str, Any]) -> bool:
    for key, value in where.items():
        allowed = value if isinstance(value, list) else [value]
        if question.get(key) not in allowed:
            return False
    return True


def _valid_keys(loc: tuple[Any, ...]) -> str:
    model: type[BaseModel] = ExperimentSpec
    if loc and loc[0] == "variants":
        model = VariantSpec
    elif loc and loc[0] == "questions":
        model = QuestionSet
    elif loc and loc[0] == "judge_panel":
        model = JudgePanelSpec
    elif loc and loc[0] == "report":
        model = ReportSpec
    return ", ".join(model.model_fields)


def _evaluators(items: list[Any], key: str, kind: str, registry: Registry, raw: Any, where: Any) -> list[Evaluator]:
    out: list[Evaluator] = []
    labels: list[str] = []
    for i, item in enumerate(items):
        value = {"name": item} if isinstance(item, str) else dict(item)
        label = value.pop("label", None)
        if label is not None and (not isinstance(label, str) or not label.strip() or "." in label):
            raise ConfigError(f"{where((key, i, 'label'))}: `label` must be a short name without dots")
        cc = _component(value, registry, kind, f"{key}[{i}]", (key, i), raw, where, key)
        tag = label or cc.name
        if tag in labels:
            raise ConfigError(
                f"{where((key, i))}: two {kind}s are both called {tag!r}; give one a distinct `label:` "
                "(its values are then reported as LABEL.value)"
            )
        labels.append(tag)
        out.append(Evaluator(label, cc))
    _check_outputs(out, key, where)
    return out


def _check_outputs(evaluators: list[Evaluator], key: str, where: Any) -> None:
    """Two unlabelled evaluators whose factories declare the same value name (``outputs``) would
    overwrite each other's values: refuse the experiment now, not after the run started."""
    producer: dict[str, tuple[int, str]] = {}
    for i, evaluator in enumerate(evaluators):
        if evaluator.label:
            continue  # its values are reported as LABEL.value
        for value in getattr(evaluator.cc.spec.factory, "outputs", ()) or ():
            if value in producer:
                first, name = producer[value]
                raise ConfigError(
                    f"{where((key, i))}: {key}[{first}] {name!r} and {key}[{i}] {evaluator.cc.name!r} both return "
                    f"{value!r}; give one of them a `label:` (its values are then reported as LABEL.{value})")
            producer[value] = (i, evaluator.cc.name)
