"""Retrieval latency vs corpus size: criss_rag's faiss retriever (flat, HNSW, IVF, IVF-PQ, built and
loaded by its own code with its default params) and bm25 retriever at 10k, 100k and 1M chunks.

Dense part: synthetic unit vectors of MiniLM's dimension (384) from a clustered distribution, so
that approximate search is not judged on structureless noise: one topic cluster per 1,000 chunks,
each a random centre plus a random 16-dimensional subspace (the spread within a topic) plus small
isotropic noise, then L2-normalised. Queries are fresh draws from the same mixture. Recall@10 of every approximate
index is measured against exact (flat) search on the same vectors.

Lexical part: synthetic chunks whose words are drawn from the MedQuAD corpus vocabulary with the
corpus's word frequencies (80-250 words each), queried with the MedQuAD dev questions.

Memory: ``--serve`` runs in a fresh process that only loads one built index with the faiss
retriever (optionally memory-mapped) and queries it, then prints its peak RSS.

    python benchmarks/scale.py                       # 10k and 100k, every index type
    python benchmarks/scale.py --sizes 1000000 --types flat ivf-pq/pq_m=48 ivf-pq --lexical
        # 1M; HNSW at 1M (--types hnsw) takes long to build on 2 cores; TYPE/KEY=VALUE sets params
    python benchmarks/scale.py --lexical 10000 100000 --sizes        # bm25 only
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from timing import DATA, percentile, require, rss_breakdown_mb, table

from criss_rag.types import Query

DIM = 384
PER_CLUSTER = 1000  # chunks per topic cluster, at every corpus size
SUBSPACE = 16
TOP_K = 10


def clustered_vectors(n: int, clusters: int, seed: int) -> np.ndarray:
    """``n`` unit vectors from a mixture of ``clusters`` topics (the mixture is fixed per cluster
    count; ``seed`` picks the draws). A topic is a random unit centre, a random 16-dimensional
    subspace around it (spread of norm ~0.5) and isotropic noise (norm ~0.1)."""
    mixture = np.random.default_rng(clusters)
    centres = mixture.standard_normal((clusters, DIM), dtype=np.float32)
    centres /= np.linalg.norm(centres, axis=1, keepdims=True)
    bases = mixture.standard_normal((clusters, SUBSPACE, DIM), dtype=np.float32) * np.float32(
        0.5 / np.sqrt(SUBSPACE * DIM)
    )
    rng = np.random.default_rng(seed)
    out = np.empty((n, DIM), dtype=np.float32)
    for start in range(0, n, 50_000):
        m = min(50_000, n - start)
        cluster = rng.integers(0, clusters, m)
        latent = rng.standard_normal((m, SUBSPACE), dtype=np.float32)
        block = centres[cluster] + np.einsum("ms,msd->md", latent, bases[cluster])
        block += rng.standard_normal((m, DIM), dtype=np.float32) * np.float32(0.1 / np.sqrt(DIM))
        out[start:start + m] = block / np.linalg.norm(block, axis=1, keepdims=True)
    return out


def clusters_for(n: int) -> int:
    return max(10, n // PER_CLUSTER)


class _Row:
    """The two things the faiss retriever's build reads from a node."""

    __slots__ = ("node_id",)

    def __init__(self, node_id: str) -> None:
        self.node_id = node_id

    def get_content(self, metadata_mode: Any = None) -> str:
        return ""


class _Vectors:
    """A ComponentContext stand-in: the precomputed vectors instead of an embedding model."""

    def __init__(self, corpus: np.ndarray | None, queries: dict[str, np.ndarray]) -> None:
        self.corpus, self.show_progress = corpus, False
        self._queries = queries

    def embedding(self) -> Any:
        from llama_index.core.embeddings import MockEmbedding

        lookup = self._queries

        class Lookup(MockEmbedding):
            def _get_query_embedding(self, query: str) -> list[float]:
                return lookup[query].tolist()

        embedding = Lookup(embed_dim=DIM)
        embedding.model_name = "synthetic"
        return embedding

    def embed_query(self, text: str, spec: Any = None) -> np.ndarray:
        return self._queries[text]

    def embed_documents(self, texts: Any) -> np.ndarray:
        assert self.corpus is not None and len(texts) == len(self.corpus)
        return self.corpus

    def analyzer(self, spec: Any) -> Any:
        from criss_rag_basic.analyzers import StandardAnalyzer

        return StandardAnalyzer(StandardAnalyzer.Params(), self)


class _Docstore:
    """Hits resolve to one shared node: the docstore is not what this benchmark measures."""

    def __init__(self) -> None:
        from llama_index.core.schema import TextNode

        self.node = TextNode(text="synthetic", id_="synthetic")

    def get_node(self, node_id: str) -> Any:
        return self.node


def faiss_retriever(index_type: str, corpus: np.ndarray | None, queries: dict[str, np.ndarray], **params: Any) -> Any:
    from criss_rag_faiss.retriever import FaissDense

    return FaissDense(FaissDense.Params(index_type=index_type, **params), _Vectors(corpus, queries))


