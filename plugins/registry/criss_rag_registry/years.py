"""Diagnosis years: the year range a chunk applies to, and the diagnosis year a question names.

A range is read from chunk metadata in the shape the registry data uses, ``{"from": 2018, "to":
null}`` (``to: null`` = open-ended: the staging system has no upper bound), or from the flat pair
``<field>_from`` / ``<field>_to`` that the ``registry-jsonl`` loader writes (LlamaIndex stores and
BM25 indexes keep only flat metadata), or from a string such as ``"2018-2024"`` or ``"2025+"``.
"""

from __future__ import annotations

import fnmatch
import re
import unicodedata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from criss_rag.errors import DataError


@dataclass(frozen=True)
class YearRange:
    """Diagnosis years ``start`` to ``end`` inclusive; ``end`` is ``None`` for an open range."""

    start: int
    end: int | None

    def contains(self, year: int) -> bool:
        return self.start <= year and (self.end is None or year <= self.end)

    @property
    def open(self) -> bool:
        return self.end is None

    def __str__(self) -> str:
        return f"{self.start}+" if self.end is None else f"{self.start}-{self.end}"


class YearRule(BaseModel):
    """A year range configured for the chunks whose metadata matches ``where``."""

    model_config = ConfigDict(extra="forbid")
    where: dict[str, str] = Field(
        min_length=1,
        description="metadata key -> value (shell-style glob, e.g. `cs:*`); every key must match",
    )
    from_year: int = Field(ge=1800, le=2200, description="first diagnosis year the chunks apply to")
    to_year: int | None = Field(None, description="last diagnosis year; null = open-ended (no upper bound)")

    @model_validator(mode="after")
    def _ordered(self) -> YearRule:
        if self.to_year is not None and self.to_year < self.from_year:
            raise ValueError(f"to_year {self.to_year} is before from_year {self.from_year}")
        return self

    def matches(self, metadata: Mapping[str, Any]) -> bool:
        return all(
            key in metadata and fnmatch.fnmatchcase(str(metadata[key]), pattern) for key, pattern in self.where.items()
        )


_RANGE_TEXT = re.compile(r"^\s*(\d{4})\s*(?:(\+)|([-–])\s*(\d{4})?)?\s*$")


class YearRangeReader:
    """Finds the year range of a chunk: its metadata, or the configured rules, in ``prefer`` order."""

    def __init__(
        self,
        field: str,
        rules: Iterable[YearRule] = (),
        prefer: Literal["metadata", "ranges"] = "metadata",
        open_end_years: Iterable[int] = (9998, 9999),
    ) -> None:
        self.field = field
        self.rules = list(rules)
        self.prefer = prefer
        self.open_end_years = frozenset(open_end_years)

    def read(self, metadata: Mapping[str, Any]) -> YearRange | None:
        """The chunk's range, or ``None`` when neither its metadata nor a rule gives one.

        Raises :class:`DataError` for a range that is present but malformed."""
        first, second = (self._from_rules, self._from_metadata)
        if self.prefer == "metadata":
            first, second = second, first
        found = first(metadata)
        return found if found is not None else second(metadata)

    def _from_rules(self, metadata: Mapping[str, Any]) -> YearRange | None:
        for rule in self.rules:
            if rule.matches(metadata):
                return YearRange(rule.from_year, rule.to_year)
        return None

    def _from_metadata(self, metadata: Mapping[str, Any]) -> YearRange | None:
        value = metadata.get(self.field)
        if isinstance(value, Mapping):
            return self._make(value.get("from"), value.get("to"), metadata)
        if isinstance(value, str) and value.strip():
            match = _RANGE_TEXT.match(value)
            if not match:
                raise DataError(
                    f"{_where(metadata)}: `{self.field}` is {value!r}; write it as 2018-2024, 2018+ or 2018-"
                )
            start, plus, dash, end = match.groups()
            if plus or dash:  # "2018+" and "2018-" are open; "2018-2024" is closed
                return self._make(start, end if dash else None, metadata)
            return self._make(start, start, metadata)  # one year
        flat_from = metadata.get(f"{self.field}_from")
        if flat_from is not None:
            return self._make(flat_from, metadata.get(f"{self.field}_to"), metadata)
        return None

    def _make(self, start: Any, end: Any, metadata: Mapping[str, Any]) -> YearRange:
        try:
            first = int(start)
            last = None if end is None or end == "" else int(end)
        except (TypeError, ValueError):
            raise DataError(
                f"{_where(metadata)}: year range of `{self.field}` is from={start!r} to={end!r}; "
                "both must be years (to may be null for an open range)"
            ) from None
        if last is not None and last in self.open_end_years:
            last = None  # the source's "no upper bound" sentinel (9998, 9999)
        if last is not None and last < first:
            raise DataError(
                f"{_where(metadata)}: year range of `{self.field}` ends ({last}) before it starts ({first})"
            )
        return YearRange(first, last)


