"""The question-time shortcuts keep what they replace: ``scored`` builds the same ``NodeWithScore``
as pydantic, the BM25 retriever ranks as ``bm25s.BM25.retrieve`` does, and a plugin command
registered as a :class:`~criss_rag.cli.lazy.LazyCommand` shows and runs as the command itself."""

from __future__ import annotations

import click
import pytest
from click.testing import CliRunner
from llama_index.core.schema import NodeWithScore, TextNode

from criss_rag.cli.lazy import LazyCommand
from criss_rag.cli.main import build_cli
from criss_rag.engine import Engine
from criss_rag.errors import PluginError
from criss_rag.indexing.ingestion import ingest
from criss_rag.plugins import PluginHost
from criss_rag.testing import TINY_CORPUS, pipeline_from_yaml, plugin_host
from criss_rag.types import Query, scored


def test_scored_is_the_validated_node_with_score():
    node = TextNode(id_="a", text="Liver cancer is treated with surgery.", metadata={"title": "Liver"})
    fast, validated = scored(node, 0.5), NodeWithScore(node=node, score=0.5)
    assert fast == validated and fast.model_dump_json() == validated.model_dump_json()
    assert fast.node is node and fast.node_id == "a" and fast.get_content() == node.get_content()
    assert fast.model_copy(update={"score": 0.7}).score == 0.7 and repr(fast) == repr(validated)


def test_scored_takes_only_a_node():
    with pytest.raises(TypeError, match="takes a LlamaIndex node, not dict"):
        scored({"text": "not a node"}, 0.5)  # type: ignore[arg-type]


QUESTIONS = ["liver cancer hepatitis", "breast cancer mammography screening", "risk of cancer", "zzz unknown"]


def test_bm25_ranks_as_bm25s_retrieve(tmp_path):
    pipeline = pipeline_from_yaml("""\
name: lexical
loader: {name: fake-loader}
chunker: {name: fake-chunker}
retrievers: [{name: bm25, top_k: 3}]
context: {name: fake-all}
generator: {name: fake-echo}
""", tmp_path, plugin_host(entry_points=True))
    ingest(pipeline)
    retriever = Engine.open(pipeline).retrievers[0][1]
    assert len(retriever._node_ids) >= len(TINY_CORPUS)  # noqa: SLF001 - every chunk of the corpus
    ranked = 0
    for question in QUESTIONS:
        terms = " ".join(retriever.analyzer.analyze(question)).lower().split()
        rows, scores = retriever._index.retrieve([terms], k=3, show_progress=False)  # noqa: SLF001
        expected = [(retriever._node_ids[r], float(s)) for r, s in zip(rows[0], scores[0], strict=True) if s > 0]  # noqa: SLF001
        found = retriever.retrieve(Query(question), 3)
        assert [(n.node_id, n.score) for n in found] == expected
        ranked += len(found) > 1
    assert ranked >= 2  # the comparison saw real rankings, not only empty answers


@click.command()
@click.option("--times", type=int, default=1)
def greet(times: int) -> None:
    """Say hello, as many times as asked.

    More text that the list of commands leaves out."""
    click.echo("hello " * times)


def root_with(command: click.Command) -> click.Group:
    group = click.Group("root")
    group.add_command(command)
    return group


def test_lazy_command_lists_runs_and_helps_as_the_command():
    lazy = LazyCommand("greet", f"{__name__}:greet", help="Say hello, as many times as asked.")
    runner = CliRunner()
    listed = runner.invoke(root_with(lazy), ["--help"]).output
    assert listed == runner.invoke(root_with(greet), ["--help"]).output
    assert runner.invoke(root_with(lazy), ["greet", "--times", "2"]).output == "hello hello \n"
    assert "--times INTEGER" in runner.invoke(root_with(lazy), ["greet", "--help"]).output


def test_lazy_command_that_cannot_be_imported_says_which():
    lazy = LazyCommand("gone", "no_such_module_here:command", help="Gone.")
    with pytest.raises(PluginError, match="'gone' is registered as 'no_such_module_here:command'"):
        lazy.command()
    with pytest.raises(PluginError, match="not a click command"):
        LazyCommand("text", f"{__name__}:QUESTIONS", help="Not a command.").command()


@pytest.mark.parametrize("name", ["crawl", "serve"])
def test_bundled_lazy_commands_show_their_commands_help(name):
    """The help a plugin registers with its LazyCommand is the command's own docstring."""
    cli = build_cli(PluginHost(strict=False))
    lazy = cli.commands[name]
    assert isinstance(lazy, LazyCommand)
    assert " ".join(lazy.help.split()) == " ".join(lazy.command().help.split("\n\n")[0].split())


def test_strict_mode_imports_lazy_commands_at_load():
    cli = build_cli(PluginHost(strict=True))
    assert all(command._command is not None for command in cli.commands.values()  # noqa: SLF001
               if isinstance(command, LazyCommand))
