"""Small timing harness shared by the benchmark scripts: per-call latencies measured side by side,
repeated and interleaved, summarised as the median over repeats (these machines are noisy)."""

from __future__ import annotations

import os
import random
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
#: the folder of public data sets the benchmarks read: $DATA, else a `shared/data` folder beside the repository
DATA = Path(os.environ["DATA"]) if os.environ.get("DATA") else ROOT.parent / "shared" / "data"


def percentile(values: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) by linear interpolation, like numpy's default."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def latencies_ms(call: Callable[[Any], Any], inputs: Sequence[Any]) -> list[float]:
    """Wall-clock milliseconds of ``call(x)`` for every input, one timing per call."""
    out = []
    for item in inputs:
        started = time.perf_counter()
        call(item)
        out.append((time.perf_counter() - started) * 1000)
    return out


def side_by_side(paths: dict[str, Callable[[Any], Any]], inputs: Sequence[Any], repeats: int,
                 *, seed: int = 0) -> dict[str, list[dict[str, float]]]:
    """Run every path over the same inputs, ``repeats`` times, in a shuffled order each repeat
    (so drift on a shared machine hits all paths alike). Returns per path one {p50, p95} per repeat."""
    rng = random.Random(seed)
    for call in paths.values():  # warm-up: first-call costs are not per-query costs
        latencies_ms(call, inputs[: min(10, len(inputs))])
    results: dict[str, list[dict[str, float]]] = {name: [] for name in paths}
    for repeat in range(repeats):
        order = list(paths)
        rng.shuffle(order)
        for name in order:
            ms = latencies_ms(paths[name], inputs)
            results[name].append({"p50": percentile(ms, 50), "p95": percentile(ms, 95), "mean": statistics.fmean(ms)})
        print(f"  repeat {repeat + 1}/{repeats} done", file=sys.stderr)
    return results


def median_of(runs: list[dict[str, float]], key: str) -> float:
    return statistics.median(run[key] for run in runs)


def median_ratio(runs: list[dict[str, float]], baseline: list[dict[str, float]], key: str = "p50") -> float:
    """Median over repeats of (this path / baseline) measured in the same repeat."""
    return statistics.median(a[key] / b[key] for a, b in zip(runs, baseline, strict=True))


def peak_rss_mb() -> float:
    """Peak resident set size of this process so far (``VmHWM``; unlike ``getrusage``'s maxrss it
    does not inherit the parent's peak across fork + exec)."""
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc/self/status")


def current_rss_mb() -> float:
    """Resident set size now (Linux /proc), file-backed pages (memory-mapped files) included."""
    status = rss_breakdown_mb()
    return status["RssAnon"] + status["RssFile"] + status["RssShmem"]


def rss_breakdown_mb() -> dict[str, float]:
    """``RssAnon`` (private memory: what must fit in RAM), ``RssFile`` (pages of mapped files, which
    the OS can drop and re-read) and ``RssShmem``, in MB (Linux /proc/self/status)."""
    out = {}
    with open("/proc/self/status", encoding="ascii") as handle:
        for line in handle:
            key, _, value = line.partition(":")
            if key in ("RssAnon", "RssFile", "RssShmem"):
                out[key] = int(value.split()[0]) / 1024
    return out


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A Markdown table; floats with two decimals unless already strings."""
    def cell(value: Any) -> str:
        return f"{value:.2f}" if isinstance(value, float) else str(value)

    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|",
    ]
    lines += ["| " + " | ".join(cell(v) for v in row) + " |" for row in rows]
    return "\n".join(lines)


def require(path: Path, what: str) -> Path:
    if not path.exists():
        sys.exit(f"{what} not found at {path}; set DATA to the folder of public data sets (docs/benchmarks.md, Data)")
    return path
