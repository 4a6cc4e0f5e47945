"""The first question with and without `Engine.warm_up()`: in a fresh interpreter each time, open
the default pipeline's engine, then either ask at once (the first question pays for loading the
embedding model) or warm up first and then ask; the second question is the warm reference.
Cold and warm-up processes alternate; the table gives medians over repeats. The index is built
first if missing.

    python benchmarks/warm_up.py [--repeats 3] [--config examples/default.yaml]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys

from timing import ROOT, table

QUESTIONS = ["How is liver cancer treated?", "What are the symptoms of colorectal cancer?"]
PROBE = """
import json, sys, time
import criss_rag
config, warm = sys.argv[1], sys.argv[2] == "1"
engine = criss_rag.open(config, warm_up=False)
out = {}
if warm:
    t = time.perf_counter(); engine.warm_up(); out["warm_up_ms"] = (time.perf_counter() - t) * 1000
for i, q in enumerate(json.loads(sys.argv[3])):
    t = time.perf_counter(); engine.ask(q); out[f"q{i + 1}_ms"] = (time.perf_counter() - t) * 1000
print(json.dumps(out))
"""


def run(config: str, warm: bool) -> dict[str, float]:
    result = subprocess.run([sys.executable, "-c", PROBE, config, "1" if warm else "0", json.dumps(QUESTIONS)],
                            capture_output=True, text=True, check=True, cwd=ROOT)
    return json.loads(result.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--config", default="examples/default.yaml")
    args = parser.parse_args()
    import criss_rag

    criss_rag.ingest(ROOT / args.config)  # build once, outside the timings
    cold, warm = [], []
    for _ in range(args.repeats):
        cold.append(run(args.config, False))
        warm.append(run(args.config, True))

    def med(rows: list[dict[str, float]], key: str) -> str:
        return f"{statistics.median(r[key] for r in rows):.0f}" if key in rows[0] else "-"

    print(table(["path", "warm_up() ms", "first question ms", "second question ms"], [
        ["no warm-up (first question loads the model)", "-", med(cold, "q1_ms"), med(cold, "q2_ms")],
        ["warm_up() first (criss_rag.open's default, serve, eval)", med(warm, "warm_up_ms"), med(warm, "q1_ms"),
         med(warm, "q2_ms")],
    ]))


if __name__ == "__main__":
    main()
