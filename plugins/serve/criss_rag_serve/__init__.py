"""criss_rag plugin: ``criss-rag serve`` (HTTP API, SSE streaming, chat sessions, web page)."""
