"""``criss-rag eval report RUN_DIR``: tables, paired statistics, box plots, group breakdowns.

Writes into the run folder (or ``--out``):

- ``report.json``: every number. Its ``comparisons`` list has one entry per variant pair and
  metric: ``metric, a, b, n, mean_a, mean_b, mean_diff, ci_low, ci_high, statistic, p_value,
  p_holm, significant, direction, effect_size, note``.
- ``report.md`` and ``report.html`` (the HTML embeds the plots);
- ``plots/<metric>.png``: a box plot per metric with one box per variant, and
  ``plots/overview.png`` with every compared metric side by side (the report's ``metrics``).

Values a metric left out (not applicable) are missing, never 0; records that ended in an error are
counted and left out. Refused questions follow one rule (:data:`REFUSED_RULE`), stated in the
report's tables: they are scored only on the metrics about refusals, so a pair of variants is
compared on the questions both answered.
"""

from __future__ import annotations

import base64
import html
import json
import math
import re
import statistics
from collections import Counter
from dataclasses import asdict, dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

from criss_rag.errors import DataError
from criss_rag.evaluation import stats
from criss_rag.evaluation.judging import agreement
from criss_rag.evaluation.records import MANIFEST, RECORDS, RunRecord, read_records

#: The one rule for refused questions: applied to every metric (judges' scores and flags included)
#: by :func:`scored_values`, and printed above the tables it shapes.
REFUSED_RULE = ("Refused questions: a refused question has no answer to score, so it is left out (missing, "
                "never 0) of every metric except those about the refusal itself ({refusal_metrics}), which count "
                "every question; a metric's n is the number of questions it scored, and a pair of variants is "
                "compared on the questions both answered. The Answers table counts the refusals.")
DEFAULT_GROUPS = ("question_set", "focus", "cancer_type", "qtype", "question_type", "difficulty", "scope")
MAX_GROUP_VALUES = 12


@dataclass
class ReportOptions:
    """What to report; ``None`` takes the experiment's ``report:`` settings (stored in run.json)."""

    metrics: list[str] = field(default_factory=list)
    alpha: float | None = None
    bootstrap: int | None = None
    holm_family: str | None = None
    seed: int | None = None
    ratings: list[Path] = field(default_factory=list)
    out: Path | None = None

    def resolved(self, manifest: dict[str, Any]) -> ResolvedOptions:
        """These options with every ``None`` taken from the run's ``report:`` settings (or their defaults)."""
        saved = manifest.get("report") or {}
        return ResolvedOptions(
            metrics=list(self.metrics or saved.get("metrics") or []),
            alpha=self.alpha if self.alpha is not None else float(saved.get("alpha", 0.05)),
            bootstrap=self.bootstrap if self.bootstrap is not None else int(saved.get("bootstrap", 10_000)),
            holm_family=self.holm_family or str(saved.get("holm_family", "pair")),
            seed=self.seed if self.seed is not None else int(manifest.get("seed", 13)),
            ratings=list(self.ratings), out=self.out,
        )


@dataclass(frozen=True)
class ResolvedOptions:
    """:class:`ReportOptions` with every setting decided."""

    metrics: list[str]
    alpha: float
    bootstrap: int
    holm_family: str
    seed: int
    ratings: list[Path]
    out: Path | None


def load_run(run_dir: Path) -> tuple[dict[str, Any], list[RunRecord], list[RunRecord]]:
    """(manifest, finished records, errored records) of a run folder."""
    manifest_path = run_dir / MANIFEST
    if not manifest_path.is_file():
        raise DataError(
            f"{run_dir} is not a run folder (no {MANIFEST}); run `criss-rag eval run EXPERIMENT.yaml` first"
        )
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    records = read_records(run_dir / RECORDS)
    ok = [r for r in records if not r.error]
    errors = [r for r in records if r.error]
    if not ok:
        raise DataError(f"{run_dir / RECORDS} holds no finished record; run `criss-rag eval run` first")
    return manifest, ok, errors


