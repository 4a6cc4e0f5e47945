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
from criss_rag.lexicon.claims import prepare, read
from criss_rag.lexicon.facet_words import LEXICON
from criss_rag.lexicon.negation import LESS as NEGATION_LESS
from criss_rag.lexicon.quantities import Quantity, quantity_spans, same_quantity, shares
from criss_rag.lexicon.terms import _EN_STOP, _KO_ENDING, _stem, ko_stem

_WORD = re.compile(r"[a-z0-9]+(?:\.[0-9]+)?|\x00\d+\x00")
_KO_TOKEN = re.compile(r"[가-힣]+|[a-z0-9]+(?:\.[0-9]+)?|\x00\d+\x00")
_CJK_TOKEN = re.compile(r"[一-龥々〆ァ-ヶー]|[a-z0-9]+(?:\.[0-9]+)?|\x00\d+\x00")
_COMPARISON_WORD = re.compile("|".join(p for p, _ in [*_facets._CMP_BEFORE, *_facets._CMP_AFTER]))
# compared apart: negation words (negation), frequency and hedging adverbs (directions)
_EN_NEGATION = frozenset("""not no never cannot can none nor neither generally typically commonly frequently mostly
mainly largely usually often""".split())
_EXCLUSIVE = ("population", "site", "disease")
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
        text = NEGATION_LESS.sub(r"\1", text)  # "painless" is "pain" and a negation, compared apart like "not"
    text = shares(text, language)
    canonical: list[str] = []
    for start, end, quantity in reversed(quantity_spans(text)):  # one token per number with its unit and comparison
        canonical.append(f"qty:{quantity.comparison}|{quantity.value}|{quantity.unit}")
        text = f"{text[:start]} \x00{len(canonical) - 1}\x00 {text[end:]}"
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
        raw = [ko_stem(word) for word in _KO_TOKEN.findall(text) if not _KO_ENDING.fullmatch(word)]  # a lone particle
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


def single_change(
    sentence: str, passage_sentence: str, language: str | None = None, context: str = ""
) -> tuple[str, str] | None:
    """``(what the sentence says, what the passage sentence says there)`` when the sentence is the
    passage sentence with exactly one short span replaced (at most two tokens for three; for three
    to eight Japanese or Chinese characters when the sentence puts a decisive item there), or one
    decisive item inserted (spans left out do not count), else ``None``. No change: a replacement
    that says the same number or direction in another form, and an inserted item that ``context``
    (the rest of the passage) names, as a sentence that names what the passage sentence calls "it"
    does. Needs four tokens in common, and most of the sentence's tokens."""
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
    if tag == "insert" and {t for t in said if decisive(t)} <= set(theirs) | (
        set(tokens(context, language)) if context else set()
    ):
        return None  # moved within the sentence, or named by the rest of the passage
    if said == ("qty:=|1|x",) and not any(decisive(t) for t in theirs[i1:i2]):
        return None  # "once every two years" for "every two years"
    if _same_meaning(said, theirs[i1:i2], language):
        return None
    named = any(":" in t and not t.startswith("qty:") for t in said)  # a word-list item, not a number
    longest = 8 if language in ("ja", "zh") and named else 3
    if tag == "replace" and (j2 - j1 > 2 or i2 - i1 > longest):
        return None
    joiner = " " if language in ("en", "ko") else ""
    return joiner.join(_shown(t) for t in said), joiner.join(_shown(t) for t in theirs[i1:i2])


def swapped(
    sentence: str, passage_sentence: str, language: str | None = None, reorder: bool = True
) -> tuple[str, str] | None:
    """``(first, second)`` when the sentence is the passage sentence with two of its spans (of up
    to four tokens each) exchanged: "in the West squamous cell carcinoma, in Asia adenocarcinoma"
    for "in Asia squamous cell carcinoma, in the West adenocarcinoma"; or with two decisive items of
    one kind in the other order, not side by side in the passage sentence ("occurs in men, not seen in women"
    for "occurs in women, not seen in men"; "children and adults" for "adults and children" is no
    swap; ``reorder=False`` leaves this out where a comparison is restated: "compared with children,
    adults fare worse"). Needs four tokens in common, and most of the sentence's tokens."""
    language = language or detect_language(sentence)
    mine, theirs = tokens(sentence, language), tokens(passage_sentence, language)
    matcher = SequenceMatcher(None, theirs, mine, autojunk=False)
    ops = [op for op in matcher.get_opcodes() if op[0] != "equal"]
    same = sum(j2 - j1 for tag, _, _, j1, j2 in matcher.get_opcodes() if tag == "equal")
    if same < 4 or same < 0.6 * len(mine):
        return None
    exchanged = _reordered(mine, theirs) if reorder else None
    if exchanged is None and sorted(mine) == sorted(theirs) and mine != theirs:
        exchanged = _exchanged_blocks(mine, theirs)
    if exchanged is not None:
        return exchanged
    if len(ops) != 2 or any(tag != "replace" for tag, *_ in ops):
        return None
    (_, a1, a2, b1, b2), (_, c1, c2, d1, d2) = ops
    first, second = mine[b1:b2], mine[d1:d2]
    if max(len(first), len(second)) > 4 or set(first) != set(theirs[c1:c2]) or set(second) != set(theirs[a1:a2]):
        return None
    joiner = " " if language in ("en", "ko") else ""
    return joiner.join(_shown(t) for t in first), joiner.join(_shown(t) for t in second)


