"""How the decisive items of a sentence compare with those of its passage: which items exclude
each other (stage I / stage II, men / women, early / metastatic), which a passage implies
(neoadjuvant treatment names surgery), the problems :class:`~criss_rag.answering.meaning_check.MeaningSupport`
reports for items the aligned passage sentences lack or contradict, and whether two negated clauses
are about the same thing.
"""

from __future__ import annotations

from collections.abc import Callable

from criss_rag.lexicon.claims import Reading
from criss_rag.types import SentenceProblem

_DISEASE_GROUPS = [
    {"early", "localized", "locally-advanced", "advanced", "metastatic", "terminal"},
    {"invasive", "non-invasive"}, {"resectable", "unresectable"}, {"benign", "malignant", "precancerous"},
    {"low-grade", "high-grade"}, {"recurrent", "remission"},
]


def _implied(reading: Reading) -> dict[str, set[str]]:
    """The entities of ``reading`` with what its words imply: treatment before or after surgery
    (neoadjuvant, adjuvant) names surgery; surgery with "before" / "after" names that line."""
    entities = {facet: set(values) for facet, values in reading.entities.items()}
    lines = entities.get("line", set())
    if lines & {"neoadjuvant", "adjuvant"}:
        entities.setdefault("treatment", set()).add("surgery")
    if "surgery" in entities.get("treatment", set()):
        if "time:-" in reading.directions:
            entities.setdefault("line", set()).add("neoadjuvant")
        if "time:+" in reading.directions:
            entities.setdefault("line", set()).add("adjuvant")
    return entities


def _marker_agrees(value: str, others: set[str]) -> bool:
    """A biomarker matches one of ``others`` of the same name whose status agrees or is not said."""
    name, _, status = value.partition(":")
    for other in others:
        other_name, _, other_status = other.partition(":")
        if other_name == name and (not status or not other_status or status == other_status):
            return True
    return False


_PROBLEM_KIND = {"stage": "stage", "disease": "stage", "population": "population"}
_POPULATION_GROUPS = [{"male", "female"}, {"child", "adolescent", "young-adult", "adult", "elderly"},
                      {"smoker", "non-smoker"}, {"premenopausal", "postmenopausal"}]


def _bound_items(reading: Reading) -> set[tuple[str, str]]:
    """``(category, value)`` of the items a clause binds: stages, disease states, populations and
    entities by facet (biomarkers, whose status is compared apart, left out)."""
    items = {("stage", v) for v in reading.stages} | {("disease", v) for v in reading.disease}
    items |= {("population", v) for v in reading.population}
    return items | {(facet, v) for facet, values in reading.entities.items() if facet != "biomarker" for v in values}


def _group(kind: str, value: str) -> str:
    """Items of one group replace each other (stage I / stage II, men / women); others add."""
    if kind == "stage":
        return _stage_kind(value)
    if kind == "disease":
        return _disease_group(value)
    if kind == "population":
        return next((str(i) for i, group in enumerate(_POPULATION_GROUPS) if value in group), value)
    return ""


def _stage_kind(value: str) -> str:
    return value.split(":")[0] if ":" in value else value[:1]  # stage / grade / gleason, or T / N / M


def _disease_group(value: str) -> str:
    for i, group in enumerate(_DISEASE_GROUPS):
        if value in group:
            return str(i)
    return value


def _direction(value: str) -> str:
    dimension, sign = value.split(":")
    return {"+": f"{dimension} up", "-": f"{dimension} down"}.get(sign, f"{dimension} {sign}")


def _items(kind: str, claimed: set[str], aligned: set[str], wide: set[str], number: int, *,
           group: Callable[[str], str] = lambda v: "", label: str = "") -> list[SentenceProblem]:
    """Problems for the claimed items the aligned sentences lack: contradicted when they name
    another item of the same group, absent when no cited passage names it."""
    problems = []
    for value in sorted(claimed - aligned):
        if _named(value, aligned):
            continue
        others = sorted(v for v in aligned - claimed if group(v) == group(value))
        what = f"{label} {value}".strip() if label else _shown(value)
        if others:
            problems.append(SentenceProblem.of(kind, what, number, ", ".join(_shown(o) for o in others)))
        elif not _named(value, wide):
            problems.append(SentenceProblem.of(kind, what, number))
    return problems


def _named(value: str, values: set[str]) -> bool:
    """Whether ``values`` name ``value``: the same, or (a name kept as written in a script without
    spaces, three characters or more) one ends with the other, as 用奥沙利铂 and 奥沙利铂."""
    if value in values:
        return True
    return len(value) >= 3 and not value.isascii() and any(
        len(v) >= 3 and not v.isascii() and (value.endswith(v) or v.endswith(value)) for v in values)


def _shown(value: str) -> str:
    """``stage:III`` as "stage III", ``grade:2`` as "grade 2"."""
    return value.replace(":", " ", 1) if value.split(":")[0] in ("stage", "grade", "gleason") else value


def _about(terms: frozenset[str], other: frozenset[str]) -> bool:
    """Whether two clauses are about the same thing: two shared terms, or 40% of the first's."""
    shared = len(terms & other)
    return shared >= 2 or (bool(terms) and shared / len(terms) >= 0.4)


def _same_thing(
    terms: frozenset[str], scope: frozenset[str], other: frozenset[str], other_scope: frozenset[str]
) -> bool:
    """Whether two negated clauses negate the same thing: their negated words overlap, or the
    clauses are about the same thing."""
    return bool(scope & other_scope) or _about(terms, other)
