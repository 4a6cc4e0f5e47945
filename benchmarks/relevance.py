"""Relevance, not just overlap: how often a pipeline answers questions whose words overlap the
corpus's cancer vocabulary while their topic is absent from it, with and without the generator
stage's `relevance` policy; and what the policy costs on in-scope questions.

Every question runs through the whole pipeline twice (the same index): once with
`generator.relevance` null ("before") and once with the policy ("after", the config's own
`relevance` or `--policy`). A question of an out-of-scope set that is answered is an answer
built from an off-topic passage.

    python benchmarks/relevance.py examples/default.yaml \\
        --messy benchmarks/data/messy_out_of_scope.jsonl \\
        --in-scope examples/questions.jsonl
    python benchmarks/relevance.py examples/default.yaml \\
        --corpus $DATA/medquad-cancergov/corpus.jsonl \\
        --messy benchmarks/data/messy_out_of_scope.jsonl \\
        --in-scope $DATA/medquad-cancergov/questions_dev.jsonl \\
        --out-of-scope $DATA/medquad-cancergov/out_of_scope_dev.jsonl

A question file is JSONL with `question`; a question is out of scope when `expected` is
`refuse` or `scope` is `out` (both spellings are in use), or when it comes from --messy or
--out-of-scope. `split` (dev/test), when present, is reported separately.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter, defaultdict
from pathlib import Path

from criss_rag.engine import Engine
from criss_rag.language.text import detect_language
from criss_rag.pipeline import Pipeline
from criss_rag.plugins import PluginHost

DEFAULT_POLICY = "{min_coverage: 0.5}"


def out_of_scope(record: dict) -> bool:
    return record.get("expected") == "refuse" or record.get("scope") == "out"


def load(path: str | None, forced_out: bool, name: str) -> list[dict]:
    if not path:
        return []
    rows = []
    for line in open(path, encoding="utf-8"):
        if line.strip():
            record = json.loads(line)
            rows.append(
                {
                    "set": name,
                    "question": record["question"],
                    "out": forced_out or out_of_scope(record),
                    "split": record.get("split", ""),
                    "lang": record.get("lang") or detect_language(record["question"]),
                    "gold": set(
                        record.get("gold_doc_ids_any")
                        or record.get("gold_doc_ids")
                        or ([record["gold_doc_id"]] if record.get("gold_doc_id") else [])
                    ),
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config")
    parser.add_argument("--messy", help="JSONL of out-of-corpus questions that overlap cancer vocabulary")
    parser.add_argument("--in-scope", help="JSONL of questions (in scope unless marked out of scope)")
    parser.add_argument("--out-of-scope", help="JSONL of questions that must be refused")
    parser.add_argument("--corpus", help="JSONL corpus replacing the config's (jsonl loader)")
    parser.add_argument(
        "--policy", help=f"the `relevance` mapping of the 'after' run (default: the config's, else {DEFAULT_POLICY})"
    )
    parser.add_argument("--show", type=int, default=5, help="print this many examples of each kind of change")
    parser.add_argument("--extractive-from", help="a file with another version's ExtractiveGenerator (e.g. `git show "
                                                  "REV:plugins/basic/criss_rag_basic/extractive.py > old.py`): its "
                                                  "sentence selection replaces the installed one, to compare")
    args = parser.parse_args()
    if args.extractive_from:
        import importlib.util

        import criss_rag_basic.extractive as installed

        spec = importlib.util.spec_from_file_location("other_extractive", args.extractive_from)
        other = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(other)
        installed.ExtractiveGenerator.generate = other.ExtractiveGenerator.generate
        print(f"extractive sentence selection from {args.extractive_from}")

    base = [f"loader={{name: jsonl, path: {json.dumps(str(Path(args.corpus).resolve()))}}}"] if args.corpus else []
    host = PluginHost()
    after_pipeline = Pipeline.from_file(
        args.config, host, base + ([f"generator.relevance={args.policy}"] if args.policy else [])
    )
    if after_pipeline.config.one("generator").options.get("relevance") is None:
        after_pipeline = Pipeline.from_file(args.config, host, [*base, f"generator.relevance={DEFAULT_POLICY}"])
    before_pipeline = Pipeline.from_file(args.config, host, [*base, "generator.relevance=null"])
    engines = {"before": Engine.open(before_pipeline, build_if_missing=True), "after": Engine.open(after_pipeline)}
    policy = after_pipeline.config.one("generator").options["relevance"]
    print(
        f"config {args.config}{' with corpus ' + args.corpus if args.corpus else ''}; after: relevance = "
        f"{json.dumps(policy)}"
    )

    rows = (
        load(args.messy, True, "messy")
        + load(args.in_scope, False, "in-scope")
        + load(args.out_of_scope, True, "out-of-scope")
    )
    counts: dict[tuple, Counter] = defaultdict(Counter)
    changed: dict[str, list[str]] = defaultdict(list)
    for row in rows:
        verdicts = {}
        for run, engine in engines.items():
            answer = engine.ask(row["question"])
            verdicts[run] = answer
            group = (row["set"], "out" if row["out"] else "in", row["split"], row["lang"])
            counts[(*group, run)]["questions"] += 1
            counts[(*group, run)]["refused"] += answer.refused
            if answer.refused:
                counts[(*group, run)][f"reason:{answer.refusal_reason}"] += 1
            elif row["gold"]:
                counts[(*group, run)]["gold_cited"] += any(c.doc_id in row["gold"] for c in answer.citations)
                counts[(*group, run)]["gold_first"] += (
                    bool(answer.citations) and answer.citations[0].doc_id in row["gold"]
                )
                counts[(*group, run)]["other_cited"] += any(c.doc_id not in row["gold"] for c in answer.citations)
                counts[(*group, run)]["sentences"] += len(answer.sentences)
        if row["out"] and not verdicts["after"].refused:
            r = verdicts["after"].relevance
            changed[f"{row['set']}: still answered after"].append(
                f"{row['question']}  [relevance {r.score if r else '-'}; cited "
                f"{[c.doc_id for c in verdicts['after'].citations]}]"
            )
        if verdicts["before"].refused != verdicts["after"].refused:
            kind = f"{row['set']}: {'refused only after' if verdicts['after'].refused else 'answered only after'}"
            why = verdicts["after"].refusal_detail if verdicts["after"].refused else ""
            changed[kind].append(f"{row['question']}  [{why}]")

    print(
        f"\n{'set':<14}{'scope':<7}{'split':<7}{'lang':<6}{'run':<8}{'n':>5}{'refused':>9}{'rate':>8}   gold cited "
        "(first), answers citing a non-gold passage, sentences per answer / reasons"
    )
    for key in sorted(counts):
        c = counts[key]
        answered = c["questions"] - c["refused"]
        gold = (f"{c['gold_cited']}/{answered} ({c['gold_first']}), other {c['other_cited']}, "
                f"{c['sentences'] / answered:.1f} sent." if key[1] == "in" and answered else "")
        reasons = ", ".join(f"{k[7:]} {v}" for k, v in sorted(c.items()) if k.startswith("reason:"))
        print(f"{key[0]:<14}{key[1]:<7}{key[2] or '-':<7}{key[3]:<6}{key[4]:<8}{c['questions']:>5}{c['refused']:>9}"
              f"{c['refused'] / c['questions']:>8.1%}   {gold} {reasons}")
    for kind, items in sorted(changed.items()):
        print(f"\n{kind}: {len(items)}")
        for item in items[: args.show]:
            print(f"  {item}")


if __name__ == "__main__":
    main()
