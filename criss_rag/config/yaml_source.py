"""YAML reading that remembers line numbers, so config errors can say ``file:line``.

Bounded: a document over :data:`MAX_YAML_BYTES`, or one whose nodes, with every alias expanded,
number over :data:`MAX_YAML_NODES` (an "alias bomb": a few lines of anchors that expand to
billions of values), or an alias that contains itself, is refused before any value is built.
Values echoed in error messages are cut with :func:`short_repr`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

from criss_rag.errors import ConfigError

MAX_YAML_BYTES = 2_000_000  # a pipeline or experiment file is a few KB; long prompts fit easily
MAX_YAML_NODES = 100_000  # scalars, lists and mappings, each alias counted as the whole node it names
MAX_REPR = 200  # characters of a value shown in an error message


def short_repr(value: Any, limit: int = MAX_REPR) -> str:
    """``repr(value)`` cut to ``limit`` characters (with the full length said), for error messages."""
    try:
        text = reprlib_repr(value)
    except RecursionError:
        text = f"<{type(value).__name__}>"
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters)" if len(text) < 10 * MAX_YAML_BYTES else f"{text[:limit]}..."


def reprlib_repr(value: Any) -> str:
    """A repr that stops early on large containers and long strings (never builds a huge string)."""
    import reprlib

    shortener = reprlib.Repr()
    shortener.maxstring = shortener.maxother = MAX_REPR
    shortener.maxlist = shortener.maxdict = shortener.maxtuple = shortener.maxset = 10
    shortener.maxlevel = 4
    return shortener.repr(value)


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


def _expanded_size(root: yaml.Node, source: str) -> int:
    """How many nodes ``root`` holds with every alias expanded (a shared node counts each time it is
    used), computed once per node; a node that contains itself is an error."""
    sizes: dict[int, int] = {}
    open_nodes: set[int] = set()
    stack: list[tuple[yaml.Node, bool]] = [(root, False)]
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            open_nodes.discard(key)
            if isinstance(node, yaml.MappingNode):
                children = [n for pair in node.value for n in pair]
            elif isinstance(node, yaml.SequenceNode):
                children = node.value
            else:
                children = []
            sizes[key] = 1 + sum(sizes[id(c)] for c in children)
            if sizes[key] > MAX_YAML_NODES:
                raise ConfigError(
                    f"{source}:{node.start_mark.line + 1}: the YAML expands to more than {MAX_YAML_NODES:,} values "
                    "(anchors and aliases repeated inside each other?); a pipeline config needs far fewer. "
                    "Write the values out or use fewer nested aliases"
                )
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            raise ConfigError(f"{source}:{node.start_mark.line + 1}: an alias refers to a node that contains it "
                              "(a recursive anchor); a config value cannot contain itself")
        open_nodes.add(key)
        stack.append((node, True))
        if isinstance(node, yaml.MappingNode):
            stack.extend((n, False) for pair in node.value for n in pair if id(n) not in sizes)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((n, False) for n in node.value if id(n) not in sizes)
    return sizes[id(root)]


def load_yaml(text: str, source: str) -> Any:
    """Parse YAML text; errors name ``source`` and the line. Bounded in size and alias expansion."""
    size = len(text.encode("utf-8", errors="replace")) if len(text) * 4 > MAX_YAML_BYTES else len(text)
    if size > MAX_YAML_BYTES:
        raise ConfigError(f"{source}: {size:,} bytes of YAML, over the limit of {MAX_YAML_BYTES:,} for a config file; "
                          "is this the right file? Keep large data (corpora, prompts) in files the config names")
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _expanded_size(node, source)
        return loader.construct_document(node)
    except ConfigError as exc:
        message = str(exc)
        raise ConfigError(message if message.startswith(source) else f"{source}: {message}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{source}:{mark.line + 1}" if mark else source
        problem = getattr(exc, "problem", None) or str(exc)
        raise ConfigError(f"{where}: invalid YAML: {problem}") from None
    finally:
        loader.dispose()


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
