"""criss_rag bundled plugin: evaluation metrics."""
