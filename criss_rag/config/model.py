"""Pipeline configs: YAML that names registered components, validated per component.

A pipeline YAML has these top-level keys (see ``docs/yaml-reference.md``)::

    name: demo                     # required
    description: ...               # optional
    index: {dir: .criss_rag/index} # where ingest writes (relative to the YAML file)
    loader: {name: jsonl, path: corpus.jsonl}
    chunker: {name: sections}
    embedding: {name: minilm}      # optional: only if a component needs vectors
    llms: {local: {name: ollama, model: qwen2.5}}   # optional: LLMs components refer to by key
    query_transforms: []           # optional: rewrite what retrieval searches for
    retrievers: [{name: bm25, top_k: 20}, {name: faiss, top_k: 20}]
    fusion: {name: rrf}            # required when there is more than one retriever
    multihop: {name: missing-terms, max_hops: 2}    # optional: follow-up retrieval hops
    filters: []
    rerankers: []
    refusal: {name: evidence-threshold, ...}
    context: {name: numbered}
    generator: {name: extractive}
    verifier: {name: lexical, threshold: 0.5}       # optional: the sentence check
    cache: {name: semantic, threshold: 0.95}        # optional: answer repeated questions from a cache
    chat: {condense_llm: local, memory_tokens: 1500} # optional: settings of `criss-rag chat`

Each component is ``{name: REGISTERED_NAME, <param>: <value>, ...}`` (or just the name).
Secrets are written ``{env: VAR_NAME}`` and resolved from the environment, never stored.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError

from criss_rag.config.references import check_references
from criss_rag.config.yaml_source import blame, short_repr
from criss_rag.errors import ConfigError
from criss_rag.registry import ComponentSpec, Registry

#: stage key in YAML -> (component kind, is a list, required)
STAGES: dict[str, tuple[str, bool, bool]] = {
    "loader": ("loader", False, True),
    "chunker": ("chunker", False, True),
    "embedding": ("embedding", False, False),
    "query_transforms": ("query_transform", True, False),
    "retrievers": ("retriever", True, True),
    "fusion": ("fusion", False, False),
    "multihop": ("hop_policy", False, False),
    "filters": ("filter", True, False),
    "rerankers": ("reranker", True, False),
    "refusal": ("refusal", False, False),
    "context": ("context", False, True),
    "generator": ("generator", False, True),
    "verifier": ("verifier", False, False),
    "cache": ("cache", False, False),
}
#: keys the engine reads itself, per list stage, with their defaults
ENGINE_KEYS: dict[str, dict[str, Any]] = {
    "retrievers": {"label": None, "top_k": 20, "languages": None},
    "filters": {"label": None},
    "rerankers": {"label": None},
    "query_transforms": {"label": None},
    "multihop": {"max_hops": 2},
    # answer policies (criss_rag.answering.grounding_policy, criss_rag.answering.relevance), for any generator
    "generator": {"citations": "require", "unsupported": "drop", "relevance": None},
}
TOP_LEVEL = {"version", "name", "description", "index", "llms", "chat", *STAGES}
#: stages whose settings decide what ingest writes (the index key hashes them)
INGEST_STAGES = ("chunker", "embedding", "retrievers")


DEFAULT_CONDENSE_PROMPT = (
    "Conversation so far:\n{history}\n\nFollow-up message: {question}\n\n"
    "Rewrite the follow-up message as one standalone question that names everything it refers to "
    "(the cancer, the treatment, the test), in the language of the follow-up message. "
    "Reply with the question only."
)


class ChatSettings(BaseModel):
    """The optional top-level ``chat:`` mapping: how ``criss-rag chat`` (``criss_rag.answering.chat``) keeps
    a conversation. Not a component: it names no plugin."""

    model_config = ConfigDict(extra="forbid")
    condense_llm: str | None = Field(
        default=None,
        description="key of an LLM under `llms:` that rewrites a follow-up into a standalone question; null: the "
        "offline heuristic",
    )
    memory_tokens: int = Field(
        default=1500,
        ge=0,
        description="the most tokens (cl100k) of earlier turns a session keeps "
        "for condensing and for the generator; older turns drop out first",
    )
    condense_prompt: str = Field(
        default=DEFAULT_CONDENSE_PROMPT,
        description="the condensing prompt, with {history} and {question}; write other braces as {{ }}",
    )


@dataclass(frozen=True)
class ComponentConfig:
    """One configured component: where it sits, what it is, and its validated params."""

    stage: str  # e.g. "generator" or "retrievers[1]"
    kind: str
    name: str
    params: BaseModel
    spec: ComponentSpec
    options: dict[str, Any] = field(default_factory=dict)  # engine keys such as top_k
    env_refs: dict[str, str] = field(default_factory=dict)  # param -> env var name

    @property
    def params_model_type(self) -> type[BaseModel]:
        return type(self.params)

    @property
    def label(self) -> str:
        return str(self.options.get("label") or self.name)

    def plan(self) -> dict[str, Any]:
        """Name, engine keys and every param with defaults filled in; secrets as env refs."""
        params = self.params.model_dump(mode="json")
        for key, var in self.env_refs.items():
            params[key] = {"env": var}
        return {"name": self.name, **self.options, **params}


@dataclass(frozen=True)
class PipelineConfig:
    """A validated pipeline config."""

    name: str
    description: str
    source: str
    base_dir: Path
    index_dir: Path
    components: dict[str, ComponentConfig | list[ComponentConfig] | None]
    llms: dict[str, ComponentConfig] = field(default_factory=dict)
    chat: ChatSettings | None = None  # the `chat:` mapping, when the YAML has one
    #: how opening the index checks its files: ``checksums`` (sizes and SHA-256) or ``sizes``
    index_verify: str = "checksums"

    def one(self, stage: str) -> ComponentConfig | None:
        value = self.components.get(stage)
        assert not isinstance(value, list), stage
        return value

    def required(self, stage: str) -> ComponentConfig:
        """The component of a stage every valid config names (``loader``, ``chunker``, ``context``,
        ``generator``: see :data:`STAGES`)."""
        value = self.one(stage)
        if value is None:
            raise ConfigError(f"{self.source}: stage {stage!r} is required; name a registered component for it")
        return value

    def many(self, stage: str) -> list[ComponentConfig]:
        value = self.components.get(stage)
        return value if isinstance(value, list) else []

    def all_components(self) -> list[ComponentConfig]:
        out: list[ComponentConfig] = []
        for value in self.components.values():
            out.extend(value if isinstance(value, list) else [value] if value is not None else [])
        return out + list(self.llms.values())

    def find(self, stage: str) -> ComponentConfig | None:
        """The component configured at ``stage`` (e.g. ``generator``, ``retrievers[1]``, ``llms.local``)."""
        return next((cc for cc in self.all_components() if cc.stage == stage), None)

    def plan(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "index": {"dir": str(self.index_dir), "verify": self.index_verify}}
        if self.llms:
            out["llms"] = {key: cc.plan() for key, cc in self.llms.items()}
        if self.chat is not None:
            out["chat"] = self.chat.model_dump(mode="json")
        for stage, value in self.components.items():
            if isinstance(value, list):
                out[stage] = [item.plan() for item in value]
            else:
                out[stage] = value.plan() if value else None
        return out

    def config_hash(self) -> str:
        """Hash of every component setting; where the index lives does not change results."""
        plan = self.plan()
        plan.pop("index")
        if plan.get("verifier", "") is None:  # stages added later hash only when set: old hashes stay valid
            plan.pop("verifier")
        plan.pop("cache", None)  # a cache only replays answers of this same hash: it changes no answer
        return stable_hash(plan)

    def ingest_signature(self) -> dict[str, Any]:
        """The settings that decide what ingest builds (loader path excluded: the corpus
        fingerprint covers the content)."""
        plan = self.plan()
        signature = {stage: plan.get(stage) for stage in INGEST_STAGES}
        for item, _cc in zip(signature["retrievers"] or [], self.many("retrievers"), strict=True):
            item.pop("top_k", None)
            item.pop("languages", None)
        for stage in INGEST_STAGES:
            value = signature[stage]
            items: list[Any] = value if isinstance(value, list) else [value]
            configs = self.many(stage) if stage == "retrievers" else [self.one(stage)]
            for item, cc in zip(items, configs, strict=True):
                for key in not_in_index_key(cc.params_model_type) if cc else ():
                    item.pop(key, None)
        return signature


def stable_hash(value: Any) -> str:
    """A short content hash of JSON-able data (key order does not matter)."""
    blob = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


#: Mark a param ``Field(..., json_schema_extra=NOT_IN_INDEX_KEY)`` when it changes how an index is
#: searched or reached (nprobe, a timeout, a retry count), not what the index holds: changing it
#: then needs no re-ingest.
NOT_IN_INDEX_KEY: dict[str, Any] = {"index_key": False}


def not_in_index_key(model: type[BaseModel]) -> list[str]:
    """The params of ``model`` marked with :data:`NOT_IN_INDEX_KEY`."""
    return [
        name for name, info in model.model_fields.items()
        if isinstance(info.json_schema_extra, dict) and info.json_schema_extra.get("index_key") is False
    ]


def parse_pipeline(raw: Any, registry: Registry, *, source: str, base_dir: Path) -> PipelineConfig:
    """Validate raw YAML data against the registry; errors name file, line, stage, key."""
    if not isinstance(raw, dict):
        raise ConfigError(f"{source}: a pipeline config must be a YAML mapping (name:, loader:, ...)")

    def where(path: tuple[Any, ...]) -> str:
        return blame(raw, path, source)

    unknown = sorted(set(raw) - TOP_LEVEL, key=str)
    if unknown:
        close = difflib.get_close_matches(str(unknown[0]), sorted(TOP_LEVEL), n=1, cutoff=0.6)
        raise ConfigError(
            f"{where((unknown[0],))}: unknown top-level key {short_repr(unknown[0])}. "
            f"Valid keys: {', '.join(sorted(TOP_LEVEL))}.{f' Did you mean {close[0]!r}?' if close else ''}"
        )
    if raw.get("version", 1) != 1:
        raise ConfigError(f"{where(('version',))}: unsupported config version {short_repr(raw['version'])}; use 1")
    name = raw.get("name")
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(f"{where(('name',))}: the config needs a `name:` (a short string)")

    components: dict[str, ComponentConfig | list[ComponentConfig] | None] = {}
    for stage, (kind, is_list, required) in STAGES.items():
        value = raw.get(stage)
        if value is None:
            if required:
                raise ConfigError(
                    f"{source}: stage {stage!r} is required; name a registered {kind}, e.g. "
                    f"`{stage}: {'[' if is_list else ''}{{name: ...}}{']' if is_list else ''}`. "
                    f"Registered {kind}s: {', '.join(registry.names(kind)) or '(none)'}"
                )
            components[stage] = [] if is_list else None
            continue
        if is_list:
            if not isinstance(value, list):
                raise ConfigError(f"{where((stage,))}: stage {stage!r} must be a list of components")
            if required and not value:
                raise ConfigError(f"{where((stage,))}: stage {stage!r} needs at least one {kind}")
            items = [
                _component(item, registry, kind, f"{stage}[{i}]", (stage, i), raw, where, stage)
                for i, item in enumerate(value)
            ]
            labels = [item.label for item in items]
            dupes = sorted({label for label in labels if labels.count(label) > 1})
            if dupes:
                raise ConfigError(
                    f"{where((stage,))}: two {kind}s share the label {dupes[0]!r}; give each a "
                    "distinct `label:`"
                )
            components[stage] = items
        else:
            components[stage] = _component(value, registry, kind, stage, (stage,), raw, where, stage)

    if len(components["retrievers"]) > 1 and components["fusion"] is None:  # type: ignore[arg-type]
        raise ConfigError(
            f"{where(('retrievers',))}: {len(components['retrievers'])} retrievers but no `fusion:` "  # type: ignore[arg-type]
            f"to merge them. Add one, e.g. `fusion: {{name: rrf}}`. "
            f"Registered fusions: {', '.join(registry.names('fusion')) or '(none)'}"
        )

    llms = raw.get("llms") or {}
    if not isinstance(llms, dict):
        raise ConfigError(
            f"{where(('llms',))}: `llms:` maps your names to LLMs, e.g. `llms: "
            f"{{local: {{name: ollama, model: qwen2.5}}}}`"
        )
    llm_configs = {
        str(key): _component(value, registry, "llm", f"llms.{key}", ("llms", key), raw, where, "llms")
        for key, value in llms.items()
    }

    index = raw.get("index") or {}
    if not isinstance(index, dict) or set(index) - {"dir", "verify"}:
        raise ConfigError(f"{where(('index',))}: `index:` takes the keys `dir:` (a folder path) and `verify:` "
                          "(checksums or sizes)")
    verify = index.get("verify", "checksums")
    if verify not in ("checksums", "sizes"):
        raise ConfigError(
            f"{where(('index', 'verify'))}: `index.verify` is `checksums` (every file's size and SHA-256 "
            f"checked when the index is opened, the default) or `sizes` (sizes only); got {short_repr(verify)}"
        )
    index_dir = Path(os.path.expanduser(str(index.get("dir", ".criss_rag/index"))))
    if not index_dir.is_absolute():
        index_dir = base_dir / index_dir
    config = PipelineConfig(
        name=name.strip(),
        description=str(raw.get("description", "")),
        source=source,
        base_dir=base_dir,
        index_dir=index_dir,
        components=components,
        llms=llm_configs,
        chat=_chat_settings(raw, llm_configs, where),
        index_verify=verify,
    )
    check_references(config, where)  # every label, signal, LLM key and language code names something real
    return config


def _chat_settings(raw: dict[str, Any], llms: dict[str, ComponentConfig], where: Any) -> ChatSettings | None:
    value = raw.get("chat")
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ConfigError(
            f"{where(('chat',))}: `chat:` is a mapping, e.g. `chat: {{condense_llm: local, memory_tokens: 1500}}`"
        )
    try:
        settings = ChatSettings.model_validate(json.loads(json.dumps(value)))
    except ValidationError as exc:
        error = exc.errors()[0]
        key = ".".join(str(part) for part in error["loc"]) or "chat"
        hint = f" Valid keys: {', '.join(ChatSettings.model_fields)}" if error["type"] == "extra_forbidden" else ""
        raise ConfigError(f"{where(('chat', *error['loc'][:1]))}: chat, key {key!r}: {error['msg']}.{hint}") from None
    if settings.condense_llm is not None and settings.condense_llm not in llms:
        raise ConfigError(
            f"{where(('chat', 'condense_llm'))}: chat.condense_llm names the LLM {settings.condense_llm!r}, but "
            "`llms:` "
            f"names only: {', '.join(sorted(llms)) or '(none)'}. Add it under `llms:`, or remove condense_llm to "
            "use the offline heuristic"
        )
    try:
        settings.condense_prompt.format(history="", question="")
    except (KeyError, IndexError, ValueError) as exc:
        raise ConfigError(f"{where(('chat', 'condense_prompt'))}: chat.condense_prompt may use only {{history}} and "
                          f"{{question}} (write other braces as {{{{ }}}}): {exc}") from None
    return settings


def _component(
    value: Any,
    registry: Registry,
    kind: str,
    stage: str,
    path: tuple[Any, ...],
    raw: Any,
    where: Any,
    stage_key: str,
) -> ComponentConfig:
    if isinstance(value, str):
        value = {"name": value}
    if not isinstance(value, dict) or not isinstance(value.get("name"), str):
        raise ConfigError(
            f"{where(path)}: stage {stage}: expected a component, `{{name: <registered {kind}>, ...}}`"
        )
    name = value["name"]
    spec = registry.get(kind, name, where=f"{where(path + ('name',))}: stage {stage}")
    engine_defaults = ENGINE_KEYS.get(stage_key, {})
    # plain lists/dicts (not the line-tracking YAML types) so plans dump and hash cleanly
    options = {key: json.loads(json.dumps(value.get(key, default))) for key, default in engine_defaults.items()}
    for key in ("top_k", "max_hops"):
        if key in options and (not isinstance(options[key], int) or options[key] < 1):
            raise ConfigError(f"{where(path + (key,))}: stage {stage}: `{key}` must be a positive integer")
    languages = options.get("languages")
    if languages is not None and (not isinstance(languages, list) or not all(isinstance(x, str) for x in languages)):
        raise ConfigError(
            f"{where(path + ('languages',))}: stage {stage}: `languages` must be a list of language codes "
            "(en, ko, ja, zh) the retriever serves, or left out for all languages"
        )
    if stage_key == "generator":
        options = _answer_policies(options, path, where, stage)
    params_in: dict[str, Any] = {}
    env_refs: dict[str, str] = {}
    model = spec.params_model
    for key, item in value.items():
        if key == "name" or key in engine_defaults:
            continue
        if _is_env_ref(item):
            var = item["env"]
            if var not in os.environ:
                raise ConfigError(
                    f"{where(path + (key,))}: stage {stage}, {kind} {name!r}, key {key!r}: "
                    f"environment variable {var} is not set. Set it first: export {var}=..."
                )
            env_refs[key] = var
            params_in[key] = os.environ[var]
        elif _is_secret(model, key) and item is not None:
            raise ConfigError(
                f"{where(path + (key,))}: stage {stage}, {kind} {name!r}, key {key!r} is a secret: "
                f"write it as an environment reference, `{key}: {{env: VAR_NAME}}`, never inline"
            )
        else:
            params_in[key] = item
    try:
        params = model.model_validate(params_in)
    except ValidationError as exc:
        raise ConfigError(_explain_validation(exc, model, spec, stage, path, where, engine_defaults)) from None
    return ComponentConfig(stage, kind, name, params, spec, options, env_refs)


def stage_name(stage: str) -> str:
    """``retrievers[0]`` -> ``retrievers``."""
    return stage.split("[", 1)[0]


def _answer_policies(options: dict[str, Any], path: tuple[Any, ...], where: Any, stage: str) -> dict[str, Any]:
    """The generator stage's engine keys, validated; ``relevance`` filled in with its defaults."""
    from criss_rag.answering.grounding_policy import GroundingPolicy
    from criss_rag.answering.relevance import RelevancePolicy

    checks: list[tuple[type[BaseModel], dict[str, Any], tuple[Any, ...]]] = [
        (GroundingPolicy, {k: options[k] for k in ("citations", "unsupported")}, ())]
    if options["relevance"] is not None:
        if not isinstance(options["relevance"], dict):
            raise ConfigError(f"{where(path + ('relevance',))}: stage {stage}: `relevance` must be a mapping, e.g. "
                              "`relevance: {min_coverage: 0.5}`, or null")
        checks.append((RelevancePolicy, options["relevance"], ("relevance",)))
    for model, values, prefix in checks:
        try:
            validated = model.model_validate(values)
        except ValidationError as exc:
            error = exc.errors()[0]
            key = ".".join(str(p) for p in (*prefix, *error["loc"]))
            valid = ", ".join(model.model_fields)
            raise ConfigError(
                f"{where(path + (prefix or tuple(error['loc'][:1])))}: stage {stage}, engine key {key!r}: "
                f"{error['msg']} (got {short_repr(error.get('input'))}; keys: {valid})"
            ) from None
        if prefix:
            options["relevance"] = validated.model_dump(mode="json")
    return options


