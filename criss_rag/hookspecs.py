"""Hook specifications: the catalogue of what a criss_rag plugin can provide.

Every hook here only *registers*: it receives a ``register`` callable and calls it once per
component, ``register(name, factory)``. Per-query work never goes through the plugin manager; the
engine calls the components directly through the typed protocols in :mod:`criss_rag.protocols`.

A factory is a class (or callable) taking ``(params, ctx)``: ``params`` is an instance of the
factory's ``Params`` pydantic model (validated from YAML, unknown keys rejected) and ``ctx`` is a
:class:`criss_rag.context.ComponentContext`. A factory without ``Params`` takes no options. A
plugin may register a ``"module:attribute"`` reference instead of the factory itself: it is
imported the first time a pipeline uses the component, so that loading the plugin stays cheap.

Example plugin module (registered under the entry-point group ``criss_rag``)::

    from criss_rag import hookimpl

    @hookimpl
    def register_retrievers(register):
        register("my-search", "my_plugin.retriever:MySearchRetriever")

``docs/plugin-hooks.md`` documents each hook with its exact signature (a test keeps it in sync)
and lists what the bundled plugins register (generated from the registry); each component a
pipeline builds is checked against its kind's Protocol (``criss_rag.protocols.BY_KIND``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    import click

    from criss_rag.registry import Register

PROJECT_NAME = "criss_rag"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)

#: Deprecated hooks: name -> what to implement instead. A plugin implementing one still works and
#: gets a ``CrissRagDeprecationWarning`` naming the plugin; the hook is removed no earlier than the
#: next minor release after the deprecation shipped (see docs/plugin-hooks.md, "Compatibility").
DEPRECATED_HOOKS: dict[str, str] = {}


@hookspec
def register_loaders(register: Register) -> None:
    """Register corpus loaders (protocol :class:`~criss_rag.protocols.Loader`).

    A loader turns a source (a file, a folder, an export) into LlamaIndex ``Document`` objects
    with a stable ``doc_id`` and metadata such as ``title`` and ``url``.

    :param register: call ``register(name, factory)`` for each loader.
    """


@hookspec
def register_chunkers(register: Register) -> None:
    """Register chunkers (protocol :class:`~criss_rag.protocols.Chunker`).

    A chunker splits documents into ``TextNode`` chunks that keep the document's metadata and
    point back to it (``ref_doc_id``), so every citation maps to a source document.

    :param register: call ``register(name, factory)`` for each chunker.
    """


@hookspec
def register_embeddings(register: Register) -> None:
    """Register embedding models (the factory returns a LlamaIndex ``BaseEmbedding``).

    The factory's result is used as it is: components that need vectors (a dense
    retriever) get it from ``ctx.embedding()``, never from LlamaIndex's global ``Settings``.

    :param register: call ``register(name, factory)`` for each embedding model.
    """


@hookspec
def register_llms(register: Register) -> None:
    """Register LLM backends (the factory returns a LlamaIndex ``LLM``).

    A pipeline names its LLMs under ``llms:`` (``{my-llm: {name: ollama, model: ...}}``);
    components that need one (an LLM generator, a keyword extractor, an LLM reranker) name it by
    that key and get it from ``ctx.llm(key)``. Nothing ever falls back to a default LLM.

    :param register: call ``register(name, factory)`` for each LLM backend.
    """


@hookspec
def register_analyzers(register: Register) -> None:
    """Register text analyzers (protocol :class:`~criss_rag.protocols.Analyzer`).

    An analyzer turns text into index terms (tokenising, normalising, stemming). Lexical
    retrievers, the extractive generator and text metrics share them via ``ctx.analyzer(name)``.

    :param register: call ``register(name, factory)`` for each analyzer.
    """


@hookspec
def register_query_transforms(register: Register) -> None:
    """Register query transforms (protocol :class:`~criss_rag.protocols.QueryTransform`).

    A query transform rewrites what retrieval searches for (e.g. keywords extracted from the
    question); the original question is kept for generation.

    :param register: call ``register(name, factory)`` for each query transform.
    """


@hookspec
def register_retrievers(register: Register) -> None:
    """Register retrievers (protocol :class:`~criss_rag.protocols.Retriever`).

    A retriever builds its own index at ingest time (``build``), loads it at query time
    (``load``) and returns scored ``NodeWithScore`` candidates for a query (``retrieve``).
    Optionally it updates its index in place when the corpus changed (``update``; without it, a
    changed corpus rebuilds it whole).

    :param register: call ``register(name, factory)`` for each retriever.
    """


@hookspec
def register_fusions(register: Register) -> None:
    """Register fusion methods (protocol :class:`~criss_rag.protocols.Fusion`).

    Fusion merges the ranked lists of several retrievers into one ranking.

    :param register: call ``register(name, factory)`` for each fusion method.
    """


@hookspec
def register_hop_policies(register: Register) -> None:
    """Register multi-hop policies (protocol :class:`~criss_rag.protocols.HopPolicy`).

    After each retrieval hop the engine asks the policy for a follow-up query; ``None`` ends the
    loop. The engine merges each hop's candidates and records every hop in the trace.

    :param register: call ``register(name, factory)`` for each hop policy.
    """


@hookspec
def register_filters(register: Register) -> None:
    """Register post-retrieval filters (protocol :class:`~criss_rag.protocols.Filter`).

    A filter drops candidates (e.g. by metadata, cancer type or diagnosis year); the trace
    records how many went in and out.

    :param register: call ``register(name, factory)`` for each filter.
    """


@hookspec
def register_rerankers(register: Register) -> None:
    """Register rerankers (protocol :class:`~criss_rag.protocols.Reranker`).

    A reranker re-scores and re-orders candidates without the power to invent new ones.

    :param register: call ``register(name, factory)`` for each reranker.
    """


@hookspec
def register_refusal_policies(register: Register) -> None:
    """Register refusal policies (protocol :class:`~criss_rag.protocols.RefusalPolicy`).

    A policy decides, before any generation, whether the evidence is strong enough to answer.
    When it refuses, the engine calls no generator.

    :param register: call ``register(name, factory)`` for each policy.
    """


@hookspec
def register_context_builders(register: Register) -> None:
    """Register context builders (protocol :class:`~criss_rag.protocols.ContextBuilder`).

    A context builder picks and numbers the evidence passages the generator may cite.

    :param register: call ``register(name, factory)`` for each context builder.
    """


@hookspec
def register_generators(register: Register) -> None:
    """Register answer generators (protocol :class:`~criss_rag.protocols.Generator`).

    A generator writes the answer from the numbered evidence, citing it as ``[n]``.

    :param register: call ``register(name, factory)`` for each generator.
    """


@hookspec
def register_verifiers(register: Register) -> None:
    """Register sentence verifiers (protocol :class:`~criss_rag.protocols.Verifier`).

    After generation the engine splits the answer into sentences, reads their ``[n]`` markers and
    asks the pipeline's verifier (YAML ``verifier:``; the built-in meaning check when none is named)
    whether the evidence supports each one. The verdicts are ``Answer.sentences``.

    :param register: call ``register(name, factory)`` for each verifier.
    """


@hookspec
def register_caches(register: Register) -> None:
    """Register answer caches (protocol :class:`~criss_rag.protocols.AnswerCache`).

    A pipeline that names a cache (YAML ``cache:``) has the engine look each question up before
    retrieval and store each new answer after it. The engine passes a
    :class:`~criss_rag.types.CacheScope` (config hash, corpus version, request filters, language):
    a cache may only answer from an entry stored under the same scope. Nothing is cached unless
    the config names a cache.

    :param register: call ``register(name, factory)`` for each cache.
    """


@hookspec
def register_judges(register: Register) -> None:
    """Register judges (protocol :class:`~criss_rag.protocols.Judge`).

    A judge grades an answer (e.g. an LLM rubric). A judge that cannot parse its own verdict
    reports that as a failure, never as a score of zero.

    :param register: call ``register(name, factory)`` for each judge.
    """


@hookspec
def register_metrics(register: Register) -> None:
    """Register evaluation metrics (protocol :class:`~criss_rag.protocols.Metric`).

    A metric computes named values for one evaluated record (question, answer, gold data).

    :param register: call ``register(name, factory)`` for each metric.
    """


@hookspec
def register_executors(register: Register) -> None:
    """Register executors (protocol :class:`~criss_rag.protocols.Executor`) for heavy batch work.

    ``criss-rag ingest --executor NAME`` embeds the chunks on the executor (into the embedding
    cache); ``criss-rag eval run --executor NAME`` answers and scores the records there. Without
    one (``--executor local``, the default) the work runs in this process.

    :param register: call ``register(name, factory)`` for each executor.
    """


@hookspec
def register_commands(cli: click.Group) -> None:
    """Add sub-commands to the ``criss-rag`` command line.

    :param cli: the root ``click.Group``; call ``cli.add_command(command)``.
    """
