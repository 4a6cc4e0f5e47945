"""Two derived variants of the registry's schema-selection questions, for what the dev split does not test.

The dev questions of the registry data set ($DATA/registry) were generated from the first site and histology code
of a selection-table row, and all name the system and version ("Under SEER Extent of Disease
(eod_public version 3.3), which schema applies ..."). This script writes, into OUTDIR:

- ``interior.jsonl``: each question's site and histology code moved to the middle of the range
  that contains it on the gold row (C340-C343 -> C341, 8000-8700 -> 8350), so the code no longer
  appears literally in the gold record: what code-range matching is for. A question is kept only
  when exactly one EOD 3.3 schema then has a row that matches site, histology and year (the gold
  stays the only right answer).
- ``no_system.jsonl``: the same questions without the "Under ... (eod_public version 3.3)," clause
  ("Which schema applies to a tumor with primary site C340 ... diagnosed in 2018?"): the year alone
  must lead to EOD's newest version, although Collaborative Stage's range is 2004 with no upper
  bound (the trap) and older EOD versions' open ranges also contain the year.

    python benchmarks/registry_variants.py $DATA/registry/questions_dev.jsonl \
        $DATA/registry/staging_corpus.jsonl /tmp/registry_dev
    criss-rag eval retrieval examples/registry.yaml --questions /tmp/registry_dev/interior.jsonl --k 5
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

FIELD = re.compile(r"\s*([^:;]+):\s*([^;]*)")


def parse_codes(value: str) -> list[tuple[int, int]]:
    """'C340-C343,C348' -> [(340, 343), (348, 348)]; '8000-8700, 8980' -> [(8000, 8700), (8980, 8980)]."""
    spans = []
    for item in value.split(","):
        item = item.strip().upper().replace("C", "")
        if not item or item == "*":
            continue
        lo, _, hi = item.partition("-")
        if lo.isdigit() and (not hi or hi.isdigit()):
            spans.append((int(lo), int(hi or lo)))
    return spans


def parse_years(value: str | None) -> list[tuple[int, int]]:
    if value is None or value.strip() in ("", "*"):
        return [(0, 9999)]
    spans = []
    for lo, hi in parse_codes(value):
        spans.append((lo, 9999 if hi == 9998 else hi))
    return spans


def rows(text: str) -> list[dict[str, str]]:
    return [dict((k.strip(), v.strip()) for k, v in FIELD.findall(line)) for line in text.splitlines()[1:]]


def inside(code: int, spans: list[tuple[int, int]]) -> tuple[int, int] | None:
    return next(((lo, hi) for lo, hi in spans if lo <= code <= hi), None)


def matches(row: dict[str, str], site: int, hist: int, year: int) -> bool:
    return (
        inside(site, parse_codes(row.get("Primary Site", ""))) is not None
        and inside(hist, parse_codes(row.get("Histology", ""))) is not None
        and inside(year, parse_years(row.get("Year of Diagnosis"))) is not None
    )


def interior(span: tuple[int, int]) -> int:
    lo, hi = span
    return lo if hi == lo else max(lo + 1, (lo + hi) // 2)


PREFIX = re.compile(r"^Under SEER Extent of Disease \(eod_public version [\d.]+\), which")


def main(questions_path: str, corpus_path: str, out_dir: str) -> None:
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    out_path = str(Path(out_dir) / "interior.jsonl")
    selection = {}
    with open(corpus_path, encoding="utf-8") as handle:
        for line in handle:
            record = json.loads(line)
            if record["section"] == "schema_selection" and record["source"] == "eod_public-3.3":
                selection[record["doc_id"]] = rows(record["text"])
    kept = skipped = plain = 0
    with open(questions_path, encoding="utf-8") as handle, open(out_path, "w", encoding="utf-8") as out, \
            open(Path(out_dir) / "no_system.jsonl", "w", encoding="utf-8") as no_system:
        for line in handle:
            q = json.loads(line)
            if q.get("qtype") != "schema_selection_by_year":
                continue
            if PREFIX.match(q["question"]):
                no_system.write(json.dumps({**q, "qid": q["qid"] + "-no-system",
                                            "question": PREFIX.sub("Which", q["question"])}, ensure_ascii=False) + "\n")
                plain += 1
            inputs = q["inputs"]
            site, hist, year = int(inputs["primary_site"][1:]), int(inputs["histology"]), inputs["year_of_diagnosis"]
            gold = q["gold_doc_ids"][0]
            row = next((r for r in selection.get(gold, []) if matches(r, site, hist, year)), None)
            if row is None:
                skipped += 1
                continue
            new_site = interior(inside(site, parse_codes(row["Primary Site"])))
            new_hist = interior(inside(hist, parse_codes(row["Histology"])))
            hits = {
                doc
                for doc, doc_rows in selection.items()
                if any(matches(r, new_site, new_hist, year) for r in doc_rows)
            }
            if hits != {gold} or (new_site, new_hist) == (site, hist):
                skipped += 1
                continue
            text = q["question"].replace(f"C{site:03d}", f"C{new_site:03d}")
            text = text.replace(f"histology {hist}", f"histology {new_hist}")
            out.write(
                json.dumps(
                    {
                        **q,
                        "qid": q["qid"] + "-interior",
                        "question": text,
                        "inputs": {**q["inputs"], "primary_site": f"C{new_site:03d}", "histology": str(new_hist)},
                    },
                    ensure_ascii=False,
                )
                + "\n"
            )
            kept += 1
    print(f"{kept} questions written to {out_path} ({skipped} skipped: no interior code, or not unique); "
          f"{plain} to {Path(out_dir) / 'no_system.jsonl'}")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
