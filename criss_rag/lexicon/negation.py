"""Negation cues with their scope, in English, Korean, Japanese and Chinese.

A sentence's polarity is the parity of the negation cues that negate what it says: "is not usually
used" (one cue) and "is usually used" (none) say opposite things, "is not uncommon" and "it is not
true that it never spreads" (two cues) say what the plain sentence says. Constructions that contain a
cue word but negate nothing are removed before counting: "not only ... but also", 뿐만 아니라,
だけでなく / のみならず, 不仅 / 不但 / 不只, and the negated universals (:data:`PARTIAL`: "not
always", "not necessarily", 必ずしも...ない, 반드시 ...은 아니다, 不一定), which hedge; so are
words that merely contain a cue character (不同 "different", 非常 "very", 未来 "future", 少ない "few", 必ず "always").

Frequency words that lean negative ("rarely", "seldom", 드물게, まれに, 很少) are read as a
direction (:mod:`criss_rag.lexicon.directions`), not here, so "rarely" and "not often" are compared
as what they are: a low frequency.
"""

from __future__ import annotations

import re

#: a negated universal ("not always", "not necessarily", 必ずしも...ない, 반드시 ...은 아니다, 不一定):
#: a hedge, that X is possible but not certain, which neither denies X nor claims it always holds
PARTIAL: dict[str, str] = {
    "en": r"\bnot\s+(?:always|necessarily|all|every|everyone|invariably|automatically)\b",
    "ko": r"(?<![가-힣])(?:반드시|항상|언제나|모두)\s*[^.,;，。]{0,24}?(?:것은|것이|건|은|는)\s*아니",
    "ja": r"必ずしも[^、。]{0,24}?(?:限らない|限らず|限りません|ない|ません)|とは限(?:らない|らず|りません)|"
          r"(?:すべて|全て|いつも|常に)[^、。]{0,16}?わけでは(?:ない|ありません)",
    "zh": r"不一定|未必|不总是|不見得|不见得|(?:不|并非|不是)(?:都|所有|每)",
}

# constructions whose cue word negates nothing (removed before the cues are counted), besides the
# negated universals of PARTIAL
_CONSTRUCTIONS: dict[str, str] = {
    "en": (
        r"\bnot\s+(?:only|just|merely|simply)\b(?=[^.;]*\b(?:but|also|as\s+well|too)\b)|\bno\s+matter\b|\bwhether\s+or\s+not\b|"
        r"\bif\s+not\s+all\b|\bnot\s+least\b|\bnothing\s+but\b"
    ),
    "ko": (
        r"뿐(?:만)?\s*(?:아니라|아니고)|[을를]\s*비롯|아니면|밖에\s*(?:안\s*|[가-힣]{1,3}지\s*)?(?:않|없|못|안)"
    ),
    "ja": (
        r"だけ(?:で)?(?:は)?なく|のみならず|ばかりでなく|に限らず|にかかわらず|に関わらず|少な|危な|必ず|わずか|まず|"
        r"ないし|いずれ|絶えず|相変わらず|思わず|有無|しか[^、。]{0,10}?(?:ない|ません)"
    ),
    "zh": (
        r"(?:并)?(?:不仅|不但|不只|不光|不止)(?=[^。；]*(?:也|还|而且|并且|更))|不同|不断|不少|不久|不过|不论|不管|无论|未来|非常|差不多|"
        r"不适|不良反应|无关紧要|莫不|非但|是否|能否|可否|与否|不如"
    ),
}

NOT_NEGATING: dict[str, re.Pattern] = {language: re.compile(f"{PARTIAL[language]}|{pattern}")
                                       for language, pattern in _CONSTRUCTIONS.items()}

#: an English word negated by its suffix ("painless": no pain), the words that only look so left out
_LESS = r"(?!(?:un|regard|neverthe|count|doubt|need|end)less)[a-z]{3,}less"
#: the same, with the word it negates as group 1
LESS = re.compile(r"\b(?!(?:un|regard|neverthe|count|doubt|need|end)less\b)([a-z]{3,})less\b")