def record_values(record: RunRecord) -> dict[str, float]:
    """A record's numbers: its metrics, the judges' averaged scores (``judge.X``) and consensus
    flags (``flag.X``, only where every judge returned a verdict)."""
    values = dict(record.metrics)
    panel = record.judges or {}
    for name, value in (panel.get("scores") or {}).items():
        values[f"judge.{name}"] = float(value)
    for name, value in (panel.get("flags") or {}).items():
        if value is not None:
            values[f"flag.{name}"] = float(bool(value))
    return values


def refusal_metrics(manifest: dict[str, Any]) -> list[str]:
    """The metrics about the refusal itself, as the run's metrics declared them (a metric factory's
    ``about_refusals``; with the metric's label as prefix): the only ones a refused question counts in."""
    names = []
    for metric in manifest.get("metrics", []):
        label = metric.get("label")
        names += [f"{label}.{name}" if label else name for name in metric.get("about_refusals") or []]
    return names


def scored_values(record: RunRecord, about_refusals: list[str] | set[str]) -> dict[str, float]:
    """The values the report scores a record on (:data:`REFUSED_RULE`): all of an answered
    record's, and of a refused record only the metrics about the refusal."""
    values = record_values(record)
    if record.refused:
        return {name: value for name, value in values.items() if name in about_refusals}
    return values


def build_report(run_dir: Path, asked: ReportOptions) -> dict[str, Any]:
    manifest, records, errors = load_run(run_dir)
    options = asked.resolved(manifest)
    variants = [v for v in manifest.get("variants", {}) if any(r.variant == v for r in records)]
    about_refusals = refusal_metrics(manifest)
    table: dict[str, dict[str, dict[str, float]]] = {}  # metric -> variant -> qid -> value
    for record in records:
        for name, value in scored_values(record, about_refusals).items():
            table.setdefault(name, {}).setdefault(record.variant, {})[record.qid] = value
    wanted = options.metrics
    unknown = [m for m in wanted if m not in table]
    if unknown:
        raise DataError(
            f"no values for metric(s) {', '.join(unknown)} in {run_dir}; metrics present: {', '.join(sorted(table))}"
        )
    metrics = wanted or sorted(table, key=_metric_order)
    degenerate = {m: constant for m in metrics if (constant := constant_value(table[m])) is not None}
    aliases: dict[str, list[str]] = {}
    if not wanted:  # metrics asked for by name are reported as asked
        varying, aliases = collapse_duplicates(table, [m for m in metrics if m not in degenerate])
        metrics = [m for m in metrics if m in varying or m in degenerate]
    compared = [m for m in metrics if m not in degenerate]

    summary = {m: {v: _describe(list(table[m].get(v, {}).values())) for v in variants} for m in metrics}
    comparisons = _comparisons(table, compared, variants, options)
    report: dict[str, Any] = {
        "experiment": manifest.get("experiment"),
        "description": manifest.get("description", ""),
        "run_dir": str(run_dir),
        "status": manifest.get("status"),
        "variants": {
            v: {k: manifest["variants"][v].get(k) for k in ("description", "config_hash", "index_key", "overrides")}
            for v in variants
        },
        "records": len(records),
        "errors": len(errors),
        "error_examples": [f"{r.variant} / {r.qid}: {r.error}" for r in errors[:5]],
        "questions": len({r.qid for r in records}),
        "metric_descriptions": {
            (m.get("label") or m.get("name")): m.get("description", "")
            for m in manifest.get("metrics", []) + manifest.get("judges", [])
        },
        "settings": {
            "alpha": options.alpha,
            "bootstrap": options.bootstrap,
            "holm_family": options.holm_family,
            "seed": options.seed,
            "ci_level": 0.95,
            "test": "paired Wilcoxon signed-rank (two-sided)",
        },
        "metrics": metrics,
        "about_refusals": about_refusals,  # the metrics a refused question is scored on (REFUSED_RULE)
        "refused_rule": refused_rule(about_refusals),
        "compared": compared,  # the metrics tested and drawn: every metric that varies
        "aliases": aliases,  # metric -> the metrics with the very same values, reported once under its name
        "degenerate": degenerate,  # metric -> the one value it takes everywhere (not tested, not drawn)
        "summary": summary,
        "answers": _answers(records, variants),
        "comparisons": comparisons,
        "groups": _groups(records, variants, metrics, manifest.get("groups") or [], about_refusals),
        "judges": _judges(records, variants, manifest),
    }
    if options.ratings:
        from criss_rag.evaluation.review import import_ratings

        report["expert_review"] = import_ratings(run_dir, options.ratings)
    return report


