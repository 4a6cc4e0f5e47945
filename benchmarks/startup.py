"""Start-up: `criss-rag ask` cold (a new process: imports, plugins, config, index load, first
question) vs a warm question in the same process, phase by phase; and which heavy libraries each
phase imported.

Each repeat starts a fresh interpreter that times the phases the CLI goes through and then asks
a second and third question (warm); a further fresh process times the real `criss-rag ask`
command end to end. Both run with the default thread settings and with ``OMP_NUM_THREADS=1``
(one thread for torch and FAISS), alternating. The table gives medians over repeats. The index is built first if missing
(the default pipeline over the example corpus).

    python benchmarks/startup.py [--repeats 3] [--config examples/default.yaml] [--set KEY=VALUE ...]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from timing import ROOT, table

HEAVY = ["torch", "sentence_transformers", "transformers", "fugashi", "MeCab", "kiwipiepy", "jieba", "faiss",
         "sklearn", "bm25s", "fastapi", "ollama", "openai"]
QUESTIONS = ["How is liver cancer treated?", "What are the symptoms of colorectal cancer?",
             "Can stomach cancer be found early?"]


def phases(config: str, overrides: list[str]) -> None:
    """Run in a fresh interpreter: time each phase, print one JSON line."""
    out: dict[str, float] = {}
    imported: dict[str, list[str]] = {}
    started = time.perf_counter()

    def mark(phase: str) -> None:
        nonlocal started
        out[phase] = (time.perf_counter() - started) * 1000
        imported[phase] = [m for m in HEAVY if m in sys.modules and not any(m in seen for seen in imported.values())]
        started = time.perf_counter()

    from criss_rag.cli.main import build_cli  # noqa: F401 - what `criss-rag` imports before any command
    from criss_rag.engine import Engine
    from criss_rag.pipeline import Pipeline
    from criss_rag.plugins import PluginHost

    mark("import criss_rag + CLI")
    host = PluginHost()
    mark("load plugins")
    pipeline = Pipeline.from_file(config, host, overrides)
    mark("read + validate config")
    engine = Engine.open(pipeline)
    mark("open index (load retrievers)")
    engine.ask(QUESTIONS[0])
    mark("first question")
    warm = []
    for question in QUESTIONS[1:]:
        begun = time.perf_counter()
        engine.ask(question)
        warm.append((time.perf_counter() - begun) * 1000)
    out["warm question"] = statistics.median(warm)
    print(json.dumps({"ms": out, "imported": imported}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--config", default=str(ROOT / "examples" / "default.yaml"))
    parser.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--phases", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phases:
        phases(args.config, args.overrides)
        return
    sets = [part for o in args.overrides for part in ("--set", o)]
    cli = [str(ROOT / ".venv" / "bin" / "criss-rag")]
    subprocess.run([*cli, "ingest", args.config, *sets], check=True, capture_output=True)  # build once, untimed
    variants = {"default threads": {}, "OMP_NUM_THREADS=1": {"OMP_NUM_THREADS": "1"}}
    runs: dict[str, list[dict]] = {name: [] for name in variants}
    commands: dict[str, list[float]] = {name: [] for name in variants}
    for repeat in range(args.repeats):
        for name, extra in variants.items():  # side by side, alternating
            env = {**os.environ, **extra}
            result = subprocess.run([sys.executable, __file__, "--phases", "--config", args.config,
                                     *[f"--set={o}" for o in args.overrides]], capture_output=True, text=True,
                                    check=True, env=env)
            runs[name].append(json.loads(result.stdout.strip().splitlines()[-1]))
            begun = time.perf_counter()
            subprocess.run([*cli, "ask", args.config, QUESTIONS[0], *sets], check=True, capture_output=True, env=env)
            commands[name].append((time.perf_counter() - begun) * 1000)
        print(f"  repeat {repeat + 1}/{args.repeats}", file=sys.stderr)

    def median_ms(name: str, phase: str) -> float:
        return statistics.median(r["ms"][phase] for r in runs[name])

    first = runs["default threads"][0]
    phases_ = list(first["ms"])
    rows = [
        (
            phase,
            *(f"{median_ms(name, phase):,.0f}" for name in variants),
            ", ".join(first["imported"].get(phase, [])) or "-",
        )
        for phase in phases_
    ]
    rows.append(
        (
            "**cold: all phases but the warm question**",
            *(f"**{sum(median_ms(name, p) for p in phases_ if p != 'warm question'):,.0f}**" for name in variants),
            "",
        )
    )
    rows.append(
        ("`criss-rag ask` command, wall clock", *(f"{statistics.median(commands[n]):,.0f}" for n in variants), "")
    )
    print(f"\n{args.config} {' '.join(sets)}; median of {args.repeats} fresh processes per column\n")
    print(table(["phase", *(f"ms, {name}" for name in variants), "heavy libraries first imported here"], rows))


if __name__ == "__main__":
    main()
