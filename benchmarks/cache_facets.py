"""Semantic cache safety and usefulness: the paraphrase hit rate and the near-miss false-hit rate.

Reads the table of question pairs (tests/fixtures/cache_pairs.jsonl: near misses that must never
share an answer, paraphrases that may), builds the `semantic` cache the config names (or
`{name: semantic}` with the config's embedding) on a fresh SQLite file, and for each pair stores an
answer for the first question and looks the second up through the cache's own `lookup`. Prints per
language: paraphrase hits with facets (what the cache does), paraphrase pairs over the threshold by
similarity alone, near-miss hits with facets (must be 0) and near misses that similarity alone would
have served the other question's answer. --threshold repeats the run at other thresholds.

    python benchmarks/cache_facets.py examples/default.yaml
    python benchmarks/cache_facets.py examples/default.yaml --threshold 0.95 0.9 0.85
    python benchmarks/cache_facets.py examples/default.yaml --medquad $DATA/medquad-cancergov/questions_dev.jsonl

--medquad also takes every pair of differently worded questions of a MedQuAD questions file whose
gold passages differ (each needs another answer) and counts those the cache would serve from each other
(facets equal and similarity ≥ threshold) against those similarity alone would.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import defaultdict
from pathlib import Path

import numpy as np

from criss_rag.language.text import detect_language
from criss_rag.lexicon.facets import extract
from criss_rag.pipeline import Pipeline
from criss_rag.plugins import PluginHost
from criss_rag.types import Answer, CacheScope, Query, Trace

PAIRS = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "cache_pairs.jsonl"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config")
    parser.add_argument("--pairs", default=str(PAIRS))
    parser.add_argument("--medquad", default=None, help="a MedQuAD questions JSONL (question, gold_doc_id)")
    parser.add_argument(
        "--threshold", type=float, nargs="*", default=None, help="thresholds to run (default: the config's)"
    )
    args = parser.parse_args()
    pairs = [json.loads(line) for line in Path(args.pairs).read_text(encoding="utf-8").splitlines() if line.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        host = PluginHost()
        probe = Pipeline.from_file(args.config, host)
        spec = probe.config.one("cache")
        cache_text = f'cache={{name: semantic, path: "{Path(tmp) / "probe.sqlite"}"}}'
        pipeline = Pipeline.from_file(args.config, host, [] if spec is not None else [cache_text])
        cc = pipeline.config.one("cache")
        cache = pipeline.build(cc)
        thresholds = args.threshold or [cache.params.threshold]
        print(f"cache {cc.name}, embedding {cache.model}, {len(pairs)} pairs from {args.pairs}", file=sys.stderr)
        vectors = {}
        for pair in pairs:
            for q in (pair["a"], pair["b"]):
                if q not in vectors:
                    vectors[q] = np.asarray(cache._vector(q))  # noqa: SLF001 - the cache's own embedding
        print(
            "| threshold | language | paraphrase hits (facets + similarity) | paraphrases ≥ threshold by similarity "
            "alone "
            "| near-miss hits (facets + similarity) | near misses ≥ threshold by similarity alone |"
        )
        print("|---|---|---|---|---|---|")
        for threshold in thresholds:
            cache.params.threshold = threshold
            counts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
            for n, pair in enumerate(pairs):
                scope = CacheScope(config_hash=f"bench-{threshold}-{n}", corpus_version="v1", language=pair["lang"])
                answer = Answer(question=pair["a"], text=f"answer to {pair['a']}", trace=Trace(config_hash="bench"))
                cache.store(Query(pair["a"]), scope, answer)
                hit = cache.lookup(Query(pair["b"]), scope) is not None
                alone = float(vectors[pair["a"]] @ vectors[pair["b"]]) >= threshold
                for lang in (pair["lang"], "all"):
                    c = counts[lang]
                    c[pair["kind"]] += 1
                    c[pair["kind"] + ":hit"] += hit
                    c[pair["kind"] + ":alone"] += alone
            for lang in ("en", "ko", "ja", "zh", "all"):
                c = counts[lang]
                if not c:
                    continue

                def rate(kind: str, what: str, c: dict = c) -> str:
                    return f"{c[kind + ':' + what]}/{c[kind]} ({c[kind + ':' + what] / max(1, c[kind]):.0%})"
                print(f"| {threshold:g} | {lang} | {rate('paraphrase', 'hit')} | {rate('paraphrase', 'alone')} "
                      f"| {rate('near-miss', 'hit')} | {rate('near-miss', 'alone')} |")
        if args.medquad:
            medquad(cache, Path(args.medquad), thresholds)


def medquad(cache, path: Path, thresholds: list[float]) -> None:
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    questions = [r["question"] for r in rows]
    gold = [r["gold_doc_id"] for r in rows]
    matrix = np.stack([np.asarray(cache._vector(q)) for q in questions])  # noqa: SLF001
    facets = [extract(q, detect_language(q)) for q in questions]
    similarity = matrix @ matrix.T
    upper = np.triu_indices(len(questions), k=1)
    different = np.array([gold[i] != gold[j] and questions[i].strip().lower() != questions[j].strip().lower()
                          for i, j in zip(*upper, strict=True)])
    same_facets = np.array([facets[i] == facets[j] for i, j in zip(*upper, strict=True)])
    print(
        f"\nMedQuAD {path.name}: {len(questions)} questions, {int(different.sum())} pairs of different questions whose "
        "gold passages differ"
    )
    print("| threshold | pairs ≥ threshold by similarity alone | of them served by the cache (facets equal) |")
    print("|---|---|---|")
    for threshold in thresholds:
        over = (similarity[upper] >= threshold) & different
        served = over & same_facets
        print(f"| {threshold:g} | {int(over.sum())} | {int(served.sum())} |")
        for k in np.flatnonzero(served)[:5]:
            i, j = upper[0][k], upper[1][k]
            print(f"  served: {questions[i]!r} ~ {questions[j]!r} ({similarity[i, j]:.3f})", file=sys.stderr)


if __name__ == "__main__":
    main()
