"""Right page first, split by whether the right page exists in the question's language: Korean,
Japanese and Chinese questions over the example corpus, whose diagnosis, staging and prevention
pages are in English only.

    python benchmarks/section_retrieval.py examples/default.yaml examples/eval/ko_dev.jsonl ...
    python benchmarks/section_retrieval.py examples/default.yaml SETS... --out ranks.jsonl

Per question language, two rows: questions with a gold page in their own language (a gold id
ending in -ko, -ja or -zh, as the example corpus names its pages) and questions whose gold pages
are all in another language. Each row gives how many rank a gold page first and how many in the
top 3. ``--out`` writes each question's rank and first five documents, for comparing two trees.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

import criss_rag
from criss_rag.evaluation.retrieval import rank_documents
from criss_rag.language.text import detect_language


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("config")
    parser.add_argument("sets", nargs="+", type=Path, help="question files (JSONL with question, gold_doc_ids)")
    parser.add_argument("--out", type=Path, help="write each question's rank here")
    args = parser.parse_args()
    engine = criss_rag.open(args.config)
    counts: Counter[tuple[str, str, str]] = Counter()
    rows = []
    for path in args.sets:
        for line in path.read_text(encoding="utf-8").splitlines():
            question = json.loads(line)
            gold = set(question.get("gold_doc_ids") or [])
            if not gold:
                continue
            language = question.get("lang") or detect_language(question["question"])
            doc_ids, _ = rank_documents(engine, question["question"])
            rank = next((i + 1 for i, doc_id in enumerate(doc_ids) if doc_id in gold), None)
            where = "own language" if any(g.endswith(f"-{language}") for g in gold) else "another language"
            counts[(language, where, "n")] += 1
            counts[(language, where, "first")] += rank == 1
            counts[(language, where, "top 3")] += rank is not None and rank <= 3
            rows.append({"set": path.stem, "question": question["question"], "rank": rank, "top": doc_ids[:5]})
    print("| language | gold page | first | top 3 | n |\n|---|---|---:|---:|---:|")
    for language, where in sorted({key[:2] for key in counts}):
        print(f"| {language} | {where} | {counts[(language, where, 'first')]} | "
              f"{counts[(language, where, 'top 3')]} | {counts[(language, where, 'n')]} |")
    if args.out:
        args.out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


if __name__ == "__main__":
    main()
