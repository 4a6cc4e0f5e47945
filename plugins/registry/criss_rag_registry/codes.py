"""ICD-O-3 code ranges for lexical retrieval: a registrar expects site C079 to match a note that
lists "C070-C079", and histology 8041 to match "8000-8576"; plain tokens match neither.

The analyzer ``registry-codes`` turns every code and code range into *block terms*. A range is
cut into the fewest aligned blocks that cover it exactly, the way an IP range is cut into CIDR
blocks: C070-C079 is the one block ``site_c07x``; 8000-8576 is ``hist_80xx`` to ``hist_84xx``,
``hist_850x`` to ``hist_856x`` and ``hist_8570`` to ``hist_8576`` (19 terms).
A single code is the block of itself (``site_c079``). A code lies inside a range exactly when
one of the code's *ancestor blocks* (C079: ``c079``, ``c07x``, ``c0xx``) is one of the range's
blocks, so the question side needs its codes' ancestors. An analyzer cannot tell a question from
a document (both go through ``analyze``), so the ``registry-codes`` query transform adds the
ancestors to the retrieval text as wildcard codes (``C07* C0**``) that the analyzer reads as block
terms. A document that lists the single code C071 thus never matches a question about C079.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterator
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from criss_rag.context import ComponentContext
from criss_rag.errors import ConfigError
from criss_rag.plugin_utils import DECLARES_SIGNAL
from criss_rag.types import Hit, Query
from criss_rag_registry.years import request_year

_DASH = r"\s*[-–—]\s*"
# a code is not inside a Latin word, a number or a wildcard; Hangul, kana and Han may touch it
# ("されたC075", "8041の")
_B = r"(?<![A-Za-z0-9_.*/])"
_E = r"(?![A-Za-z0-9_*])"
_CODES = re.compile(
    "|".join(
        [
            rf"{_B}[Cc](?P<sr_lo>\d\d\.?\d){_DASH}[Cc]?(?P<sr_hi>\d\d\.?\d){_E}",  # C340-C343, C18.0-C18.9
            rf"{_B}[Cc](?P<sb_digits>\d{{0,2}})(?P<sb_stars>\*+){_E}",  # C07*, C0** (wildcards)
            rf"{_B}[Cc](?P<sx_digits>\d\d)\.?[_xX]{_E}",  # C50._, C50x: any code of C50
            rf"{_B}[Cc](?P<sc>\d\d\.?\d){_E}",  # C079, C07.9
            rf"{_B}(?P<hr_lo>\d{{4}})(?:/\d)?{_DASH}(?P<hr_hi>\d{{4}})(?:/\d)?{_E}",  # 8000-8576, 8000/3-8576/3
            rf"{_B}(?P<hb_digits>\d{{1,3}})(?P<hb_stars>\*+){_E}",  # 804*, 80**
            rf"{_B}(?P<hc>\d{{4}})(?:/\d)?{_E}",  # 8041, 8041/3
        ]
    )
)


def blocks(lo: int, hi: int, width: int) -> list[str]:
    """The fewest aligned blocks covering ``lo..hi`` exactly, as digit strings with ``*`` for
    free digits: blocks(70, 79, 3) == ["07*"]; blocks(8000, 8012, 4) == ["800*", "8010", "8011", "8012"]."""
    out: list[str] = []
    while lo <= hi:
        size = 1
        while size * 10 <= 10**width and lo % (size * 10) == 0 and lo + size * 10 - 1 <= hi:
            size *= 10
        stars = len(str(size)) - 1
        digits = f"{lo:0{width}d}"
        out.append(digits[: width - stars] + "*" * stars)
        lo += size
    return out


def ancestors(code: int, width: int) -> list[str]:
    """Every block that contains ``code``, smallest first: ancestors(79, 3) == ["079", "07*", "0**"]."""
    digits = f"{code:0{width}d}"
    return [digits[: width - k] + "*" * k for k in range(width)]


@dataclasses.dataclass(frozen=True)
class CodeMatch:
    """A code, code range or wildcard found in a text."""

    start: int
    end: int
    kind: str  # "site" or "hist"
    lo: int
    hi: int
    single: bool  # one code written as such (not a range or a wildcard)


class RegistryCodesAnalyzer:
    """Another analyzer's terms plus ICD-O-3 site and histology codes as range-block terms."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        base: str | dict[str, Any] = Field(
            "standard", description="analyzer for all text that is not a code (a name or {name: ..., <params>})"
        )
        sites: bool = Field(True, description="read topography codes C000-C809 and their ranges (terms `site_c...`)")
        histology: bool = Field(True, description="read 4-digit morphology codes and their ranges (terms `hist_...`)")
        histology_min: int = Field(8000, ge=0, le=9999, description="lowest number read as a histology code")
        histology_max: int = Field(
            9993,
            ge=0,
            le=9999,
            description="highest number read as a histology code (9998/9999, the data's 'no upper year' sentinels, "
                        "stay out)",
        )
        once: bool = Field(
            True,
            description="emit each code term at most once per text: a note that lists C510 in three rows is not "
            "three times as much about C510, and long code lists stay short for BM25's length normalisation",
        )

        @model_validator(mode="after")
        def _ordered(self) -> RegistryCodesAnalyzer.Params:
            if self.histology_max < self.histology_min:
                raise ValueError("histology_max must not be below histology_min")
            return self

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        if isinstance(params.base, str) and params.base == "registry-codes" or (
            isinstance(params.base, dict) and params.base.get("name") == "registry-codes"
        ):
            raise ConfigError("analyzer registry-codes: `base` cannot be registry-codes itself; use e.g. standard")
        self.base = ctx.analyzer(params.base)

    # -- codes -------------------------------------------------------------------------------------
    def find_codes(self, text: str) -> Iterator[CodeMatch]:
        p = self.params
        for m in _CODES.finditer(text):
            g = m.groupdict()
            found: tuple[str, int, int, bool] | None = None
            if g["sr_lo"] is not None:
                found = ("site", _num(g["sr_lo"]), _num(g["sr_hi"]), False)
            elif g["sb_stars"] is not None:
                free = len(g["sb_stars"])
                if len(g["sb_digits"]) + free == 3:
                    lo = int(g["sb_digits"] or "0") * 10**free
                    found = ("site", lo, lo + 10**free - 1, False)
            elif g["sx_digits"] is not None:
                lo = int(g["sx_digits"]) * 10
                found = ("site", lo, lo + 9, False)
            elif g["sc"] is not None:
                code = _num(g["sc"])
                found = ("site", code, code, True)
            elif g["hr_lo"] is not None:
                found = ("hist", int(g["hr_lo"]), int(g["hr_hi"]), False)
            elif g["hb_stars"] is not None:
                free = len(g["hb_stars"])
                if len(g["hb_digits"]) + free == 4:
                    lo = int(g["hb_digits"]) * 10**free
                    found = ("hist", lo, lo + 10**free - 1, False)
            elif g["hc"] is not None:
                code = int(g["hc"])
                found = ("hist", code, code, True)
            if found is None:
                continue
            kind, lo, hi, single = found
            if hi < lo or not (p.sites if kind == "site" else p.histology):
                continue
            if kind == "site" and hi > 809:
                continue  # topography ends at C809
            wildcard = kind == "hist" and g["hb_stars"] is not None
            if kind == "hist" and not (
                (p.histology_min <= lo and hi <= p.histology_max)  # codes and ranges: wholly inside
                or (wildcard and lo <= p.histology_max and hi >= p.histology_min)  # "8***": overlapping
            ):
                continue  # "2018-2024" and "2025-9998" are years, not histology
            yield CodeMatch(m.start(), m.end(), kind, lo, hi, single)

    def code_terms(self, match: CodeMatch) -> list[str]:
        width = 3 if match.kind == "site" else 4
        prefix = "site_c" if match.kind == "site" else "hist_"
        # word characters only ("site_c07x", not "site:c07*"): a BM25 index reloaded from disk
        # re-tokenises questions with the word pattern \w\w+, which would split "site:c07*" apart
        return [prefix + block.replace("*", "x") for block in blocks(match.lo, match.hi, width)]

    def analyze(self, text: str) -> list[str]:
        terms: list[str] = []
        seen: set[str] = set()
        pos = 0
        for match in self.find_codes(text):
            terms.extend(self.base.analyze(text[pos : match.start]))
            for term in self.code_terms(match):
                if not (self.params.once and term in seen):
                    terms.append(term)
                    seen.add(term)
            pos = match.end
        terms.extend(self.base.analyze(text[pos:]))
        return terms

    def ancestor_wildcards(self, text: str) -> list[str]:
        """For each single code in ``text``, its enclosing blocks as wildcard codes ("C07*", "C0**",
        "804*", "80**", "8***"): what a question needs to match the ranges that contain its codes."""
        out: list[str] = []
        for match in self.find_codes(text):
            if not match.single:
                continue
            width = 3 if match.kind == "site" else 4
            written = [("C" + block) if match.kind == "site" else block for block in ancestors(match.lo, width)]
            out.extend(written[1:])
        return list(dict.fromkeys(out))