def refused_rule(about_refusals: list[str]) -> str:
    return REFUSED_RULE.format(refusal_metrics=", ".join(about_refusals) or "none in this run")


def collapse_duplicates(table: dict[str, dict[str, dict[str, float]]],
                        metrics: list[str]) -> tuple[list[str], dict[str, list[str]]]:
    """Metrics whose values are equal for every variant and question are one measurement: the first
    (in report order) is kept, the others become its aliases, so they enter the Holm family once."""
    kept: list[str] = []
    aliases: dict[str, list[str]] = {}
    for metric in metrics:
        same = next((k for k in kept if table[k] == table[metric]), None)
        if same is None:
            kept.append(metric)
        else:
            aliases.setdefault(same, []).append(metric)
    return kept, aliases


def constant_value(values: dict[str, dict[str, float]]) -> float | None:
    """The value a metric takes for every variant and question (a degenerate metric), else None."""
    distinct = {value for per_question in values.values() for value in per_question.values()}
    return distinct.pop() if len(distinct) == 1 else None


def _metric_order(name: str) -> tuple[int, str]:
    traceability = ["retrieved_evidence", "verified_evidence", "cancer_matched_evidence", "answer_sentences",
                    "evidence_aligned_sentences"]
    base = name.split(".")[-1]
    if base in traceability and "." not in name:
        return (0, f"{traceability.index(base)}")
    return (1 if not name.startswith(("judge.", "flag.")) else 2, name)


def _describe(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"n": 0}
    ordered = sorted(values)
    q = statistics.quantiles(ordered, n=4, method="inclusive") if len(ordered) > 1 else [ordered[0]] * 3
    out = {
        "n": len(values),
        "mean": sum(values) / len(values),
        "sd": statistics.stdev(values) if len(values) > 1 else 0.0,
        "median": statistics.median(ordered),
        "q1": q[0],
        "q3": q[2],
        "min": ordered[0],
        "max": ordered[-1],
    }
    if all(v in (0.0, 1.0) for v in values):
        out["count"] = int(sum(values))
    return out


def _comparisons(table: dict[str, dict[str, dict[str, float]]], metrics: list[str], variants: list[str],
                 options: ResolvedOptions) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for a, b in combinations(variants, 2):
        for metric in metrics:
            va, vb = table[metric].get(a, {}), table[metric].get(b, {})
            qids = sorted(set(va) & set(vb))
            if not qids:
                continue
            test = stats.paired_test([va[q] for q in qids], [vb[q] for q in qids], seed=options.seed,
                                     resamples=options.bootstrap)
            out.append({"metric": metric, "a": a, "b": b, **asdict(test)})
    families: dict[Any, list[int]] = {}
    for i, entry in enumerate(out):
        families.setdefault((entry["a"], entry["b"]) if options.holm_family == "pair" else "all", []).append(i)
    for indices in families.values():
        _, adjusted = stats.holm([out[i]["p_value"] for i in indices], options.alpha)
        for i, p in zip(indices, adjusted, strict=True):
            out[i]["p_holm"] = p
            out[i]["significant"] = p < options.alpha
            out[i]["direction"] = stats.direction(out[i]["mean_diff"], p, options.alpha)
    return out


