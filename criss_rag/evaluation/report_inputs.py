"""What a report reads and how it scores a record: the report's options, a run folder's manifest
and records, and the values each record counts in (the one rule for refused questions)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from criss_rag.errors import DataError
from criss_rag.evaluation.records import MANIFEST, RECORDS, RunRecord, read_records

#: The one rule for refused questions: applied to every metric (judges' scores and flags included)
#: by :func:`scored_values`, and printed above the tables it shapes.
REFUSED_RULE = ("Refused questions: a refused question has no answer to score, so it is left out (missing, "
                "never 0) of every metric except those about the refusal itself ({refusal_metrics}), which count "
                "every question; a metric's n is the number of questions it scored, and a pair of variants is "
                "compared on the questions both answered. The Answers table counts the refusals.")


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



def refused_rule(about_refusals: list[str]) -> str:
    return REFUSED_RULE.format(refusal_metrics=", ".join(about_refusals) or "none in this run")
