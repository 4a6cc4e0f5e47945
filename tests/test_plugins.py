"""Plugin loading: fail soft per plugin, strict on request, duplicates name both plugins."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from criss_rag import hookimpl
from criss_rag.errors import ConfigError, PluginError
from criss_rag.plugins import PluginHost
from criss_rag.registry import KINDS
from criss_rag.testing import EchoGenerator, fake_plugin, plugin_host


class _Duplicate:
    @hookimpl
    def register_generators(self, register):
        register("fake-echo", EchoGenerator)


class _Raises:
    @hookimpl
    def register_retrievers(self, register):
        raise RuntimeError("model file missing")


class _Misspelled:
    @hookimpl
    def register_retriever(self, register):  # not a hook: typo of register_retrievers
        register("x", EchoGenerator)


class _LaxParams:
    class Gen:
        from pydantic import BaseModel

        class Params(BaseModel):
            x: int = 1

        def __init__(self, params, ctx):
            pass

    @hookimpl
    def register_generators(self, register):
        register("lax", self.Gen)


def test_fake_plugin_registers_every_kind():
    host = plugin_host()
    assert set(host.plugins["fake"].components) == set(KINDS)
    assert set(host.plugins["fake"].hooks) == set(KINDS.values())


def test_duplicate_component_names_both_plugins_and_is_fatal_in_strict_mode():
    with pytest.raises(
        PluginError, match=r"generator 'fake-echo' is registered twice: by plugin 'fake' and by plugin 'dup'"
    ):
        plugin_host({"dup": _Duplicate()}, strict=True)


def test_duplicate_component_is_unusable_in_soft_mode():
    host = plugin_host({"dup": _Duplicate()}, strict=False)
    assert [f.stage for f in host.failures] == ["conflict"]
    assert "by plugin 'fake' and by plugin 'dup'" in host.failures[0].error
    with pytest.raises(ConfigError, match="registered by more than one plugin"):
        host.registry.get("generator", "fake-echo")


def test_plugin_raising_while_registering_is_skipped_and_reported():
    host = plugin_host({"broken": _Raises()}, strict=False)
    assert "broken" not in host.plugins
    assert host.failures[0].name == "broken"
    assert "RuntimeError: model file missing" in host.failures[0].error
    assert "fake" in host.plugins  # the others still load


def test_plugin_raising_is_fatal_in_strict_mode():
    with pytest.raises(PluginError, match="(?s)plugin 'broken' failed at register.*strict mode"):
        plugin_host({"broken": _Raises()}, strict=True)


def test_misspelled_hook_is_reported():
    host = plugin_host({"typo": _Misspelled()}, strict=False)
    assert host.failures and host.failures[0].name == "typo"
    assert "register_retriever" in host.failures[0].error


def test_params_must_forbid_unknown_keys():
    host = plugin_host({"lax": _LaxParams()}, strict=False)
    assert "extra='forbid'" in host.failures[0].error


class _References:
    """Registers by "module:attribute" reference: a good one, one whose module is missing."""

    @hookimpl
    def register_generators(self, register):
        register("by-reference", "criss_rag.testing:EchoGenerator")
        register("missing", "criss_rag_no_such_module.generator:Gen")


def test_a_reference_is_imported_on_first_use_and_names_its_plugin_when_it_cannot_be():
    host = plugin_host({"refs": _References()}, strict=False)
    assert host.plugins["refs"].components == {"generator": ["by-reference", "missing"]}
    assert host.registry.get("generator", "by-reference").factory is EchoGenerator
    with pytest.raises(PluginError, match=r"plugin 'refs': generator 'missing' is registered as "
                                          r"'criss_rag_no_such_module.generator:Gen', which cannot be imported "
                                          r"\(ModuleNotFoundError"):
        _ = host.registry.get("generator", "missing").factory


def test_a_reference_that_cannot_be_imported_is_fatal_at_load_in_strict_mode():
    with pytest.raises(PluginError, match="(?s)plugin 'refs' failed at register.*generator 'missing'.*strict mode"):
        plugin_host({"refs": _References()}, strict=True)


def test_a_reference_must_read_module_colon_attribute():
    class Bad:
        @hookimpl
        def register_generators(self, register):
            register("bad", "criss_rag.testing.EchoGenerator")

    host = plugin_host({"bad": Bad()}, strict=False)
    assert "must read 'module:attribute'" in host.failures[0].error


def test_only_list_loads_named_plugins_and_reports_missing_ones():
    host = PluginHost(strict=False, only={"fake", "nope"}, use_entry_points=False,
                      extra_plugins={"fake": fake_plugin, "dup": _Duplicate()})
    assert set(host.plugins) == {"fake"}
    assert [(f.name, f.stage) for f in host.failures] == [("nope", "import")]


def test_env_switches_are_read(monkeypatch):
    monkeypatch.setenv("CRISS_RAG_STRICT_PLUGINS", "1")
    monkeypatch.setenv("CRISS_RAG_LOAD_PLUGINS", "fake")
    host = PluginHost(use_entry_points=False, extra_plugins={"fake": fake_plugin, "dup": _Duplicate()})
    assert host.strict is True
    assert set(host.plugins) == {"fake"}


# -- real entry points -----------------------------------------------------------------------

def _cli(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "criss_rag", *args], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, timeout=300)


def test_installed_example_plugin_is_found_through_its_entry_point():
    result = _cli("plugins", "--json", env={"CRISS_RAG_STRICT_PLUGINS": "1"})
    assert result.returncode == 0, result.stderr
    plugins = {p["name"]: p for p in json.loads(result.stdout)["plugins"]}
    assert plugins["titleboost"]["distribution"] == "criss-rag-titleboost"
    assert plugins["titleboost"]["components"] == {"reranker": ["title-boost"]}
    for bundled in ("basic", "bm25", "faiss", "minilm"):  # bundled plugins load the same way
        assert bundled in plugins


def _broken_distribution(root: Path) -> dict[str, str]:
    """A distribution on PYTHONPATH whose entry point raises on import."""
    (root / "criss_rag_broken.py").write_text("raise ImportError('needs a library that is not installed')\n")
    info = root / "criss_rag_broken-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: criss-rag-broken\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[criss_rag]\nbroken = criss_rag_broken\n")
    return {"PYTHONPATH": str(root)}


def test_plugin_raising_on_import_is_reported_and_skipped(tmp_path):
    env = _broken_distribution(tmp_path)
    result = _cli("plugins", "--json", env={**env, "CRISS_RAG_STRICT_PLUGINS": "0"})
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["failures"][0]["name"] == "broken"
    assert "needs a library that is not installed" in data["failures"][0]["error"]
    assert "basic" in {p["name"] for p in data["plugins"]}
    assert "warning: plugin 'broken' failed at import" in result.stderr


def test_plugin_raising_on_import_is_fatal_in_strict_mode(tmp_path):
    env = _broken_distribution(tmp_path)
    result = _cli("plugins", env={**env, "CRISS_RAG_STRICT_PLUGINS": "1"})
    assert result.returncode == 2
    assert "plugin 'broken' failed at import" in result.stderr
    assert "Traceback" not in result.stderr


def test_example_plugin_is_usable_from_yaml(tmp_path):
    host = PluginHost(strict=True, extra_plugins={"fake": fake_plugin})
    from criss_rag.testing import FAKE_PIPELINE_YAML, run_pipeline

    yaml_text = FAKE_PIPELINE_YAML + "rerankers: [{name: title-boost, weight: 2}]\n"
    answer = run_pipeline(yaml_text, "What is pancreatic cancer?", tmp_path, host=host)
    assert answer.citations[0].doc_id == "pancreatic"
    assert answer.trace.stage("reranker:title-boost").n_out > 0
