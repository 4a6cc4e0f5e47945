"""The test tiers stay true: every file and test tests/tiers.py names exists (a rename cannot put
a slow test into `make test-fast` unnoticed), the marks are the ones pyproject.toml declares with
--strict-markers, and conftest gives each collected test its tier."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest
from tiers import SLOW_TESTS, TIER_BY_FILE, tier_of

TESTS = Path(__file__).parent
PYPROJECT = TESTS.parent / "pyproject.toml"


def _test_functions(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}


def test_every_named_file_and_test_exists():
    missing_files = [name for name in [*TIER_BY_FILE, *SLOW_TESTS] if not (TESTS / name).is_file()]
    assert not missing_files, f"tests/tiers.py names files that do not exist: {missing_files}"
    missing = [f"{name}::{test}" for name, tests in SLOW_TESTS.items()
               for test in sorted(tests - _test_functions(TESTS / name))]
    assert not missing, f"tests/tiers.py names tests that do not exist (renamed?): {missing}"
    assert not set(TIER_BY_FILE) & set(SLOW_TESTS), "a file is either tiered whole or test by test"


def test_the_marks_are_declared_and_strict():
    config = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["tool"]["pytest"]["ini_options"]
    declared = {line.split(":")[0] for line in config["markers"]}
    assert {"slow", "integration", "browser"} <= declared
    assert set(TIER_BY_FILE.values()) <= declared
    assert "--strict-markers" in config["addopts"].split()


def test_tier_of_reads_both_tables():
    file_name, tests = next(iter(SLOW_TESTS.items()))
    assert tier_of(file_name, next(iter(tests))) == "slow"
    assert tier_of(file_name, "test_no_such_test") is None
    assert tier_of("test_serve_browser.py", "anything") == "browser"
    assert tier_of("test_tiers.py", "test_tier_of_reads_both_tables") is None


def test_collected_tests_carry_their_tier(request: pytest.FixtureRequest):
    items = request.session.items
    assert request.node.get_closest_marker("slow") is None  # this file is in the fast tier
    for item in items:
        mark = tier_of(item.path.name, getattr(item, "originalname", item.name))
        if mark is not None:
            assert item.get_closest_marker(mark) is not None, f"{item.nodeid} lacks its tier mark {mark!r}"
