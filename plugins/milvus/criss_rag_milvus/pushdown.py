"""Request filters pushed down to Milvus: each rule stores a chunk metadata field as typed
scalar columns at ingest, and turns the request's value (``query.filters[request_key]``) into a
Milvus boolean expression at query time, so the database filters before it ranks.

Three kinds of rule, one per metadata shape the bundled domain plugins use:

- ``year_range``: the diagnosis years a chunk applies to (the registry's ``applicable_years``,
  read as ``{from, to}``, the flat ``<field>_from`` / ``<field>_to`` pair, or ``"2018-2024"`` /
  ``"2018+"``), stored as two INT64 columns; a request year keeps chunks whose range contains it.
- ``any_of``: a label or a list of labels (a cancer type, ``focus``), stored as an ARRAY of
  VARCHAR; a request value (or list) keeps chunks naming any of them.
- ``equals``: one value (a staging ``version``), stored as VARCHAR; kept when equal.

Strings are compared after Unicode NFKC normalisation and case folding, on both sides.
"""

from __future__ import annotations

import json
import unicodedata
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from criss_rag.errors import ConfigError, DataError

NO_YEAR = -1  # the start column of a chunk without a year range
OPEN_END = 99_999  # the end column of an open range ("2018+")
MAX_LABELS = 64  # ARRAY capacity of an any_of column
MAX_CHARS = 512  # VARCHAR length of a label or a value


class PushDown(BaseModel):
    """One request filter evaluated inside Milvus."""

    model_config = ConfigDict(extra="forbid")
    request_key: str = Field(
        min_length=1,
        description="the request filter it reads: `query.filters[KEY]` (`ask --filter KEY=...`, or set by a "
        "query transform such as `diagnosis-year`)",
    )
    field: str = Field(min_length=1, description="the chunk metadata field stored and filtered on")
    match: Literal["year_range", "any_of", "equals"] = Field(
        description="year_range: the request year lies in the chunk's range; any_of: the chunk's label(s) "
        "include a requested one; equals: the chunk's value equals the requested one"
    )
    separator: str | None = Field(
        None, description="any_of: split a string value on this (e.g. `,` for `lung, liver`); null = one label"
    )
    missing: Literal["keep", "drop"] = Field(
        "keep", description="chunks without the field: keep them (they apply to every request) or drop them"
    )


def normalise(value: Any) -> str:
    return unicodedata.normalize("NFKC", str(value)).casefold().strip()


def literal(value: str | int) -> str:
    """A Milvus expression literal: ints as they are, strings JSON-quoted (escapes, CJK kept)."""
    return str(value) if isinstance(value, int) else json.dumps(value, ensure_ascii=False)


class PushDownColumns:
    """The columns of one rule (``f<i>`` names: metadata keys need not be identifiers)."""

    def __init__(self, rule: PushDown, position: int, years: Any = None) -> None:
        self.rule = rule
        self.name = f"f{position}"
        self._years = years  # a YearRangeReader, for year_range rules

    # -- ingest ---------------------------------------------------------------------------------
    def add_to_schema(self, schema: Any, data_type: Any) -> None:
        if self.rule.match == "year_range":
            schema.add_field(f"{self.name}_start", data_type.INT64)
            schema.add_field(f"{self.name}_end", data_type.INT64)
        elif self.rule.match == "any_of":
            schema.add_field(self.name, data_type.ARRAY, element_type=data_type.VARCHAR,
                             max_capacity=MAX_LABELS, max_length=MAX_CHARS)
        else:
            schema.add_field(self.name, data_type.VARCHAR, max_length=MAX_CHARS)

    def row_values(self, metadata: Mapping[str, Any]) -> dict[str, Any]:
        """This rule's column values for a chunk with ``metadata``."""
        if self.rule.match == "year_range":
            found = self._years.read(metadata)
            if found is None:
                return {f"{self.name}_start": NO_YEAR, f"{self.name}_end": NO_YEAR}
            return {f"{self.name}_start": found.start, f"{self.name}_end": OPEN_END if found.end is None else found.end}
        value = metadata.get(self.rule.field)
        if self.rule.match == "equals":
            return {self.name: "" if value in (None, "") else self._checked(normalise(value), metadata)}
        labels = self._labels(value)
        if len(labels) > MAX_LABELS:
            raise DataError(
                f"chunk {metadata.get('doc_id', '?')!r}: `{self.rule.field}` has {len(labels)} labels; the milvus "
                f"column holds at most {MAX_LABELS}"
            )
        return {self.name: [self._checked(label, metadata) for label in labels]}

    def _labels(self, value: Any) -> list[str]:
        if value is None or value == "":
            return []
        values = value if isinstance(value, list | tuple | set) else [value]
        if self.rule.separator:
            values = [part for v in values for part in str(v).split(self.rule.separator)]
        return list(dict.fromkeys(normalise(v) for v in values if normalise(v)))

    def _checked(self, text: str, metadata: Mapping[str, Any]) -> str:
        if len(text) > MAX_CHARS:
            raise DataError(
                f"chunk {metadata.get('doc_id', '?')!r}: `{self.rule.field}` is longer than {MAX_CHARS} characters; "
                "push down a shorter field"
            )
        return text

    # -- query ----------------------------------------------------------------------------------
    def expression(self, filters: Mapping[str, Any]) -> str | None:
        """The Milvus expression for the request, or ``None`` when the request does not set the key."""
        value = filters.get(self.rule.request_key)
        if value is None or value == "" or value == []:
            return None
        keep = self.rule.missing == "keep"
        if self.rule.match == "year_range":
            year = _year(value, self.rule.request_key)
            start, end = f"{self.name}_start", f"{self.name}_end"
            test = f"({start} <= {year} and {end} >= {year})"
            return f"({start} == {NO_YEAR} or {test})" if keep else test
        wanted = self._labels(value)
        if not wanted:
            return None
        values = "[" + ", ".join(literal(w) for w in wanted) + "]"
        if self.rule.match == "any_of":
            test = f"ARRAY_CONTAINS_ANY({self.name}, {values})"
            return f"(ARRAY_LENGTH({self.name}) == 0 or {test})" if keep else test
        test = f"{self.name} in {values}"
        return f'({self.name} == "" or {test})' if keep else test


def _year(value: Any, key: str) -> int:
    try:
        year = int(str(value).strip()) if not isinstance(value, bool) else 0
    except ValueError:
        year = 0
    if not 1800 <= year <= 2200:
        raise DataError(
            f"request filter {key}={value!r} is not a year; give a four-digit year, e.g. --filter {key}=2019"
        )
    return year


def columns_for(rules: Sequence[PushDown], stage: str) -> list[PushDownColumns]:
    """The columns of every rule; a ``year_range`` rule reads ranges with the registry plugin's reader."""
    out = []
    for position, rule in enumerate(rules):
        years = None
        if rule.match == "year_range":
            try:
                from criss_rag_registry.years import YearRangeReader
            except ImportError:
                raise ConfigError(
                    f"stage {stage}: milvus filter on {rule.field!r} is a year_range, which reads year ranges the "
                    "way the registry plugin does: install it (`pip install criss-rag-registry`)"
                ) from None
            years = YearRangeReader(rule.field)
        out.append(PushDownColumns(rule, position, years))
    return out


def combined_expression(columns: Sequence[PushDownColumns], filters: Mapping[str, Any]) -> str:
    """Every applicable rule's expression joined with ``and`` (empty: nothing to push down)."""
    parts = [expr for column in columns if (expr := column.expression(filters))]
    return " and ".join(parts)
