"""Every question set of the example corpus through one pipeline: per set, how many questions are
answered or refused as they should be, with each question's outcome written to a JSONL file so
that two runs (two trees, two configs) can be compared question by question.

    python benchmarks/question_sets.py examples/default.yaml --out before.jsonl
    python benchmarks/question_sets.py examples/default.yaml --out after.jsonl --compare before.jsonl

The sets are ``examples/eval/*.jsonl`` except the MedQuAD cross-lingual ones (they need
``--corpus``; see docs/benchmarks.md). A row's ``expected`` says whether it should be answered;
sets named ``*out*`` without it are to be refused. With ``--compare``, the questions whose outcome
changed are listed, each with its refusal reason and what the relevance check found missing.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import criss_rag

ROOT = Path(__file__).resolve().parents[1]


def question_sets(folder: Path) -> list[Path]:
    return [p for p in sorted(folder.glob("*.jsonl")) if not p.name.startswith("medquad")]


def run(config: str, sets: list[Path], out: Path) -> list[dict]:
    engine = criss_rag.open(config)
    rows = []
    with out.open("w", encoding="utf-8") as sink:
        for path in sets:
            for line in path.read_text(encoding="utf-8").splitlines():
                question = json.loads(line)
                expected = question.get("expected") or ("refuse" if "out" in path.stem else "answer")
                answer = engine.ask(question["question"])
                row = {"set": path.stem, "question": question["question"], "expected": expected,
                       "refused": answer.refused, "reason": answer.refusal_reason,
                       "missing": answer.relevance.missing if answer.relevance is not None else None}
                rows.append(row)
                sink.write(json.dumps(row, ensure_ascii=False) + "\n")
    return rows


def right(row: dict) -> bool:
    return bool(row["refused"]) == (row["expected"] == "refuse")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", help="pipeline YAML")
    parser.add_argument("--sets", default=str(ROOT / "examples" / "eval"), help="folder of question sets")
    parser.add_argument("--out", required=True, help="JSONL of every question's outcome")
    parser.add_argument("--compare", help="a previous --out file: list the questions whose outcome changed")
    args = parser.parse_args()
    rows = run(args.config, question_sets(Path(args.sets)), Path(args.out))
    before = {}
    if args.compare:
        before = {(r["set"], r["question"]): r
                  for r in map(json.loads, Path(args.compare).read_text(encoding="utf-8").splitlines())}
    print("| set | questions | right" + (" | right before |" if before else " |"))
    print("|---|---:|---:" + ("|---:|" if before else "|"))
    for name in dict.fromkeys(r["set"] for r in rows):
        mine = [r for r in rows if r["set"] == name]
        cells = [name, str(len(mine)), str(sum(map(right, mine)))]
        if before:
            cells.append(str(sum(right(before[k]) for r in mine if (k := (r["set"], r["question"])) in before)))
        print("| " + " | ".join(cells) + " |")
    total = sum(map(right, rows))
    print(f"\n{total} of {len(rows)} right" + (
        f" ({sum(right(r) for r in before.values())} of {len(before)} before)" if before else ""))
    for row in rows:
        old = before.get((row["set"], row["question"]))
        if old is not None and old["refused"] != row["refused"]:
            now = "now refused" if row["refused"] else "now answered"
            print(f"- {row['set']}: {now} (should {row['expected']}): {row['question'][:80]}"
                  f" [{row['reason']}; missing {row['missing']}]")


if __name__ == "__main__":
    main()
