"""criss_rag bundled plugin ``generate``: the ``llm`` generator and the ``lexical`` and ``llm-check`` verifiers."""
