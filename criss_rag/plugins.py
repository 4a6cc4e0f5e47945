"""Plugin discovery and registration.

Plugins are found through the entry-point group ``criss_rag``; the bundled plugins in ``plugins/``
are ordinary distributions found the same way. Loading fails soft: a plugin that raises on import
or while registering is reported by name and skipped, unless ``CRISS_RAG_STRICT_PLUGINS=1``.
Components registered by ``"module:attribute"`` reference are imported on first use (in strict
mode, at load, so that a broken one fails loudly).
``CRISS_RAG_LOAD_PLUGINS=a,b`` loads only the named plugins.
"""

from __future__ import annotations

import functools
import logging
import os
import sys
import time
import traceback
import warnings
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points
from typing import Any

import pluggy

from criss_rag import hookspecs
from criss_rag.errors import PluginError
from criss_rag.registry import KINDS, Registry

ENTRY_POINT_GROUP = "criss_rag"
STRICT_ENV = "CRISS_RAG_STRICT_PLUGINS"
ONLY_ENV = "CRISS_RAG_LOAD_PLUGINS"
TRACE_ENV = "CRISS_RAG_TRACE_PLUGINS"

log = logging.getLogger("criss_rag.plugins")


class CrissRagDeprecationWarning(DeprecationWarning):
    """A plugin implements a hook that is deprecated (see ``hookspecs.DEPRECATED_HOOKS``)."""


@dataclass
class PluginInfo:
    """A loaded plugin, as ``criss-rag plugins`` shows it."""

    name: str
    version: str
    distribution: str
    hooks: list[str] = field(default_factory=list)
    components: dict[str, list[str]] = field(default_factory=dict)


@dataclass(frozen=True)
class PluginFailure:
    """A plugin that could not be loaded, and why."""

    name: str
    stage: str  # "import", "register" or "conflict"
    error: str

    def message(self) -> str:
        return f"plugin {self.name!r} failed at {self.stage}: {self.error}"


def _env_flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() in {"1", "true", "yes", "on"}


def _env_list(name: str) -> set[str] | None:
    raw = os.environ.get(name, "").strip()
    return {item.strip() for item in raw.split(",") if item.strip()} if raw else None


