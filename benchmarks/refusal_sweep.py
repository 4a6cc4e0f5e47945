"""Refusal thresholds on question sets with known expected behaviour.

For every question, records the best dense (faiss) cosine, the term coverage of the top
candidates and, for a question that names no cancer, the share of its terms found among all the
candidates; then prints, for grids of thresholds, how many in-scope questions would be answered
and how many out-of-scope questions refused. Use it to choose `refusal.min_score`,
`refusal.min_coverage` and `refusal.min_coverage_no_cancer` for a pipeline.

    python benchmarks/refusal_sweep.py examples/default.yaml examples/questions.jsonl
    python benchmarks/refusal_sweep.py examples/default.yaml \
        $DATA/medquad-cancergov/questions_dev.jsonl \
        --out-of-scope $DATA/medquad-cancergov/out_of_scope_dev.jsonl \
        --corpus $DATA/medquad-cancergov/corpus.jsonl
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from criss_rag.engine import Engine
from criss_rag.pipeline import Pipeline
from criss_rag.plugins import PluginHost
from criss_rag.types import Query


def out_of_scope(record: dict) -> bool:
    """How the question sets mark a question that must be refused (examples/questions.jsonl,
    examples/experiments/*.jsonl, the MedQuAD out-of-scope split)."""
    return (record.get("expected") == "refuse" or record.get("scope") == "out"
            or record.get("expected_behavior") == "out_of_scope")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config")
    parser.add_argument("questions", help="JSONL; a question is out of scope when it says so: expected: refuse, "
                                          "scope: out or expected_behavior: out_of_scope")
    parser.add_argument("--out-of-scope", help="extra JSONL of questions that must be refused")
    parser.add_argument("--corpus", help="JSONL corpus replacing the config's (jsonl loader)")
    parser.add_argument("--signal", default="faiss", help="the retriever label whose best score is swept (e5 for "
                        "Korean, Japanese and Chinese questions in the default pipeline)")
    parser.add_argument("--min-scores", type=float, nargs="+", default=[0.0, 0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.65],
                        help="min_score values of the grid (e5 cosines sit higher: try 0.78 0.8 0.82 0.84 0.86)")
    args = parser.parse_args()

    overrides = [f"loader={{name: jsonl, path: {json.dumps(str(Path(args.corpus).resolve()))}}}"] if args.corpus else []
    overrides.append("refusal.min_coverage=0.0")  # measure coverage; decide nothing here
    overrides.append("refusal.min_coverage_no_cancer=0.0")  # builds the analyzer the measures use
    pipeline = Pipeline.from_file(args.config, PluginHost(), overrides, show_progress=True)
    engine = Engine.open(pipeline, build_if_missing=True)
    policy = pipeline.build(pipeline.config.one("refusal"))

    rows = []
    for path, forced_out in ((args.questions, False), (args.out_of_scope, True)):
        if not path:
            continue
        for line in open(path, encoding="utf-8"):
            if not line.strip():
                continue
            record = json.loads(line)
            query = Query(record["question"])
            hits = engine.retrieve(query)
            dense = max((h.signals.get(args.signal, float("-inf")) for h in hits), default=float("-inf"))
            # the question names no cancer: share of its terms found anywhere among the candidates (else 1.0)
            unnamed = 1.0 if policy.names_cancer(query.text) else policy.unfound_terms(query, hits)[1]
            rows.append((forced_out or out_of_scope(record), dense, policy.coverage(query, hits),
                         record.get("lang", "en"), unnamed))

    skip_missing = policy.params.when_signal_missing == "skip"

    def weak(row: tuple, min_score: float) -> bool:
        """The dense check; a question no candidate has the signal for (its retriever serves other
        languages) passes it when the policy says `when_signal_missing: skip`, as the policy does."""
        return not (skip_missing and row[1] == float("-inf")) and row[1] < min_score

    inside = [r for r in rows if not r[0]]
    outside = [r for r in rows if r[0]]
    print(f"{len(inside)} in-scope, {len(outside)} out-of-scope questions")
    if not inside or not outside:  # a grid over one side only would print 0/0 for the other
        raise SystemExit(
            f"error: {len(inside)} in-scope and {len(outside)} out-of-scope questions; a sweep needs both. "
            "Mark out-of-scope questions with `expected: refuse`, `scope: out` or "
            "`expected_behavior: out_of_scope`, or pass --out-of-scope FILE"
        )
    print(f"{'min_score':>9} {'min_cov':>7} {'answered in-scope':>18} {'refused out-of-scope':>21}")
    for min_score in args.min_scores:
        for min_cov in (0.0, 0.3, 0.4, 0.5, 0.6):
            def refused(row: tuple, min_score: float = min_score, min_cov: float = min_cov) -> bool:
                return weak(row, min_score) or row[2] < min_cov

            answered = sum(not refused(r) for r in inside)
            refused_out = sum(refused(r) for r in outside)
            print(
                f"{min_score:>9.2f} {min_cov:>7.1f} {answered:>10}/{len(inside):<7} {refused_out:>13}/{len(outside):<7}"
            )

    # min_coverage_no_cancer: questions that name no cancer must find that share of their terms
    # somewhere among the candidates (min_coverage fixed at 0.3)
    print(f"\n{'min_score':>9} {'no_cancer':>9} {'answered in-scope':>18} {'refused out-of-scope':>21}")
    for min_score in args.min_scores:
        for no_cancer in (0.0, 0.8, 0.85, 0.9, 1.0):
            def refused(row: tuple, min_score: float = min_score, no_cancer: float = no_cancer) -> bool:
                return weak(row, min_score) or row[2] < 0.3 or row[4] < no_cancer

            answered = sum(not refused(r) for r in inside)
            refused_out = sum(refused(r) for r in outside)
            print(
                f"{min_score:>9.2f} {no_cancer:>9.2f} {answered:>10}/{len(inside):<7} "
                f"{refused_out:>13}/{len(outside):<7}"
            )


if __name__ == "__main__":
    main()
