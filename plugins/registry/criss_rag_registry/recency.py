"""Edition recency: prefer the newest version of the same guidance, and the newest staging system
that applies to the diagnosis year.

Three steps, all soft (nothing is dropped):

1. *Same item, several versions.* Candidates that are the same item in different versions of one
   system (same system, section and rule, and the same schema id, or for tables the same title
   once the version number is taken out of it) swap places so that the preferred version comes
   first: the newest, or the earliest when the question asks for it ("earliest version", "최초",
   "最初"). Within a group the candidates take over the group's positions and scores, so other
   candidates do not move. A version whose range excludes the diagnosis year goes last.
2. *Older versions.* Unless the earliest is asked for, a candidate from an older version of its
   system than the preferred one (the requested version, else the newest among the candidates) is
   demoted by ``superseded_weight``: EOD 3.0's "Lung" (2018, open-ended: it predates the 2025
   split) must not beat EOD 3.3's "Lung [V9: 2025+]" for a 2025 case. A candidate whose range
   excludes the year is demoted too (this matters when no year filter runs before).
3. *Several systems for one year.* A year alone does not pick one system: Collaborative Stage's
   range in the data is 2004 with no upper bound, so CS "applies" to a 2019 case just as EOD does.
   When the diagnosis year is known and no system was requested, each system present among the
   candidates gets the earliest start year of its candidates whose range contains the year; the
   systems that started later are the newer edition for that year (EOD 2018 over CS 2004, TNM
   2016 over CS for a 2016 case), and the candidates of the older systems are demoted by
   ``superseded_weight``. Systems that start in the same year (EOD and pediatric, 2018) are not
   ranked against each other.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.errors import DataError
from criss_rag.plugin_utils import DECLARES_SIGNAL
from criss_rag.types import Hit, Query
from criss_rag_registry.staging import check_fields, cue_pattern, version_key
from criss_rag_registry.years import YearRangeReader, request_year

EARLIEST_CUES = [
    "earliest", "oldest", "first version", "first edition", "first appeared", "first appear", "first added",
    "first included", "introduced",
    "가장 이른", "가장 오래된", "최초", "처음", "最初", "最も古い", "初めて", "最早",
]


class EditionRecency:
    """Prefers the newest edition that applies to the diagnosis year (the earliest when the question asks)."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        system_field: str = Field("algorithm", min_length=1, description="chunk metadata holding the staging system")
        version_field: str = Field("version", min_length=1, description="chunk metadata holding the version")
        same_item_fields: list[str] = Field(
            default_factory=lambda: ["algorithm", "section", "rule_id"],
            description="metadata that must be equal for two chunks to be the same item in different versions",
        )
        identity_fields: list[str] = Field(
            default_factory=lambda: ["schema_id", "title"],
            min_length=1,
            description="the first of these a chunk has names the item; the chunk's own version number is removed "
            "from it first ('EOD 3.0 | Nodes' and 'EOD 3.3 | Nodes' match). Schema ids stay the same across "
            "versions while schema names change ('Lung' became 'Lung [8th: 2018-2024]'); table ids change, titles do "
            "not",
        )
        field: str = Field(
            "applicable_years", min_length=1,
            description="metadata holding the chunk's diagnosis-year range (same shapes as the diagnosis-year filter)",
        )
        year_key: str = Field(
            "diagnosis_year", min_length=1, description="query.filters key holding the diagnosis year"
        )
        system_key: str = Field(
            "staging_system", min_length=1,
            description="query.filters key of a requested system; when set, systems are not ranked against each other",
        )
        version_key: str = Field(
            "staging_version", min_length=1,
            description="query.filters key of a requested version; when set (and present among the candidates), "
            "it is the preferred version instead of the newest",
        )
        order_key: str = Field(
            "edition_order", min_length=1,
            description="query.filters key that may say `earliest` or `latest` (wins over the question's cues)",
        )
        earliest_cues: list[str] = Field(
            default_factory=lambda: list(EARLIEST_CUES),
            description="phrases that make the earliest version preferred (whole words, case-insensitive; "
            "Hangul/kana/Han as substrings)",
        )
        superseded_weight: float = Field(
            0.5, gt=0, le=1,
            description="score factor, applied once per reason, for a candidate whose range excludes the year, one "
            "from an older version of its system than the preferred one (not when the earliest is asked for), and "
            "one from an older system than the newest that applies to the year (1 = off); negative scores move "
            "down by the same share",
        )
        signal: str = Field("edition-recency", min_length=1, description="signal name the new score is recorded under",
                            json_schema_extra=DECLARES_SIGNAL)
        corpus_check: Literal["strict", "lenient"] = Field(
            "strict",
            description="chunks lacking the system or version field at ingest/open: strict = an error; lenient = a "
                        "warning",
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.reader = YearRangeReader(params.field)
        self._earliest = [cue_pattern(c) for c in params.earliest_cues if c.strip()]

    # -- what the question wants -------------------------------------------------------------------
    def order(self, query: Query) -> str:
        """``earliest`` or ``latest``: the request's `order_key`, else the question's cues."""
        requested = str(query.filters.get(self.params.order_key) or "").strip().lower()
        if requested in {"earliest", "latest"}:
            return requested
        text = unicodedata.normalize("NFKC", query.text).casefold()
        return "earliest" if any(p.search(text) for p in self._earliest) else "latest"

    def _year(self, query: Query) -> int | None:
        raw = query.filters.get(self.params.year_key)
        return None if raw is None else request_year(raw, self.params.year_key)

    # -- reranking ---------------------------------------------------------------------------------
    def rerank(self, query: Query, hits: list[Hit]) -> list[Hit]:
        if not hits:
            return []
        year = self._year(query)
        ranges = [self._range(h) for h in hits]
        applies = [None if year is None or r is None else r.contains(year) for r in ranges]
        earliest = self.order(query) == "earliest"
        ordered = self._versions_in_place(hits, applies, earliest=earliest)
        factors = self._factors(query, year, hits, ranges, applies, earliest=earliest)
        out = []
        for hit in ordered:
            factor = factors.get(hit.node_id, 1.0)
            score = hit.score - abs(hit.score) * (1 - factor)
            out.append(hit.with_score(score, self.params.signal))
        return sorted(out, key=lambda h: -h.score)  # stable: equal scores keep their order

    def _range(self, hit: Hit) -> Any:
        try:
            return self.reader.read(hit.metadata)
        except DataError:  # a malformed range is the filter's business; here it just gives no preference
            return None

    def _item(self, hit: Hit) -> tuple[str, ...] | None:
        version = hit.metadata.get(self.params.version_field)
        if version in (None, ""):
            return None
        own = re.compile(rf"(?<![\w.]){re.escape(str(version))}(?![\w.])")
        identity = next((f for f in self.params.identity_fields if hit.metadata.get(f) not in (None, "")), None)
        if identity is None:
            return None
        fields = [*self.params.same_item_fields, identity]
        return (identity, *(" ".join(own.sub(" ", str(hit.metadata.get(f, ""))).split()) for f in fields))

    def _versions_in_place(self, hits: list[Hit], applies: list[bool | None], *, earliest: bool) -> list[Hit]:
        groups: dict[tuple[str, ...], list[int]] = defaultdict(list)
        for i, hit in enumerate(hits):
            key = self._item(hit)
            if key is not None:
                groups[key].append(i)
        ordered = list(hits)
        for positions in groups.values():
            if len(positions) < 2:
                continue

            def preference(i: int) -> tuple[Any, ...]:
                version = version_key(hits[i].metadata.get(self.params.version_field))
                # versions that apply to the year first; then newest first (or earliest first)
                return (applies[i] is False, version if earliest else _Reverse(version))

            for position, source in zip(positions, sorted(positions, key=preference), strict=True):
                ordered[position] = hits[source].with_score(hits[position].score)
        return ordered

    def _factors(self, query: Query, year: int | None, hits: list[Hit], ranges: list[Any],
                 applies: list[bool | None], *, earliest: bool) -> dict[str, float]:
        """Score factor by node id (absent = 1): ``superseded_weight`` once for each of: a range that
        excludes the year, an older version of its system, an older system for the year."""
        weight = self.params.superseded_weight
        factors: dict[str, float] = {}
        if weight == 1:
            return factors

        def demote(hit: Hit) -> None:
            factors[hit.node_id] = factors.get(hit.node_id, 1.0) * weight

        for hit, ok in zip(hits, applies, strict=True):
            if ok is False:
                demote(hit)
        # an older version of the same system: the newest present (that applies), or the requested one
        if not earliest:
            requested = query.filters.get(self.params.version_key)
            preferred: dict[str, tuple[Any, ...]] = {}
            for hit, ok in zip(hits, applies, strict=True):
                version = hit.metadata.get(self.params.version_field)
                if ok is not False and version not in (None, ""):
                    system = str(hit.metadata.get(self.params.system_field))
                    preferred[system] = max(preferred.get(system, version_key(version)), version_key(version))
            if requested is not None and not isinstance(requested, list | tuple):
                wanted = version_key(requested)
                present = {version_key(h.metadata.get(self.params.version_field)) for h in hits}
                if wanted in present:
                    preferred = {system: wanted for system in preferred}
            for hit in hits:
                version = hit.metadata.get(self.params.version_field)
                system = str(hit.metadata.get(self.params.system_field))
                if version not in (None, "") and system in preferred and version_key(version) != preferred[system]:
                    demote(hit)
        # an older system for the year: a year alone does not pick a system (CS is 2004-open)
        if year is None or query.filters.get(self.params.system_key):
            return factors
        starts: dict[str, int] = {}
        for hit, found, ok in zip(hits, ranges, applies, strict=True):
            if ok:
                system = str(hit.metadata.get(self.params.system_field))
                starts[system] = min(starts.get(system, found.start), found.start)
        if starts:
            newest = max(starts.values())
            for hit, ok in zip(hits, applies, strict=True):
                if ok and starts[str(hit.metadata.get(self.params.system_field))] < newest:
                    demote(hit)
        return factors

    def check_corpus(self, nodes: Sequence[Any]) -> str | None:
        return check_fields(nodes, [self.params.system_field, self.params.version_field],
                            "reranker edition-recency", self.params.corpus_check)


class _Reverse:
    """Sorts its value in descending order inside an ascending sort key."""

    def __init__(self, value: Any) -> None:
        self.value = value

    def __lt__(self, other: _Reverse) -> bool:
        return other.value < self.value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Reverse) and other.value == self.value
