"""Staging system and version: which one a question asks about (a query transform), and a hard
filter that keeps the candidates of that system and version."""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from criss_rag.context import ComponentContext
from criss_rag.errors import ConfigError
from criss_rag.types import FilterOutcome, Hit, Query

CANDIDATES_SUFFIX = "_candidates"

#: SEER staging systems as named in the registry data (metadata `algorithm`) and their usual names.
SEER_SYSTEMS: dict[str, list[str]] = {
    "eod_public": ["eod_public", "eod", "extent of disease", "eod 2018"],
    "cs": ["cs", "csv2", "collaborative stage", "collaborative staging"],
    "tnm": ["tnm", "seer*rsa tnm"],
    "pediatric": ["pediatric", "paediatric", "pediatric data collection system", "소아", "小児", "儿童"],
}

_VERSION = r"\d+(?:\.\d+)+"  # a dotted number: "3.3", "02.05.50" (a plain "V9" is an AJCC edition, not a version)
_VERSION_LIST = rf"({_VERSION}(?:\s*(?:,|/|、|and|or|및|와|과|と)\s*{_VERSION})*)"
_BEFORE = re.compile(
    r"(?<![a-z])(?:versions?|ver\.?|v\.?|버전|バージョン|版)\s*(?:(?:no\.?|number|#)\s*)?" + _VERSION_LIST, re.I
)
_AFTER = re.compile(_VERSION_LIST + r"\s*(?:버전|バージョン|版)")


def version_key(value: Any) -> tuple[Any, ...]:
    """Comparable form of a version: "02.05.50" and "2.5.50" are equal, "3.10" is after "3.9"."""
    parts = re.split(r"[.\-_ ]", str(value).strip().lstrip("vV"))
    return tuple((0, int(p)) if p.isdigit() else (1, p) for p in parts if p)


def cue_pattern(cue: str) -> re.Pattern[str]:
    cue = unicodedata.normalize("NFKC", cue).casefold().strip()
    if cue.isascii():  # a whole word: "cs" must not match "physics"
        return re.compile(rf"(?<![a-z0-9_]){re.escape(cue)}(?![a-z0-9_])")
    return re.compile(re.escape(cue))  # Hangul, kana, Han: written without spaces


class SystemCues:
    """Finds the staging systems and versions a question names."""

    def __init__(self, systems: Mapping[str, Sequence[str]]) -> None:
        self.systems = {value: [cue_pattern(c) for c in cues if c.strip()] for value, cues in systems.items()}
        # "EOD 3.3", "CS 02.05.50": a version right after a system's name
        names = sorted(
            {c for cues in systems.values() for c in cues if c.strip() and c.isascii()}, key=len, reverse=True
        )
        alternatives = "|".join(re.escape(n.casefold()) for n in names)
        self._after_system = (
            re.compile(rf"(?<![a-z0-9_])(?:{alternatives})\s*(?:\([^)]*\)\s*)?{_VERSION_LIST}") if names else None
        )

    def find_systems(self, text: str) -> list[str]:
        text = unicodedata.normalize("NFKC", text).casefold()
        return [value for value, patterns in self.systems.items() if any(p.search(text) for p in patterns)]

    def find_versions(self, text: str) -> list[str]:
        text = unicodedata.normalize("NFKC", text).casefold()
        found: list[tuple[int, str]] = []
        patterns = [_BEFORE, _AFTER] + ([self._after_system] if self._after_system else [])
        for pattern in patterns:
            for match in pattern.finditer(text):
                found.extend((match.start(1) + m.start(), m.group()) for m in re.finditer(_VERSION, match.group(1)))
        distinct: dict[tuple[Any, ...], str] = {}
        for _, version in sorted(found):
            distinct.setdefault(version_key(version), version)
        return list(distinct.values())


class _Keys(BaseModel):
    model_config = ConfigDict(extra="forbid")
    system_key: str = Field("staging_system", min_length=1, description="query.filters key of the staging system")
    version_key: str = Field("staging_version", min_length=1, description="query.filters key of the version")


