"""``criss-rag plugins --params [KIND:]NAME``: a component's parameters (type, default, description),
and the keys the engine reads on every component of its stage (``top_k``, ``label``, ...)."""

from __future__ import annotations

import difflib
import typing
from typing import Any

from pydantic import BaseModel
from pydantic_core import PydanticUndefined

from criss_rag.config.model import ENGINE_KEYS, STAGES
from criss_rag.errors import ConfigError
from criss_rag.registry import Registry


def component_params(registry: Registry, wanted: str) -> list[dict[str, Any]]:
    """Every registered component called ``wanted`` (``kind:name`` picks one kind), described."""
    kind, _, name = wanted.rpartition(":")
    specs = [s for s in registry.specs() if s.name == name and (not kind or s.kind == kind)]
    if not specs:
        names = sorted({s.name for s in registry.specs()})
        close = difflib.get_close_matches(name, names, n=3, cutoff=0.6)
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise ConfigError(f"--params {wanted!r}: no registered component is called {name!r}"
                          f"{f' (kind {kind})' if kind else ''}.{hint} `criss-rag plugins --all` lists them all.")
    out = []
    for spec in specs:
        stage = next((stage for stage, (k, _, _) in STAGES.items() if k == spec.kind), None)
        out.append({
            "kind": spec.kind, "name": spec.name, "plugin": spec.plugin, "summary": spec.summary,
            "params": describe(spec.params_model),
            "stage_keys": {key: default for key, default in ENGINE_KEYS.get(stage or "", {}).items()},
            "stage": stage,
        })
    return out


def describe(model: type[BaseModel]) -> list[dict[str, Any]]:
    rows = []
    for key, field in model.model_fields.items():
        if field.default is not PydanticUndefined:
            default: Any = field.default
        elif field.default_factory is not None:
            default = field.default_factory()  # type: ignore[call-arg]
        else:
            default = "(required)"
        rows.append({"name": key, "type": type_name(field.annotation), "default": _plain(default),
                     "description": field.description or ""})
    return rows


def type_name(annotation: Any) -> str:
    if isinstance(annotation, type) and not typing.get_args(annotation):
        return annotation.__name__
    return str(annotation).replace("typing.", "").replace("NoneType", "None")


def _plain(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value.model_dump(mode="json")
    if isinstance(value, str | int | float | bool | type(None)):
        return value
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    return str(value)


def render_params(described: list[dict[str, Any]]) -> str:
    lines: list[str] = []
    for item in described:
        lines.append(f"{item['kind']} {item['name']} (plugin {item['plugin']}): {item['summary']}")
        if not item["params"]:
            lines.append("  (no parameters)")
        for row in item["params"]:
            text = f"  {row['name']}: {row['type']} = {row['default']!r}"
            lines.append(text + (f"  -- {row['description']}" if row["description"] else ""))
        if item["stage_keys"]:
            keys = ", ".join(f"{k} = {v!r}" for k, v in item["stage_keys"].items())
            lines.append(f"  and on every {item['stage']} component (read by the engine): {keys}")
    return "\n".join(lines)
