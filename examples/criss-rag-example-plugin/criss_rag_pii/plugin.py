"""The ``pii`` plugin: registration only (the entry point ``pii`` names this module)."""

from __future__ import annotations

from criss_rag import hookimpl


@hookimpl
def register_filters(register):
    register("pii-redact", "criss_rag_pii.redact:PiiRedact")
