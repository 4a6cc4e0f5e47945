"""Quoted sentences the sentence check accepts: the extractive generator's answers on MedQuAD dev
questions, each over its gold passage and the other passages of the same page (whole passages,
numbered as a context), checked by the pipeline's sentence check and, for comparison, by the
``lexical`` check. A quoted sentence is supported by construction, so every rejection is a false
alarm of the check. Also the milliseconds the check takes per sentence.

    python benchmarks/extractive_support.py examples/default.yaml \\
        --corpus $DATA/medquad-cancergov/corpus.jsonl \\
        --questions $DATA/medquad-cancergov/questions_dev.jsonl
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict

from llama_index.core.schema import NodeWithScore, TextNode

from criss_rag.answering.sentence_check import LexicalSupport, unchecked_sentences
from criss_rag.answering.steps import DEFAULT_VERIFIER
from criss_rag.pipeline import Pipeline
from criss_rag.plugins import PluginHost
from criss_rag.types import Context, Evidence, Hit, Query


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config")
    parser.add_argument("--corpus", required=True)
    parser.add_argument("--questions", required=True)
    parser.add_argument("--n", type=int, default=0, help="only the first N questions (0: all)")
    parser.add_argument("--passages", type=int, default=5, help="passages per context")
    parser.add_argument("--errors", type=int, default=0, help="print up to N rejected quoted sentences")
    args = parser.parse_args()
    docs = {}
    by_page = defaultdict(list)
    for line in open(args.corpus, encoding="utf-8"):
        if line.strip():
            record = json.loads(line)
            docs[record["doc_id"]] = record
            by_page[record["doc_id"].rsplit("_", 1)[0]].append(record["doc_id"])
    pipeline = Pipeline.from_file(args.config, PluginHost())
    generator = pipeline.build(pipeline.config.one("generator"))
    cc = pipeline.config.one("verifier")
    checks = {"pipeline": pipeline.build(cc) if cc is not None else DEFAULT_VERIFIER, "lexical": LexicalSupport()}
    questions = [json.loads(line) for line in open(args.questions, encoding="utf-8") if line.strip()]
    questions = questions[: args.n] if args.n else questions
    accepted = {name: 0 for name in checks}
    total, times, rejected = 0, [], []
    for question in questions:
        gold = question["gold_doc_id"]
        if gold not in docs:
            continue
        ids = [gold] + [d for d in by_page[gold.rsplit("_", 1)[0]] if d != gold][: args.passages - 1]
        evidence = tuple(Evidence(i, Hit(NodeWithScore(node=TextNode(id_=d, text=docs[d]["text"], metadata={
            "doc_id": d, "title": docs[d].get("title", ""), "section": docs[d].get("section", "")}), score=1.0)),
            docs[d]["text"]) for i, d in enumerate(ids, 1))
        context = Context(evidence=evidence, text="")
        query = Query(text=question["question"])
        text = generator.generate(query, context).text
        sentences = unchecked_sentences(text, context)
        total += len(sentences)
        for name, check in checks.items():
            started = time.perf_counter()
            verdicts = check.verify(query, sentences, context)
            if name == "pipeline":
                times.append((time.perf_counter() - started) * 1000 / max(1, len(sentences)))
                rejected += [v for v in verdicts if not v.supported]
            accepted[name] += sum(v.supported for v in verdicts)
    print(f"{len(questions)} questions, {total} quoted sentences ({args.config})")
    for name, count in accepted.items():
        print(f"  {name}: {count}/{total} accepted ({count / max(1, total):.1%})")
    if times:
        ordered = sorted(times)
        print(f"  ms per sentence (pipeline's check, mean per answer): p50 {statistics.median(ordered):.2f}, "
              f"p95 {ordered[int(0.95 * (len(ordered) - 1))]:.2f}")
    for verdict in rejected[: args.errors]:
        print(f"- {verdict.text[:200]}\n    {verdict.why}")


if __name__ == "__main__":
    main()
