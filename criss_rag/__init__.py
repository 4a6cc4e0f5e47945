"""criss_rag: evidence-grounded cancer-information chatbots, built from plugins."""

from __future__ import annotations

import pluggy

__version__ = "0.1.0"

#: Decorator for plugin hook implementations: ``@hookimpl def register_retrievers(register): ...``
hookimpl = pluggy.HookimplMarker("criss_rag")

__all__ = ["__version__", "hookimpl"]