def _answers(records: list[RunRecord], variants: list[str]) -> dict[str, Any]:
    out = {}
    for v in variants:
        mine = [r for r in records if r.variant == v]
        reasons = Counter(r.refusal_reason for r in mine if r.refused)
        times = sorted(r.timings.get("ask_ms", 0.0) for r in mine)
        out[v] = {"n": len(mine), "answered": sum(1 for r in mine if not r.refused),
                  "refused": sum(1 for r in mine if r.refused), "refusal_reasons": dict(reasons),
                  "ask_ms_median": statistics.median(times) if times else None,
                  "ask_ms_q1": _quartiles(times)[0], "ask_ms_q3": _quartiles(times)[1]}
    return out


def _quartiles(values: list[float]) -> tuple[float | None, float | None]:
    if len(values) < 2:
        return (values[0], values[0]) if values else (None, None)
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[0], q[2]


def _group_value(record: RunRecord, field_name: str) -> Any:
    """The value a record's question has for a report group (``question_set``: the set it came from)."""
    return record.question_set if field_name == "question_set" else record.question.get(field_name)


def _groups(records: list[RunRecord], variants: list[str], metrics: list[str], configured: list[str],
            about_refusals: list[str]) -> dict[str, Any]:
    fields = configured or [f for f in DEFAULT_GROUPS if any(f in r.question or f == "question_set" for r in records)]
    out: dict[str, Any] = {}
    for name in fields:
        counts = Counter(str(_group_value(r, name)) for r in records if _group_value(r, name) not in (None, ""))
        if len(counts) < 1 or (len(counts) == 1 and not configured):
            continue
        groups = {}
        for value, _ in counts.most_common(MAX_GROUP_VALUES):
            cell = {}
            for v in variants:
                mine = [r for r in records if r.variant == v and str(_group_value(r, name)) == value]
                values = [scored_values(r, about_refusals) for r in mine]
                cell[v] = {"n": len(mine), "refused": sum(1 for r in mine if r.refused),
                           "metrics": {m: _describe([x[m] for x in values if m in x]) for m in metrics}}
            groups[value] = cell
        out[name] = {"values": groups, "shown": min(len(counts), MAX_GROUP_VALUES), "distinct": len(counts)}
    return out


def _judges(records: list[RunRecord], variants: list[str], manifest: dict[str, Any]) -> dict[str, Any] | None:
    panels = [r.judges for r in records if r.judges]
    if not panels:
        return None
    threshold = float((manifest.get("judge_panel") or {}).get("disagreement", 0.5))
    failures: Counter[str] = Counter()
    calls: Counter[str] = Counter()
    for panel in panels:
        for verdict in panel.get("verdicts", []):
            calls[verdict.get("judge", "?")] += 1
            if verdict.get("parse_failed"):
                failures[verdict.get("judge", "?")] += 1
    per_variant = {}
    for v in variants:
        mine = [r.judges for r in records if r.variant == v and r.judges]
        flags: dict[str, dict[str, int]] = {}
        for panel in mine:
            for name, value in (panel.get("flags") or {}).items():
                slot = flags.setdefault(name, {"raised": 0, "determined": 0, "undetermined": 0})
                if value is None:
                    slot["undetermined"] += 1
                else:
                    slot["determined"] += 1
                    slot["raised"] += int(bool(value))
        per_variant[v] = {"records": len(mine), "review": sum(1 for p in mine if p.get("review")),
                          "parse_failures": sum(p.get("parse_failures", 0) for p in mine), "flags": flags}
    return {
        "judges": [j.get("label") or j.get("name") for j in manifest.get("judges", [])],
        "verdicts": dict(calls),
        "parse_failures": dict(failures),
        "parse_failures_total": sum(failures.values()),
        "review_records": sum(1 for p in panels if p.get("review")),
        "review_file": (manifest.get("judge_panel") or {}).get("review_file", "review.jsonl"),
        "disagreement_threshold": threshold,
        "per_variant": per_variant,
        "agreement": agreement(panels, disagreement=threshold),
    }


