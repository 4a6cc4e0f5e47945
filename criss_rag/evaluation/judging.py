"""Several judges on one answer: averaged scores, consensus flags, review triggers, agreement.

- **Scores** are averaged over the judges whose reply parsed. A judge that failed to parse adds
  nothing to the average (never a zero), and a score no judge gave is missing (never NaN).
- **Flags** count only when every configured judge returned a verdict and all of them raised it
  (with one judge, its own flag counts). When a judge failed, the record's flags are undetermined
  and left out of the flag rates.
- **Review**: a record goes to the review file when two judges' scores differ by more than the
  panel's ``disagreement`` on any score, or when a judge failed to parse its reply.
- **Agreement** over a run: per score, the mean absolute difference, the share of pairs within the
  threshold, exact agreement and Pearson's r; per flag, raw agreement and Cohen's kappa.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from itertools import combinations
from typing import Any

from criss_rag.types import JudgeVerdict


def as_verdict(result: Any, judge: str) -> JudgeVerdict:
    """A judge's return value as a :class:`JudgeVerdict` named ``judge`` (its label in the
    experiment); plain mappings are scores, and 0/1 keys starting with ``flag_`` are flags."""
    if isinstance(result, JudgeVerdict):
        return result.model_copy(update={"judge": judge})
    if isinstance(result, Mapping):
        scores: dict[str, float] = {}
        flags: dict[str, bool] = {}
        for key, value in result.items():
            if key.startswith("flag_"):
                flags[key[len("flag_"):]] = bool(value)
            elif value is not None and _finite(value):
                scores[str(key)] = float(value)
        return JudgeVerdict(judge=judge, scores=scores, flags=flags)
    raise TypeError(f"judge {judge!r} returned {type(result).__name__}; return a JudgeVerdict or a mapping of scores")


def _finite(value: Any) -> bool:
    try:
        return math.isfinite(float(value))
    except (TypeError, ValueError):
        return False


def combine(verdicts: Sequence[JudgeVerdict], *, disagreement: float = 0.5) -> dict[str, Any]:
    """The panel's result for one record (stored under ``judges`` in the run record)."""
    parsed = [v for v in verdicts if not v.parse_failed]
    names = sorted({k for v in parsed for k in v.scores})
    scores = {}
    spread = {}
    for name in names:
        values = [v.scores[name] for v in parsed if name in v.scores]
        scores[name] = sum(values) / len(values)
        if len(values) > 1:
            spread[name] = max(values) - min(values)
    flag_names = sorted({k for v in verdicts for k in v.flags})
    complete = len(parsed) == len(verdicts) and verdicts
    flags: dict[str, bool | None] = {}
    for name in flag_names:
        flags[name] = all(v.flags.get(name, False) for v in parsed) if complete else None
    reasons = [
        f"{name} differs by {value:g} > {disagreement:g}" for name, value in spread.items() if value > disagreement
    ]
    reasons += [f"{v.judge}: reply not parsed ({v.error})" for v in verdicts if v.parse_failed]
    return {
        "verdicts": [v.model_dump() for v in verdicts],
        "scores": scores,
        "flags": flags,
        "spread": spread,
        "judges": len(verdicts),
        "parsed": len(parsed),
        "parse_failures": len(verdicts) - len(parsed),
        "review": bool(reasons),
        "review_reasons": reasons,
    }


def agreement(panels: Iterable[Mapping[str, Any]], *, disagreement: float = 0.5) -> dict[str, Any]:
    """Agreement between judges over many records (pairwise, averaged over judge pairs)."""
    pairs_scores: dict[str, list[tuple[float, float]]] = {}
    pairs_flags: dict[str, list[tuple[bool, bool]]] = {}
    for panel in panels:
        verdicts = [JudgeVerdict.model_validate(v) for v in panel.get("verdicts", [])]
        parsed = [v for v in verdicts if not v.parse_failed]
        for a, b in combinations(parsed, 2):
            for name in set(a.scores) & set(b.scores):
                pairs_scores.setdefault(name, []).append((a.scores[name], b.scores[name]))
            for name in set(a.flags) | set(b.flags):
                pairs_flags.setdefault(name, []).append((a.flags.get(name, False), b.flags.get(name, False)))
    scores = {}
    for name, pairs in sorted(pairs_scores.items()):
        diffs = [abs(x - y) for x, y in pairs]
        scores[name] = {
            "pairs": len(pairs),
            "mean_abs_diff": sum(diffs) / len(diffs),
            "within_threshold": sum(d <= disagreement for d in diffs) / len(diffs),
            "exact": sum(d == 0 for d in diffs) / len(diffs),
            "pearson_r": _pearson(pairs),
        }
    flags = {}
    for name, flag_pairs in sorted(pairs_flags.items()):
        flags[name] = {"pairs": len(flag_pairs), "agreement": sum(x == y for x, y in flag_pairs) / len(flag_pairs),
                       "cohen_kappa": _kappa(flag_pairs)}
    return {"scores": scores, "flags": flags}


def _pearson(pairs: Sequence[tuple[float, float]]) -> float | None:
    """Pearson's r, or None when it is undefined (fewer than 2 pairs, or a constant side)."""
    if len(pairs) < 2:
        return None
    xs, ys = [p[0] for p in pairs], [p[1] for p in pairs]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxy = sum((x - mx) * (y - my) for x, y in pairs)
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def _kappa(pairs: Sequence[tuple[bool, bool]]) -> float | None:
    """Cohen's kappa for two raters' yes/no labels (None when chance agreement is 1)."""
    n = len(pairs)
    observed = sum(x == y for x, y in pairs) / n
    pa = sum(x for x, _ in pairs) / n
    pb = sum(y for _, y in pairs) / n
    expected = pa * pb + (1 - pa) * (1 - pb)
    if expected >= 1:
        return None
    return (observed - expected) / (1 - expected)
