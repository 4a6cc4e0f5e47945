"""criss_rag bundled plugin ``openai``: LLMs ``openai`` and ``openai-compatible``, embedding ``openai``."""
