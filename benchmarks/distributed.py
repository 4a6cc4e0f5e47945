"""Beyond one machine, measured on one: Ray ingest vs local ingest, Milvus Lite vs FAISS queries.

1. ``ingest``: the first N notes of the registry corpus ($DATA/registry, one chunk each), all-MiniLM-L6-v2 and
   a flat FAISS index, ingested into empty index folders (no embedding cache) twice: locally, and
   with ``--executor ray`` (a local Ray started by the executor, ``workers`` actors). Prints wall
   times, chunks/s, and checks that both FAISS files are byte-identical.
2. ``latency``: the same chunks' vectors (from the embedding cache of step 1, so nothing is
   re-embedded) in a flat FAISS index and a Milvus Lite collection with the diagnosis-year filter
   pushed down. The registry dev questions that name a diagnosis year (query vectors computed once,
   so only the search is timed) through each retriever's ``retrieve()``: p50/p95 per query, unfiltered and with the
   question's diagnosis year (FAISS: a pool of 100, then the year filter in Python; Milvus: the
   year in the search expression). Then raw search calls on N synthetic 384-d unit vectors.

    python benchmarks/distributed.py ingest --chunks 2400 --workers 2
    python benchmarks/distributed.py ingest --chunks 2400 --workers 2 --torch-threads 1
    python benchmarks/distributed.py latency --chunks 2400 --synthetic 20000
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

from criss_rag.engine import Engine  # noqa: E402
from criss_rag.indexing.executors import open_executor  # noqa: E402
from criss_rag.indexing.ingestion import ingest  # noqa: E402
from criss_rag.pipeline import Pipeline  # noqa: E402
from criss_rag.plugins import PluginHost  # noqa: E402
from criss_rag.types import Query  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
# $DATA: the folder of public data sets (docs/benchmarks.md, Data)
DATA = Path(os.environ.get("DATA") or ROOT.parent / "shared" / "data") / "registry"
WORK = Path(tempfile.gettempdir()) / "criss-rag-bench-distributed"
PIPELINE = """\
name: bench-distributed
loader: {name: registry-jsonl, path: corpus.jsonl}
chunker: whole-document
embedding: {name: minilm}
retrievers: RETRIEVERS
context: numbered
generator: extractive
"""
FAISS = "{name: faiss, top_k: 10}"
MILVUS = ("{name: milvus, top_k: 10, filters: [{request_key: diagnosis_year, field: applicable_years, "
          "match: year_range}]}")


def write_corpus(folder: Path, n: int) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    with open(DATA / "staging_corpus.jsonl", encoding="utf-8") as source, \
            open(folder / "corpus.jsonl", "w", encoding="utf-8") as out:
        for _, line in zip(range(n), source, strict=False):
            out.write(line)


def pipeline(folder: Path, host: PluginHost, retrievers: str, *, progress: bool = False) -> Pipeline:
    (folder / "pipeline.yaml").write_text(PIPELINE.replace("RETRIEVERS", retrievers), encoding="utf-8")
    return Pipeline.from_file(folder / "pipeline.yaml", host, show_progress=progress)


def bench_ingest(args: argparse.Namespace, host: PluginHost) -> None:
    times = {}
    if args.torch_threads:  # the local run's PyTorch threads (Ray gives each worker one)
        import torch

        torch.set_num_threads(args.torch_threads)
    for mode in ("local", "ray"):
        folder = WORK / f"ingest-{mode}"
        shutil.rmtree(folder, ignore_errors=True)
        write_corpus(folder, args.chunks)
        p = pipeline(folder, host, f"[{FAISS}]", progress=True)
        started = time.perf_counter()
        executor = open_executor(p, "ray", [f"workers={args.workers}", "num_cpus=2"]) if mode == "ray" else None
        try:
            report = ingest(p, executor=executor)
        finally:
            if executor is not None:
                executor.close()
        times[mode] = (time.perf_counter() - started, report)
    (local_s, local), (ray_s, on_ray) = times["local"], times["ray"]
    same = all(
        (WORK / f"ingest-{m}" / ".criss_rag" / "index" / r.key / "retrievers" / "faiss" / "vectors.faiss").read_bytes()
        == (
            WORK / "ingest-local" / ".criss_rag" / "index" / local.key / "retrievers" / "faiss" / "vectors.faiss"
        ).read_bytes()
        for m, r in (("ray", on_ray),)
    )
    print(f"\n| ingest of {local.chunks} chunks (MiniLM, flat FAISS) | wall s | chunks/s |")
    print("|---|---|---|")
    print(f"| local (one process) | {local_s:.1f} | {local.chunks / local_s:.1f} |")
    print(
        f"| `--executor ray`, {args.workers} workers, Ray started by the executor | {ray_s:.1f} | "
        f"{on_ray.chunks / ray_s:.1f} |"
    )
    print(f"\nray / local = {ray_s / local_s:.2f}x; FAISS files identical: {same}; "
          f"load average at the end: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


def timed(fn, repeats: int) -> tuple[float, float]:
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - started) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(0.95 * (len(samples) - 1))]


def bench_latency(args: argparse.Namespace, host: PluginHost) -> None:
    folder = WORK / "ingest-local"
    if not (folder / "corpus.jsonl").exists():
        write_corpus(folder, args.chunks)
    p = pipeline(folder, host, f"[{FAISS}, {MILVUS}]\nfusion: rrf")
    started = time.perf_counter()
    ingest(p)
    print(f"ingest with faiss + milvus (vectors from the cache: {p.embedded_last} embedded): "
          f"{time.perf_counter() - started:.1f} s")
    engine = Engine.open(p)
    (_, faiss), (_, milvus) = engine.retrievers
    questions = [q for line in open(DATA / "questions_dev.jsonl", encoding="utf-8")
                 if "year_of_diagnosis" in (q := json.loads(line))["inputs"]]  # the questions with a year
    embedding = p.embedding(requested_by="bench")
    vectors = {q["question"]: embedding.get_query_embedding(q["question"]) for q in questions}
    object.__setattr__(embedding, "get_query_embedding", lambda text: vectors[text])  # time the search only

    def year_of(q):
        return q["inputs"]["year_of_diagnosis"]

    def faiss_post(q):
        hits = faiss.retrieve(Query(q["question"]), 100)
        return [h for h in hits if _in_range(h.node.metadata, year_of(q))][:10]

    rows = [
        ("faiss flat, top 10", lambda q: faiss.retrieve(Query(q["question"]), 10)),
        ("faiss flat, pool 100 + year filter in Python", faiss_post),
        ("milvus lite, top 10", lambda q: milvus.retrieve(Query(q["question"]), 10)),
        ("milvus lite, year pushed down, top 10",
         lambda q: milvus.retrieve(Query(q["question"], filters={"diagnosis_year": year_of(q)}), 10)),
    ]
    print(
        f"\n| {args.chunks} registry chunks, {len(questions)} dev questions x {args.repeats} | p50 ms | p95 ms | "
        "results kept |"
    )
    print("|---|---|---|---|")
    for label, fn in rows:
        samples = []
        kept = []
        for _ in range(args.repeats):
            for q in questions:
                started = time.perf_counter()
                kept.append(len(fn(q)))
                samples.append((time.perf_counter() - started) * 1000)
        samples.sort()
        print(f"| {label} | {statistics.median(samples):.2f} | {samples[int(0.95 * (len(samples) - 1))]:.2f} "
              f"| {statistics.mean(kept):.1f} |")
    milvus.close()
    if args.synthetic:
        synthetic(args.synthetic, args.repeats)


def _in_range(meta: dict, year: int) -> bool:
    start, end = meta.get("applicable_years_from"), meta.get("applicable_years_to")
    return start is None or (int(start) <= year and (end in (None, "", 9998, 9999) or year <= int(end)))


def synthetic(n: int, repeats: int, dim: int = 384) -> None:
    import faiss
    from pymilvus import DataType, MilvusClient

    rng = np.random.default_rng(7)
    vectors = rng.normal(size=(n, dim)).astype("float32")
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    years = rng.integers(2004, 2026, size=n)
    queries = vectors[rng.choice(n, 50, replace=False)] + rng.normal(scale=0.05, size=(50, dim)).astype("float32")
    flat = faiss.IndexFlatIP(dim)
    flat.add(vectors)
    path = WORK / "synthetic.db"
    shutil.rmtree(path, ignore_errors=True)
    client = MilvusClient(str(path))
    schema = client.create_schema(auto_id=False, enable_dynamic_field=False)
    schema.add_field("id", DataType.INT64, is_primary=True)
    schema.add_field("vector", DataType.FLOAT_VECTOR, dim=dim)
    schema.add_field("year", DataType.INT64)
    client.create_collection("synthetic", schema=schema)
    index = client.prepare_index_params()
    index.add_index(field_name="vector", index_type="AUTOINDEX", metric_type="COSINE")
    client.create_index("synthetic", index, sync=False)
    started = time.perf_counter()
    for s in range(0, n, 2000):
        client.insert("synthetic", [{"id": i, "vector": vectors[i].tolist(), "year": int(years[i])}
                                    for i in range(s, min(n, s + 2000))])
    client.flush("synthetic")
    client.load_collection("synthetic")
    insert_s = time.perf_counter() - started
    print(f"\n| {n} synthetic {dim}-d vectors, raw search, top 10 | p50 ms | p95 ms |")
    print("|---|---|---|")
    qi = iter(range(10**9))
    rows = [
        ("faiss IndexFlatIP", lambda: flat.search(queries[next(qi) % 50:][:1], 10)),
        ("milvus lite search", lambda: client.search("synthetic", [queries[next(qi) % 50].tolist()], limit=10,
                                                      output_fields=["id"])),
        ("milvus lite search, `year >= 2020` pushed down",
         lambda: client.search("synthetic", [queries[next(qi) % 50].tolist()], limit=10, filter="year >= 2020",
                               output_fields=["id"])),
    ]
    for label, fn in rows:
        p50, p95 = timed(fn, repeats * 50)
        print(f"| {label} | {p50:.2f} | {p95:.2f} |")
    print(f"\nmilvus lite insert + flush of {n} vectors: {insert_s:.1f} s")
    client.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["ingest", "latency", "all"])
    parser.add_argument("--chunks", type=int, default=2400)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--synthetic", type=int, default=20000, help="synthetic vectors for the raw search (0 = skip)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--torch-threads", type=int, default=0, help="PyTorch threads of the local ingest (0 = its default)"
    )
    args = parser.parse_args()
    if not DATA.is_dir():
        sys.exit(f"needs the registry data at {DATA}")
    host = PluginHost()
    if args.what in ("ingest", "all"):
        bench_ingest(args, host)
    if args.what in ("latency", "all"):
        bench_latency(args, host)


if __name__ == "__main__":
    main()
