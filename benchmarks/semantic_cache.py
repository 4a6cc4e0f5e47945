"""Semantic cache: how long a cache hit takes against a miss (and against no cache at all).

Runs the fixed question set twice through a pipeline with `cache: {name: semantic}` (a fresh
cache file): the first pass misses and stores, the second is answered from the cache. A third
run without the cache gives the baseline. With --llm-delay, the generator is the `llm` generator
talking to a loopback OpenAI-compatible stub that waits that many seconds per call (an LLM's
latency, without a model). Prints median and mean milliseconds per question.

    python benchmarks/semantic_cache.py examples/default.yaml examples/questions.jsonl
    python benchmarks/semantic_cache.py examples/default.yaml examples/questions.jsonl --llm-delay 1.5 --limit 10
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from contextlib import ExitStack
from pathlib import Path

from criss_rag.engine import Engine
from criss_rag.pipeline import Pipeline
from criss_rag.plugins import PluginHost
from criss_rag.testing.servers import Failure, OpenAIStubServer


def timed(engine: Engine, questions: list[str]) -> tuple[list[float], list]:
    times, answers = [], []
    for question in questions:
        started = time.perf_counter()
        answers.append(engine.ask(question))
        times.append((time.perf_counter() - started) * 1000)
    return times, answers


def row(label: str, times: list[float], note: str = "") -> str:
    return f"| {label} | {len(times)} | {statistics.median(times):.1f} | {statistics.mean(times):.1f} | {note} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config")
    parser.add_argument("questions", help="JSONL with a `question` field")
    parser.add_argument("--limit", type=int, default=None, help="only the first N questions")
    parser.add_argument(
        "--llm-delay", type=float, default=None, help="use the llm generator on a stub LLM with this delay (s)"
    )
    args = parser.parse_args()

    lines = Path(args.questions).read_text(encoding="utf-8").splitlines()
    questions = [json.loads(line)["question"] for line in lines if line.strip()][: args.limit]
    with ExitStack() as stack:
        overrides: list[str] = []
        label = "extractive generator"
        if args.llm_delay is not None:
            stub = stack.enter_context(OpenAIStubServer(reply="According to the sources, see the first passage [1]."))
            stub.enqueue(*(Failure(delay=args.llm_delay) for _ in range(len(questions) * 3)))
            overrides += [
                f'llms={{gen: {{name: openai-compatible, model: stub, api_base: "{stub.base_url}", max_retries: 0}}}}',
                "generator={name: llm, llm: gen}",
            ]
            label = f"llm generator, stub LLM {args.llm_delay:g} s per call"
        cache_dir = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        host = PluginHost()
        plain = Engine.open(Pipeline.from_file(args.config, host, overrides), build_if_missing=True)
        cached = Engine.open(Pipeline.from_file(args.config, host, [
            *overrides, f'cache={{name: semantic, path: "{cache_dir / "answers.sqlite"}"}}']))
        for engine in (plain, cached):  # warm up (model loading) with a question not in the set
            engine.ask("What is cancer screening?")
        baseline, miss, first = [], [], []
        for question in questions:  # interleaved, so that load on the machine hits both alike
            baseline += timed(plain, [question])[0]
            times, answers = timed(cached, [question])
            miss += times
            first += answers
        cached.pipeline._query_vectors.clear()  # noqa: SLF001 - no remembered question vectors: each hit embeds its question
        hit, again = timed(cached, questions)
    stored = sum(not a.refused for a in first)
    hits = sum(a.cached is not None for a in again)
    print(
        f"{label}; {len(questions)} questions ({stored} answered and stored, the rest refused: refusals are not "
        "stored)",
        file=sys.stderr,
    )
    print("| run | questions | median ms | mean ms | note |\n|---|---|---|---|---|")
    print(row("no cache", baseline))
    print(row("cache miss (lookup + answer + store)", miss))
    print(row("second pass (hits for stored answers)", hit, f"{hits} hits"))
    hit_times = [t for t, a in zip(hit, again, strict=True) if a.cached is not None]
    miss_times = [t for t, a in zip(miss, first, strict=True) if not a.refused]
    if hit_times:
        print(row("cache hit only", hit_times, f"median hit / median answered miss = "
                                              f"{statistics.median(hit_times) / statistics.median(miss_times):.3f}"))


if __name__ == "__main__":
    main()
