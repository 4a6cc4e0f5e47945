"""The sentence check on claims: faithful sentences and paraphrases must be accepted, sentences with
one decisive thing changed (negation, number, stage, entity, population, direction, an invented
clause) rejected. Runs the check a pipeline would use (its `verifier:`, else the engine's built-in
one) on each claim against the passages it cites; prints, per kind and language, how many were
judged as expected, faithful accepted / edited rejected / balanced accuracy per language, and the
milliseconds per sentence.

    python benchmarks/sentence_check.py benchmarks/data/claims/dev_*.jsonl \\
        --config examples/default.yaml --medquad $DATA/medquad-cancergov/corpus.jsonl

($DATA: the folder of public data sets; see docs/benchmarks.md.) Claim format:
benchmarks/data/claims/README.md (JSONL: lang, kind, expected, evidence [{text} or
{ref: "medquad:<doc_id>"}], claim, or for MedQuAD refs base + find/replace, rebuilt here from the
corpus given with --medquad; without it those claims are skipped). `--errors N` prints up to N
misjudged claims with the check's reasons. `--end-to-end N` also runs a sample of N claims through
a whole pipeline: the claim's passages are its corpus (BM25, whole documents), an OpenAI-compatible
loopback stub writes exactly the claim as the answer (no markers: `citations: attribute`,
`unsupported: mark`), and the verdict is read from the answer (a refused answer is unsupported).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from llama_index.core.schema import NodeWithScore, TextNode

from criss_rag.answering import meaning_check as meaning
from criss_rag.answering.sentence_check import LexicalSupport
from criss_rag.answering.steps import DEFAULT_VERIFIER
from criss_rag.engine import Engine
from criss_rag.language.text import split_sentences
from criss_rag.lexicon import claims as claims_module
from criss_rag.lexicon.edits import tokens
from criss_rag.lexicon.terms import content_terms
from criss_rag.pipeline import Pipeline
from criss_rag.plugins import PluginHost
from criss_rag.testing import pipeline_from_yaml
from criss_rag.testing.servers import OpenAIStubServer
from criss_rag.types import Context, Evidence, Hit, Query, SentenceSupport

EDIT_KINDS = ("negation", "number", "stage", "entity", "population", "direction", "invented")
KEEP_KINDS = ("faithful", "paraphrase")


def load_medquad(path: str | None) -> dict[str, str]:
    if not path:
        return {}
    passages = {}
    for line in open(path, encoding="utf-8"):
        if line.strip():
            record = json.loads(line)
            passages[record["doc_id"]] = record["text"]
    return passages


def rebuild(claim: dict, medquad: dict[str, str]) -> tuple[str, list[str]] | None:
    """The claim text and its passages' texts (MedQuAD refs read from the corpus), or None."""
    passages = []
    for item in claim["evidence"]:
        if "text" in item:
            passages.append(item["text"])
        elif item.get("ref", "").startswith("medquad:"):
            text = medquad.get(item["ref"].split(":", 1)[1])
            if text is None:
                return None
            passages.append(text)
    if claim.get("claim"):
        return claim["claim"], passages
    base = claim.get("base")
    if not base:
        return None
    sentence = next((s for p in passages for s in split_sentences(p) if base in s), None)
    if sentence is None:
        return None
    if claim.get("find"):
        if claim["find"] not in sentence:
            return None
        sentence = sentence.replace(claim["find"], claim.get("replace", ""), 1)
    return sentence, passages


def context_of(passages: list[str]) -> Context:
    evidence = tuple(Evidence(i, Hit(NodeWithScore(node=TextNode(id_=f"p{i}", text=text, metadata={"doc_id": f"p{i}"}),
                                                   score=1.0)), text)
                     for i, text in enumerate(passages, 1))
    return Context(evidence=evidence, text="")


def verifier_of(config: str | None):
    """The sentence check the pipeline of ``config`` runs (its ``verifier:``, else the built-in one);
    ``lexical`` for the word-overlap check with its defaults."""
    if config is None:
        return DEFAULT_VERIFIER, "built-in"
    if config == "lexical":
        return LexicalSupport(), "lexical"
    pipeline = Pipeline.from_file(config, PluginHost())
    cc = pipeline.config.one("verifier")
    return (pipeline.build(cc), cc.name) if cc is not None else (DEFAULT_VERIFIER, "built-in")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("claims", nargs="+", help="claim files (JSONL)")
    parser.add_argument("--config", action="append", help="pipeline YAML whose check to run (repeatable), or "
                                                           "'lexical'; default: the engine's built-in check")
    parser.add_argument("--medquad", help="MedQuAD corpus.jsonl, to rebuild the claims that cite it")
    parser.add_argument("--errors", type=int, default=0, help="print up to N misjudged claims")
    parser.add_argument("--kinds", help="only these kinds (comma-separated)")
    parser.add_argument("--end-to-end", type=int, default=0, help="also run N claims (seeded sample) through a "
                                                                   "pipeline whose stub LLM writes the claim")
    args = parser.parse_args()
    medquad = load_medquad(args.medquad)
    claims, skipped = [], 0
    for path in args.claims:
        for line in open(path, encoding="utf-8"):
            if line.strip():
                record = json.loads(line)
                if args.kinds and record["kind"] not in args.kinds.split(","):
                    continue
                built = rebuild(record, medquad)
                if built is None:
                    skipped += 1
                    continue
                claims.append((record, *built))
    for config in args.config or [None]:
        run(config, claims, skipped, args.errors)
    if args.end_to_end:
        end_to_end(random.Random(20261202).sample(claims, min(args.end_to_end, len(claims))))


