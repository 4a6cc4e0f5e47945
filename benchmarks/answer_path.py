"""The answer path against the model alone: the same prompt through llama.cpp directly and through
``Engine.ask`` / ``Engine.ask_stream`` (examples/local-llm.yaml by default), side by side in one run.

For each question (the English in-scope questions of examples/questions.jsonl, over the config's
own corpus), interleaved, ``--repeats`` times:

- ``Engine.ask``: wall time; llama.cpp's own time inside it (prompt evaluation = time to the first
  token, decode = the rest, as the llama-cpp backend reports them); framework = wall − llama.cpp;
- ``Engine.ask_stream``: the same, plus the time to the first shown text (the first ``TokenEvent``:
  the first sentence the stream's sentence check let through);
- llama.cpp directly: ``Llama.create_completion`` on exactly the tokens the engine sent (captured
  from its call), from an empty state, with the same sampling settings;
- with ``prefix_cache: true`` (``llms.local.prefix_cache=true`` for a second engine): the model keeps
  its state between calls, so the prompt's start shared with the previous call is not evaluated
  again. Before each such call the state is set to the previous question's prompt (as a server's
  previous answer leaves it), so only the shared start (system prompt, instructions) is reused.

llama.cpp's own timings come from the backend's ``last_usage`` (one model call per question,
checked).

Models load before timing (``Engine.warm_up`` and one untimed question). The table gives p50/p95
per path; framework time is also given as a share of llama.cpp's own time in the same call.

    python benchmarks/answer_path.py [examples/local-llm.yaml] [--repeats 3] [--set KEY=VALUE ...]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from timing import ROOT, percentile, table

from criss_rag.engine import Engine
from criss_rag.pipeline import Pipeline
from criss_rag.plugins import PluginHost
from criss_rag.types import AnswerEvent, TokenEvent


def questions() -> list[str]:
    rows = [
        json.loads(line)
        for line in (ROOT / "examples" / "questions.jsonl").read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    return [r["question"] for r in rows if r.get("expected") == "answer" and r["question"].isascii()]


class Recorder:
    """Wraps ``Llama.create_completion`` to keep the tokens and settings of the engine's last call."""

    def __init__(self, llama: Any) -> None:
        self.llama = llama
        self.original = llama.create_completion
        self.last: tuple[list[int], dict[str, Any]] | None = None
        llama.create_completion = self.record

    def record(self, tokens: list[int], **kwargs: Any) -> Any:
        self.last = (list(tokens), dict(kwargs))
        return self.original(tokens, **kwargs)

    def direct(self, tokens: list[int], kwargs: dict[str, Any]) -> dict[str, float]:
        """llama.cpp alone on ``tokens``, from an empty state: prompt evaluation, decode, total."""
        self.llama.reset()
        started = time.perf_counter()
        first = None
        for _ in self.original(tokens, **{**kwargs, "stream": True}):
            if first is None:
                first = time.perf_counter()
        ended = time.perf_counter()
        return {"total": ended - started, "prompt": (first or ended) - started, "decode": ended - (first or ended)}


def generation(model: Any, calls_before: int) -> dict[str, float]:
    """llama.cpp's own timings of the call just made (the backend's ``last_usage``; the trace keeps
    only token counts), checked to be the one call of this question."""
    if model.calls != calls_before + 1:
        raise SystemExit(f"expected one model call per question, got {model.calls - calls_before}")
    usage = model.last_usage
    return {
        "prompt": float(usage["prefill_s"]),
        "decode": float(usage["decode_s"]),
        "prompt_tokens": float(usage["prompt_tokens"]),
    }


def prime(recorder: Recorder, tokens: list[int] | None) -> None:
    """Leave the model's state holding another question's prompt (what a server's previous call
    leaves), so that prefix_cache reuses only the start the two prompts share."""
    recorder.llama.reset()
    if tokens:
        recorder.llama.eval(tokens)


def via_ask(engine: Engine, question: str, model: Any) -> dict[str, float]:
    calls = model.calls
    started = time.perf_counter()
    answer = engine.ask(question)
    total = time.perf_counter() - started
    model = generation(model, calls)
    return {
        "total": total,
        **model,
        "framework": total - model["prompt"] - model["decode"],
        "refused": answer.refused,
        "text": answer.text,
    }


