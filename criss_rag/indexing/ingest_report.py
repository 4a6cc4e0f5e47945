"""What an ingest did, as a summary for people and as JSON for scripts; and its progress lines."""

from __future__ import annotations

import statistics
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

#: ``built``: every retriever built from all chunks (first ingest, or ``--force``); ``updated``:
#: only what changed was re-chunked and re-embedded; ``up-to-date``: nothing changed, nothing written.
Mode = Literal["built", "updated", "up-to-date"]


@dataclass(frozen=True)
class IngestReport:
    """What an ingest did (or found already done)."""

    index_dir: Path
    key: str
    built: bool  # a new index version was written
    documents: int
    chunks: int
    mean_chunk_tokens: float
    median_chunk_tokens: float
    seconds: float
    mode: Mode = "up-to-date"
    corpus_version: int = 0
    corpus_fingerprint: str = ""
    diff: dict[str, int] = field(default_factory=dict)  # added / changed / deleted / unchanged documents
    rechunked: int = 0  # documents chunked this run
    new_chunks: int = 0  # chunks made this run
    removed_chunks: int = 0  # chunks of changed and deleted documents taken out of every retriever
    embedded: int | None = 0  # texts the embedding model computed this run (None: the pipeline embeds nothing)
    from_cache: int = 0  # texts whose vector the embedding cache already held (not computed this run)
    retrievers: dict[str, str] = field(default_factory=dict)  # label -> updated / rebuilt / unchanged
    rebuilt_because: dict[str, str] = field(default_factory=dict)  # label -> why it was rebuilt whole
    skipped: list[tuple[str, str]] = field(default_factory=list)  # (item, reason) the loader or the chunker skipped
    warnings: list[str] = field(default_factory=list)
    steps: dict[str, float] = field(
        default_factory=dict
    )  # seconds per step (loading, chunking, retriever <label>, ...)

    def summary(self) -> str:
        lines: list[str] = []
        if self.mode == "up-to-date":
            lines.append(
                f"index up to date: {self.index_dir} ({self.documents} documents, {self.chunks} chunks, "
                f"corpus version {self.corpus_version})"
            )
        else:
            lines.append(
                f"indexed {self.documents} documents as {self.chunks} chunks "
                f"(tokens per chunk: mean {self.mean_chunk_tokens:.0f}, median {self.median_chunk_tokens:.0f}) "
                f"in {self.seconds:.1f}s -> {self.index_dir}"
            )
            how = "rebuilt whole" if self.mode == "built" else "updated"
            lines.append(f"  corpus version {self.corpus_version} ({how}): {_diff_text(self.diff)}")
            embedded = "" if self.embedded is None else f", embedded {self.embedded} texts" + (
                f" (the other {self.from_cache} came from the embedding cache)" if self.from_cache else "")
            lines.append(
                f"  chunked {self.rechunked} documents into {self.new_chunks} chunks, removed {self.removed_chunks} "
                f"old chunks{embedded}"
            )
            if self.retrievers:
                parts = [
                    f"{label} {what}" + (f" ({self.rebuilt_because[label]})" if label in self.rebuilt_because else "")
                    for label, what in self.retrievers.items()
                ]
                lines.append("  retrievers: " + "; ".join(parts))
        lines.extend(f"  warning: {warning}" for warning in self.warnings)
        if self.skipped:
            lines.append(f"  skipped {len(self.skipped)} items:")
            lines.extend(f"    {item}: {reason}" for item, reason in self.skipped[:50])
            if len(self.skipped) > 50:
                lines.append(f"    ... and {len(self.skipped) - 50} more (see --json)")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["index_dir"] = str(self.index_dir)
        data["skipped"] = [{"item": item, "reason": reason} for item, reason in self.skipped]
        return data


def _diff_text(diff: dict[str, int]) -> str:
    return ", ".join(f"{diff.get(k, 0)} {k}" for k in ("added", "changed", "deleted", "unchanged")) + " documents"


def token_stats(tokens: Sequence[int]) -> tuple[float, float]:
    """Mean and median chunk tokens (0, 0 for no chunks)."""
    return (statistics.fmean(tokens), statistics.median(tokens)) if tokens else (0.0, 0.0)


class Progress:
    """One line per ingest step on stderr (when enabled), with how long the step took; the
    durations are kept in ``seconds`` either way."""

    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        self.seconds: dict[str, float] = {}  # per step, shown or not

    def note(self, message: str) -> None:
        if self.enabled:
            print(f"ingest: {message}", file=sys.stderr, flush=True)

    @contextmanager
    def step(self, message: str) -> Iterator[None]:
        started = time.perf_counter()
        self.note(f"{message} ...")
        yield
        self.seconds[message] = round(time.perf_counter() - started, 3)
        self.note(f"{message}: done in {self.seconds[message]:.1f}s")

    def bar(self, total: int, desc: str, unit: str) -> Any:
        return progress_bar(total, desc, unit, enabled=self.enabled)


def progress_bar(total: int, desc: str, unit: str, *, enabled: bool) -> Any:
    """A progress bar on stderr for ``total`` items: tqdm's live bar on a terminal; elsewhere (a log,
    a pipe) one line when done, since tqdm redraws there as a new 100% line on every refresh."""
    if not enabled or total == 0:
        return _LineBar(total, desc, unit, enabled=False)
    if sys.stderr.isatty():
        from tqdm import tqdm

        return tqdm(total=total, desc=desc, unit=unit, file=sys.stderr)
    return _LineBar(total, desc, unit, enabled=True)


class _LineBar:
    """The part of tqdm's interface the ingest uses, printing one summary line at ``close``."""

    def __init__(self, total: int, desc: str, unit: str, *, enabled: bool) -> None:
        self.total, self.desc, self.unit, self.enabled = total, desc, unit, enabled
        self.n = 0
        self.started = time.perf_counter()

    def update(self, n: int = 1) -> None:
        self.n += n

    def close(self) -> None:
        if self.enabled:
            seconds = time.perf_counter() - self.started
            rate = f", {self.n / seconds:.1f} {self.unit}/s" if seconds > 0 else ""
            line = f"{self.desc}: {self.n}/{self.total} {self.unit}s in {seconds:.1f}s{rate}"
            print(line, file=sys.stderr, flush=True)
            self.enabled = False

    def __enter__(self) -> _LineBar:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
