"""Tables of the docs generated from the registry: the params tables of the YAML reference (from
the components' ``Params`` models) and the "Bundled" column of the hooks table in plugin-hooks.md.

``docs/yaml-reference.md`` keeps each component's prose by hand; its table of params sits between
``<!-- params KIND:NAME -->`` and ``<!-- /params -->`` and is rewritten from the model.
``docs/plugin-hooks.md`` keeps its hooks table between ``<!-- bundled-components -->`` and
``<!-- /bundled-components -->``; the last cell of each row is rewritten with the components the
bundled plugins register for that row's hook. So the docs cannot drift from the code (a test fails
when a checked-in file is stale)::

    python -m criss_rag.config.reference_tables docs/yaml-reference.md docs/plugin-hooks.md          # rewrite
    python -m criss_rag.config.reference_tables docs/yaml-reference.md docs/plugin-hooks.md --check  # exit 1 if stale
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

from criss_rag.registry import KINDS, Registry

BLOCK = re.compile(r"<!-- params (?P<kind>[\w-]+):(?P<name>[\w.-]+) -->\n.*?<!-- /params -->", re.S)
BUNDLED_BLOCK = re.compile(r"(<!-- bundled-components -->\n)(.*?)(<!-- /bundled-components -->)", re.S)
_HOOK_CELL = re.compile(r"`(register_\w+)`")
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


def update(text: str, registry: Registry, bundled: set[str] | None = None,
           commands: dict[str, list[str]] | None = None) -> str:
    """``text`` with every params block regenerated from the registered component's model, and (with
    ``bundled``, the bundled plugins' names) the bundled-components block from the registry."""

    def replace(match: re.Match[str]) -> str:
        spec = registry.get(match["kind"], match["name"])
        return f"<!-- params {match['kind']}:{match['name']} -->\n\n{table(spec.params_model)}\n\n<!-- /params -->"

    text = BLOCK.sub(replace, text)
    if bundled is not None:
        text = BUNDLED_BLOCK.sub(lambda m: m[1] + bundled_rows(m[2], registry, bundled, commands or {}) + m[3], text)
    return text


def bundled_cell(registry: Registry, kind: str, bundled: set[str]) -> str:
    """``plugin: `a`, `b`; plugin: `c``` for the components of ``kind`` the bundled plugins register."""
    by_plugin: dict[str, list[str]] = {}
    for spec in registry.specs(kind):
        if spec.plugin in bundled:
            by_plugin.setdefault(spec.plugin, []).append(spec.name)
    return "; ".join(f"{plugin}: {', '.join(f'`{n}`' for n in names)}" for plugin, names in sorted(by_plugin.items())) \
        or "none"


def bundled_rows(block: str, registry: Registry, bundled: set[str], commands: dict[str, list[str]]) -> str:
    """The table in ``block`` with the last cell of each hook's row rewritten (``commands``: the
    command names each bundled plugin adds, for ``register_commands``)."""
    hooks = {hook: kind for kind, hook in KINDS.items()}
    lines = []
    for line in block.splitlines(keepends=True):
        match = _HOOK_CELL.search(line)
        if match and line.startswith("|"):
            hook = match[1]
            if hook in hooks:
                cell = bundled_cell(registry, hooks[hook], bundled)
            else:
                cell = "; ".join(f"{plugin}: {', '.join(f'`{c}`' for c in names)}"
                                 for plugin, names in sorted(commands.items()) if plugin in bundled) or "none"
            line = line[: line.rstrip().rstrip("|").rstrip().rfind("|") + 1] + f" {cell} |\n"
        lines.append(line)
    return "".join(lines)


def bundled_plugins(plugins_dir: Path) -> set[str]:
    """The entry-point names the distributions under ``plugins_dir`` declare (the bundled plugins)."""
    import tomllib

    from criss_rag.plugins import ENTRY_POINT_GROUP

    names: set[str] = set()
    for pyproject in sorted(plugins_dir.glob("*/pyproject.toml")):
        data = tomllib.loads(pyproject.read_text(encoding="utf-8"))
        names.update(data["project"]["entry-points"][ENTRY_POINT_GROUP])
    return names


def plugin_commands(host: Any) -> dict[str, list[str]]:
    """The commands each loaded plugin adds to ``criss-rag`` (by plugin name)."""
    import click

    found: dict[str, list[str]] = {}
    for name, info in host.plugins.items():
        if "register_commands" in info.hooks:
            group = click.Group()
            host.pm.get_plugin(name).register_commands(cli=group)
            found[name] = sorted(group.commands)
    return found


def main(argv: list[str] | None = None) -> int:
    from criss_rag.plugins import PluginHost

    parser = argparse.ArgumentParser(description="Regenerate the tables of the docs that come from the registry.")
    parser.add_argument("paths", type=Path, nargs="+")
    parser.add_argument("--plugins-dir", type=Path, default=Path("plugins"),
                        help="where the bundled plugins' distributions are (default: plugins)")
    parser.add_argument("--check", action="store_true", help="exit 1 if a file is stale instead of writing it")
    args = parser.parse_args(argv)
    host = PluginHost(strict=True)
    bundled, commands = bundled_plugins(args.plugins_dir), plugin_commands(host)
    stale = []
    for path in args.paths:
        current = path.read_text(encoding="utf-8")
        fresh = update(current, host.registry, bundled, commands)
        if fresh != current:
            stale.append(path)
            if not args.check:
                path.write_text(fresh, encoding="utf-8")
    if args.check and stale:
        names = " ".join(str(p) for p in args.paths)
        print(
            f"{', '.join(map(str, stale))} stale: run python -m criss_rag.config.reference_tables {names}",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
