"""LlamaIndex's package ``__init__`` is deferred until something needs more than the node classes
(criss_rag.llama_deferred): each check runs in a fresh interpreter, since this test process has
imported the whole package long ago."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def run(code: str, **env: str) -> str:
    import os

    result = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                            cwd=ROOT, timeout=300, env={**os.environ, **env})
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def test_node_classes_and_docstore_import_without_the_whole_package():
    out = run("""
        import sys, criss_rag
        from llama_index.core.schema import NodeWithScore, TextNode
        from llama_index.core.base.embeddings.base import BaseEmbedding
        from llama_index.core.storage.docstore import SimpleDocumentStore
        from criss_rag.llama_deferred import whole_imported
        print(whole_imported(), "llama_index.core.indices" in sys.modules, "llama_index.core.settings" in sys.modules)
    """)
    assert out.split() == ["False", "False", "False"]


def test_eager_setting_imports_the_whole_package_as_before():
    out = run("""
        import sys, criss_rag
        from llama_index.core.schema import TextNode
        print("llama_index.core.indices" in sys.modules)
    """, CRISS_RAG_EAGER_LLAMA_INDEX="1")
    assert out.split() == ["True"]


def test_an_attribute_of_the_package_imports_it_whole_and_installs_the_settings_guard():
    """The guard registered before LlamaIndex is imported is installed once Settings exists."""
    out = run("""
        import criss_rag
        from criss_rag.component_helpers.llama_settings import guard_llama_settings
        from criss_rag.errors import ConfigError
        guard_llama_settings()
        from llama_index.core.schema import TextNode
        from llama_index.core import Settings, VectorStoreIndex
        import llama_index.core
        try:
            Settings.llm.complete("hello")
        except ConfigError:
            print("guarded")
        print(llama_index.core.__version__ != "", llama_index.core.Document.__module__ == TextNode.__module__)
    """)
    assert out.split() == ["guarded", "True", "True"]


def test_another_llama_index_module_imports_the_package_whole_first_and_once():
    """``llama_index.core.llms`` is not light: the package's __init__ runs first (and imports it);
    the import then hands over that same module, with its own spec."""
    out = run("""
        import sys, criss_rag
        from llama_index.core.schema import TextNode
        import llama_index.core.llms as llms
        from criss_rag.llama_deferred import whole_imported
        from llama_index.core.llms import ChatMessage
        module = sys.modules["llama_index.core.llms"]
        print(whole_imported(), module is llms, type(module.__spec__.loader).__name__, ChatMessage.__module__)
        from llama_index.core import Document
        print(Document is sys.modules["llama_index.core.schema"].Document)
    """)
    first, second = out.splitlines()
    assert first.split()[:2] == ["True", "True"]
    assert first.split()[2] == "SourceFileLoader"
    assert second == "True"


def test_empty_callback_manager_is_what_the_default_builds():
    """What LlamaIndex's ``CallbackManager([])`` sets, built without Settings (checked against the
    real one, so a LlamaIndex upgrade that adds state fails here)."""
    out = run("""
        import criss_rag
        from criss_rag.llama_deferred import empty_callback_manager, whole_imported
        light = empty_callback_manager()
        assert not whole_imported()
        from llama_index.core.callbacks.base import CallbackManager
        import llama_index.core
        full = CallbackManager([])
        print(sorted(vars(light)) == sorted(vars(full)), light.handlers == full.handlers == [],
              dict(light._trace_map) == dict(full._trace_map), type(light) is type(full))
    """)
    assert out.split() == ["True", "True", "True", "True"]


def test_an_attribute_of_the_storage_package_imports_the_whole_package():
    """``llama_index.core.storage`` (imported as a stand-in with the docstore) runs its __init__,
    after llama_index.core's, when something reads it."""
    out = run("""
        import criss_rag
        from llama_index.core.storage.docstore import SimpleDocumentStore
        import llama_index.core.storage as storage
        from criss_rag.llama_deferred import whole_imported
        before = whole_imported()
        context = storage.StorageContext
        from llama_index.core.storage.storage_context import StorageContext
        print(before, whole_imported(), context is StorageContext)
    """)
    assert out.split() == ["False", "True", "True"]