def _where(metadata: Mapping[str, Any]) -> str:
    return f"chunk {metadata.get('doc_id', '?')!r}"


# -- year detection in questions ------------------------------------------------------------------

_YEAR = r"((?:19|20)\d{2})"
# a year followed by these is a range ("2018+", "2018 and later", "2018-2020"), not one year
_NOT_ONE_YEAR = (
    r"(?!\s*(?:\+|[-–~]\s*(?:\d|present|now|current)|and\s+(?:later|after|beyond|onward)|or\s+later|onwards?"
    r"|이후|以降|以後|부터|から))"
)
_MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
_DATE_PREFIX = (
    rf"(?:\d{{1,2}}[/.\-]\d{{1,2}}[/.\-]|{_MONTHS}\s+(?:\d{{1,2}}(?:st|nd|rd|th)?,?\s+)?|\d{{1,2}}\s+{_MONTHS}\s+)?"
)
_EN_BEFORE = (
    r"\b(?:diagnos(?:ed|is|es)|dx(?:'?d)?|(?:year|date)\s+of\s+(?:diagnosis|dx)|(?:diagnosis|dx)\s+(?:year|date))"
    r"\s*(?:(?:in|during|on|of|from|:|=|-)\s*)?(?:the\s+year\s+)?(?:(?:early|late|mid)[\s-]+)?"
)
_PATTERNS = [
    # English: "diagnosed in 2019", "dx 2019", "year of diagnosis: 2019", "diagnosed on 3/15/2019"
    re.compile(_EN_BEFORE + _DATE_PREFIX + _YEAR + r"\b" + _NOT_ONE_YEAR, re.IGNORECASE),
    # English: "2019 diagnosis", "2019 dx", "2019 cases", "2019-diagnosed"
    re.compile(r"\b" + _YEAR + r"[\s-]*(?:dx|diagnos(?:is|es|ed)|cases?)\b", re.IGNORECASE),
    # Korean: "2019년 진단", "2019년에 진단된", "2019년도 진단", "2019년 3월에 진단"
    re.compile(_YEAR + r"\s*년\s*도?\s*(?:\d{1,2}\s*월\s*(?:\d{1,2}\s*일)?\s*)?(?:에|에서|중에?)?\s*진단"),
    # Korean: "진단 연도 2019", "진단년도: 2019", "진단일 2019"
    re.compile(r"진단\s*(?:연도|년도|년|일자|일)\s*(?:[:은는이가]\s*)?" + _YEAR + _NOT_ONE_YEAR),
    # Japanese / Chinese: "2019年に診断", "2019年診断", "2019年の診断", "2019年3月に診断", "2019年诊断"
    re.compile(
        _YEAR + r"\s*年\s*度?\s*(?:\d{1,2}\s*月\s*(?:\d{1,2}\s*日)?\s*)?(?:に|の|中に|中の)?\s*(?:診断|诊断)"
    ),
    # Japanese / Chinese: "診断年 2019", "診断年：2019年", "诊断年份 2019"
    re.compile(r"(?:診断|诊断)\s*(?:年度|年份|年|日)\s*(?:[:は]\s*)?" + _YEAR + _NOT_ONE_YEAR),
]
_BARE_YEAR = re.compile(r"(?<![\d.])" + _YEAR + r"(?![\d.])" + _NOT_ONE_YEAR)


def find_years(text: str, bare_years: bool = False) -> list[int]:
    """Distinct diagnosis years the text names, in order of first mention.

    Only years next to a diagnosis cue count ("diagnosed in 2019", "2019 dx", "2019년 진단",
    "2019年に診断"): a question also mentions years that are not the diagnosis year, such as the
    schema name "Lung [V9: 2025+]". A year followed by "+", "and later" or "-2020" is a range and
    is not taken. With ``bare_years``, any year counts when no cue matched."""
    text = unicodedata.normalize("NFKC", text)
    found: list[tuple[int, int]] = []
    for pattern in _PATTERNS:
        found.extend((m.start(), int(m.group(1))) for m in pattern.finditer(text))
    if not found and bare_years:
        found = [(m.start(), int(m.group(1))) for m in _BARE_YEAR.finditer(text)]
    return list(dict.fromkeys(year for _, year in sorted(found)))


def request_year(value: Any, key: str) -> int:
    """A year given in the request (``query.filters[key]``) as an int."""
    if isinstance(value, bool):
        value = None
    try:
        year = int(str(value).strip())
    except (TypeError, ValueError):
        year = 0
    if not 1800 <= year <= 2200:
        raise DataError(
            f"request filter {key}={value!r} is not a diagnosis year; give a four-digit year, e.g. --filter {key}=2019"
        )
    return year
