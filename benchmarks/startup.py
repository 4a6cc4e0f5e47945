"""Start-up: how long each command takes in a fresh process, for two code trees side by side.

Each command runs in a new interpreter and is timed from the call to its exit (for ``serve``: to
the first ``200`` from ``/health``); the load average of the last minute is read before each run,
so the figures can be read against how busy the machine was. With ``--before TREE`` the same
commands run with another checkout's code (e.g. a ``git worktree`` of main) on ``PYTHONPATH``, with
that tree's own ``examples/default.yaml``, alternating with this tree, so that both saw the same
machine; the table gives medians over ``--repeats``, the ratio after/before, and the median load
average of each column's runs.

Commands: ``criss-rag --help``, ``validate``, a cold ``ask`` in English and in Korean,
``criss_rag.open(config)`` (which warms every model up) and ``serve`` until healthy. The index of
each tree's config is built first if missing (untimed).

    python benchmarks/startup.py [--repeats 3] [--before /path/to/main-worktree] [--only ask-en ...]
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

from timing import ROOT, table

QUESTIONS = {"en": "How is liver cancer treated?", "ko": "간암은 어떻게 치료하나요?"}
OPEN = "import sys, criss_rag; criss_rag.open(sys.argv[1])"


def pythonpath(tree: Path) -> str:
    """The tree's core and every plugin folder, as /work/wt/env.sh puts them first."""
    parts = [tree, *sorted(p for p in (tree / "plugins").iterdir() if p.is_dir())]
    return os.pathsep.join(str(p) for p in parts)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def commands(tree: Path) -> dict[str, list[str]]:
    config = str(tree / "examples" / "default.yaml")
    cli = [sys.executable, "-m", "criss_rag"]
    return {
        "--help": [*cli, "--help"],
        "validate": [*cli, "validate", config],
        "ask (English)": [*cli, "ask", config, QUESTIONS["en"]],
        "ask (Korean)": [*cli, "ask", config, QUESTIONS["ko"]],
        "criss_rag.open": [sys.executable, "-c", OPEN, config],
        "serve until healthy": [*cli, "serve", config, "--port", "{port}"],
    }


def run_once(name: str, argv: list[str], env: dict[str, str], tree: Path) -> float:
    """Seconds from start to exit (serve: to its first healthy answer, then it is stopped). Runs in
    ``tree``: ``python -m`` and ``-c`` put the working folder first on ``sys.path``."""
    if name != "serve until healthy":
        started = time.perf_counter()
        result = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=tree)
        seconds = time.perf_counter() - started
        if result.returncode != 0:
            raise SystemExit(f"{name} failed ({result.returncode}): {result.stderr[-2000:]}")
        return seconds
    port = free_port()
    argv = [a.replace("{port}", str(port)) for a in argv]
    started = time.perf_counter()
    server = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, cwd=tree)
    try:
        while True:
            if server.poll() is not None:
                raise SystemExit(f"serve exited ({server.returncode}): {server.stderr.read()[-2000:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1) as response:
                    if response.status == 200:
                        return time.perf_counter() - started
            except OSError:
                time.sleep(0.05)
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--before", type=Path, default=None, help="another checkout to compare with (its code and config)"
    )
    parser.add_argument("--only", nargs="*", default=None, help="command names to run (default: all)")
    args = parser.parse_args()
    trees = {"after (this tree)": ROOT}
    if args.before is not None:
        trees = {"before": args.before.resolve(), **trees}
    base = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    base.update(CRISS_RAG_STRICT_PLUGINS="0", HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1")
    inherited = os.environ.get("PYTHONPATH", "")  # kept after the tree's folders (e.g. a package folder of your own)
    envs = {
        label: {**base, "PYTHONPATH": os.pathsep.join(p for p in (pythonpath(tree), inherited) if p)}
        for label, tree in trees.items()
    }
    for label, tree in trees.items():  # build each tree's index once, untimed
        subprocess.run(
            [sys.executable, "-m", "criss_rag", "ingest", str(tree / "examples" / "default.yaml")],
            env=envs[label],
            check=True,
            capture_output=True,
            cwd=tree,
        )
    names = [n for n in commands(ROOT) if args.only is None or n in args.only]
    seconds: dict[tuple[str, str], list[float]] = {}
    loads: dict[tuple[str, str], list[float]] = {}
    for repeat in range(args.repeats):
        for name in names:
            for label, tree in trees.items():  # side by side, alternating
                loads.setdefault((name, label), []).append(os.getloadavg()[0])
                seconds.setdefault((name, label), []).append(run_once(name, commands(tree)[name], envs[label], tree))
                print(
                    f"  {name} | {label} | {seconds[(name, label)][-1]:.2f} s | load {loads[(name, label)][-1]:.1f}",
                    file=sys.stderr,
                    flush=True,
                )
        print(f"  repeat {repeat + 1}/{args.repeats}", file=sys.stderr)

    labels = list(trees)
    header = ["command"] + [f"{label}: s (load avg)" for label in labels]
    if len(labels) == 2:
        header.append("after / before")
    rows = []
    for name in names:
        medians = {label: statistics.median(seconds[(name, label)]) for label in labels}
        row = [name] + [f"{medians[label]:.2f} ({statistics.median(loads[(name, label)]):.1f})" for label in labels]
        if len(labels) == 2:
            ratios = [a / b for a, b in zip(seconds[(name, labels[1])], seconds[(name, labels[0])], strict=True)]
            row.append(f"{statistics.median(ratios):.2f}")
        rows.append(row)
    print(
        f"\nmedian of {args.repeats} fresh processes per cell; 1-minute load average at the start of each run "
        f"(median) in brackets; {os.cpu_count()} CPU cores\n"
    )
    print(table(header, rows))


if __name__ == "__main__":
    main()