class StagingVersionTransform:
    """Puts the staging system and version the request or the question names into `query.filters`."""

    class Params(_Keys):
        systems: dict[str, list[str]] = Field(
            default_factory=lambda: {k: list(v) for k, v in SEER_SYSTEMS.items()},
            description="system value (as in the chunks' system metadata) -> names that identify it in a question "
            "(whole words, case-insensitive; Hangul/kana/Han names as substrings)",
        )

        @field_validator("systems")
        @classmethod
        def _named(cls, value: dict[str, list[str]]) -> dict[str, list[str]]:
            empty = sorted(k for k, cues in value.items() if not any(c.strip() for c in cues))
            if empty:
                raise ValueError(f"systems {', '.join(empty)} list no name")
            return value

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.cues = SystemCues(params.systems)

    def transform(self, query: Query) -> Query:
        filters = dict(query.filters)
        changed = False
        for key, found in ((self.params.system_key, self.cues.find_systems),
                           (self.params.version_key, self.cues.find_versions)):
            if filters.get(key) is not None:
                continue  # the request's value wins
            values = found(query.text)
            if len(values) == 1:
                filters[key] = values[0]
                changed = True
            elif values:  # several named (e.g. "versions 2.1, 3.0, 3.3"): ambiguous, left to the reranker
                filters[key + CANDIDATES_SUFFIX] = values
                changed = True
        return dataclasses.replace(query, filters=filters) if changed else query


class StagingVersionFilter:
    """Keeps the candidates of the staging system and version the request or question names (a hard filter)."""

    class Params(_Keys):
        system_field: str = Field("algorithm", min_length=1, description="chunk metadata holding the staging system")
        version_field: str = Field("version", min_length=1, description="chunk metadata holding the version")
        corpus_check: Literal["strict", "lenient"] = Field(
            "strict",
            description="chunks lacking either field at ingest/open: strict = an error; lenient = a warning in the "
                        "trace",
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params

    def apply(self, query: Query, hits: list[Hit]) -> FilterOutcome:
        p = self.params
        systems = _as_list(query.filters.get(p.system_key))
        versions = _as_list(query.filters.get(p.version_key))
        if not systems and not versions:
            several = [f"{k}: {', '.join(map(str, query.filters[k + CANDIDATES_SUFFIX]))}"
                       for k in (p.system_key, p.version_key) if query.filters.get(k + CANDIDATES_SUFFIX)]
            note = ("no single staging system or version in the request or the question: nothing filtered"
                    + (f" (several named: {'; '.join(several)})" if several else ""))
            return FilterOutcome(list(hits), {}, applied=False, note=note)
        wanted_systems = {str(s).casefold() for s in systems}
        wanted_versions = {version_key(v) for v in versions}
        kept: list[Hit] = []
        removed: Counter[str] = Counter()
        for hit in hits:
            system = hit.metadata.get(p.system_field)
            version = hit.metadata.get(p.version_field)
            if wanted_systems and str(system).casefold() not in wanted_systems:
                removed[f"other system (not {'/'.join(map(str, systems))})"] += 1
            elif wanted_versions and (version is None or version_key(version) not in wanted_versions):
                removed[f"other version (not {'/'.join(map(str, versions))})"] += 1
            else:
                kept.append(hit)
        asked = ", ".join(x for x in (f"system {'/'.join(map(str, systems))}" if systems else "",
                                      f"version {'/'.join(map(str, versions))}" if versions else "") if x)
        return FilterOutcome(
            kept, dict(removed), applied=True, note=f"{asked}: kept {len(kept)} of {len(hits)} candidates"
        )

    def check_corpus(self, nodes: Sequence[Any]) -> str | None:
        return check_fields(nodes, [self.params.system_field, self.params.version_field],
                            "filter staging-version", self.params.corpus_check)


def check_fields(nodes: Sequence[Any], fields: list[str], who: str, mode: str) -> str | None:
    """``None`` when every chunk has every field; else a ConfigError (strict) or a warning (lenient)."""
    missing = [str(n.metadata.get("doc_id", n.node_id)) for n in nodes
               if any(n.metadata.get(f) in (None, "") for f in fields)]
    if not missing:
        return None
    what = (f"{who}: {len(missing)} of {len(nodes)} chunks lack metadata {' or '.join(f'`{f}`' for f in fields)}, "
            f"e.g. {', '.join(missing[:3])}")
    if mode == "lenient":
        return what + "; they are removed whenever the request or the question names what they lack"
    raise ConfigError(what + ". Set the field names to ones the loader keeps, or set `corpus_check: lenient`")


def _as_list(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list | tuple | set | frozenset) else [value]
