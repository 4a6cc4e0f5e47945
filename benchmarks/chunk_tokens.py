"""Token statistics of a pipeline's loader + chunker, without building any index: documents,
chunks, tokens per chunk (mean, median, p90, max; cl100k, the tokenizer `criss-rag ingest`
reports with), per language when the chunks carry `lang`, and the loader's skipped items.

    python benchmarks/chunk_tokens.py examples/default.yaml
    python benchmarks/chunk_tokens.py examples/default.yaml --set chunker.max_tokens=512
    python benchmarks/chunk_tokens.py examples/registry-manuals.yaml

The Korean system reported mean ~183, median 134 tokens for its `###` sections (its tokenizer is
not stated).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections import defaultdict
from pathlib import Path

from llama_index.core.utils import get_tokenizer

from criss_rag.pipeline import Pipeline
from criss_rag.plugins import PluginHost


def describe(counts: list[int]) -> str:
    ordered = sorted(counts)
    p90 = ordered[min(len(ordered) - 1, int(0.9 * len(ordered)))]
    return (
        f"{len(counts)} chunks; tokens mean {statistics.fmean(counts):.0f}, median {statistics.median(counts):.0f}, "
        f"p90 {p90}, max {ordered[-1]}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("config", type=Path)
    parser.add_argument("--set", dest="overrides", action="append", default=[], help="KEY=VALUE, as in the CLI")
    args = parser.parse_args()
    started = time.perf_counter()
    pipeline = Pipeline.from_file(args.config, PluginHost(strict=True), args.overrides)
    loader = pipeline.build(pipeline.config.one("loader"))
    documents = list(loader.load())
    chunks = pipeline.build(pipeline.config.one("chunker")).chunk(documents)
    encode = get_tokenizer()
    counts = [len(encode(chunk.get_content())) for chunk in chunks]
    by_lang: dict[str, list[int]] = defaultdict(list)
    for chunk, count in zip(chunks, counts, strict=True):
        by_lang[str(chunk.metadata.get("lang", "-"))].append(count)
    print(f"{args.config} ({', '.join(args.overrides) or 'as configured'}): {len(documents)} documents, "
          f"{describe(counts)} ({time.perf_counter() - started:.1f}s)")
    if len(by_lang) > 1:
        for lang, lang_counts in sorted(by_lang.items()):
            print(f"  lang {lang}: {describe(lang_counts)}")
    skipped = getattr(loader, "skipped", [])
    print(f"  skipped by the loader: {len(skipped)}")
    for item, reason in skipped[:10]:
        print(f"    {item}: {reason}")


if __name__ == "__main__":
    main()