def variant(spec: str) -> tuple[str, dict[str, Any]]:
    """``ivf-pq`` or ``ivf-pq/pq_m=192,nprobe=32``: an index type and faiss retriever params."""
    index_type, _, extra = spec.partition("/")
    params = {key: int(value) for key, value in (item.split("=") for item in extra.split(",") if item)}
    return index_type, params


def build_dense(spec: str, corpus: np.ndarray, directory: Path) -> float:
    directory.mkdir(parents=True, exist_ok=True)
    index_type, params = variant(spec)
    started = time.perf_counter()
    faiss_retriever(index_type, corpus, {}, **params).build([_Row(f"n{i}") for i in range(len(corpus))], directory)
    return time.perf_counter() - started


def time_queries(retrieve: Any, questions: list[str], repeats: int) -> tuple[list[float], list[list[str]]]:
    """Per-query ms (best of ``repeats`` per query, to shed other processes' bursts) and the hits."""
    found = [retrieve(q) for q in questions[:10]]  # warm-up
    best = [float("inf")] * len(questions)
    for _ in range(repeats):
        found = []
        for i, question in enumerate(questions):
            started = time.perf_counter()
            found.append(retrieve(question))
            best[i] = min(best[i], (time.perf_counter() - started) * 1000)
    return best, found


def dense_rows(n: int, types: list[str], n_queries: int, repeats: int, workdir: Path, mmap: bool) -> list[list[Any]]:
    import faiss

    print(f"[{n:,} vectors] generating", file=sys.stderr)
    corpus = clustered_vectors(n, clusters_for(n), seed=1)
    query_vectors = clustered_vectors(n_queries, clusters_for(n), seed=2)
    names = [f"q{i}" for i in range(n_queries)]
    lookup = dict(zip(names, query_vectors, strict=True))
    exact = faiss.IndexFlatIP(DIM)
    exact.add(corpus)
    _, truth = exact.search(query_vectors, TOP_K)
    del exact
    rows = []
    for spec in types:
        directory = workdir / f"{spec.replace('/', '_')}-{n}"
        print(f"[{n:,} vectors] building {spec}", file=sys.stderr)
        seconds = build_dense(spec, corpus, directory)
        index_type, params = variant(spec)
        retriever = faiss_retriever(index_type, None, lookup, mmap=mmap, **params)
        retriever.load(directory, _Docstore())
        ms, _ = time_queries(lambda q, retriever=retriever: retriever.retrieve(Query(q), TOP_K), names, repeats)
        _, found = retriever._index.search(query_vectors, TOP_K)  # noqa: SLF001 - ids for recall
        recall = float(np.mean([len(set(f) & set(t)) / TOP_K for f, t in zip(found, truth, strict=True)]))
        size_mb = (directory / "vectors.faiss").stat().st_size / 2**20
        rows.append([f"{n:,}", spec, percentile(ms, 50), percentile(ms, 95), round(1000 / percentile(ms, 50)),
                     f"{recall:.3f}", f"{size_mb:,.0f}", f"{seconds:.0f}"])
        print(f"  {rows[-1]}", file=sys.stderr)
        del retriever
    return rows


# -- lexical ----------------------------------------------------------------------------------------

def vocabulary() -> tuple[list[str], np.ndarray]:
    counts: collections.Counter[str] = collections.Counter()
    for line in require(DATA / "medquad-cancergov" / "corpus.jsonl", "MedQuAD corpus").open(encoding="utf-8"):
        counts.update(re.findall(r"[a-z0-9]+", json.loads(line)["text"].lower()))
    words = list(counts)
    freq = np.array([counts[w] for w in words], dtype=np.float64)
    return words, freq / freq.sum()


def synthetic_nodes(n: int) -> list[Any]:
    from llama_index.core.schema import TextNode

    words, probability = vocabulary()
    rng = np.random.default_rng(3)
    lengths = rng.integers(80, 251, n)
    draws = rng.choice(len(words), size=int(lengths.sum()), p=probability)
    nodes, start = [], 0
    for i, length in enumerate(lengths):
        text = " ".join(words[w] for w in draws[start:start + length])
        nodes.append(TextNode(text=text, id_=f"n{i}", metadata={"doc_id": f"d{i}"}))
        start += length
    return nodes


def lexical_rows(n: int, n_queries: int, repeats: int, workdir: Path) -> list[list[Any]]:
    from criss_rag_bm25.retriever import BM25

    questions = [
        json.loads(line)["question"]
        for line in require(DATA / "medquad-cancergov" / "questions_dev.jsonl", "MedQuAD questions").open(
            encoding="utf-8"
        )
    ]
    questions = questions[:n_queries]
    print(f"[{n:,} texts] generating", file=sys.stderr)
    nodes = synthetic_nodes(n)
    directory = workdir / f"bm25-{n}"
    directory.mkdir(parents=True, exist_ok=True)
    context = _Vectors(None, {})
    started = time.perf_counter()
    BM25(BM25.Params(), context).build(nodes, directory)
    seconds = time.perf_counter() - started
    del nodes
    retriever = BM25(BM25.Params(), context)
    retriever.load(directory, _Docstore())
    ms, _ = time_queries(lambda q: retriever.retrieve(Query(q), TOP_K), questions, repeats)
    size_mb = sum(p.stat().st_size for p in directory.iterdir()) / 2**20
    return [[f"{n:,}", "bm25", percentile(ms, 50), percentile(ms, 95), round(1000 / percentile(ms, 50)), "-",
             f"{size_mb:,.0f}", f"{seconds:.0f}"]]


