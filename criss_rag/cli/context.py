"""Access to the plugin host from inside a command."""

from __future__ import annotations

import click

from criss_rag.plugins import PluginHost


def host_from(ctx: click.Context) -> PluginHost:
    """The plugin host ``main`` passed in ``obj`` (a fresh one if a caller passed none)."""
    root = ctx.find_root()
    root.ensure_object(dict)
    if "host" not in root.obj:
        root.obj["host"] = PluginHost()
        root.obj["host"].report_failures(lambda line: click.echo(line, err=True))
    return root.obj["host"]
