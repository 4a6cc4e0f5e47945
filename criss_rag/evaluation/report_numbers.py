"""Every number of a report (``report.json``): per-variant summaries, paired comparisons with
Holm correction, answers and refusals, group breakdowns and the judges' panel."""

from __future__ import annotations

import statistics
from collections import Counter
from dataclasses import asdict
from itertools import combinations
from pathlib import Path
from typing import Any

from criss_rag.errors import DataError
from criss_rag.evaluation import stats
from criss_rag.evaluation.judging import agreement
from criss_rag.evaluation.records import RunRecord
from criss_rag.evaluation.report_inputs import (
    ReportOptions,
    ResolvedOptions,
    load_run,
    refusal_metrics,
    refused_rule,
    scored_values,
)

DEFAULT_GROUPS = ("question_set", "focus", "cancer_type", "qtype", "question_type", "difficulty", "scope")
MAX_GROUP_VALUES = 12


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
