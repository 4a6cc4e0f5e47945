"""criss_rag plugin: the ``semantic`` answer cache (see docs/plugins/cache.md)."""
