"""What an answer cache stores answers under (:class:`CacheScope`) and returns (:class:`CacheHit`)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from criss_rag.types.answer import Answer


@dataclass(frozen=True)
class CacheScope:
    """What must match before a cache may answer with a stored answer: the pipeline's config hash,
    the version of the corpus its index was built from, the request filters and the question's
    language. A cache stores each answer under its scope and looks up only within the same one."""

    config_hash: str
    corpus_version: str
    filters: Mapping[str, Any] = field(default_factory=dict)
    language: str = ""

    @property
    def key(self) -> str:
        """A short hash of the whole scope (filters in canonical order)."""
        blob = json.dumps([self.config_hash, self.corpus_version, dict(self.filters), self.language],
                          sort_keys=True, ensure_ascii=False, default=str)
        return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class CacheHit:
    """What a cache's ``lookup`` returns: the stored answer and how it matched."""

    answer: Answer
    similarity: float
    original_question: str
    stored: str = ""
