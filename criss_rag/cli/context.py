"""What several commands share: the plugin host, the pipeline a command's CONFIG and --set name,
and the --corpus/--loader overrides."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from criss_rag.errors import ConfigError
from criss_rag.plugins import PluginHost

if TYPE_CHECKING:  # the pipeline imports LlamaIndex: loaded by the commands that build one
    from criss_rag.pipeline import Pipeline


def host_from(ctx: click.Context) -> PluginHost:
    """The plugin host ``main`` passed in ``obj`` (a fresh one if a caller passed none)."""
    root = ctx.find_root()
    root.ensure_object(dict)
    if "host" not in root.obj:
        root.obj["host"] = PluginHost()
        root.obj["host"].report_failures(lambda line: click.echo(line, err=True))
    return root.obj["host"]


def pipeline_from(ctx: click.Context, config: Path, overrides: tuple[str, ...], progress: bool = False) -> Pipeline:
    """The pipeline of CONFIG with the command's ``--set`` overrides, on the command's plugin host."""
    from criss_rag.pipeline import Pipeline

    return Pipeline.from_file(config, host_from(ctx), overrides, show_progress=progress)


def corpus_overrides(ctx: click.Context, config: Path, corpus: Path | None, loader: str | None) -> tuple[str, ...]:
    """``--set`` items that point the loader at ``corpus``, keeping the config's loader when it
    reads that file type, else taking the registered loader that declares the suffix."""
    if corpus is None:
        return ()
    registry = host_from(ctx).registry
    if loader is None:
        current = pipeline_from(ctx, config, ()).config.one("loader")
        if current is not None and corpus.suffix in getattr(current.spec.factory, "suffixes", ()):
            loader = current.name
        else:
            matches = [s.name for s in registry.specs("loader") if corpus.suffix in getattr(s.factory, "suffixes", ())]
            if len(matches) != 1:
                raise ConfigError(
                    f"--corpus {corpus}: cannot tell which loader reads {corpus.suffix!r} files "
                    f"(candidates: {', '.join(matches) or 'none'}); pass --loader NAME"
                )
            loader = matches[0]
        click.echo(f"corpus: {corpus} (loader {loader})", err=True)
    return (f"loader={{name: {loader}, path: {json.dumps(str(corpus.resolve()))}}}",)
