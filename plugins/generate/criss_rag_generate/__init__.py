"""criss_rag bundled plugin ``generate``: the ``llm`` generator and the ``meaning``, ``lexical`` and
``llm-check`` verifiers."""
