"""The public Python API: open a pipeline and ask it, chat with it, or (re)build its index.

Example::

    import criss_rag

    engine = criss_rag.open("examples/default.yaml")           # builds the index if it is missing
    answer = engine.ask("How is liver cancer treated?")
    print(answer.text, answer.citations[0].source_title)

    for event in engine.ask_stream("What are the warning signs of pancreatic cancer?"):
        ...                                                      # TokenEvent*, then one AnswerEvent

    chat = engine.chat()
    chat.ask("How is liver cancer diagnosed?")
    chat.ask("And how is it treated?")                          # asks "How is liver cancer treated?"

    report = criss_rag.ingest("examples/default.yaml")          # bring the index up to date

Both functions take the pipeline YAML's path and ``overrides``: ``--set`` strings
(``"retrievers.bm25.top_k=8"``) or a mapping (``{"retrievers.bm25.top_k": 8}``). Plugins are the
installed ones (entry-point group ``criss_rag``) unless ``host`` names a
:class:`~criss_rag.plugins.PluginHost` of your own.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Mapping
from typing import Any

from criss_rag.engine import Engine
from criss_rag.indexing.ingest_report import IngestReport
from criss_rag.indexing.ingestion import ingest as _ingest
from criss_rag.pipeline import Pipeline
from criss_rag.plugins import PluginHost

#: what ``overrides=`` accepts: ``["key.path=value", ...]`` or ``{"key.path": value}``
Overrides = Iterable[str] | Mapping[str, Any]


def load_pipeline(config: str | os.PathLike[str], *, overrides: Overrides = (), host: PluginHost | None = None,
                  show_progress: bool = False) -> Pipeline:
    """The validated pipeline of the YAML file ``config`` (errors: :class:`~criss_rag.errors.ConfigError`,
    naming file, line, stage, component and key)."""
    return Pipeline.from_file(os.fspath(config), host if host is not None else PluginHost(), _override_items(overrides),
                              show_progress=show_progress)


def open(config: str | os.PathLike[str], *, overrides: Overrides = (), build: bool = True, warm_up: bool = True,
         host: PluginHost | None = None, show_progress: bool = False) -> Engine:  # noqa: A001 - the public name
    """An :class:`~criss_rag.engine.Engine` answering from the index of ``config``.

    ``build``: ingest first when the index is missing or holds an older corpus (``False``: raise
    :class:`~criss_rag.errors.IndexStoreError`, which says to run ``criss-rag ingest``).
    ``warm_up``: load every model the questions need now (e.g. the embedding model's weights), so
    the first question is as fast as the next; nothing is sent to a remote service for it.
    """
    engine = Engine.open(load_pipeline(config, overrides=overrides, host=host, show_progress=show_progress),
                         build_if_missing=build)
    if warm_up:
        engine.warm_up()
    return engine


def ingest(config: str | os.PathLike[str], *, overrides: Overrides = (), force: bool = False,
           host: PluginHost | None = None, show_progress: bool = False) -> IngestReport:
    """Bring the index of ``config`` up to date with its corpus (only what changed is re-chunked and
    re-embedded; ``force``: rebuild it whole). Atomic: a failure keeps the previous index."""
    return _ingest(load_pipeline(config, overrides=overrides, host=host, show_progress=show_progress), force=force)


def _override_items(overrides: Overrides) -> list[str]:
    if isinstance(overrides, str):
        return [overrides]
    if isinstance(overrides, Mapping):
        # JSON is YAML: each value keeps its type (8 stays an int, None becomes null)
        return [f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in overrides.items()]
    return [str(item) for item in overrides]
