"""What a text names, in words of no language: the facets of :func:`criss_rag.lexicon.facets.extract`
as ``"kind:value"`` concepts ("site:liver", "stage:stage:IV", "treatment:surgery"), so that a Korean
question and an English passage can be compared by the things they name, not by their words.
"""

from __future__ import annotations

import functools

from criss_rag.lexicon.facets import Facets, extract

#: the facets that name a thing (everything but the cancer's own name, quantities and negations)
_CONCEPT_FACETS = ("site", "subtype", "stage", "population", "line", "treatment", "test", "drug", "biomarker",
                   "disease", "direction", "timing", "aspect")


def concepts_of(facets: Facets) -> set[str]:
    """The language-neutral values of ``facets`` ("site:liver", "aspect:symptoms"); a biomarker by
    its name alone (EGFR, whether a mutation or a status is named with it)."""
    return {f"{name}:{value.split(':')[0] if name == 'biomarker' else value}"
            for name in _CONCEPT_FACETS for value in getattr(facets, name)}


@functools.lru_cache(maxsize=4096)
def concepts_named(text: str) -> frozenset[str]:
    """The concepts ``text`` names (:func:`concepts_of` its facets). Remembered per text: the same
    passage titles and question words are read for every question they meet."""
    return frozenset(concepts_of(extract(text)))
