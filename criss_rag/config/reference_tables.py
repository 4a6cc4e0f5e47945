"""The params tables of the YAML reference, generated from the components' ``Params`` models.

``docs/yaml-reference.md`` keeps each component's prose by hand; its table of params sits between
``<!-- params KIND:NAME -->`` and ``<!-- /params -->`` and is rewritten from the model, so the
reference cannot drift from the code (a test fails when the checked-in file is stale)::

    python -m criss_rag.config.reference_tables docs/yaml-reference.md          # rewrite the tables
    python -m criss_rag.config.reference_tables docs/yaml-reference.md --check  # exit 1 if stale
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Any

import annotated_types
from pydantic import BaseModel
from pydantic.fields import FieldInfo

from criss_rag.registry import Registry

BLOCK = re.compile(r"<!-- params (?P<kind>[\w-]+):(?P<name>[\w.-]+) -->\n.*?<!-- /params -->", re.S)
HEADER = "| Key | Type | Default | Description |\n|---|---|---|---|"


def _type_name(annotation: Any) -> str:
    if isinstance(annotation, type):
        return annotation.__name__
    text = str(annotation).replace("typing.", "")
    return re.sub(r"<class '(?:[\w.]+\.)?(\w+)'>", r"\1", text)


def _constraints(info: FieldInfo) -> str:
    bounds: dict[str, Any] = {}
    for item in info.metadata:
        for attr, symbol in (("ge", "≥"), ("gt", ">"), ("le", "≤"), ("lt", "<"), ("min_length", "min length")):
            if isinstance(item, annotated_types.BaseMetadata) and getattr(item, attr, None) is not None:
                bounds[symbol] = getattr(item, attr)
    if "≥" in bounds and "≤" in bounds:
        return f" ({bounds.pop('≥')} to {bounds.pop('≤')})"
    return "".join(f" ({symbol} {value})" for symbol, value in bounds.items())


def _default(info: FieldInfo) -> str:
    if info.is_required():
        return "required"
    value = info.default_factory() if info.default_factory is not None else info.default  # type: ignore[call-arg]
    if isinstance(value, BaseModel):
        return "see the rows below"
    return f"`{json.dumps(value, ensure_ascii=False, default=str)}`"


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def rows(model: type[BaseModel], prefix: str = "") -> list[str]:
    """One Markdown row per param (nested models flattened as ``parent.child``)."""
    out = []
    for name, info in model.model_fields.items():
        key = f"{prefix}{name}"
        type_text = _cell(f"`{_type_name(info.annotation)}`{_constraints(info)}")
        out.append(f"| `{key}` | {type_text} | {_cell(_default(info))} | {_cell(info.description or '')} |")
        nested = info.annotation
        if isinstance(nested, type) and issubclass(nested, BaseModel):
            out.extend(rows(nested, f"{key}."))
    return out


def table(model: type[BaseModel]) -> str:
    body = rows(model)
    if not body:
        return "This component takes no params."
    return HEADER + "\n" + "\n".join(body)


def undocumented(model: type[BaseModel], prefix: str = "") -> list[str]:
    """Params without a ``description`` (the reference would show an empty cell)."""
    missing = []
    for name, info in model.model_fields.items():
        if not (info.description or "").strip():
            missing.append(f"{prefix}{name}")
        if isinstance(info.annotation, type) and issubclass(info.annotation, BaseModel):
            missing.extend(undocumented(info.annotation, f"{prefix}{name}."))
    return missing


def update(text: str, registry: Registry) -> str:
    """``text`` with every params block regenerated from the registered component's model."""

    def replace(match: re.Match[str]) -> str:
        spec = registry.get(match["kind"], match["name"])
        return f"<!-- params {match['kind']}:{match['name']} -->\n\n{table(spec.params_model)}\n\n<!-- /params -->"

    return BLOCK.sub(replace, text)


def main(argv: list[str] | None = None) -> int:
    from criss_rag.plugins import PluginHost

    parser = argparse.ArgumentParser(description="Regenerate the params tables of the YAML reference.")
    parser.add_argument("path", type=Path)
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale instead of writing it")
    args = parser.parse_args(argv)
    current = args.path.read_text(encoding="utf-8")
    fresh = update(current, PluginHost(strict=True).registry)
    if args.check:
        if fresh != current:
            print(f"{args.path} is stale: run python -m criss_rag.config.reference_tables {args.path}", file=sys.stderr)
            return 1
        return 0
    args.path.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
