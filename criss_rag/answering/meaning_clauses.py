"""The checks that compare a sentence with its passages clause by clause, used by
:class:`~criss_rag.answering.meaning_check.MeaningSupport` (through :class:`ClauseChecks`, which it
extends): how a text is cut into clauses (:func:`clauses`), the directions of each clause against
the passage clause it aligns with, decisive items bound to what they describe, polarity with its
scope, restrictions with "only" (여성만, 女性だけ, 只有女性), and a changed span that only rewords a
negation cue. Also the :class:`Sentence` of a passage these checks read and the share of terms
another set holds (:func:`_coverage`).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from criss_rag.answering.meaning_items import (
    _PROBLEM_KIND,
    _about,
    _bound_items,
    _direction,
    _group,
    _named,
    _same_thing,
    _shown,
)
from criss_rag.lexicon.claims import Reading, blanked, read
from criss_rag.lexicon.directions import contradicted
from criss_rag.lexicon.negation import negated as is_negated
from criss_rag.lexicon.negation import negated_scopes, without_non_negating
from criss_rag.lexicon.quantities import same_quantity as _same_quantity
from criss_rag.types import SentenceProblem

Terms = Callable[[str, str | None], frozenset[str]]  # (text, language) -> terms

_EN_ITEM_CLAUSE = re.compile(r"[,;:()]|\s(?:but|whereas|while|although|though|because|so|which|who)\s")
_CLAUSE = {
    "en": re.compile(r"[,;:()]|\s(?:but|whereas|while|although|though|because|so|and|which|who|or)\s"),
    "ko": re.compile(r"[,;:()，、]|(?<=[가-힣])(?:지만|으며|며|고|는데|어서|아서|므로)\s"),
    "ja": re.compile(r"[,;:()，、；：（）]"),
    "zh": re.compile(r"[,;:()，、；：（）]"),
}
#: a word that restricts what a clause says to the items it names
_ONLY = {"en": re.compile(r"(?<!not )\bonly\b"), "ko": re.compile(r"[가-힣](?<!지)만(?=\s|[이에을를은는])"),
         "ja": re.compile(r"だけ(?!で)|のみ"), "zh": re.compile(r"只(?!要)|仅(?!仅)|只有")}


@dataclass(frozen=True)
class Sentence:
    """A sentence of a passage with what the check reads in it."""

    number: int  # the passage's evidence number
    text: str
    terms: frozenset[str]
    language: str

    @property
    def reading(self) -> Reading:
        return read(self.text, self.language)  # read when compared (cached)

def clauses(text: str, language: str, joins: bool = True) -> list[str]:
    """``text`` cut at commas, semicolons and the conjunctions that join clauses (``joins=False``:
    not at "and" / "or", which join items as often as clauses)."""
    pattern = _CLAUSE.get(language, _CLAUSE["en"]) if joins or language != "en" else _EN_ITEM_CLAUSE
    pieces = _kept(pattern).split(text if language != "en" else f" {text} ")
    out: list[str] = []
    for i in range(0, len(pieces), 2):
        part = pieces[i].strip()
        if not part:
            continue
        if out and _fragment(part, language):  # with the comma or the conjunction that cut it off
            out[-1] = f"{out[-1]}{pieces[i - 1]}{part}".strip()
        else:
            out.append(part)
    return out


@lru_cache(maxsize=16)
def _kept(pattern: re.Pattern) -> re.Pattern:
    """``pattern`` with its match kept by :meth:`re.Pattern.split`."""
    return re.compile(f"({pattern.pattern})")


def _fragment(part: str, language: str) -> bool:
    """Whether a piece cut off at a comma or a conjunction is too short to say anything on its own
    ("... aged 11 or 12 years old": "12 years old"), and belongs to the clause before it."""
    if language == "en":
        return len(part.split()) <= 3
    return len(re.sub(r"[\s。．.！？!?]", "", part)) <= 3


def _coverage(terms: frozenset[str], other: frozenset[str]) -> float:
    return len(terms & other) / len(terms) if terms else 0.0


def _aligned(terms: frozenset[str], candidates: list[tuple[str, frozenset[str]]]) -> str | None:
    """The candidate text (with its terms) sharing most of ``terms`` (the shorter on a tie), when it
    holds at least half of them."""
    best, best_terms = max(candidates, key=lambda t: (len(terms & t[1]), -len(t[1])))
    return best if _coverage(terms, best_terms) >= 0.5 else None


class ClauseChecks:
    """The clause-by-clause checks (module docstring); ``terms`` turns text into content terms."""

    terms: Terms

    def _only(self, text: str, language: str, pool: list[Sentence], number: int) -> list[SentenceProblem]:
        """A clause that restricts ("only girls", 여성만, 女性だけ, 只有女性) to items of a group
        (populations, entities of one category) where the passage clause it aligns with names more
        items of that group ("girls and boys"): the restriction leaves out what the passage includes."""
        theirs = [(c, self.terms(c, language)) for s in pool for c in clauses(s.text, language, joins=False)]
        problems = []
        for clause in clauses(without_non_negating(text, language), language, joins=False):
            if not _ONLY.get(language, _ONLY["en"]).search(clause.lower()):
                continue
            items = _bound_items(read(clause, language))
            if not items or not theirs:
                continue
            best = _aligned(self.terms(clause, language), theirs)
            if best is None:
                continue
            their_items = _bound_items(read(best, language))
            for kind, value in sorted(items):
                more = sorted(v for k, v in their_items - items if k == kind and _group(k, v) == _group(kind, value))
                if (kind, value) in their_items and more:
                    problems.append(SentenceProblem.of(_PROBLEM_KIND.get(kind, "entity"), f"only {value}", number,
                                                       f"{', '.join([value, *more])} ('{best}')"))
        return problems

    def _reworded_negation(self, said: str, instead: str, language: str) -> bool:
        """Whether a changed span only rewords a negation cue: both spans negated, and negating a
        word they share ("치료하지 않" for "치료 대신", "not treat" for "instead of treating")."""
        if not instead or not (is_negated(said, language) and is_negated(instead, language)):
            return False
        return bool(self.terms(said, language) & self.terms(instead, language))

    def _directions(self, text: str, language: str, pool: list[Sentence], number: int) -> list[SentenceProblem]:
        """Each clause's directions against the passage clause it aligns with (of any cited sentence),
        or, when no passage clause aligns with it, against the passage sentence it aligns with (a
        clause that restates a condition and its outcome together, which the passage cuts in two
        clauses: "used as directed, addiction is rare"): a problem where that clause or that
        sentence says only the other sign."""
        theirs = [(c, self.terms(c, language)) for s in pool for c in clauses(s.text, language)]
        whole = [(s.text, s.terms) for s in pool]
        problems = []
        for clause in clauses(text, language):
            terms = self.terms(clause, language)
            said = read(clause, language).directions
            if not terms or not said or not theirs:
                continue
            for candidates in (theirs, whole):  # the sentence when no clause of it aligns
                best = _aligned(terms, candidates)
                if best is None:
                    continue  # nothing the passage says is what this clause says: no direction to compare
                for mine, other in contradicted(said, read(best, language).directions):
                    problems.append(
                        SentenceProblem.of("direction", _direction(mine), number, f"{_direction(other)} ('{best}')")
                    )
                break
        return problems

    def _bound(self, text: str, language: str, unit: list[Sentence], number: int) -> list[SentenceProblem]:
        """Decisive items with what they describe: a clause of the sentence against the clause of
        the aligned passage sentences that says the same about the same thing (its words other than
        the items). In "tumours inside the capsule are stage I, those beyond it stage II", "inside
        the capsule ... stage II" is a problem although the sentence names stage II; so is "X is
        commonest in non-smokers" where the passage says it of Y and names X in another clause.
        Numbers, stages, disease states, entities of each category and populations are bound; for
        items, clauses are not cut at "and" / "or" (a coordination binds its items together), and
        an item the passage names only as an element of a list is not bound elsewhere."""
        problems = []
        for joins in (True, False):  # numbers by every clause, items by clauses not cut at and / or
            theirs = [
                (c, self.terms(c, language), read(c, language))
                for s in unit
                for c in clauses(s.text, language, joins=joins)
            ]
            quoted = {c for c, _, _ in theirs}
            for clause in clauses(text, language, joins=joins):
                if clause in quoted:
                    continue  # a clause of the passage quoted as it is: bound as there
                said = read(clause, language)
                items = _bound_items(said) if not joins else {("stage", v) for v in said.stages}
                if not (items or (joins and said.quantities)) or not theirs:
                    continue
                terms = self.terms(clause, language) - {f"{k}:{v}" for k, v in items} - set(said.stages)
                # of passage clauses that describe it equally well, one that names the same item or number
                best, best_terms, reading = max(
                    theirs,
                    key=lambda t: (
                        len(terms & t[1]),
                        bool(items & _bound_items(t[2])) or bool(set(said.quantities) & set(t[2].quantities)),
                        -len(t[1]),
                    ),
                )
                if not terms or _coverage(terms, best_terms) < 0.6:
                    continue
                problems += self._unbound(items, reading, best, theirs, number)
                for quantity in said.quantities if joins else ():
                    same_unit = [q for q in reading.quantities if q.unit == quantity.unit]
                    if same_unit and not any(_same_quantity(quantity, q) for q in same_unit):
                        problems.append(
                            SentenceProblem.of(
                                "number", str(quantity), number, f"{', '.join(str(q) for q in same_unit)} ('{best}')"
                            )
                        )
        return problems

    def _unbound(
        self, items: set[tuple[str, str]], reading: Reading, best: str, theirs: list, number: int
    ) -> list[SentenceProblem]:
        """Problems for the clause's ``items`` that the passage clause ``best`` replaces by another of
        their group, unless the passage names the item only as an element of a list (a clause with
        no words of its own)."""
        problems = []
        their_items = _bound_items(reading)
        for kind, value in sorted(items - their_items):
            if _named(value, {v for k, v in their_items if k == kind}):
                continue
            others = sorted(v for k, v in their_items - items if k == kind and _group(k, v) == _group(kind, value))
            where = [t for c, t, r in theirs if (kind, value) in _bound_items(r)]
            listed = where and all(
                not (t - {f"{k}:{v}" for k, v in _bound_items(r)})
                for c, t, r in theirs
                if (kind, value) in _bound_items(r)
            )
            if others and not listed:
                problem = _PROBLEM_KIND.get(kind, "entity")
                shown = _shown(value) if problem == "stage" else (value if kind in _PROBLEM_KIND else f"{kind} {value}")
                problems.append(
                    SentenceProblem.of(problem, shown, number, f"{', '.join(_shown(o) for o in others)} ('{best}')")
                )
        return problems

    def _negation(self, text: str, language: str, unit: list[Sentence]) -> list[SentenceProblem]:
        """Polarity with scope, clause by clause. A negated clause of the sentence needs a negated
        clause of the aligned passage sentences about the same thing; a negated passage clause
        whose negated words a clause of the sentence repeats needs that clause negated too (clauses
        not cut at "and" / "or": "no signs or symptoms" negates both). Cues that cancel out (double
        negatives) and "not only ... but also" negate nothing."""

        def read_clauses(sentence: str) -> list[tuple[str, frozenset[str], frozenset[str]]]:
            out = []
            for clause in clauses(without_non_negating(sentence, language), language, joins=False):
                scopes = negated_scopes(clause, language, blanked(clause, language))
                scope_terms = frozenset().union(*(self.terms(s, language) for s in scopes)) if scopes else frozenset()
                if language != "en":  # a window cut inside a word leaves one-character fragments
                    scope_terms = frozenset(t for t in scope_terms if len(t) > 1)
                out.append((clause, self.terms(clause, language), scope_terms))
            return out

        mine = [(c, t, sc, bool(negated_scopes(c, language, blanked(c, language)))) for c, t, sc in read_clauses(text)]
        theirs = [
            (c, t, sc, bool(negated_scopes(c, language, blanked(c, language))))
            for s in unit
            for c, t, sc in read_clauses(s.text)
        ]
        problems = []
        for clause, terms, scope, negated in mine:
            if (
                negated
                and terms
                and not any(n and _same_thing(terms, scope, other, their_scope) for _, other, their_scope, n in theirs)
            ):
                same = max(theirs, key=lambda t: len(terms & t[1]), default=None)
                says = f"'{same[0]}' (not negated)" if same and terms & same[1] else ""
                problems.append(SentenceProblem.of("negation", f"'{clause}' (negated)", unit[0].number, says))
        for clause, terms, scope, negated in theirs:
            if not negated or not scope:
                continue
            for my_clause, my_terms, _my_scope, my_negated in mine:
                if my_negated or _coverage(scope, my_terms) < 0.5 or not _about(my_terms, terms):
                    continue
                if any(n and _same_thing(t, sc, terms, scope) for _, t, sc, n in mine):
                    continue
                problems.append(
                    SentenceProblem.of(
                        "negation", f"'{my_clause}' (not negated)", unit[0].number, f"'{clause}' (negated)"
                    )
                )
                break
        return problems
