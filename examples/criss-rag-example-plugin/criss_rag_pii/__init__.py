"""criss-rag-example-plugin: the ``pii-redact`` filter, which removes personal data from evidence
text before it reaches the context and the answer.

- :mod:`criss_rag_pii.patterns`: the patterns and :class:`~criss_rag_pii.patterns.Redactor`;
- :mod:`criss_rag_pii.redact`: the filter component :class:`~criss_rag_pii.redact.PiiRedact`;
- :mod:`criss_rag_pii.plugin`: the ``@hookimpl`` that registers it (entry point ``pii``).
"""

from criss_rag_pii.patterns import KINDS, Redaction, Redactor

__version__ = "0.1.0"
__all__ = ["KINDS", "SIGNAL", "PiiRedact", "Redaction", "Redactor", "__version__"]


def __getattr__(name: str):
    # the filter module imports LlamaIndex: it is imported when first asked for, not whenever
    # criss_rag loads the plugin (every command does)
    if name in {"PiiRedact", "SIGNAL"}:
        from criss_rag_pii import redact

        return getattr(redact, name)
    raise AttributeError(f"module 'criss_rag_pii' has no attribute {name!r}")