def end_to_end(claims: list) -> None:
    """Each claim answered by a pipeline whose LLM (a loopback stub) writes exactly the claim."""
    host = PluginHost()
    right, direct, times = 0, 0, []
    with tempfile.TemporaryDirectory() as folder, OpenAIStubServer(reply="") as server:
        for i, (record, text, passages) in enumerate(claims):
            root = Path(folder) / str(i)
            root.mkdir()
            docs = [{"doc_id": f"p{n}", "title": "", "text": passage} for n, passage in enumerate(passages, 1)]
            (root / "corpus.jsonl").write_text("\n".join(json.dumps(d, ensure_ascii=False) for d in docs) + "\n",
                                               encoding="utf-8")
            llm = f'{{name: openai-compatible, model: stub, api_base: "{server.base_url}", max_retries: 0}}'
            yaml_text = (f"name: claim\nindex: {{dir: {root / 'index'}}}\nloader: {{name: jsonl, path: corpus.jsonl}}\n"
                         f"chunker: whole-document\nretrievers: [{{name: bm25, top_k: 5}}]\ncontext: numbered\n"
                         f"llms:\n  gen: {llm}\n"
                         "generator: {name: llm, llm: gen, citations: attribute, unsupported: mark}\n")
            server.reply = text
            engine = Engine.open(pipeline_from_yaml(yaml_text, root, host), build_if_missing=True)
            started = time.perf_counter()
            answer = engine.ask(text)
            times.append((time.perf_counter() - started) * 1000)
            supported = not answer.refused and bool(answer.sentences) and all(s.supported for s in answer.sentences)
            right += supported == (record["expected"] == "supported")
            sentence = SentenceSupport(text=text, cited=list(range(1, len(passages) + 1)))
            (direct_verdict,) = DEFAULT_VERIFIER.verify(Query(text=""), [sentence], context_of(passages))
            direct += direct_verdict.supported == (record["expected"] == "supported")
    print(
        f"\nend to end (stub LLM writes the claim, built-in check): {right}/{len(claims)} judged as expected; "
        f"the check alone on the same claims: {direct}/{len(claims)}; p50 {statistics.median(times):.0f} ms per answer"
    )


def run(config: str | None, claims: list, skipped: int, errors: int) -> None:
    verifier, name = verifier_of(config)
    for cached in (meaning._passage, claims_module.read, content_terms, tokens):  # each run starts cold
        cached.cache_clear()
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])  # (lang, kind) -> [right, all]
    times, wrong = [], []
    for record, text, passages in claims:
        context = context_of(passages)
        sentence = SentenceSupport(text=text, cited=list(range(1, len(passages) + 1)))
        started = time.perf_counter()
        (verdict,) = verifier.verify(Query(text=""), [sentence], context)
        times.append((time.perf_counter() - started) * 1000)
        right = verdict.supported == (record["expected"] == "supported")
        cell = counts[(record["lang"], record["kind"])]
        cell[0] += right
        cell[1] += 1
        if not right:
            wrong.append((record, text, verdict))
    print(f"\n## {config or 'built-in check'} (verifier: {name}); {len(claims)} claims, {skipped} skipped")
    languages = sorted({lang for lang, _ in counts})
    kinds = [k for k in (*KEEP_KINDS, *EDIT_KINDS) if any(kind == k for _, kind in counts)]
    print("| kind | " + " | ".join(languages) + " | all |")
    print("|---|" + "---|" * (len(languages) + 1))
    for kind in kinds:
        cells = [counts.get((lang, kind), [0, 0]) for lang in languages]
        total = [sum(c[0] for c in cells), sum(c[1] for c in cells)]
        print(f"| {kind} | " + " | ".join(_rate(c) for c in [*cells, total]) + " |")
    print("| **faithful accepted** | " + " | ".join(_rate(_sum(counts, [lang], KEEP_KINDS)) for lang in languages)
          + f" | {_rate(_sum(counts, languages, KEEP_KINDS))} |")
    print("| **edited rejected** | " + " | ".join(_rate(_sum(counts, [lang], EDIT_KINDS)) for lang in languages)
          + f" | {_rate(_sum(counts, languages, EDIT_KINDS))} |")
    print("| **balanced accuracy** | " + " | ".join(_balanced(counts, [lang]) for lang in languages)
          + f" | {_balanced(counts, languages)} |")
    if times:
        ordered = sorted(times)
        print(
            f"\nms per sentence: p50 {statistics.median(ordered):.2f}, p95 "
            f"{ordered[int(0.95 * (len(ordered) - 1))]:.2f} "
            f"(first call {times[0]:.1f} ms)"
        )
    for record, text, verdict in wrong[:errors]:
        print(
            f"- {record['id']} {record['kind']} expected {record['expected']}: {text}\n    note: "
            f"{record.get('note', '')}"
            f"\n    got {'supported' if verdict.supported else 'unsupported'} {verdict.score:.2f} {verdict.why}",
            file=sys.stdout,
        )


def _sum(counts: dict, languages: list[str], kinds: tuple[str, ...]) -> list[int]:
    cells = [counts.get((lang, kind), [0, 0]) for lang in languages for kind in kinds]
    return [sum(c[0] for c in cells), sum(c[1] for c in cells)]


def _rate(cell: list[int]) -> str:
    return f"{cell[0]}/{cell[1]} ({cell[0] / cell[1]:.0%})" if cell[1] else "-"


def _balanced(counts: dict, languages: list[str]) -> str:
    keep, edit = _sum(counts, languages, KEEP_KINDS), _sum(counts, languages, EDIT_KINDS)
    if not keep[1] or not edit[1]:
        return "-"
    return f"{(keep[0] / keep[1] + edit[0] / edit[1]) / 2:.3f}"


if __name__ == "__main__":
    main()