class PluginHost:
    """Owns a fresh pluggy ``PluginManager`` and the component :class:`Registry` built from it.

    Tests build their own hosts; nothing here is a module-level global.
    """

    def __init__(
        self,
        *,
        strict: bool | None = None,
        only: Iterable[str] | None = None,
        use_entry_points: bool = True,
        extra_plugins: Mapping[str, Any] | None = None,
    ) -> None:
        self.strict = _env_flag(STRICT_ENV) if strict is None else strict
        self.only = set(only) if only is not None else _env_list(ONLY_ENV)
        #: builds an equivalent host elsewhere (an executor's worker): picklable, settings resolved here
        self.recipe: Callable[[], PluginHost] = functools.partial(
            PluginHost, strict=self.strict, only=None if self.only is None else sorted(self.only),
            use_entry_points=use_entry_points, extra_plugins=dict(extra_plugins or {}))
        self.pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
        self.pm.add_hookspecs(hookspecs)
        self.registry = Registry()
        self.plugins: dict[str, PluginInfo] = {}
        self.failures: list[PluginFailure] = []
        self.skipped: list[PluginInfo] = []  # installed, but left out by CRISS_RAG_LOAD_PLUGINS
        self.trace = _env_flag(TRACE_ENV)
        if self.trace and not log.handlers:
            handler = logging.StreamHandler(sys.stderr)
            handler.setFormatter(logging.Formatter("[criss-rag plugins] %(message)s"))
            log.addHandler(handler)
            log.setLevel(logging.INFO)
        candidates: list[tuple[str, str, str, Callable[[], Any]]] = []
        if use_entry_points:
            for ep in entry_points(group=ENTRY_POINT_GROUP):
                dist = ep.dist.name if ep.dist else "?"
                version = ep.dist.version if ep.dist else "?"
                candidates.append((ep.name, dist, version, _loader(ep)))
        for name, obj in (extra_plugins or {}).items():
            candidates.append((name, "(in-process)", "0", lambda obj=obj: obj))
        self._load(candidates)

    # -- loading ---------------------------------------------------------------------------
    def _fail(self, name: str, stage: str, error: str) -> None:
        failure = PluginFailure(name, stage, error)
        if self.strict:
            raise PluginError(
                failure.message() + f"\n(strict mode: {STRICT_ENV}=1 makes any plugin failure fatal)"
            )
        self.failures.append(failure)

    def _load(self, candidates: list[tuple[str, str, str, Callable[[], Any]]]) -> None:
        seen = {name for name, *_ in candidates}
        for wanted in sorted((self.only or set()) - seen):
            self._fail(wanted, "import", f"not installed (named in {ONLY_ENV})")
        for name, dist, version, load in candidates:
            if self.only is not None and name not in self.only:
                self.skipped.append(PluginInfo(name=name, version=version, distribution=dist))
                continue
            try:
                started = time.perf_counter()
                module = load()
                self.pm.register(module, name=name)
                self.pm.check_pending()
            except Exception as exc:  # a broken plugin must not take the CLI down
                if self.pm.get_plugin(name) is not None:
                    self.pm.unregister(name=name)
                self._fail(name, "import", _describe(exc))
                continue
            self._trace(f"{name}: imported in {(time.perf_counter() - started) * 1000:.1f} ms")
            self._register_components(name, dist, version)

    def _register_components(self, name: str, dist: str, version: str) -> None:
        plugin = self.pm.get_plugin(name)
        info = PluginInfo(name=name, version=version, distribution=dist)
        staged: list[tuple[str, str, Callable[..., Any] | str]] = []
        for kind, hook_name in KINDS.items():
            for impl in getattr(self.pm.hook, hook_name).get_hookimpls():
                if impl.plugin is not plugin:
                    continue
                info.hooks.append(hook_name)

                def register(comp_name: str, factory: Callable[..., Any] | str, kind: str = kind) -> None:
                    staged.append((kind, comp_name, factory))

                before = len(staged)
                started = time.perf_counter()
                try:
                    impl.function(register=register)
                except Exception as exc:
                    self.pm.unregister(name=name)
                    self._fail(name, "register", f"{hook_name} raised {_describe(exc)}")
                    return
                self._trace(
                    f"{name}.{hook_name}: {len(staged) - before} component(s) "
                    f"in {(time.perf_counter() - started) * 1000:.2f} ms"
                )
        for impl in self.pm.hook.register_commands.get_hookimpls():
            if impl.plugin is plugin:
                info.hooks.append("register_commands")
        for hook_name in info.hooks:
            if hook_name in hookspecs.DEPRECATED_HOOKS:
                warnings.warn(
                    CrissRagDeprecationWarning(
                        f"plugin {name!r} implements {hook_name}, which is deprecated: "
                        f"{hookspecs.DEPRECATED_HOOKS[hook_name]}"
                    ),
                    stacklevel=2,
                )
        for kind, comp_name, factory in staged:
            try:
                self.registry.add(kind, comp_name, factory, plugin=name)
                if self.strict:  # a reference that cannot be imported is a plugin failure: find it now
                    _ = self.registry.get(kind, comp_name).factory
            except PluginError as exc:
                self._fail(name, "conflict" if "twice" in str(exc) else "register", str(exc))
                continue
            info.components.setdefault(kind, []).append(comp_name)
        self.plugins[name] = info

    def _trace(self, message: str) -> None:
        if self.trace:
            log.info(message)

    # -- queries -----------------------------------------------------------------------------
    def versions(self) -> dict[str, str]:
        return {name: info.version for name, info in sorted(self.plugins.items())}

    def report_failures(self, echo: Callable[[str], None]) -> None:
        for failure in self.failures:
            echo(f"warning: {failure.message()} (skipped; set {STRICT_ENV}=1 to make this fatal)")


def _loader(ep: EntryPoint) -> Callable[[], Any]:
    return ep.load


def _describe(exc: BaseException) -> str:
    frame = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    where = f" ({frame[0].filename}:{frame[0].lineno})" if frame else ""
    return f"{type(exc).__name__}: {exc}{where}"
