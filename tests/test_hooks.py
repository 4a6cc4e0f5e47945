"""Every hook in the hookspec module has a test: a plugin implementing only that hook registers a
component, and the component is then used the way the engine or the CLI uses it."""

from __future__ import annotations

import inspect
from types import SimpleNamespace

import click
import pytest
from click.testing import CliRunner
from llama_index.core.schema import MetadataMode

from criss_rag import hookimpl, hookspecs
from criss_rag.cli.main import build_cli
from criss_rag.context import ComponentContext
from criss_rag.indexing.embedding_cache import text_key
from criss_rag.indexing.executors import open_executor
from criss_rag.indexing.ingestion import ingest
from criss_rag.registry import KINDS
from criss_rag.testing import (
    FAKE_PIPELINE_YAML,
    AllContext,
    DropDocFilter,
    EchoGenerator,
    ExactCache,
    FakeAnalyzer,
    FakeChunker,
    FakeJudge,
    FakeLoader,
    FakeMetric,
    InlineExecutor,
    KeywordRetriever,
    MinScoreRefusal,
    ReverseReranker,
    ScriptedHops,
    SharedWordVerifier,
    SuffixTransform,
    TopFusion,
    fake_llm,
    hash_embedding,
    pipeline_from_yaml,
    plugin_host,
    replaced,
    run_pipeline,
)

# kind -> (factory, YAML added to the fake pipeline so the engine uses the component)
USES = {
    "loader": (FakeLoader, "loader: {name: NAME}"),
    "chunker": (FakeChunker, "chunker: NAME"),
    "embedding": (hash_embedding, "embedding: NAME\nretrievers: [{name: fake-keyword, dense: true}]"),
    "llm": (fake_llm, "llms: {mine: {name: NAME}}"),
    "analyzer": (FakeAnalyzer, ""),
    "query_transform": (SuffixTransform, "query_transforms: [NAME]"),
    "retriever": (KeywordRetriever, "retrievers: [{name: NAME}]"),
    "fusion": (TopFusion, "retrievers: [{name: fake-keyword}, {name: fake-keyword, label: two}]\nfusion: NAME"),
    "hop_policy": (ScriptedHops, "multihop: {name: NAME, queries: [smoking]}"),
    "filter": (DropDocFilter, "filters: [{name: NAME, doc_id: liver}]"),
    "reranker": (ReverseReranker, "rerankers: [NAME]"),
    "refusal": (MinScoreRefusal, "refusal: {name: NAME, min_score: 0}"),
    "context": (AllContext, "context: NAME"),
    "generator": (EchoGenerator, "generator: NAME"),
    "verifier": (SharedWordVerifier, "verifier: NAME"),
    "cache": (ExactCache, "cache: NAME"),
    "judge": (FakeJudge, ""),
    "metric": (FakeMetric, ""),
    "executor": (InlineExecutor, "embedding: fake-hash\nretrievers: [{name: fake-keyword, dense: true}]"),
}


def only_hook(hook_name: str, component: str, factory) -> SimpleNamespace:
    def impl(register):
        register(component, factory)

    impl.__name__ = hook_name
    return SimpleNamespace(**{hook_name: hookimpl(impl)})


def with_stage(yaml_text: str, addition: str) -> str:
    """The fake pipeline with the stages in ``addition`` replaced or added."""
    lines = yaml_text.splitlines()
    for new in addition.splitlines():
        key = new.split(":", 1)[0]
        lines = [line for line in lines if not line.startswith(f"{key}:")] + [new]
    return "\n".join(lines) + "\n"


def test_every_hook_is_covered_here():
    hooks = {name for name, fn in inspect.getmembers(hookspecs, inspect.isfunction) if name.startswith("register_")}
    assert hooks == set(KINDS.values()) | {"register_commands"}
    assert set(USES) == set(KINDS)


@pytest.mark.parametrize("kind", list(KINDS))
def test_hook_registers_a_component_the_engine_uses(kind, tmp_path):
    hook_name = KINDS[kind]
    factory, addition = USES[kind]
    name = f"only-{kind.replace('_', '-')}"
    host = plugin_host({"solo": only_hook(hook_name, name, factory)})
    spec = host.registry.get(kind, name)
    assert spec.plugin == "solo" and spec.factory is factory
    assert host.plugins["solo"].hooks == [hook_name]

    if kind == "analyzer":
        pipeline = pipeline_from_yaml(FAKE_PIPELINE_YAML, tmp_path, host)
        assert ComponentContext(pipeline, "test").analyzer(name).analyze("Lung cancer screening") == [
            "lung",
            "cancer",
            "screening",
        ]
        return
    if kind in ("judge", "metric"):
        answer = run_pipeline(FAKE_PIPELINE_YAML, "Which test finds stomach cancer?", tmp_path, host)
        component = factory(factory.Params() if hasattr(factory, "Params") else None, None)
        if kind == "judge":
            verdict = component.judge({}, answer)
            assert verdict.scores == {"grounded": 1.0} and verdict.flags == {"uncited": False}
            assert not verdict.parse_failed
        else:
            assert component.compute({}, answer) == {"answer_chars": float(len(answer.text))}
        return
    # an executor is named on the command line, not in the config: its addition has no NAME
    yaml_text = with_stage(FAKE_PIPELINE_YAML, replaced(addition, "NAME", name) if "NAME" in addition else addition)
    if kind != "refusal":  # the fake refusal policy lets every question through (a refusal kind replaces it)
        yaml_text = replaced(yaml_text, "min_score: 1", "min_score: 0")
    if kind == "executor":  # `ingest --executor NAME`: the chunks are embedded on it, into the cache
        pipeline = pipeline_from_yaml(yaml_text, tmp_path, host)
        executor = open_executor(pipeline, name)
        ingest(pipeline, executor=executor)
        chunks = FakeChunker(None, None).chunk(list(FakeLoader(FakeLoader.Params(), None).load()))
        keys = [text_key(c.get_content(MetadataMode.EMBED)) for c in chunks]
        cache = pipeline.embedding_cache()
        assert executor.batches == 1 and len(cache.get_many(pipeline.embedding_model_id(), keys)) == len(set(keys))
        cache.close()
        return
    if kind == "llm":
        pipeline = pipeline_from_yaml(yaml_text, tmp_path, host)
        assert ComponentContext(pipeline, "test").llm("mine").complete("hi").text == "fake reply [1]"
        return
    answer = run_pipeline(yaml_text, "Which test finds stomach cancer?", tmp_path, host)
    stages = {s.component for s in answer.trace.stages}
    if kind in ("loader", "chunker", "embedding"):  # ingest-time components: the index was built with them
        assert answer.citations, answer.refusal_detail
    else:
        assert name in stages, [s.stage for s in answer.trace.stages]


def test_register_commands_adds_a_working_cli_command():
    @click.command(name="hello")
    def hello() -> None:
        """Say hello."""
        click.echo("hello from a plugin")

    class CommandPlugin:
        @hookimpl
        def register_commands(self, cli):
            cli.add_command(hello)

    host = plugin_host({"greeter": CommandPlugin()})
    assert "register_commands" in host.plugins["greeter"].hooks
    result = CliRunner().invoke(build_cli(host), ["hello"], obj={"host": host})
    assert result.exit_code == 0 and result.output == "hello from a plugin\n"
    assert "hello" not in build_cli(plugin_host()).commands  # each host gets its own root command
