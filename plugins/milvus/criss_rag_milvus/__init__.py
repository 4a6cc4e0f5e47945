"""criss_rag bundled plugin ``milvus``: dense retrieval on Milvus with filters pushed down."""
