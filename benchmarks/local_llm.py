"""A real local model behind the grounding promise: examples/local-llm.yaml on MedQuAD.

Samples N in-scope MedQuAD dev questions and N out-of-scope ones (fixed seed), answers each with
the pipeline (SmolLM2-135M in-process by llama.cpp, by default), and reports:

- in scope: the share answered by the LLM, the share of answers with >= 1 verified citation, the
  share of shown sentences supported by their evidence, refusal reasons;
- out of scope: the share refused, and whether any refused question reached the model (the
  model's call counter before and after each question);
- per answered question: latency (p50/p95), prompt/answer tokens, decode tokens/s.

    .venv/bin/python benchmarks/local_llm.py examples/local-llm.yaml --n 40 \
        --out benchmarks/results/local_llm.json

The corpus is MedQuAD's (``--corpus``, default $DATA/medquad-cancergov/corpus.jsonl),
indexed under the config's index root like any other corpus.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import DATA, percentile  # noqa: E402

from criss_rag.engine import Engine  # noqa: E402
from criss_rag.pipeline import Pipeline  # noqa: E402
from criss_rag.plugins import PluginHost  # noqa: E402

MEDQUAD = DATA / "medquad-cancergov"


def sample(path: Path, n: int, seed: int) -> list[dict]:
    rows = [json.loads(line) for line in path.open(encoding="utf-8") if line.strip()]
    return random.Random(seed).sample(rows, min(n, len(rows)))


def shown_sentences(answer) -> list:
    """The sentence verdicts of what the answer shows (``Answer.sentences``; dropped ones are in
    ``Answer.dropped``)."""
    return list(answer.sentences)


def llm_model(pipeline: Pipeline):
    """The llama.cpp model behind the pipeline's generator, for its call counter (None for other backends)."""
    generator = pipeline.build(pipeline.config.one("generator"))
    llm = getattr(generator, "llm", None)
    return getattr(llm, "model", None) if llm is not None and hasattr(llm, "complete_constrained") else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", nargs="?", default="examples/local-llm.yaml")
    parser.add_argument("--corpus", default=str(MEDQUAD / "corpus.jsonl"))
    parser.add_argument("--questions", default=str(MEDQUAD / "questions_dev.jsonl"))
    parser.add_argument("--out-of-scope", default=str(MEDQUAD / "out_of_scope_dev.jsonl"))
    parser.add_argument("--n", type=int, default=40, help="questions of each kind")
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--set", action="append", default=[], help="config override KEY=VALUE (repeatable)")
    parser.add_argument("--out", help="write the per-question records and the summary here (JSON)")
    parser.add_argument("--summarise", help="print the summary of a records file (<out>.jsonl) and exit")
    args = parser.parse_args()
    if args.summarise:
        records = [json.loads(line) for line in Path(args.summarise).read_text(encoding="utf-8").splitlines() if line]
        print(json.dumps(summarise(records), indent=2))
        return

    overrides = [f"loader={{name: jsonl, path: {json.dumps(str(Path(args.corpus).resolve()))}}}", *args.set]
    pipeline = Pipeline.from_file(args.config, PluginHost(), overrides, show_progress=True)
    engine = Engine.open(pipeline, build_if_missing=True)
    model = llm_model(pipeline)

    inside = [(q, True) for q in sample(Path(args.questions), args.n, args.seed)]
    outside = [(q, False) for q in sample(Path(args.out_of_scope), args.n, args.seed)]
    # interleaved, so that a run stopped early still has both kinds; each record is appended to
    # <out>.jsonl as it is made (a stopped run keeps what it measured; --summarise reads it back)
    questions = [item for pair in zip(inside, outside, strict=False) for item in pair]
    log = Path(args.out).with_suffix(".jsonl") if args.out else None
    if log is not None:
        log.parent.mkdir(parents=True, exist_ok=True)
        log.write_text("", encoding="utf-8")
    records = []
    for i, (q, in_scope) in enumerate(questions, 1):
        calls = model.calls if model is not None else 0
        started = time.perf_counter()
        answer = engine.ask(q["question"])
        seconds = time.perf_counter() - started
        usage = dict(model.last_usage) if model is not None and model.calls > calls else {}
        shown = shown_sentences(answer)
        dropped = list(getattr(answer, "dropped", []) or [])
        record = {
            # ids, never the data set's text (the questions and the evidence the answers quote stay in $DATA)
            "qid": q.get("qid") or q.get("id"),
            "in_scope": in_scope,
            "refused": answer.refused,
            "reason": answer.refusal_reason,
            "generator": answer.generator,
            "model_calls": (model.calls - calls) if model is not None else None,
            # refused before any generator ran (retrieval, the refusal policy): the trace has no generate stage
            "refused_before_generation": answer.refused
            and not any(st.stage == "generate" for st in answer.trace.stages),
            "citations": len(answer.citations),
            "sentences": len(shown),
            "supported": sum(1 for s in shown if s.supported),
            "dropped": len(dropped),
            "seconds": round(seconds, 3),
            **usage,
        }
        records.append(record)
        if log is not None:
            with log.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(record, ensure_ascii=False) + "\n")
        print(f"[{i}/{len(questions)}] {'IN ' if in_scope else 'OUT'} "
              f"{'refused ' + str(answer.refusal_reason) if answer.refused else 'answered'} "
              f"{seconds:.1f}s {record['qid']}", file=sys.stderr, flush=True)

    summary = summarise(records)
    print(json.dumps(summary, indent=2))
    if args.out:
        Path(args.out).parent.mkdir(parents=True, exist_ok=True)
        Path(args.out).write_text(json.dumps({"config": args.config, "seed": args.seed, "n": args.n,
                                              "overrides": args.set, "summary": summary, "records": records},
                                             indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def summarise(records: list[dict]) -> dict:
    inside = [r for r in records if r["in_scope"]]
    outside = [r for r in records if not r["in_scope"]]
    answered = [r for r in inside if not r["refused"]]
    by_llm = [r for r in answered if r["model_calls"]]
    sentences = sum(r["sentences"] for r in records if not r["refused"])
    supported = sum(r["supported"] for r in records if not r["refused"])
    refused_calls = [r for r in records if r["refused_before_generation"] and r["model_calls"]]
    timed = [r for r in records if r.get("completion_tokens")]
    rates = [r["completion_tokens"] / r["decode_s"] for r in timed if r.get("decode_s")]
    share = lambda part, whole: round(len(part) / len(whole), 4) if whole else None  # noqa: E731
    return {
        "in_scope": len(inside),
        "in_scope_answered_by_llm": share(by_llm, inside),
        "in_scope_refused": share([r for r in inside if r["refused"]], inside),
        "in_scope_refusal_reasons": dict(Counter(r["reason"] for r in inside if r["refused"])),
        "answers_with_verified_citation": share([r for r in answered if r["citations"] >= 1], answered),
        "shown_sentences": sentences,
        "shown_sentences_supported": round(supported / sentences, 4) if sentences else None,
        "sentences_dropped": sum(r["dropped"] for r in records),
        "out_of_scope": len(outside),
        "out_of_scope_refused": share([r for r in outside if r["refused"]], outside),
        "out_of_scope_reasons": dict(Counter(r["reason"] for r in outside)),
        "refused_before_generation": sum(r["refused_before_generation"] for r in records),
        # of those, how many nevertheless called the model (must be 0)
        "refused_before_generation_but_model_called": len(refused_calls),
        "latency_s_p50": round(percentile([r["seconds"] for r in timed], 50), 2) if timed else None,
        "latency_s_p95": round(percentile([r["seconds"] for r in timed], 95), 2) if timed else None,
        "prompt_tokens_p50": percentile([r["prompt_tokens"] for r in timed], 50) if timed else None,
        "completion_tokens_p50": percentile([r["completion_tokens"] for r in timed], 50) if timed else None,
        "decode_tokens_per_s_p50": round(percentile(rates, 50), 1) if rates else None,
    }


if __name__ == "__main__":
    main()
