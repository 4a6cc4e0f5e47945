"""Dotted command-line overrides: ``--set retrievers.bm25.top_k=8``.

A path walks mappings by key and lists by index (``retrievers.0.top_k``) or by the ``label`` or
``name`` of an item (``retrievers.bm25.top_k``). The value is parsed as YAML (``8`` is an int,
``[a, b]`` a list, ``{env: KEY}`` an env reference).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from criss_rag.config.yaml_source import LineDict, load_yaml
from criss_rag.errors import ConfigError


def apply_overrides(raw: dict[str, Any], overrides: Iterable[str]) -> dict[str, Any]:
    for override in overrides:
        path, sep, text = override.partition("=")
        if not sep or not path.strip():
            raise ConfigError(f"--set {override!r}: expected KEY.PATH=VALUE, e.g. --set retrievers.bm25.top_k=8")
        try:  # bounded like a config file (size, alias expansion)
            value = load_yaml(text, "--set value") if text.strip() else None
        except ConfigError as exc:
            raise ConfigError(f"--set {override[:200]!r}: {exc}") from None
        _assign(raw, path.strip().split("."), value, override)
    return raw


def _assign(node: Any, parts: list[str], value: Any, override: str) -> None:
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        here = ".".join(parts[: i + 1])
        if isinstance(node, list):
            index = _list_index(node, part, override, here)
            if last:
                node[index] = value
                return
            node = node[index]
        elif isinstance(node, dict):
            if last or part not in node:  # errors about what this sets blame the --set, not a YAML line
                if isinstance(node, LineDict):
                    if node.set_by is None:
                        node.set_by = {}
                    node.set_by[part] = override
            if last:
                node[part] = value
                return
            if not isinstance(node.get(part), dict | list):
                if node.get(part) is None:
                    node[part] = {}
                elif isinstance(node[part], str):  # `generator: extractive` -> a mapping
                    node[part] = {"name": node[part]}
                else:
                    raise ConfigError(f"--set {override!r}: {here!r} is a value, not a mapping")
            node = node[part]
        else:
            raise ConfigError(f"--set {override!r}: cannot descend into {here!r}")


def _list_index(items: list[Any], part: str, override: str, here: str) -> int:
    if part.isdigit():
        index = int(part)
        if index < len(items):
            return index
        raise ConfigError(f"--set {override!r}: {here!r} is out of range (the list has {len(items)} items)")
    for index, item in enumerate(items):
        if isinstance(item, str) and item == part:
            items[index] = {"name": item}
            return index
        if isinstance(item, dict) and part in (item.get("label"), item.get("name")):
            return index
    names = [str(item.get("label") or item.get("name")) if isinstance(item, dict) else str(item) for item in items]
    raise ConfigError(
        f"--set {override!r}: no item {part!r} in this list; use an index or one of: {', '.join(names)}"
    )
