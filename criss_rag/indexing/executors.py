"""Executors: where heavy batch work runs (``--executor NAME`` on ``ingest`` and ``eval run``).

Without an executor (``--executor local``, the default) everything runs in this process as it
always has. A plugin executor (e.g. ``ray`` from ``criss-rag-ray``) gets the work as a *setup*
callable plus batches of items: each worker calls ``setup()`` once to build what it needs from the
same config (an embedding model, an engine), then runs the function it returned on batches. The
driver (this process) keeps everything stateful: the embedding cache, the records file. So the
results are the same as a local run's, and an interrupted run resumes the same way.
"""

from __future__ import annotations

import functools
import logging
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from pydantic import ValidationError

from criss_rag.config.model import _explain_validation
from criss_rag.config.overrides import apply_overrides
from criss_rag.context import ComponentContext
from criss_rag.errors import ComponentError, ConfigError, CrissRagError
from criss_rag.pipeline import Pipeline
from criss_rag.plugins import PluginHost
from criss_rag.protocols import check_protocol

LOCAL = "local"
#: What a worker receives: a picklable callable that builds the batch function once per worker.
Setup = Callable[[], Callable[[list[Any]], list[Any]]]
log = logging.getLogger("criss_rag.indexing.executors")


def open_executor(pipeline: Pipeline, name: str | None, settings: Sequence[str] = ()) -> Any | None:
    """The executor ``name`` with ``settings`` (``KEY=VALUE``, as ``--executor-set``), built in
    ``pipeline``'s context; ``None`` for ``local`` (the plain in-process behaviour)."""
    if name in (None, "", LOCAL):
        if settings:
            raise ConfigError(f"--executor-set {settings[0]!r}: the local executor takes no settings; "
                              "name an executor with --executor NAME")
        return None
    registry = pipeline.host.registry
    if name not in registry.names("executor"):
        valid = ", ".join([LOCAL, *registry.names("executor")])
        hint = "" if "ray" in registry.names("executor") else " (`pip install criss-rag-ray` adds ray)"
        raise ConfigError(f"--executor {name!r}: no such executor. Executors: {valid}{hint}")
    spec = registry.get("executor", name)
    values = apply_overrides({}, settings)
    try:
        params = spec.params_model.model_validate(values)
    except ValidationError as exc:
        raise ConfigError(_explain_validation(exc, spec.params_model, spec, "executor", (),
                                              lambda path: "--executor-set")) from None
    try:
        executor = spec.factory(params, ComponentContext(pipeline, "executor"))
    except CrissRagError:
        raise
    except Exception as exc:
        raise ComponentError(
            f"executor {name!r} (plugin {spec.plugin!r}) failed to start: {type(exc).__name__}: {exc}"
        ) from exc
    check_protocol("executor", spec, executor)
    return executor


def run_batches(executor: Any, setup: Setup, batches: Iterable[list[Any]]) -> Iterator[list[Any]]:
    """``executor.map_batches(setup, batches)``, or in this process when ``executor`` is ``None``."""
    if executor is not None:
        yield from executor.map_batches(setup, list(batches))
        return
    work = setup()
    for batch in batches:
        yield work(batch)


# -- ingest: embed the chunks on the executor, into the embedding cache ----------------------------


def embed_on_executor(pipeline: Pipeline, chunks: Sequence[Any], executor: Any, *, batch_size: int = 256) -> int:
    """Embed the chunks' indexed text on ``executor`` and store the vectors in the pipeline's
    embedding cache, so the retrievers' own build finds every vector cached (and the index is the
    one a local ingest builds). Returns how many texts the executor embedded."""
    if executor is None or pipeline.config.one("embedding") is None:
        return 0
    from llama_index.core.schema import MetadataMode
    from tqdm import tqdm

    from criss_rag.indexing.embedding_cache import text_key

    texts = list(dict.fromkeys(chunk.get_content(MetadataMode.EMBED) for chunk in chunks))
    model_id = pipeline.embedding_model_id()
    cache = pipeline.embedding_cache()
    try:
        known = cache.get_many(model_id, [text_key(t) for t in texts])
        missing = [t for t in texts if text_key(t) not in known]
        batches = [missing[i : i + batch_size] for i in range(0, len(missing), batch_size)]
        setup = functools.partial(_embedder, pipeline.config, pipeline.host.recipe)
        with tqdm(total=len(missing), desc="embedding (executor)", unit="chunk", file=sys.stderr,
                  disable=not pipeline.show_progress or not missing) as bar:
            for pairs in run_batches(executor, setup, batches):
                cache.put_many(model_id, dict(pairs))  # one transaction per batch: a crash keeps it
                bar.update(len(pairs))
    finally:
        cache.close()
    log.info("executor embedded %d texts (%d were cached)", len(missing), len(texts) - len(missing))
    return len(missing)


def _embedder(config: Any, host_recipe: Callable[[], PluginHost]) -> Callable[[list[str]], list[tuple[str, Any]]]:
    """On a worker: the pipeline's embedding model, built from the same config."""
    import numpy as np

    from criss_rag.indexing.embedding_cache import text_key

    embedding = Pipeline(config, host_recipe()).embedding(requested_by="executor")

    def embed(texts: list[str]) -> list[tuple[str, Any]]:
        vectors = embedding.get_text_embedding_batch(texts)
        return [(text_key(t), np.asarray(v, dtype="float32")) for t, v in zip(texts, vectors, strict=True)]

    return embed
