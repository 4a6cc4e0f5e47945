"""The criss_rag version, in a module of its own so core modules can read it without importing the
package's public API (``criss_rag.__version__`` is the same string)."""

__version__ = "0.1.0"
