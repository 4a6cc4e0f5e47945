"""The ``criss-rag`` command line."""

from criss_rag.cli.main import main

__all__ = ["main"]