# -- plots -----------------------------------------------------------------------------------------


def plot_name(metric: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", metric) + ".png"


def write_plots(report: dict[str, Any], records: list[RunRecord], folder: Path) -> dict[str, str]:
    """A box plot per metric (one box per variant) and an overview of every compared metric (the
    report's ``metrics``, in their order); returns metric -> file."""
    plt = _pyplot()
    folder.mkdir(parents=True, exist_ok=True)
    variants = list(report["variants"])
    scored = [(r.variant, scored_values(r, report["about_refusals"])) for r in records]
    data = {m: [[values[m] for variant, values in scored if variant == v and m in values] for v in variants]
            for m in report["metrics"]}
    files = {}
    for metric, series in data.items():
        if not any(series):
            continue
        fig, ax = plt.subplots(figsize=(max(4.0, 1.4 * len(variants) + 1.5), 3.6))
        _box(ax, series, variants, metric)
        fig.tight_layout()
        path = folder / plot_name(metric)
        fig.savefig(path, dpi=100)
        plt.close(fig)
        files[metric] = path.name
    shown = [m for m in report.get("compared", report["metrics"]) if m in files]
    if shown:
        _overview(plt, report, data, shown, variants, folder / "overview.png")
        files["_overview"] = "overview.png"
    return files


def _overview(plt: Any, report: dict[str, Any], data: dict[str, list[list[float]]], shown: list[str],
              variants: list[str], path: Path) -> None:
    """One figure of the compared metrics: a box per variant with its n, each pair's Holm-adjusted
    result under the metric's name (* when it survives), and a legend of what the marks mean."""
    from matplotlib.lines import Line2D

    cols = min(3, len(shown))
    rows = math.ceil(len(shown) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.4 * cols, 3.9 * rows), squeeze=False)
    alpha = report["settings"]["alpha"]
    for ax, metric in zip(axes.flat, shown, strict=False):
        _box(ax, data[metric], variants, metric)
        pairs = [c for c in report["comparisons"] if c["metric"] == metric]
        lines = [f"{c['a']} vs {c['b']}: p_Holm {c['p_holm']:.3g}" + (" *" if c["p_holm"] < alpha else "")
                 for c in pairs]
        ax.set_title("")  # the box plot's own centred title: the left one below says it all
        ax.set_title(metric + "\n" + "\n".join(lines), fontsize=8, loc="left")
    for ax in list(axes.flat)[len(shown):]:
        ax.axis("off")
    marks = [Line2D([], [], color="tab:orange", label="median"),
             Line2D([], [], marker="^", linestyle="", color="tab:green", label="mean"),
             Line2D([], [], marker="o", linestyle="", markerfacecolor="none", color="black", label="outlier"),
             Line2D([], [], linestyle="", label=f"* Holm-adjusted p < {alpha} (paired Wilcoxon)")]
    fig.legend(handles=marks, loc="lower center", ncol=4, fontsize=8, frameon=False)
    fig.suptitle(f"{report.get('experiment') or ''}: {report['questions']} questions, box = quartiles, "
                 f"whiskers 1.5 IQR; n = questions scored (refused ones count only in metrics about refusals)",
                 fontsize=10)
    fig.tight_layout(rect=(0, 0.04, 1, 0.96))
    fig.savefig(path, dpi=100)
    plt.close(fig)


def _box(ax: Any, series: list[list[float]], variants: list[str], metric: str) -> None:
    kept = [(s, v) for s, v in zip(series, variants, strict=True) if s]
    ax.boxplot([s for s, _ in kept], showmeans=True)
    ax.set_xticks(range(1, len(kept) + 1), [f"{v}\nn={len(s)}" for s, v in kept], rotation=0, fontsize=8)
    ax.set_title(metric, fontsize=10)
    ax.grid(axis="y", alpha=0.3)


