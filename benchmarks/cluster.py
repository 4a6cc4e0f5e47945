"""Beyond one machine, with the real servers: FAISS in this process vs a Milvus server, and ingest
on a Ray cluster of 1 vs 2 nodes, all on this machine.

1. ``milvus``: N clustered synthetic 384-d unit vectors and Q queries near them, searched top 10
   by FAISS in this process (exact flat, HNSW) and by the standalone Milvus 2.3 server
   (criss_rag_milvus.standalone: its own process, gRPC over 127.0.0.1; FLAT and HNSW collections),
   unfiltered and with a pushed-down `year >= 2020` filter. Side by side, interleaved repeats:
   p50/p95 ms per query, recall@10 against exact search (numpy over the same filter), and memory:
   each FAISS index's size, this process's RSS, the server process's RSS.
2. ``ray``: the first N notes of the registry corpus ($DATA/registry, one chunk each), all-MiniLM-L6-v2, a flat
   FAISS index: `criss-rag ingest --executor ray --executor-set address=...` against a Ray cluster
   of 1 node and of 2 nodes (criss_rag_ray.local_cluster: 1 CPU each), and a local ingest, each
   into an empty index folder and embedding cache. Wall time, chunks/s, the nodes' peak memory
   (every process of every node), and whether the FAISS files are byte-identical.

    python benchmarks/cluster.py milvus --vectors 20000 --queries 200 --repeats 3
    python benchmarks/cluster.py ray --chunks 512
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from timing import DATA, current_rss_mb, median_of, require, side_by_side, table  # noqa: E402

WORK = Path(tempfile.gettempdir()) / "criss-rag-bench-cluster"
DIM = 384


def rss_of(pids: list[int]) -> float:
    total = 0.0
    for pid in pids:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
        except OSError:
            pass
    return total


def clustered(n: int, q: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    centres = rng.normal(size=(max(16, n // 100), DIM)).astype("float32")
    vectors = centres[rng.integers(0, len(centres), n)] + rng.normal(scale=0.6, size=(n, DIM)).astype("float32")
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    queries = vectors[rng.choice(n, q, replace=False)] + rng.normal(scale=0.05, size=(q, DIM)).astype("float32")
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    years = rng.integers(2004, 2026, size=n)
    return vectors, queries, years


def bench_milvus(args: argparse.Namespace) -> None:
    import faiss
    from pymilvus import DataType, MilvusClient

    from criss_rag_milvus.standalone import StandaloneMilvus

    faiss.omp_set_num_threads(1)  # one query at a time, one thread: what a serving worker per core does
    rng = np.random.default_rng(7)
    vectors, queries, years = clustered(args.vectors, args.queries, rng)
    recent = years >= 2020
    exact = np.argsort(-(queries @ vectors.T), axis=1)[:, :10]
    masked = queries @ vectors.T
    masked[:, ~recent] = -np.inf
    exact_recent = np.argsort(-masked, axis=1)[:, :10]

    flat = faiss.IndexFlatIP(DIM)
    flat.add(vectors)
    hnsw = faiss.IndexHNSWFlat(DIM, 16, faiss.METRIC_INNER_PRODUCT)
    hnsw.hnsw.efConstruction = 200
    hnsw.add(vectors)
    hnsw.hnsw.efSearch = 64
    flat_mb, hnsw_mb = (faiss.serialize_index(index).nbytes / 2**20 for index in (flat, hnsw))
    del masked

    shutil.rmtree(WORK / "milvus", ignore_errors=True)
    server = StandaloneMilvus(WORK / "milvus")
    started = time.perf_counter()
    uri = server.start()
    print(f"milvus server started in {time.perf_counter() - started:.1f} s at {uri} (server PID {server.server_pid})",
          file=sys.stderr)
    idle_mb = rss_of([server.server_pid])
    client = MilvusClient(uri=uri, timeout=120)
    inserts = {}
    try:
        for name, index_type, params in (("flat", "FLAT", {}), ("hnsw", "HNSW", {"M": 16, "efConstruction": 200})):
            schema = client.create_schema(auto_id=False, enable_dynamic_field=False)
            schema.add_field("id", DataType.INT64, is_primary=True)
            schema.add_field("vector", DataType.FLOAT_VECTOR, dim=DIM)
            schema.add_field("year", DataType.INT64)
            client.create_collection(name, schema=schema)
            index = client.prepare_index_params()
            index.add_index(field_name="vector", index_type=index_type, metric_type="IP", params=params)
            started = time.perf_counter()
            for s in range(0, len(vectors), 2000):
                client.insert(name, [{"id": i, "vector": vectors[i].tolist(), "year": int(years[i])}
                                     for i in range(s, min(len(vectors), s + 2000))])
            client.flush(name)
            client.create_index(name, index)
            client.load_collection(name)
            inserts[name] = time.perf_counter() - started
        loaded_mb = rss_of([server.server_pid])

        def milvus(collection: str, expression: str = "", search: dict | None = None):
            def call(i: int):
                return [h["id"] for h in client.search(collection, [queries[i].tolist()], limit=10, filter=expression,
                                                       output_fields=["id"], search_params=search or {})[0]]
            return call

        paths = {
            "faiss flat (in process)": lambda i: flat.search(queries[i : i + 1], 10)[1][0],
            "faiss HNSW M16 ef64 (in process)": lambda i: hnsw.search(queries[i : i + 1], 10)[1][0],
            "milvus server FLAT": milvus("flat"),
            "milvus server HNSW M16 ef64": milvus("hnsw", search={"params": {"ef": 64}}),
            "milvus server HNSW, `year >= 2020` pushed down": milvus("hnsw", "year >= 2020", {"params": {"ef": 64}}),
        }
        inputs = list(range(len(queries)))
        results = side_by_side(paths, inputs, args.repeats)
        rows = []
        for name, call in paths.items():
            truth = exact_recent if "pushed down" in name else exact
            found = [list(call(i)) for i in inputs]
            recall = np.mean([len(set(map(int, f)) & set(map(int, t))) / 10 for f, t in zip(found, truth, strict=True)])
            memory = {"faiss flat (in process)": f"index {flat_mb:.0f}",
                      "faiss HNSW M16 ef64 (in process)": f"index {hnsw_mb:.0f}"}.get(
                name, f"server process {loaded_mb:.0f} (both collections)")
            rows.append(
                [name, median_of(results[name], "p50"), median_of(results[name], "p95"), f"{recall:.3f}", memory]
            )
    finally:
        client.close()
        server.stop()
    print(f"\n{args.vectors} clustered {DIM}-d vectors, {args.queries} queries x {args.repeats} repeats, top 10, one "
          f"query at a time (FAISS on 1 thread); load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs\n")
    print(table(["path", "p50 ms", "p95 ms", "recall@10 vs exact", "memory MB"], rows))
    print(f"\nthis process (both FAISS indexes, the vectors, the queries, pymilvus): RSS {current_rss_mb():.0f} MB")
    print(f"\nmilvus server RSS: {idle_mb:.0f} MB started and empty, {loaded_mb:.0f} MB with both collections loaded; "
          f"insert + flush + index + load: FLAT {inserts['flat']:.1f} s, HNSW {inserts['hnsw']:.1f} s")


# -- ray ---------------------------------------------------------------------------------------

PIPELINE = """\
name: bench-cluster
loader: {name: registry-jsonl, path: corpus.jsonl}
chunker: whole-document
embedding: {name: minilm}
retrievers: [{name: faiss, top_k: 10}]
context: numbered
generator: extractive
"""


def write_case(folder: Path, n: int) -> Path:
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    with open(require(DATA / "registry" / "staging_corpus.jsonl", "the registry corpus"), encoding="utf-8") as source, \
            open(folder / "corpus.jsonl", "w", encoding="utf-8") as out:
        for _, line in zip(range(n), source, strict=False):
            out.write(line)
    (folder / "pipeline.yaml").write_text(PIPELINE, encoding="utf-8")
    return folder / "pipeline.yaml"


def peak_while(pids_of, proc: subprocess.Popen) -> float:
    """Peak total RSS of ``pids_of()`` sampled every 0.5 s until ``proc`` exits."""
    peak = [0.0]

    def sample():
        while proc.poll() is None:
            peak[0] = max(peak[0], rss_of(pids_of()))
            time.sleep(0.5)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    return peak, thread


def bench_ray(args: argparse.Namespace) -> None:
    from criss_rag_ray.local_cluster import LocalRayCluster, _session_pids

    os.environ.update({"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})  # for the nodes' workers too
    cli = str(Path(sys.executable).with_name("criss-rag"))
    rows, files = [], {}
    for case in ("local", "ray, 1 node", "ray, 2 nodes"):
        config = write_case(WORK / case.replace(", ", "-").replace(" ", "_"), args.chunks)
        cluster = None
        command = [cli, "ingest", str(config), "--json"]
        env = dict(os.environ)
        if case != "local":
            nodes = 2 if "2" in case else 1
            cluster = LocalRayCluster(workers=nodes - 1, cpus=1)
            cluster.start()
            command = cluster.command(command + ["--executor", "ray", "--executor-set", f"address={cluster.address}",
                                                 "--executor-set", f"workers={nodes}"])
            env = cluster.env
        try:
            started = time.perf_counter()
            proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            pids = (lambda c=cluster: [p for n in c.nodes for p in _session_pids(n.pid)]) if cluster else (lambda: [])
            peak, sampler = peak_while(pids, proc)
            out, err = proc.communicate(timeout=3600)
            wall = time.perf_counter() - started
            sampler.join()
        finally:
            if cluster is not None:
                cluster.stop()
        if proc.returncode != 0:
            sys.exit(f"{case}: ingest failed:\n{err[-3000:]}")
        report = json.loads(out)
        spread = next((line for line in err.splitlines() if line.startswith("executor ray:")), "")
        files[case] = next(config.parent.rglob("vectors.faiss")).read_bytes()
        rows.append([case, wall, report["chunks"] / wall, f"{peak[0]:.0f}" if cluster else "-",
                     spread.removeprefix("executor ray: ") or "-"])
        print(f"{case}: {wall:.1f} s", file=sys.stderr)
    print(
        f"\ningest of {args.chunks} registry chunks (MiniLM, flat FAISS), each case in an empty index folder and "
        "cache; "
        f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs\n"
    )
    print(
        table(["case", "wall s (driver start to exit)", "chunks/s", "peak RSS of the Ray nodes, MB", "batches"], rows)
    )
    same = len(set(files.values())) == 1
    print(f"\nFAISS files byte-identical across the three: {same}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("what", choices=["milvus", "ray"])
    parser.add_argument("--vectors", type=int, default=20000)
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--chunks", type=int, default=512)
    args = parser.parse_args()
    if args.what == "milvus":
        bench_milvus(args)
    else:
        bench_ray(args)


if __name__ == "__main__":
    main()
