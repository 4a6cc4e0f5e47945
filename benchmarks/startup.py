"""Start-up: how long each command takes in a fresh process, for two code trees side by side.

Each command runs in a new interpreter and is timed from the call to its exit (for ``serve``: to
the first ``200`` from ``/health``), in wall-clock seconds and in the CPU seconds (user + system)
the process used; the load average of the last minute is read before each run, so the figures can
be read against how busy the machine was (on a busy machine, read the CPU seconds and the module
counts). ``--modules`` also runs each command once more, untimed, with ``-X importtime``, and
counts the modules it imported. With ``--before TREE`` the same
commands run with another checkout's code (e.g. a ``git worktree`` of main) on ``PYTHONPATH``, with
that tree's own ``examples/default.yaml``, alternating with this tree, so that both saw the same
machine; the table gives medians over ``--repeats``, the ratio after/before, and the median load
average of each column's runs.

Commands: ``criss-rag --help``, ``validate``, a cold ``ask`` in English and in Korean,
``criss_rag.open(config)`` (which warms every model up) and ``serve`` until healthy. The index of
each tree's config is built first if missing (untimed).

    python benchmarks/startup.py [--repeats 3] [--before /path/to/main-worktree] [--only validate ...] [--modules]
"""

from __future__ import annotations

import argparse
import os
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
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


def children_cpu() -> float:
    """CPU seconds (user + system) used so far by this process's waited-for children."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(name: str, argv: list[str], env: dict[str, str], tree: Path) -> tuple[float, float, str]:
    """Wall seconds from start to exit (serve: to its first healthy answer, then it is stopped), the
    CPU seconds the process used (serve: until it was stopped) and its stderr. Runs in ``tree``:
    ``python -m`` and ``-c`` put the working folder first on ``sys.path``."""
    cpu_before = children_cpu()
    if name != "serve until healthy":
        started = time.perf_counter()
        result = subprocess.run(argv, env=env, capture_output=True, text=True, cwd=tree)
        seconds = time.perf_counter() - started
        if result.returncode != 0:
            raise SystemExit(f"{name} failed ({result.returncode}): {result.stderr[-2000:]}")
        return seconds, children_cpu() - cpu_before, result.stderr
    port = free_port()
    argv = [a.replace("{port}", str(port)) for a in argv]
    # stderr to a file: a pipe nobody reads while the server starts fills up (-X importtime writes a lot)
    log = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
    started = time.perf_counter()
    server = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=log, text=True, cwd=tree)
    seconds = 0.0
    try:
        while True:
            if server.poll() is not None:
                log.seek(0)
                raise SystemExit(f"serve exited ({server.returncode}): {log.read()[-2000:]}")
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=1) as response:
                    if response.status == 200:
                        seconds = time.perf_counter() - started
                        break
            except OSError:
                time.sleep(0.05)
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        log.seek(0)
        stderr = log.read()
        log.close()
    return seconds, children_cpu() - cpu_before, stderr


def module_count(name: str, argv: list[str], env: dict[str, str], tree: Path) -> int:
    """Modules the command imports (``-X importtime`` lines on stderr), from one more untimed run."""
    _, _, stderr = run_once(name, argv, {**env, "PYTHONPROFILEIMPORTTIME": "1"}, tree)
    return sum(1 for line in stderr.splitlines() if line.startswith("import time:") and "|" in line
               and not line.startswith("import time: self"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--before", type=Path, default=None, help="another checkout to compare with (its code and config)"
    )
    parser.add_argument("--only", nargs="*", default=None, help="command names to run (default: all)")
    parser.add_argument("--modules", action="store_true", help="also count the modules each command imports")
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
    cpu: dict[tuple[str, str], list[float]] = {}
    loads: dict[tuple[str, str], list[float]] = {}
    for repeat in range(args.repeats):
        for name in names:
            for label, tree in trees.items():  # side by side, alternating
                loads.setdefault((name, label), []).append(os.getloadavg()[0])
                wall, used, _ = run_once(name, commands(tree)[name], envs[label], tree)
                seconds.setdefault((name, label), []).append(wall)
                cpu.setdefault((name, label), []).append(used)
                print(f"  {name} | {label} | {wall:.2f} s | CPU {used:.2f} s | load {loads[(name, label)][-1]:.1f}",
                      file=sys.stderr, flush=True)
        print(f"  repeat {repeat + 1}/{args.repeats}", file=sys.stderr)
    modules = {(name, label): module_count(name, commands(tree)[name], envs[label], tree)
               for name in names for label, tree in trees.items()} if args.modules else {}

    labels = list(trees)
    header = ["command"]
    for label in labels:
        header += [f"{label}: s (load avg)", f"{label}: CPU s"] + ([f"{label}: modules"] if modules else [])
    if len(labels) == 2:
        header += ["after / before (s)", "after / before (CPU)"]
    rows = []
    for name in names:
        row = [name]
        for label in labels:
            row += [f"{statistics.median(seconds[(name, label)]):.2f} ({statistics.median(loads[(name, label)]):.1f})",
                    f"{statistics.median(cpu[(name, label)]):.2f}"]
            row += [str(modules[(name, label)])] if modules else []
        if len(labels) == 2:
            for measured in (seconds, cpu):
                ratios = [a / b for a, b in zip(measured[(name, labels[1])], measured[(name, labels[0])], strict=True)]
                row.append(f"{statistics.median(ratios):.2f}")
        rows.append(row)
    print(
        f"\nmedian of {args.repeats} fresh processes per cell; 1-minute load average at the start of each run "
        f"(median) in brackets; CPU: user + system seconds of the process; {os.cpu_count()} CPU cores\n"
    )
    print(table(header, rows))


if __name__ == "__main__":
    main()