def _pyplot() -> Any:
    stats._need("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


# -- writing ---------------------------------------------------------------------------------------


def write_report(run_dir: Path, options: ReportOptions) -> dict[str, Path]:
    report = build_report(run_dir, options)
    out = options.out or run_dir
    out.mkdir(parents=True, exist_ok=True)
    _, records, _ = load_run(run_dir)
    plots = write_plots(report, records, out / "plots")
    report["plots"] = {m: f"plots/{f}" for m, f in plots.items()}
    paths = {"json": out / "report.json", "md": out / "report.md", "html": out / "report.html"}
    paths["json"].write_text(json.dumps(report, indent=2, ensure_ascii=False, default=_json_default), encoding="utf-8")
    paths["md"].write_text(render_markdown(report), encoding="utf-8")
    paths["html"].write_text(render_html(report, out), encoding="utf-8")
    return paths


def _json_default(value: Any) -> Any:
    if isinstance(value, Path):
        return str(value)
    raise TypeError(type(value).__name__)


def _f(value: Any, digits: int = 3) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != 0 and abs(value) < 10 ** -digits:
            return f"{value:.1e}"
        return f"{value:.{digits}f}"
    return str(value)


def _left_out(report: dict[str, Any]) -> str:
    """The sentence that says which metrics are not in the comparisons (and so not in the Holm family)."""
    parts = []
    if report.get("aliases"):
        parts.append("Metrics whose values are identical on every record of this run are reported once, under "
                     "the first name: " + "; ".join(
            f"{kept} (= {', '.join(same)})" for kept, same in report["aliases"].items()) + ".")
    if report.get("degenerate"):
        parts.append("Left out of the comparisons and the Holm family, as they take one value everywhere: " + ", ".join(
            f"{m} (always {_f(v)})" for m, v in report["degenerate"].items()) + ".")
    return (" " + " ".join(parts)) if parts else ""


def _cell(stat: dict[str, Any]) -> str:
    if not stat or not stat.get("n"):
        return "–"
    text = f"{_f(stat['mean'])} ± {_f(stat['sd'])}"
    if "count" in stat:
        text += f" ({stat['count']}/{stat['n']})"
    return text


def _tables(report: dict[str, Any]) -> list[tuple[str, str, list[str], list[list[str]]]]:
    """(heading, intro, header, rows) of every table, shared by the Markdown and HTML renderings."""
    variants = list(report["variants"])
    tables = []
    rows = [[v, report["variants"][v].get("description") or "", str(a["n"]), str(a["answered"]), str(a["refused"]),
             ", ".join(f"{k} {n}" for k, n in sorted(a["refusal_reasons"].items(), key=lambda x: str(x[0]))) or "–"]
            for v, a in report["answers"].items()]
    tables.append(("Answers", "", ["variant", "description", "records", "answered", "refused", "refusal reasons"],
                   rows))
    rows = [
        [m]
        + [_cell(report["summary"][m].get(v, {})) for v in variants]
        + [str(max(report["summary"][m].get(v, {}).get("n", 0) for v in variants))]
        for m in report["metrics"]
    ]
    tables.append(
        (
            "Metrics",
            "Mean ± SD per variant; (k/n) counts the questions where a 0/1 value is 1. " + report["refused_rule"],
            ["metric", *variants, "n (max)"],
            rows,
        )
    )
    rows = [
        [
            c["metric"],
            c["a"],
            c["b"],
            str(c["n"]),
            _f(c["mean_diff"]),
            f"[{_f(c['ci_low'])}, {_f(c['ci_high'])}]",
            _f(c["p_value"], 4),
            _f(c["p_holm"], 4),
            c["direction"],
            _f(c["effect_size"]),
        ]
        for c in report["comparisons"]
    ]
    s = report["settings"]
    tables.append(
        (
            "Paired comparisons",
            f"Differences are a − b on the questions both variants scored (refused questions only in the "
            f"metrics about refusals, as above). {s['test']}; mean difference with a "
            f"{int(s['ci_level'] * 100)}% percentile bootstrap CI ({s['bootstrap']} resamples, seed {s['seed']}); "
            "Holm correction across the metrics of "
            f"{'each variant pair' if s['holm_family'] == 'pair' else 'the whole report'}, "
            f"α = {s['alpha']}. Effect size: matched-pairs rank-biserial correlation." + _left_out(report),
            ["metric", "a", "b", "n", "mean diff", "95% CI", "p", "p (Holm)", "direction", "effect"],
            rows,
        )
    )
    rows = [
        [v, _f(a["ask_ms_median"], 1), f"{_f(a.get('ask_ms_q1'), 1)}–{_f(a.get('ask_ms_q3'), 1)}"]
        for v, a in report["answers"].items()
    ]
    tables.append(
        (
            "Timing",
            "Wall-clock milliseconds per question on the machine that ran the experiment, one run, "
            "variants run one after another: other load on the machine, model loading and caches move these "
            "figures as much as the variant does, so they are not compared or tested; rerun on a quiet machine "
            "(benchmarks/) before reading a difference into them.",
            ["variant", "median ask ms", "IQR ms"],
            rows,
        )
    )
    judges = report.get("judges")
    if judges:
        rows = [
            [
                v,
                str(p["records"]),
                str(p["parse_failures"]),
                str(p["review"]),
                "; ".join(
                    f"{k} {f['raised']}/{f['determined']}"
                    + (f" (+{f['undetermined']} undetermined)" if f["undetermined"] else "")
                    for k, f in sorted(p["flags"].items())
                )
                or "–",
            ]
            for v, p in judges["per_variant"].items()
        ]
        tables.append(
            (
                "Judges",
                f"Judges: {', '.join(judges['judges'])}. Scores are averaged over the judges whose reply "
                "parsed; a flag counts only when every judge raised it; replies that could not be parsed are "
                f"counted, never scored ({judges['parse_failures_total']} in all: "
                f"{', '.join(f'{k} {n}' for k, n in judges['parse_failures'].items()) or 'none'}). "
                f"{judges['review_records']} records differ by more than {judges['disagreement_threshold']} on "
                f"some score (or had a failed reply) and are listed in {judges['review_file']}.",
                ["variant", "judged", "parse failures", "for review", "flags raised / determined"],
                rows,
            )
        )
        rows = [
            [k, str(a["pairs"]), _f(a["mean_abs_diff"]), _f(a["within_threshold"]), _f(a["exact"]), _f(a["pearson_r"])]
            for k, a in judges["agreement"]["scores"].items()
        ]
        rows += [
            [f"flag {k}", str(a["pairs"]), "–", "–", _f(a["agreement"]), f"κ {_f(a['cohen_kappa'])}"]
            for k, a in judges["agreement"]["flags"].items()
        ]
        if rows:
            tables.append(
                (
                    "Judge agreement",
                    "Pairwise over the judges whose replies parsed.",
                    ["score / flag", "pairs", "mean |diff|", "within threshold", "exact / agreement", "Pearson r / κ"],
                    rows,
                )
            )
    for name, group in report["groups"].items():
        shown = report["metrics"][:8]
        rows = []
        for value, cell in group["values"].items():
            for v in variants:
                c = cell.get(v, {"n": 0, "refused": 0, "metrics": {}})
                rows.append(
                    [value, v, str(c["n"]), str(c["refused"])] + [_cell(c["metrics"].get(m, {})) for m in shown]
                )
        note = (
            f" (the {group['shown']} largest of {group['distinct']} groups)"
            if group["distinct"] > group["shown"]
            else ""
        )
        tables.append(
            (
                f"By {name}",
                f"Per {name}{note}; n counts every question of the group, the metrics "
                "leave the refused ones out as above.",
                [name, "variant", "n", "refused", *shown],
                rows,
            )
        )
    review = report.get("expert_review")
    if review:
        rows = [
            [v, str(d["items"])] + [_f(d["means"].get(dim)) for dim in review["dimensions"]]
            for v, d in review["per_variant"].items()
        ]
        tables.append(
            (
                "Expert review",
                f"{len(review['raters'])} raters ({', '.join(review['raters'])}), "
                "0–5 Likert, blinded to the variant. Means per variant.",
                ["variant", "items", *review["dimensions"]],
                rows,
            )
        )
        rows = [
            [dim, str(a["items"]), _f(a["krippendorff_alpha"]), _f(a["mean_abs_diff"])]
            for dim, a in review["agreement"].items()
        ]
        tables.append(
            (
                "Rater agreement",
                "Krippendorff's alpha (interval) and the mean absolute difference between raters.",
                ["dimension", "items rated twice or more", "alpha", "mean |diff|"],
                rows,
            )
        )
    return tables


def render_markdown(report: dict[str, Any]) -> str:
    lines = [f"# Evaluation report: {report['experiment']}", ""]
    if report.get("description"):
        lines += [report["description"], ""]
    lines += [
        f"{report['records']} records, {report['questions']} questions, {len(report['variants'])} variants "
        f"({', '.join(report['variants'])}); {report['errors']} records ended in an error and are left out.",
        "",
    ]
    described = {k: v for k, v in report["metric_descriptions"].items() if v}
    if described:
        lines += ["Metric and judge settings:", ""] + [f"- `{k}`: {v}" for k, v in described.items()] + [""]
    for heading, intro, header, rows in _tables(report):
        lines += [f"## {heading}", ""]
        if intro:
            lines += [intro, ""]
        lines += ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in rows] + [""]
        if heading == "Metrics" and report.get("plots"):
            lines += [f"![box plots per variant]({p})" for m, p in report["plots"].items() if m == "_overview"] + [""]
    if report.get("plots"):
        lines += ["## Box plots", ""] + [f"- [{m}]({p})" for m, p in report["plots"].items() if m != "_overview"] + [""]
    return "\n".join(lines)


