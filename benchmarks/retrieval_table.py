"""Retrieval variants on MedQuAD cancer.gov dev, each one `criss-rag eval retrieval` command.

Prints a Markdown table (recall@5, MRR@10, hit@1, median and p95 latency per question, retrieval
only) with the command of every row, for docs/benchmarks.md. Indexes are kept per settings and
corpus fingerprint, and embeddings are cached, so a rerun only pays for what changed.

    python benchmarks/retrieval_table.py [--only NAME ...]
"""

from __future__ import annotations

import argparse
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# $DATA: the folder of public data sets (docs/benchmarks.md, Data)
DATA = Path(os.environ.get("DATA") or ROOT.parent / "shared" / "data") / "medquad-cancergov"
BM25 = "{name: bm25, analyzer: standard, k1: 1.2, b: 0.75, repeat_fields: {title: 2}, top_k: 30}"
FAISS = "{name: faiss, top_k: 30, languages: [en]}"
NO_BOOST = ("--set", "rerankers=[]")
VARIANTS: dict[str, tuple[str, ...]] = {
    "BM25, plain": (
        "--set",
        "retrievers=[{name: bm25, analyzer: standard, top_k: 30}]",
        "--set",
        "fusion=null",
        *NO_BOOST,
    ),
    "BM25, title weighted": ("--set", f"retrievers=[{BM25}]", "--set", "fusion=null", *NO_BOOST),
    "TF-IDF (scikit-learn defaults)": (
        "--set",
        "retrievers=[{name: tfidf, analyzer: english, min_score: 0.0, top_k: 30}]",
        "--set",
        "fusion=null",
        *NO_BOOST,
    ),
    "dense MiniLM, flat": ("--set", f"retrievers=[{FAISS}]", "--set", "fusion=null", *NO_BOOST),
    "dense MiniLM, HNSW": (
        "--set",
        "retrievers=[{name: faiss, top_k: 30, index_type: hnsw}]",
        "--set",
        "fusion=null",
        *NO_BOOST,
    ),
    "BM25 + dense, RRF": NO_BOOST,
    "BM25 + dense, weighted score fusion": (
        "--set",
        "fusion={name: weighted, normalize: minmax, weights: {faiss: 1.5}, top_k: 30}",
        *NO_BOOST,
    ),
    "BM25 + dense, RRF, multi-hop (missing-terms)": ("--set", "multihop={name: missing-terms, max_hops: 1}", *NO_BOOST),
    "BM25 + dense, RRF, section-intent boost (default)": (),
}


def run(name: str, extra: tuple[str, ...]) -> str:
    command = [
        str(ROOT / ".venv/bin/criss-rag"),
        "eval",
        "retrieval",
        "examples/default.yaml",
        "--questions",
        str(DATA / "questions_dev.jsonl"),
        "--corpus",
        str(DATA / "corpus.jsonl"),
        "--k",
        "5",
        *extra,
    ]
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True)
    if result.returncode:
        sys.exit(f"{name}: failed\n{result.stderr[-2000:]}")
    lines = result.stdout.strip().splitlines()
    metrics = dict(re.findall(r"(\S+)=([\d.]+)", lines[-1]))
    latency = re.search(r"p50 ([\d.]+) ms, p95 ([\d.]+) ms", lines[-2])
    options = " ".join(shlex.quote(part) for part in command[8:])
    shown = (
        "criss-rag eval retrieval examples/default.yaml --questions $DATA/medquad-cancergov/questions_dev.jsonl "
        f"--corpus $DATA/medquad-cancergov/corpus.jsonl {options}"
    )
    return (f"| {name} | {metrics['recall@5']} | {metrics['mrr@10']} | {metrics['hit@1']} | "
            f"{latency.group(1)} | {latency.group(2)} | `{shown}` |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="run only the variants whose name contains one of these")
    args = parser.parse_args()
    print("| variant | recall@5 | MRR@10 | hit@1 | p50 ms | p95 ms | command |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for name, extra in VARIANTS.items():
        if args.only and not any(o.lower() in name.lower() for o in args.only):
            continue
        print(run(name, extra), flush=True)


if __name__ == "__main__":
    main()