def via_stream(engine: Engine, question: str, model: Any) -> dict[str, float]:
    calls = model.calls
    started = time.perf_counter()
    first_shown = None
    answer = None
    for event in engine.ask_stream(question):
        if isinstance(event, TokenEvent) and first_shown is None and event.text.strip():
            first_shown = time.perf_counter() - started
        elif isinstance(event, AnswerEvent):
            answer = event.answer
    total = time.perf_counter() - started
    assert answer is not None
    model = generation(model, calls)
    return {
        "total": total,
        **model,
        "framework": total - model["prompt"] - model["decode"],
        "first_shown": first_shown if first_shown is not None else float("nan"),
        "refused": answer.refused,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("config", nargs="?", default=str(ROOT / "examples" / "local-llm.yaml"))
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--n", type=int, default=8, help="questions (those that reach the model)")
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    args = parser.parse_args()

    host = PluginHost()
    plain = Engine.open(Pipeline.from_file(args.config, host, args.overrides), build_if_missing=True)
    cached = Engine.open(Pipeline.from_file(args.config, host, [*args.overrides, "llms.local.prefix_cache=true"]))
    for engine in (plain, cached):
        engine.warm_up()
    llm = plain.pipeline.build(plain.pipeline.config.one("generator")).llm
    recorder = Recorder(llm.model.llama)  # the model is shared by both engines (same file and settings)
    # untimed: the questions the refusal policy lets through to the model (and first-call costs)
    asked = [q for q in questions() if plain.ask(q).trace.stage("generate") is not None][: args.n]

    rows: dict[str, list[dict[str, float]]] = {}
    same_text = []
    model = llm.model
    previous: list[int] | None = None  # the prompt of the question before, for prime()
    for repeat in range(args.repeats):
        for question in asked:
            a = via_ask(plain, question, model)
            tokens, kwargs = recorder.last
            rows.setdefault("llama.cpp directly (same prompt)", []).append(recorder.direct(tokens, kwargs))
            rows.setdefault("Engine.ask", []).append(a)
            rows.setdefault("Engine.ask_stream", []).append(via_stream(plain, question, model))
            prime(recorder, previous)
            rows.setdefault("Engine.ask, prefix_cache", []).append(via_ask(cached, question, model))
            prime(recorder, previous)
            rows.setdefault("Engine.ask_stream, prefix_cache", []).append(via_stream(cached, question, model))
            previous = tokens
            same_text.append(rows["Engine.ask, prefix_cache"][-1]["text"] == a["text"])
        print(f"  repeat {repeat + 1}/{args.repeats}", file=sys.stderr)

    def cell(values: list[float]) -> str:
        values = [v for v in values if v == v]
        return f"{percentile(values, 50):.2f} / {percentile(values, 95):.2f}" if values else "-"

    header = [
        "path (s, p50 / p95)",
        "total",
        "prompt eval (llama.cpp)",
        "decode (llama.cpp)",
        "framework",
        "framework / llama.cpp (p50)",
        "first shown text",
    ]
    out = []
    for path, items in rows.items():
        shares = [
            i["framework"] / (i["prompt"] + i["decode"])
            for i in items
            if "framework" in i and i["prompt"] + i["decode"] > 0
        ]
        out.append(
            [
                path,
                cell([i["total"] for i in items]),
                cell([i["prompt"] for i in items]),
                cell([i["decode"] for i in items]),
                cell([i["framework"] for i in items]) if "framework" in items[0] else "-",
                f"{percentile(shares, 50):.1%}" if shares else "-",
                cell([i["first_shown"] for i in items]) if "first_shown" in items[0] else "-",
            ]
        )
    prompt_tokens = [i["prompt_tokens"] for i in rows["Engine.ask"]]
    refused = sum(bool(i["refused"]) for i in rows["Engine.ask"])
    print(
        f"\n{args.config}: {len(asked)} questions x {args.repeats} repeats; "
        f"prompt p50 {percentile(prompt_tokens, 50):.0f} "
        f"tokens; {refused} of {len(rows['Engine.ask'])} asks refused after generation; prefix_cache gave the same "
        f"answer text in {sum(same_text)} of {len(same_text)}\n"
    )
    print(table(header, out))


if __name__ == "__main__":
    main()
