"""The Korean system's comparison on MedQuAD cancer.gov dev (k = 5): no filter, the hard cancer-type
filter (pool 100), the soft cancer-type boost, and soft + question-intent boost.

Each variant is `examples/default.yaml` with `--set` overrides (printed with the row), run
in-process over every dev question: retrieval only, exactly as `criss-rag eval retrieval` ranks
documents (a document counts once, at its best chunk). Reported per variant:

- recall@5 and MRR@10 over documents, gold = `gold_doc_ids_any` (as `eval retrieval`);
- gold-in-evidence@5: the share of questions with a gold passage among the top 5 *chunks* (the
  evidence a k = 5 context holds; the Korean system's unit). recall@5 counts the top 5 distinct
  documents, however many chunks that takes, which the hard filter (5 chunks, often 2 of one
  document) cannot use; this column compares every variant on the same 5 chunks;
- cancer-matched@5: the mean number, per question, of the top 5 evidence chunks that are about the
  question's cancer: the lexicon (built-in + the corpus `focus` values) finds the question's
  `focus` type, or a narrower type, in the chunk's title or text. The same judge for every variant.

    python benchmarks/cancer_filter.py --variant hard        # one row
    python benchmarks/cancer_filter.py --variant all         # every row, as a Markdown table
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import statistics
import sys
import time
from pathlib import Path

from criss_rag.engine import Engine
from criss_rag.pipeline import Pipeline
from criss_rag.plugins import PluginHost
from criss_rag.types import Query
from criss_rag_domain.lexicon import CancerLexicon

ROOT = Path(__file__).resolve().parents[1]
# $DATA: the folder of public data sets (docs/benchmarks.md, Data)
DATA = Path(os.environ.get("DATA") or ROOT.parent / "shared" / "data") / "medquad-cancergov"
K = 5
POOL_100 = ("retrievers.bm25.top_k=100", "retrievers.faiss.top_k=100", "fusion.top_k=100")
HARD = "filters=[{name: cancer-type, metadata_field: focus, fields: [title, text], top_k: 5}]"
SOFT = "{name: cancer-type-boost, metadata_field: focus}"
INTENT = "{name: intent-boost}"
#: variant -> (description, --set overrides on examples/default.yaml)
VARIANTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "none": ("(a) no filter: BM25 + dense, RRF, pool 30", ("rerankers=[]",)),
    "hard": ("(b) hard cancer-type filter, pool 100 → top 5", (*POOL_100, HARD, "rerankers=[]")),
    "hard-builtin": (
        "(b') hard filter, built-in lexicon only (no corpus foci), pool 100",
        (*POOL_100, "filters=[{name: cancer-type, top_k: 5}]", "rerankers=[]"),
    ),
    "hard-text": (
        "(b'') hard filter matching the chunk text only (no title), pool 100",
        (*POOL_100, "filters=[{name: cancer-type, metadata_field: focus, fields: [text], top_k: 5}]", "rerankers=[]"),
    ),
    "soft": ("(c) soft cancer-type boost, pool 30", (f"rerankers=[{SOFT}]",)),
    "soft-intent": ("(d) soft cancer-type + intent boost, pool 30", (f"rerankers=[{SOFT}, {INTENT}]",)),
    "soft-intent-100": ("(d') soft cancer-type + intent boost, pool 100", (*POOL_100, f"rerankers=[{SOFT}, {INTENT}]")),
    "soft-intent-100-w15": (
        "(d') with weight 1.5: cancer and section agreement weighted alike",
        (
            *POOL_100,
            ("rerankers=[{name: cancer-type-boost, metadata_field: focus, weight: 1.5}, {name: intent-boost}]"),
        ),
    ),
    "soft-builtin-intent": (
        "soft cancer-type (built-in lexicon only) + intent boost, pool 30",
        ("rerankers=[{name: cancer-type-boost}, {name: intent-boost}]",),
    ),
    "intent": ("intent boost alone (replaces the default's metadata-boost cue list)", (f"rerankers=[{INTENT}]",)),
    "default": ("examples/default.yaml as it is", ()),
}


def judge(corpus: Path) -> tuple[CancerLexicon, dict[str, str]]:
    """The cancer-matched judge: built-in lexicon + the corpus foci; focus value -> type id."""
    lexicon = CancerLexicon.builtin()
    foci = [json.loads(line)["focus"] for line in corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
    return lexicon, lexicon.extend_from_values(foci, source="metadata:focus")


def run(variant: str, questions: Path, corpus: Path, out: Path | None) -> dict[str, float]:
    _, overrides = VARIANTS[variant]
    loader = f"loader={{name: jsonl, path: {json.dumps(str(corpus.resolve()))}}}"
    pipeline = Pipeline.from_file(ROOT / "examples" / "default.yaml", PluginHost(), (loader, *overrides))
    engine = Engine.open(pipeline, build_if_missing=True)
    lexicon, focus_type = judge(corpus)
    records = [json.loads(line) for line in questions.read_text(encoding="utf-8").splitlines() if line.strip()]
    rows, ranks, matched, times = [], [], [], []
    for record in records:
        started = time.perf_counter()
        hits = engine.retrieve(Query(text=record["question"]))
        times.append((time.perf_counter() - started) * 1000)
        doc_ids = list(dict.fromkeys(h.doc_id for h in hits))
        gold = set(record.get("gold_doc_ids_any") or [record["gold_doc_id"]])
        rank = next((i + 1 for i, d in enumerate(doc_ids) if d in gold), None)
        wanted = focus_type[record["focus"]]
        n_matched = sum(
            any(lexicon.within(t, wanted) for t in lexicon.detect(f"{h.metadata.get('title', '')}\n{h.text}"))
            for h in hits[:K]
        )
        ranks.append(rank)
        matched.append(n_matched)
        evidence = [h.doc_id for h in hits[:K]]
        rows.append(
            {
                "qid": record["qid"],
                "doc_ids": doc_ids[:10],
                "first_gold_rank": rank,
                "evidence": evidence,
                "gold_in_evidence": bool(gold & set(evidence)),
                "cancer_matched": n_matched,
            }
        )
    if out:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    n = len(records)
    return {
        "recall@5": sum(1 for r in ranks if r is not None and r <= K) / n,
        "mrr@10": sum(1 / r for r in ranks if r is not None and r <= 10) / n,
        "hit@1": sum(1 for r in ranks if r == 1) / n,
        "gold_in_evidence@5": statistics.mean(float(r["gold_in_evidence"]) for r in rows),
        "cancer_matched@5": statistics.mean(matched),
        "evidence@5": statistics.mean(len(r["evidence"]) for r in rows),
        "p50_ms": statistics.median(times),
        "n": n,
    }


def row(variant: str, m: dict[str, float]) -> str:
    description, overrides = VARIANTS[variant]
    sets = " ".join(f"--set {shlex.quote(o)}" for o in overrides)
    return (
        f"| {description} | {m['recall@5']:.3f} | {m['mrr@10']:.3f} | {m['hit@1']:.3f} | "
        f"{m['gold_in_evidence@5']:.3f} | {m['cancer_matched@5']:.2f} | "
        f"`python benchmarks/cancer_filter.py --variant {variant}` | "
        f"`{sets or '(none)'}` |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--variant", required=True, choices=[*VARIANTS, "all"])
    parser.add_argument("--questions", type=Path, default=DATA / "questions_dev.jsonl")
    parser.add_argument("--corpus", type=Path, default=DATA / "corpus.jsonl")
    parser.add_argument(
        "--out", type=Path, default=None, help="per-question rows (JSONL); with --variant all, a folder"
    )
    args = parser.parse_args()
    variants = list(VARIANTS) if args.variant == "all" else [args.variant]
    print(
        "| variant | recall@5 | MRR@10 | hit@1 | gold in evidence@5 | cancer-matched@5 | command | "
        "overrides on examples/default.yaml |"
    )
    print("|---|---:|---:|---:|---:|---:|---|---|")
    for variant in variants:
        out = (args.out / f"{variant}.jsonl" if args.variant == "all" else args.out) if args.out else None
        metrics = run(variant, args.questions, args.corpus, out)
        print(row(variant, metrics), flush=True)
        print(
            f"{variant}: "
            + " ".join(f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in metrics.items()),
            file=sys.stderr,
            flush=True,
        )


if __name__ == "__main__":
    main()
