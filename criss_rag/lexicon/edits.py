"""One changed thing in a near copy: a sentence that repeats its passage sentence except for one
replaced or inserted span is read as an edit of it, and the span is what changed.

Both sentences become token sequences (:func:`tokens`): word-list phrases as one canonical token
each (so synonyms the lists know compare equal), numbers as digits, English words stemmed without
stopwords, Korean words without particles and endings, Japanese and Chinese content characters one
by one (kana grammar and Chinese function characters left out). :func:`single_change` aligns the
sequences; when everything but one span of the sentence matches the passage sentence in order
(parts of the passage sentence left out are fine: a trimmed quote), that span is returned. A
paraphrase rewords more than one place and is left to the other comparisons.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from functools import lru_cache

from criss_rag.language.text import detect_language
from criss_rag.lexicon import facets as _facets
from criss_rag.lexicon.claims import _number_words, prepare, read
from criss_rag.lexicon.facet_words import LEXICON
from criss_rag.lexicon.terms import _EN_STOP, _stem, ko_stem

_WORD = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?|\x00\d+\x00")
_KO_TOKEN = re.compile(r"[가-힣]+|[a-z0-9]+(?:\.[0-9]+)?|\x00\d+\x00")
_CJK_TOKEN = re.compile(r"[一-龥々〆ァ-ヶー]|[a-z0-9]+(?:\.[0-9]+)?|\x00\d+\x00")
_COMPARISON_WORD = re.compile("|".join(p for p, _ in [*_facets._CMP_BEFORE, *_facets._CMP_AFTER]))
# compared apart: negation words (negation), frequency and hedging adverbs (directions)
_EN_NEGATION = frozenset("""not no never cannot can none nor neither generally typically commonly frequently mostly
mainly largely usually often""".split())
_ZH_FUNCTION = set(
    "的了是在和与或也都会可以被有这那为对等其之及而并但就还则于将把让使从到由因所个种些该此它他她们我你吗呢吧"
)


@lru_cache(maxsize=16384)
def tokens(text: str, language: str | None = None) -> tuple[str, ...]:
    """The sentence as a sequence of comparable tokens."""
    language = language or detect_language(text)
    if language not in LEXICON:
        language = "en"
    text = prepare(text, language).lower()
    if language == "en":
        text = re.sub(r"n't\b", " not", text)
    text = _number_words(text)
    canonical: list[str] = []
    for pattern, facet, value, _ in LEXICON[language]:
        if facet == "aspect":
            continue

        def keep(match: re.Match, facet: str = facet, value: str | None = value) -> str:
            canonical.append(f"{facet}:{value if value is not None else match.group(0).strip()}")
            return f" \x00{len(canonical) - 1}\x00 "
        text = pattern.sub(keep, text)
    if language == "en":
        raw = [w for w in _WORD.findall(text) if w not in _EN_STOP and w not in _EN_NEGATION]
    elif language == "ko":
        raw = [ko_stem(word) for word in _KO_TOKEN.findall(text)]
    else:
        raw = [t for t in _CJK_TOKEN.findall(text) if t not in _ZH_FUNCTION]
    out = []
    for token in raw:
        if token.startswith("\x00"):
            out.append(canonical[int(token.strip("\x00"))])
        else:
            out.append(_stem(token) if language == "en" else token)
    return tuple(out)


def decisive(token: str) -> bool:
    """A word-list item (subtype, site, stage word, population, direction, ...) or a number."""
    return ":" in token or token[:1].isdigit()


def single_change(sentence: str, passage_sentence: str, language: str | None = None) -> tuple[str, str] | None:
    """``(what the sentence says, what the passage sentence says there)`` when the sentence is the
    passage sentence with exactly one short span replaced (at most two tokens for three), or one
    decisive item inserted (spans left out do not count), else ``None``; a replacement that says the
    same number or direction in another form is no change. Needs four tokens in common, and most of
    the sentence's tokens."""
    language = language or detect_language(sentence)
    mine, theirs = tokens(sentence, language), tokens(passage_sentence, language)
    if len(mine) < 4:
        return None
    matcher = SequenceMatcher(None, theirs, mine, autojunk=False)
    ops = [op for op in matcher.get_opcodes() if op[0] in ("replace", "insert")]
    same = sum(j2 - j1 for tag, _, _, j1, j2 in matcher.get_opcodes() if tag == "equal")
    if len(ops) != 1 or same < 4 or same < 0.6 * len(mine):
        return None
    tag, i1, i2, j1, j2 = ops[0]
    said = mine[j1:j2]
    if set(said) <= set(theirs):  # words moved, not changed
        return None
    if tag == "insert" and (j2 - j1 > 2 or not any(decisive(t) for t in said)):
        return None
    if _same_meaning(said, theirs[i1:i2], language):
        return None
    if tag == "replace" and (j2 - j1 > 2 or i2 - i1 > 3):
        return None
    joiner = " " if language in ("en", "ko") else ""
    return joiner.join(_shown(t) for t in said), joiner.join(_shown(t) for t in theirs[i1:i2])


def _shown(token: str) -> str:
    return token.split(":", 1)[1] if ":" in token else token


def _same_meaning(said: tuple[str, ...], instead: tuple[str, ...], language: str) -> bool:
    """Whether two spans say the same in another form: the same numbers with their units, or the
    same directions (減少 / 減って)."""
    joiner = " " if language in ("en", "ko") else ""
    mine, theirs = joiner.join(_shown(t) for t in said), joiner.join(_shown(t) for t in instead)
    if not theirs:
        return False
    if _COMPARISON_WORD.fullmatch(mine.strip()):
        return True  # a comparison word: numbers are compared with theirs apart
    a, b = read(mine, language), read(theirs, language)
    if a.quantities and a.quantities == b.quantities:
        return True
    return bool(a.directions) and a.directions == b.directions and not (a.entities or b.entities)
