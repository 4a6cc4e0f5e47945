"""The list of bundled components in docs/plugin-hooks.md is generated from the registry and is
fresh; the hook catalogue (hookspecs.py) keeps no hand-written list of them that could go stale."""

from __future__ import annotations

import inspect
import re
from pathlib import Path

from criss_rag import hookspecs
from criss_rag.config.reference_tables import BUNDLED_BLOCK, bundled_plugins, plugin_commands, update
from criss_rag.plugins import PluginHost
from criss_rag.registry import KINDS

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "plugin-hooks.md"


def test_the_hooks_table_lists_every_hook_and_its_bundled_column_is_fresh():
    text = PAGE.read_text(encoding="utf-8")
    block = BUNDLED_BLOCK.search(text)
    assert block is not None, "docs/plugin-hooks.md lost its <!-- bundled-components --> block"
    hooks = [
        m[1] for line in block[2].splitlines() if line.startswith("| ") and (m := re.search(r"`(register_\w+)`", line))
    ]
    assert sorted(hooks) == sorted([*KINDS.values(), "register_commands"]) and len(hooks) == len(set(hooks))
    host = PluginHost(strict=True)
    bundled = bundled_plugins(ROOT / "plugins")
    missing = sorted(bundled - set(host.plugins))
    assert not missing, f"bundled plugins not installed: {missing}"
    fresh = update(text, host.registry, bundled, plugin_commands(host))
    assert fresh == text, ("docs/plugin-hooks.md is stale: run "
                           "`python -m criss_rag.config.reference_tables docs/plugin-hooks.md`")


def test_the_generated_cell_follows_the_registry():
    """The control: a component the registry gains (or a plugin it loses) changes the table."""
    text = PAGE.read_text(encoding="utf-8")
    host = PluginHost(strict=True)
    bundled = set(host.plugins) - {"titleboost"}
    before = update(text, host.registry, bundled, {})
    host.registry.add("reranker", "added-for-the-test", "criss_rag.testing:ReverseReranker", plugin="basic")
    after = update(text, host.registry, bundled, {})
    assert "`added-for-the-test`" in after and "`added-for-the-test`" not in before
    assert "basic: " not in update(text, host.registry, bundled - {"basic"}, {})


def test_hook_docstrings_keep_no_bundled_lists():
    stale = [name for name, func in inspect.getmembers(hookspecs, inspect.isfunction)
             if name.startswith("register_") and "Bundled" in (func.__doc__ or "")]
    assert stale == []
