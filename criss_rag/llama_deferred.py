"""Import LlamaIndex's node classes without the whole of ``llama_index.core``.

Any ``llama_index.core.*`` import first runs the package's ``__init__``, which imports every index,
chat engine, memory and workflow class (sqlalchemy, banks, ...): about 0.8 s on the 2-core machine,
in every command that reads a config (docs/benchmarks.md, "Startup and answer-path cost"). A
question needs only the node classes, the embedding base class and the docstore (about 0.25 s).

:func:`install` (run by ``import criss_rag``, before anything imports LlamaIndex) adds an import
hook: from then on the two packages whose ``__init__`` pulls in everything (``llama_index.core``
and ``llama_index.core.storage``) are imported as stand-ins, without running it, and their
submodules import as usual. The real ``__init__``\\ s run, in their usual order, as soon as
anything needs more than the light modules (:data:`LIGHT`):

- an attribute of either package that is not yet there (``from llama_index.core import Settings``,
  ``llama_index.core.global_tokenizer``, ``__version__``), or
- an import of any other ``llama_index.*`` module (a retriever's ``llama_index.retrievers.bm25``,
  ``llama_index.core.llms``, ...), unless it is imported by a light module while that one loads.

So code that uses LlamaIndex beyond the node classes sees the package exactly as if it had been
imported whole; the Settings guard (:mod:`criss_rag.component_helpers.llama_settings`) is
installed right after the whole package is imported. ``CRISS_RAG_EAGER_LLAMA_INDEX=1`` turns the
deferral off.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import logging
import os
import sys
import threading
import types
from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import Any

#: the packages whose ``__init__`` is deferred (the second is imported by the docstore's package)
DEFERRED = ("llama_index.core", "llama_index.core.storage")
#: what a question needs, imported without the package ``__init__``\\ s (with their parent packages)
LIGHT = (
    "llama_index.core.schema",
    "llama_index.core.base.embeddings.base",
    "llama_index.core.bridge.pydantic",
    "llama_index.core.storage.docstore",
    "llama_index.core.storage.kvstore",
)
_LIGHT_NAMES = frozenset(
    name.rsplit(".", depth)[0] for name in LIGHT for depth in range(name.count(".") - 1)
) - frozenset(DEFERRED)

_lock = threading.RLock()
_local = threading.local()  # .depth: light modules this thread is loading
_state: dict[str, Any] = {"installed": False, "done": False, "running": None}  # running: the importing thread
#: callables run once LlamaIndex's whole package has been imported (e.g. the Settings guard)
_after_full: list[Callable[[], None]] = []


class _DeferredPackage(types.ModuleType):
    """A package whose ``__init__`` has not run yet: a missing attribute runs it."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name not in ("__all__", "__version__"):
            raise AttributeError(f"module {self.__name__!r} has no attribute {name!r}")
        if _state["running"] == threading.get_ident():
            # llama_index.core's __init__ is running and reads this package (llama_index.core.storage):
            # its own __init__ runs now, as a plain import would have run it
            _run_init(self)
        else:
            import_whole()
        return getattr(self, name)


def _run_init(module: types.ModuleType) -> None:
    """Run a stand-in's real ``__init__`` in it (once)."""
    if isinstance(module, _DeferredPackage):
        module.__class__ = types.ModuleType  # type: ignore[assignment]
        try:
            module.__spec__.loader.exec_module(module)  # type: ignore[union-attr]
        except BaseException:
            module.__class__ = _DeferredPackage
            raise


def import_whole() -> None:
    """Run the deferred ``__init__``\\ s (once, in their usual order), as a plain import would have."""
    with _lock:
        if _state["done"] or _state["running"]:
            return
        _state["running"] = threading.get_ident()
        try:
            for name in DEFERRED:
                module = sys.modules.get(name)
                if module is not None:
                    _run_init(module)
        finally:
            _state["running"] = None
        _state["done"] = True
    for hook in list(_after_full):
        hook()


