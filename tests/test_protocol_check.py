"""Every component a pipeline builds is checked against its kind's Protocol (criss_rag.protocols):
a missing, misspelt or wrongly declared method is an error naming the plugin, the component, the
method and the protocol, when the pipeline loads and in ``criss-rag validate``; never an
AttributeError in the middle of a question."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from click.testing import CliRunner
from pydantic import BaseModel

from criss_rag import hookimpl
from criss_rag.cli.main import build_cli
from criss_rag.errors import PluginError
from criss_rag.indexing.executors import open_executor
from criss_rag.protocols import BY_KIND, Fusion, Reranker, Retriever, protocol_methods, protocol_problems
from criss_rag.registry import KINDS
from criss_rag.testing import FAKE_PIPELINE_YAML, ReverseReranker, pipeline_from_yaml, plugin_host


class MisspeltReranker:
    """Its method is named ``re_rank``: the engine calls ``rerank``."""

    def __init__(self, params: BaseModel, ctx: object) -> None:
        pass

    def re_rank(self, query, hits):
        return hits


class OneArgumentReranker:
    def __init__(self, params: BaseModel, ctx: object) -> None:
        pass

    def rerank(self, query):
        return []


class NoMethodsExecutor:
    def __init__(self, params: BaseModel, ctx: object) -> None:
        pass


def broken_plugin() -> SimpleNamespace:
    @hookimpl
    def register_rerankers(register):
        register("misspelt", MisspeltReranker)
        register("one-argument", OneArgumentReranker)

    @hookimpl
    def register_executors(register):
        register("no-methods", NoMethodsExecutor)

    return SimpleNamespace(register_rerankers=register_rerankers, register_executors=register_executors)


YAML = FAKE_PIPELINE_YAML + "rerankers: [{name: misspelt}]\n"


def test_a_misspelt_method_is_an_error_naming_plugin_component_method_and_protocol(tmp_path):
    pipeline = pipeline_from_yaml(YAML, tmp_path, plugin_host({"broken": broken_plugin()}))
    with pytest.raises(PluginError) as caught:
        pipeline.many("rerankers")
    message = str(caught.value)
    for part in ("stage rerankers", "reranker 'misspelt'", "plugin 'broken'", "no method `rerank(query, hits)`",
                 "it has `re_rank`", "Reranker protocol", "criss_rag.protocols.Reranker", "MisspeltReranker"):
        assert part in message, (part, message)


def test_a_method_that_cannot_take_the_engines_arguments_is_an_error(tmp_path):
    yaml_text = FAKE_PIPELINE_YAML + "rerankers: [{name: one-argument}]\n"
    pipeline = pipeline_from_yaml(yaml_text, tmp_path, plugin_host({"broken": broken_plugin()}))
    with pytest.raises(PluginError, match=r"`rerank\(query\)` cannot be called as `rerank\(query, hits\)`"):
        pipeline.many("rerankers")


def test_validate_reports_the_broken_component(tmp_path):
    config = tmp_path / "broken.yaml"
    config.write_text(YAML, encoding="utf-8")
    host = plugin_host({"broken": broken_plugin()})
    result = CliRunner().invoke(build_cli(host), ["validate", str(config)], obj={"host": host}, catch_exceptions=False)
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "plugin 'broken'" in result.output and "no method `rerank(query, hits)`" in result.output


def test_an_executor_is_checked_when_opened(tmp_path):
    pipeline = pipeline_from_yaml(FAKE_PIPELINE_YAML, tmp_path, plugin_host({"broken": broken_plugin()}))
    with pytest.raises(PluginError, match=r"executor 'no-methods' of plugin 'broken'.*no method `map_batches\(setup, "
                                          r"batches\)`"):
        open_executor(pipeline, "no-methods")
    assert open_executor(pipeline, "fake-inline") is not None


def test_every_fake_component_satisfies_its_protocol_and_the_typed_build_returns_it(tmp_path):
    """The control: the kit's fakes of every kind pass; ``build(cc, Protocol)`` returns the component
    and refuses a Protocol of another kind."""
    pipeline = pipeline_from_yaml(FAKE_PIPELINE_YAML + "rerankers: [{name: fake-reverse}]\n", tmp_path)
    [(cc, reranker)] = pipeline.many("rerankers", Reranker)
    assert isinstance(reranker, ReverseReranker) and pipeline.build(cc, Reranker) is reranker
    with pytest.raises(TypeError, match="holds a reranker, not a Fusion"):
        pipeline.build(cc, Fusion)
    assert protocol_problems(reranker, Reranker) == []


def test_every_kind_with_a_protocol_is_a_registry_kind_and_methods_are_read_through_inheritance():
    assert set(BY_KIND) == set(KINDS) - {"embedding", "llm"}
    assert set(protocol_methods(Retriever)) == {"build", "load", "retrieve"}
    assert protocol_methods(Reranker) == {"rerank": ["query", "hits"]}
