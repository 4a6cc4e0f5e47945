"""YAML reading that remembers line numbers, so config errors can say ``file:line``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from criss_rag.errors import ConfigError


class LineDict(dict):
    """A mapping from YAML that knows the line of each key (1-based) and of itself, and which keys
    a ``--set`` override wrote (``set_by``: key -> the override)."""

    line: int = 0
    key_lines: dict[Any, int]
    set_by: dict[Any, str] | None = None


class LineList(list):
    """A sequence from YAML that knows the line of each item."""

    line: int = 0
    item_lines: list[int]


class _Loader(yaml.SafeLoader):
    pass


def _construct_mapping(loader: _Loader, node: yaml.MappingNode) -> LineDict:
    loader.flatten_mapping(node)
    result = LineDict()
    result.line = node.start_mark.line + 1
    result.key_lines = {}
    for key_node, value_node in node.value:
        key = loader.construct_object(key_node, deep=True)
        if key in result:
            raise ConfigError(
                f"line {key_node.start_mark.line + 1}: key {key!r} appears twice in the same mapping "
                f"(first on line {result.key_lines[key]}); keep one"
            )
        result[key] = loader.construct_object(value_node, deep=True)
        result.key_lines[key] = key_node.start_mark.line + 1
    return result


def _construct_sequence(loader: _Loader, node: yaml.SequenceNode) -> LineList:
    result = LineList(loader.construct_object(child, deep=True) for child in node.value)
    result.line = node.start_mark.line + 1
    result.item_lines = [child.start_mark.line + 1 for child in node.value]
    return result


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)
_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _construct_sequence)


def load_yaml(text: str, source: str) -> Any:
    """Parse YAML text; errors name ``source`` and the line."""
    try:
        return yaml.load(text, Loader=_Loader)  # noqa: S506 - _Loader is a SafeLoader
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark else source
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{where}: invalid YAML: {problem}") from None


def read_yaml_file(path: Path) -> Any:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except UnicodeDecodeError:
        raise ConfigError(f"{path}: not UTF-8 text; save the config as UTF-8") from None
    return load_yaml(text, str(path))


def line_of(root: Any, path: tuple[Any, ...]) -> int | None:
    """The line of the deepest element of ``path`` found in ``root`` (None if unknown)."""
    line: int | None = getattr(root, "line", None)
    node = root
    for step in path:
        if isinstance(node, LineDict) and step in node:
            line = node.key_lines.get(step, line)
            node = node[step]
        elif isinstance(node, LineList) and isinstance(step, int) and 0 <= step < len(node):
            line = node.item_lines[step]
            node = node[step]
        else:
            break
    return line


def blame(root: Any, path: tuple[Any, ...], source: str) -> str:
    """Where an error about ``path`` points: ``source: --set 'KEY=VALUE'`` when an override wrote a
    key on the path, else ``source:LINE`` (or ``source`` when the line is unknown)."""
    node = root
    for step in path:
        set_by = getattr(node, "set_by", None)
        if set_by and step in set_by:
            return f"{source}: --set {set_by[step]!r}"
        if isinstance(node, dict | list) and (step in node if isinstance(node, dict) else
                                              isinstance(step, int) and 0 <= step < len(node)):
            node = node[step]
        else:
            break
    line = line_of(root, path)
    return f"{source}:{line}" if line else source
