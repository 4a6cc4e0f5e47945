"""criss_rag bundled plugin: LLM judges."""
