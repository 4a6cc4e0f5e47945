"""Paired statistics for comparing two variants on the same questions.

- :func:`wilcoxon`: the paired Wilcoxon signed-rank test (scipy), two-sided. All differences zero
  means no evidence of a difference: p = 1.
- :func:`bootstrap_ci`: the mean difference with a percentile bootstrap CI, resampling questions
  with a seeded generator (the same seed gives the same interval).
- :func:`holm`: Holm's step-down correction of a family of p-values (statsmodels).
- :func:`rank_biserial`: the matched-pairs rank-biserial correlation, an effect size in [-1, 1].

scipy and statsmodels come with the ``eval`` extra: ``pip install 'criss-rag[eval]'``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from criss_rag.errors import ConfigError


def _need(module: str) -> Any:
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise ConfigError(
            f"the evaluation report needs {module.split('.')[0]}: pip install 'criss-rag[eval]' "
            "(scipy, statsmodels, matplotlib, openpyxl)"
        ) from None


@dataclass(frozen=True)
class PairedTest:
    """One comparison of variant ``a`` with ``b`` on one metric (differences are a - b)."""

    n: int
    mean_a: float
    mean_b: float
    mean_diff: float
    ci_low: float
    ci_high: float
    statistic: float | None
    p_value: float
    effect_size: float | None  # matched-pairs rank-biserial correlation
    note: str = ""


def wilcoxon(a: Sequence[float], b: Sequence[float]) -> tuple[float | None, float, str]:
    """(statistic, two-sided p, note) of the paired Wilcoxon signed-rank test of a against b."""
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    if not diffs or all(d == 0 for d in diffs):
        return None, 1.0, "all differences are zero"
    if len(diffs) < 2:
        return None, 1.0, "one pair: no test"
    stats = _need("scipy.stats")
    result = stats.wilcoxon(a, b, zero_method="wilcox", alternative="two-sided")
    return float(result.statistic), float(result.pvalue), ""


def bootstrap_ci(diffs: Sequence[float], *, seed: int, resamples: int = 10_000,
                 level: float = 0.95) -> tuple[float, float]:
    """Percentile bootstrap CI of the mean of ``diffs`` (questions resampled with replacement)."""
    import numpy as np

    values = np.asarray(diffs, dtype=float)
    if values.size == 0:
        raise ValueError("no differences to bootstrap")
    rng = np.random.default_rng(seed)
    means = np.empty(resamples)
    step = max(1, 2_000_000 // max(1, values.size))  # bounded memory for large question sets
    for start in range(0, resamples, step):
        count = min(step, resamples - start)
        idx = rng.integers(0, values.size, size=(count, values.size))
        means[start:start + count] = values[idx].mean(axis=1)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail])
    return float(low), float(high)


def rank_biserial(diffs: Sequence[float]) -> float | None:
    """(W+ - W-) / (W+ + W-) over the non-zero differences, average ranks for ties."""
    nonzero = [d for d in diffs if d != 0]
    if not nonzero:
        return None
    order = sorted(range(len(nonzero)), key=lambda i: abs(nonzero[i]))
    ranks = [0.0] * len(nonzero)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and abs(nonzero[order[j + 1]]) == abs(nonzero[order[i]]):
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    plus = sum(r for r, d in zip(ranks, nonzero, strict=True) if d > 0)
    minus = sum(r for r, d in zip(ranks, nonzero, strict=True) if d < 0)
    return (plus - minus) / (plus + minus)


def paired_test(a: Sequence[float], b: Sequence[float], *, seed: int, resamples: int = 10_000,
                level: float = 0.95) -> PairedTest:
    diffs = [x - y for x, y in zip(a, b, strict=True)]
    n = len(diffs)
    statistic, p, note = wilcoxon(a, b)
    low, high = bootstrap_ci(diffs, seed=seed, resamples=resamples, level=level)
    return PairedTest(n=n, mean_a=sum(a) / n, mean_b=sum(b) / n, mean_diff=sum(diffs) / n, ci_low=low,
                      ci_high=high, statistic=statistic, p_value=p, effect_size=rank_biserial(diffs), note=note)


def holm(p_values: Sequence[float], alpha: float = 0.05) -> tuple[list[bool], list[float]]:
    """(reject, adjusted p) by Holm's method."""
    if not p_values:
        return [], []
    multitest = _need("statsmodels.stats.multitest")
    reject, adjusted, _, _ = multitest.multipletests(list(p_values), alpha=alpha, method="holm")
    return [bool(r) for r in reject], [float(p) for p in adjusted]


def direction(mean_diff: float, p_holm: float, alpha: float) -> str:
    """``a>b``, ``a<b`` (significant after Holm) or ``n.s.``."""
    if p_holm < alpha and mean_diff > 0:
        return "a>b"
    if p_holm < alpha and mean_diff < 0:
        return "a<b"
    return "n.s."
