"""The benchmark scripts' own logic that the figures depend on: the refusal sweep reads every way
question files mark out-of-scope questions."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_refusal_sweep_reads_every_out_of_scope_marker():
    spec = importlib.util.spec_from_file_location("refusal_sweep", ROOT / "benchmarks" / "refusal_sweep.py")
    sweep = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(sweep)
    assert sweep.out_of_scope({"expected": "refuse"}) and sweep.out_of_scope({"scope": "out"})
    assert sweep.out_of_scope({"expected_behavior": "out_of_scope"})
    assert not sweep.out_of_scope({"expected": "answer"}) and not sweep.out_of_scope({"scope": "in"})
    jlcs = [
        json.loads(line) for line in (ROOT / "examples" / "experiments" / "jlcs-questions.jsonl").open(encoding="utf-8")
    ]
    assert sum(map(sweep.out_of_scope, jlcs)) > 0  # the file that marks them `scope: out` has some
