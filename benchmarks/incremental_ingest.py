"""Whole vs incremental ingest: how long `criss-rag ingest` takes to index a corpus from scratch,
to find nothing changed, and, after 1% of the documents changed, to update the index
incrementally or to rebuild it whole (`--force` on a copy of the same index and embedding cache:
what every corpus change cost before incremental re-indexing; both embed the same changed text).

The pipeline is `examples/default.yaml` (BM25 + FAISS over all-MiniLM-L6-v2, sections chunker)
with its loader pointed at a JSONL corpus (default: MedQuAD cancer.gov, 729 documents, from
$DATA, the folder of public data sets). Everything is written under a fresh temporary folder, so the embedding cache
starts cold. Each round changes a different 1% of the documents (one sentence appended, with a
code word of the document's own) and ingests twice: incrementally, and whole with `--force` into
a copy of the same index and embedding cache. The two indexes must then answer alike: every
retriever's top 10 (ids and scores) is compared for each changed document's code word and 20 dev
questions.

    python benchmarks/incremental_ingest.py                                  # MedQuAD, 1% changed, 3 rounds
    python benchmarks/incremental_ingest.py --change 0.05 --set retrievers.faiss.index_type=hnsw
    python benchmarks/incremental_ingest.py --corpus $DATA/registry/staging_corpus.jsonl --loader registry-jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

from criss_rag.engine import Engine
from criss_rag.indexing.ingest_report import IngestReport
from criss_rag.indexing.ingestion import ingest
from criss_rag.pipeline import Pipeline
from criss_rag.plugins import PluginHost
from criss_rag.types import Query

ROOT = Path(__file__).resolve().parents[1]
# $DATA: the folder of public data sets (docs/benchmarks.md, Data)
DATA = Path(os.environ.get("DATA") or ROOT.parent / "shared" / "data") / "medquad-cancergov" / "corpus.jsonl"
QUESTIONS = DATA.parent / "questions_dev.jsonl"


def lines(path: Path) -> list[str]:
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def pipeline(host: PluginHost, corpus: Path, index_dir: Path, loader: str, overrides: list[str]) -> Pipeline:
    sets = [f"loader={{name: {loader}, path: {json.dumps(str(corpus))}}}", f"index.dir={json.dumps(str(index_dir))}",
            *overrides]
    return Pipeline.from_file(ROOT / "examples" / "default.yaml", host, sets)


def marker(n: int) -> str:
    """A made-up word, unique to the n-th changed document."""
    return "qz" + "".join("bcdfghjk"[int(d)] if d < "8" else "lm"[int(d) - 8] for d in str(n)) + "xv"


def change_documents(source: Path, target: Path, share: float, round_: int) -> list[str]:
    """Write ``target`` = ``source`` with a sentence appended to every n-th document's text (a
    different set of documents each round, the earlier rounds' changes kept); returns the ids
    changed in this round."""
    step = max(1, round(1 / share))
    changed = []
    with open(target, "w", encoding="utf-8") as out:
        for i, line in enumerate(lines(source)):
            record = json.loads(line)
            for r in range(round_ + 1):
                if i % step == r % step:
                    record["text"] = f"{record['text']} Benchmark review marker {marker(i)}."
                    if r == round_:
                        changed.append(str(record.get("doc_id") or record.get("id") or i))
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return changed


def top_ids(engine: Engine, question: str) -> dict[str, list[tuple[str, float]]]:
    return {cc.label: [(n.node.node_id, round(n.score or 0.0, 4)) for n in retriever.retrieve(Query(question), 10)]
            for cc, retriever in engine.retrievers}


def row(label: str, report: IngestReport) -> str:
    diff = report.diff
    retrievers = ", ".join(f"{k} {v}" for k, v in report.retrievers.items())
    return (
        f"| {label} | {report.seconds:.1f} | {diff.get('added', 0)}/{diff.get('changed', 0)}/{diff.get('deleted', 0)}"
        f"/{diff.get('unchanged', 0)} | {report.new_chunks} | {report.embedded} | {retrievers} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DATA, help="JSONL corpus (default: MedQuAD cancer.gov)")
    parser.add_argument("--loader", default="jsonl", help="loader reading it (jsonl, registry-jsonl, ...)")
    parser.add_argument("--change", type=float, default=0.01, help="share of documents changed (default 0.01)")
    parser.add_argument("--rounds", type=int, default=3, help="change/update rounds (default 3)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], help="extra --set override")
    args = parser.parse_args()
    if not args.corpus.is_file():
        sys.exit(f"corpus not found: {args.corpus} (set DATA to the folder of public data sets, or pass --corpus)")
    host = PluginHost()
    with tempfile.TemporaryDirectory(prefix="criss-incremental-") as tmp:
        work = Path(tmp)
        corpus = work / "corpus.jsonl"
        corpus.write_bytes(args.corpus.read_bytes())
        index_dir, twin_dir = work / "index", work / "twin"

        def run(label: str, directory: Path, **kwargs: bool) -> IngestReport:
            report = ingest(pipeline(host, corpus, directory, args.loader, args.overrides), **kwargs)
            print(f"{label}: {report.seconds:.1f}s", file=sys.stderr)
            return report

        rows = [("whole, cold embedding cache", run("whole", index_dir))]
        rows.append(("unchanged re-ingest", run("unchanged", index_dir)))
        shutil.copytree(index_dir, twin_dir, symlinks=True)  # the same index and embedding cache, twice
        same = total = 0
        for round_ in range(args.rounds):
            changed = change_documents(args.corpus, corpus, args.change, round_)
            what = f"{len(changed)} documents changed ({args.change:.0%}), round {round_ + 1}"
            rows.append((f"incremental, {what}", run("incremental", index_dir)))
            rows.append((f"whole rebuild (`--force`), {what}", run("force", twin_dir, force=True)))
            updated = Engine.open(pipeline(host, corpus, index_dir, args.loader, args.overrides))
            rebuilt = Engine.open(pipeline(host, corpus, twin_dir, args.loader, args.overrides))
            questions = [
                marker(i) for i in range(len(lines(args.corpus))) if i % max(1, round(1 / args.change)) == round_
            ]
            questions += [json.loads(q)["question"] for q in lines(QUESTIONS)[:20]] if QUESTIONS.is_file() else []
            for question in questions:
                same += top_ids(updated, question) == top_ids(rebuilt, question)
                total += 1

    documents, chunks = rows[0][1].documents, rows[0][1].chunks
    overrides = " ".join(f"--set {shlex.quote(o)}" for o in args.overrides)
    print(
        f"\n`python benchmarks/incremental_ingest.py --corpus {args.corpus} --loader {args.loader} "
        f"--change {args.change} --rounds {args.rounds}{' ' + overrides if overrides else ''}`: {documents} documents, "
        f"{chunks} chunks\n"
    )
    print("| ingest | seconds | added/changed/deleted/unchanged docs | chunks made | texts embedded | retrievers |")
    print("|---|---:|---|---:|---:|---|")
    for label, report in rows:
        print(row(label, report))
    print(f"\nThe incrementally updated and the whole-rebuilt index give the same top 10 (ids and scores, "
          f"every retriever) for {same} of {total} queries (each changed document's code word, and 20 dev questions).")
    print("\nSeconds per step:\n")
    steps = sorted({step for _, report in rows for step in report.steps}, key=lambda s: (s.startswith("retriever"), s))
    print("| ingest | " + " | ".join(steps) + " |")
    print("|---|" + "---:|" * len(steps))
    for label, report in rows:
        print(f"| {label} | " + " | ".join(f"{report.steps[s]:.1f}" if s in report.steps else "" for s in steps) + " |")

if __name__ == "__main__":
    main()