CUES: dict[str, re.Pattern] = {
    "en": re.compile(r"\b(?:not|no|never|without|cannot|none|nor|neither|nothing|nobody|nowhere|unable|"
                     r"fails?\s+to|failed\s+to|absent|absence\s+of|lacks?|lacking|free\s+of|ruled?\s+out|"
                     r"contraindicated|avoid(?:s|ed)?|neither|instead\s+of|rather\s+than|" + _LESS + r")\b"),
    "ko": re.compile(r"않|없|못(?!하게\s*하)|아니|아[닌닐님닙]|아녜|아냐|마세요|마십시오|말아야|말고|말라|"
                     r"금지|불가능|불필요|(?<=[가-힣\s])대신|"
                     r"(?<![가-힣])안(?=\s)|(?<![가-힣])비(?=[가-힣]{2,}(?:이다|입니다|적))"),
    "ja": re.compile(r"な(?:い|かっ|く|けれ|し(?=[、。\s]|$))|ません|ぬ(?=[、。\s]|$)|"
                     r"(?<=[かがさざたなばまらわせけげめれえ])ず(?![かつっ])|無(?!料)|不(?=[可要能明十全])|禁止|避け|代わりに|かわりに"),
    "zh": re.compile(r"不|没|沒|無|无|未|非|别|勿|否|莫|禁止|避免"),
}


def negation_count(text: str, language: str) -> int:
    """How many cues in ``text`` negate something (``text`` lower-cased for English, with
    lexicon phrases such as "non-small cell" already blanked)."""
    language = language if language in CUES else "en"
    text = NOT_NEGATING[language].sub(" ", text)
    return len(CUES[language].findall(text))


def negated(text: str, language: str) -> bool:
    """Whether ``text`` says the opposite of its plain form (an odd number of negating cues)."""
    return negation_count(text, language) % 2 == 1


# what a cue negates: the words after it (English, Chinese) or before it (Korean and Japanese put the
# negation after the verb), within its clause
_SCOPE_AFTER = {"en": True, "zh": True, "ko": False, "ja": False}
_SCOPE_CHARS = {"en": 48, "zh": 8, "ko": 16, "ja": 12}


def without_non_negating(text: str, language: str) -> str:
    """``text`` with the constructions that contain a cue but negate nothing blanked."""
    language = language if language in CUES else "en"
    return NOT_NEGATING[language].sub(lambda m: " " * len(m.group(0)), text)


def without_partial(text: str, language: str) -> str:
    """``text`` with its negated universals (:data:`PARTIAL`) blanked: what is left of "always" in
    "not always" claims nothing universal."""
    return _PARTIAL.get(language, _PARTIAL["en"]).sub(lambda m: " " * len(m.group(0)), text)


_PARTIAL = {language: re.compile(pattern) for language, pattern in PARTIAL.items()}


def negated_scopes(clause: str, language: str, blanked: str | None = None) -> list[str]:
    """The text each cue of ``clause`` negates, when the clause is negated (an odd number of cues);
    empty for a clause whose cues cancel out ("it is not true that it never spreads"). Cues are
    looked for in ``blanked`` when given: the clause, of the same length, with the word-list
    phrases that contain a cue word ("non-small cell", 非小細胞, 비흡연자) blanked."""
    language = language if language in CUES else "en"
    clause = without_non_negating(clause, language)
    search = without_non_negating(blanked, language) if blanked is not None and len(blanked) == len(clause) else clause
    cues = list(CUES[language].finditer(search))
    if len(cues) % 2 == 0:
        return []
    size = _SCOPE_CHARS[language]
    scopes = []
    for cue in cues:
        if _SCOPE_AFTER[language]:
            # a negating suffix negates its own word too: "painless" is about pain
            start = cue.start() if language == "en" and cue.group(0).endswith("less") else cue.end()
            scope = clause[start:cue.end() + size]
            if language == "en" and len(clause[cue.end():cue.end() + size].split()) < 2:
                scope = clause[max(0, cue.start() - size):start] + " " + clause[start:cue.end()]  # "... is not."
        else:
            scope = clause[max(0, cue.start() - size):cue.start()]
        scopes.append(scope)
    return scopes
