"""Phrase matching for lexicons written in English, Korean, Japanese and Chinese.

Two rules, one per kind of script:

- **Latin phrases match whole words.** Text and phrase are split into words (letters and digits);
  a phrase matches a run of whole words, so ``colon`` never matches inside "colonoscopy",
  ``bladder`` never inside "gallbladder" and ``thyroid`` never inside "parathyroid". Words are
  compared case-folded, with a possessive ``'s`` and a plural ``s`` ignored ("Hodgkin's
  lymphomas" matches ``hodgkin lymphoma``). Anything that is not a letter or a digit separates
  words, so "non-small", "non small" and "(uveal) melanoma" all split the same way. A phrase word
  ending in ``*`` matches any word starting with it (``treat*``: treat, treated, treatment). A
  one-word phrase written in capitals (``HCC``, ``CLL``, ``GIST``) is an acronym and matches only
  that exact, capitalised word ("the gist of it" is not a tumour).
- **Hangul, kana and Han phrases match as substrings**, since these scripts do not put spaces
  between words (Korean puts them between phrases, not inside compounds: 위암 is found in
  "위암은"). A space written inside a CJK phrase matches any whitespace or none, so the phrase
  ``비소세포 폐암`` matches both "비소세포 폐암" and "비소세포폐암"; a phrase written without a
  space never matches across one (``변이`` is not found in "주변 이상"). Japanese がん, 癌 and ガン
  are interchangeable, and so are Traditional and Simplified Chinese characters: phrase and text
  are also compared with every Traditional-only character in its Simplified form (大腸癌 is found
  by the phrase 大肠癌, and 肝臟 by 肝脏).

Overlapping matches are resolved **longest first** (ties: the earlier one): "non-small cell lung
cancer" is one mention, not also "small cell lung cancer"; 비소세포폐암 is not also 소세포폐암;
结直肠癌 is not also 直肠癌. Lengths are counted in characters of the (NFKC-normalised) text.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass, field

from criss_rag.plugin_utils import HAN, HANGUL, KANA, simplified_chars

_CJK = re.compile(f"[{HANGUL}{KANA}{HAN}]")
# a Latin "word": letters (incl. accented) and digits, with an optional possessive 's
_WORD = re.compile(r"[0-9A-Za-z\u00c0-\u024f]+(?:'[sS])?")
_PHRASE_WORD = re.compile(r"([0-9A-Za-z\u00c0-\u024f]+(?:'[sS])?)(\*?)")  # a trailing * makes a prefix
_APOSTROPHES = str.maketrans({"\u2019": "'", "\u02bc": "'", "`": "'"})
_CANCER_VARIANTS = ("がん", "癌", "ガン")


def normalise_text(text: str) -> str:
    """NFKC (full-width letters, half-width kana) with typographic apostrophes made plain."""
    return unicodedata.normalize("NFKC", text).translate(_APOSTROPHES)


#: how many words' normal forms :func:`normalise_word` remembers (a lexicon's phrases repeat a few
#: thousand words tens of thousands of times)
_NORMAL_WORDS_KEPT = 100_000


@functools.lru_cache(maxsize=_NORMAL_WORDS_KEPT)
def normalise_word(word: str) -> str:
    """Case-folded, possessive and plural ``s`` removed: the form Latin words are compared in."""
    word = word.casefold().removesuffix("'s")
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    return word


def has_cjk(text: str) -> bool:
    return bool(_CJK.search(text))


def is_acronym(phrase: str) -> bool:
    """A single capitalised word of 2 to 8 letters/digits with at least one letter: ``HCC``, ``NSCLC``."""
    return bool(_ACRONYM.fullmatch(phrase))


_ACRONYM = re.compile(r"[A-Z][A-Z0-9]{1,7}")


@dataclass(frozen=True)
class Mention:
    """One match of a phrase in a text: what it stands for (``key``) and where it is."""

    key: str
    start: int
    end: int
    text: str


@dataclass
class _Node:
    words: dict[str, _Node] = field(default_factory=dict)
    prefixes: list[tuple[str, _Node]] = field(default_factory=list)
    ends: list[tuple[str, str | None]] = field(default_factory=list)  # (key, exact acronym or None)


class PhraseMatcher:
    """Finds phrases in text (see the module docstring for the matching rules).

    ``add(phrase, key)`` registers a phrase; ``find(text)`` returns the non-overlapping mentions,
    in text order. Many phrases may share a key (a cancer type, an intent)."""

    def __init__(self) -> None:
        self._root = _Node()
        self._cjk: dict[str, set[str]] = {}  # phrase without spaces -> keys (found with str.find)
        self._cjk_spaced: dict[str, tuple[re.Pattern[str], set[str]]] = {}  # phrase with optional spaces
        self.size = 0

    def add(self, phrase: str, key: str) -> None:
        phrase = normalise_text(phrase).strip()
        if not phrase:
            return
        self.size += 1
        if has_cjk(phrase):
            written = " ".join(phrase.split())
            for variant in _cjk_variants(written) | _cjk_variants(simplified_chars(written)):
                if " " in variant:
                    pattern = r"\s*".join(re.escape(part) for part in variant.split(" "))
                    self._cjk_spaced.setdefault(variant, (re.compile(pattern), set()))[1].add(key)
                else:
                    self._cjk.setdefault(variant, set()).add(key)
            return
        words = _PHRASE_WORD.findall(phrase)
        if not words:
            return
        node = self._root
        for word, star in words:
            node = (
                self._prefix_child(node, word.casefold())
                if star
                else node.words.setdefault(normalise_word(word), _Node())
            )
        node.ends.append((key, phrase if is_acronym(phrase) else None))

    @staticmethod
    def _prefix_child(node: _Node, prefix: str) -> _Node:
        for existing, child in node.prefixes:
            if existing == prefix:
                return child
        child = _Node()
        node.prefixes.append((prefix, child))
        return child

    def find(self, text: str) -> list[Mention]:
        return find_mentions(text, [self])

    def keys(self, text: str) -> list[str]:
        """The keys mentioned in ``text``, in order of first mention, each once."""
        return list(dict.fromkeys(m.key for m in self.find(text)))

    def candidates(self, text: str) -> list[tuple[int, int, str]]:
        """Every (start, end, key) match in the already normalised ``text``, overlaps included."""
        found = self._latin_candidates(text)
        if (self._cjk or self._cjk_spaced) and has_cjk(text):
            found += self._cjk_candidates(text)
        return found

    # -- internals ------------------------------------------------------------------------------
    def _latin_candidates(self, text: str) -> list[tuple[int, int, str]]:
        spans = [(m.start(), m.end(), m.group()) for m in _WORD.finditer(text)]
        norms = [normalise_word(w) for _, _, w in spans]
        lowers = [w.casefold() for _, _, w in spans]
        found: list[tuple[int, int, str]] = []
        for i in range(len(spans)):
            frontier = [self._root]
            j = i
            while frontier and j < len(spans):
                nxt: list[_Node] = []
                for node in frontier:
                    child = node.words.get(norms[j])
                    if child is not None:
                        nxt.append(child)
                    nxt.extend(c for p, c in node.prefixes if lowers[j].startswith(p))
                for node in nxt:
                    for key, acronym in node.ends:
                        if acronym is None or (i == j and spans[j][2] in (acronym, acronym + "s")):
                            found.append((spans[i][0], spans[j][1], key))
                frontier = nxt
                j += 1
        return found

    def _cjk_candidates(self, text: str) -> list[tuple[int, int, str]]:
        found: list[tuple[int, int, str]] = []
        # the text as written and in Simplified characters: one character for one, so spans agree
        for form in dict.fromkeys((text, simplified_chars(text))):
            for phrase, keys in self._cjk.items():
                start = form.find(phrase)
                while start >= 0:
                    found.extend((start, start + len(phrase), key) for key in keys)
                    start = form.find(phrase, start + 1)
            for pattern, keys in self._cjk_spaced.values():
                for match in pattern.finditer(form):
                    found.extend((match.start(), match.end(), key) for key in keys)
        return found


def find_mentions(text: str, matchers: Iterable[PhraseMatcher]) -> list[Mention]:
    """The non-overlapping mentions of several matchers' phrases in ``text`` (spans refer to the
    NFKC-normalised text), resolved together: longest first."""
    text = normalise_text(text)
    candidates: list[tuple[int, int, str]] = []
    for matcher in matchers:
        candidates += matcher.candidates(text)
    return _longest_first(candidates, text)


def _cjk_variants(phrase: str) -> set[str]:
    variants = {phrase}
    for written in _CANCER_VARIANTS:
        if written in phrase:
            variants.update(phrase.replace(written, other) for other in _CANCER_VARIANTS)
    return variants


def _longest_first(candidates: Iterable[tuple[int, int, str]], text: str) -> list[Mention]:
    """Non-overlapping mentions, longest first (ties: earliest, then key), returned in text order."""
    chosen: list[tuple[int, int, str]] = []
    taken: list[tuple[int, int]] = []
    for start, end, key in sorted(set(candidates), key=lambda c: (-(c[1] - c[0]), c[0], c[2])):
        overlaps = any(start < t_end and t_start < end for t_start, t_end in taken)
        # an equally long mention of the same span under another key is kept too
        if overlaps and not any((start, end) == (s, e) for s, e, _ in chosen):
            continue
        chosen.append((start, end, key))
        taken.append((start, end))
    return [Mention(key, s, e, text[s:e]) for s, e, key in sorted(chosen)]
