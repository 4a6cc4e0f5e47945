"""criss_rag bundled plugin ``ollama``: LLM ``ollama`` and embedding ``ollama``."""
