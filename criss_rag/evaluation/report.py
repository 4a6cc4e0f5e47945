"""``criss-rag eval report RUN_DIR``: tables, paired statistics, box plots, group breakdowns.

Writes into the run folder (or ``--out``):

- ``report.json``: every number. Its ``comparisons`` list has one entry per variant pair and
  metric: ``metric, a, b, n, mean_a, mean_b, mean_diff, ci_low, ci_high, statistic, p_value,
  p_holm, significant, direction, effect_size, note``.
- ``report.md`` and ``report.html`` (the HTML embeds the plots);
- ``plots/<metric>.png``: a box plot per metric with one box per variant, and
  ``plots/overview.png`` with every compared metric side by side (the report's ``metrics``).

Values a metric left out (not applicable) are missing, never 0; records that ended in an error are
counted and left out. Refused questions follow one rule
(:data:`~criss_rag.evaluation.report_inputs.REFUSED_RULE`), stated in the report's tables: they are
scored only on the metrics about refusals, so a pair of variants is compared on the questions both
answered.

This module writes the files; the parts live beside it: :mod:`~criss_rag.evaluation.report_inputs`
(options, the run folder, the values a record is scored on), :mod:`~criss_rag.evaluation.report_numbers`
(every number), :mod:`~criss_rag.evaluation.report_plots` (box plots) and
:mod:`~criss_rag.evaluation.report_rendering` (Markdown and HTML).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from criss_rag.evaluation.report_inputs import ReportOptions, load_run
from criss_rag.evaluation.report_numbers import build_report
from criss_rag.evaluation.report_plots import write_plots
from criss_rag.evaluation.report_rendering import render_html, render_markdown


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
