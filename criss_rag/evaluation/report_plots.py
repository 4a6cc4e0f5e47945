"""The report's box plots (matplotlib): one figure per metric with a box per variant, and an
overview of every compared metric with each pair's Holm-adjusted result."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

from criss_rag.evaluation import stats
from criss_rag.evaluation.records import RunRecord
from criss_rag.evaluation.report_inputs import scored_values


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
