"""The ``serve`` plugin: registration only."""

from __future__ import annotations

from criss_rag import hookimpl

#: `criss-rag serve`'s help, as its docstring says it (a test checks they agree)
SERVE_HELP = (
    "Serve CONFIG over HTTP: POST /ask, /chat (+ /stream variants), GET /health, the chat page at /, and the "
    "OpenAI-compatible POST /v1/chat/completions and GET /v1/models."
)


@hookimpl
def register_commands(cli):
    from criss_rag.plugin_utils import LazyCommand

    # the command's module reads the chat page's settings: only `criss-rag serve` needs it
    cli.add_command(LazyCommand("serve", "criss_rag_serve.command:serve", help=SERVE_HELP))
