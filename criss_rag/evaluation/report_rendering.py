"""A report's tables, rendered as Markdown (``report.md``) and as HTML with the plots embedded
(``report.html``)."""

from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any


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