# -- memory of a serving process ------------------------------------------------------------------

def serve(directory: Path, spec: str, mmap: bool, n_queries: int, n: int) -> None:
    """Fresh process: import, load one index with the faiss retriever, query it; print RSS figures."""
    import faiss  # noqa: F401 - imported before the baseline: the baseline includes the libraries
    from llama_index.vector_stores.faiss import FaissVectorStore  # noqa: F401

    query_vectors = clustered_vectors(n_queries, clusters_for(n), seed=2)
    lookup = {f"q{i}": v for i, v in enumerate(query_vectors)}
    index_type, params = variant(spec)
    retriever = faiss_retriever(index_type, None, lookup, mmap=mmap, **params)
    baseline = rss_breakdown_mb()
    started = time.perf_counter()
    retriever.load(directory, _Docstore())
    load_s = time.perf_counter() - started
    for name in lookup:
        retriever.retrieve(Query(name), TOP_K)
    after = rss_breakdown_mb()
    print(
        json.dumps(
            {
                "anon_mb": after["RssAnon"] - baseline["RssAnon"],
                "file_mb": after["RssFile"] - baseline["RssFile"],
                "process_anon_mb": after["RssAnon"],
                "load_s": load_s,
            }
        )
    )


def serve_rows(workdir: Path, sizes: list[int], types: list[str], n_queries: int) -> list[list[Any]]:
    rows = []
    for n in sizes:
        for index_type in types:
            directory = workdir / f"{index_type.replace('/', '_')}-{n}"
            if not directory.exists():
                continue
            for mmap in (False, True):
                command = [sys.executable, __file__, "--serve", str(directory), "--serve-type", index_type,
                           "--queries", str(n_queries), "--sizes", str(n), *(["--mmap"] if mmap else [])]
                result = json.loads(subprocess.run(command, capture_output=True, text=True, check=True).stdout)
                rows.append([f"{n:,}", index_type, "yes" if mmap else "no", f"{result['process_anon_mb']:,.0f}",
                             f"{result['anon_mb']:,.0f}", f"{result['file_mb']:,.0f}", f"{result['load_s']:.2f}"])
                print(f"  {rows[-1]}", file=sys.stderr)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[10_000, 100_000], help="dense corpus sizes")
    parser.add_argument("--types", nargs="*", default=["flat", "hnsw", "ivf", "ivf-pq/pq_m=48", "ivf-pq"],
                        help="index types, optionally with faiss retriever params: ivf-pq/pq_m=192,nprobe=32")
    parser.add_argument("--lexical", type=int, nargs="*", default=[10_000, 100_000], help="bm25 corpus sizes")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3, help="each query's time is its best of this many")
    parser.add_argument("--workdir", type=Path, help="keep the built indexes here (default: a temporary folder)")
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--serve-type", help=argparse.SUPPRESS)
    parser.add_argument("--mmap", action="store_true", help="load indexes memory-mapped for the latency runs too")
    parser.add_argument("--threads", type=int, default=1,
                        help="FAISS (OpenMP) threads per search (default 1: see docs/benchmarks.md, contention)")
    args = parser.parse_args()
    import faiss

    faiss.omp_set_num_threads(args.threads)
    if args.serve:
        serve(args.serve, args.serve_type, args.mmap, args.queries, args.sizes[0])
        return
    with tempfile.TemporaryDirectory(prefix="criss-rag-scale-") as tmp:
        workdir = args.workdir or Path(tmp)
        rows = [
            row for n in args.sizes for row in dense_rows(n, args.types, args.queries, args.repeats, workdir, args.mmap)
        ]
        rows += [row for n in args.lexical for row in lexical_rows(n, args.queries, args.repeats, workdir)]
        memory = serve_rows(workdir, args.sizes, args.types, args.queries)
    print(
        f"\n{args.queries} queries, top-{TOP_K}, each query's best of {args.repeats}, {args.threads} FAISS thread(s); "
        "default params of each retriever\n"
    )
    print(table(["chunks", "index", "p50 ms", "p95 ms", "queries/s (1/p50)", "recall@10 vs flat", "file MB",
                 "build s"], rows))
    if memory:
        print("\nFresh process that loads one index with the faiss retriever and answers the queries:\n")
        print(table(["chunks", "index", "mmap", "process private MB", "index: private MB",
                     "index: mapped file pages MB", "load s"], memory))


if __name__ == "__main__":
    main()
