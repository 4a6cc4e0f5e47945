"""The component registry: which plugin registered which component under which name."""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from criss_rag.errors import ConfigError, PluginError

#: Component kinds, in pipeline order, each with the hook that registers it.
KINDS: dict[str, str] = {
    "loader": "register_loaders",
    "chunker": "register_chunkers",
    "embedding": "register_embeddings",
    "llm": "register_llms",
    "analyzer": "register_analyzers",
    "query_transform": "register_query_transforms",
    "retriever": "register_retrievers",
    "fusion": "register_fusions",
    "hop_policy": "register_hop_policies",
    "filter": "register_filters",
    "reranker": "register_rerankers",
    "refusal": "register_refusal_policies",
    "context": "register_context_builders",
    "generator": "register_generators",
    "verifier": "register_verifiers",
    "cache": "register_caches",
    "judge": "register_judges",
    "metric": "register_metrics",
    "executor": "register_executors",
}


class NoParams(BaseModel):
    """Params model of a component that takes no options."""

    model_config = ConfigDict(extra="forbid")


class Register(Protocol):
    """The callable a registration hook receives.

    ``factory`` is the component class (or any callable taking ``(params, ctx)``), or a reference
    ``"module:attribute"`` to one, imported the first time the component is used: a plugin whose
    components import heavy libraries registers references, so that loading the plugin (every
    ``criss-rag`` command, ``--help`` included) stays cheap.
    """

    def __call__(self, name: str, factory: Callable[..., Any] | str) -> None: ...


def check_factory(kind: str, name: str, factory: Any, plugin: str) -> None:
    """What the registry demands of a factory: callable, with a pydantic ``Params`` that forbids extra keys."""
    if not callable(factory):
        raise PluginError(f"plugin {plugin!r}: {kind} {name!r} factory is not callable")
    params = getattr(factory, "Params", NoParams)
    if not (isinstance(params, type) and issubclass(params, BaseModel)):
        raise PluginError(f"plugin {plugin!r}: {kind} {name!r}.Params must be a pydantic model")
    if params.model_config.get("extra") != "forbid":
        raise PluginError(
            f"plugin {plugin!r}: {kind} {name!r}.Params must set "
            "model_config = ConfigDict(extra='forbid') so unknown YAML keys are rejected"
        )


def resolve_reference(kind: str, name: str, reference: str, plugin: str) -> Callable[..., Any]:
    """Import the ``"module:attribute"`` a plugin registered, with an error that names who and what."""
    module_name, _, attribute = reference.partition(":")
    try:
        target: Any = importlib.import_module(module_name)
        for part in attribute.split("."):
            target = getattr(target, part)
    except Exception as exc:
        raise PluginError(
            f"plugin {plugin!r}: {kind} {name!r} is registered as {reference!r}, which cannot be "
            f"imported ({type(exc).__name__}: {exc}). Reinstall the plugin's distribution, or load "
            "only the plugins you want with CRISS_RAG_LOAD_PLUGINS=name1,name2"
        ) from None
    check_factory(kind, name, target, plugin)
    return target


@dataclass(frozen=True)
class ComponentSpec:
    """A registered component: its kind, name, factory and the plugin that registered it.

    ``target`` is what the plugin registered: the factory, or its ``"module:attribute"``
    reference; ``factory`` imports a reference on first use.
    """

    kind: str
    name: str
    target: Callable[..., Any] | str
    plugin: str

    @cached_property
    def factory(self) -> Callable[..., Any]:
        if isinstance(self.target, str):
            return resolve_reference(self.kind, self.name, self.target, self.plugin)
        return self.target

    @property
    def params_model(self) -> type[BaseModel]:
        return getattr(self.factory, "Params", NoParams)

    @property
    def summary(self) -> str:
        """The first paragraph of the factory's docstring, on one line."""
        doc = (inspect.getdoc(self.factory) or "").strip()
        return " ".join(doc.split("\n\n")[0].split())


class Registry:
    """Components by kind and name. Built fresh by each :class:`~criss_rag.plugins.PluginHost`."""

    def __init__(self) -> None:
        self._specs: dict[str, dict[str, ComponentSpec]] = {kind: {} for kind in KINDS}
        # names two plugins both claimed: usable by neither, so nothing is picked silently
        self._conflicts: dict[tuple[str, str], str] = {}

    def add(self, kind: str, name: str, factory: Callable[..., Any] | str, plugin: str) -> None:
        if kind not in self._specs:
            raise PluginError(f"plugin {plugin!r}: unknown component kind {kind!r}")
        if not isinstance(name, str) or not name or name != name.strip():
            raise PluginError(f"plugin {plugin!r} registered a {kind} with an invalid name {name!r}")
        if isinstance(factory, str):
            module_name, colon, attribute = factory.partition(":")
            if not (colon and module_name and attribute):
                raise PluginError(
                    f"plugin {plugin!r}: {kind} {name!r} is registered as {factory!r}; a reference "
                    "must read 'module:attribute', e.g. 'my_plugin.retriever:MyRetriever'"
                )
        else:
            check_factory(kind, name, factory, plugin)
        existing = self._specs[kind].pop(name, None)
        if existing is not None or (kind, name) in self._conflicts:
            first = existing.plugin if existing else self._conflicts[(kind, name)]
            message = (
                f"{kind} {name!r} is registered twice: by plugin {first!r} and by plugin "
                f"{plugin!r}. Uninstall one, or load only the plugins you want with "
                "CRISS_RAG_LOAD_PLUGINS=name1,name2"
            )
            self._conflicts[(kind, name)] = first
            raise PluginError(message)
        self._specs[kind][name] = ComponentSpec(kind, name, factory, plugin)

    def get(self, kind: str, name: str, *, where: str = "") -> ComponentSpec:
        specs = self._specs[kind]
        if name in specs:
            return specs[name]
        prefix = f"{where}: " if where else ""
        if (kind, name) in self._conflicts:
            raise ConfigError(
                f"{prefix}{kind} {name!r} is registered by more than one plugin "
                f"({self._conflicts[(kind, name)]!r} and another); see `criss-rag plugins`"
            )
        valid = ", ".join(sorted(specs)) or "(none: is the plugin that provides it installed?)"
        raise ConfigError(
            f"{prefix}unknown {kind} {name[:200] + '...' if len(name) > 200 else name!r}. Registered {kind}s: {valid}. "
            "Run `criss-rag plugins` to see which plugin provides what."
        )

    def names(self, kind: str) -> list[str]:
        return sorted(self._specs[kind])

    def specs(self, kind: str | None = None) -> list[ComponentSpec]:
        kinds = [kind] if kind else list(KINDS)
        return [spec for k in kinds for _, spec in sorted(self._specs[k].items())]