def whole_imported() -> bool:
    """Whether ``llama_index.core``'s ``__init__`` has run (or was never deferred)."""
    return _state["done"] or not isinstance(sys.modules.get("llama_index.core"), _DeferredPackage)


def after_whole_import(hook: Callable[[], None]) -> None:
    """Run ``hook`` once the whole package is imported (now, if it already is)."""
    if whole_imported():
        hook()
    elif hook not in _after_full:
        _after_full.append(hook)


class _Existing(importlib.abc.Loader):
    """Loader of a module that the whole import just created: hands it over unchanged."""

    def __init__(self, module: types.ModuleType) -> None:
        self.module = module
        self.spec = module.__spec__

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType:
        return self.module

    def exec_module(self, module: types.ModuleType) -> None:
        module.__spec__ = self.spec  # the import system set it to ours


class _Wrapping(importlib.abc.Loader):
    """A loader around a package's own: it creates the module as that loader would, and hands the
    module back to that loader once loaded."""

    def __init__(self, loader: Any) -> None:
        self.loader = loader

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> types.ModuleType | None:
        return self.loader.create_module(spec)

    def _adopt(self, module: types.ModuleType) -> None:
        module.__spec__.loader = self.loader  # type: ignore[union-attr]
        module.__loader__ = self.loader


class _Deferring(_Wrapping):
    """Loads a package of :data:`DEFERRED` as a stand-in: its ``__init__`` runs in :func:`import_whole`."""

    def exec_module(self, module: types.ModuleType) -> None:
        self._adopt(module)
        module.__class__ = _DeferredPackage
        if module.__name__ == DEFERRED[0]:
            logging.getLogger(module.__name__).addHandler(logging.NullHandler())  # as its __init__ does


class _Light(_Wrapping):
    """Wraps a light module's loader: what it imports while it loads is light too."""

    def exec_module(self, module: types.ModuleType) -> None:
        self._adopt(module)
        _local.depth = getattr(_local, "depth", 0) + 1
        try:
            self.loader.exec_module(module)
        finally:
            _local.depth -= 1


class _Finder(importlib.abc.MetaPathFinder):
    """Lets the light modules import alone; any other ``llama_index`` import imports the whole package first."""

    def find_spec(self, fullname: str, path: Sequence[str] | None, target: types.ModuleType | None = None,
                  ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith("llama_index.") or _state["done"] or _state["running"] is not None:
            return None
        if fullname in DEFERRED or (fullname in LIGHT and getattr(_local, "depth", 0) == 0):
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)
            if spec is not None and spec.loader is not None:
                spec.loader = (_Deferring if fullname in DEFERRED else _Light)(spec.loader)
            return spec
        if getattr(_local, "depth", 0) > 0:
            return None
        if fullname in _LIGHT_NAMES:
            return None
        import_whole()
        module = sys.modules.get(fullname)
        return importlib.util.spec_from_loader(fullname, _Existing(module)) if module is not None else None


def install() -> None:
    """Defer the two ``__init__``\\ s from the next import of ``llama_index.core`` on, unless it is
    imported already (or ``CRISS_RAG_EAGER_LLAMA_INDEX`` is set). Imports nothing itself."""
    with _lock:
        if _state["installed"] or "llama_index.core" in sys.modules:
            return
        if os.environ.get("CRISS_RAG_EAGER_LLAMA_INDEX", "").strip() not in ("", "0"):
            return
        sys.meta_path.insert(0, _Finder())
        _state["installed"] = True

def empty_callback_manager() -> Any:
    """``CallbackManager([])`` without importing the whole package for it.

    Its ``__init__`` reads ``llama_index.core.global_handler`` and ``Settings.callback_manager``,
    and neither can have been set before the whole package is imported (setting either imports it);
    until then the manager it would build is this one: no handlers, an empty trace map."""
    import llama_index.core.base.embeddings.base  # noqa: F401 - light: imports the callbacks module
    from llama_index.core.callbacks.base import CallbackManager

    if whole_imported():
        return CallbackManager([])
    manager = CallbackManager.__new__(CallbackManager)
    manager.handlers = []
    manager._trace_map = defaultdict(list)
    return manager
