"""Expert review: an .xlsx sheet for human raters, blinded to the variant, and its import.

``export_sheet`` writes one row per answer (question, reference when the question has one,
answer, cited sources) in a seeded random order, with empty 0-5 columns for the Korean system's
five dimensions and a comment column. Which variant wrote each row is kept out of the sheet, in
``review-key.json`` of the run folder. ``import_ratings`` reads filled sheets back (one per rater)
and gives the mean per variant and dimension, and the agreement between raters (Krippendorff's
alpha, interval metric, and the mean absolute difference).

openpyxl comes with the ``eval`` extra: ``pip install 'criss-rag[eval]'``.
"""

from __future__ import annotations

import json
import random
from itertools import combinations
from pathlib import Path
from typing import Any

from criss_rag.errors import DataError
from criss_rag.evaluation.records import RECORDS, read_records
from criss_rag.evaluation.stats import _need

DIMENSIONS = ("accuracy", "relevance", "completeness", "clarity", "consistency")
KEY_FILE = "review-key.json"
SHEET = "ratings"
FIXED = ("item", "question", "reference", "answer", "sources")
REFERENCE_FIELDS = ("reference_answer", "reference", "answer")
INSTRUCTIONS = [
    "Rate each answer from 0 (worst) to 5 (best) on each dimension. Leave a cell empty if you cannot rate it.",
    "accuracy: is what the answer says medically correct?",
    "relevance: does it answer the question that was asked?",
    "completeness: does it cover what the question needs?",
    "clarity: is it easy to read and understand for a patient?",
    "consistency: does it agree with its cited sources and with itself?",
    "The rows are shuffled and do not say which system wrote them. Do not change the item column.",
]


def export_sheet(run_dir: Path, out: Path | None = None, *, seed: int = 13, per_variant: int | None = None) -> Path:
    """Write the blinded rating sheet (and ``review-key.json``); returns the sheet's path."""
    openpyxl = _need("openpyxl")
    records = [r for r in read_records(run_dir / RECORDS) if not r.error]
    if not records:
        raise DataError(f"{run_dir / RECORDS} holds no finished record; run `criss-rag eval run` first")
    rng = random.Random(seed)
    qids = sorted({r.qid for r in records})
    if per_variant is not None and per_variant < len(qids):
        qids = sorted(rng.sample(qids, per_variant))  # the same questions for every variant: paired ratings
    chosen = [r for r in records if r.qid in set(qids)]
    rng.shuffle(chosen)
    book = openpyxl.Workbook()
    sheet = book.active
    sheet.title = SHEET
    sheet.append([*FIXED, *DIMENSIONS, "comment"])
    key: dict[str, dict[str, str]] = {}
    for number, record in enumerate(chosen, start=1):
        item = f"R{number:04d}"
        key[item] = {"variant": record.variant, "qid": record.qid}
        answer = record.answer or {}
        reference = next((str(record.question[f]) for f in REFERENCE_FIELDS if record.question.get(f)), "")
        sources = "\n".join(
            f"[{c.get('number')}] {c.get('title') or c.get('doc_id')}" for c in answer.get("citations", [])
        )
        sheet.append([item, str(record.question.get("question", "")), reference, str(answer.get("text", "")), sources])
    for column, width in zip("ABCDE", (8, 40, 50, 60, 30), strict=True):
        sheet.column_dimensions[column].width = width
    notes = book.create_sheet("instructions")
    notes.append(["rater", ""])
    for line in INSTRUCTIONS:
        notes.append([line])
    out = out or run_dir / "expert-review.xlsx"
    out.parent.mkdir(parents=True, exist_ok=True)
    book.save(out)
    (run_dir / KEY_FILE).write_text(json.dumps({"sheet": str(out), "seed": seed, "dimensions": list(DIMENSIONS),
                                                 "items": key}, indent=2), encoding="utf-8")
    return out