def _num(code: str) -> int:
    return int(code.replace(".", ""))


class RegistryCodesTransform:
    """Adds the enclosing code blocks of each ICD-O-3 code in the question to the retrieval text."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        analyzer: str | dict[str, Any] = Field(
            "registry-codes",
            description="the registry-codes analyzer (name or {name: registry-codes, <params>}) whose code settings "
            "apply; give the same spec as the lexical retriever's analyzer",
        )

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self.analyzer = ctx.analyzer(params.analyzer)
        if not callable(getattr(self.analyzer, "ancestor_wildcards", None)):
            raise ConfigError(
                f"query transform registry-codes: analyzer {params.analyzer!r} does not read registry codes; "
                "set `analyzer` to registry-codes (e.g. {name: registry-codes, base: standard})"
            )

    def transform(self, query: Query) -> Query:
        wildcards = self.analyzer.ancestor_wildcards(query.search_text)
        if not wildcards:
            return query
        return dataclasses.replace(query, retrieval_text=f"{query.search_text} {' '.join(wildcards)}")


class CodeCoverage:
    """Boosts candidates with a line (a selection-table row) whose codes and ranges cover every code in the question."""

    class Params(BaseModel):
        model_config = ConfigDict(extra="forbid")
        analyzer: str | dict[str, Any] = Field(
            "registry-codes",
            description="the registry-codes analyzer (name or {name: registry-codes, <params>}) whose code settings "
                        "apply",
        )
        weight: float = Field(
            3.0, ge=1,
            description="score factor for a candidate with a line that covers all the question's codes; one whose best "
            "line covers a share s of them gets weight ** s (see `partial`)",
        )
        partial: bool = Field(True, description="give partial coverage its share (weight ** s); false = all or nothing")
        unit: Literal["line", "text"] = Field(
            "line",
            description="where the codes must be found together: on one line (a selection row: site AND histology) "
            "or anywhere in the candidate's text",
        )
        year_label: str | None = Field(
            "Year of Diagnosis",
            description="a line with `<label>: <years>` (e.g. 2018-2020, 2021-9998, *) counts only when the diagnosis "
            "year is among its years; null = lines are not checked for years",
        )
        year_key: str = Field(
            "diagnosis_year", min_length=1, description="query.filters key holding the diagnosis year"
        )
        signal: str = Field("code-coverage", min_length=1, description="signal name the new score is recorded under",
                            json_schema_extra=DECLARES_SIGNAL)

    def __init__(self, params: Params, ctx: ComponentContext) -> None:
        self.params = params
        self._year_field = (
            re.compile(rf"{re.escape(params.year_label)}\s*:\s*([^;\n]*)", re.IGNORECASE) if params.year_label else None
        )
        self.analyzer = ctx.analyzer(params.analyzer)
        if not callable(getattr(self.analyzer, "find_codes", None)):
            raise ConfigError(
                f"reranker code-coverage: analyzer {params.analyzer!r} does not read registry codes; "
                "set `analyzer` to registry-codes"
            )

    def coverage(self, codes: list[tuple[str, int]], text: str, year: int | None = None) -> float:
        """The largest share of ``codes`` ((kind, code) pairs) that one unit of ``text`` covers; a
        unit whose year field excludes ``year`` covers nothing."""
        units = text.splitlines() if self.params.unit == "line" else [text]
        best = 0.0
        for unit in units:
            if year is not None and not self._year_allows(unit, year):
                continue
            spans = [(m.kind, m.lo, m.hi) for m in self.analyzer.find_codes(self._without_years(unit))]
            if not spans:
                continue
            covered = sum(1 for kind, code in codes if any(k == kind and lo <= code <= hi for k, lo, hi in spans))
            best = max(best, covered / len(codes))
        return best

    def _year_allows(self, unit: str, year: int) -> bool:
        """False when the unit states years (``Year of Diagnosis: 2018-2020, 9999``) and ``year`` is not among them."""
        if self._year_field is None:
            return True
        match = self._year_field.search(unit)
        if match is None:
            return True
        for item in re.split(r"[,\s]+", match.group(1).strip()):
            if item == "*":
                return True
            bounds = re.fullmatch(r"(\d{4})(?:[-–](\d{4}))?", item)
            if bounds:
                lo, hi = int(bounds.group(1)), int(bounds.group(2) or bounds.group(1))
                if lo <= year and (hi == 9998 or year <= hi):  # 9998: the source's "current year", no upper bound
                    return True
        return False

    def _without_years(self, unit: str) -> str:
        """The unit without its year field, so that years are never read as codes."""
        return self._year_field.sub(" ", unit) if self._year_field else unit

    def rerank(self, query: Query, hits: list[Hit]) -> list[Hit]:
        codes = list(dict.fromkeys((m.kind, m.lo) for m in self.analyzer.find_codes(query.text) if m.single))
        if not codes:
            return hits
        raw_year = query.filters.get(self.params.year_key)
        year = None if raw_year is None else request_year(raw_year, self.params.year_key)
        out = []
        for hit in hits:
            share = self.coverage(codes, hit.text, year)
            if not self.params.partial:
                share = float(share == 1.0)
            factor = self.params.weight**share
            score = hit.score * factor if hit.score >= 0 else hit.score / factor
            out.append(hit.with_score(score, self.params.signal))
        return sorted(out, key=lambda h: -h.score)