def _is_env_ref(value: Any) -> bool:
    return isinstance(value, dict) and set(value) == {"env"} and isinstance(value["env"], str)


def _is_secret(model: type[BaseModel], key: str) -> bool:
    info = model.model_fields.get(key)
    if info is None:
        return False
    annotation = info.annotation
    return annotation is SecretStr or SecretStr in typing.get_args(annotation)


def _explain_validation(
    exc: ValidationError, model: type[BaseModel], spec: ComponentSpec, stage: str, path: tuple, where: Any,
    stage_keys: Mapping[str, Any] = {},  # noqa: B006 - read only
) -> str:
    lines = []
    keys = sorted(model.model_fields)
    valid = ", ".join(keys) or "(none: this component takes no options)"
    if stage_keys:  # keys the engine reads on every component of this stage (top_k, label, languages, ...)
        valid += f"; and for every {stage_name(stage)} component: {', '.join(sorted(stage_keys))}"
    for error in exc.errors():
        loc = tuple(error["loc"])
        key = ".".join(str(part) for part in loc) or "(params)"
        head = f"{where(path + loc[:1])}: stage {stage}, {spec.kind} {spec.name!r}, key {short_repr(key)}"
        if error["type"] == "extra_forbidden":
            close = difflib.get_close_matches(str(loc[0]) if loc else key, [*keys, *stage_keys], n=1, cutoff=0.6)
            hint = f" Did you mean {close[0]!r}?" if close else ""
            lines.append(f"{head}: unknown key. Valid keys: {valid}.{hint}")
        elif error["type"] == "missing":
            lines.append(f"{head}: required key is missing")
        else:
            got = error.get("input")
            lines.append(f"{head}: {error['msg']} (got {short_repr(got)})")
    return "\n".join(lines)


