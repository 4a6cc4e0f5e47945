"""The ``pii`` plugin: registration only (the entry point ``pii`` names this module)."""

from __future__ import annotations

from criss_rag import hookimpl

from criss_rag_pii.redact import PiiRedact


@hookimpl
def register_filters(register):
    register("pii-redact", PiiRedact)
