"""A validated config turned into live components, built lazily and once each."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable
from pathlib import Path
from typing import Any, TypeVar, overload

from pydantic import ValidationError

from criss_rag.component_helpers.llama_settings import guard_llama_settings
from criss_rag.config import ComponentConfig, PipelineConfig, load_pipeline_config
from criss_rag.config.model import not_in_index_key, stable_hash
from criss_rag.context import ComponentContext
from criss_rag.errors import ComponentError, ConfigError, CrissRagError
from criss_rag.plugins import PluginHost
from criss_rag.protocols import BY_KIND, check_protocol

#: a component kind's Protocol (:mod:`criss_rag.protocols`), as :meth:`Pipeline.build` returns it
C = TypeVar("C")

#: question vectors remembered by :meth:`Pipeline.embed_query`
QUERY_VECTORS_KEPT = 256


class Pipeline:
    """Components of one config. ``Engine`` answers with them; ``ingest`` builds the index."""

    def __init__(self, config: PipelineConfig, host: PluginHost, *, show_progress: bool = False) -> None:
        guard_llama_settings()
        self.config = config
        self.host = host
        self.show_progress = show_progress
        self._built: dict[str, Any] = {}
        self._analyzers: dict[str, Any] = {}  # components named inside params, by spec
        self.embedded_last = 0  # texts the last embed_documents() call computed (the rest were cached)
        self.embedded_total = 0  # texts every embed_documents() call so far computed
        self.from_cache_total = 0  # texts every embed_documents() call so far found in the embedding cache
        self._query_vectors: OrderedDict[tuple[int, str], Any] = OrderedDict()  # see embed_query()
        self._query_lock = threading.Lock()

    @classmethod
    def from_file(
        cls, path: str | Path, host: PluginHost, overrides: Iterable[str] = (), *, show_progress: bool = False
    ) -> Pipeline:
        return cls(load_pipeline_config(path, host.registry, overrides), host, show_progress=show_progress)

    # -- component construction ----------------------------------------------------------------
    @overload
    def build(self, cc: ComponentConfig) -> Any: ...

    @overload
    def build(self, cc: ComponentConfig, protocol: type[C]) -> C: ...

    def build(self, cc: ComponentConfig, protocol: type[Any] | None = None) -> Any:
        """The component of ``cc``, built on first use. Every component is checked against its kind's
        Protocol when built; ``protocol`` (that Protocol, e.g. ``Retriever``) types the result."""
        if protocol is not None and BY_KIND.get(cc.spec.kind) is not protocol:
            raise TypeError(f"stage {cc.stage} holds a {cc.spec.kind}, not a {protocol.__name__}")
        if cc.stage not in self._built:
            self._built[cc.stage] = self._construct(cc.stage, cc.spec, cc.params)
        return self._built[cc.stage]

    def _construct(self, stage: str, spec: Any, params: Any) -> Any:
        try:
            component = spec.factory(params, ComponentContext(self, stage))
        except CrissRagError:
            raise
        except Exception as exc:
            raise ComponentError(
                f"stage {stage}: {spec.kind} {spec.name!r} (plugin {spec.plugin!r}) failed to start: "
                f"{type(exc).__name__}: {exc}"
            ) from exc
        check_protocol(stage, spec, component)
        return component

    def call(self, stage: str, component: str, method: Any, *args: Any) -> Any:
        """Run one component method; unexpected errors name the stage and the component."""
        try:
            return method(*args)
        except CrissRagError:
            raise
        except Exception as exc:
            raise ComponentError(
                f"stage {stage}: component {component!r} failed: {type(exc).__name__}: {exc}"
            ) from exc

    @overload
    def one(self, stage: str) -> Any | None: ...

    @overload
    def one(self, stage: str, protocol: type[C]) -> C | None: ...

    def one(self, stage: str, protocol: type[Any] | None = None) -> Any | None:
        cc = self.config.one(stage)
        return (self.build(cc) if protocol is None else self.build(cc, protocol)) if cc else None

    @overload
    def many(self, stage: str) -> list[tuple[ComponentConfig, Any]]: ...

    @overload
    def many(self, stage: str, protocol: type[C]) -> list[tuple[ComponentConfig, C]]: ...

    def many(self, stage: str, protocol: type[Any] | None = None) -> list[tuple[ComponentConfig, Any]]:
        return [
            (cc, self.build(cc) if protocol is None else self.build(cc, protocol)) for cc in self.config.many(stage)
        ]

    # -- shared resources ------------------------------------------------------------------------
    def embedding(self, *, requested_by: str) -> Any:
        cc = self.config.one("embedding")
        if cc is None:
            raise ConfigError(
                f"{self.config.source}: stage {requested_by} needs an embedding model, but the config "
                "names none. Add one, e.g. `embedding: {name: minilm}`. Registered embeddings: "
                f"{', '.join(self.host.registry.names('embedding')) or '(none)'}"
            )
        return self.build(cc)

    def embed_documents(self, texts: Any, spec: str | dict[str, Any] | None = None, *, requested_by: str) -> Any:
        from criss_rag.indexing.embedding_cache import embed_with_cache

        if spec is not None:
            embedding = self.named("embedding", spec, requested_by=requested_by)
            model_id = self.embedding_model_id(spec)
        else:
            embedding = self.embedding(requested_by=requested_by)
            model_id = self.embedding_model_id()
        cache = self.embedding_cache()
        counts: dict[str, int] = {}
        try:
            matrix, computed = embed_with_cache(
                embedding, model_id, list(texts), cache, batch_size=max(1, int(embedding.embed_batch_size)) * 8,
                show_progress=self.show_progress, counts=counts,
            )
        finally:
            cache.close()
        self.embedded_last = computed
        self.embedded_total += computed
        self.from_cache_total += counts.get("from_cache", 0)
        return matrix

    def embed_query(self, text: str, spec: str | dict[str, Any] | None = None, *, requested_by: str) -> Any:
        """The unit-length float32 vector of a question, with the pipeline's embedding (or ``spec``).

        The last few questions' vectors are remembered, so stages that embed the same question (a
        dense retriever, an answer cache) compute it once. The array is read-only."""
        import numpy as np

        if spec is not None:
            embedding = self.named("embedding", spec, requested_by=requested_by)
        else:
            embedding = self.embedding(requested_by=requested_by)
        key = (id(embedding), text)
        with self._query_lock:
            if key in self._query_vectors:
                self._query_vectors.move_to_end(key)
                return self._query_vectors[key]
        # LlamaIndex's get_query_embedding wraps the model call in instrumentation (an event with a
        # payload of the model's settings, a span) that costs more than a FAISS search; a local model
        # offering `query_vector` (criss_rag.component_helpers.local_embedding) is asked directly, unless a rate limiter
        # or an embeddings cache is set on it
        direct = getattr(embedding, "query_vector", None)
        if not callable(direct) or getattr(embedding, "rate_limiter", None) is not None \
                or getattr(embedding, "embeddings_cache", None) is not None:
            direct = embedding.get_query_embedding
        vector = np.asarray(direct(text), dtype=np.float32)
        norm = float(np.linalg.norm(vector))
        vector = vector / norm if norm else vector
        vector.setflags(write=False)
        with self._query_lock:
            self._query_vectors[key] = vector
            while len(self._query_vectors) > QUERY_VECTORS_KEPT:
                self._query_vectors.popitem(last=False)
        return vector

    def embedding_model_id(self, spec: str | dict[str, Any] | None = None) -> str:
        """The embedding cache's key for this config's model (or the one ``spec`` names): what
        decides the vectors (model, dimensions), not how they are fetched (batch size, timeouts).
        The same model named in both places has the same key, so their vectors are shared."""
        if spec is None:
            return stable_hash(self.config.ingest_signature()["embedding"])
        if isinstance(spec, str):
            spec = {"name": spec}
        component = self.host.registry.get("embedding", str(spec.get("name")), where=f"{self.config.source}: embedding")
        params = component.params_model.model_validate({k: v for k, v in spec.items() if k != "name"})
        plan = {"name": spec["name"], **params.model_dump(mode="json")}
        for key in not_in_index_key(component.params_model):
            plan.pop(key, None)
        return stable_hash(plan)

    def embedding_cache(self) -> Any:
        """The embedding cache of this config's index root (close it when done)."""
        from criss_rag.indexing.embedding_cache import EmbeddingCache

        return EmbeddingCache(self.config.index_dir / ".cache" / "embeddings.sqlite")

    def llm(self, key: str, *, requested_by: str) -> Any:
        cc = self.config.llms.get(key)
        if cc is None:
            named = ", ".join(sorted(self.config.llms)) or "(none)"
            raise ConfigError(
                f"{self.config.source}: stage {requested_by} uses the LLM {key!r}, but `llms:` names only: "
                f"{named}. Add it, e.g. `llms: {{{key}: {{name: ollama, model: qwen2.5}}}}`. Registered LLM "
                f"backends: {', '.join(self.host.registry.names('llm')) or '(none)'}"
            )
        return self.build(cc)

    def analyzer(self, spec: str | dict[str, Any], *, requested_by: str) -> Any:
        return self.named("analyzer", spec, requested_by=requested_by)

    def named(self, kind: str, spec: str | dict[str, Any], *, requested_by: str) -> Any:
        """A registered component named inside another's params (``{name: ..., <params>}``), built
        once per distinct spec (e.g. an analyzer, or an embedding other than the pipeline's)."""
        if isinstance(spec, str):
            spec = {"name": spec}
        name = spec.get("name")
        where = f"{self.config.source}: stage {requested_by}, {kind}"
        key = repr((kind, sorted(spec.items())))
        if key not in self._analyzers:
            component = self.host.registry.get(kind, str(name), where=where)
            try:
                params = component.params_model.model_validate({k: v for k, v in spec.items() if k != "name"})
            except ValidationError as exc:
                raise ConfigError(f"{where} {name!r}: {exc.errors()[0]['msg']} ({exc.errors()[0]['loc']})") from None
            self._analyzers[key] = self._construct(f"{requested_by} {kind}", component, params)
        return self._analyzers[key]

    def check_corpus(self, nodes: list[Any]) -> dict[str, str]:
        """Ask every query transform, hop policy, filter and reranker with a ``check_corpus(nodes)`` method
        whether the corpus has what it needs (a component may also read what it is about, e.g. its
        languages). Strict ones raise ConfigError; lenient ones return a warning (by stage)."""
        warnings: dict[str, str] = {}
        hop = self.config.one("multihop")
        components = [*self.many("query_transforms"), *([(hop, self.build(hop))] if hop is not None else []),
                      *self.many("filters"), *self.many("rerankers")]
        for cc, component in components:
            check = getattr(component, "check_corpus", None)
            if callable(check):
                warning = self.call(cc.stage, cc.name, check, nodes)
                if warning:
                    warnings[cc.stage] = str(warning)
        return warnings

    def plugin_versions(self) -> dict[str, str]:
        """Versions of the plugins whose components this pipeline uses, including the ones named
        inside another component's params (a retriever's own ``embedding:``, an ``analyzer:``)."""
        used = {cc.spec.plugin for cc in self._all_components()} | self._nested_plugins()
        return {name: version for name, version in self.host.versions().items() if name in used}

    def _nested_plugins(self) -> set[str]:
        """Plugins of the components a param names by kind: ``embedding`` -> an embedding,
        ``analyzer`` / ``*_analyzer`` -> an analyzer (as :meth:`named` builds them)."""
        plugins: set[str] = set()
        registry = self.host.registry
        for cc in self._all_components():
            for key, value in cc.params.model_dump().items():
                kind = "analyzer" if key.endswith("analyzer") else key
                name = value.get("name") if isinstance(value, dict) else value
                if kind in ("embedding", "analyzer") and isinstance(name, str) and name in registry.names(kind):
                    plugins.add(registry.get(kind, name).plugin)
        return plugins

    def _all_components(self) -> list[ComponentConfig]:
        return self.config.all_components()


