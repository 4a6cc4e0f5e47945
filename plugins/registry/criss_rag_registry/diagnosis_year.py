"""The diagnosis year: a query transform that finds it (request first, then the question) and a
hard filter that keeps the chunks whose year range contains it."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.context import ComponentContext
from criss_rag.errors import ConfigError, DataError
from criss_rag.types import FilterOutcome, Hit, Query
from criss_rag_registry.years import YearRangeReader, YearRule, find_years, request_year

SOURCE_SUFFIX = "_source"  # query.filters["diagnosis_year_source"]: "request" or "question"
CANDIDATES_SUFFIX = "_candidates"  # query.filters["diagnosis_year_candidates"]: years of an ambiguous question


class DiagnosisYearTransform:
    """Puts the diagnosis year into `query.filters`: the request's value, else the year the question names."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        filter_key: str = Field(
            "diagnosis_year", min_length=1,
            description="query.filters key the year is read from (request) and written to; "
            "the source goes to `<key>_source`, the years of an ambiguous question to `<key>_candidates`",
        )
        on_multiple: Literal["none", "first", "earliest", "latest"] = Field(
            "none",
            description="when the question names several diagnosis years: set none (ambiguous, nothing is "
            "filtered), or take the first mentioned, the earliest or the latest",
        )
        bare_years: bool = Field(
            False,
            description="also take a year with no diagnosis cue next to it (\"C340 in 2019\") when no cued year "
            "is found; off by default because questions name other years (\"Lung [V9: 2025+]\")",
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params

    def transform(self, query: Query) -> Query:
        key = self.params.filter_key
        filters = dict(query.filters)
        if filters.get(key) is not None:  # the request's year wins over the question
            filters[key] = request_year(filters[key], key)
            filters[key + SOURCE_SUFFIX] = "request"
            return dataclasses.replace(query, filters=filters)
        years = find_years(query.text, bare_years=self.params.bare_years)
        if not years:
            return query
        if len(years) == 1 or self.params.on_multiple != "none":
            choose = {"none": years[0], "first": years[0], "earliest": min(years), "latest": max(years)}
            filters[key] = choose[self.params.on_multiple]
            filters[key + SOURCE_SUFFIX] = "question"
        if len(years) > 1:
            filters[key + CANDIDATES_SUFFIX] = years
        return dataclasses.replace(query, filters=filters)


class DiagnosisYearFilter:
    """Keeps the chunks whose diagnosis-year range contains the question's year (a hard filter)."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        field: str = Field(
            "applicable_years", min_length=1,
            description="metadata holding a chunk's range: {from, to} (to null = open-ended), the flat pair "
            "<field>_from / <field>_to, or a string like 2018-2024 or 2025+",
        )
        filter_key: str = Field("diagnosis_year", min_length=1, description="query.filters key holding the year")
        ranges: list[YearRule] = Field(
            default_factory=list,
            description="ranges configured per document or version: [{where: {KEY: GLOB}, from_year: Y, to_year: "
                        "Y|null}]; "
            "the first rule whose `where` matches a chunk's metadata gives its range",
        )
        prefer: Literal["metadata", "ranges"] = Field(
            "metadata", description="which wins when a chunk has both: its metadata range or a matching `ranges` rule"
        )
        open_end_years: list[int] = Field(
            default_factory=lambda: [9998, 9999],
            description="an upper bound equal to one of these means open-ended (the source's 'current year' sentinels)",
        )
        unranged: Literal["drop", "keep"] = Field(
            "drop", description="what happens to a candidate with no range when a year is known (counted either way)"
        )
        corpus_check: Literal["strict", "lenient"] = Field(
            "strict",
            description="chunks without a range at ingest/open: strict = an error; lenient = a warning in the trace",
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.reader = YearRangeReader(params.field, params.ranges, params.prefer, params.open_end_years)

    def apply(self, query: Query, hits: list[Hit]) -> FilterOutcome:
        key = self.params.filter_key
        raw = query.filters.get(key)
        if raw is None:
            candidates = query.filters.get(key + CANDIDATES_SUFFIX)
            if candidates:
                note = (
                    f"the question names several diagnosis years ({', '.join(map(str, candidates))}): nothing filtered"
                )
            else:
                note = ("no diagnosis year in the request or the question: nothing filtered "
                        "(the `diagnosis-year` query transform reads it from the question)")
            return FilterOutcome(list(hits), {}, applied=False, note=note)
        year = request_year(raw, key)
        source = query.filters.get(key + SOURCE_SUFFIX, "request")
        kept: list[Hit] = []
        removed: Counter[str] = Counter()
        unranged_kept = 0
        for hit in hits:
            found = self.reader.read(hit.metadata)
            if found is None:
                if self.params.unranged == "keep":
                    kept.append(hit)
                    unranged_kept += 1
                else:
                    removed["no year range"] += 1
            elif found.contains(year):
                kept.append(hit)
            else:
                removed[f"range excludes {year}"] += 1
        note = f"diagnosis year {year} (from the {source}): kept {len(kept)} of {len(hits)} candidates"
        if unranged_kept:
            note += f", {unranged_kept} of them without a year range (unranged: keep)"
        return FilterOutcome(kept, dict(removed), applied=True, note=note)

    def check_corpus(self, nodes: Sequence[Any]) -> str | None:
        missing: list[str] = []
        bad: list[str] = []
        for node in nodes:
            try:
                if self.reader.read(node.metadata) is None:
                    missing.append(str(node.metadata.get("doc_id", node.node_id)))
            except DataError as exc:
                bad.append(str(exc))
        if bad:
            message = f"filter diagnosis-year: {len(bad)} chunks have a malformed year range, e.g. {bad[0]}"
            if self.params.corpus_check == "strict":
                raise DataError(message + "; fix the data, or set corpus_check: lenient to skip them")
            return message
        if not missing:
            return None
        f = self.params.field
        what = (
            f"filter diagnosis-year: {len(missing)} of {len(nodes)} chunks carry no diagnosis-year range "
            f"(metadata `{f}` as {{from, to}}, `{f}_from`/`{f}_to`, or a `ranges` rule), e.g. {', '.join(missing[:3])}"
        )
        if self.params.corpus_check == "lenient":
            return (
                f"{what}; they are {'kept' if self.params.unranged == 'keep' else 'dropped'} whenever a year is known"
            )
        raise ConfigError(
            f"{what}. The `jsonl` loader keeps only scalar fields and drops a nested `{f}`: load the corpus with "
            f"`registry-jsonl`, or configure `ranges:` per document or version, or set `corpus_check: lenient`"
        )
