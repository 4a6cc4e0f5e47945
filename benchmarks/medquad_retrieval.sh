#!/usr/bin/env bash
# Retrieval bar of the default pipeline on the MedQuAD cancer.gov dev questions (full corpus).
# Prints `recall@5=... mrr@10=... hit@1=... n=444` as its last line; per-question rows go to results/.
set -euo pipefail
cd "$(dirname "$0")/.."
# $DATA: the folder of public data sets (docs/benchmarks.md, Data); a shared/data folder beside the repository if unset
data=${DATA:-../shared/data}/medquad-cancergov
mkdir -p results
.venv/bin/criss-rag eval retrieval examples/default.yaml \
  --questions "$data/questions_dev.jsonl" --corpus "$data/corpus.jsonl" \
  --k 5 --out results/medquad_retrieval.jsonl "$@"
