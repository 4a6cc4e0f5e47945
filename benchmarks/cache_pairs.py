"""Semantic cache on near-miss and paraphrase pairs: is another question's answer ever served, and
how often does a paraphrase still hit?

A pair table is JSONL with ``id``, ``lang`` (en, ko, ja, zh), ``kind`` (``near-miss``: the two
questions need different answers; ``paraphrase``: the same question worded differently), ``form``
(what differs), ``a`` and ``b``.

Direct mode (the default; the cache decision only, no retrieval or generation): for each pair, a
fresh scope stores an answer for ``a`` and looks ``b`` up through the cache's own ``lookup``. Fast;
for tuning. Pipeline mode (``--corpus``): each pair runs through the whole pipeline with
``cache: {name: semantic}`` on an emptied cache file: ``a`` is asked (answered and stored), then
``b``; a pair counts as answered when neither is refused (refusals are not stored), a near miss
whose ``b`` comes from the cache was served the other question's answer. Both modes print per
language and kind: pairs, answered, hits, and what blocked the misses (facets differ, similarity
below the threshold, unmatched words: the words most often named).

    python benchmarks/cache_pairs.py examples/default.yaml benchmarks/data/cache_pairs_dev.jsonl
    python benchmarks/cache_pairs.py examples/default.yaml benchmarks/data/cache_pairs_dev.jsonl \\
        --threshold 0.95 0.9 0.85
    python benchmarks/cache_pairs.py examples/default.yaml benchmarks/data/cache_pairs_dev.jsonl \\
        --corpus $DATA/medquad-cancergov/corpus.jsonl --index results/cache_pairs_index
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

from criss_rag.pipeline import Pipeline
from criss_rag.plugins import PluginHost
from criss_rag.types import Answer, CacheScope, Query, Trace

KINDS = ("near-miss", "paraphrase")
LANGUAGES = ("en", "ko", "ja", "zh")


def blocker(cache, question: str, scope: CacheScope) -> str:
    """Why the cache did not serve ``question``: facets, similarity or the unmatched words."""
    notes = cache.trace_notes(Query(question), scope)
    cache.lookup(Query(question), scope)  # clears the remembered decision
    if notes.get("unmatched"):
        return "unmatched: " + ", ".join(notes["unmatched"])
    ids, _, _ = cache.file.candidates(scope.key, cache.model, cache._guard(Query(question), scope))  # noqa: SLF001
    return "similarity below the threshold" if ids else "facets differ"


def direct(cache, pairs: list[dict], threshold: float) -> dict:
    cache.params.threshold = threshold
    results = {}
    for n, pair in enumerate(pairs):
        scope = CacheScope(config_hash=f"pairs-{threshold}-{n}", corpus_version="v1", language=pair["lang"])
        cache.store(Query(pair["a"]), scope, Answer(question=pair["a"], text=f"answer to {pair['a']}",
                                                     trace=Trace(config_hash="bench")))
        hit = cache.lookup(Query(pair["b"]), scope) is not None
        results[pair["id"]] = {"answered": True, "hit": hit, "why": "" if hit else blocker(cache, pair["b"], scope)}
    return results


def through_pipeline(config: str, pairs: list[dict], corpus: str, index: str, threshold: float | None) -> dict:
    from criss_rag.engine import Engine

    cache_dir = Path(tempfile.mkdtemp(prefix="cache-pairs-"))
    overrides = [f"loader={{name: jsonl, path: {json.dumps(str(Path(corpus).resolve()))}}}",
                 f"index.dir={json.dumps(str(Path(index).resolve()))}",
                 f"cache={{name: semantic, {f'threshold: {threshold}, ' if threshold else ''}"
                 f"path: {json.dumps(str(cache_dir / 'answers.sqlite'))}}}"]
    engine = Engine.open(Pipeline.from_file(config, PluginHost(), overrides), build_if_missing=True)
    cache = engine.cache.cache
    results = {}
    for pair in pairs:
        cache.file.clear()
        first = engine.ask(pair["a"])
        second = engine.ask(pair["b"])
        answered = not first.refused and not second.refused
        hit = second.cached is not None
        why = ""
        if answered and not hit:
            notes = second.trace.stage("cache").notes
            why = ("unmatched: " + ", ".join(notes["unmatched"])) if notes.get("unmatched") else "facets or similarity"
        results[pair["id"]] = {"answered": answered, "hit": hit, "why": why,
                               "refused": [a.refusal_reason for a in (first, second) if a.refused]}
        print(f"  {pair['id']}: answered {answered}, hit {hit} {why} {results[pair['id']]['refused']}", file=sys.stderr,
              flush=True)
    return results


def report(pairs: list[dict], results: dict, threshold: float | None, show: int) -> None:
    print(f"\nthreshold {threshold if threshold else 'the default'}")
    print(
        "| language | kind | pairs | answered (neither refused) | served from the cache | blocked by: facets / "
        "similarity / unmatched words |"
    )
    print("|---|---|---|---|---|---|")
    words: dict[str, Counter] = defaultdict(Counter)
    for lang in (*LANGUAGES, "all"):
        for kind in KINDS:
            rows = [p for p in pairs if p["kind"] == kind and lang in (p["lang"], "all")]
            if not rows:
                continue
            answered = [p for p in rows if results[p["id"]]["answered"]]
            hits = sum(results[p["id"]]["hit"] for p in answered)
            why = Counter(results[p["id"]]["why"].split(":")[0] for p in answered if not results[p["id"]]["hit"])
            if lang != "all":
                for p in answered:
                    if results[p["id"]]["why"].startswith("unmatched"):
                        words[kind].update(w.strip() for w in results[p["id"]]["why"][10:].split(","))
            rate = f"{hits}/{len(answered)} ({hits / max(1, len(answered)):.0%})"
            print(f"| {lang} | {kind} | {len(rows)} | {len(answered)} | {rate} | "
                  f"{why['facets differ']} / {why['similarity below the threshold']} / {why['unmatched']} |")
    for kind in KINDS:
        print(f"most often unmatched ({kind}): " + ", ".join(f"{w} {c}" for w, c in words[kind].most_common(15)))
    served = [p for p in pairs if p["kind"] == "near-miss" and results[p["id"]]["hit"]]
    for p in served[:show]:
        print(f"  SERVED near miss {p['id']} ({p['form']}): {p['a']!r} -> {p['b']!r}")
    missed = [
        p for p in pairs if p["kind"] == "paraphrase" and results[p["id"]]["answered"] and not results[p["id"]]["hit"]
    ]
    for p in missed[:show]:
        print(f"  missed paraphrase {p['id']}: {p['a']!r} / {p['b']!r}: {results[p['id']]['why']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config")
    parser.add_argument("pairs", help="JSONL pair table (id, lang, kind, form, a, b)")
    parser.add_argument("--threshold", type=float, nargs="*", default=None, help="thresholds (default: the cache's)")
    parser.add_argument("--corpus", help="run every pair through the pipeline over this JSONL corpus (jsonl loader)")
    parser.add_argument(
        "--index", default="results/cache_pairs_index", help="index folder for --corpus (built if missing)"
    )
    parser.add_argument("--limit", type=int, default=None, help="only the first N pairs")
    parser.add_argument("--per-group", type=int, default=None, help="only the first N pairs of each language and kind")
    parser.add_argument(
        "--show", type=int, default=10, help="print this many served near misses and missed paraphrases"
    )
    args = parser.parse_args()
    pairs = [json.loads(line) for line in Path(args.pairs).read_text(encoding="utf-8").splitlines() if line.strip()]
    pairs = pairs[: args.limit]
    if args.per_group:
        pairs = [p for p in pairs if [q["id"] for q in pairs if (q["lang"], q["kind"]) == (p["lang"], p["kind"])]
                 .index(p["id"]) < args.per_group]
    with tempfile.TemporaryDirectory() as tmp:
        if args.corpus:
            for threshold in args.threshold or [None]:
                print(
                    f"pipeline {args.config} over {args.corpus}, {len(pairs)} pairs from {args.pairs}", file=sys.stderr
                )
                report(
                    pairs,
                    through_pipeline(args.config, pairs, args.corpus, args.index, threshold),
                    threshold,
                    args.show,
                )
            return
        cache_text = f'cache={{name: semantic, path: "{Path(tmp) / "pairs.sqlite"}"}}'
        pipeline = Pipeline.from_file(args.config, PluginHost(), [cache_text])
        cache = pipeline.build(pipeline.config.one("cache"))
        print(f"direct: cache {cache.model}, {len(pairs)} pairs from {args.pairs}", file=sys.stderr)
        vectors = {q: cache._vector(q) for p in pairs for q in (p["a"], p["b"])}  # noqa: SLF001 - each question embedded once
        cache._vector = vectors.__getitem__  # noqa: SLF001
        for threshold in args.threshold or [cache.params.threshold]:
            report(pairs, direct(cache, pairs, threshold), threshold, args.show)
            sys.stdout.flush()


if __name__ == "__main__":
    main()