def render_html(report: dict[str, Any], out: Path) -> str:
    esc = html.escape
    parts = [
        f"<!doctype html><html><head><meta charset='utf-8'><title>{esc(str(report['experiment']))}</title>",
        "<style>body{font-family:sans-serif;margin:2em;max-width:1200px}table{border-collapse:collapse;margin:1em 0}"
        "td,th{border:1px solid #ccc;padding:3px 8px;font-size:13px}th{background:#f3f3f3}img{max-width:100%}</style>",
        f"</head><body><h1>Evaluation report: {esc(str(report['experiment']))}</h1>",
        f"<p>{report['records']} records, {report['questions']} questions, variants: "
        f"{esc(', '.join(report['variants']))}; "
        f"{report['errors']} records ended in an error.</p>",
    ]
    described = {k: v for k, v in report["metric_descriptions"].items() if v}
    if described:
        parts.append(
            "<ul>" + "".join(f"<li><code>{esc(k)}</code>: {esc(v)}</li>" for k, v in described.items()) + "</ul>"
        )
    for heading, intro, header, rows in _tables(report):
        parts.append(f"<h2>{esc(heading)}</h2>" + (f"<p>{esc(intro)}</p>" if intro else ""))
        parts.append(
            "<table><tr>"
            + "".join(f"<th>{esc(h)}</th>" for h in header)
            + "</tr>"
            + "".join("<tr>" + "".join(f"<td>{esc(c)}</td>" for c in row) + "</tr>" for row in rows)
            + "</table>"
        )
    if report.get("plots"):
        parts.append("<h2>Box plots</h2>")
        for metric, rel in report["plots"].items():
            data = base64.b64encode((out / rel).read_bytes()).decode("ascii")
            parts.append(
                f"<figure><img alt='{esc(metric)}' src='data:image/png;base64,{data}'>"
                f"<figcaption>{esc(metric if metric != '_overview' else 'overview')}</figcaption></figure>"
            )
    parts.append("</body></html>")
    return "\n".join(parts)
