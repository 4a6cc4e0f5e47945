"""Shared helpers: answer text without markers, reference answers, analyzers, corpus ids."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from functools import cache
from pathlib import Path
from typing import Any

from criss_rag.errors import ConfigError, DataError
from criss_rag.plugin_utils import CITATION_MARKER
from criss_rag.types import Answer

_MARKER = re.compile(r"\s*" + CITATION_MARKER.pattern)
REFERENCE_FIELDS = ["reference_answer", "reference", "long_answer", "answer"]


def strip_markers(text: str) -> str:
    """The answer text without its ``[n]`` citation markers."""
    return _MARKER.sub("", text)


def reference_of(question: Mapping[str, Any], fields: list[str]) -> str | None:
    """The first non-empty reference field of the question, or None (the metric then does not apply)."""
    for name in fields:
        value = question.get(name)
        if isinstance(value, str) and value.strip():
            return value
    return None


def answer_text(answer: Answer, skip_refused: bool) -> str | None:
    if answer.refused and skip_refused:
        return None
    return strip_markers(answer.text)


def evidence_of(question: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The numbered evidence the runner recorded (``_evidence``), or [] outside ``eval run``."""
    return list(question.get("_evidence") or [])


def dotted(mapping: Mapping[str, Any], path: str) -> Any:
    node: Any = mapping
    for part in path.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


@cache
def corpus_ids(path: Path, id_field: str) -> frozenset[str]:
    """Document ids of a JSONL corpus (one document per line) or a JSON list of documents."""
    if not path.is_file():
        raise ConfigError(f"corpus file not found: {path}")
    text = path.read_text(encoding="utf-8")
    items: list[Any]
    if path.suffix == ".json":
        data = json.loads(text)
        items = data if isinstance(data, list) else list(data.get("documents", []))
    else:
        items = [json.loads(line) for line in text.splitlines() if line.strip()]
    ids = {str(item[id_field]) for item in items if isinstance(item, dict) and item.get(id_field) is not None}
    if not ids:
        raise DataError(f"{path}: no document has a {id_field!r} field; set `id_field` to the corpus's id key")
    return frozenset(ids)
