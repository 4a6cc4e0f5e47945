"""criss-rag-example-plugin: the ``pii-redact`` filter, which removes personal data from evidence
text before it reaches the context and the answer.

- :mod:`criss_rag_pii.patterns`: the patterns and :class:`~criss_rag_pii.patterns.Redactor`;
- :mod:`criss_rag_pii.redact`: the filter component :class:`~criss_rag_pii.redact.PiiRedact`;
- :mod:`criss_rag_pii.plugin`: the ``@hookimpl`` that registers it (entry point ``pii``).
"""

from criss_rag_pii.patterns import KINDS, Redaction, Redactor
from criss_rag_pii.redact import SIGNAL, PiiRedact

__version__ = "0.1.0"
__all__ = ["KINDS", "SIGNAL", "PiiRedact", "Redaction", "Redactor", "__version__"]
