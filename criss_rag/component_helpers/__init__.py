"""What components share: reading corpus files for loaders (``loader_files``), JSON replies from
an LLM (``structured_output``), what the clients of LLM servers share (``llm_clients``), in-process
embedding models loaded once (``local_embedding``), and the guard that keeps LlamaIndex's global
``Settings`` from choosing a remote service (``llama_settings``). Plugins reach these through
:mod:`criss_rag.plugin_utils`.
"""
