"""criss_rag bundled plugin ``ray``: the ``ray`` executor."""