def read_sheet(path: Path) -> tuple[str, dict[str, dict[str, float]]]:
    """(rater, item -> dimension -> rating) of one filled sheet."""
    openpyxl = _need("openpyxl")
    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except FileNotFoundError:
        raise DataError(f"rating sheet not found: {path}") from None
    if SHEET not in book.sheetnames:
        raise DataError(f"{path}: no sheet named {SHEET!r}; export one with `criss-rag eval review-sheet RUN_DIR`")
    rater = path.stem
    if "instructions" in book.sheetnames:
        first = next(book["instructions"].iter_rows(min_row=1, max_row=1, values_only=True), None)
        if first and len(first) > 1 and first[1] not in (None, ""):
            rater = str(first[1]).strip()
    rows = list(book[SHEET].iter_rows(values_only=True))
    header = [str(h or "").strip().lower() for h in rows[0]] if rows else []
    missing = [d for d in ("item", *DIMENSIONS) if d not in header]
    if missing:
        raise DataError(f"{path}: the {SHEET!r} sheet lacks the column(s) {', '.join(missing)}")
    ratings: dict[str, dict[str, float]] = {}
    for number, row in enumerate(rows[1:], start=2):
        item = row[header.index("item")]
        if not item:
            continue
        values = {}
        for dim in DIMENSIONS:
            cell = row[header.index(dim)]
            if cell in (None, ""):
                continue
            try:
                value = float(cell)
            except (TypeError, ValueError):
                raise DataError(f"{path}: row {number}, {dim}: {cell!r} is not a number from 0 to 5") from None
            if not 0 <= value <= 5:
                raise DataError(f"{path}: row {number}, {dim}: {value:g} is outside 0-5")
            values[dim] = value
        ratings[str(item)] = values
    book.close()
    return rater, ratings


def import_ratings(run_dir: Path, sheets: list[Path]) -> dict[str, Any]:
    """Means per variant and dimension, and agreement between raters, from filled sheets."""
    key_path = run_dir / KEY_FILE
    if not key_path.is_file():
        raise DataError(f"{key_path} not found: the sheets must come from `criss-rag eval review-sheet {run_dir}`")
    key = json.loads(key_path.read_text(encoding="utf-8"))["items"]
    by_rater = {}
    for path in sheets:
        rater, ratings = read_sheet(Path(path))
        unknown = sorted(set(ratings) - set(key))
        if unknown:
            raise DataError(
                f"{path}: item(s) {', '.join(unknown[:5])} are not in {key_path}; was the sheet made for another run?"
            )
        if rater in by_rater:
            rater = f"{rater} ({Path(path).name})"
        by_rater[rater] = ratings
    per_variant: dict[str, Any] = {}
    for variant in sorted({k["variant"] for k in key.values()}):
        items = [i for i, k in key.items() if k["variant"] == variant]
        means = {}
        for dim in DIMENSIONS:
            values = [r[i][dim] for r in by_rater.values() for i in items if dim in r.get(i, {})]
            means[dim] = sum(values) / len(values) if values else None
        per_variant[variant] = {"items": len(items), "means": means}
    agreement = {}
    for dim in DIMENSIONS:
        units = [[r[i][dim] for r in by_rater.values() if dim in r.get(i, {})] for i in key]
        units = [u for u in units if len(u) >= 2]
        diffs = [abs(a - b) for u in units for a, b in combinations(u, 2)]
        agreement[dim] = {"items": len(units), "krippendorff_alpha": krippendorff_alpha_interval(units),
                          "mean_abs_diff": sum(diffs) / len(diffs) if diffs else None}
    return {
        "raters": list(by_rater),
        "dimensions": list(DIMENSIONS),
        "per_variant": per_variant,
        "agreement": agreement,
    }


def krippendorff_alpha_interval(units: list[list[float]]) -> float | None:
    """Krippendorff's alpha with the interval metric; ``units`` are the ratings of each item
    (items rated once are not pairable and are left out). None when there is no variation at all."""
    units = [u for u in units if len(u) >= 2]
    values = [v for u in units for v in u]
    n = len(values)
    if n < 2:
        return None
    observed = sum(sum((a - b) ** 2 for i, a in enumerate(u) for j, b in enumerate(u) if i != j) / (len(u) - 1)
                   for u in units) / n
    expected = sum((a - b) ** 2 for i, a in enumerate(values) for j, b in enumerate(values) if i != j) / (n * (n - 1))
    if expected == 0:
        return None
    return 1 - observed / expected
