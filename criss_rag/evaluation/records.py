"""Run records: one JSON line per (question, variant), appended and fsynced one at a time.

A crash loses at most the record being written: the file is only ever appended to (write, flush,
fsync per record), and a torn last line is dropped when the run is resumed. Records that ended in
an error are dropped then too, so a rerun retries them; the file never holds two records with the
same key.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError

from criss_rag.errors import DataError

RECORDS = "records.jsonl"
MANIFEST = "run.json"


class RunRecord(BaseModel):
    """What ``criss-rag eval run`` writes for one question answered by one variant."""

    key: str  # "<variant>\t<qid>"
    variant: str
    qid: str
    question_set: str
    question: dict[str, Any]  # the question's JSONL record as read (gold ids, focus, ...)
    request_filters: dict[str, Any] = Field(default_factory=dict)
    answer: dict[str, Any] | None = None  # the Answer (text, citations, refusal, trace), as `ask --json`
    refused: bool | None = None
    refusal_reason: str | None = None
    evidence: list[dict[str, Any]] = Field(default_factory=list)  # the numbered passages the generator saw
    retrieved: list[dict[str, Any]] = Field(default_factory=list)  # ranked candidates after filters/rerankers
    timings: dict[str, float] = Field(default_factory=dict)  # ask_ms, metrics_ms, judges_ms
    config_hash: str = ""
    eval_hash: str = ""
    plugins: dict[str, str] = Field(default_factory=dict)
    metrics: dict[str, float] = Field(default_factory=dict)
    judges: dict[str, Any] | None = None  # the judge panel's result (see criss_rag.evaluation.judging)
    error: str | None = None  # set when answering or scoring raised; a rerun retries the record
    finished_at: str = ""


def record_key(variant: str, qid: str) -> str:
    return f"{variant}\t{qid}"


def read_records(path: Path, *, keep_errors: bool = True) -> list[RunRecord]:
    """Every complete record in ``path`` (the last one per key wins); a torn last line is skipped."""
    by_key: dict[str, RunRecord] = {}
    for record in _iter(path):
        if keep_errors or not record.error:
            by_key[record.key] = record
        else:
            by_key.pop(record.key, None)
    return list(by_key.values())


def _iter(path: Path) -> Iterator[RunRecord]:
    if not path.is_file():
        return
    with open(path, encoding="utf-8") as handle:
        lines = handle.read().split("\n")
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            yield RunRecord.model_validate_json(line)
        except ValidationError as exc:
            if number >= len(lines) - 1:  # the last line, torn by a crash mid-write
                continue
            raise DataError(f"{path}:{number}: not a run record ({exc.errors()[0]['msg']}); "
                            "was the file edited by hand? Rerun with --restart to start over") from None


class RecordWriter:
    """Appends records durably (thread-safe); ``prepare`` compacts the file before a resumed run."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()
        self._handle: Any = None

    def prepare(self) -> list[RunRecord]:
        """Drop a torn last line and errored records (rewritten atomically); return finished records."""
        records = read_records(self.path, keep_errors=False)
        if self.path.exists():
            current = self.path.read_text(encoding="utf-8")
            fresh = "".join(r.model_dump_json() + "\n" for r in records)
            if current != fresh:
                tmp = self.path.with_suffix(".jsonl.tmp")
                tmp.write_text(fresh, encoding="utf-8")
                with open(tmp, "rb+") as handle:
                    os.fsync(handle.fileno())
                os.replace(tmp, self.path)
        return records

    def write(self, record: RunRecord) -> None:
        with self._lock:
            if self._handle is None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                self._handle = open(self.path, "a", encoding="utf-8")
            self._handle.write(record.model_dump_json() + "\n")
            self._handle.flush()
            os.fsync(self._handle.fileno())

    def close(self) -> None:
        with self._lock:
            if self._handle is not None:
                self._handle.close()
                self._handle = None


class JsonlAppender:
    """Durable appends of plain JSON lines (the review file)."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._lock = threading.Lock()

    def append(self, item: dict[str, Any]) -> None:
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "a", encoding="utf-8") as handle:
                handle.write(json.dumps(item, ensure_ascii=False) + "\n")
                handle.flush()
                os.fsync(handle.fileno())


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """Plain JSON lines; a torn last line is skipped."""
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue
    return out
