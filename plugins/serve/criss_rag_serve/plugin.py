"""The ``serve`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_commands(cli):
    from criss_rag_serve.command import serve

    cli.add_command(serve)
