"""criss_rag rerankers that read the passages: ``llm`` (an LLM orders them) and ``cross-encoder``
(a local sentence-transformers cross-encoder scores them)."""