def _exchanged_blocks(mine: tuple[str, ...], theirs: tuple[str, ...]) -> tuple[str, str] | None:
    """Two spans of up to four tokens that the passage sentence has in the other places, with words
    of the sentence's own (not only decisive items) between them: "A for X, B for Y" for "B for X,
    A for Y". Spans side by side, or with only items between (a list in another order), are word
    order, not a swap."""
    n = len(theirs)
    for i in range(n):
        for j in range(i + 1, min(i + 5, n + 1)):
            for k in range(j + 1, n):
                if all(decisive(t) for t in theirs[j:k]):
                    continue
                for m in range(k + 1, min(k + 5, n + 1)):
                    if theirs[:i] + theirs[k:m] + theirs[j:k] + theirs[i:j] + theirs[m:] == mine:
                        joiner = " " if not any("\u3040" <= ch <= "\u9fff" for t in mine for ch in t) else ""
                        return joiner.join(_shown(t) for t in theirs[k:m]), joiner.join(_shown(t) for t in theirs[i:j])
    return None


def _reordered(mine: tuple[str, ...], theirs: tuple[str, ...]) -> tuple[str, str] | None:
    """Two decisive items of one kind that the sentence names in the other order than the passage
    sentence, when the passage sentence has a token between them: populations, sites and disease
    states, which exclude each other in a clause (treatments combine: "A with B" is "B with A")."""
    for kind in dict.fromkeys(t.split(":")[0] for t in theirs if t.split(":")[0] in _EXCLUSIVE):
        a = [t for t in mine if t.startswith(kind + ":")]
        b = [t for t in theirs if t.startswith(kind + ":")]
        if len(b) < 2 or sorted(a) != sorted(b) or a == b or len(set(b)) != len(b):
            continue
        first, second = next((x, y) for x, y in zip(a, b, strict=False) if x != y)
        if abs(theirs.index(first) - theirs.index(second)) >= 2:
            return _shown(first), _shown(second)
    return None


def _shown(token: str) -> str:
    if token.startswith("qty:"):
        return str(_quantity(token))
    return token.split(":", 1)[1] if ":" in token else token


def _quantity(token: str) -> Quantity:
    comparison, value, unit = token[4:].split("|")
    return Quantity(comparison, value, unit)


def _named_alike(said: tuple[str, ...], instead: tuple[str, ...]) -> bool:
    """The same numbers (in any unit of time), or the same names written without spaces, one
    ending with the other (用奥沙利铂, 奥沙利铂)."""
    amounts = tuple(t for t in said if t.startswith("qty:")), tuple(t for t in instead if t.startswith("qty:"))
    if (
        amounts[0]
        and len(amounts[0]) == len(amounts[1])
        and not any(decisive(t) for t in (*said, *instead) if not t.startswith("qty:"))
    ):
        said, instead = amounts  # "can exceed 80%" for "can reach 80% or more": the numbers decide
    if len(said) != len(instead) or not said:
        return False
    for a, b in zip(said, instead, strict=False):
        if a.startswith("qty:") and b.startswith("qty:"):
            if not same_quantity(_quantity(a), _quantity(b)):
                return False
            continue
        facet, _, value = a.partition(":")
        other_facet, _, other = b.partition(":")
        if (
            not value
            or facet != other_facet
            or value.isascii()
            or other.isascii()
            or min(len(value), len(other)) < 3
            or not (value.endswith(other) or other.endswith(value))
        ):
            return False
    return True


def _same_meaning(said: tuple[str, ...], instead: tuple[str, ...], language: str) -> bool:
    """Whether two spans say the same in another form: the same numbers with their units, or the
    same directions (減少 / 減って)."""
    joiner = " " if language in ("en", "ko") else ""
    mine, theirs = joiner.join(_shown(t) for t in said), joiner.join(_shown(t) for t in instead)
    if not theirs:
        return False
    if _named_alike(said, instead):
        return True
    if _COMPARISON_WORD.fullmatch(mine.strip()):
        return True  # a comparison word: numbers are compared with theirs apart
    a, b = read(mine, language), read(theirs, language)
    if a.quantities and a.quantities == b.quantities:
        return True
    return bool(a.directions) and a.directions == b.directions and not (a.entities or b.entities)
