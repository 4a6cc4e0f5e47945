"""criss_rag plugin ``llamacpp``: the ``llama-cpp`` LLM backend (GGUF models, in-process)."""
