"""Ingest throughput: `criss-rag ingest` end to end (in-process) vs the embedding model's raw
``encode`` on the same chunk texts with the same batch size; and the memory an ingest needs.

Throughput: the first ``--documents`` MedQuAD passages, the default pipeline (sections chunker,
BM25 + FAISS over all-MiniLM-L6-v2). Each repeat runs the raw ``SentenceTransformer.encode`` over
the texts the faiss retriever embeds and a full ``ingest(..., force=True)`` into an empty index
folder (so nothing comes from the embedding cache), in alternating order; the model is loaded
once, before timing. The table gives the median over repeats.

Memory (``--memory``): fresh processes ingest the corpus replicated to several sizes with a
cheap hash embedding instead of MiniLM (the model's own memory is a constant, reported apart),
and report peak RSS above the process's start-up RSS; a straight line through those points
gives the memory per 100k chunks.

    python benchmarks/ingest_throughput.py [--documents 100] [--repeats 3] [--memory 2000 8000]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from timing import DATA, ROOT, current_rss_mb, peak_rss_mb, require, table

CORPUS = DATA / "medquad-cancergov" / "corpus.jsonl"


def write_corpus(path: Path, documents: int, copies: int = 1) -> None:
    records = [json.loads(line) for line in require(CORPUS, "MedQuAD corpus").open(encoding="utf-8")][:documents]
    with path.open("w", encoding="utf-8") as out:
        for copy in range(copies):
            for record in records:
                out.write(json.dumps({**record, "doc_id": f"{record['doc_id']}-{copy}"}) + "\n")


def pipeline_for(corpus: Path, index_dir: Path, extra: list[str] | None = None):  # noqa: ANN201
    from criss_rag.pipeline import Pipeline
    from criss_rag.plugins import PluginHost

    overrides = [f"loader={{name: jsonl, path: {json.dumps(str(corpus))}}}", f"index.dir={json.dumps(str(index_dir))}",
                 *(extra or [])]
    return Pipeline.from_file(ROOT / "examples" / "default.yaml", PluginHost(), overrides)


def throughput(documents: int, repeats: int) -> None:
    from llama_index.core.schema import MetadataMode

    from criss_rag.indexing.ingestion import ingest, load_documents

    with tempfile.TemporaryDirectory(prefix="criss-rag-ingest-") as tmp:
        corpus, index_dir = Path(tmp) / "corpus.jsonl", Path(tmp) / "index"
        write_corpus(corpus, documents)
        pipeline = pipeline_for(corpus, index_dir)
        chunker = pipeline.build(pipeline.config.one("chunker"))
        texts = [c.get_content(MetadataMode.EMBED) for c in chunker.chunk(load_documents(pipeline)[0])]
        embedding = pipeline.embedding(requested_by="benchmark")
        started = time.perf_counter()
        model = embedding.model
        load_s = time.perf_counter() - started
        model.encode(texts[:64], batch_size=embedding.embed_batch_size)  # warm-up

        def raw() -> float:
            started = time.perf_counter()
            model.encode(texts, batch_size=embedding.embed_batch_size, normalize_embeddings=True, convert_to_numpy=True)
            return time.perf_counter() - started

        def end_to_end() -> float:
            shutil.rmtree(index_dir, ignore_errors=True)  # no cached embeddings, no existing index
            started = time.perf_counter()
            report = ingest(pipeline, force=True)
            seconds = time.perf_counter() - started
            assert report.chunks == len(texts), (report.chunks, len(texts))
            return seconds

        runs: dict[str, list[float]] = {"raw": [], "ingest": []}
        for repeat in range(repeats):
            for name, run in ((("raw", raw), ("ingest", end_to_end)) if repeat % 2 == 0
                              else (("ingest", end_to_end), ("raw", raw))):
                runs[name].append(run())
            print(f"  repeat {repeat + 1}/{repeats}: raw {runs['raw'][-1]:.1f}s, ingest {runs['ingest'][-1]:.1f}s",
                  file=sys.stderr)
        n = len(texts)
        raw_rate = statistics.median(n / s for s in runs["raw"])
        ingest_rate = statistics.median(n / s for s in runs["ingest"])
        share = statistics.median(r / i for r, i in zip(runs["raw"], runs["ingest"], strict=True))
        print(
            f"\n{documents} MedQuAD passages -> {n} chunks, batch size {embedding.embed_batch_size}, "
            f"{repeats} repeats (median); MiniLM load {load_s:.1f}s (not counted); peak RSS {peak_rss_mb():,.0f} MB\n"
        )
        print(table(["path", "chunks/s", "share of raw encode speed"],
                    [("raw SentenceTransformer.encode", f"{raw_rate:.1f}", "100%"),
                     ("criss-rag ingest, end to end", f"{ingest_rate:.1f}", f"{share:.0%}")]))


def memory_point(copies: int, documents: int) -> None:
    """In a fresh process: ingest ``copies`` x the corpus with a hash embedding; print RSS figures."""
    from criss_rag.indexing.ingestion import ingest

    with tempfile.TemporaryDirectory(prefix="criss-rag-ingest-mem-") as tmp:
        corpus, index_dir = Path(tmp) / "corpus.jsonl", Path(tmp) / "index"
        write_corpus(corpus, documents, copies)
        from criss_rag.pipeline import Pipeline
        from criss_rag.testing import plugin_host

        host = plugin_host(entry_points=True)
        overrides = [
            f"loader={{name: jsonl, path: {json.dumps(str(corpus))}}}",
            f"index.dir={json.dumps(str(index_dir))}",
            "embedding={name: fake-hash}",
        ]
        pipeline = Pipeline.from_file(ROOT / "examples" / "default.yaml", host, overrides)
        baseline = current_rss_mb()
        started = time.perf_counter()
        report = ingest(pipeline)
        print(json.dumps({"chunks": report.chunks, "baseline_mb": baseline, "peak_mb": peak_rss_mb(),
                          "seconds": time.perf_counter() - started}))


def memory(sizes: list[int]) -> None:
    documents = sum(1 for _ in require(CORPUS, "MedQuAD corpus").open(encoding="utf-8"))
    points = []
    for target in sizes:
        copies = max(1, round(target / (documents * 3.8)))  # ~3.8 chunks per passage
        result = subprocess.run([sys.executable, __file__, "--memory-point", str(copies)],
                                capture_output=True, text=True, check=True)
        point = json.loads(result.stdout.strip().splitlines()[-1])
        points.append(point)
        print(f"  {point}", file=sys.stderr)
    rows = [(f"{p['chunks']:,}", f"{p['baseline_mb']:,.0f}", f"{p['peak_mb']:,.0f}",
             f"{p['peak_mb'] - p['baseline_mb']:,.0f}", f"{p['chunks'] / p['seconds']:,.0f}") for p in points]
    print("\nIngest memory with a hash embedding (no model), fresh process per size:\n")
    print(table(["chunks", "RSS at start MB", "peak RSS MB", "ingest's share MB", "chunks/s without a model"], rows))
    if len(points) >= 2:
        (x0, y0), (x1, y1) = [(p["chunks"], p["peak_mb"] - p["baseline_mb"]) for p in (points[0], points[-1])]
        slope = (y1 - y0) / (x1 - x0)
        print(f"\nslope {slope * 100_000:,.0f} MB per 100k chunks (+{y0 - slope * x0:,.0f} MB fixed), "
              f"from the {points[0]['chunks']:,} and {points[-1]['chunks']:,} chunk runs")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--documents", type=int, default=100, help="MedQuAD passages to ingest (default 100; 0: skip)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--memory", type=int, nargs="*", help="also measure ingest memory at about these chunk counts")
    parser.add_argument("--memory-point", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_point:
        memory_point(args.memory_point, sum(1 for _ in CORPUS.open(encoding="utf-8")))
        return
    if args.documents:
        throughput(args.documents, args.repeats)
    if args.memory:
        memory(args.memory)


if __name__ == "__main__":
    main()
