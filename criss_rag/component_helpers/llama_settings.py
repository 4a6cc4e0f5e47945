"""Keep LlamaIndex's global ``Settings`` from silently choosing a remote service.

Left alone, ``Settings.llm`` and ``Settings.embed_model`` resolve to OpenAI on first use. A local
medical deployment must never send a question to a service its config did not name, so criss_rag
replaces both with stand-ins (:mod:`criss_rag.component_helpers.llama_stand_ins`) that fail loudly
if any LlamaIndex code reaches for a default.

``Settings`` lives in the part of LlamaIndex that a question does not import
(:mod:`criss_rag.llama_deferred`): the stand-ins are installed when that part is imported, which
any use of ``Settings`` does first, or at once if it already is.
"""

from __future__ import annotations


def _install() -> None:
    from criss_rag.component_helpers.llama_stand_ins import install_stand_ins

    install_stand_ins()


def guard_llama_settings() -> None:
    """Install the stand-ins now, or as soon as ``Settings`` can be imported (idempotent)."""
    from criss_rag.llama_deferred import after_whole_import

    after_whole_import(_install)
